"""Which key of a tool's own answer shape means which quantity of a file: a key's role, read from its name.

A page's first line may be ``start_line``, ``from_line``, ``firstLine`` or ``first``; a match's text ``match``,
``text`` or ``line_text``. :func:`role_of` splits a key into its word tokens (``fromLine`` -> from, line) and
names the quantity it carries, so a server answering in its own words still gets the episode's numbers under
its own keys. ``where`` says which object the key sits in (a page, one match, one change, one entry), since
``line`` is a match's line number but ``lines`` a page's text.
"""

from __future__ import annotations

import re
from typing import Any, Literal

JSONDict = dict[str, Any]
Where = Literal["top", "match", "change", "entry"]

_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_TEXT = {"content", "text", "body", "data", "lines", "snippet", "excerpt"}
_START = {"start", "first", "from", "begin", "beginning"}
_END = {"end", "last", "to", "until", "stop"}
_DIFF = {"diff", "preview", "patch", "unified"}


def tokens(key: str) -> set[str]:
    """A key's lower-case word tokens: ``context_before`` and ``contextBefore`` -> {context, before}."""
    return {t.lower() for t in _TOKEN.findall(key)}


def _kind(spec: Any) -> str:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else ""


def role_of(key: str, spec: Any, where: Where) -> str | None:
    """The quantity ``key`` (declared as ``spec``) carries in an object of kind ``where``; None: none known."""
    t, kind = tokens(key), _kind(spec)
    numeric = kind in ("integer", "number")
    if kind == "boolean":
        if t & {"truncated", "more", "partial", "incomplete"}:
            return "truncated"
        return "success" if t & {"success", "ok", "succeeded", "applied", "done"} else None
    if kind == "array":
        if t & {"before", "preceding", "above"}:
            return "before"
        if t & {"after", "following", "below"}:
            return "after"
        if t & {"similar", "suggestions", "candidates", "closest", "nearest"}:
            return "similar"
        return "list"
    if numeric:
        if t & {"similarity", "score", "ratio", "confidence"}:
            return "similarity"
        if t & {"size", "bytes"}:
            return "size"
        if t & {"index", "idx"} and not t & {"line"}:
            return "index"
        if t & _START and (t & {"line", "lines", "row"} or len(t) == 1):
            return "first"
        if t & _END and (t & {"line", "lines", "row"} or len(t) == 1):
            return "last"
        if t & {"applied", "succeeded", "replaced", "changed", "made", "replacements"}:
            return "applied"
        if t & {"failed", "failures", "errors", "skipped"}:
            return "failed"
        if t & {"dirs", "dir", "directories", "directory", "folders", "folder"}:
            return "dirs"
        if t & {"files", "file"} and t & {"total", "count", "num", "number"}:
            return "files"
        if t & {"returned", "shown", "read"}:
            return "returned"
        if t & {"match", "matches", "hits", "hit", "results", "found", "occurrences"} and not t & {"files", "file"}:
            return "matches"
        if t & {"line", "lines", "lineno", "row"}:
            if t & {"total", "count", "num", "lines"} and where in ("top", "entry"):
                return "total"
            return "line"
        if t & {"total", "count", "num"}:
            return "count"
        return "line" if t == {"number"} and where == "match" else None
    if kind == "string":
        if t & {"type", "kind", "mode"} and where != "entry":
            return None
        if where == "top" and t & {"path", "dir", "directory"}:
            return "path"
        if t & _DIFF:
            return "diff"
        if t & {"error", "message", "reason", "msg"} and where == "change":
            return "error"
        if where == "entry" and t & {"type", "kind"}:
            return "type"
        if where == "entry" and t & {"name", "path", "filename", "file"}:
            return "name"
        if t & {"symbol", "definition", "enclosing", "scope", "label"}:
            return "symbol"
        if t & {"match", "matched", "line"} and where == "match" or t & _TEXT:
            return "text"
    return None


def roles(props: JSONDict, where: Where) -> dict[str, str]:
    """Each role found among ``props`` -> the first key that plays it."""
    found: dict[str, str] = {}
    for key, spec in props.items():
        role = role_of(str(key), spec, where)
        if role is not None:
            found.setdefault(role, str(key))
    return found


def item_props(spec: Any) -> JSONDict:
    """The properties of the objects a list key holds (none: not a list of objects)."""
    items = spec.get("items") if isinstance(spec, dict) else None
    props = items.get("properties") if isinstance(items, dict) else None
    return props if isinstance(props, dict) else {}


def learned_text(spec: Any, default: str) -> str:
    """The sentence a key carried in the recording (its shape's constant or single example), else ``default``."""
    if isinstance(spec, dict):
        for value in (spec.get("default"), spec.get("const"), *(spec.get("examples") or [])[:1],
                      *(spec.get("enum") or [])[:1]):
            if isinstance(value, str) and value:
                return value
    return default


__all__ = ["item_props", "learned_text", "role_of", "roles", "tokens"]
