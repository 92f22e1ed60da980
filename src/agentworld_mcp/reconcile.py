"""Ledger reconciliation for observations that did not say what they changed.

The deterministic world model reports its effects; a language world model does not, so
the effects of its (successful) observations are inferred from the tool's role, the
arguments and the observation.
"""

from __future__ import annotations

from typing import Any

from .backends.base import Prediction, Step
from .ledger import Effect, identity

JSONDict = dict[str, Any]


def _entity_in(observation: Any, collection_singular: str) -> JSONDict | None:
    if not isinstance(observation, dict):
        return None
    inner = observation.get(collection_singular)
    if isinstance(inner, dict):
        return inner
    return observation


def infer_effects(step: Step, prediction: Prediction) -> list[Effect]:
    from .roles import singular

    role = step.tool.role
    args = step.arguments
    key = next((str(args[k]) for k in role.key_args if isinstance(args.get(k), (str, int))), None)
    observed = _entity_in(prediction.observation, singular(role.collection))
    if role.kind == "create":
        fields = {**{k: v for k, v in args.items() if k != role.batch_arg}, **(observed or {})}
        ident = identity(fields)
        ident_key = key or (ident[1] if ident else None)
        return [Effect("create", role.collection, ident_key, fields)] if ident_key else []
    if role.kind == "update" and key is not None:
        changes = {k: v for k, v in args.items() if k not in role.key_args}
        return [Effect("update", role.collection, key, changes)]
    if role.kind == "delete" and key is not None:
        return [Effect("delete", role.collection, key)]
    if role.kind == "read" and key is not None and observed and step.episode.ledger.get(role.collection, key) is None:
        return [Effect("create", role.collection, key, observed)]
    return []
