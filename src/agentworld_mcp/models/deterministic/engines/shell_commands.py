"""The shell engine's commands, answered as GNU coreutils answer them.

Each command reads its operands from the call (:class:`~.shell_call.Call`), works on the
episode's :class:`~.shell_tree.Tree` and returns an :class:`~.shell_call.Output`: what it
prints, and the data under it (a listing's names, a count, a file's text) for catalogs
that answer in an outputSchema. Failures raise :class:`~.shell_tree.ShellError` worded as
the command words them; commands that print nothing on success (``mv``, ``cp``, ``rm``)
say what they did in plain words (see :func:`_said`). This module has the commands that navigate and
change the tree; those that read a file are in :mod:`.shell_reading`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ..globs import glob
from .shell_call import (
    APPEND, CONTENT, DEST, FILE, FIRST, HIDDEN, HUMAN, IGNORE_CASE, LINES, LISTED, MODE, NAME, NEW_DIR, OUT_FILE,
    PARENTS, PATTERN, RECURSIVE, SECOND, SORT_FLAGS, SOURCE, START, TARGET, UNIFIED, Call, Output,
)
from .shell_reading import WC_FLAGS, cat, diff, grep, head, sort, tail, wc
from .shell_tree import ShellError, Tree

# -- navigating and listing ------------------------------------------------------------------------


def cd(tree: Tree, call: Call) -> Output:
    raw = call.text(TARGET)
    path = tree.root if raw is None else tree.resolve("cd", raw)
    kind = tree.kind(path)
    if kind is None:
        raise ShellError(f"cd: {raw}: No such file or directory")
    if kind == "file":
        raise ShellError(f"cd: {raw}: Not a directory")
    tree.chdir(path)
    return Output("text", posixpath.basename(path) or "/")


def pwd(tree: Tree, call: Call) -> Output:
    return Output("text", tree.cwd, tree.cwd)


def ls(tree: Tree, call: Call) -> Output:
    raw = call.text(LISTED) or "."
    path = tree.resolve("ls", raw)
    kind = tree.kind(path)
    if kind is None:
        raise ShellError(f"ls: cannot access '{raw}': No such file or directory")
    if kind == "file":
        names = [raw]
    elif call.flag(HIDDEN):
        names = ([".", ".."] if _IMPLIED_ENTRIES.search(call.hints) else []) + list(tree.children(path))
    else:
        names = [name for name in tree.children(path) if not name.startswith(".")]
    return Output("lines", names, "\n".join(names))


#: ``ls -a`` (named so, or as GNU words it: "do not ignore entries starting with .") lists ``.`` and
#: ``..`` too; a catalog that only says it shows *hidden files* lists the directory's own entries,
#: as a server reading the directory (``os.scandir``, ``fs.readdir``) does.
_IMPLIED_ENTRIES = re.compile(
    r"entries (?:starting|beginning) with \.|\bimplied\b|\.['\"]? (?:and|or) ['\"]?\.\.|\bls -a\b")


def find(tree: Tree, call: Call) -> Output:
    raw = call.text(START) or "."
    start = tree.resolve("find", raw)
    kind = tree.kind(start)
    if kind is None:
        raise ShellError(f"find: '{raw}': No such file or directory")
    wanted = call.text(NAME)
    matches = _name_matcher(wanted, "contain" in call.hints)
    shown = raw.rstrip("/") or "/"
    found = [raw] if wanted is None else []
    for path, _ in tree.walk(start) if kind == "directory" else ():
        if matches(posixpath.basename(path)):
            found.append(posixpath.join(shown, posixpath.relpath(path, start)))
    return Output("lines", found, "\n".join(found))


def _name_matcher(wanted: str | None, containing: bool) -> Callable[[str], bool]:
    """``-name``: a glob of the whole name; a plain word is the whole name, or a part of it where the
    catalog says names that *contain* it are found."""
    if wanted is None:
        return lambda name: True
    if any(c in wanted for c in "*?"):
        return glob(wanted).fullmatch
    return (lambda name: wanted in name) if containing else (lambda name: name == wanted)


def du(tree: Tree, call: Call) -> Output:
    raw = call.text(LISTED) or "."
    path = tree.resolve("du", raw)
    if tree.kind(path) is None:
        raise ShellError(f"du: cannot access '{raw}': No such file or directory")
    size = tree.size(path)
    shown = _human(size) if call.flag(HUMAN) else str(size)
    return Output("text", f"{shown}\t{raw}", f"{shown}\t{raw}")


def _human(size: int) -> str:
    """``du -h``'s sizes: ``512``, ``1.5K``, ``12M``."""
    value, unit = float(size), ""
    for unit in ("", "K", "M", "G", "T"):
        if value < 1024 or unit == "T":
            break
        value /= 1024
    if not unit:
        return str(size)
    return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"


# -- creating and changing ------------------------------------------------------------------------


def mkdir(tree: Tree, call: Call) -> Output:
    raw = call.required(NEW_DIR)
    path = tree.resolve("mkdir", raw)
    if tree.kind(path) is not None:
        raise ShellError(f"mkdir: cannot create directory '{raw}': File exists")
    missing = []
    parent = posixpath.dirname(path)
    while tree.kind(parent) is None:
        missing.append(parent)
        parent = posixpath.dirname(parent)
    if tree.kind(parent) == "file":
        raise ShellError(f"mkdir: cannot create directory '{raw}': Not a directory")
    if missing and not call.flag(PARENTS):
        raise ShellError(f"mkdir: cannot create directory '{raw}': No such file or directory")
    for directory in reversed([path, *missing]):
        tree.make_dir("mkdir", directory)
    return Output("none")


def touch(tree: Tree, call: Call) -> Output:
    raw = call.required(FILE)
    path = tree.resolve("touch", raw)
    if tree.kind(path) is None:
        _parent_is_directory(tree, "touch", f"cannot touch '{raw}'", path)
        tree.write("touch", path, "")
    return Output("none")


def echo(tree: Tree, call: Call) -> Output:
    content = call.text(CONTENT) or ""
    raw = call.text(OUT_FILE)
    if raw is None:
        return Output("text", content, content)
    path = tree.resolve("echo", raw)
    kind = tree.kind(path)
    if kind == "directory":
        raise ShellError(f"echo: {raw}: Is a directory")
    if kind is None:
        _parent_is_directory(tree, "echo", raw, path)
    before = tree.content(path) if kind == "file" and call.flag(APPEND) else ""
    tree.write("echo", path, before + content)
    return Output("none")


def mv(tree: Tree, call: Call) -> Output:
    source_raw, dest_raw, source, target, shown = _transfer(tree, call, "mv", "move")
    if tree.entity(target) is not None and tree.kind(source) == "directory":
        raise ShellError(f"mv: cannot overwrite non-directory '{shown}' with directory '{source_raw}'")
    tree.move(source, target)
    return _said(f"'{source_raw}' moved to '{shown}'")


def cp(tree: Tree, call: Call) -> Output:
    source_raw, dest_raw, source, target, shown = _transfer(tree, call, "cp", "copy")
    if tree.kind(source) == "directory" and not (call.flag(RECURSIVE) or call.whole_directories):
        raise ShellError(f"cp: -r not specified; omitting directory '{source_raw}'")
    tree.copy("cp", source, target)
    return _said(f"'{source_raw}' copied to '{shown}'")


def _transfer(tree: Tree, call: Call, command: str, verb: str) -> tuple[str, str, str, str, str]:
    """mv's and cp's operands: (source as given, destination as given, source, target, target as shown);
    a destination that is a directory receives the source under its own name."""
    source_raw, dest_raw = call.text(SOURCE), call.text(DEST)
    if source_raw is None or dest_raw is None:
        raise ShellError(f"{command}: missing {'file operand' if source_raw is None else 'destination file operand'}")
    source, dest = tree.resolve(command, source_raw), tree.resolve(command, dest_raw)
    if tree.kind(source) is None:
        raise ShellError(f"{command}: cannot stat '{source_raw}': No such file or directory")
    target, shown = dest, dest_raw
    if tree.kind(dest) == "directory":
        name = posixpath.basename(source)
        target, shown = posixpath.join(dest, name), f"{dest_raw.rstrip('/')}/{name}"
    if target == source:
        raise ShellError(f"{command}: '{source_raw}' and '{shown}' are the same file")
    if target.startswith(source.rstrip("/") + "/"):
        raise ShellError(f"{command}: cannot {verb} '{source_raw}' to a subdirectory of itself, '{shown}'")
    if tree.kind(target) == "directory":
        raise ShellError(f"{command}: cannot overwrite directory '{shown}' with non-directory"
                         if tree.kind(source) == "file" else
                         f"{command}: cannot {verb} '{source_raw}' to '{shown}': Directory not empty")
    _parent_is_directory(tree, command, f"cannot {verb} '{source_raw}' to '{shown}'", target)
    return source_raw, dest_raw, source, target, shown


def _parent_is_directory(tree: Tree, command: str, what: str, path: str) -> None:
    parent = tree.kind(posixpath.dirname(path))
    if parent != "directory":
        raise ShellError(f"{command}: {what}: {'Not a directory' if parent else 'No such file or directory'}")


def rm(tree: Tree, call: Call) -> Output:
    raw = call.required(FILE)
    if posixpath.basename(raw.rstrip("/")) in (".", ".."):
        raise ShellError(f"rm: refusing to remove '.' or '..' directory: skipping '{raw}'")
    path = tree.resolve("rm", raw)
    kind = tree.kind(path)
    if kind is None:
        raise ShellError(f"rm: cannot remove '{raw}': No such file or directory")
    if path in (tree.root, "/"):
        raise ShellError(f"rm: cannot remove '{raw}': Permission denied")
    if kind == "directory" and not (call.flag(RECURSIVE) or call.whole_directories):
        raise ShellError(f"rm: cannot remove '{raw}': Is a directory")
    tree.remove(path)
    return _said(f"'{raw}' removed")


def rmdir(tree: Tree, call: Call) -> Output:
    raw = call.required(NEW_DIR)
    path = tree.resolve("rmdir", raw)
    kind = tree.kind(path)
    if kind is None:
        raise ShellError(f"rmdir: failed to remove '{raw}': No such file or directory")
    if kind == "file":
        raise ShellError(f"rmdir: failed to remove '{raw}': Not a directory")
    if tree.children(path):
        raise ShellError(f"rmdir: failed to remove '{raw}': Directory not empty")
    if path in (tree.root, "/"):
        raise ShellError(f"rmdir: failed to remove '{raw}': Device or resource busy")
    tree.remove(path)
    return _said(f"'{raw}' removed")


def _said(message: str) -> Output:
    """What ``mv``, ``cp``, ``rm`` and ``rmdir`` report. The commands print nothing on success, and a tool
    that answers "the result of the operation" has no ``-v`` to ask for GNU's lines (``renamed 'a' -> 'b'``),
    so it says what was done in plain words: ``'a.txt' moved to 'archive/a.txt'``."""
    return Output("message", message, message)


COMMANDS: dict[str, Callable[[Tree, Call], Output]] = {
    "cd": cd, "pwd": pwd, "ls": ls, "find": find, "du": du, "mkdir": mkdir, "touch": touch, "echo": echo, "mv": mv,
    "cp": cp, "rm": rm, "rmdir": rmdir, "cat": cat, "grep": grep, "wc": wc, "sort": sort, "tail": tail, "head": head,
    "diff": diff,
}
#: The operand names each command reads: a tool of that name whose required arguments are all
#: among them is the command.
OPERANDS: dict[str, tuple[str, ...]] = {
    "cd": TARGET, "pwd": (), "ls": LISTED + HIDDEN + ("l", "long"), "find": START + NAME + ("type",),
    "du": LISTED + HUMAN, "mkdir": NEW_DIR + PARENTS, "touch": FILE, "echo": CONTENT + OUT_FILE + APPEND,
    "mv": SOURCE + DEST, "cp": SOURCE + DEST + RECURSIVE, "rm": FILE + RECURSIVE + ("force", "f"),
    "rmdir": NEW_DIR, "cat": FILE + ("files", "paths"), "grep": FILE + PATTERN + IGNORE_CASE,
    "wc": FILE + MODE + tuple(n for names in WC_FLAGS.values() for n in names),
    "sort": FILE + SORT_FLAGS + ("r", "n", "u"), "tail": FILE + LINES, "head": FILE + LINES,
    "diff": FIRST + SECOND + UNIFIED,
}

__all__ = ["COMMANDS", "OPERANDS", "RECURSIVE", "Call", "Output"]
