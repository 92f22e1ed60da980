"""Answers in the shape a tool's description states (:mod:`agentworld_mcp.world.described_shape`).

:mod:`.shape` answers a tool in its described success shape like any inferred shape. Two things
follow from the description itself rather than from a shape: what the state does not hold is
answered as the description implies (a stated list empty, an untyped field null, a count counting
its list, the record the call addresses where the shape names it), and a failure the description
states a shape for is answered in that shape, in band, instead of ``isError``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ...world.described_shape import described_returns, failure_answer, fill_unstated, named_shapes, with_names
from ...world.roles import ToolRole
from ..base import Prediction, Step

JSONDict = dict[str, Any]


def stated_failure(step: Step, failure: Prediction) -> Prediction:
    """``failure`` answered in band in the shape the description states for failures, when it states one."""
    stated = described_returns(step.tool.description)
    message = failure.text if failure.text is not None else str(failure.observation)
    body = failure_answer(stated, message, step.role.noun) if stated is not None else None
    if body is None:
        return failure
    return dataclasses.replace(failure, observation=body, is_error=False, effects=[], text=None, checked=False)


def held_answer(step: Step, observation: Any, shape: JSONDict, role: ToolRole) -> Any:
    """``observation`` completed from what the description states and the state holds (``role``: the
    call's role read with the shape)."""
    wrapper = role.wrapper
    if (isinstance(observation, dict) and wrapper and not observation.get(wrapper)
            and isinstance((shape.get("properties") or {}).get(wrapper), dict)):
        from .environment import addressed

        record = addressed(step, role)  # ``{"ok": true, "task": {...}}`` of an action on task 3: task 3
        if record is not None:
            fields = copy.deepcopy(record.fields)
            key = role.key_args[0] if role.key_args else None
            fields.update({n: v for n, v in step.arguments.items() if n in fields and n != key})  # as the call sets them
            observation = {**observation, wrapper: fields}
    names = step.derived("described names", lambda: named_shapes(
        spec.description for spec in (step.catalog or ())))  # ``[task, ...]`` lists what another tool states a task is
    return fill_unstated(observation, with_names(shape, names))
