"""An editor with a current file: ``set_file(path)`` (or ``open_file``), then tools without a path act on it.

Such catalogs read lines by number (``read(start, end)``), select a range, stage a replacement
(``overwrite(new_lines)``) that a ``confirm`` applies or a ``cancel`` drops, search the file's lines
and list directories. Every part is read from the tools' names and arguments, none from a service:
the file's text lives in the file model's ``files`` collection (so the file tools agree), and the
session's current file, selection and staged change are read back from the episode's successful calls.
"""

from __future__ import annotations

import math

import re
from dataclasses import dataclass, field
from typing import Any

from ...state.ledger import Effect
from ..base import Prediction, Step
from .common import error

JSONDict = dict[str, Any]

#: Argument names that hold a path (as in :mod:`.files`).
_PATHLIKE = re.compile(r"(?:^|_|[a-z])(?:path|Path|PATH)$|^(?:file|dir)_?name$|^filename$", re.IGNORECASE)
_OPENER = re.compile(r"^(?:set|open|use|switch|choose)_?(?:current_?)?file$", re.IGNORECASE)
_CURRENT = re.compile(r"\bcurrent file\b|\bfile to work with\b", re.IGNORECASE)
#: The lines a whole-file read shows when the tool truncates (an unknown limit: a screenful).
_SCREEN = 50


@dataclass
class Session:
    """What the episode's successful calls left: the current file, the selected range, a staged change."""

    current: str | None = None
    selection: tuple[int, int] | None = None
    staged: list[str] | None = None
    gone: set[str] = field(default_factory=set)


def _words(name: str) -> set[str]:
    return set(re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name.lower())) - {""}


def _path_arg(tool: JSONDict) -> str | None:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return next((n for n in props if _PATHLIKE.search(n)), None)


def _is_opener(tool: JSONDict) -> bool:
    return _path_arg(tool) is not None and (
        _OPENER.match(str(tool.get("name", ""))) is not None or _CURRENT.search(str(tool.get("description", ""))) is not None
        and "set" in _words(str(tool.get("name", ""))))


def claims(step: Step) -> bool:
    """Whether ``step``'s catalog is an editor with a current file (some tool sets it)."""
    return step.derived("editor_opener", lambda: any(_is_opener(t) for t in step.world.tools))


def edits(step: Step) -> bool:
    """Whether the editor answers ``step`` (its numbers and lines are then the episode's, not a recording's); a
    file tool answering JSON pages and edits (text_edits.py) too."""
    from .text_edits import answers

    return claims(step) and _kind(step.tool.definition) is not None or answers(step)


def _kind(tool: JSONDict) -> str | None:
    """What an editor tool does, from its name and arguments."""
    name = str(tool.get("name", ""))
    words = _words(name)
    props = set((tool.get("inputSchema") or {}).get("properties") or {})
    path = _path_arg(tool)
    ranged = {"start", "end"} <= props or {"start_line", "end_line"} <= props
    if _is_opener(tool):
        return "open"
    if path is not None and (words & {"new", "create"}):
        return "create"
    if words & {"listdir", "ls"} or ({"list"} & words and words & {"dir", "directory", "files"}):
        return "listdir"
    if path is None and words & {"delete", "remove"}:
        return "delete"
    if ranged and words & {"select", "mark"}:
        return "select"
    if ranged and words & {"read", "view", "show", "get", "lines"}:
        return "read"
    if not props and words & {"skim", "read", "view", "show", "cat"}:
        return "skim"
    if words & {"confirm", "apply", "commit"} and not props:
        return "confirm"
    if words & {"cancel", "discard", "abort", "revert"} and not props:
        return "cancel"
    if words & {"overwrite", "replace"} and path is None:
        return "overwrite"
    if words & {"find", "search", "grep"} and words & {"function", "def", "symbol", "method"}:
        return "function"
    if words & {"find", "search", "grep"} and path is None:
        return "find"
    return None


def _tool(step: Step, name: str) -> JSONDict | None:
    return next((t for t in step.world.tools if t.get("name") == name), None)


def _session(step: Step) -> Session:
    """The session as the episode's successful calls left it."""
    session = Session()
    for turn in step.episode.turns:
        tool = _tool(step, turn.tool)
        body = turn.result.get("structuredContent")
        if tool is None or turn.result.get("isError") or isinstance(body, dict) and "error" in body:
            continue
        kind, args = _kind(tool), turn.arguments
        if kind in ("open", "create") and _refused_in_band(body):
            continue  # ``{"result": "Error: File not found at ..."}``: the current file stays as it was
        if kind in ("open", "create"):
            session.current = _given_path(tool, args)
            session.selection = (1, 1) if kind == "create" else None
            session.staged = None
            session.gone.discard(session.current or "")
        elif kind == "delete" and session.current is not None:
            session.gone.add(session.current)
            session.current, session.selection, session.staged = None, None, None
        elif kind == "select":
            session.selection = _range(args)
        elif kind == "overwrite" and session.selection is not None:
            session.staged = _new_lines(args)
        elif kind in ("confirm", "cancel"):
            session.staged = None
            session.selection = None if kind == "confirm" else session.selection
    return session


def _refused_in_band(body: Any) -> bool:
    """An opener's unflagged answer that reports a failure (a FastMCP ``{"result": "Error: ..."}``)."""
    from .failures import reads_as_failure

    while isinstance(body, dict) and list(body) == ["result"]:
        body = body["result"]
    return reads_as_failure(body)


def _given_path(tool: JSONDict, args: JSONDict) -> str | None:
    name = _path_arg(tool)
    value = args.get(name) if name else None
    return value.rstrip("/") or "." if isinstance(value, str) else None


def _range(args: JSONDict) -> tuple[int, int]:
    start = _int(args.get("start", args.get("start_line")), 1)
    return start, _int(args.get("end", args.get("end_line")), start)


#: Line numbers are held within this bound: an agent's ``select(start=10**20)`` must not pad a file to
#: that many lines (every call is bounded in size).
_MAX_LINE = 100_000


def _int(value: Any, default: int) -> int:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return default
    return max(-_MAX_LINE, min(_MAX_LINE, int(value)))


def _new_lines(args: JSONDict) -> list[str]:
    """The replacement lines: a list, ``{"lines": [...]}``, or a text split at its newlines."""
    for value in args.values():
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), value)
        if isinstance(value, list):
            return [str(v) for v in value]
        if isinstance(value, str):
            return value.split("\n")
    return []


def _key(step: Step, path: str) -> str:
    """The file model's key of a path as the editor was given it (one file, one entity: files.py)."""
    from .files import file_key

    return file_key(step, path) or path


def _lines(step: Step, path: str) -> list[str] | None:
    entity = step.episode.ledger.get("files", _key(step, path))
    if entity is None:
        return None
    content = str(entity.fields.get("content", ""))
    return content.split("\n") if content else []


def _numbered(lines: list[str], first: int) -> list[list[Any]]:
    return [[first + i, text] for i, text in enumerate(lines)]


def predict_editor(step: Step) -> Prediction | None:
    """The editor's answer to ``step``, or None when it is no editor tool (the other models answer)."""
    if not claims(step):
        return None
    kind = _kind(step.tool.definition)
    if kind is None:
        return None
    session = _session(step)
    args = step.arguments
    if kind == "open":
        path = _given_path(step.tool.definition, args) or ""
        if path in session.gone:
            return error(f"Error: File not found at '{path}'")
        return Prediction(f"File set to: '{path}'", effects=_known(step, path))
    if kind == "create":
        path = _given_path(step.tool.definition, args) or ""
        if step.episode.ledger.get("files", _key(step, path)) is not None and path not in session.gone \
                and _lines(step, path):
            return error("Cannot create new file: it exists and is not empty.")
        placed = _placeholder(step)  # the text a new file starts with, as the recording showed it
        fields = {"path": _key(step, path), "type": "file", "content": placed[1] if placed else ""}
        body: JSONDict = {"status": "success", **({placed[0]: placed[1]} if placed else {}), "current_file_path": path,
                          "selected_start": 1, "selected_end": 1,
                          "message": "File created successfully. First line is now selected for editing."}
        return _answer(step, body, [Effect("create", "files", _key(step, path), fields)])
    if kind == "listdir":
        return _listdir(step, session)
    if kind in ("confirm", "cancel") and session.staged is None:
        return error(f"No pending changes to {'apply' if kind == 'confirm' else 'discard'}.")
    if session.current is None:
        return error("No file is set. Set the current file first.")
    path = session.current
    lines = _lines(step, path)
    if kind == "delete":
        return Prediction({"status": "success", "message": f"File '{path}' was successfully deleted."},
                          effects=[Effect("delete", "files", _key(step, path))] if lines is not None else [])
    if kind == "confirm":
        start, end = session.selection or (1, 1)
        have = lines or []
        have = have + [""] * (start - 1 - len(have))  # lines the world never saw hold their place
        content = "\n".join(have[:start - 1] + (session.staged or []) + have[end:])
        return _answer(step, {"status": "success", "message": "Changes applied successfully."},
                       [Effect("update" if lines is not None else "create", "files", _key(step, path),
                                      {"path": _key(step, path), "type": "file", "content": content})])
    if kind == "cancel":
        return _answer(step, {"status": "success", "message": "Action cancelled."}, [])
    if kind == "overwrite":
        if session.selection is None:
            return error("No selection has been made. Select lines first.")
        start, end = session.selection
        new = _new_lines(args)
        return _answer(step, {"status": "preview", "message": "Changes ready to apply. Confirm to apply or cancel to discard.",
                              "diff_lines": preview(lines or [], start, end, new), "start": start, "end": end}, [])
    if lines is None:  # a file the world never saw: its text is unknown, nothing is invented
        lines = []
    if kind == "skim":
        return _answer(step, {"lines": _numbered(lines[:_SCREEN], 1), "total_lines": len(lines)}, [])
    if kind in ("read", "select"):
        start, end = _range(args)
        if start > end:
            return error("start cannot be greater than end.")
        shown = lines[start - 1:end]
        if kind == "read":
            return Prediction({"lines": _numbered(shown, start), "start_line": start,
                               "end_line": start + len(shown) - 1}, effects=[])
        return Prediction({"status": "success", "lines": shown, "start": start, "end": end, "line_count": len(shown),
                           "message": f"Selected lines {start} to {end} for editing."}, effects=[])
    if kind == "find":
        text = next((str(v) for v in args.values() if isinstance(v, str)), "")
        found = [[i + 1, line] for i, line in enumerate(lines) if text and text in line]
        return Prediction({"status": "success", "matches": found, "total_matches": len(found)}, effects=[])
    return _function(step, lines)


#: Lines of context a preview shows around a change: a unified diff's standard width (``diff -u``, difflib).
CONTEXT = 3


def preview(lines: list[str], start: int, end: int, new: list[str]) -> list[list[Any]]:
    """A change's preview as numbered pairs: up to :data:`CONTEXT` unchanged lines before and after, by their
    numbers; the replaced lines as ``"-n"`` (old numbers) and the new ones as ``"+n"`` (from ``start``)."""
    old = lines[start - 1:end]
    before = [[n, lines[n - 1]] for n in range(max(1, start - CONTEXT), start) if n <= len(lines)]
    after = [[n, lines[n - 1]] for n in range(max(end + 1, 1), min(len(lines), end + CONTEXT) + 1)]
    return [*before, *([f"-{start + i}", t] for i, t in enumerate(old)),
            *([f"+{start + i}", t] for i, t in enumerate(new)), *after]


def _demonstrated(step: Step) -> list[JSONDict]:
    """The successful recorded answers of ``step``'s tool that are objects (a learned world's demonstrations)."""
    return [d.response for d in step.world.demonstrations
            if d.tool == step.tool.name and not d.is_error and isinstance(d.response, dict) and "error" not in d.response]


def _placeholder(step: Step) -> tuple[str, str] | None:
    """The text field a recorded creation showed (``"text": "# NEW FILE"``): what a new file starts with."""
    for response in _demonstrated(step):
        found = [(k, v) for k, v in response.items() if k in ("text", "content", "line", "initial_text")
                 and isinstance(v, str)]
        if found:
            return found[0]
    return None


def _answer(step: Step, body: JSONDict, effects: list[Effect]) -> Prediction:
    """``body`` as the recorded server words it: the constants learned for the tool's answer (a limit it states,
    ``max_select_lines``) where the body lacks them, and the ``message`` its recorded answers all showed (none
    of their call's values in it: a fixed sentence)."""
    from .learned_state import values_of

    for key, statistic in values_of(step).items():
        if "." not in key and "[" not in key and key not in body and isinstance(statistic, dict) \
                and isinstance(statistic.get("const"), (str, int, float, bool)):
            body[key] = statistic["const"]
    shown = [d for d in step.world.demonstrations if d.tool == step.tool.name and not d.is_error
             and isinstance(d.response, dict) and isinstance(d.response.get("message"), str)]
    messages = {str(d.response["message"]) for d in shown}
    if "message" in body and len(messages) == 1:
        message = messages.pop()
        if not any(isinstance(v, (str, int)) and str(v) in message for d in shown for v in d.arguments.values()):
            body["message"] = message
    return Prediction(body, effects=effects)


def _known(step: Step, path: str) -> list[Effect]:
    """Opening a file the world never saw records that it exists (its text unknown: empty)."""
    key = _key(step, path)
    if step.episode.ledger.get("files", key) is not None:
        return []
    return [Effect("create", "files", key, {"path": key, "type": "file", "content": ""})]


def _listdir(step: Step, session: Session) -> Prediction:
    raw = next((v for n, v in step.arguments.items() if _PATHLIKE.search(n) and isinstance(v, str)), ".")
    directory = _key(step, raw.rstrip("/") or "/")
    prefix = directory.rstrip("/") + "/"
    entity = step.episode.ledger.get("files", directory)
    if entity is not None and entity.fields.get("type") != "directory":  # a seeded directory lists
        return error("Specified path is not a directory.")
    gone = {_key(step, g) for g in session.gone}
    names = []
    for entity in step.episode.ledger.items("files"):
        if entity.key.startswith(prefix) and entity.key not in gone:
            name = entity.key[len(prefix):].split("/")[0]
            if name and name not in names:
                names.append(name)
    return Prediction({"filenames": names, "path": raw}, effects=[])


def _function(step: Step, lines: list[str]) -> Prediction:
    """The lines of the named function: its ``def``/``function`` line to the next top-level definition."""
    name = next((str(v) for v in step.arguments.values() if isinstance(v, str)), "")
    head = re.compile(rf"^\s*(?:async\s+)?(?:def|function|class)\s+{re.escape(name)}\b")
    start = next((i for i, line in enumerate(lines) if head.search(line)), None)
    if start is None:
        return error(f"Function '{name}' not found.")
    end = len(lines)
    return Prediction({"status": "success", "lines": _numbered(lines[start:end], start + 1),
                       "start_line": start + 1, "end_line": end}, effects=[])


__all__ = ["CONTEXT", "Session", "claims", "edits", "predict_editor", "preview"]
