"""A free-form object outputSchema is no shape at all: the tool answers the data it promises.

FastMCP declares ``{"type": "object", "additionalProperties": true}`` (or ``{"type": "object"}``) for a
Python tool returning ``dict``. Filled as a shape, it gives ``{}``: valid, and saying nothing. Such a tool
is answered as the same tool without an outputSchema (the record, file and editor models' bare answer),
and that answer becomes the structured object: an object as it is, JSON text of an object parsed, any
other value under one key named from the tool's words (``content`` for a read, ``items`` for a list).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ...world.roles import words
from ..base import Prediction, Step
from .editor import predict_editor

JSONDict = dict[str, Any]
_PLAIN = "_agentworld_free_plain"
#: Tool-name words of a tool that reads something: its text answer is the thing's ``content``.
_READS = frozenset({"read", "get", "view", "show", "cat", "fetch", "open", "skim", "load", "download"})


def free_form(schema: Any) -> bool:
    """Whether ``schema`` is an object schema that names no field (``additionalProperties`` at most)."""
    if not isinstance(schema, dict) or schema.get("type") not in ("object", None) or "type" not in schema:
        return False
    shaping = {"properties", "patternProperties", "anyOf", "oneOf", "allOf", "$ref", "required", "items"}
    return not shaping & set(schema) and schema.get("additionalProperties") is not False


def predict_free_object(step: Step, predict: Callable[[Step], Prediction]) -> Prediction | None:
    """The answer of a tool whose outputSchema is free-form (or absent, for an editor's tools); None otherwise."""
    out = step.tool.output_schema
    if out is not None and not free_form(out):
        return None
    edited = predict_editor(step)
    if out is None:
        return edited
    answer = edited if edited is not None else predict(dataclasses.replace(step, tool=_plain(step)))
    if answer.is_error:
        return answer
    said = answer.observation if answer.text is None or not isinstance(answer.observation, str) else answer.text
    return dataclasses.replace(answer, observation=as_object(step, said), text=None, checked=False)


def _plain(step: Step) -> Any:
    """The tool without its outputSchema (cached on the tool): the one the bare-answer path answers."""
    spec = step.tool
    plain = spec.__dict__.get(_PLAIN)
    if plain is None:
        definition = {k: v for k, v in spec.definition.items() if k != "outputSchema"}
        plain = dataclasses.replace(spec, definition=definition)
        spec.__dict__[_PLAIN] = plain
    return plain


def as_object(step: Step, answer: Any) -> JSONDict:
    """``answer`` as a JSON object: itself, the object its JSON text holds, else under one named key."""
    if isinstance(answer, str):
        try:
            parsed = json.loads(answer)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            answer = parsed
    if isinstance(answer, dict):
        return answer
    return {_key(step, answer): answer}


def _key(step: Step, answer: Any) -> str:
    """The one field a non-object answer goes under, named from the tool's words."""
    if isinstance(answer, list):
        collection = step.role.collection
        return collection if collection and collection.isidentifier() else "items"
    if isinstance(answer, str):
        return "content" if set(words(step.tool.name)) & _READS else "message"
    return "result"


__all__ = ["as_object", "free_form", "predict_free_object"]
