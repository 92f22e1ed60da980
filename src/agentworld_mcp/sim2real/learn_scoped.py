"""Seed entities as the tools address them, from what listings show (used by learn.py's ``observed_seed``).

- A listing scoped by a parent (``list_events(calendar=Work)``) shows items that do not repeat the
  parent: each item learns the call's scoping value, so a later ``list_events(calendar=Work)``,
  update or delete in that scope finds it.
- A listing of names (``{"calendars": ["Personal", "Work"]}``) shows entities keyed by name: each
  name becomes one entity ``{name: ...}`` of the collection (its key when the tools address it by name).
- Items are keyed by the collection's own key field (``uid``), so the occurrences a listing expands
  from one series are one seed entity (its first occurrence), not several.
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.intervals import PAIRS
from ..world.catalog import Catalog, ToolSpec

JSONDict = dict[str, Any]
_BOUNDS = frozenset(name for pair in PAIRS for name in pair)
#: Key fields that name an entity by a caller-chosen name (a listing of names lists those entities).
_NAME_KEYS = frozenset({"name", "title", "slug", "key", "label", "path"})


def seed_key(catalog: Catalog, collection: str, item: JSONDict) -> str | None:
    """The item's value of its collection's key field (``uid``), if it shows one."""
    known = catalog.model.entity(collection)
    value = item.get(known.key_field) if known is not None else None
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def with_scope(turn_arguments: JSONDict, spec: ToolSpec, catalog: Catalog, collection: str,
               items: list[JSONDict]) -> list[JSONDict]:
    """``items`` with the listing call's scoping values they lack (an argument naming one of the entity's fields)."""
    known = catalog.model.entity(collection)
    if known is None or spec.role.kind not in ("list", "search"):
        return items
    scope = {name: value for name, value in (turn_arguments or {}).items()
             if isinstance(value, str) and value and name in known.fields and name not in _BOUNDS
             and name != spec.role.query_arg and name != known.key_field}
    if not scope:
        return items
    return [{**item, **{k: v for k, v in scope.items() if k not in item}} for item in items]


def named_entities(data: Any, spec: ToolSpec, catalog: Catalog) -> list[tuple[str, list[JSONDict]]]:
    """A listing's names as entities keyed by name: ``["Personal", "Work"]`` -> ``[{name: Personal}, ...]``."""
    collection = spec.role.collection
    known = catalog.model.entity(collection) if collection else None
    field = known.key_field if known is not None and known.key_field in _NAME_KEYS else next(
        (f for f in ("name", "title") if known is not None and f in known.fields), None)
    if known is None or spec.role.kind != "list" or field is None:
        return []
    lists = [data] if isinstance(data, list) else [v for v in data.values() if isinstance(v, list)] \
        if isinstance(data, dict) else []
    names = [n for values in lists[:1] if len(lists) == 1 for n in values]
    if not names or not all(isinstance(n, str) and n for n in names):
        return []
    return [(collection, [{field: n} for n in names])]
