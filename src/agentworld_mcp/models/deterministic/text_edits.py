"""A file tool that answers in a JSON object: pages of lines, matches in one file, search/replace edits.

Some file servers answer each call with an object, not the text a filesystem server prints: a page (its text,
first and last line numbers, the file's length), a search (matches, each with its line number, text and the
lines around it), an edit (applied and failed counts, one result per change, a unified diff), a listing (names,
types, sizes, counts). Which of these a tool answers, and under which of its keys each quantity goes, is read
from its own output shape (declared, or learned from a recording) by the keys' roles (``text_roles.py``), never
from its name or one server's words; the values come from the episode's files (``files.py``'s ``files``
collection). Keys the shape names that no quantity fills (an encoding, a mode) are left to the shape layer,
which fills the recorded constants; a quantity the shape has no key for is not added.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import posixpath
import re
from typing import Any

from ...state.ledger import Effect, Entity
from ...world.roles import ToolRole
from ..base import Prediction, Step
from .text_backups import BACKUPS, backup_key, new_backup, restore, restores, saved
from .text_gaps import UNKNOWN, fill_unknown, shift_unknown, unknown_ranges
from .text_roles import item_props, learned_text, roles, tokens

JSONDict = dict[str, Any]
#: A page's length when the call gives none (the common default of paged readers).
_PAGE = 100
#: Lines of context around a match when the call gives none.
_CONTEXT = 2
_OLD = {"search", "old", "find", "pattern", "from", "original", "target"}
_NEW = {"replace", "new", "replacement", "to", "with", "updated"}
_PREVIEW_ARGS = ("preview", "dry_run", "dryRun")


def _shape(step: Step) -> JSONDict | None:
    from .output_shape import output_shape

    shape = step.tool.output_schema or output_shape(step.tool.definition)
    return shape if isinstance(shape, dict) and shape.get("type") == "object" else None


def _props(shape: JSONDict | None) -> JSONDict:
    props = (shape or {}).get("properties")
    return props if isinstance(props, dict) else {}


def shape_props(step: Step) -> JSONDict:
    """The properties of ``step``'s tool's object shape (none: no object shape)."""
    return _props(_shape(step))


def _list(props: JSONDict, where: str, *needed: str) -> str | None:
    """The key of a list of objects whose items play all the ``needed`` roles (as ``where`` objects)."""
    for key, spec in props.items():
        inner = roles(item_props(spec), where)  # type: ignore[arg-type]
        if inner and all(n in inner for n in needed):
            return str(key)
    return None


def _page_set(top: dict[str, str]) -> bool:
    return "text" in top and ("first" in top or "last" in top)


def _edit_set(props: JSONDict, top: dict[str, str]) -> bool:
    return bool({"applied", "failed"} & set(top)) or "diff" in top and _list(props, "change", "success") is not None


def answers(step: Step) -> bool:
    """Whether :func:`predict_text_tool` answers ``step``'s tool: a file tool whose shape plays the roles of a page,
    a match list, an edit report or a listing (its values are then the episode's files, not a recording's)."""
    if step.tool.role.style != "file":
        return False
    props = _props(_shape(step))
    top = roles(props, "top")
    return bool(props) and (_page_set(top) or _edit_set(props, top) or _list(props, "match", "line", "text") is not None
                            or _list(props, "entry", "name") is not None or "total" in top and "size" in top)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def _fill(shape: JSONDict, values: dict[str, Any], step: Step | None = None) -> JSONDict:
    """``values`` by role under the shape's keys that play them, and a key named like one of the call's arguments
    echoing it (``pattern``, ``mode``)."""
    props = _props(shape)
    body = {key: values[role] for role, key in roles(props, "top").items() if role in values}
    for key, value in (step.arguments.items() if step is not None else ()):
        if key in props and key not in body and isinstance(value, (str, int, float, bool)):
            body[key] = value
    return body


def _item(spec: Any, where: str, values: dict[str, Any]) -> JSONDict:
    return {key: values[role] for role, key in roles(item_props(spec), where).items()  # type: ignore[arg-type]
            if role in values}


def predict_text_tool(step: Step, role: ToolRole, path: str, entity: Entity | None) -> Prediction | None:
    """The answer of a file tool whose shape is one of the objects above, for the existing file at ``path``;
    None when the shape is none of them (``files.py`` answers)."""
    shape = _shape(step)
    props = _props(shape)
    if shape is None or entity is None or entity.fields.get("type") == "directory":
        return None
    top = roles(props, "top")
    text = str(entity.fields.get("content", ""))
    if _edits(step.arguments) and _edit_set(props, top):
        return _edit(step, path, text, shape, unknown_ranges(entity.fields.get(UNKNOWN)), entity)
    if not _edits(step.arguments) and restores(props):  # a restore from the file's backups (text_backups.py)
        return restore(step, path, entity, props)
    if _counting(step) and ("count" in top or "matches" in top):
        n = len(_matches(step, lines_of(text)))
        return Prediction(_fill(shape, {"count": n, "matches": n}, step), effects=[])
    if _line_arg(step) is not None and _page_set(top):
        return _enclosing(step, path, lines_of(text), shape)
    if _list(props, "match", "line", "text") is not None and _pattern(step):
        return _search(step, lines_of(text), shape)
    if _page_set(top):
        return _page(step, lines_of(text), shape)
    if "total" in top or "size" in top:
        return Prediction(_fill(shape, {"total": len(lines_of(text)), "size": len(text.encode("utf-8"))}), effects=[])
    return None


def predict_text_listing(step: Step, path: str, children: dict[str, JSONDict]) -> Prediction | None:
    """A directory listing: each entry's name, type and size under the list key whose items name entries."""
    shape = _shape(step)
    props = _props(shape)
    key = _list(props, "entry", "name")
    if shape is None or key is None:
        return None
    kinds = _type_words(item_props(props[key]).get(roles(item_props(props[key]), "entry").get("type", ""), {}))
    entries = [_item(props[key], "entry", {"name": name, "type": kinds[child["type"] == "directory"],
                                           "size": child.get("size", 0)}) for name, child in children.items()]
    dirs = sum(1 for child in children.values() if child["type"] == "directory")
    body = _fill(shape, {"path": path, "files": len(children) - dirs, "dirs": dirs, "count": len(children)})
    return Prediction({key: entries, **body}, effects=[])


def _type_words(spec: Any) -> tuple[str, str]:
    """The words an entry's type takes for a file and a directory: the shape's own (an ``enum``), else the usual."""
    words = [w for w in (spec.get("enum") or []) if isinstance(w, str)] if isinstance(spec, dict) else []
    folder = next((w for w in words if w.lower().startswith(("d", "folder"))), "directory")
    plain = next((w for w in words if w != folder), "file")
    return plain, folder


# -- reading -------------------------------------------------------------------------------------


def _int(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _pattern(step: Step) -> str:
    value = step.arguments.get("pattern", step.arguments.get("query"))
    return value if isinstance(value, str) else ""


def _matches(step: Step, lines: list[str]) -> list[int]:
    """Indexes of the lines the call's pattern finds: a regex when asked, else plain text, case-insensitive
    unless the call says otherwise; ``invert`` keeps the others."""
    pattern = _pattern(step)
    if not pattern:
        return []
    flags = 0 if step.arguments.get("case_sensitive") is True else re.IGNORECASE
    try:
        compiled = re.compile(pattern if step.arguments.get("regex") is True else re.escape(pattern), flags)
    except re.error:
        return []
    found = [i for i, line in enumerate(lines) if compiled.search(line[:10_000])]
    if step.arguments.get("invert") is True:
        found = [i for i in range(len(lines)) if i not in set(found)]
    return found


def _counting(step: Step) -> bool:
    """A search asked for its count alone (``count_only: true``)."""
    return any(value is True and "count" in tokens(name) for name, value in step.arguments.items())


def _search(step: Step, lines: list[str], shape: JSONDict) -> Prediction:
    props = _props(shape)
    key = _list(props, "match", "line", "text") or ""
    context = _int(next((v for k, v in step.arguments.items() if "context" in tokens(k)), None), _CONTEXT)
    limit = _int(next((v for k, v in step.arguments.items() if tokens(k) & {"max", "limit"}), None), 20) or 20
    found = _matches(step, lines)
    results = [_item(props[key], "match", {"line": i + 1, "text": lines[i], "before": lines[max(0, i - context):i],
                                           "after": lines[i + 1:i + 1 + context], "truncated": False,
                                           "similarity": 1.0})
               for i in found[:limit]]
    return Prediction({key: results, **_fill(shape, {"matches": len(found), "count": len(found)}, step)}, effects=[])


def predict_text_dir_search(step: Step, path: str, files: dict[str, str]) -> Prediction | None:
    """A search of the files under a directory (``files``: name relative to it -> text) answered as a list of
    files, each naming its file and listing its matches (roles of the shape's keys); None: no such shape."""
    shape = _shape(step)
    props = _props(shape)
    key = next((str(k) for k, spec in props.items() if _list(item_props(spec), "match", "line", "text")
                and "name" in roles(item_props(spec), "entry")), None)
    if shape is None or key is None or not _pattern(step):
        return None
    item = item_props(props[key])
    inner, name_key = _list(item, "match", "line", "text") or "", roles(item, "entry")["name"]
    glob = next((v for k, v in step.arguments.items() if isinstance(v, str) and v
                 and tokens(k) & {"include", "glob", "filter"}), "*")
    context = _int(next((v for k, v in step.arguments.items() if "context" in tokens(k)), None), _CONTEXT)
    results, total = [], 0
    for name in sorted(files):
        if not fnmatch.fnmatch(posixpath.basename(name), glob) and not fnmatch.fnmatch(name, glob):
            continue
        lines = lines_of(files[name])
        found = _matches(step, lines)
        total += len(found)
        if found:
            results.append({name_key: name, inner: [
                _item(item[inner], "match", {"line": i + 1, "text": lines[i], "before": lines[max(0, i - context):i],
                                             "after": lines[i + 1:i + 1 + context], "truncated": False,
                                             "similarity": 1.0}) for i in found]})
    body = _fill(shape, {"path": path, "matches": total, "count": total}, step)
    return Prediction({**body, key: results}, effects=[])


def _page(step: Step, lines: list[str], shape: JSONDict) -> Prediction | None:
    """``offset``/``limit`` lines (1-based), the first or last ``limit`` in ``head``/``tail`` mode, or the page
    from the first line a ``pattern`` finds."""
    args = step.arguments
    total, limit = len(lines), _int(args.get("limit"), _PAGE) or _PAGE
    mode = args.get("mode") if isinstance(args.get("mode"), str) else "lines"
    start = max(1, _int(args.get("offset"), 1))
    if mode == "tail":
        start = max(1, total - limit + 1)
    elif mode == "head":
        start = 1
    elif _pattern(step):
        found = _matches(step, lines)
        if not found:
            return None  # the recorded refusal's wording is the server's (the error envelope answers it)
        start = found[0] + 1
    elif mode not in ("lines", "head", "tail"):
        return None
    shown = lines[start - 1:start - 1 + limit]
    values = {"text": "".join(line + "\n" for line in shown), "first": start, "last": start + len(shown) - 1,
              "returned": len(shown), "count": len(shown), "total": total,
              "truncated": start + len(shown) - 1 < total, "line": start}
    return Prediction(_fill(shape, values, step), effects=[])


def _line_arg(step: Step) -> int | None:
    """The line a call points at (``line``, ``line_number``, ``lineNo``)."""
    value = next((v for k, v in step.arguments.items() if tokens(k) in ({"line"}, {"line", "number"}, {"line", "no"},
                                                                         {"lineno"})), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _outline(path: str, text: str) -> list[tuple[int, int, str]]:
    """The definitions of a Python file as ``(first, last, label)`` lines, outermost first (``ast``: the
    language's own parser); none for another kind of file or one that does not parse."""
    if not path.endswith(".py"):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.end_lineno is not None:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            label = f"class {node.name}" if isinstance(node, ast.ClassDef) else f"def {node.name}()"
            found.append((first, node.end_lineno, label))
    return sorted(found, key=lambda d: (d[0], -d[1]))


def _enclosing(step: Step, path: str, lines: list[str], shape: JSONDict) -> Prediction | None:
    """The definition around a line (``depth`` levels out), from the file's outline; a line past the end is
    refused with the file's length."""
    line = _line_arg(step) or 0
    if line > len(lines) or line < 1:
        return Prediction(f"line {line} is beyond end of file ({len(lines)} lines).", is_error=True, effects=[])
    around = [d for d in _outline(path, "\n".join(lines)) if d[0] <= line <= d[1]]
    if not around:
        return None
    depth = max(1, _int(step.arguments.get("depth"), 1))
    first, last, label = around[max(0, len(around) - depth)]
    shown = lines[first - 1:last]
    values = {"text": "\n".join(shown), "first": first, "last": last, "returned": len(shown), "count": len(shown),
              "total": len(lines), "symbol": label}
    return Prediction(_fill(shape, values), effects=[])


# -- editing -------------------------------------------------------------------------------------


def _edits(arguments: JSONDict) -> list[tuple[str, str]]:
    """The call's ``[{search, replace}]`` pairs (under any list argument of objects with an old and a new text)."""
    for value in arguments.values():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            pairs = []
            for item in value:
                old = next((v for k, v in item.items() if isinstance(v, str) and tokens(k) & _OLD), None)
                new = next((v for k, v in item.items() if isinstance(v, str) and tokens(k) & _NEW), None)
                if old is None or new is None:
                    break
                pairs.append((old, new))
            else:
                return pairs
    return []


def _previewing(step: Step) -> bool:
    props = step.tool.input_schema.get("properties") or {}
    for name in _PREVIEW_ARGS:
        declared = props.get(name)
        if name in step.arguments or isinstance(declared, dict) and "default" in declared:
            return step.arguments.get(name, (declared or {}).get("default")) is True
    return False


def _similar(spec: Any, lines: list[str], old: str) -> list[JSONDict]:
    """The lines most like a search text that is not there, best first, under the keys ``spec``'s items use."""
    first = old.splitlines()[0] if old.splitlines() else old
    scored = [(round(difflib.SequenceMatcher(None, first, line).ratio(), 2), i) for i, line in enumerate(lines)
              if line.strip()]
    best = sorted((s for s in scored if s[0] >= 0.6), key=lambda s: (-s[0], s[1]))[:3]
    return [_item(spec, "match", {"line": i + 1, "text": lines[i], "similarity": score}) for score, i in best]


def _near(text: str, old: str) -> bool:
    """A known line close to the search text: the call misremembers that line, not one nobody has seen."""
    first = old.splitlines()[0] if old.splitlines() else old
    return any(difflib.SequenceMatcher(None, first, line).ratio() >= 0.75 for line in lines_of(text) if line.strip())


def _edit(step: Step, path: str, text: str, shape: JSONDict, unknown: list[list[int]],
          entity: Entity | None = None) -> Prediction:
    props = _props(shape)
    key = _list(props, "change", "success")
    listed = props.get(key) if key is not None else None
    change = item_props(listed)
    inner = roles(change, "change")
    missing = learned_text(change.get(inner.get("error", "")), "not found")
    similar = change.get(inner.get("similar", ""))
    modified, results, applied, gaps = text, [], 0, list(unknown)
    for index, (old, new) in enumerate(_edits(step.arguments)):
        at = modified.find(old) if old else -1
        filled = fill_unknown(modified, gaps, old) if at < 0 and old and not _near(modified, old) else None
        if filled is not None:  # not among the lines the recording showed: taken to be in lines it did not
            modified, gaps, at = filled
            text = modified  # the text was there before this change: the diff's old side shows it
        if at < 0:
            results.append(_item(listed, "change", {"index": index, "success": False, "error": missing,
                                                            "similar": _similar(similar, lines_of(modified), old)}))
            continue
        applied += 1
        results.append(_item(listed, "change", {"index": index, "success": True,
                                                        "line": modified.count("\n", 0, at) + 1,
                                                        "similarity": 1.0}))
        modified = modified[:at] + new + modified[at + len(old):]
        gaps = shift_unknown(gaps, modified.count("\n", 0, at) + 1, new.count("\n") - old.count("\n"))
    failed = len(results) - applied
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), modified.splitlines(keepends=True), n=3))
    diff = "\n".join(line for line in diff.splitlines() if not line.startswith(("---", "+++")))
    values: JSONDict = {"success": failed == 0 and bool(results), "applied": applied, "failed": failed}
    if diff:
        values["diff"] = diff + "\n"  # no diff: the shape layer fills what the recording said of none
    body = _fill(shape, values)
    if key is not None:
        body[key] = results
    fields: JSONDict = {"content": modified, **({UNKNOWN: gaps} if unknown else {})}
    changed = not _previewing(step) and not (modified == text and gaps == unknown)
    if (backup := backup_key(props)) is not None:  # an applied edit saves the text it changed; a preview, none
        made = new_backup(step, path, text, list(entity.fields.get(BACKUPS) or []) if entity is not None else [])
        body[backup] = made["path"] if changed and applied else None
        if changed and applied and entity is not None:
            fields[BACKUPS] = saved([b for b in entity.fields.get(BACKUPS) or [] if isinstance(b, dict)], made)
    effects = [Effect("update", "files", path, fields)] if changed else []
    return Prediction(body, effects=effects)


__all__ = ["answers", "predict_text_dir_search", "predict_text_listing", "predict_text_tool", "shape_props"]
