"""A state history served from the episode's own transitions (``sim2real/learn_history.py`` learns it).

A server that keeps an entity's lifecycle often keeps its history too: every create and every move
appends a row (``{"id": 5, "item_id": 3, "old_status": "backlog", "new_status": "done", "change_type":
"close", "changed_at": ...}``), and a tool lists an entity's rows. The rows are determined by the
episode: which calls created the entity and moved it, and what their answers said. A tool's
``_meta["agentworld/history"]``::

    {"key_arg": "item_id", "rows": "history", "count": "count",
     "events": {"new_item": {"word": "status_name"},                       # a create: the state it starts in
                "advance_status": {"key": "item_id", "previous": "previous_status", "new": "new_status"}},
     "fields": {"id": "sequence", "item_id": "key", "old_status": "old", "new_status": "new",
                "change_type": {"new_item": "create", "advance_status": "advance"}, "changed_at": "instant"}}

A field is ``sequence`` (the event's number among all the episode's events, 1-based), ``key`` (the
entity's key), ``old``/``new`` (the states), ``instant`` (when, on the model's clock) or a table from the
event's tool to a value (a tool the recording never showed gives its first word: ``revert_status`` ->
``revert``). :func:`events` reads the events from a list of calls, the same way for the recording
and for the episode being served.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .learned_state import answer_data, failed, key_of, keyed_objects

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
Call = tuple[str, JSONDict, JSONDict]  # tool, arguments, CallToolResult JSON
#: ``_meta`` key of a tool definition whose answers list an entity's state history.
HISTORY_META = "agentworld/history"


@dataclass(frozen=True)
class Event:
    """One create or move of an entity: the ``number``-th event of the episode, at call ``turn``."""

    number: int
    turn: int
    tool: str
    key: str
    old: str | None
    new: str


def at_path(data: Any, path: str) -> Any:
    for name in path.split("."):
        data = data.get(name) if isinstance(data, dict) else None
    return data


def events(calls: Iterable[Call], kinds: JSONDict) -> list[Event]:
    """The creates and moves ``calls`` made, by the event tools of ``kinds`` (the meta's ``events``)."""
    out: list[Event] = []
    for turn, (tool, arguments, result) in enumerate(calls, 1):
        kind = kinds.get(tool)
        if not isinstance(kind, dict) or failed(result):
            continue
        data = answer_data(result)
        word = kind.get("word")
        if isinstance(word, str):  # a create: the entity it shows, in the state it starts in
            made = next((o for o in keyed_objects(data) if isinstance(o.get(word), str)), None)
            if made is not None:
                out.append(Event(len(out) + 1, turn, tool, str(key_of(made)), None, made[word]))
            continue
        key = arguments.get(str(kind.get("key")))
        old, new = at_path(data, str(kind.get("previous"))), at_path(data, str(kind.get("new")))
        if isinstance(key, (str, int)) and not isinstance(key, bool) and isinstance(new, str):
            out.append(Event(len(out) + 1, turn, tool, str(key), old if isinstance(old, str) else None, new))
    return out


def row_of(event: Event, fields: JSONDict, instant: str) -> JSONDict:
    """The history row ``fields`` describe for ``event``."""
    row: JSONDict = {}
    for name, source in fields.items():
        if source == "sequence":
            row[name] = event.number
        elif source == "key":
            row[name] = int(event.key) if event.key.isdigit() else event.key
        elif source == "old":
            row[name] = event.old
        elif source == "new":
            row[name] = event.new
        elif source == "instant":
            row[name] = instant
        elif isinstance(source, dict):
            row[name] = source.get(event.tool, event.tool.replace("-", "_").split("_")[0])
    return row


def with_history(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with the rows of the entity its key argument names (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(HISTORY_META)
    if not isinstance(meta, dict) or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    key = step.arguments.get(str(meta.get("key_arg")))
    kinds, fields, rows_at = meta.get("events"), meta.get("fields"), meta.get("rows")
    if key is None or not isinstance(kinds, dict) or not isinstance(fields, dict) or not isinstance(rows_at, str):
        return answer
    from .common import now_iso

    calls = [(t.tool, t.arguments, t.result) for t in step.episode.turns]
    found = [e for e in events(calls, kinds) if e.key == str(key)]
    if meta.get("newest_first"):
        found.reverse()
    rows = [row_of(e, fields, now_iso(e.turn)) for e in found]
    observation = copy.deepcopy(answer.observation)
    *parents, leaf = rows_at.split(".")
    holder = at_path(observation, ".".join(parents)) if parents else observation
    if not isinstance(holder, dict):
        return answer
    holder[leaf] = rows
    count = meta.get("count")
    if isinstance(count, str) and isinstance(holder.get(count), int):
        holder[count] = len(rows)
    return dataclasses.replace(answer, observation=observation, text=None)


__all__ = ["Event", "HISTORY_META", "at_path", "events", "row_of", "with_history"]
