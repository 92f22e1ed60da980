"""A file store keyed by path, answered like the official filesystem MCP server.

Files and directories are entities of the ``files`` collection keyed by normalised path:
``{"path": "/workspace/a.txt", "type": "file", "content": "..."}``. A directory exists if
it was created or if anything lives below it, so seed state can list files only. Answers
and errors use the reference server's wording (``Successfully wrote to /a.txt``,
``ENOENT: no such file or directory, open '/a.txt'``, ``[FILE] a.txt``); times come from
the simulated clock (the turn that created or last changed the entry).

Writing creates missing parent directories (the reference server would refuse): a
simulated world rarely declares every directory, and an agent should not fail on that.
"""

from __future__ import annotations

import base64
import difflib
import json
import posixpath
import re
from typing import Any

from ...state.ledger import Effect, Entity
from ...world.roles import ToolRole, normalise_path
from ..base import Prediction, Step
from .common import clock, conform, error, not_found, structured_text
from .edit_pairs import EditRefused, apply_pairs, edit_pairs
from .globs import glob as _glob  # linear-time: a glob is never a backtracking regex
from .learned_frames import FRAME_META, framed
from .text_pages import page_of

JSONDict = dict[str, Any]
_JS_DATE = "%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)"
#: The reference server's own table: anything else is ``application/octet-stream``.
_MEDIA_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".bmp": "image/bmp", ".svg": "image/svg+xml", ".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg",
    ".flac": "audio/flac",
}
#: The deepest a listing with a ``depth`` argument goes (a bound on the work one call can ask for).
_MAX_DEPTH = 10
#: What ``stat`` says a directory's size is on ext4, the common Linux file system.
_DIR_SIZE = 4096


def predict_file(step: Step, role: ToolRole) -> Prediction:
    if (role.op in ("read", "search", "list_dir", "edit", "info") or _restoring(step)) \
            and (answered := _as_object(step, role)) is not None:
        return answered
    handler = _OPS.get(role.op or "", _unknown)
    if role.op == "write" and "content" not in step.arguments and edit_pairs(step.arguments):
        handler = _edit  # ``replace_text(path, old_text, new_text)``: a change of the text, not a new one
    answer = handler(step, role)
    if (step.tool.definition.get("_meta") or {}).get(FRAME_META) is None:
        return answer
    given = _path_arg(step, role)  # the file as the call found it: a learned frame states its page
    node = _node(step, given[1]) if isinstance(given, tuple) else None
    return framed(step, answer, _content(node) if node is not None and node["type"] == "file" else None)


def _restoring(step: Step) -> bool:
    """A tool whose shape lists a file's backups (text_backups.py): a restore, whatever its name reads as."""
    from .text_backups import restores
    from .text_edits import shape_props

    return restores(shape_props(step))


def _as_object(step: Step, role: ToolRole) -> Prediction | None:
    """A tool whose shape is a JSON page, match list, edit report or listing (text_edits.py), on what is at its path."""
    from .text_edits import predict_text_dir_search, predict_text_listing, predict_text_tool

    given = _path_arg(step, role)
    if not isinstance(given, tuple):
        return None
    node = _node(step, given[1])
    if node is not None and node["type"] == "directory" and role.op == "list_dir":
        return predict_text_listing(step, given[1], _children(step, given[1]))
    if node is not None and node["type"] == "directory" and role.op == "search":  # the files below it, by name
        prefix = _below(given[1])
        below = {e.key[len(prefix):]: _content(e.fields) for e in step.episode.ledger.items("files")
                 if e.key.startswith(prefix) and not _is_dir(e)}
        return predict_text_dir_search(step, given[1], below)
    return predict_text_tool(step, role, given[1], step.episode.ledger.get("files", given[1]))


# -- the tree ----------------------------------------------------------------------------------


def _path_arg(step: Step, role: ToolRole) -> tuple[str, str] | Prediction | None:
    """(the path as the caller wrote it, its normalised key), or the access-denied error.

    The path is the key argument, else any argument named like a path (``filepath``, ``dirPath``), else
    one inside a list of files; a call that gives none uses the path argument's declared default, and a
    tool with no path argument at all acts on the file the session last named (``set_file(filepath)``
    then ``read()``), as an editor with a current file does."""
    names = [*(role.key_args or ("path",)), *(n for n in step.arguments if _PATHLIKE.search(n))]
    for name in names:
        value = step.arguments.get(name)
        if isinstance(value, str) and value:
            return _resolved(step, value)
    value = _nested_path(step.arguments)
    if value is not None:  # ``files: [{"file_path": ...}]``: the first file the call names
        return _resolved(step, value)
    properties = (step.tool.definition.get("inputSchema") or {}).get("properties") or {}
    declared = [n for n in properties if n in names or _PATHLIKE.search(n)]
    default = next((properties[n].get("default") for n in declared if isinstance(properties[n], dict)
                    and isinstance(properties[n].get("default"), str) and properties[n]["default"]), None)
    if default is not None:
        return _resolved(step, default)
    if not declared and (current := _current_path(step)) is not None:
        return _resolved(step, current)
    return None


#: Argument names that hold a path (``path``, ``filepath``, ``file_path``, ``dirPath``, ``filename``).
_PATHLIKE = re.compile(r"(?:^|_|[a-z])(?:path|Path|PATH)$|^(?:file|dir)_?name$|^filename$", re.IGNORECASE)


def file_key(step: Step, raw: str) -> str | None:
    """The ``files`` key of ``raw`` as this file model resolves it (relative to the first allowed
    directory); None outside the allowed directories. Other models that store files use it, so one
    file is one entity whichever tool names it."""
    path = _resolve(step, raw)
    return None if isinstance(path, Prediction) else path


def _resolved(step: Step, value: str) -> tuple[str, str] | Prediction:
    path = _resolve(step, value)
    return path if isinstance(path, Prediction) else (value, path)


def _current_path(step: Step) -> str | None:
    """The path the latest successful call of this session named: the file an editor is on."""
    for turn in reversed(step.episode.turns):
        if turn.result.get("isError"):
            continue
        value = next((v for n, v in turn.arguments.items() if _PATHLIKE.search(n) and isinstance(v, str) and v), None)
        if value is not None:
            return str(value)
    return None


def _nested_path(arguments: JSONDict) -> str | None:
    """A path given inside a list of objects (``files[0].file_path``), for tools that take several."""
    for value in arguments.values():
        items = value if isinstance(value, list) else []
        for item in items[:1]:
            if isinstance(item, dict):
                found = next((v for k, v in item.items() if (k == "path" or k.endswith(("_path", "Path")))
                              and isinstance(v, str) and v), None)
                if found is not None:
                    return str(found)
    return None


def _seeded_roots(entries: list[JSONDict]) -> list[str]:
    found = set()
    for entry in entries:
        parts = normalise_path(str(entry.get("path") or "/")).strip("/").split("/")
        is_dir = len(parts) > 1 or entry.get("type") == "directory"
        found.add("/" + parts[0] if is_dir and parts[0] else "/")  # a file at the top: all of / is served
    return ["/"] if "/" in found or not found else sorted(found)


def allowed_roots(step: Step) -> list[str]:
    """The allowed directories (see :func:`_roots`); the shell engine (``engines/shell.py``) shares the
    tree of this ``files`` collection and fences its current directory in the first of them."""
    return _roots(step)


def _roots(step: Step) -> list[str]:
    """The allowed directories: the top directories of the seed's files (the server was started on
    them); ``/`` for a world without files, where every path is allowed. Derived once per catalog."""
    roots: list[str] = step.derived("file_roots", lambda: _seeded_roots(step.world.seed.get("files", [])))
    return roots


def _resolve(step: Step, raw: str) -> str | Prediction:
    """``raw`` as the reference server resolves it: a relative path against the first allowed directory,
    and refused outside the allowed directories."""
    roots = _roots(step)
    path = normalise_path(raw if raw.startswith("/") else posixpath.join(roots[0], raw))
    if roots != ["/"] and not any(path == r or path.startswith(r + "/") for r in roots):
        return error(f"Access denied - path outside allowed directories: {path} not in {', '.join(roots)}")
    return path


def _is_dir(entity: Entity) -> bool:
    return entity.fields.get("type") == "directory"


def _below(path: str) -> str:
    return "/" if path == "/" else path.rstrip("/") + "/"


def _node(step: Step, path: str) -> JSONDict | None:
    """The file or directory at ``path``: stored, or a directory implied by what lies below it."""
    entity = step.episode.ledger.get("files", path)
    if entity is not None:
        return {"type": "file", **entity.fields}
    prefix = _below(path)
    if path == "/" or any(e.key.startswith(prefix) for e in step.episode.ledger.items("files")):
        return {"path": path, "type": "directory"}
    return None


def _children(step: Step, path: str) -> dict[str, JSONDict]:
    """Direct children of a directory by name, each ``{"type", "size", "entity"}``."""
    prefix = _below(path)
    out: dict[str, JSONDict] = {}
    for entity in step.episode.ledger.items("files"):
        if not entity.key.startswith(prefix) or entity.key == path:
            continue
        rest = entity.key[len(prefix):]
        name, _, deeper = rest.partition("/")
        if deeper or _is_dir(entity):
            out[name] = {"type": "directory", "size": 0}
        else:
            out.setdefault(name, {"type": "file", "size": _size(entity.fields), "entity": entity})
    return dict(sorted(out.items()))


def _size(fields: JSONDict) -> int:
    return len(str(fields.get("content", "")).encode("utf-8"))


def _content(node: JSONDict) -> str:
    return str(node.get("content", ""))


# -- reading -----------------------------------------------------------------------------------


def _target(step: Step, role: ToolRole) -> tuple[str, str, JSONDict | None] | Prediction:
    """(path as given, normalised path, what is there or None) for a call that needs a path."""
    given = _path_arg(step, role)
    if given is None:
        return error("Error: path is required")
    if isinstance(given, Prediction):
        return given
    raw, path = given
    return raw, path, _node(step, path)


def _existing_file(step: Step, role: ToolRole) -> tuple[str, str, JSONDict] | Prediction:
    """(as given, normalised path, node) of the file a call reads or edits, or its error."""
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is None:
        return not_found(step, role, path, syscall="open")
    if node["type"] == "directory":
        return error("EISDIR: illegal operation on a directory, read")
    return raw, path, node


def _read(step: Step, role: ToolRole) -> Prediction:
    found = _existing_file(step, role)
    if isinstance(found, Prediction):
        return found
    _, _, node = found
    head, tail = step.arguments.get("head"), step.arguments.get("tail")
    if head and tail:
        return error("Cannot specify both head and tail parameters simultaneously")
    text = _content(node)
    if tail:  # the last N pieces between newlines, as the reference server counts them
        text = "\n".join(text.replace("\r\n", "\n").split("\n")[-int(tail):])
    elif head:
        text = "\n".join(text.split("\n")[: int(head)])
    else:
        page = page_of(text, step.arguments, step.tool.input_schema)
        text = text if page is None else "\n".join(page.lines)
    return structured_text(step, text)


def _read_many(step: Step, role: ToolRole) -> Prediction:
    parts = []
    for raw in step.arguments.get(role.batch_arg or "paths") or []:
        path = _resolve(step, str(raw))
        node = None if isinstance(path, Prediction) else _node(step, path)
        if isinstance(path, Prediction):
            parts.append(f"{raw}: Error - {path.observation}")
        elif node is None:
            parts.append(f"{raw}: Error - ENOENT: no such file or directory, open '{path}'")
        elif node["type"] == "directory":
            parts.append(f"{raw}: Error - EISDIR: illegal operation on a directory, read")
        else:
            parts.append(f"{raw}:\n{_content(node)}\n")
    return structured_text(step, "\n---\n".join(parts))


def _read_media(step: Step, role: ToolRole) -> Prediction:
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is None or node["type"] == "directory":
        return not_found(step, role, path, syscall="open")
    mime = _MEDIA_TYPES.get(posixpath.splitext(path)[1].lower(), "application/octet-stream")
    data = base64.b64encode(_content(node).encode("utf-8")).decode("ascii")
    kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else None
    block: JSONDict = ({"type": kind, "data": data, "mimeType": mime} if kind else
                       {"type": "resource", "resource": {"uri": f"file://{path}", "mimeType": mime, "blob": data}})
    out = step.tool.output_schema
    if out:
        return Prediction(conform({"content": [block]}, out, step.rng), effects=[])
    return Prediction(json.dumps(block), effects=[])


def _list_dir(step: Step, role: ToolRole) -> Prediction:
    listed = _listable(step, role)
    if isinstance(listed, Prediction):
        return listed
    given = _path_arg(step, role)
    below = _nested(step, given[1], listed, _depth(step)) if isinstance(given, tuple) else listed
    lines = [f"{'[DIR]' if c['type'] == 'directory' else '[FILE]'} {name}" for name, c in below.items()]
    return structured_text(step, "\n".join(lines))


def _depth(step: Step) -> int:
    """How deep a listing goes: the call's ``depth`` (``max_depth``), else the tool's declared default, else 1."""
    for name, spec in (step.tool.input_schema.get("properties") or {}).items():
        if name.lower().replace("_", "") in ("depth", "maxdepth"):
            value = step.arguments.get(name, spec.get("default") if isinstance(spec, dict) else None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return max(1, min(int(value), _MAX_DEPTH))
    return 1


def _nested(step: Step, path: str, listed: dict[str, JSONDict], depth: int) -> dict[str, JSONDict]:
    """``listed`` with what lies below its directories down to ``depth`` levels, by relative path
    (``done``, ``done/plan.md``), in path order."""
    out = dict(listed)
    if depth > 1:
        for name, child in listed.items():
            if child["type"] == "directory":
                inner = _children(step, posixpath.join(path, name))
                for sub, entry in _nested(step, posixpath.join(path, name), inner, depth - 1).items():
                    out[f"{name}/{sub}"] = entry
    return dict(sorted(out.items()))


def _list_dir_sizes(step: Step, role: ToolRole) -> Prediction:
    listed = _listable(step, role)
    if isinstance(listed, Prediction):
        return listed
    # By name as JavaScript's localeCompare orders them (case-insensitive first), or by size, largest
    # first, where a directory weighs what stat says of one on ext4.
    entries = sorted(listed.items(), key=lambda e: (e[0].casefold(), e[0].swapcase()))
    if step.arguments.get("sortBy") == "size":
        entries.sort(key=lambda e: -(_DIR_SIZE if e[1]["type"] == "directory" else e[1]["size"]))
    lines = []
    for name, child in entries:
        is_dir = child["type"] == "directory"
        size = "" if is_dir else _format_size(child["size"]).rjust(10)
        lines.append(f"{'[DIR]' if is_dir else '[FILE]'} {name.ljust(30)} {size}")
    files = sum(1 for _, c in entries if c["type"] == "file")
    total = sum(c["size"] for _, c in entries if c["type"] == "file")
    lines += ["", f"Total: {files} files, {len(entries) - files} directories", f"Combined size: {_format_size(total)}"]
    return structured_text(step, "\n".join(lines))


def _listable(step: Step, role: ToolRole) -> dict[str, JSONDict] | Prediction:
    given = _path_arg(step, role)
    if isinstance(given, Prediction):
        return given
    raw, path = given if given else ("/", "/")
    node = _node(step, path)
    if node is None:
        return not_found(step, role, path, syscall="scandir")
    if node["type"] != "directory":
        return error(f"ENOTDIR: not a directory, scandir '{path}'")
    return _children(step, path)


def _format_size(size: int) -> str:
    units = ("B", "KB", "MB", "GB", "TB")
    if size <= 0:
        return "0 B"
    index = 0
    while index + 1 < len(units) and size >= 1024 ** (index + 1):
        index += 1
    return f"{size} B" if index == 0 else f"{size / 1024 ** index:.2f} {units[index]}"


def _tree(step: Step, role: ToolRole) -> Prediction:
    listed = _listable(step, role)
    if isinstance(listed, Prediction):
        return listed
    given = _path_arg(step, role)
    root = given[1] if isinstance(given, tuple) else "/"
    excludes = [str(p) for p in step.arguments.get("excludePatterns") or []]

    def build(path: str, children: dict[str, JSONDict]) -> list[JSONDict]:
        out = []
        for name, child in children.items():
            full = posixpath.join(path, name)
            relative = posixpath.relpath(full, root)
            if any(_glob(p).fullmatch(relative) or _glob(f"**/{p}").fullmatch(relative) for p in excludes):
                continue
            entry: JSONDict = {"name": name, "type": child["type"]}
            if child["type"] == "directory":
                entry["children"] = build(full, _children(step, full))
            out.append(entry)
        return out

    return structured_text(step, json.dumps(build(root, listed), indent=2, ensure_ascii=False))


def _search(step: Step, role: ToolRole) -> Prediction:
    listed = _listable(step, role)
    if isinstance(listed, Prediction):
        return listed
    given = _path_arg(step, role)
    root = given[1] if isinstance(given, tuple) else "/"
    pattern = str(step.arguments.get("pattern", "*"))
    matcher = _glob(pattern)
    excludes = [_glob(str(p)) for p in step.arguments.get("excludePatterns") or []]
    prefix = _below(root)
    found: set[str] = set()
    for entity in step.episode.ledger.items("files"):
        if not entity.key.startswith(prefix):
            continue
        relative = entity.key[len(prefix):]
        parts = relative.split("/")
        for depth in range(1, len(parts) + 1):  # the file and every directory on the way to it
            candidate = "/".join(parts[:depth])
            if any(x.fullmatch(candidate) for x in excludes):
                break
            if matcher.fullmatch(candidate):
                found.add(prefix + candidate)
    text = "\n".join(sorted(found)) if found else "No matches found"
    return structured_text(step, text)


def _info(step: Step, role: ToolRole) -> Prediction:
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is None:
        return not_found(step, role, path, syscall="stat")
    entity = step.episode.ledger.get("files", path)
    created = clock(entity.created_turn or 0) if entity else clock(0)
    modified = clock(entity.updated_turn or entity.created_turn or 0) if entity else clock(0)
    is_dir = node["type"] == "directory"
    lines = [
        f"size: {_DIR_SIZE if is_dir else _size(node)}",
        f"created: {created.strftime(_JS_DATE)}",
        f"modified: {modified.strftime(_JS_DATE)}",
        f"accessed: {modified.strftime(_JS_DATE)}",
        f"isDirectory: {'true' if is_dir else 'false'}",
        f"isFile: {'false' if is_dir else 'true'}",
        f"permissions: {'755' if is_dir else '644'}",
    ]
    return structured_text(step, "\n".join(lines))


def _allowed(step: Step, role: ToolRole) -> Prediction:
    return structured_text(step, "Allowed directories:\n" + "\n".join(_roots(step)))


# -- writing -----------------------------------------------------------------------------------


def _write(step: Step, role: ToolRole) -> Prediction:
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is not None and node["type"] == "directory":
        return error(f"EISDIR: illegal operation on a directory, open '{path}'")
    blocked = _file_on_the_way(step, path)
    if blocked:
        return error(f"ENOTDIR: not a directory, open '{path}'")
    content = str(step.arguments.get("content", ""))
    if node is not None:
        content = _combined(step.arguments, _content(node), content)
    if node is None:
        effect = Effect("create", "files", path, {"path": path, "type": "file", "content": content})
    else:
        effect = Effect("update", "files", path, {"content": content})
    return structured_text(step, f"Successfully wrote to {raw}", effects=[effect])


def _combined(arguments: JSONDict, old: str, new: str) -> str:
    """What a write leaves in an existing file: ``operation: append``/``prepend`` (or ``append: true``) keep
    what was there; any other write replaces it."""
    how = next((str(arguments[a]).casefold() for a in ("operation", "mode", "write_mode", "writeMode")
                if isinstance(arguments.get(a), str)), "")
    if how == "append" or arguments.get("append") is True:
        return old + new
    return new + old if how == "prepend" else new


def _file_on_the_way(step: Step, path: str) -> bool:
    parent = posixpath.dirname(path)
    while parent and parent not in ("/", "."):
        entity = step.episode.ledger.get("files", parent)
        if entity is not None:
            return not _is_dir(entity)
        parent = posixpath.dirname(parent)
    return False


def _edit(step: Step, role: ToolRole) -> Prediction:
    found = _existing_file(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    original = _content(node).replace("\r\n", "\n")
    try:
        modified = apply_pairs(original, edit_pairs(step.arguments), path)
    except EditRefused as exc:
        return error(str(exc))
    diff = _unified_diff(original, modified, path)
    fence = "```"
    while fence in diff:
        fence += "`"
    text = f"{fence}diff\n{diff}{fence}\n\n"
    effects = [] if step.arguments.get("dryRun") else [Effect("update", "files", path, {"content": modified})]
    return structured_text(step, text, effects=effects)


def _unified_diff(original: str, modified: str, name: str) -> str:
    """The patch the reference server prints (jsdiff's ``createTwoFilesPatch``): headers even when nothing
    changed, 4 lines of context, every hunk range written ``start,count``."""
    old_lines, new_lines = original.splitlines(keepends=True), modified.splitlines(keepends=True)
    out = [f"Index: {name}", "=" * 67, f"--- {name}\toriginal", f"+++ {name}\tmodified"]
    for group in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_grouped_opcodes(4):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = i1 + 1 if i2 > i1 else i1  # a zero-length range names the line before it
        new_start = j1 + 1 if j2 > j1 else j1
        out.append(f"@@ -{old_start},{i2 - i1} +{new_start},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += _patch_lines(" ", old_lines[a1:a2])
                continue
            out += _patch_lines("-", old_lines[a1:a2])
            out += _patch_lines("+", new_lines[b1:b2])
    return "\n".join(out) + "\n"


def _patch_lines(mark: str, lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        out.append(mark + line.removesuffix("\n"))
        if not line.endswith("\n"):
            out.append("\\ No newline at end of file")
    return out


def _mkdir(step: Step, role: ToolRole) -> Prediction:
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is not None and node["type"] != "directory":
        return error(f"EEXIST: file already exists, mkdir '{path}'")
    effects = [] if step.episode.ledger.get("files", path) else [
        Effect("create", "files", path, {"path": path, "type": "directory"})]
    return structured_text(step, f"Successfully created directory {raw}", effects=effects)


def _move(step: Step, role: ToolRole) -> Prediction:
    extra = role.extra or {}
    source_raw = str(step.arguments.get(extra.get("source", "source"), ""))
    dest_raw = str(step.arguments.get(extra.get("destination", "destination"), ""))
    source, dest = _resolve(step, source_raw), _resolve(step, dest_raw)
    if isinstance(source, Prediction):
        return source
    if isinstance(dest, Prediction):
        return dest
    node = _node(step, source)
    if node is None:
        return not_found(step, role, f"{source}' -> '{dest}", syscall="rename")
    if _node(step, dest) is not None:
        return error(f"Destination already exists: {dest}")
    effects = []
    prefix = _below(source)
    for entity in step.episode.ledger.items("files"):
        if entity.key == source or entity.key.startswith(prefix):
            new_key = dest + entity.key[len(source):]
            effects.append(Effect("move", "files", entity.key, {"path": new_key}, new_key=new_key))
    return structured_text(step, f"Successfully moved {source_raw} to {dest_raw}", effects=effects)


def _delete(step: Step, role: ToolRole) -> Prediction:
    found = _target(step, role)
    if isinstance(found, Prediction):
        return found
    raw, path, node = found
    if node is None:
        return not_found(step, role, path, syscall="unlink")
    if node["type"] == "directory":
        if _children(step, path):
            return error(f"ENOTEMPTY: directory not empty, rmdir '{path}'")
        effects = [Effect("delete", "files", path)] if step.episode.ledger.get("files", path) else []
        return structured_text(step, f"Successfully deleted directory {raw}", effects=effects)
    return structured_text(step, f"Successfully deleted {raw}", effects=[Effect("delete", "files", path)])


def _unknown(step: Step, role: ToolRole) -> Prediction:
    from .actions import action_answer

    return action_answer(step, role)


_OPS = {
    "read": _read, "read_many": _read_many, "read_media": _read_media, "list_dir": _list_dir,
    "list_dir_sizes": _list_dir_sizes, "tree": _tree, "search": _search, "info": _info, "allowed": _allowed,
    "write": _write, "edit": _edit, "mkdir": _mkdir, "move": _move, "delete": _delete,
}
