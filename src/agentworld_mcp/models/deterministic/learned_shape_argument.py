"""A call choosing a shape the recording never showed is answered without what the recording taught.

``sim2real/learn_shape_argument.py`` writes ``_meta["agentworld/shape_argument"]``
(``{"argument": "format", "recorded": ["table"]}``). The shape, values, envelope and rules learned from
``format="table"`` calls describe that shape only; :func:`with_recorded_shape` hands a call choosing
another value (its default included) to the model with the tool's learned ``_meta`` left out, so the
model answers from the catalog (the description's ``Returns``, the entities the episode holds).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...state.step import Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the recorded values of its shape argument.
SHAPE_ARGUMENT_META = "agentworld/shape_argument"
#: Prefix of every learned ``_meta`` key.
_LEARNED = "agentworld/"


def with_recorded_shape(step: Step) -> Step:
    """``step`` itself, or with the tool's learned meta left out where the call chose an unrecorded shape."""
    meta_all = step.tool.definition.get("_meta")
    meta = meta_all.get(SHAPE_ARGUMENT_META) if isinstance(meta_all, dict) else None
    if not isinstance(meta, dict) or not isinstance(name := meta.get("argument"), str):
        return step
    recorded: list[Any] = found if isinstance(found := meta.get("recorded"), list) else []
    declared = (step.tool.input_schema.get("properties") or {}).get(name)
    value = step.arguments.get(name, declared.get("default") if isinstance(declared, dict) else None)
    if not isinstance(value, str) or value in recorded:
        return step
    kept = {k: v for k, v in (meta_all or {}).items() if not str(k).startswith(_LEARNED)}
    definition = {k: v for k, v in step.tool.definition.items() if k != "_meta"}
    if kept:
        definition["_meta"] = kept
    return dataclasses.replace(step, tool=dataclasses.replace(step.tool, definition=definition))


__all__ = ["SHAPE_ARGUMENT_META", "with_recorded_shape"]
