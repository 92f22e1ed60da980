"""One shape per entity across the tools that show it (``learn``).

Each tool's output shape is built from that tool's own answers only, so a field is typed by what those few
answers happened to show: ``priority`` a string where the reads showed prioritised tasks, ``null`` where the
creates showed none, ``parent_id`` null in every read while a split's children showed it as a number. The
entity is the same whichever tool shows it, and a later call may show it in a state another tool's answers
showed. So every object of the learned shapes with the same fields (three at least: an entity, not a pair of
flags) gets, per field, the union of the types the tools showed, and a later read of a stored ``null`` or a
number keeps it instead of inventing a value of the one type that tool happened to see.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..world.catalog import Catalog
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: ``_meta`` key of a learned output shape (``learn.py`` / ``enrich``).
SHAPE_META = "agentworld/output_shape"
#: Objects with fewer fields are no entity (``{"ok": true, "count": 2}``).
_MIN_FIELDS = 3


def _objects(schema: Any) -> Iterator[JSONDict]:
    """Every object schema with properties inside ``schema`` (nested objects and list items too)."""
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        yield schema
        for sub in properties.values():
            yield from _objects(sub)
    if isinstance(schema.get("items"), dict):
        yield from _objects(schema["items"])


def _types(schema: Any) -> list[str] | None:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        return list(kind)
    return None


def unify_entity_shapes(data: JSONDict, catalog: Catalog) -> int:
    """Give every same-fielded object of the tools' shapes the union of its fields' types; fields widened.
    A create's own shape stays: what it shows is the entity as made (``completed_at: null``), not any state."""
    groups: dict[frozenset[str], list[tuple[JSONDict, bool]]] = {}
    for tool in data.get("tools") or ():
        shape = (tool.get("_meta") or {}).get(SHAPE_META)
        spec = catalog.get(str(tool.get("name")))
        for obj in _objects(shape):
            names = frozenset(obj["properties"])
            if len(names) >= _MIN_FIELDS:
                groups.setdefault(names, []).append((obj, spec is not None and spec.role.kind == "create"))
    widened = 0
    for members in groups.values():
        if len(members) < 2:
            continue
        objects = [o for o, _ in members]
        for name in objects[0]["properties"]:
            kinds = [_types(o["properties"][name]) for o in objects]
            if any(k is None for k in kinds):
                continue  # an object or a list field: its own shape
            union = sorted({k for ks in kinds if ks for k in ks})
            if union == ["integer", "number"]:
                union = ["number"]
            for obj in (o for o, creates in members if not creates):
                prop = obj["properties"][name]
                if sorted(_types(prop) or []) != union and not ({"object", "array"} & set(union)):
                    prop["type"] = union[0] if len(union) == 1 else union
                    widened += 1
    return widened


def add_entity_shape_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """The learner's entry point (same signature as the others); the number of fields widened."""
    del episodes  # the shapes already say everything this needs
    return unify_entity_shapes(data, catalog)


__all__ = ["add_entity_shape_meta", "unify_entity_shapes"]
