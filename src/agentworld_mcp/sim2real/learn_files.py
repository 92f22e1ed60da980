"""The files a recording showed before the session changed them: a learned world's initial file tree.

A session of a file or editor server reads files that were there before it started; a world learned
from it must start with them, or a different session's reads come back empty. This module walks each
recorded episode in order, as the server saw it, and keeps what the answers showed of every file:

* its whole text (a read of one file that is not one page of it: ``{"content": ...}``, ``{"file_content":
  ...}``, the text of a file read);
* single lines by number: ``[[n, "text"], ...]`` pairs (a diff preview's ``["-n", "old"]`` pairs too, never
  its ``"+n"`` ones), ``{"lines": [...], "start_line": n}`` (or the call's ``start`` argument), search
  matches ``{"path", "line", "text"}``, a unified diff's context and removed lines under ``@@ -n,m ...``;
* its length, where an answer states a total (``total_lines``) or a range read stopped short of its end;
* that it exists: a directory listing's names (``[FILE] a.txt``/``[DIR] src``, lists of file names, a tree
  of ``{"name", "type", "children"}``, the paths a search printed), relative to the listed directory.

Paths are read as the tools address them: the path argument, else the file an earlier call set
(``set_file(filepath)``, then ``read()``), relative paths against the directory a ``cd`` moved to. A file
stops being learned once a successful change named it (its path, a directory above it, or the current
file for a change that names none): what a read shows after a write is the session's work, not the
initial state. A change's own answer is read first, for the old lines its diff shows.

A file whose every line was shown gets its text; one shown in part gets the lines it showed at their
numbers and blank lines elsewhere (up to its stated length or the last line seen); a name only listed is
a file without content when it looks like one (``a.txt``), else a directory.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ..models.deterministic.engines.git import is_git_catalog
from ..models.deterministic.engines.shell import is_shell
from ..models.deterministic.learned_state import answer_data, answer_text, failed, unwrapped
from ..models.deterministic.text_pages import Page
from ..world.catalog import Catalog, ToolSpec
from ..world.roles import normalise_path
from .learn_frames import framed_page, framed_text
from .line_maps import LineMap, line_map
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: The file store's collection (``models/deterministic/files.py``), where a shell's tree lives too.
FILES = "files"
#: A stated length above this is not believed (a file of blank lines that long is no use to anyone).
MAX_LINES = 100_000
#: Argument names that hold a path (``path``, ``filepath``, ``file_name``, ``dirpath``, ``source``, ``folder``).
_PATHLIKE = re.compile(r"(?:^|_|[a-z])(?:path|Path|PATH)s?$|^(?:file|dir|folder)_?names?\d*$|^filenames?\d*$"
                       r"|^(?:source|destination|src|dst|dest|target|folder|directory|dir)$", re.IGNORECASE)
_DIRECTORY_ARG = re.compile(r"dir|folder", re.IGNORECASE)
#: Verbs of tools that show state without changing it (``set_file`` only when it takes nothing but a path).
_READING = {"read", "view", "show", "get", "list", "ls", "listdir", "find", "search", "grep", "skim", "cat", "head",
            "tail", "wc", "sort", "diff", "du", "pwd", "stat", "info", "select", "mark", "cancel", "discard", "cd",
            "chdir", "count", "describe", "inspect", "preview", "lookup", "glob", "tree", "locate", "check"}
_SETTING = {"set", "open", "use", "switch", "choose", "change"}
#: ``cd``; or a setter of a directory (``set_working_dir``): where later relative paths start.
_MOVING_TO = {"cd", "chdir", "pushd"}
_DIRECTORY_WORDS = {"dir", "directory", "folder", "cwd", "workdir", "listdir"}
_DRY_RUN = ("dryRun", "dry_run", "preview")
#: Arguments that name a version of a file (a commit, a tag): what it shows is no state of the file on disk.
_VERSIONED = re.compile(r"^(?:object|ref|rev|revision|commit|sha|hash|branch|tag|version|tree_?ish|at_?ref)$",
                        re.IGNORECASE)
#: Verbs of a read that shows one file's text.
_WHOLE_READ = {"read", "cat", "view", "show", "open", "get", "print", "load", "fetch"}
_TEXT_FIELD = re.compile(r"^(?:file_?)?(?:content|contents|text|body|markdown)$", re.IGNORECASE)
#: Arguments that make a read one page of a file, not all of it.
_PAGING = {"head", "tail", "offset", "limit", "start", "end", "start_line", "end_line", "startline", "endline",
           "cursor", "max_chars", "maxchars", "length", "from", "to", "line", "lines", "page"}
_START = ("start_line", "startLine", "start", "from_line", "first_line", "from")
_END_ARG = ("end", "end_line", "endLine", "to", "last_line")
_TOTAL = re.compile(r"^(?:total_?lines|lines_?total|total_?line_?count|num_?lines|line_?total)$", re.IGNORECASE)
_LINE_NO = ("line", "line_number", "lineNumber", "lineno", "line_no")
_LINE_TEXT = ("text", "line_text", "lineText", "content", "snippet", "line_content", "match", "line")
#: The lines a search match shows around it (``context_before``/``context_after``), in order.
_CONTEXT_BEFORE = ("context_before", "contextBefore", "before")
_CONTEXT_AFTER = ("context_after", "contextAfter", "after")
#: A file's length stated at the top of an answer (an overview's ``line_count``); deeper it is a part's.
_LINE_COUNT = re.compile(r"^(?:line_?count|lines)$", re.IGNORECASE)
_LISTING_WORDS = {"ls", "list", "listdir", "dir", "tree", "find", "search", "glob", "locate", "files"}
_LISTING_KEYS = {"files", "filenames", "names", "entries", "contents", "content", "children", "items", "matches",
                 "results", "paths", "listing", "dirs", "directories", "folders", "filepaths"}
_NUMBERED = re.compile(r"^([-+]?)(\d+)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")
_MARKED = re.compile(r"^\[(FILE|DIR)\]\s+(.+)$")
_EXTENSION = re.compile(r"[^./]\.[A-Za-z0-9]{1,8}$")


@dataclass
class _File:
    """What the answers showed of one path before the session changed it."""

    relative: bool
    kind: str | None = None  # "file", "directory", or None: a name only listed
    text: str | None = None
    lines: dict[int, str] = field(default_factory=dict)
    total: int | None = None


@dataclass
class _Session:
    """One episode's current directory (``/`` = where the session started) and current file."""

    cwd: str = "/"
    relative: bool = True
    current: tuple[str, bool] | None = None


class _Tree:
    def __init__(self) -> None:
        self.files: dict[str, _File] = {}
        self.written: set[tuple[str, bool]] = set()
        #: Files every change of which showed its diff: the changes, oldest first (line_maps.py).
        self.changed: dict[str, list[LineMap]] = {}

    def touched(self, where: tuple[str, bool]) -> bool:
        """Whether the session changed the path or a directory above it. A relative path and an absolute one
        are one file when the absolute one ends with it (``docs/a.txt`` read from ``/workspace``)."""
        key, relative = where
        while True:
            for done, done_relative in self.written:
                if done_relative == relative and key == done:
                    return True
                whole, part = (done, key) if relative else (key, done)
                if done_relative != relative and part != "/" and (whole == part or whole.endswith(part)):
                    return True
            if key in ("/", ""):
                return False
            key = posixpath.dirname(key)

    def wrote_below(self, where: tuple[str, bool]) -> bool:
        prefix = where[0].rstrip("/") + "/"
        return any(done.startswith(prefix) for done, _ in self.written)

    def at(self, where: tuple[str, bool]) -> _File | None:
        """The file as first seen; None once changed (a changed file's text and length are another version's)."""
        key, relative = where
        if key == "/" or self.touched(where) or key in self.changed:
            return None
        return self.files.setdefault(key, _File(relative))

    def line(self, where: tuple[str, bool], number: int, text: str) -> None:
        """Line ``number`` as the answer showed it; of a file changed with diffs, at its number before them."""
        key, relative = where
        if key == "/" or self.touched(where):
            return
        for change in reversed(self.changed.get(key, [])):
            old = change.old_of(number)
            if old is None:
                return  # a line the session wrote
            number = old
        seen = self.files.setdefault(key, _File(relative))
        if 1 <= number <= MAX_LINES:
            seen.kind = "file"
            seen.lines.setdefault(number, text.removesuffix("\n").removesuffix("\r"))

    def change(self, where: tuple[str, bool], diff: LineMap | None) -> None:
        """The session changed ``where``; with the change's diff its later lines can still be placed."""
        if diff is not None and not self.touched(where):
            self.changed.setdefault(where[0], []).append(diff)
        else:
            self.written.add(where)


def learned_files(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> list[JSONDict]:
    """The ``files`` entries (``{"path", "type", "content"}``) the recorded answers showed before the session
    changed them (see the module doc); relative paths stay relative (``observed_seed`` roots them). Only for
    a catalog that keeps files (a tool of the file style, or a shell's commands). A version
    control catalog's working tree is ``learn_repository``'s: there a text shown may be a commit's or the
    index's, not the file's, and only that learner tells them apart."""
    if is_git_catalog(catalog.world) or not (any(s.role.style == "file" for s in catalog) or is_shell(catalog.world)):
        return []
    tree = _Tree()
    for turns in episodes.values():
        session = _Session()
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is not None and not _failed(turn.result):
                _read_turn(tree, session, turn, spec)
    return _entries(tree)


def _failed(result: JSONDict) -> bool:
    """A failed call (:func:`failed`), where a file's own text is not read as the failure it may mention (a log's
    ``ERROR`` lines in ``{"content": ...}``)."""
    data = answer_data(result)
    if data is None and not result.get("isError") and framed_text(answer_text(result)):
        return False  # a header that states the page over the file's lines: its ``ERROR`` lines are the file's
    if isinstance(data, dict) and not result.get("isError"):
        return failed({"content": [], "structuredContent": {k: v for k, v in data.items() if not _TEXT_FIELD.match(k)}})
    return failed(result)


def merge_files(entries: list[JSONDict], learned: list[JSONDict], limit: int) -> None:
    """``learned`` added to ``entries`` (the seed's files so far): a path already there keeps its entry, which
    takes the learned text where it had none; a new path is appended while fewer than ``limit`` are held."""
    held = {normalise_path("/" + str(e.get("path", "")).lstrip("/")): e for e in entries}
    for entry in learned:
        known = held.get(normalise_path("/" + entry["path"].lstrip("/")))
        if known is None and len(entries) < limit:
            entries.append(entry)
        elif known is not None and "content" in entry and known.get("type", "file") == "file" and (
                "content" not in known or str(known["content"]) in entry["content"]):
            known["content"] = entry["content"]  # the lines around a part another learner kept (a function's body)
            if "unknown_lines" in entry:
                known["unknown_lines"] = entry["unknown_lines"]


# -- one call ------------------------------------------------------------------------------------


def _read_turn(tree: _Tree, session: _Session, turn: RecordedTurn, spec: ToolSpec) -> None:
    args = turn.arguments
    named = [(n, v) for n, v in args.items() if _PATHLIKE.search(n) and isinstance(v, str) and v]
    listed = [str(v) for n, values in args.items() if _PATHLIKE.search(n) and isinstance(values, list)
              for v in values if isinstance(v, str) and v]
    words = _words(spec.name)
    if words & _MOVING_TO or words & _SETTING and words & _DIRECTORY_WORDS and len(named) == 1:
        folder = next((v for _, v in named), next((v for v in args.values() if isinstance(v, str) and v), None))
        if folder is not None:  # ``cd folder``, ``set_working_dir(path)``: later relative paths start there
            session.cwd, session.relative = _resolve(session, folder)
            _mark_directory(tree, (session.cwd, session.relative))
        return
    on_directory = bool(words & _DIRECTORY_WORDS)
    files = [(n, v) for n, v in named if not on_directory and not _DIRECTORY_ARG.search(n)]
    target = _resolve(session, files[0][1]) if files else session.current if not named else None
    base = _resolve(session, named[0][1]) if named else (session.cwd, session.relative)
    data = answer_data(turn.result)
    changes = _changes(spec, args, words)
    # a version of a file other than the one on disk (``show(object=HEAD~1, path)``) says nothing of its state
    versioned = any(_VERSIONED.match(n) and v not in (None, "", False) for n, v in args.items())
    diffs: list[LineMap | None] = []
    if not versioned:
        previews = changes or _previewing(spec, args)
        diffs = _lines_of(tree, session, data if data is not None else answer_text(turn.result), target, args,
                          previews, base)
    if not changes and not versioned:
        _whole_text(tree, turn, spec, data, target, args, words, len(named) + len(listed))
        if named and not files or words & _LISTING_WORDS or spec.role.kind in ("list", "search"):
            _listing(tree, session, turn, spec, data, base, words)
    if changes:
        changed = [*(_resolve(session, v) for _, v in named), *(_resolve(session, v) for v in listed)] or (
            [session.current] if session.current is not None else [])
        for where in changed:  # one file and one diff: the diff is that file's change
            tree.change(where, diffs[0] if len(changed) == 1 and len(diffs) == 1 and where == target else None)
    if files:
        session.current = target


def _previewing(spec: ToolSpec, args: JSONDict) -> bool:
    """A dry run: asked for (``preview: true``), or left to a ``preview`` argument the catalog says is on by default."""
    props = spec.input_schema.get("properties") or {}
    return any(args.get(n, (props.get(n) or {}).get("default") if isinstance(props.get(n), dict) else None) is True
               for n in _DRY_RUN)


def _changes(spec: ToolSpec, args: JSONDict, words: set[str]) -> bool:
    """Whether the call may change a file: any tool but one that reads (by its role or its verb), a dry run,
    or an opener that takes nothing but a path (``set_file(filepath)``)."""
    if _previewing(spec, args):
        return False
    if spec.role.kind in ("list", "search", "read"):
        return False
    if words & _SETTING and all(_PATHLIKE.search(n) for n in args):
        return False
    return not words & _READING


def _resolve(session: _Session, raw: str) -> tuple[str, bool]:
    """(key, relative): an absolute path as it is, a relative one against the current directory (``/`` being
    where a session that never named an absolute directory started)."""
    raw = raw.strip()
    if raw.startswith("/"):
        return normalise_path(raw), False
    if raw == "~" or raw.startswith("~/"):
        raw = raw[2:]
    return normalise_path(posixpath.join(session.cwd, raw)), session.relative


def _words(name: str) -> set[str]:
    return set(re.split(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])", name.lower())) - {""}


def _mark_directory(tree: _Tree, where: tuple[str, bool]) -> None:
    """A directory listed or entered exists, unless the session wrote below it first (it may have made it)."""
    if tree.wrote_below(where):
        return
    seen = tree.at(where)
    if seen is not None and seen.kind is None:
        seen.kind = "directory"


# -- what an answer shows --------------------------------------------------------------------------


def _lines_of(tree: _Tree, session: _Session, data: Any, target: tuple[str, bool] | None, args: JSONDict,
              previews: bool, base: tuple[str, bool] | None = None) -> list[LineMap | None]:
    """Lines by number anywhere in the answer. A change's answer (or a dry run's) counts only for the old
    lines its preview shows; a diff counts only there (elsewhere its old side may be another version).
    Returns the line maps of the diffs it read."""
    diffs: list[LineMap | None] = []
    if isinstance(data, str):
        if target is not None and previews:
            diffs.append(_unified_diff(tree, target, data))
        return diffs
    if target is not None and previews:  # ``{"preview": "@@ -13,7 +13,7 @@ ..."}``: a diff in a field
        for node in _nodes(data):
            for value in node.values() if isinstance(node, dict) else ():
                if isinstance(value, str) and _HUNK.match(value):
                    diffs.append(_unified_diff(tree, target, value))
    if target is not None and not previews:
        _page(tree, target, data, args)
    for node in _nodes(data):
        if isinstance(node, list) and node and target is not None and all(_pair(i) for i in node):
            signed = any(isinstance(n, str) for n, _ in node)
            if signed and not previews:
                continue
            shown = []
            for number, text in node:
                sign, digits = _NUMBERED.match(str(number)).groups()  # type: ignore[union-attr]
                if sign != "+":
                    tree.line(target, int(digits), text)
                    shown.append(int(digits))
            if not previews and shown:
                _stopped_short(tree, target, args, max(shown))
        elif previews:
            continue
        elif isinstance(node, list):
            for item in node:
                if isinstance(item, dict):
                    _match(tree, session, item, target, base)
        elif isinstance(node, dict) and target is not None:
            start = next((node[k] for k in _START if _number(node.get(k))), None)
            start = start if start is not None else next((args[k] for k in _START if _number(args.get(k))), None)
            for key, value in node.items():
                if "line" in key.lower() and isinstance(value, list) and value and start is not None \
                        and all(isinstance(v, str) for v in value):
                    for offset, text in enumerate(value):
                        tree.line(target, int(start) + offset, text)
                if _TOTAL.match(key) and _number(value) and (seen := tree.at(target)) is not None:
                    seen.kind, seen.total = "file", min(int(value), MAX_LINES)
    return diffs


def _pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[1], str) and (
        isinstance(item[0], int) and not isinstance(item[0], bool) or isinstance(item[0], str)
        and _NUMBERED.match(item[0]) is not None)


def _number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _stopped_short(tree: _Tree, target: tuple[str, bool], args: JSONDict, last: int) -> None:
    """A range read that asked past the last line it showed: the file ends there."""
    end = next((args[k] for k in _END_ARG if _number(args.get(k))), None)
    seen = tree.at(target)
    if end is not None and int(end) > last and seen is not None and seen.total is None:
        seen.total = last


def _match(tree: _Tree, session: _Session, item: JSONDict, target: tuple[str, bool] | None,
           base: tuple[str, bool] | None = None) -> None:
    """A search match that shows a line's number and its text (and the lines around it), in the file it names
    (relative to the searched directory) or the current one; a file's group of matches
    (``{"file": "a.md", "matches": [...]}``) names the file for each of them."""
    number = next((item[k] for k in _LINE_NO if _number(item.get(k))), None)
    text = next((item[k] for k in _LINE_TEXT if isinstance(item.get(k), str)), None)
    path = next((item[k] for k in ("path", "file", "filepath", "file_path", "filename") if isinstance(item.get(k), str)
                 and item[k]), None)
    within = _Session(base[0], base[1]) if base is not None and path is not None and not path.startswith("/") \
        and base != target else session
    where = _resolve(within, path) if path is not None else target
    if number is None and path is not None:
        for value in item.values():
            for inner in value if isinstance(value, list) else ():
                if isinstance(inner, dict) and not any(isinstance(inner.get(k), str) for k in
                                                       ("path", "file", "filepath", "file_path", "filename")):
                    _match(tree, session, inner, where)
        return
    if number is None or text is None or where is None or "\n" in text.rstrip("\n"):
        return
    tree.line(where, int(number), text)
    before: list[Any] = next((item[k] for k in _CONTEXT_BEFORE if isinstance(item.get(k), list)), [])
    after: list[Any] = next((item[k] for k in _CONTEXT_AFTER if isinstance(item.get(k), list)), [])
    if all(isinstance(t, str) and "\n" not in t for t in [*before, *after]):
        for offset, line in enumerate(before):
            if int(number) - len(before) + offset >= 1:
                tree.line(where, int(number) - len(before) + offset, line)
        for offset, line in enumerate(after):
            tree.line(where, int(number) + 1 + offset, line)


def _page(tree: _Tree, target: tuple[str, bool], data: Any, args: JSONDict) -> None:
    """A page of a file as one text with the number of its first line (``{"content": "...", "start_line": 10}``),
    and the file's length an answer states at its top (``line_count``)."""
    for body in (data, unwrapped(data)):
        if not isinstance(body, dict):
            continue
        start = next((body[k] for k in _START if _number(body.get(k)) and body[k] >= 1), None)
        texts = [v for k, v in body.items() if _TEXT_FIELD.match(k) and isinstance(v, str)]
        if start is not None and len(texts) == 1:
            for offset, text in enumerate(texts[0].split("\n")[:MAX_LINES]):
                if offset == len(texts[0].split("\n")) - 1 and text == "":
                    break  # the newline that ends the last line shown
                tree.line(target, int(start) + offset, text)
        count = next((v for k, v in body.items() if _LINE_COUNT.match(k) and _number(v)), None)
        if count is not None and (seen := tree.at(target)) is not None and seen.total is None:
            seen.kind, seen.total = "file", min(int(count), MAX_LINES)


def _unified_diff(tree: _Tree, target: tuple[str, bool], text: str) -> LineMap | None:
    """A unified diff's old side: context and removed lines numbered from each hunk's ``@@ -n``; and its map."""
    number: int | None = None
    lines = _diff_lines(text)
    for line in lines:
        hunk = _HUNK.match(line)
        if hunk is not None:
            number = int(hunk.group(1))
        elif number is not None and line[:1] in (" ", "-") and not line.startswith("---"):
            tree.line(target, number, line[1:])
            number += 1
        elif number is not None and not line.startswith(("+", "\\")):
            number = None  # past the hunks (a closing fence)
    return line_map(lines)


def _whole_text(tree: _Tree, turn: RecordedTurn, spec: ToolSpec, data: Any, target: tuple[str, bool] | None,
                args: JSONDict, words: set[str], paths: int) -> None:
    """A read of one whole file: its text."""
    role = spec.role
    other_op = role.style == "file" and role.op not in (None, "read")  # a file's info, a listing: not its text
    reads = not other_op and (role.kind == "read" and role.style == "file" or bool(words & _WHOLE_READ))
    paged = any(a.lower() in _PAGING and v not in (None, 0, "") for a, v in args.items())
    if target is None or not reads or paths > 1:
        return
    page = framed_page(turn, spec) if data is None else None  # a header stating the page over its lines
    if page is not None:
        _framed(tree, target, page)
        return
    if paged:
        return
    text: str | None = None
    for body in (data, unwrapped(data)):
        if isinstance(body, dict):
            if body.get("has_more") is True or body.get("truncated") is True or body.get("offset") not in (None, 0) \
                    or body.get("next_cursor"):
                return
            if any(_number(body.get(k)) and body[k] > 1 for k in _START):
                return  # a part that starts past line 1 (the definition around a line): a page, not the file
            found = [v for k, v in body.items() if _TEXT_FIELD.match(k) and isinstance(v, str)]
            text = found[0] if len(found) == 1 else text
    if data is None and role.kind == "read" and role.style == "file":
        text = answer_text(turn.result)
        given = [v for v in args.values() if isinstance(v, str) and v]
        if words & _SETTING and any(v in text for v in given):
            text = None  # ``open_file(path)`` -> "Current file: path": a status line naming the file, not its text
    seen = tree.at(target) if text is not None else None
    if seen is not None and seen.text is None:
        seen.kind, seen.text = "file", text


def _framed(tree: _Tree, target: tuple[str, bool], page: Page) -> None:
    """A framed read's lines at their numbers; the file's length where the header states it."""
    for offset, text in enumerate(page.lines):
        tree.line(target, page.start + 1 + offset, text)
    seen = tree.at(target)
    if seen is not None and seen.total is None and page.total >= page.end and (page.total > page.end or page.start):
        seen.total = page.total
    elif seen is not None and seen.text is None and page.start == 0 and page.total == len(page.lines):
        seen.kind, seen.text = "file", "\n".join(page.lines) + "\n"


def _listing(tree: _Tree, session: _Session, turn: RecordedTurn, spec: ToolSpec, data: Any,
             base: tuple[str, bool], words: set[str]) -> None:
    """The names a directory listing or a search showed, below the listed directory."""
    names: list[tuple[str, str | None]] = []
    text = answer_text(turn.result) if data is None else None
    body = unwrapped(data)
    if isinstance(text, str) and text.strip():
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        marked = [_MARKED.match(line) for line in lines]
        if any(marked):
            names = [(re.split(r"\s{2,}", m.group(2))[0].strip(), "directory" if m.group(1) == "DIR" else "file")
                     for m in marked if m is not None]
        elif spec.role.kind in ("list", "search") and all(line.startswith(("/", "./")) for line in lines):
            names = [(line, None) for line in lines]
    for candidate in (data, body):
        if isinstance(candidate, list):
            names += _tree_names(candidate, "")
        elif isinstance(candidate, dict):
            for key, value in candidate.items():
                if isinstance(value, list) and _words(key) & _LISTING_KEYS and not _words(key) & {"line", "lines"}:
                    names += [(v, None) for v in value if isinstance(v, str) and v and "\n" not in v and len(v) < 256]
                    names += _tree_names(value, "")
    if names:
        _mark_directory(tree, base)
    for name, kind in names:
        where = _resolve(_Session(base[0], base[1]), name)
        seen = tree.at(where)
        if seen is not None and kind is not None and seen.kind is None:
            seen.kind = kind


def _tree_names(items: list[Any], prefix: str) -> list[tuple[str, str | None]]:
    """A tree answer's paths: ``[{"name", "type": "file" | "directory", "children": [...]}]``."""
    out: list[tuple[str, str | None]] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item.get("type") in ("file", "directory"):
            path = posixpath.join(prefix, item["name"])
            out.append((path, str(item["type"])))
            if isinstance(item.get("children"), list):
                out += _tree_names(item["children"], path)
    return out


def _nodes(value: Any, depth: int = 0) -> list[Any]:
    """Every object and list of an answer, outer ones first (bounded depth)."""
    if depth > 8 or not isinstance(value, (dict, list)):
        return []
    inner = value.values() if isinstance(value, dict) else value
    return [value, *(n for v in inner for n in _nodes(v, depth + 1))]


def _diff_lines(text: str) -> list[str]:
    """A diff's lines as ``difflib`` wrote them, where a server printed them indented (``"  -old"``) or with a
    blank line after each (lines that kept their newline, joined with another; the last may lack its blank)."""
    lines = text.splitlines()
    body = [i for i, line in enumerate(lines) if not _HUNK.match(line)]
    if len(body) > 1 and all(lines[i] == "" for i in body[1::2]) and all(lines[i] for i in body[::2]):
        lines = [line for i, line in enumerate(lines) if i not in set(body[1::2])]
    marked = [line for line in lines if not _HUNK.match(line) and line.lstrip(" ")[:1] in ("-", "+")]
    indent = min((len(line) - len(line.lstrip(" ")) for line in marked), default=0)
    if indent and all(line[:indent].strip() == "" for line in lines if not _HUNK.match(line)):
        lines = [line if _HUNK.match(line) else line[indent:] for line in lines]
    return lines


# -- the entries -----------------------------------------------------------------------------------


def _entries(tree: _Tree) -> list[JSONDict]:
    keys = set(tree.files)
    parents = {posixpath.dirname(k) for k in keys}
    out: list[JSONDict] = []
    for key, seen in tree.files.items():
        kind = seen.kind or ("file" if _EXTENSION.search(key) or seen.lines or seen.text is not None else "directory")
        path = key.lstrip("/") if seen.relative else key
        if kind == "directory":
            if key not in parents:  # a directory with something known below it exists anyway
                out.append({"path": path, "type": "directory"})
            continue
        entry: JSONDict = {"path": path, "type": "file"}
        if seen.text is not None:
            entry["content"] = seen.text
        elif seen.lines or seen.total is not None:
            length = max(seen.total or 0, max(seen.lines, default=0))
            entry["content"] = "\n".join(seen.lines.get(n, "") for n in range(1, length + 1))
            gaps = _runs([n for n in range(1, length + 1) if n not in seen.lines])
            if gaps:  # the lines never shown: an edit of text there is not refused as absent (text_gaps.py)
                entry["unknown_lines"] = gaps
        out.append(entry)
    return out


def _runs(numbers: list[int]) -> list[list[int]]:
    """Ascending line numbers as ``[[first, last], ...]`` runs."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


__all__ = ["FILES", "MAX_LINES", "learned_files", "merge_files"]
