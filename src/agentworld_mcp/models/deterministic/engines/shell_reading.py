"""The shell engine's commands that read a file: cat, grep, wc, sort, head, tail, diff.

Answered as GNU coreutils answer them; failures raise :class:`~.shell_tree.ShellError`
worded as the command words them.
"""

from __future__ import annotations

import difflib
import re

from ....world import patterns
from ..common import clock
from .shell_call import FILE, FIRST, IGNORE_CASE, LINES, MODE, PATTERN, SECOND, UNIFIED, Call, Output
from .shell_tree import ShellError, Tree


def _file(tree: Tree, call: Call, names: tuple[str, ...] = FILE) -> tuple[str, str]:
    """(the file as given, its text), or the command's error for a missing file or a directory."""
    raw = call.required(names)
    path = tree.resolve(call.command, raw)
    kind = tree.kind(path)
    if kind is None:
        raise ShellError(f"{call.command}: {raw}: No such file or directory")
    if kind == "directory":
        raise ShellError(f"{call.command}: {raw}: Is a directory")
    return raw, tree.content(path)


def cat(tree: Tree, call: Call) -> Output:
    _, text = _file(tree, call)
    return Output("text", text, text)


def grep(tree: Tree, call: Call) -> Output:
    pattern = call.text(PATTERN)
    if pattern is None:
        raise ShellError("grep: missing pattern; usage: grep [OPTION]... PATTERNS [FILE]...")
    _, text = _file(tree, call, tuple(n for n in FILE if n not in PATTERN))
    expression = ("(?i)" if call.flag(IGNORE_CASE) else "") + _basic_regex(pattern)
    try:
        with patterns.time_budget():
            found = [line for line in text.splitlines() if patterns.search(expression, line)]
    except re.error as exc:
        raise ShellError(f"grep: {exc}") from None
    except patterns.PatternTimeout:
        raise ShellError("grep: pattern too complex (matching ran out of time)") from None
    return Output("lines", found, "\n".join(found))


def _basic_regex(pattern: str) -> str:
    """grep's basic regular expression as Python's: ``( ) { } + ? |`` are literal unless escaped."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            following = pattern[i + 1]
            out.append(following if following in "(){}+?|" else "\\" + following)
            i += 2
            continue
        out.append("\\" + char if char in "(){}+?|" else char)
        i += 1
    return "".join(out)


def wc(tree: Tree, call: Call) -> Output:
    given = (call.text(MODE) or "").lstrip("-")
    mode = next((m for m, names in WC_FLAGS.items() if given.lower() in names), given) or next(
        (m for m, names in WC_FLAGS.items() if call.flag(names)), "l")
    if mode not in WC_FLAGS:
        raise ShellError(f"wc: invalid option -- '{mode}'")
    raw, text = _file(tree, call, tuple(n for n in FILE if n not in MODE))
    # ``-c`` counts bytes; a catalog that says its ``c`` mode counts characters gets characters.
    characters = "character" in call.hints and "byte" not in call.hints
    counts = {"l": len(text.splitlines()), "w": len(text.split()),
              "c": len(text) if characters else len(text.encode("utf-8")), "m": len(text)}
    units = {"l": "lines", "w": "words", "c": "characters" if characters else "bytes", "m": "characters"}
    return Output("count", counts[mode], f"{counts[mode]} {raw}", units[mode])


#: wc's modes and the words a catalog may spell them with (``mode: "words"``, ``lines: true``).
WC_FLAGS = {"l": ("l", "lines"), "w": ("w", "words"), "c": ("c", "bytes"), "m": ("m", "chars", "characters")}


def sort(tree: Tree, call: Call) -> Output:
    _, text = _file(tree, call)
    lines = text.splitlines()
    if call.flag(("unique", "u")):
        lines = list(dict.fromkeys(lines))
    numeric = call.flag(("numeric", "n"))
    lines.sort(key=_numeric_key if numeric else None, reverse=call.flag(("reverse", "r")))
    out = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
    return Output("text", out, out)


def _numeric_key(line: str) -> tuple[float, str]:
    match = re.match(r"\s*(-?\d+(?:\.\d+)?)", line)
    return (float(match.group(1)) if match else 0.0, line)


def tail(tree: Tree, call: Call) -> Output:
    return _lines(tree, call, last=True)


def head(tree: Tree, call: Call) -> Output:
    return _lines(tree, call, last=False)


def _lines(tree: Tree, call: Call, *, last: bool) -> Output:
    _, text = _file(tree, call, tuple(n for n in FILE if n not in LINES))
    count = max(call.number(LINES, 10), 0)
    lines = text.splitlines()
    kept = (lines[len(lines) - count:] if count else []) if last else lines[:count]
    out = "\n".join(kept) + ("\n" if kept and (text.endswith("\n") or not last and len(kept) < len(lines)) else "")
    return Output("text", out, out)


def diff(tree: Tree, call: Call) -> Output:
    """What ``diff`` prints for two files: its normal format (``1c1``, ``< old``, ``---``, ``> new``), or
    with ``-u`` (an argument asking for it, or a catalog that says its diffs are unified) the unified
    diff; nothing when the files are the same."""
    texts = []
    for names in (FIRST, SECOND):
        raw = call.required(names)
        path = tree.resolve("diff", raw)
        kind = tree.kind(path)
        if kind != "file":
            raise ShellError(f"diff: {raw}: {'Is a directory' if kind else 'No such file or directory'}")
        entity = tree.entity(path)
        turn = (entity.updated_turn or entity.created_turn or 0) if entity is not None else 0
        texts.append((raw, tree.content(path), clock(turn).strftime("%Y-%m-%d %H:%M:%S.000000000 +0000")))
    (a, old, old_time), (b, new, new_time) = texts
    if call.flag(UNIFIED) or "unified" in call.hints:
        out = "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), a, b, old_time, new_time,
                                             lineterm=""))
    else:
        out = normal_diff(old, new)
    return Output("text", out, out)


def normal_diff(old: str, new: str) -> str:
    """GNU diff's default output: per change a ``1,2c1`` / ``3d2`` / ``4a5,6`` line, the old lines as
    ``< line``, ``---`` between, the new ones as ``> line``; a last line without its newline is
    followed by ``\\ No newline at end of file``, as diff marks it."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        letter = {"replace": "c", "delete": "d", "insert": "a"}[op]
        left = _span(i1, i2) if op != "insert" else str(i1)
        right = _span(j1, j2) if op != "delete" else str(j1)
        out.append(f"{left}{letter}{right}")
        out += _marked("<", a[i1:i2])
        if op == "replace":
            out.append("---")
        out += _marked(">", b[j1:j2])
    return "\n".join(out)


def _span(start: int, end: int) -> str:
    return str(start + 1) if end - start == 1 else f"{start + 1},{end}"


def _marked(sign: str, lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        out.append(f"{sign} {line.rstrip(chr(10)).rstrip(chr(13))}")
        if not line.endswith("\n"):
            out.append("\\ No newline at end of file")
    return out



__all__ = ["WC_FLAGS", "cat", "diff", "grep", "head", "normal_diff", "sort", "tail", "wc"]
