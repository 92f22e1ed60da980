"""Ledger reconciliation for observations that did not say what they changed.

The deterministic world model reports its effects; a language world model does not. A
successful observation's effects are the ones the deterministic model would have for the
same call (so both backends keep the ledger the same way), except where the observation
itself establishes something the ledger could not know: the id the service gave a new
entity, or an entity the ledger had never heard of that the model answered for.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..models.base import Prediction, Step
from ..state.ledger import Effect, identity
from ..world.roles import ToolRole, normalise_key

JSONDict = dict[str, Any]


def observed_entity(observation: Any, role: ToolRole) -> JSONDict | None:
    """The entity an observation is about: under its wrapper (``{"issue": {...}}``) or the top level."""
    if not isinstance(observation, dict):
        return None
    if role.wrapper and isinstance(observation.get(role.wrapper), dict):
        return observation[role.wrapper]
    from ..world.roles import singular

    inner = observation.get(singular(role.collection))
    return inner if isinstance(inner, dict) else observation


def infer_effects(step: Step, prediction: Prediction) -> list[Effect]:
    from ..models.deterministic.schema import predict

    role = step.role  # the operation this call performs (an action argument may select it)
    # What the deterministic model would change (it changes nothing itself), without rendering its answer.
    expected = predict(dataclasses.replace(step, effects_only=True))
    observed = observed_entity(prediction.observation, role)
    if role.kind == "create" and role.style == "record":
        return _created(step, role, expected, observed)
    if not expected.is_error:
        return list(expected.effects or [])
    key = role.key_of(step.arguments)
    if key is None or observed is None or role.style != "record":
        return []
    if step.episode.ledger.get(role.collection, key, include_deleted=True) is not None:
        return []  # known and deleted: the guard, not the ledger, answers for that
    if role.kind == "read":
        return [Effect("observe", role.collection, key, dict(observed))]
    if role.kind == "update":
        changes = {k: v for k, v in step.arguments.items() if k not in role.key_args}
        return [Effect("create", role.collection, key, {**observed, **changes})]
    return []


def _created(step: Step, role: ToolRole, expected: Prediction, observed: JSONDict | None) -> list[Effect]:
    """A creation keyed by the id the model gave it, holding the arguments and what the model added."""
    if expected.is_error or observed is None or (role.batch_arg and isinstance(step.arguments.get(role.batch_arg), list)):
        return [] if expected.is_error else list(expected.effects or [])
    given = {k: v for k, v in step.arguments.items() if v is not None}
    fields = {**given, **observed}
    value = observed.get(role.key_field)
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        key = role.scoped(step.arguments, normalise_key(role.style, value))
    else:
        found = identity(fields)
        if found is None:
            return list(expected.effects or [])
        key = found[1]
    return [Effect("create", role.collection, key, fields)]
