"""Learn the state a new entity starts in from what later answers showed of the entities a session
created (served by ``models/deterministic/learned_created.py``, whose doc shows the rule).

A create's answer often shows only its key (``{"ok": true, "uid": ...}``); a later listing shows the
whole entity (``all_day: false, done: false, done_at: null``). For each create tool, the entities
its answers keyed are followed into every later successful answer that shows an object with that
key (for tags, only until a call that may change the entity names it); a field no create argument
named, with one value on every such entity (two at least), is its starting value. A boolean that was true exactly where an argument was a date, not a date-time
(``all_day`` for ``start: 2026-12-12``), is written as that argument's form; one shown only on the
entities made with some argument (``recurring: true`` with an ``rrule``) as ``only_with`` it; a list of words
that was, on every entity, the ``#tags`` written in a text argument after the list argument of its name
(``tags: [planning]`` for ``text: "Hiring plan #planning"``) as ``tags_of`` that argument.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..models.deterministic.learned_created import CREATED_META, merged_tags
from ..models.deterministic.learned_instants import parsed
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
_MISSING = object()
#: An id-named answer field (``uid``, ``id``, ``booking_id``, ``eventId``).
_ID = re.compile(r"u?id|[A-Za-z]+(?:_id|Id)")


def _objects(value: Any, depth: int = 0) -> list[JSONDict]:
    """Every object inside an answer (a listing's items, an envelope's payload)."""
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in _objects(v, depth + 1))]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v, depth + 1)]
    return []


def _key_text(value: Any) -> str | None:
    """A key as text: ``4`` and ``"4"`` are one entry's key (a create may answer the number a read shows as text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else None


def _shown(turns: list[RecordedTurn], key_field: str) -> dict[str, list[JSONDict]]:
    """Per key value, every object of a successful answer showing it under ``key_field`` (or, in an object
    without that field, under its own ``id``: ``entry_id: 4`` answered, ``{"id": "4", ...}`` read back)."""
    out: dict[str, list[JSONDict]] = {}
    for turn in turns:
        if failed(turn.result):
            continue
        for obj in _objects(answer_data(turn.result)):
            value = _key_text(obj[key_field] if key_field in obj else obj.get("id"))
            if value is not None and len(obj) > 2:
                out.setdefault(value, []).append(obj)
    return out


def _first(objects: list[JSONDict]) -> JSONDict:
    """Each field as the first of ``objects`` that shows it."""
    shown: JSONDict = {}
    for obj in objects:
        for name, value in obj.items():
            shown.setdefault(name, value)
    return shown


def _changes(catalog: Catalog, turn: RecordedTurn, key: str) -> bool:
    """Whether ``turn`` is a call that may change the entity keyed ``key`` (it names the key and reads nothing)."""
    spec = catalog.get(turn.tool)
    if spec is None or spec.role.kind in ("read", "list", "search") or failed(turn.result):
        return False
    return any(_key_text(v) == key for v in turn.arguments.values())


def _is_date(value: Any) -> bool:
    found = parsed(value)
    return isinstance(found, dt.date) and not isinstance(found, dt.datetime)


def _tags_of(made: list[tuple[JSONDict, JSONDict]], field: str) -> JSONDict | None:
    """The text argument whose ``#tags`` (after the list argument of the field's name, where given) every created
    entity showed as ``field``, then the words the server added to every one (``plus``); one entity at least must
    owe it a tag the list argument did not give."""
    values = [shown.get(field, _MISSING) for _, shown in made]
    if not values or any(not isinstance(v, list) or not all(isinstance(t, str) for t in v) for v in values):
        return None
    texts = sorted({a for args, _ in made for a, v in args.items() if isinstance(v, str) and "#" in v})
    for argument in texts:
        merged = [merged_tags(args.get(field), args.get(argument)) for args, _ in made]
        plus = [v[len(m):] for m, v in zip(merged, values)]  # a word the server adds to every one (``todo``)
        if all(v[:len(m)] == m for m, v in zip(merged, values)) and all(p == plus[0] for p in plus) and any(
                set(m) - set(args.get(field) or []) for m, (args, _) in zip(merged, made)):
            return {"tags_of": argument, **({"plus": plus[0]} if plus[0] else {})}
    return None


def _starting(made: list[tuple[JSONDict, JSONDict]], names: set[str],
              untouched: list[tuple[JSONDict, JSONDict]] | None = None) -> JSONDict:
    """The fields every created entity showed with one value (or as an argument's date form); a text's tags as
    the entities showed them before any change named them (``untouched``)."""
    out: JSONDict = {}
    for field in sorted({f for _, shown in untouched or () for f in shown}):
        if (rule := _tags_of(untouched or [], field)) is not None:
            out[field] = rule
    fields = sorted({f for _, shown in made for f in shown} - names - set(out))
    for field in fields:
        values = [shown.get(field, _MISSING) for _, shown in made]
        if len(values) < 2:
            continue
        if any(v is _MISSING for v in values):  # ``recurring: true`` shown only for those made with an ``rrule``
            present = [v for v in values if v is not _MISSING]
            if isinstance(present[0], bool) and all(v is present[0] for v in present):
                needed = [a for a in sorted({a for args, _ in made for a in args})
                          if all((args.get(a) not in (None, "")) == (v is not _MISSING) for (args, _), v in zip(made, values))]
                if len(needed) == 1:
                    out[field] = {"value": present[0], "only_with": needed[0]}
            continue
        if all(v == values[0] and type(v) is type(values[0]) for v in values) and (
                values[0] is None or isinstance(values[0], (bool, int, float)) or isinstance(values[0], str)
                and len(values[0]) <= 40 and (parsed(values[0]) is None or _is_date(values[0]))):
            # a day every new entity showed is the day the server made them (an instant is the clock's: learn_clock)
            out[field] = {"value": values[0]}
            continue
        if all(isinstance(v, bool) for v in values) and len(set(values)) == 2:
            for argument in sorted({a for args, _ in made for a in args}):
                if all(v == _is_date(args.get(argument)) for (args, _), v in zip(made, values)):
                    out[field] = {"date_of": argument}
                    break
    return out


def learn_created(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per create tool, the starting value of each field its entities showed later (see the module doc)."""
    out: dict[str, JSONDict] = {}
    for turns in [list(ts) for ts in episodes.values()]:
        for index, turn in enumerate(turns):
            spec = catalog.get(turn.tool)
            if spec is None or spec.role.kind != "create" or failed(turn.result):
                continue
            data = answer_data(turn.result)
            if not isinstance(data, dict):
                continue
            # the entity's key as its answer names it: the role's key field, else its one id-named field
            named = [k for k in data if k == spec.role.key_field] or [k for k in data if _ID.fullmatch(k)]
            key_field = named[0] if len(named) == 1 else ""
            key = _key_text(data.get(key_field))
            if key is None:
                continue
            after = turns[index + 1:]
            changed = next((n for n, t in enumerate(after) if _changes(catalog, t, key)), len(after))
            later = _shown(after, key_field).get(key) or []
            if later:  # each field as the entity first showed it (a change's short answer shows only a few)
                out.setdefault(turn.tool, {}).setdefault("made", []).append((turn.arguments, _first(later)))
            untouched = _shown(after[:changed], key_field).get(key) or []  # before a change named it
            if untouched:
                out[turn.tool].setdefault("untouched", []).append((turn.arguments, _first(untouched)))
    learned: dict[str, JSONDict] = {}
    for tool, found in out.items():
        spec = catalog.get(tool)
        props = (spec.definition.get("inputSchema") or {}).get("properties") or {} if spec is not None else {}
        starting = _starting(found["made"], set(props) | {spec.role.key_field if spec is not None else ""}
                             | {k for _, shown in found["made"] for k in shown if _ID.fullmatch(k)},
                             found.get("untouched"))
        if starting:
            learned[tool] = starting
    return learned


def add_created_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each create tool's starting fields under its ``_meta``; the number of tools written."""
    return write_meta(data, CREATED_META, learn_created(episodes, catalog))


__all__ = ["add_created_meta", "learn_created"]
