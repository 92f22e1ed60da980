"""Answers from the world's state for tools that return data but name no collection of their own.

Many catalogs are thin layers over one program's state rather than REST collections: a
trading or banking API (``get_part_info(sku)``, ``top_up_wallet(amount)``), a device
(``fillTank(waterAmount)``, ``get_wallet_summary()``), a session (``get_favourites()``).
Their tools are actions to the role inference, yet their real answers carry data. Before an
action is answered from its schema alone (:func:`.common.action_answer`), this module looks
for what the episode's state (the seed is its truth) already holds for it:

* **a record the arguments address**: a scalar argument whose value is the key of a record
  in some collection (``sku='A-7'`` and a ``parts`` record keyed ``A-7``), or equals
  that record's field of the argument's own name (``booking_id``); a collection the tool's
  name calls by its noun wins when several hold the value. A read-like tool answers with
  the record as stored (shaped by its outputSchema, placed in the answer's object field
  whose properties it shares); any other action uses its fields as determined values.
* **state the answer names**: an answer field (or, without outputSchema, the tool's noun)
  named like a collection (``favourites`` and a seeded ``favourite_list``: the collection's
  items, a one-field item as its value) or like a field of the standing state
  (``wallet_summary``), read as stored.
* **arithmetic the description states** (:mod:`.env_state_amounts`): a numeric argument (``waterAmount``, ``amount``)
  changes the standing state's numeric field it names (``waterLevel``; a bare ``amount`` the
  field the answer names, ``new_balance`` -> ``balance``), added by filling verbs (fill, add,
  fund, deposit, top up...) and taken away by spending verbs (withdraw, spend, use...); a
  capacity the description states (``can hold up to 40 liters``) caps it. The new value is
  stored (an update effect) and answered.
* **a two-valued state a boolean argument picks**: an answer field whose description lists
  ``[Enum]: ["locked", "unlocked"]`` (or ``one of``) and a boolean argument named after one
  of the values (``unlock: false``) is that value when true, the other when false.

Everything here is a pure function of the step; effects are returned, never applied.
"""

from __future__ import annotations

import copy
from typing import Any

from ...state.ledger import Effect, Entity
from ...world.conventions import described_enum
from ...world.roles import ToolRole, singular, words
from ..base import Prediction, Step
from .determined import name_key, standing
from .env_state_amounts import arithmetic, overdrawn
from .env_state_maps import map_change
from .env_state_verbs import state_switch

JSONDict = dict[str, Any]

#: Leading verbs of a tool that returns what it names (``get_part_info``, ``check_soil_moisture``).
READ_VERBS = frozenset({"get", "read", "fetch", "show", "view", "describe", "retrieve", "lookup", "load", "info",
                        "inspect", "display", "check", "query", "see", "find"})


def verb_of(step: Step) -> str:
    tokens = words(step.tool.name)
    return tokens[0] if tokens else ""


def reads(step: Step) -> bool:
    """Whether the tool's name or description starts with a verb that returns what it names."""
    tokens = words(step.tool.name)
    if any(t in READ_VERBS for t in tokens[:2]):
        return True
    first = words((step.tool.description or "").split("Tool description:")[-1].strip().split(" ")[0])
    return bool(first) and first[0] in READ_VERBS | {"gets", "returns", "retrieves", "displays", "shows", "lists"}


# -- a record the arguments address ------------------------------------------------------------


def addressed(step: Step, role: ToolRole) -> Entity | None:
    """The one record a scalar argument names (by key, or by the field named like the argument)."""
    ledger = step.episode.ledger
    nouns = {singular(t) for t in words(step.tool.name)}
    found: dict[tuple[str, str], Entity] = {}
    for arg, value in step.arguments.items():
        if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value) == "":
            continue
        for collection in ledger.collections():
            entity = ledger.get(collection, value)
            if entity is None:
                entity = next((e for e in ledger.items(collection) if _same(e.fields.get(arg), value)), None)
            if entity is not None and len(ledger.items(collection)) > 1:  # a singleton is the standing state
                found[(collection, entity.key)] = entity
    if len(found) == 1:
        return next(iter(found.values()))
    named = [e for (c, _), e in found.items()
             if c == role.collection or {singular(w) for w in words(c)} & nouns]
    return named[0] if len(named) == 1 else None


def _same(have: Any, wanted: Any) -> bool:
    return have is not None and not isinstance(have, (dict, list, bool)) and str(have) == str(wanted)


# -- state the answer names --------------------------------------------------------------------


def named_state(step: Step, name: str) -> Any:
    """The collection (its items; a one-field item as its value) or standing field called ``name``."""
    key = name_key(name)
    if not key:
        return None
    ledger = step.episode.ledger
    for collection in ledger.collections():
        if name_key(collection) in (key, name_key(singular(name))) or name_key(singular(collection)) == key:
            items = [e.fields for e in ledger.items(collection)]
            if len(items) > 1 or (items and len(items[0]) == 1):
                return [next(iter(i.values())) if len(i) == 1 else copy.deepcopy(i) for i in items]
            if items and name_key(singular(collection)) == name_key(singular(name)):
                return copy.deepcopy(items[0])  # ``wallet_info``: the one record of that name, as stored
    for entity in standing(step):
        for field, value in entity.fields.items():
            if name_key(field) == key:
                return copy.deepcopy(value)
    return None


# -- a state a boolean picks -------------------------------------------------------------------


def picked(step: Step, schema: Any) -> str | None:
    """The value of a two-valued field a boolean argument named after one value picks."""
    options = described_enum(schema)
    if len(options) != 2:
        return None
    for arg, flag in step.arguments.items():
        if not isinstance(flag, bool):
            continue
        for i, option in enumerate(options):
            if name_key(option).startswith(name_key(arg)) and name_key(arg):
                return option if flag else options[1 - i]
    return None


# -- parts of the standing state a read names ----------------------------------------------------


def field_group(step: Step, noun: str) -> JSONDict:
    """The standing fields whose names hold every word of ``noun`` (``soil_moisture`` ->
    ``northSoilMoisture``, ``southSoilMoisture``...): the group a read like ``check_soil_moisture`` shows."""
    wanted = {singular(w) for w in words(noun)}
    if not wanted:
        return {}
    return {f: copy.deepcopy(v) for e in standing(step) for f, v in e.fields.items()
            if wanted <= {singular(w) for w in words(f)}}


def _like_group(group: JSONDict) -> JSONDict:
    """A group named by a tool's noun alone counts when it is several fields of one kind (four moisture readings),
    not a record's assorted fields that happen to share a word (``user_id``, ``username``)."""
    kinds = {type(v).__name__ if not isinstance(v, (int, float)) or isinstance(v, bool) else "number"
             for v in group.values()}
    return group if len(group) >= 2 and len(kinds) == 1 else {}


def selected_fields(step: Step) -> JSONDict:
    """The standing fields an option argument picks: an argument whose schema lists its values
    (``option: "water"`` of ``[Enum]: ["water", "valves", ...]``) selects the fields named by that value
    (``waterLevel``; ``valves`` -> ``valveStatus``)."""
    props = step.tool.input_schema.get("properties") or {}
    for arg, value in step.arguments.items():
        if isinstance(value, str) and value in described_enum(props.get(arg)):
            group = field_group(step, value)
            if group:
                return group
    return {}


def _within(schema: Any, selection: JSONDict) -> JSONDict | None:
    """``selection`` as the object field ``schema`` describes holds it (its properties named like the fields)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    names = {name_key(n): n for n in schema["properties"]}
    chosen = {names[name_key(f)]: v for f, v in selection.items() if name_key(f) in names}
    return chosen or None


# -- the answer ---------------------------------------------------------------------------------


def environment_answer(step: Step, role: ToolRole) -> Prediction | None:
    """The action's answer from the state, or None when the state determines nothing for it."""
    from . import determined
    from ...world import values
    from .common import conform

    record = addressed(step, role)
    changes = arithmetic(step)
    if (short := overdrawn(step, changes)) is not None:  # ``withdraw(500)`` from 150: refused, nothing taken
        from .common import error

        return error(short)
    out = step.tool.output_schema
    if not out:
        if record is not None and reads(step):
            return Prediction(copy.deepcopy(record.fields), effects=[])
        if changes:
            change = next(iter(changes.values()))
            return Prediction({change.field: change.new}, effects=change.effects())
        if (mapped := map_change(step)) is not None:  # the map as changed (``doorStatus: {...}``)
            return Prediction({mapped.field: copy.deepcopy(mapped.new)}, effects=[mapped.effect()])
        if reads(step):
            tokens = words(step.tool.name)
            while tokens[1:] and tokens[0] in READ_VERBS:  # ``get_wallet_info``: the noun keeps its ``info``
                tokens = tokens[1:]
            noun = "_".join(tokens)
            if selection := selected_fields(step):  # an option picks part of the state: that part alone
                return Prediction(selection, effects=[])
            state = named_state(step, noun) if noun else None
            if state is not None:
                # a list is answered under the name the tool calls it by (``{"shortlist": [...]}``)
                return Prediction(state if isinstance(state, dict) else {noun: state}, effects=[])
            if group := _like_group(field_group(step, noun)):
                return Prediction(group, effects=[])
        return None
    known = determined.known_values(step)
    if record is not None:  # the record as stored wins over the standing state; the call's own arguments still win
        given = {name_key(n) for n in step.arguments}
        known.update({name_key(n): v for n, v in record.fields.items() if name_key(n) not in given})
    mapped = map_change(step)
    switched = state_switch(step)
    selection = selected_fields(step) if reads(step) else {}
    props = out.get("properties") or {}
    extra: dict[str, Any] = {}
    for name, sub in props.items():
        key = name_key(name)
        if key in changes:
            extra[key] = changes[key].new
        elif (choice := picked(step, sub)) is not None:  # a boolean argument named after the state wins
            extra[key] = choice
        elif switched is not None and key == name_key(switched.field):
            extra[key] = switched.new
        elif mapped is not None and (count := mapped.count(name)) is not None:
            extra[key] = count
        elif selection and (chosen := _within(sub, selection)):
            extra[key] = chosen
        elif key not in known and (state := named_state(step, name)) is not None and determined._fits(
                state, sub if isinstance(sub, dict) else None):
            extra[key] = state
    body = values.generate(out, step.rng)
    if record is not None and reads(step) and not set(map(name_key, props)) & set(map(name_key, record.fields)):
        holder = next((n for n, s in props.items() if isinstance(s, dict) and set(
            map(name_key, s.get("properties") or {})) & set(map(name_key, record.fields))), None)
        if holder is not None:  # ``{"invoice": {...}}``: the record inside the field sharing its properties
            body[holder] = determined.settle(body.get(holder), props[holder], {**known, **extra})
    if record is None and not changes and not extra:
        return None
    body = determined.settle(body, out, {**known, **extra})
    for name in props:  # a selected part of the state is answered alone (settle fills a sub-object whole)
        if name_key(name) in extra and isinstance(extra[name_key(name)], dict):
            body[name] = copy.deepcopy(extra[name_key(name)])
    effects = determined.applied(step) if not changes else [e for c in changes.values() for e in c.effects()]
    if mapped is not None:
        effects = [*effects, mapped.effect()]
    if switched is not None and extra.get(name_key(switched.field)) == switched.new:
        effects = [*effects, switched.effect()]
    return Prediction(conform(body, out, step.rng), effects=effects)


__all__ = ["addressed", "arithmetic", "environment_answer", "named_state", "picked", "reads"]


# -- membership of a list the state holds --------------------------------------------------------


def member_list(step: Step) -> str | None:
    """The collection of one-field items (``favourite_list: [{name: A-7}]``) that a tool named
    ``add_to_X``/``remove_from_X``/``add_X_to_Y``/``remove_X_from_Y`` adds to or takes from."""
    tokens = words(step.tool.name)
    after = next((tokens[i + 1:] for i, t in enumerate(tokens) if t in ("to", "from") and i > 0), None)
    if not after:
        return None
    wanted = name_key("_".join(singular(t) for t in after))
    ledger = step.episode.ledger
    for collection in ledger.collections():
        items = ledger.items(collection)
        if name_key(singular(collection)) == wanted or name_key(
                "_".join(singular(w) for w in words(collection))) == wanted:
            if items and all(len(e.fields) == 1 for e in items):
                return collection
    return None


def membership_answer(step: Step, role: ToolRole) -> Prediction | None:
    """``add_to_favourites(item)`` adds the value to the list the state holds and answers the list;
    ``remove_part_from_favourites(sku)`` takes it out (the part itself stays)."""
    collection = member_list(step)
    scalars = [v for v in step.arguments.values() if isinstance(v, (str, int)) and not isinstance(v, bool)]
    if collection is None or len(scalars) != 1:
        return None
    ledger = step.episode.ledger
    value = scalars[0]
    field = next(iter(ledger.items(collection)[0].fields))
    present = ledger.get(collection, value) is not None
    names = [next(iter(e.fields.values())) for e in ledger.items(collection)]
    if role.kind == "create":
        effects = [] if present else [Effect("create", collection, str(value), {field: value})]
        names = names if present else [*names, value]
    elif role.kind == "delete":
        if not present:
            from .common import not_found

            return not_found(step, role, str(value))
        effects = [Effect("delete", collection, str(value))]
        names = [n for n in names if str(n) != str(value)]
    else:
        return None
    out = step.tool.output_schema
    if not out:  # under the name the tool calls the list by (``add_to_shortlist`` -> ``shortlist``)
        tokens = words(step.tool.name)
        after = next((tokens[i + 1:] for i, t in enumerate(tokens) if t in ("to", "from") and i > 0), None)
        return Prediction({"_".join(after) if after else collection: names}, effects=effects)
    from ...world import values
    from .common import conform

    body = values.generate(out, step.rng)
    for name, sub in (out.get("properties") or {}).items():
        if isinstance(sub, dict) and sub.get("type") == "array":
            body[name] = names
        elif name in ("status", "message") and isinstance(body.get(name), str):
            body[name] = "success"
    return Prediction(conform(body, out, step.rng), effects=effects)
