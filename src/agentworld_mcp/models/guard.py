"""The consistency guard: check a language world model's observation against the ledger.

A language model forgets, or never knew, what the session established: it may answer a
read of a deleted issue with the issue, or give a created issue another title. The ledger
knows. The guard repairs what it can prove wrong (a success for a deleted entity becomes
the tool's not-found error; a field that contradicts the ledger is patched from it) and
reports each repair, so an episode's repair rate measures how much the model needed it.

A repair never makes an observation schema-invalid: a patch that would is not applied.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..world.catalog import ToolSpec
from ..state.ledger import Entity, Ledger, identity
from ..world.roles import ToolRole
from .base import Step
from .deterministic.common import not_found

JSONDict = dict[str, Any]


@dataclass
class Checked:
    observation: Any
    is_error: bool
    repairs: list[JSONDict]


def target(role: ToolRole, arguments: JSONDict, ledger: Ledger) -> Entity | None:
    """The entity the call names through its identifying arguments, deleted ones included."""
    for name in role.key_args:
        value = arguments.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            # Scoped entities are keyed within their parent (issue 3 of acme/rocket).
            entity = ledger.get(role.collection, role.scoped(arguments, str(value)), include_deleted=True)
            if entity is not None:
                return entity
    return None


def deleted_target(tool: ToolSpec, arguments: JSONDict, ledger: Ledger) -> Entity | None:
    """The deleted entity this read/update/delete/move names, if any: its only right answer is not found."""
    role = tool.role_for(arguments)  # a consolidated tool's action argument selects the operation
    if role.kind not in ("read", "update", "delete", "move"):
        return None
    entity = target(role, arguments, ledger)
    return entity if entity is not None and not entity.alive else None


def check(step: Step, observation: Any, is_error: bool) -> Checked:
    tool, arguments, ledger = step.tool, step.arguments, step.episode.ledger
    role = step.role
    if is_error:
        return Checked(observation, is_error, [])
    entity = target(role, arguments, ledger)
    if entity is not None and not entity.alive and role.kind in ("read", "update", "delete", "move"):
        repair = {"kind": "deleted_entity", "tool": tool.name, "collection": role.collection, "key": entity.key,
                  "detail": f"the model answered success for {role.collection} {entity.key}, deleted at turn "
                            f"{entity.deleted_turn}; answered not found instead"}
        # Worded exactly as the deterministic world model words it (demonstrations, service style).
        return Checked(not_found(step, role, entity.key).observation, True, [repair])
    if not isinstance(observation, dict):
        return Checked(observation, is_error, [])
    repairs: list[JSONDict] = []
    patched = copy.deepcopy(observation)
    if entity is not None and role.kind in ("read", "update"):
        expected = dict(entity.fields)
        if role.kind == "update":
            expected.update({k: v for k, v in arguments.items() if k not in role.key_args})
        repairs += _patch(_entity_dict(patched, entity.key), expected, "field_patch", tool, role, entity.key)
    elif role.kind == "create":
        created = _entity_dict(patched, None)
        given = {k: v for k, v in arguments.items() if k != role.batch_arg and not isinstance(v, (dict, list))}
        repairs += _patch(created, given, "argument_patch", tool, role, None)
        repairs += _fresh_id(created, role, ledger, tool)
    elif role.kind in ("list", "search") and role.items_field and isinstance(patched.get(role.items_field), list):
        repairs += _repair_items(patched, role, ledger, tool)
    if not repairs:
        return Checked(observation, is_error, [])
    if tool.output_problems(patched):
        return Checked(observation, is_error, [])  # a repair must never break the schema
    return Checked(patched, is_error, repairs)


def _entity_dict(observation: JSONDict, key: str | None) -> JSONDict:
    """The dict in the observation that stands for the entity: the top level or one wrapper down."""
    candidates = [observation] + [v for v in observation.values() if isinstance(v, dict)]
    if key is not None:
        for candidate in candidates:
            found = identity(candidate)
            if found and found[1] == key:
                return candidate
    if len(candidates) == 2 and len(observation) == 1:  # {"issue": {...}}
        return candidates[1]
    return observation


def _patch(target_dict: JSONDict, expected: JSONDict, kind: str, tool: ToolSpec, role: ToolRole,
           key: str | None) -> list[JSONDict]:
    fields = []
    for name, value in expected.items():
        if name in target_dict and target_dict[name] != value and _same_kind(target_dict[name], value):
            fields.append({"field": name, "model": target_dict[name], "ledger": value})
            target_dict[name] = copy.deepcopy(value)
    if not fields:
        return []
    return [{"kind": kind, "tool": tool.name, "collection": role.collection, "key": key, "fields": fields}]


def _fresh_id(created: JSONDict, role: ToolRole, ledger: Ledger, tool: ToolSpec) -> list[JSONDict]:
    """A create that returns the id of an entity the session already has gets the next free number."""
    found = identity(created)
    if found is None or ledger.get(role.collection, found[1], include_deleted=True) is None:
        return []
    name, old = found
    value = created[name]
    if not (isinstance(value, int) and not isinstance(value, bool)) and not (isinstance(value, str) and value.isdigit()):
        return []
    number = ledger.next_number(role.collection)
    while ledger.get(role.collection, number, include_deleted=True) is not None:
        number = ledger.next_number(role.collection)
    created[name] = number if isinstance(value, int) else str(number)
    return [{"kind": "id_collision", "tool": tool.name, "collection": role.collection, "key": str(number),
             "detail": f"the model gave the new entity the id {old} of an existing one; gave it {number}"}]


def _same_kind(a: Any, b: Any) -> bool:
    """Patch only like for like (a number with a number...), so the schema stays satisfied."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return True
    return type(a) is type(b)


def _repair_items(observation: JSONDict, role: ToolRole, ledger: Ledger, tool: ToolSpec) -> list[JSONDict]:
    items = observation[role.items_field]  # type: ignore[index]
    kept, repairs = [], []
    for item in items:
        found = identity(item) if isinstance(item, dict) else None
        entity = ledger.get(role.collection, found[1], include_deleted=True) if found else None
        if entity is not None and not entity.alive:
            repairs.append({"kind": "deleted_in_list", "tool": tool.name, "collection": role.collection,
                            "key": entity.key})
            continue
        if entity is not None:
            repairs += _patch(item, entity.fields, "field_patch", tool, role, entity.key)
        kept.append(item)
    observation[role.items_field] = kept  # type: ignore[index]
    return repairs
