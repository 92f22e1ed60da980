"""Counts per state learned from a recording (``learn``): which answers count the entities by their fields.

Walking each episode, the entities its answers showed are kept per collection (their latest fields; a
delete takes one out, a learned lifecycle move changes its state word and id). An answer's object whose
values are all counts (``{"backlog": 2, "closed": 1}``), or objects of counts one level down (``{"feature":
{"backlog": 2}, "issue": {"closed": 1}}``), is a count *by fields* when grouping the collection's entities
of that moment by one field (or two, nested) gives exactly that object, over two entities at least. The
tool then answers those counts from the episode's own entities (``models/deterministic/learned_counts.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from typing import Any

from ..models.deterministic.learned_counts import COUNTS_META, grouped
from ..models.deterministic.learned_history import at_path
from ..models.deterministic.learned_state import answer_data, failed, key_of, keyed_objects
from ..world.catalog import Catalog
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]


def _counts(value: Any, depth: int) -> bool:
    if not isinstance(value, dict) or not value:
        return False
    if depth == 1:
        return all(isinstance(v, int) and not isinstance(v, bool) for v in value.values())
    return all(_counts(v, depth - 1) for v in value.values())


def _candidates(data: Any, path: str = "") -> Iterator[tuple[str, JSONDict, int]]:
    """Objects of counts in an answer (outside lists): ``(dotted path, object, levels)``."""
    if not isinstance(data, dict):
        return
    for name, sub in data.items():
        here = f"{path}.{name}" if path else str(name)
        depth = next((d for d in (1, 2) if _counts(sub, d)), None)
        if depth is not None:
            yield here, sub, depth
        elif isinstance(sub, dict):
            yield from _candidates(sub, here)


def _total(value: Any) -> int:
    return sum(_total(v) for v in value.values()) if isinstance(value, dict) else int(value)


def learn_counts(episodes: dict[str, list[RecordedTurn]], catalog: Catalog,
                 lifecycles: dict[str, JSONDict]) -> dict[str, list[JSONDict]]:
    """Per tool, where its answers count entities and by which fields (see the module doc)."""
    found: dict[str, list[JSONDict]] = {}
    for turns in episodes.values():
        tracked: dict[str, dict[str, JSONDict]] = {}
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None or failed(turn.result):
                continue
            data = answer_data(turn.result)
            for path, counts, depth in _candidates(data):
                if _total(counts) < 2 or any(m["path"] == path for m in found.get(turn.tool, ())):
                    continue
                for collection, entities in tracked.items():
                    names = sorted({n for e in entities.values() for n, v in e.items() if isinstance(v, str)})
                    by = next((list(p) for p in permutations(names, depth)
                               if grouped(entities.values(), list(p)) == counts), None)
                    if by is not None:
                        found.setdefault(turn.tool, []).append(
                            {"path": path, "collection": collection, "by": by, "sorted": list(counts) == sorted(counts)})
                        break
            role = spec.role
            key = next((turn.arguments[a] for a in role.key_args if a in turn.arguments), None)
            if role.kind == "delete" and key is not None and role.collection:
                tracked.get(role.collection, {}).pop(str(key), None)
                continue
            move = lifecycles.get(turn.tool) or {}
            if isinstance(move.get("word"), str) and key is not None:
                entity = tracked.get(str(move.get("collection")), {}).get(str(key))
                new = at_path(data, str(move.get("new")))
                if entity is not None and isinstance(new, str):
                    entity[move["word"]] = new
                    ids = move.get("ids") or {}
                    if isinstance(move.get("id"), str) and new in ids:
                        entity[move["id"]] = ids[new]
            if role.collection and role.kind in ("create", "read", "update", "list", "search"):
                for obj in keyed_objects(data):
                    scalars = {k: v for k, v in obj.items() if not isinstance(v, (dict, list))}
                    tracked.setdefault(role.collection, {}).setdefault(str(key_of(obj)), {}).update(scalars)
    return found


def add_counts_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]],
                    lifecycles: dict[str, JSONDict]) -> int:
    """Write each counting tool's meta under its ``_meta``; how many tools got one."""
    learned = learn_counts(episodes, catalog, lifecycles)
    write_meta(data, COUNTS_META, learned)
    return len(learned)


__all__ = ["add_counts_meta", "learn_counts"]
