"""The answer shape a tool's description states in words, read as a JSON Schema.

Many servers say what a tool returns in prose, not as a literal (:mod:`.described_shape` reads
literals, and calls this module when a description states none)::

    Returns:
        Dict with success status and link_id if successful
        Dict with items, updates, and total_count
        JSON with keys: rows_affected, status, execution_time_ms.
        JSON array of objects with keys: schema_name, owner.
        - workflowObjectId: the workflow object ID
    The response includes `series_remaining` (occurrences left) and `overrides`.

Each names an object's keys: a success flag (``success status``, ``ok``) is a boolean that is
``true`` on success, and implies the failure answer ``{"success": false, "error": "..."}``; a list
(``list of files``, ``results list``, a plural like ``items``) is an array, ``(each with a, b)`` its
items' fields; a count (``total_count``, ``processed count``) an integer. Only a statement whose
every part reads as a key counts: ``Dictionary with operation results`` names no key and states
nothing. Pure functions; the literal reader's :class:`DescribedReturns` is built by its caller.
"""

from __future__ import annotations

import re
from typing import Any

from .roles import singular

JSONDict = dict[str, Any]

#: ``Returns:`` (or ``Returns``) at the start of a line or sentence: where a statement begins.
_RETURNS = re.compile(r"(?:^|(?<=[.:!?]\s)|(?<=\n))\s*returns?\s*:?[ \t]*", re.IGNORECASE | re.MULTILINE)
#: A leading type annotation (``Dict[str, Any]:``, ``str:``) before the words.
_ANNOTATION = re.compile(r"^[A-Za-z][\w.]*(?:\[[^\]\n]*\])?\s*:\s+")
_OBJECT = r"(?:an?\s+|the\s+)?(?:json\s+|python\s+)?(?:dict(?:ionary)?|object|mapping|map|json|record)"
_ARRAY = (r"(?:an?\s+|the\s+)?(?:json\s+)?(?:array|list)\s+of\s+(?:json\s+)?(?:objects|dicts|dictionaries|records|"
          r"mappings|maps|entries)")
_INTRO = r"\s+(?:with|containing|having)\s+(?:the\s+)?(?:(?:keys|fields|properties)\b\s*:?\s*)?"
_STATEMENT = re.compile(rf"^(?:(?P<array>{_ARRAY})|(?P<object>{_OBJECT})){_INTRO}(?P<parts>.+)$", re.IGNORECASE | re.DOTALL)
#: ``- key: what it is`` lines right after ``Returns:``.
_BULLET = re.compile(r"^\s*[-*\u2022]\s+`?([A-Za-z_][A-Za-z0-9_]*)`?\s*(?::|\s[-\u2013\u2014]\s)")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FLAGS = ("success", "ok")
#: Words around a key that say nothing about it (``success status``, ``any errors``, ``... if successful``).
_LEADING = re.compile(r"^(?:and\s+|or\s+)?(?:the\s+|any\s+|an?\s+|its\s+|optional\s+|optionally\s+)*", re.IGNORECASE)
_TRAILING = re.compile(r"\s+(?:if|when|on|where|for|in case)\b.*$", re.IGNORECASE)
_EACH = re.compile(r"^\s*each\s+(?:with|containing|having)\s+(.+)$", re.IGNORECASE | re.DOTALL)
#: What ends a statement: a sentence's end or an empty line (a wrapped line continues it).
_END = re.compile(r"\.(?:\s|$)|;|\n\s*\n|\bor\s+an?\s+error\b", re.IGNORECASE)
_MAX_PARTS = 24
#: ``The response includes `a` and `b` ...``: keys named in code quotes, the rest of the sentence an aside.
_INCLUDES = re.compile(r"(?:^|(?<=[.:!?]\s)|(?<=\n))\s*(?:the\s+)?(?:response|result|answer|output)\s+(?:also\s+)?"
                       r"(?:includes|contains|carries|has)\s+", re.IGNORECASE | re.MULTILINE)
_QUOTED_KEYS = re.compile(r"\s*`([A-Za-z_][A-Za-z0-9_]*)`(?:\s*,\s*(?:and\s+)?|\s+and\s+)?")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def prose_returns(description: str) -> tuple[JSONDict, JSONDict | None] | None:
    """The success shape (and the failure shape a stated success flag implies) a description's prose
    return statement states; None where it states none that reads as keys."""
    for match in _RETURNS.finditer(description or ""):
        rest = description[match.end():]
        found = _bulleted(rest) if rest.startswith("\n") else None
        if found is None:
            found = _stated(rest)
        if found is not None:
            return found, _failure(found)
    for match in _INCLUDES.finditer(description or ""):
        if (found := _included(description[match.end():])) is not None:
            return found, None
    return None


def _included(rest: str) -> JSONDict | None:
    """The keys a ``response includes `a` and `b``` sentence names in code quotes (asides dropped)."""
    text = re.sub(r"\s*\([^()]*\)", "", rest[:_sentence_end(rest)])
    keys: list[str] = []
    at = 0
    while (quoted := _QUOTED_KEYS.match(text, at)) is not None and quoted.end() > at:
        keys.append(quoted.group(1))
        at = quoted.end()
    if not keys:
        return None
    props = {k: _typed(k) for k in keys[:_MAX_PARTS]}
    return {"type": "object", "properties": props, "required": _required(props)}


def _stated(rest: str) -> JSONDict | None:
    text = rest.lstrip()
    end = _sentence_end(text)
    text = _ANNOTATION.sub("", " ".join(text[:end].split()), count=1)
    match = _STATEMENT.match(text)
    if match is None:
        return None
    shape = _object(match.group("parts"))
    if shape is None:
        return None
    return {"type": "array", "items": shape} if match.group("array") else shape


def _sentence_end(text: str) -> int:
    """Where the statement ends: a sentence's end or an empty line outside parentheses."""
    depth = 0
    for at, char in enumerate(text):
        depth += char == "("
        depth -= char == ")" and depth > 0
        if depth == 0 and _END.match(text, at):
            return at
    return len(text)


def _bulleted(rest: str) -> JSONDict | None:
    """``Returns:`` then ``- key: ...`` lines: an object of those keys (a bullet's wrapped lines continue it)."""
    keys: list[str] = []
    indent = 0
    for line in rest.splitlines()[1:]:
        if not line.strip():
            if keys:
                break
            continue
        bullet = _BULLET.match(line)
        here = len(line) - len(line.lstrip())
        if bullet is not None and (not keys or here == indent):
            keys.append(bullet.group(1))
            indent = here
        elif not keys or here <= indent:
            break
    if not keys:
        return None
    props = {k: _typed(k) for k in keys}
    return {"type": "object", "properties": props, "required": _required(props)}


def _object(parts: str) -> JSONDict | None:
    """The object whose keys ``parts`` (``success status and list of files``) name; None where a part names none."""
    props: JSONDict = {}
    for part in _split(parts):
        read = _part(part)
        if read is None:
            return None
        name, schema = read
        props.setdefault(name, schema)
    if not props:
        return None
    return {"type": "object", "properties": props, "required": _required(props)}


def _split(parts: str) -> list[str]:
    """The comma- and ``and``-separated parts, parentheses kept with their part."""
    out: list[str] = []
    depth = 0
    current = ""
    i = 0
    while i < len(parts):
        char = parts[i]
        depth += char == "("
        depth -= char == ")" and depth > 0
        joined = _AND.match(parts, i) if depth == 0 else None
        if depth == 0 and char == ",":
            out.append(current)
            current = ""
        elif joined is not None:
            out.append(current)
            current = ""
            i = joined.end() - 1
        else:
            current += char
        i += 1
    out.append(current)
    return [p.strip() for p in out if p.strip()][:_MAX_PARTS + 1]


def _part(part: str) -> tuple[str, JSONDict] | None:
    """One part as ``(key, schema)``: ``success status``, ``list of files``, ``results list (each with a,
    b)``, ``processed count``, ``link_id if successful``, ``title/snippet``; None for words that name no key."""
    aside = re.search(r"\(([^()]*)\)", part)
    items: JSONDict | None = None
    if aside is not None:
        each = _EACH.match(aside.group(1))
        if each is not None:
            items = _object(each.group(1))
        part = (part[:aside.start()] + part[aside.end():]).strip()
    words = _TRAILING.sub("", _LEADING.sub("", part)).strip().split()
    words = [w.split("/")[0] for w in words]
    low = [w.lower() for w in words]
    if not words or not all(_KEY.fullmatch(w) for w in words):
        return None
    if low[0] in _FLAGS and (len(low) == 1 or low[1:] in (["status"], ["flag"], ["boolean"], ["bool"])):
        return low[0], {"type": "boolean", "const": True}
    if len(words) == 3 and low[0] == "list" and low[1] == "of" or len(words) == 2 and low[1] in ("list", "array"):
        name = words[2] if low[0] == "list" else words[0]
        return name, {"type": "array", "items": items} if items else {"type": "array"}
    if len(words) == 2 and low[1] in ("count", "total", "number"):
        return words[0], {"type": "integer", "minimum": 0}
    if len(words) == 3 and low[:2] in (["number", "of"], ["count", "of"]):
        return words[2] + "_count", {"type": "integer", "minimum": 0}
    if len(words) == 1:
        schema = _typed(words[0])
        if items is not None and schema.get("type") == "array":
            schema["items"] = items
        return words[0], schema
    return None


def _typed(name: str) -> JSONDict:
    """What a key's name alone says of its value: a plural is a list, a count a number, ``is_x`` a flag."""
    low = name.lower()
    if low in _FLAGS or re.match(r"(?:is|has|can)_", low):
        return {"type": "boolean"}
    if re.search(r"(?:^|_)(?:count|total|remaining)$|^num_|(?:Count|Remaining)$", name):  # ``series_remaining``
        return {"type": "integer", "minimum": 0}
    if singular(low) != low and not low.endswith(("_ms", "status", "_at")):
        return {"type": "array"}
    return {}


def _required(props: JSONDict) -> list[str]:
    """What an answer must carry even where the state holds nothing: the flag and counts (lists are
    answered empty and untyped keys null where the state does not hold them)."""
    return [k for k, s in props.items() if s.get("type") in ("boolean", "integer")]


def _failure(success: JSONDict) -> JSONDict | None:
    """A stated success flag's failure: the flag false and the error's message."""
    props = success.get("properties") or {}
    flag = next((k for k in _FLAGS if (props.get(k) or {}).get("const") is True), None)
    if flag is None:
        return None
    return {"type": "object", "properties": {flag: {"type": "boolean", "const": False}, "error": {"type": "string"}},
            "required": [flag, "error"]}


__all__ = ["prose_returns"]
