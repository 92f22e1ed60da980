"""A state history learned from a recording (``learn``): which tool lists the rows that creates and moves append.

With the lifecycles learned (``learn_lifecycle.py``: which tools move an entity, where their answers show
the previous and the new state), each episode's events are known: a create of the collection starts an
entity in a state, a move takes it from one to another. A list tool whose key argument names an entity
and whose rows pair one to one, in order (or newest first), with that entity's events so far is its
history; each field of the rows is explained by the events (``models/deterministic/learned_history.py``
lists the kinds): the states, the key, the event's number in the episode, the instant, or a word per
event tool (``change_type: close`` for the move ``close_item`` made). A field no explanation fits in
every row is left to the model. Nothing is named: the fields come from the values.
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_clock import INSTANT
from ..models.deterministic.learned_history import HISTORY_META, Event, events
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]


def event_kinds(lifecycles: dict[str, JSONDict], catalog: Catalog) -> dict[str, JSONDict]:
    """Per collection with a lifecycle, its event tools: the creates (with the word field) and the moves."""
    out: dict[str, JSONDict] = {}
    for tool, meta in lifecycles.items():
        collection, word = meta.get("collection"), meta.get("word")
        spec = catalog.get(tool)
        if not isinstance(collection, str) or not isinstance(word, str) or spec is None or not spec.role.key_args:
            continue
        kinds = out.setdefault(collection, {})
        kinds[tool] = {"key": spec.role.key_args[0], "previous": meta.get("previous"), "new": meta.get("new")}
        for other in catalog:
            if other.role.kind == "create" and other.role.collection == collection:
                kinds.setdefault(other.name, {"word": word})
    return out


def _rows(data: Any, path: str = "") -> tuple[str, list[JSONDict]] | None:
    """The first list of objects in an answer (outside lists), with its dotted path."""
    if isinstance(data, dict):
        for name, sub in data.items():
            here = f"{path}.{name}" if path else str(name)
            if isinstance(sub, list) and sub and all(isinstance(r, dict) for r in sub):
                return here, sub
            if isinstance(sub, dict) and (found := _rows(sub, here)) is not None:
                return found
    return None


def _source(name: str, rows: list[JSONDict], shown: list[Event], key: str) -> Any:
    """What explains field ``name`` of every row (see the module doc); None when nothing does."""
    values = [r.get(name) for r in rows]
    checks: list[tuple[str, list[Any]]] = [
        ("new", [e.new for e in shown]), ("old", [e.old for e in shown]), ("sequence", [e.number for e in shown])]
    for kind, wanted in checks:
        if values == wanted and any(v is not None for v in values):
            return kind
    if all(str(v) == key for v in values):
        return "key"
    if all(isinstance(v, str) and INSTANT.fullmatch(v) for v in values):
        return "instant"
    table: JSONDict = {}
    for value, event in zip(values, shown):
        if not isinstance(value, str) or table.setdefault(event.tool, value) != value:
            return None
    return table if len(set(table.values())) == len(table) else None


def _paired(rows: list[JSONDict], shown: list[Event], key: str) -> tuple[bool, JSONDict] | None:
    """Whether the rows are newest first, and what explains each field, when they pair with the events."""
    for newest_first, ordered in ((False, shown), (True, shown[::-1])):
        if ordered and len(ordered) == len(rows):
            fields = {n: s for n in rows[0] if (s := _source(n, rows, ordered, key)) is not None}
            if "new" in fields.values():
                return newest_first, fields
    return None


def learn_histories(episodes: dict[str, list[RecordedTurn]], catalog: Catalog,
                    lifecycles: dict[str, JSONDict]) -> dict[str, JSONDict]:
    """Per history tool, its ``agentworld/history`` meta (see the module doc)."""
    by_collection = event_kinds(lifecycles, catalog)
    found: dict[str, JSONDict] = {}
    for turns in episodes.values():
        for index, turn in enumerate(turns):
            spec = catalog.get(turn.tool)
            if spec is None or spec.role.kind in ("create", "delete") or failed(turn.result) \
                    or (lifecycles.get(turn.tool) or {}).get("word"):
                continue
            listed = _rows(answer_data(turn.result))
            if listed is None:
                continue
            path, rows = listed
            for collection, kinds in by_collection.items():
                calls = [(t.tool, t.arguments, t.result) for t in turns[:index]]
                for arg, key in turn.arguments.items():
                    paired = _paired(rows, [e for e in events(calls, kinds) if e.key == str(key)], str(key))
                    if paired is None:
                        continue
                    newest_first, fields = paired
                    meta: JSONDict = {"collection": collection, "key_arg": arg, "rows": path, "events": kinds,
                                      "fields": fields}
                    if newest_first:
                        meta["newest_first"] = True
                    data = answer_data(turn.result)
                    parent = data if "." not in path and isinstance(data, dict) else {}
                    count = next((n for n, v in parent.items() if isinstance(v, int) and not isinstance(v, bool)
                                  and v == len(rows)), None)
                    if count is not None:
                        meta["count"] = count
                    found.setdefault(turn.tool, meta)
    return found


def add_history_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]],
                     lifecycles: dict[str, JSONDict]) -> int:
    """Write each history tool's meta under its ``_meta``; how many tools got one."""
    learned = learn_histories(episodes, catalog, lifecycles)
    write_meta(data, HISTORY_META, learned)
    return len(learned)


__all__ = ["add_history_meta", "event_kinds", "learn_histories"]
