"""The collection a tool's entity lives in, read from the key it is addressed by.

A catalog names tools after what the user sees (``create_todo``, ``mark_todo_done``), but the server may keep
those things in a collection other tools name (a todo is an entry: ``create_todo`` answers ``entry_id: 6``, and
``get_entry`` / ``search_entries`` then show entry 6). The name-based role puts them in a collection of their own,
so what one tool made another never finds. Where a tool's key (the ``<noun>_id`` its answers show or its
arguments pass) names the noun of another collection, and the recording shows the ids passing between the two
(an id the tool made or was given appears in a call of that collection's tools), the tool's role is moved there:
``_meta.agentworld/role`` gets that ``collection`` (and the key argument, for a tool that addresses one). Only a
create whose made id is named so moves its collection; the other tools of that collection follow it. A tool that
merely passes another collection's id (a booking paid with a card) refers to that thing and stays where it is.
A listing of the moved create's collection (``list_todos``) follows it and lists only what those creates made
(``models/deterministic/made_by.py``).
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_state import LEARNED_META, answer_data, failed
from ..world.catalog import Catalog
from ..world.roles import ROLE_META, id_stem, singular
from .score import RecordedTurn

JSONDict = dict[str, Any]


def _leaves(value: Any) -> set[str]:
    """Every scalar id-like value (string or integer) at any depth."""
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_leaves(v) for v in value)) if value else set()
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return {str(value)}
    return set()


def _key_values(turn: RecordedTurn, key: str) -> set[str]:
    """The values of ``key`` in the call's arguments and at the top of its answer."""
    out = {str(v) for k, v in turn.arguments.items() if k == key and isinstance(v, (str, int))
           and not isinstance(v, bool)}
    data = answer_data(turn.result)
    if isinstance(data, dict) and isinstance(v := data.get(key), (str, int)) and not isinstance(v, bool):
        out.add(str(v))
    return out


def _answered_key(tool: str, turns: list[RecordedTurn]) -> str | None:
    """The one ``<noun>_id`` field at the top of every answer of a create (the id it made)."""
    keys: set[str] | None = None
    for turn in (t for t in turns if t.tool == tool):
        data = answer_data(turn.result)
        found = {k for k, v in data.items() if id_stem(k) and isinstance(v, (str, int))} if isinstance(data, dict) \
            else set()
        keys = found if keys is None else keys & found
    return next(iter(keys)) if keys is not None and len(keys) == 1 else None


def add_key_collection_meta(data: JSONDict, compiled: Catalog, episodes: dict[str, list[RecordedTurn]]) -> None:
    """Move each tool whose key names another collection's noun there (see the module doc), in place."""
    by_noun = {singular(s.role.collection): s.role.collection for s in compiled
               if s.role.collection and s.role.style == "record"}
    turns = [t for ts in episodes.values() for t in ts if not failed(t.result)]
    moved: set[str] = set()
    sources: dict[str, str] = {}  # a collection whose create was moved -> where its things really are
    tools = sorted(data.get("tools") or [], key=lambda t: (o := compiled.get(str(t.get("name")))) is None
                   or o.role.kind != "create")  # creates first: the others follow only where their create went
    for tool in tools:
        spec = compiled.get(str(tool.get("name")))
        if spec is None or spec.role.style != "record" or not spec.role.collection:
            continue
        if spec.role.kind != "create" and spec.role.collection not in sources:
            continue  # a tool passing another collection's id (a booking's card) refers to it; it is not of it
        meta = dict(tool.get("_meta") or {})
        role = dict(meta.get(ROLE_META) or {})
        props = spec.input_schema.get("properties") or {}
        key = (role.get("key_field") or _answered_key(spec.name, turns)) if spec.role.kind == "create" else next(
            (a for a in props if id_stem(a) and not spec.role.key_args), None)
        if not isinstance(key, str) or (stem := id_stem(key)) is None:
            continue
        target = by_noun.get(stem)
        if target is None or target == spec.role.collection or sources.get(spec.role.collection, target) != target:
            continue
        own = {v for t in turns if t.tool == spec.name for v in _key_values(t, key)}
        others = {v for t in turns if t.tool != spec.name and (o := compiled.get(t.tool)) is not None
                  and o.role.collection == target for v in _leaves(t.arguments) | _leaves(answer_data(t.result))}
        if not own & others:
            continue  # nothing in the recording shows the two address the same things
        role["collection"] = target
        if spec.role.kind != "create":
            role["key_args"] = [key]
        else:  # the id it made is the entity's key there
            role["key_field"] = key
            sources[spec.role.collection] = target
        meta[ROLE_META] = role
        tool["_meta"] = meta
        moved.add(target)
    for tool in tools:  # a listing of a moved create's things lists what those creates made there
        spec = compiled.get(str(tool.get("name")))
        if spec is None or spec.role.kind not in ("list", "search") or spec.role.collection not in sources:
            continue
        made_by = sorted(str(t.get("name")) for t in tools if (o := compiled.get(str(t.get("name")))) is not None
                         and o.role.kind == "create" and o.role.collection == spec.role.collection)
        meta = dict(tool.get("_meta") or {})
        role = dict(meta.get(ROLE_META) or {})
        role["collection"] = sources[spec.role.collection]
        role["extra"] = {**(role.get("extra") or {}), "made_by": made_by}
        meta[ROLE_META] = role
        tool["_meta"] = meta
    for target in moved:
        _shared_counters(data, compiled, turns, target)


def _role_of(tool: JSONDict, compiled: Catalog) -> tuple[str, str, str | None]:
    """A tool's kind, collection and key field, its learned role over the catalog's."""
    spec = compiled[str(tool.get("name"))]
    role = (tool.get("_meta") or {}).get(ROLE_META) or {}
    return (str(role.get("kind") or spec.role.kind), str(role.get("collection") or spec.role.collection),
            role.get("key_field") or spec.role.key_field)


def _shared_counters(data: JSONDict, compiled: Catalog, turns: list[RecordedTurn], target: str) -> None:
    """The learned id counters of the creates of one collection, counted over all of them in the recording's
    order: one sequence numbers what any of them makes (each alone would skip the others' ids)."""
    creates = {str(t["name"]): t for t in data.get("tools") or [] if compiled.get(str(t.get("name"))) is not None
               and _role_of(t, compiled)[:2] == ("create", target)}
    if len(creates) < 2:
        return
    offsets: dict[tuple[str, str], int] = {}
    made = 0
    for turn in (t for t in turns if t.tool in creates):
        made += 1
        counters = ((creates[turn.tool].get("_meta") or {}).get(LEARNED_META) or {}).get("counters") or {}
        data_ = answer_data(turn.result)
        for name in counters:
            value = data_.get(name) if isinstance(data_, dict) else None
            if isinstance(value, int) and not isinstance(value, bool):
                offsets[(turn.tool, name)] = min(offsets.get((turn.tool, name), value - made), value - made)
    for (tool, name), offset in offsets.items():
        creates[tool]["_meta"][LEARNED_META]["counters"][name] = offset
