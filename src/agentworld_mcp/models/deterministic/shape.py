"""Inferred output shapes: how a tool without an outputSchema answers, learned once.

Most real MCP servers declare no outputSchema, so the deterministic world model has no
shape to answer in. ``agentworld-mcp enrich`` asks a language world model for example
answers and stores the JSON Schema they follow in the tool's ``_meta``::

    _meta: {"agentworld/output_shape": {"type": "object", "properties": {"account_id": ...}}}

It is not an ``outputSchema``: the real server declares none, so ``tools/list`` must not
either, and results stay text. The deterministic model answers such a tool as if the shape
were its outputSchema (entities rendered in it, ids typed as it says), then renders the
answer as JSON text. This module is that hook; the record handlers do not know about it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ...world.catalog import ToolSpec
from ...world.roles import infer_role
from ..base import Prediction, Step
from .output_shape import OUTPUT_SHAPE_META, output_shape

JSONDict = dict[str, Any]

#: Where an array shape is put inside the object schema the record handlers understand.
_ITEMS = "items"
#: Role fields that say where things are in an answer: what a shape can add to a catalog's role.
_STRUCTURE = ("items_field", "wrapper", "count_fields")


def shaped_spec(spec: ToolSpec) -> ToolSpec | None:
    """``spec`` as if its shape were its outputSchema (cached on the spec); None without a shape.

    An array shape (a list tool answering ``[...]``) is wrapped as ``{"items": [...]}``,
    since record handlers render lists into an object's items field.
    """
    if "_agentworld_shaped" in spec.__dict__:
        cached: ToolSpec | None = spec.__dict__["_agentworld_shaped"]
        return cached
    shape = output_shape(spec.definition)
    shaped = None
    if shape is not None:
        if shape.get("type") == "array":
            shape = {"type": "object", "properties": {_ITEMS: shape}, "required": [_ITEMS]}
        definition = {**spec.definition, "outputSchema": shape}
        shaped = dataclasses.replace(spec, definition=definition)
        if spec.catalog_role is not None:  # what the catalog knows stays; the shape adds where items are
            alone = infer_role(definition)
            added = {f: getattr(alone, f) for f in _STRUCTURE if not getattr(spec.catalog_role, f) and getattr(alone, f)}
            shaped = dataclasses.replace(shaped, catalog_role=dataclasses.replace(spec.catalog_role, **added))
    spec.__dict__["_agentworld_shaped"] = shaped
    return shaped


def predict_in_shape(step: Step, predict: Callable[[Step], Prediction]) -> Prediction:
    """``predict(step)``, answered in the tool's inferred shape when it has one, in the catalog's house
    style (house_style.py); a value the catalog's words rule out is refused first (stated_refusal.py)."""
    from .house_style import in_house_style
    from .stated_refusal import stated_refusal

    return in_house_style(step, stated_refusal(step) or _in_shape(step, predict))


def _in_shape(step: Step, predict: Callable[[Step], Prediction]) -> Prediction:
    from .learned_rules import computed

    shaped = shaped_spec(step.tool)
    if shaped is None or computed(step):  # an engine's or the keyspace's answer is the state's, not a shape's
        return predict(step)
    shape = output_shape(step.tool.definition) or {}
    # Record-style tools are rendered in the shape; file and graph tools keep their own
    # answers (what those servers print), and only JSON answers are made to fit below.
    prediction = predict(dataclasses.replace(step, tool=shaped) if step.tool.role.style == "record" else step)
    observation = prediction.observation
    if prediction.is_error:
        from .described_answer import stated_failure  # ``{"ok": false, "error": ...}`` where the description says so

        return stated_failure(step, prediction)
    if prediction.text is not None or not isinstance(observation, (dict, list)):
        return prediction
    if shape.get("type") == "array" and isinstance(observation, dict) and set(observation) == {_ITEMS}:
        observation = observation[_ITEMS]
    from .common import conform

    if not (step.tool.definition.get("_meta") or {}).get(OUTPUT_SHAPE_META):  # the shape the description states
        from .described_answer import held_answer

        observation = held_answer(step, observation, shape, shaped.role_for(step.arguments))
    from .learned_envelope import serve_envelope  # constants, counts and texts learned from the real answers

    from .echoed_names import echo_named_action  # ``created: <the name given>``, not a timestamp

    observation = echo_named_action(step, conform(observation, shape, step.rng), shape)
    served = serve_envelope(step, observation, shape)
    from .editor import edits

    if edits(step) and isinstance(served, dict) and isinstance(prediction.observation, dict):
        # lines and counts computed from the episode's files outrank a recording's constants (one page read once)
        # and a number, list or object it did not compute (a count-only search's matches) is not invented for it
        served = _computed_first(prediction.observation, served)
    return dataclasses.replace(prediction, observation=served)


def _computed_first(own: Any, served: Any) -> Any:
    """``own`` (computed from the episode's files), with the recorded constants (words, flags) the shape layer
    added at any depth (a match's ``match_type``); a number, list or object it did not compute is not invented."""
    if isinstance(own, dict) and isinstance(served, dict):
        kept = {k: _computed_first(own[k], v) if k in own else v for k, v in served.items()
                if k in own or v is None or isinstance(v, (bool, str))}
        return {**own, **kept}
    if isinstance(own, list) and isinstance(served, list) and len(own) == len(served):
        return [_computed_first(o, s) for o, s in zip(own, served)]
    return own

