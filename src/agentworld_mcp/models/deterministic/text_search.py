"""Search tools whose answer lists *matches* (grep-like), found in the texts the episode stores.

Many search tools do not return the stored entities but where a query was found in them:
``{"path": "Journal/Review.md", "line": 10, "snippet": "- Plumber booked. #todo"}`` (notes
vaults, file servers' ``grep``, document search with excerpts, code search). The catalog says
so: a search tool's outputSchema lists items with a field naming the entity (``path``, ``name``,
``id``) beside one that shows the match (``snippet``, ``excerpt``, ``context``, a ``line``).

Such a call is answered from the texts the catalog's other tools keep (notes, files, documents
written by create/write/edit tools): one item per matching line when the items carry a line
number, else one per matching entity; a case-insensitive substring by default; a ``mode`` the
catalog lists as an enum chooses where to look (``content``, ``filename``, ``tag``, ``both``).
No match is an empty list, never an invented one. State is read, never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from ...state.ledger import Entity
from ...world.paging_names import MORE_FIELDS, NEXT_FIELDS, TOTAL_FIELDS
from ...world.roles import words
from ..base import Prediction, Step
from . import paging
from .common import conform, error

JSONDict = dict[str, Any]
Where = Literal["content", "filename", "tag"]
Part = Literal["name", "snippet", "line", "column", "kind", "score", "rank"]

_SEARCH_WORDS = frozenset({"search", "find", "grep", "query", "lookup", "match", "matches"})
_QUERY_ARGS = ("query", "q", "pattern", "search", "search_query", "searchQuery", "term", "text", "keyword",
               "keywords", "needle", "regex", "search_term", "searchTerm")
_NAME_FIELDS = ("path", "file", "filename", "file_path", "filePath", "filepath", "uri", "url", "name", "key",
                "title", "id", "note", "note_path", "notePath", "document", "doc", "document_id", "documentId")
_SNIPPET_FIELDS = ("snippet", "excerpt", "context", "match", "matched_text", "matchedText", "preview", "highlight",
                   "line_text", "lineText", "text", "content", "fragment", "summary")
_LINE_FIELDS = ("line", "line_number", "lineNumber", "line_no", "lineNo", "lineno", "row")
_COLUMN_FIELDS = ("column", "col", "column_number", "columnNumber", "offset", "char", "character")
_KIND_FIELDS = ("kind", "match_type", "matchType", "type", "field", "source", "where", "location", "match_kind")
_MODE_ARGS = ("mode", "search_mode", "searchMode", "kind", "field", "in", "target", "search_in", "searchIn",
              "type", "match", "where", "scope_type")
_SCOPE_ARGS = ("scope", "directory", "dir", "folder", "path", "root", "under", "prefix", "subdirectory")
_CASE_ARGS = ("case_sensitive", "caseSensitive", "match_case", "matchCase")
_TEXT_FIELDS = ("content", "body", "text", "markdown", "contents", "note", "data", "value", "description")
#: Where a mode value looks: ``both``/``all`` looks at names and contents.
_MODE_VALUES: dict[str, tuple[Where, ...]] = {
    "content": ("content",), "contents": ("content",), "body": ("content",), "text": ("content",),
    "fulltext": ("content",), "full_text": ("content",),
    "filename": ("filename",), "file_name": ("filename",), "name": ("filename",), "path": ("filename",),
    "file": ("filename",), "files": ("filename",), "title": ("filename",), "paths": ("filename",),
    "tag": ("tag",), "tags": ("tag",),
    "both": ("filename", "content"), "all": ("filename", "content"), "any": ("filename", "content"),
}
#: ``_meta`` key of a search tool: where the recording showed it looking (``["filename", "content"]``).
SEARCH_PLACES_META = "agentworld/search_places"
_TAG = re.compile(r"(?<![\w#/])#([\w][\w/-]*)")


@dataclass(frozen=True)
class MatchShape:
    """Where a search tool's outputSchema lists its matches, and what each field of a match says."""

    path: tuple[str, ...]  # properties from the answer's top to the array of matches
    container: JSONDict  # the object schema holding the array (its siblings: count, has_more...)
    item: JSONDict
    parts: tuple[tuple[str, Part], ...]
    query_arg: str

    def field(self, part: Part) -> str | None:
        return next((name for name, p in self.parts if p == part), None)


@dataclass(frozen=True)
class Found:
    """One match: the entity, where it was found, the line (1-based; 0 for a name or front matter), the text."""

    entity: Entity
    where: Where
    line: int
    column: int
    snippet: str


def predict_text_search(step: Step) -> Prediction | None:
    """The matches a grep-like search finds in the episode's stored texts; None for any other tool."""
    shape: MatchShape | None = step.derived(("text_search", step.tool.name), lambda: match_shape(step))
    if shape is None or step.effects_only:
        return None
    query = step.arguments.get(shape.query_arg)
    if not isinstance(query, str) or not query.strip():
        return None  # nothing to look for: the record model answers (or refuses) as before
    places = _places(step)
    sensitive = _case_sensitive(step)
    scope = _scope(step, shape.query_arg)
    per_line = shape.field("line") is not None
    found: list[Found] = []
    for entity in _documents(step):
        if scope is not None and not _display(entity, True).lstrip("/").startswith(scope):
            continue
        hits = list(_matches(entity, query, places, sensitive))
        found += hits if per_line else hits[:1]
    try:
        page = paging.page_of(step, [str(i) for i in range(len(found))])
    except paging.InvalidCursor as bad:
        return error(str(bad))
    shown = found[page.start:page.end] if page else found
    relative = _relative(step, shape)
    items = [_item(shape, hit, rank, relative) for rank, hit in enumerate(shown, (page.start if page else 0) + 1)]
    body = _body(shape, items, len(found), page)
    out = step.tool.output_schema
    return Prediction(conform(body, out, step.rng) if out else body, effects=[])


# -- what the catalog says ------------------------------------------------------------------------


def match_shape(step: Step) -> MatchShape | None:
    """The shape of a search tool's matches, or None when the tool is no search or lists entities themselves."""
    tool = step.tool
    if not _SEARCH_WORDS & {w.lower() for w in words(tool.name)} and step.role.kind != "search":
        return None
    props: JSONDict = tool.input_schema.get("properties") or {}
    query_arg = next((a for a in _QUERY_ARGS if isinstance(props.get(a), dict)
                      and props[a].get("type") in ("string", None)), None)
    if query_arg is None or not tool.output_schema:
        return None
    for path, container, item in _arrays(tool.output_schema, ()):
        parts = _parts(item)
        kinds = {p for _, p in parts}
        # a match names its entity and shows where it matched; ``text``/``content`` alone is the entity's own field
        shows = "line" in kinds or any(p == "snippet" and n not in ("text", "content", "summary") for n, p in parts)
        if "name" in kinds and shows:
            return MatchShape(path, container, item, parts, query_arg)
    return None


def _arrays(schema: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], JSONDict, JSONDict]]:
    """Every array of objects in ``schema`` (success alternatives only), with its path and containing object."""
    if not isinstance(schema, dict) or len(path) > 4:
        return
    for alt in schema.get("oneOf") or schema.get("anyOf") or ():
        if isinstance(alt, dict) and not _failure(alt):
            yield from _arrays(alt, path)
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        items = sub.get("items")
        if sub.get("type") == "array" and isinstance(items, dict) and isinstance(items.get("properties"), dict):
            yield path + (name,), schema, items
        elif sub.get("type") == "object" or "properties" in sub or "oneOf" in sub:
            yield from _arrays(sub, path + (name,))


def _failure(schema: JSONDict) -> bool:
    props = schema.get("properties") or {}
    return any(isinstance(p, dict) and p.get("const") is False for p in props.values()) or (
        "error" in props and "error" in (schema.get("required") or ()))


def _parts(item: JSONDict) -> tuple[tuple[str, Part], ...]:
    """What each field of a match item says, read from its name (the first field of each part wins)."""
    props: JSONDict = item.get("properties") or {}
    out: list[tuple[str, Part]] = []
    taken: set[str] = set()
    for part, names in (("line", _LINE_FIELDS), ("column", _COLUMN_FIELDS), ("name", _NAME_FIELDS),
                        ("snippet", _SNIPPET_FIELDS), ("kind", _KIND_FIELDS), ("score", ("score", "relevance")),
                        ("rank", ("rank", "position"))):
        fitting = [n for n in names if n in props and n not in taken and _fits(part, props[n])]
        for name in fitting if part == "name" else fitting[:1]:  # every field that names the entity (id, path)
            out.append((name, part))  # type: ignore[arg-type]
            taken.add(name)
    return tuple(out)


def _fits(part: str, schema: Any) -> bool:
    kind = schema.get("type") if isinstance(schema, dict) else None
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if part in ("line", "column", "rank"):
        return bool(kinds & {"integer", "number"})
    if part == "score":
        return bool(kinds & {"integer", "number"})
    return bool(kinds & {"string", None})


def found_by_name(query: str, item: JSONDict) -> bool:
    """Whether a recorded match shows the query in the name of its entity (a ``title``) but not in the text it
    shows: the search looked at names too (``sim2real/learn_search_places.py``)."""
    needle = query.strip().casefold()
    shown = [v.casefold() for f in _SNIPPET_FIELDS if isinstance(v := item.get(f), str)]
    names = [v.casefold() for f in _NAME_FIELDS if isinstance(v := item.get(f), str)]
    return bool(needle and shown and any(needle in n for n in names) and not any(needle in s for s in shown))


def _places(step: Step) -> tuple[Where, ...]:
    """Where the call looks: the value of a mode-like enum argument (or its default); where the recording
    showed it looking (names and contents); contents otherwise."""
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    for name in _MODE_ARGS:
        schema = props.get(name)
        enum = schema.get("enum") if isinstance(schema, dict) else None
        if not isinstance(schema, dict) or not enum or not any(str(v).lower() in _MODE_VALUES for v in enum):
            continue
        value = step.arguments.get(name, schema.get("default"))
        places = _MODE_VALUES.get(str(value).lower()) if value is not None else None
        if places:
            return places
    learned = (step.tool.definition.get("_meta") or {}).get(SEARCH_PLACES_META)
    if isinstance(learned, list) and learned and all(p in ("content", "filename", "tag") for p in learned):
        return tuple(learned)
    return ("content",)


def _case_sensitive(step: Step) -> bool:
    for name in _CASE_ARGS:
        if name in step.arguments:
            return step.arguments[name] is True
    return step.arguments.get("ignore_case", step.arguments.get("ignoreCase")) is False


def _scope(step: Step, query_arg: str) -> str | None:
    """The directory a ``scope``/``directory`` argument limits the search to (without a leading slash)."""
    for name in _SCOPE_ARGS:
        value = step.arguments.get(name)
        if name != query_arg and isinstance(value, str) and value.strip("/. "):
            return value.strip().strip("/") + "/"
    return None


def _relative(step: Step, shape: MatchShape) -> bool:
    """Whether names are shown relative (``Notes/a.md``): the catalog describes or exemplifies them so."""
    name = shape.field("name")
    schema = (shape.item.get("properties") or {}).get(name) if name else None
    texts = [schema] if isinstance(schema, dict) else []
    texts += [p for p in (step.tool.input_schema.get("properties") or {}).values() if isinstance(p, dict)]
    for prop in texts:
        if "relative" in str(prop.get("description", "")).lower():
            return True
    return False


# -- the texts the episode stores -------------------------------------------------------------------


def _documents(step: Step) -> list[Entity]:
    """The entities whose texts a search looks through: those of the collections the catalog's writing tools
    keep (files, notes, documents), or every collection with text when the catalog says nothing."""
    ledger = step.episode.ledger
    kept: list[str] = step.derived("text_search_collections", lambda: _text_collections(step))
    collections = [c for c in kept if c in ledger.collections()] or ledger.collections()
    found = []
    for collection in collections:
        entities = [e for e in ledger.items(collection) if _text(e) is not None or collection in kept]
        if collection == "files":
            entities = sorted((e for e in entities if e.fields.get("type") != "directory"), key=lambda e: e.key)
        found += entities
    return found


def _text_collections(step: Step) -> list[str]:
    """Collections that create/update tools write a text into (an argument named ``content``, ``body``...)."""
    found: list[str] = []
    for spec in step.catalog or ():
        role = spec.role
        props = spec.input_schema.get("properties") or {}
        writes_text = any(isinstance(props.get(a), dict) and props[a].get("type") == "string" for a in _TEXT_FIELDS)
        if role.kind in ("create", "update") and writes_text and role.collection not in found:
            found.append(role.collection)
    return found


def _text(entity: Entity) -> str | None:
    return next((v for f in _TEXT_FIELDS if isinstance(v := entity.fields.get(f), str)), None)


def _display(entity: Entity, relative: bool) -> str:
    """The entity's name as the search shows it: its path (relative when the catalog says so), else its key."""
    value = next((v for f in ("path", "file_path", "filePath", "filename", "name", "title")
                  if isinstance(v := entity.fields.get(f), str) and v), entity.key)
    return value.lstrip("/") if relative else value


def _matches(entity: Entity, query: str, places: tuple[Where, ...], sensitive: bool) -> Iterator[Found]:
    fold = (lambda s: s) if sensitive else str.casefold
    needle = fold(query)
    if "filename" in places:
        name = _display(entity, True)
        if needle in fold(name):
            yield Found(entity, "filename", 0, fold(name).index(needle) + 1, name)
    text = _text(entity) or ""
    if "tag" in places:
        wanted = fold(query.strip().lstrip("#"))
        for at_line, tag in _tags(entity, text):
            if fold(tag) == wanted or fold(tag).startswith(wanted + "/"):
                yield Found(entity, "tag", at_line, 1, "#" + tag)
    if "content" in places:
        for number, line in enumerate(text.splitlines(), 1):
            at = fold(line).find(needle)
            if at >= 0:
                yield Found(entity, "content", number, at + 1, line.strip())


def _tags(entity: Entity, text: str) -> Iterator[tuple[int, str]]:
    """The entity's tags with their lines: front matter and a ``tags`` field at line 0, inline ``#tags`` where
    they stand."""
    front, body_start = front_matter(text)
    # a ``tags`` list on the entity is what tag tools left (list_fields.py: front matter and changes since)
    listed = entity.fields["tags"] if isinstance(entity.fields.get("tags"), list) else front.get("tags")
    if isinstance(listed, str):
        listed = [t for t in re.split(r"[,\s]+", listed) if t]
    for tag in listed if isinstance(listed, list) else ():
        if isinstance(tag, (str, int)) and str(tag).strip("#"):
            yield 0, str(tag).lstrip("#")
    for number, line in enumerate(text.splitlines()[body_start:], body_start + 1):
        for tag in _TAG.findall(line):
            yield number, tag


def front_matter(text: str) -> tuple[JSONDict, int]:
    """The YAML front matter of a Markdown text (``---`` fenced at its top) and the index of the line after it."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, 0
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return {}, end + 1
    return (data if isinstance(data, dict) else {}), end + 1


# -- the answer ---------------------------------------------------------------------------------------


def _item(shape: MatchShape, hit: Found, rank: int, relative: bool) -> JSONDict:
    props: JSONDict = shape.item.get("properties") or {}
    item: JSONDict = {}
    for name, part in shape.parts:
        if part == "name":
            item[name] = _name(hit.entity, name, relative)
        elif part == "snippet":
            limit = props[name].get("maxLength") if isinstance(props.get(name), dict) else None
            item[name] = hit.snippet[:limit] if isinstance(limit, int) else hit.snippet
        elif part == "line":
            item[name] = hit.line
        elif part == "column":
            item[name] = hit.column
        elif part == "kind":
            item[name] = _kind_value(props.get(name), hit.where)
        elif part == "score":
            item[name] = 1.0 if (props.get(name) or {}).get("type") == "number" else 1
        elif part == "rank":
            item[name] = rank
    for name in props:  # the item's other fields the entity holds (``status``, ``type_name``) are the entity's
        value = hit.entity.fields.get(name)
        if name not in item and value is not None and not isinstance(value, (dict, list)):
            item[name] = value
    return item


def _name(entity: Entity, field: str, relative: bool) -> Any:
    """The entity's value for a naming field of the match: its own field of that name, its key for an id,
    else its path or name."""
    own = entity.fields.get(field)
    if isinstance(own, (str, int)) and not isinstance(own, bool):
        return own.lstrip("/") if relative and isinstance(own, str) else own
    if field in ("id", "key") or field.endswith(("_id", "Id")):
        return entity.key
    return _display(entity, relative)


def _kind_value(schema: Any, where: Where) -> str:
    """The item's enum value for where the match was found (``filename`` may be called ``path`` or ``name``)."""
    enum = schema.get("enum") if isinstance(schema, dict) else None
    if not enum:
        return where
    for value in enum:
        if where in _MODE_VALUES.get(str(value).lower(), ()) and len(_MODE_VALUES[str(value).lower()]) == 1:
            return str(value)
    return str(enum[0])


def _body(shape: MatchShape, items: list[JSONDict], total: int, page: paging.Page | None) -> JSONDict:
    """The answer: the matches at their place, and beside them what the container says about them."""
    inner: JSONDict = {shape.path[-1]: items}
    more = page.more if page else False
    for name, sub in (shape.container.get("properties") or {}).items():
        if name in inner or not isinstance(sub, dict):
            continue
        kind = sub.get("type")
        described = str(sub.get("description", "")).lower()
        if kind == "integer" and (name in TOTAL_FIELDS or "total" in described):
            inner[name] = total
        elif kind == "integer" and ("count" in name.lower() or name.lower() in ("n", "num", "matched")):
            inner[name] = len(items)
        elif kind == "boolean" and (name in MORE_FIELDS or "more" in name.lower() or "truncat" in name.lower()):
            inner[name] = more
        elif name in NEXT_FIELDS:
            if more and page is not None:
                inner[name] = page.next_cursor
        elif kind == "array" and name != shape.path[-1]:
            inner[name] = []  # warnings, skipped files: a stored text is always readable
    body = inner
    for name in reversed(shape.path[:-1]):
        body = {name: body}
    return body


__all__ = ["SEARCH_PLACES_META", "MatchShape", "found_by_name", "match_shape", "predict_text_search"]
