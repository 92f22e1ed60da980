"""Seed entities a listing showed after the session had changed things, when no change named them.

Before an episode's first change every listed entity is seed state. After it, a listing mixes what the session
made or changed with what the server held from the start (a search after three ``add_entry`` calls shows the
three new entries beside entry 1, which nothing in the session touched). An entity whose key no change named
(in its arguments or its answer) is one the server held before: it is seeded too, so a session from the same
start finds it. An entity without a key is left out (nothing tells whether the session made it).
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_state import key_of
from ..world.catalog import Catalog
from ..world.roles import normalise_path
from .learn_scoped import seed_key

JSONDict = dict[str, Any]


def _key(catalog: Catalog, collection: str, item: JSONDict) -> str | None:
    path = item.get("path")
    if isinstance(path, str) and item.get("type") in ("file", "directory"):
        return path
    return key_of(item) or seed_key(catalog, collection, item)


def untouched_listed(found: list[tuple[str, list[JSONDict]]], catalog: Catalog,
                     touched: set[str]) -> list[tuple[str, list[JSONDict]]]:
    """The listed items of ``found`` that show a key no change so far named (``touched``)."""
    kept: list[tuple[str, list[JSONDict]]] = []
    for collection, items in found:
        own = []
        for item in items:
            key = _key(catalog, collection, item) if isinstance(item, dict) else None
            if key is None or {key, normalise_path("/" + key.lstrip("/"))} & touched:
                continue
            own.append(item)
        if own:
            kept.append((collection, own))
    return kept


__all__ = ["untouched_listed"]
