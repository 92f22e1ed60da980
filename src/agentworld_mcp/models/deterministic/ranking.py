"""Free-text search over entities: which ones a query finds, and in what order.

A query finds an entity when every word of it occurs in some text field of the entity (any
field, case-insensitively; a word may be part of a longer one, so ``hydro`` finds
``hydroponics``), or when the whole query occurs as it is typed. ``field:value`` words
(``is:open``, ``status:closed``, ``habitat_id:HAB-02``) compare with the entity's own field.

Found entities rank by how well they match, as a search engine's relevance does: a word in a
name or title counts more than one in a description, a whole word more than part of one, and
the whole query as a phrase more than its words apart. Ties keep the listing's order (the
ledger's: by key as the entities were seeded or created), so the same query always gives the
same order and pages cut from it never repeat or skip an entity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

JSONDict = dict[str, Any]
T = TypeVar("T")

#: Fields that name an entity: a match there says more than one in its description.
NAME_FIELDS = frozenset({"name", "title", "summary", "subject", "label", "headline", "display_name", "displayname",
                         "full_name", "fullname", "callsign", "call_sign", "designation"})
_WORD = re.compile(r"\w+")
# Weights of one query word by where it was found (the best place counts).
_NAME_WORD, _NAME_PART, _TEXT_WORD, _TEXT_PART = 4.0, 3.0, 2.0, 1.0
_PHRASE_IN_NAME, _PHRASE_IN_TEXT = 3.0, 1.5


@dataclass(frozen=True)
class Query:
    """A search query taken apart once: its words and its ``field:value`` qualifiers."""

    phrase: str
    words: tuple[str, ...]
    qualifiers: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, text: str) -> Query:
        phrase = text.casefold().strip()
        words: list[str] = []
        qualifiers: list[tuple[str, str]] = []
        for term in phrase.split():
            name, _, value = term.partition(":")
            if name and value:
                qualifiers.append((name, value))
            else:
                words += _WORD.findall(term)
        return cls(phrase, tuple(dict.fromkeys(words)), tuple(qualifiers))


def relevance(query: str | Query, item: JSONDict) -> float | None:
    """How well ``item`` matches ``query`` (higher is better), or None when it does not match at all."""
    parsed = query if isinstance(query, Query) else Query.parse(query)
    if not parsed.phrase:
        return 0.0
    texts = list(_texts(item))
    phrase = max((_PHRASE_IN_NAME if named else _PHRASE_IN_TEXT for named, text in texts if parsed.phrase in text),
                 default=0.0)  # the query typed as it stands (``C++``, ``#12``, ``ares habitat``)
    if not phrase and not all(_qualifies(item, name, value) for name, value in parsed.qualifiers):
        return None
    if not phrase and not parsed.words and not parsed.qualifiers:
        return None  # only punctuation, and it is nowhere
    score = phrase
    for word in parsed.words:
        best = max((_weight(word, text, named) for named, text in texts), default=0.0)
        if best == 0.0 and not phrase:
            return None
        score += best
    return score


def rank(query: str, hits: list[T], fields: Callable[[T], JSONDict]) -> list[T]:
    """``hits`` best match first (``fields`` gives each one's entity); equal matches keep their order.

    A hit the query's words do not find (a filter expression selected it) ranks last.
    """
    parsed = Query.parse(query)
    scores = [relevance(parsed, fields(hit)) for hit in hits]
    order = sorted(range(len(hits)), key=lambda i: -(scores[i] or 0.0))
    return [hits[i] for i in order]


def _weight(word: str, text: str, named: bool) -> float:
    if word not in text:
        return 0.0
    whole = word in _WORD.findall(text)
    if named:
        return _NAME_WORD if whole else _NAME_PART
    return _TEXT_WORD if whole else _TEXT_PART


def _texts(value: Any, field: str = "") -> Iterator[tuple[bool, str]]:
    """Every text of ``value`` (nested objects and lists included), flagged when a name field holds it."""
    if isinstance(value, dict):
        for name, sub in value.items():
            yield from _texts(sub, str(name))
    elif isinstance(value, list):
        for sub in value:
            yield from _texts(sub, field)
    elif isinstance(value, str):
        yield _is_name(field), value.casefold()


def _is_name(field: str) -> bool:
    lowered = field.casefold()
    return lowered in NAME_FIELDS or lowered.endswith(("_name", "_title"))


def _qualifies(item: JSONDict, name: str, value: str) -> bool:
    """``is:open`` is the item's state; ``field:value`` its field. A field it lacks does not rule it out."""
    have = item.get("state", item.get("status")) if name == "is" else item.get(name)
    if have is None:
        return True
    text = str(have).casefold()
    return text == value or text in value or value in text


__all__ = ["NAME_FIELDS", "Query", "rank", "relevance"]
