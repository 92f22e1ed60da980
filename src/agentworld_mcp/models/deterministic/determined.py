"""Values an action's answer need not invent: those the call or the world already holds.

A field of the answer named like one of the call's arguments echoes it (``thoughtNumber: 3``
when the call said 3, not a random number); one named like a field of the world's standing
state (a record alone in its collection: a vehicle's ``fuelLevel``, a session's ``username``,
an account's ``balance``) reads it there. Only what is left is generated. Names match across
styles (``fuel_level`` is ``fuelLevel``). An action whose arguments name fields of the
standing state sets them (``set_destination(destination=...)``), so the next read sees it.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from typing import Any

import jsonschema

from ...state.ledger import Effect, Entity
from ...world.catalog import compile_schema
from ..base import Step

JSONDict = dict[str, Any]


def name_key(name: str) -> str:
    """``fuel_level``, ``fuelLevel`` and ``fuel-level`` are one name."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def standing(step: Step) -> list[Entity]:
    """The records that are the world's standing state: each the only one of its collection."""
    ledger = step.episode.ledger
    alone = []
    for collection in ledger.collections():
        items = ledger.items(collection)
        if len(items) == 1:
            alone.append(items[0])
    return alone


def known_values(step: Step) -> dict[str, Any]:
    """What the call and the standing state determine, by :func:`name_key`; arguments win."""
    found: dict[str, Any] = {}
    for entity in standing(step):
        for name, value in entity.fields.items():
            found.setdefault(name_key(name), value)
    for name, value in step.arguments.items():
        found[name_key(name)] = value
    return found


def settle(body: Any, schema: JSONDict | None, known: dict[str, Any], depth: int = 0) -> Any:
    """``body`` (generated from ``schema``) with each field the call or the state determines set to
    that value, where the value fits the field's schema; at most three levels deep."""
    if not isinstance(body, dict) or not known or depth > 2:
        return body
    props = (schema or {}).get("properties") or {}
    for name in list(body):
        sub = props.get(name) if isinstance(props.get(name), dict) else None
        value = known.get(name_key(name))
        # an object or list is taken only where the field's schema says it fits (under a ``oneOf`` no
        # field is declared, and another record's ``data`` envelope would stand for this answer's)
        if value is not None and (sub is not None or not isinstance(value, (dict, list))) and _fits(value, sub):
            body[name] = copy.deepcopy(value)
        elif isinstance(body[name], dict):
            body[name] = settle(body[name], sub, known, depth + 1)
    return body


def applied(step: Step) -> list[Effect]:
    """Updates to the standing state that the call's arguments name (same field, a value that fits)."""
    effects = []
    for entity in standing(step):
        by_key = {name_key(n): n for n in entity.fields}
        changed = {}
        for name, value in step.arguments.items():
            field = by_key.get(name_key(name))
            if field is not None and _same_kind(entity.fields[field], value):
                changed[field] = copy.deepcopy(value)
        if changed:
            effects.append(Effect("update", entity.collection, entity.key, changed))
    return effects


def _fits(value: Any, schema: JSONDict | None) -> bool:
    if not schema:
        return True
    try:
        return _validator(_frozen(schema)).is_valid(value)
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return False


def _same_kind(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, (int, float)) and isinstance(new, (int, float)):
        return True
    return type(old) is type(new) and not isinstance(new, (dict, list))


def _frozen(schema: JSONDict) -> str:
    return json.dumps(schema, sort_keys=True, default=str)


@lru_cache(maxsize=512)
def _validator(schema_text: str) -> Any:
    return compile_schema(json.loads(schema_text))  # the catalog's: formats checked, patterns bounded


__all__ = ["applied", "known_values", "name_key", "settle", "standing"]
