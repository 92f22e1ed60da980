"""Where a search looks, learned from a recording (``learn``): names as well as texts.

A grep-like search (``models/deterministic/text_search.py``) looks in the texts the episode stores. Many
servers search the entity's title too: a recorded match whose shown text lacks the query while its
``title`` (or name, path) holds it was found by its name. Such a tool gets
``_meta["agentworld/search_places"] = ["filename", "content"]`` and looks at names and texts from then on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..models.deterministic.learned_state import answer_data, failed
from ..models.deterministic.text_search import SEARCH_PLACES_META, found_by_name
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]


def _items(value: Any) -> Iterator[JSONDict]:
    """Every object inside a list of an answer, at any depth."""
    if isinstance(value, dict):
        for sub in value.values():
            yield from _items(sub)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item
            yield from _items(item)


def learn_search_places(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, list[str]]:
    """Per search tool that the recording shows finding entities by name: where it looks (see the module doc)."""
    found: dict[str, list[str]] = {}
    for turns in episodes.values():
        for turn in turns:
            if turn.tool in found or catalog.get(turn.tool) is None or failed(turn.result):
                continue
            queries = [v for v in turn.arguments.values() if isinstance(v, str) and v.strip()]
            items = list(_items(answer_data(turn.result)))
            if any(found_by_name(q, item) for q in queries for item in items):
                found[turn.tool] = ["filename", "content"]
    return found


def add_search_place_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each such search tool's places under its ``_meta``; how many tools got them."""
    return write_meta(data, SEARCH_PLACES_META, learn_search_places(episodes, catalog))


__all__ = ["add_search_place_meta", "learn_search_places"]
