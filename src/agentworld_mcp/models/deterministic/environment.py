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
* **arithmetic the description states**: a numeric argument (``waterAmount``, ``amount``)
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
import re
from typing import Any

from ...state.ledger import Effect, Entity
from ...world.roles import ToolRole, singular, words
from ..base import Prediction, Step
from .determined import name_key, standing

JSONDict = dict[str, Any]

#: Leading verbs of a tool that returns what it names (``get_part_info``, ``check_soil_moisture``).
READ_VERBS = frozenset({"get", "read", "fetch", "show", "view", "describe", "retrieve", "lookup", "load", "info",
                        "inspect", "display", "check", "query", "see", "find"})
_ADDING = frozenset({"fill", "add", "fund", "deposit", "top", "refill", "increase", "charge", "credit", "load",
                     "raise", "increment", "recharge", "topup", "boost"})
_TAKING = frozenset({"withdraw", "spend", "use", "decrease", "debit", "reduce", "consume", "drain", "subtract",
                     "lower", "decrement", "pay", "deduct"})
_AMOUNT_WORDS = frozenset({"amount", "quantity", "delta", "by", "value", "volume", "qty"})
_CAPACITY = re.compile(r"(?:up to|at most|maximum(?: of)?|max(?:imum)? capacity(?: of)?|capacity of|"
                       r"cannot exceed|no more than)\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE)
_DESCRIBED_ENUM = re.compile(r"(?:\[enum\]\s*:?|one of\s*:?)\s*\[?([^\]\n.]+)\]?", re.IGNORECASE)


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
    for entity in standing(step):
        for field, value in entity.fields.items():
            if name_key(field) == key:
                return copy.deepcopy(value)
    return None


# -- arithmetic --------------------------------------------------------------------------------


def arithmetic(step: Step) -> dict[str, tuple[Entity, str, float]]:
    """Standing numeric fields the call changes by an amount: answer name key -> (entity, field, new value)."""
    tokens = set(words(step.tool.name))
    sign = 1 if tokens & _ADDING else -1 if tokens & _TAKING else 0
    if not sign:
        return {}
    amounts = {n: v for n, v in step.arguments.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool) and set(words(n)) & _AMOUNT_WORDS}
    if len(amounts) != 1:
        return {}
    (arg, amount), = amounts.items()
    stem = set(words(arg)) - _AMOUNT_WORDS  # ``waterAmount`` -> water
    out_names = list((step.tool.output_schema or {}).get("properties") or {})
    numeric = [(e, f, v) for e in standing(step) for f, v in e.fields.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    # the field the argument names (``waterAmount`` -> ``waterLevel``), else the one the answer names
    named = [t for t in numeric if stem & set(words(t[1]))] or [
        t for t in numeric if any(_names_field(o, t[1]) for o in out_names)]
    changed: dict[str, tuple[Entity, str, float]] = {}
    for entity, field, value in named:
        answer = next((o for o in out_names if _names_field(o, field)), None)
        new = value + sign * amount
        cap = _capacity(step)
        if cap is not None and sign > 0:
            new = min(new, cap)
        new = float(new) if isinstance(value, float) or isinstance(amount, float) else new
        changed[name_key(answer or field)] = (entity, field, new)
    return changed if len({(e.key, f) for e, f, _ in changed.values()}) == 1 else {}


def _names_field(answer_name: str, field: str) -> bool:
    """``new_balance``, ``updated_balance``, ``balance`` all name ``balance``."""
    bare = [w for w in words(answer_name) if w not in ("new", "updated", "current", "remaining", "final", "after")]
    return bool(bare) and name_key("_".join(bare)) == name_key(field)


def _capacity(step: Step) -> float | None:
    found = _CAPACITY.search(step.tool.description or "")
    return float(found.group(1)) if found else None


# -- a state a boolean picks -------------------------------------------------------------------


def described_enum(schema: Any) -> list[str]:
    """The values a field's description lists (``[Enum]: ["locked", "unlocked"]``, ``one of: a, b``)."""
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("enum"), list):
        return [str(v) for v in schema["enum"]]
    found = _DESCRIBED_ENUM.search(str(schema.get("description") or ""))
    if not found:
        return []
    return [v.strip().strip("'\"") for v in found.group(1).split(",") if v.strip().strip("'\"")]


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


# -- the answer ---------------------------------------------------------------------------------


def environment_answer(step: Step, role: ToolRole) -> Prediction | None:
    """The action's answer from the state, or None when the state determines nothing for it."""
    from . import determined
    from ...world import values
    from .common import conform

    record = addressed(step, role)
    changes = arithmetic(step)
    out = step.tool.output_schema
    if not out:
        if record is not None and reads(step):
            return Prediction(copy.deepcopy(record.fields), effects=[])
        if changes:
            _, field, new = next(iter(changes.values()))
            return Prediction({field: new}, effects=_stored(changes))
        if reads(step):
            noun = "_".join(t for t in words(step.tool.name) if t not in READ_VERBS)
            state = named_state(step, noun) if noun else None
            if state is not None:
                return Prediction(state if isinstance(state, (dict, list)) else {noun: state}, effects=[])
        return None
    known = determined.known_values(step)
    if record is not None:
        for name, value in record.fields.items():  # the record as stored; the call's own arguments still win
            known.setdefault(name_key(name), value)
    props = out.get("properties") or {}
    extra: dict[str, Any] = {}
    for name, sub in props.items():
        key = name_key(name)
        if key in changes:
            extra[key] = changes[key][2]
        elif (choice := picked(step, sub)) is not None:
            extra[key] = choice
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
    effects = determined.applied(step) if not changes else _stored(changes)
    return Prediction(conform(body, out, step.rng), effects=effects)


def _stored(changes: dict[str, tuple[Entity, str, float]]) -> list[Effect]:
    entity, field, new = next(iter(changes.values()))
    return [Effect("update", entity.collection, entity.key, {field: new})]


__all__ = ["addressed", "arithmetic", "described_enum", "environment_answer", "named_state", "picked", "reads"]


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
    if not out:
        return Prediction({collection: names}, effects=effects)
    from ...world import values
    from .common import conform

    body = values.generate(out, step.rng)
    for name, sub in (out.get("properties") or {}).items():
        if isinstance(sub, dict) and sub.get("type") == "array":
            body[name] = names
        elif name in ("status", "message") and isinstance(body.get(name), str):
            body[name] = "success"
    return Prediction(conform(body, out, step.rng), effects=effects)
