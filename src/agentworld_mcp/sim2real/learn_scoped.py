"""Seed entities as the tools address them, from what listings show (used by learn.py's ``observed_seed``).

- A listing scoped by a parent (``list_events(calendar=Work)``) shows items that do not repeat the
  parent: each item learns the call's scoping value, so a later ``list_events(calendar=Work)``,
  update or delete in that scope finds it.
- A listing of names (``{"calendars": ["Personal", "Work"]}``) shows entities keyed by name: each
  name becomes one entity ``{name: ...}`` of the collection (its key when the tools address it by name).
- Items are keyed by the collection's own key field (``uid``), so the occurrences a listing expands
  from one series are one seed entity (its first occurrence), not several.
- The scoping values a listing showed wholly (``calendar: Work``) are written per tool
  (``_meta.agentworld/listed_scopes``): an entity a later call names in a scope never listed is
  presumed to exist (``models/deterministic/presumed.py``).
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.intervals import PAIRS
from ..models.deterministic.learned_state import failed
from ..models.deterministic.presumed import LISTED_SCOPES_META
from ..world.catalog import Catalog, ToolSpec
from .learn_meta import write_meta
from .score import RecordedTurn

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


def listed_scopes(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool taking a scoping argument, the values of it whose contents a successful listing showed
    (``{"calendar": ["Work"]}``): what the world knows wholly; the rest is presumed (presumed.py)."""
    seen: dict[str, set[str]] = {}
    for turns in episodes.values():
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None or failed(turn.result) or not spec.role.collection:
                continue
            probe = with_scope(turn.arguments, spec, catalog, spec.role.collection, [{}])
            for name, value in (probe[0] if probe else {}).items():
                seen.setdefault(name, set()).add(value)
    out: dict[str, JSONDict] = {}
    for spec in catalog:
        props = (spec.definition.get("inputSchema") or {}).get("properties") or {}
        found = {name: sorted(values) for name, values in seen.items() if name in props}
        if found:
            out[spec.name] = found
    return out


def add_scope_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's listed scopes under its ``_meta``; the number of tools written."""
    return write_meta(data, LISTED_SCOPES_META, listed_scopes(episodes, catalog))
