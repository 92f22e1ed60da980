"""The last step of every deterministic answer: it validates against the tool's outputSchema.

The answer's parts come from many places (the call's arguments echoed, the episode's state,
conventions of the catalog's ids), and a published schema can be stricter than any of them:
a spec's ``channel`` pattern ``^[CGD][A-Z0-9]{8,}$`` against an argument ``general``, an id
convention against ``^(A[A-Z0-9]+)?$``, ``minItems: 1`` on a log the episode has not written.
A valid call must still get a schema-valid answer, never a simulator error, so each part
that fails the schema is replaced by a value generated from the schema at that place (the
rest of the answer is kept), a short list is filled up to its ``minItems``, and a property
the schema forbids is dropped. The repair is bounded: a few passes, then the answer goes
out as it is and the pipeline reports what still fails.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

from jsonschema import ValidationError

from ...world import values
from ..base import Prediction, Step

_PASSES = 4


def conformed(step: Step, prediction: Prediction) -> Prediction:
    """``prediction`` with the parts of its observation that fail the outputSchema regenerated from it."""
    validator = step.tool.output_validator
    observation = prediction.observation
    if validator is None or prediction.is_error or not isinstance(observation, dict):
        return prediction
    if validator.is_valid(observation):
        return replace(prediction, checked=True)  # validated here: the pipeline need not validate it again
    rng = random.Random(f"{step.tool.name}:{step.turn}:conform")
    fixed = copy.deepcopy(observation)
    root = step.tool.output_schema or {}
    for _ in range(_PASSES):
        errors = list(validator.iter_errors(fixed))
        if not errors:
            return replace(prediction, observation=fixed, checked=True)
        for error in sorted(errors, key=lambda e: -len(e.absolute_path)):  # deepest first
            fixed = _repaired(fixed, error, rng, root)
    return replace(prediction, observation=fixed)  # the pipeline validates it and reports what still fails


def _repaired(value: Any, error: ValidationError, rng: random.Random, root: dict[str, Any]) -> Any:
    path = list(error.absolute_path)
    name = str(path[-1]) if path and isinstance(path[-1], str) else ""
    here = error.instance
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    wanted: Any = error.validator_value
    if error.validator == "minItems" and isinstance(here, list):
        items = schema.get("items")
        replacement: Any = here + [values.generate(items or {}, rng, name, root=root)
                                   for _ in range(int(wanted) - len(here))]
    elif error.validator == "required" and isinstance(here, dict):
        props = schema.get("properties") or {}
        replacement = {**here, **{k: values.generate(props.get(k, {}), rng, k, root=root)
                                  for k in wanted if k not in here}}
    elif error.validator == "additionalProperties" and isinstance(here, dict):
        props = schema.get("properties") or {}
        replacement = {k: v for k, v in here.items() if k in props}
    else:
        replacement = values.generate(schema, rng, name, root=root)
    return _set(value, path, replacement)


def _set(value: Any, path: list[Any], replacement: Any) -> Any:
    if not path:
        return replacement
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = replacement
    return value
