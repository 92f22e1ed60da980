"""Fields a catalog's descriptions name, for entities whose tools list no output shape.

A library catalog whose search tool says "Search the catalogue by words of the title or
author" promises books that have a title and an author, even when no tool declares an
output schema. Without those fields a populated world has books with only an id, and no
search can find anything. This module reads the phrases that name an entity's
attributes, in any catalog:

* what a search or filter goes by: "by words of the title or author", "filter tasks by
  status and priority";
* what a read shows: "the book's title, author and year", "returns its name, email and
  phone", "with their title and due date".

It is deliberately narrow (an enumeration after one of those phrases), because a field
invented from prose that the service does not have is worse than a missing one.
"""

from __future__ import annotations

import re
from typing import Any

from ..world.roles import singular

JSONDict = dict[str, Any]

_ITEM = r"(?:the |its |their |a |an )?([a-z][a-z_]*(?: (?:date|name|number|count|time|address|code))?)"
_LIST = rf"{_ITEM}((?:\s*,\s*(?:and |or )?{_ITEM})*(?:,?\s+(?:and|or)\s+{_ITEM})?)"
#: "by ...", "'s ...", "returns/shows/with/including ...": the enumeration after it names fields.
_LEADS = (
    re.compile(rf"\bby (?:(?:any )?words? (?:of|in) |part of |matching )?{_LIST}", re.I),
    re.compile(rf"'s {_LIST}", re.I),
    re.compile(rf"\b(?:returns?|shows?|including|includes|with|containing) {_LIST}", re.I),
)
#: Words an enumeration may hold that are not attributes of the entity.
_NOT_FIELDS = frozenset({
    "id", "ids", "key", "keys", "word", "words", "keyword", "keywords", "query", "text", "default", "page",
    "pages", "details", "detail", "info", "information", "data", "all", "any", "one", "more", "other", "others",
    "given", "list", "results", "result", "value", "values", "each", "every", "this", "that", "it", "them",
    "optional", "filters", "filter", "fields", "field", "options", "option", "pagination", "cursor",
    "limit", "offset", "sort", "order", "the", "a", "an", "and", "or", "name's", "success", "error", "errors",
    "metadata", "everything", "nothing", "some", "same", "new", "current", "specified", "matching",
})
_NUMERIC = {"year": "integer", "count": "integer", "number": "integer", "age": "integer", "quantity": "integer",
            "rating": "number", "price": "number", "amount": "number", "total": "number", "score": "number"}
_MAX_FIELDS = 8


def described_fields(descriptions: list[str], noun: str) -> dict[str, JSONDict]:
    """The attribute fields ``descriptions`` name for entities of ``noun``, each with a JSON Schema."""
    own = {singular(noun.lower()), noun.lower()}
    found: dict[str, JSONDict] = {}
    for text in descriptions:
        for lead in _LEADS:
            for match in lead.finditer(text or ""):
                for word in re.findall(_ITEM, match.group(0)[match.start(1) - match.start(0):], re.I):
                    name = word.strip().lower().replace(" ", "_")
                    if name in _NOT_FIELDS or singular(name) in own or len(name) < 3:
                        continue
                    kind = _NUMERIC.get(name) or ("integer" if name.endswith("_count") else "string")
                    found.setdefault(name, {"type": kind})
    return dict(list(found.items())[:_MAX_FIELDS])
