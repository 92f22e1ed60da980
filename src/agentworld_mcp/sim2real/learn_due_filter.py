"""Listings of what is past its date, learned from a recording (``learn``).

A listing whose name or description says it lists what is overdue, past due or expired
(``overdue_tasks``: "List overdue (pending, past-due) tasks") shows the entities whose date field lies
before the server's clock and that are not finished. Learned per such tool:

* ``field``: the items' date field, named as a due date, deadline or expiry, and holding dates in the
  recorded answers of the same collection;
* ``finished``: the status values the recording showed on entities a completion stamp marked
  (``completed_at`` set: ``done``), and those stamp fields themselves (``stamps``);
* ``now``: the latest instant the recording's answers showed: the server's clock, the moment the
  dates are compared with.

Written as ``_meta["agentworld/due_filter"]``; served by ``models/deterministic/learned_due_filter.py``.
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.learned_clock import INSTANT
from ..models.deterministic.learned_due_filter import DUE_FILTER_META
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from ..world.values import leaves
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: A tool listing what is past its date says so in its name or description.
_PAST_DUE = re.compile(r"(?i)over[\s_-]?due|past[\s_-]?due|expired")
#: A field holding the date an entity is due by.
_DUE_FIELD = re.compile(r"(?i)due|deadline|expir")
#: A field stamping when an entity was finished.
_STAMP_FIELD = re.compile(r"(?i)(completed|done|closed|resolved|finished)_?at$")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _objects(value: Any) -> list[JSONDict]:
    """Every object inside ``value``, outermost first."""
    if isinstance(value, dict):
        return [value] + [o for v in value.values() for o in _objects(v)]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v)]
    return []


def _learned(objects: list[JSONDict]) -> JSONDict | None:
    fields = {f for o in objects for f in o if _DUE_FIELD.search(f) and not _STAMP_FIELD.search(f)}
    dated = sorted(f for f in fields if any(isinstance(o.get(f), str) for o in objects) and all(
        o.get(f) is None or (isinstance(o.get(f), str) and _DATE.match(o[f])) for o in objects if f in o))
    if len(dated) != 1:
        return None
    stamps = sorted({f for o in objects for f in o if _STAMP_FIELD.search(f)})
    finished = sorted({str(o["status"]) for o in objects if isinstance(o.get("status"), str)
                       and any(o.get(s) is not None for s in stamps)})
    return {"field": dated[0], "stamps": stamps, "finished": finished}


def learn_due_filters(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per past-due listing, its due filter meta (see the module doc)."""
    tools = [t for t in catalog if _PAST_DUE.search(t.name) or _PAST_DUE.search(t.description.split("\n")[0])]
    if not tools:
        return {}
    objects: dict[str, list[JSONDict]] = {}
    instants: list[str] = []
    for turns in episodes.values():
        for turn in turns:
            if failed(turn.result):
                continue
            data = answer_data(turn.result)
            instants += [v for v in leaves(data) if isinstance(v, str) and INSTANT.fullmatch(v)]
            spec = catalog.get(turn.tool)
            if spec is not None and spec.role.collection:
                objects.setdefault(spec.role.collection, []).extend(_objects(data))
    out: dict[str, JSONDict] = {}
    for tool in tools:
        collection = tool.role.collection
        if not collection or (meta := _learned(objects.get(collection) or [])) is None:
            continue
        out[tool.name] = {**meta, "collection": collection, **({"now": max(instants)} if instants else {})}
    return out


def add_due_filter_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each past-due listing's meta under its ``_meta``; the number of tools given one."""
    return write_meta(data, DUE_FILTER_META, learn_due_filters(episodes, catalog))


__all__ = ["add_due_filter_meta", "learn_due_filters"]
