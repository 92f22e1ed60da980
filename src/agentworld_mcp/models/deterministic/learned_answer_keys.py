"""A learned world's answers keep to the keys the recording proved a tool's objects have.

The record model fills an entity's answer with what it keeps of it: a ``created_at`` stamp, a field
named by a filter argument (``item_type``), a nested record's every field. Where every object a tool's
recorded answers showed at one place had the same keys (``{"note_id", "title", "body", "tags"}`` in
each note of each answer), those keys are the server's form there, and a key no recorded object at
that place had is the model's invention. ``learn`` keeps such places per tool
(``sim2real/learn_answer_keys.py``)::

    "agentworld/answer_keys": {"[]": ["body", "note_id", "tags", "title"],
                               "task": ["due", "id", "title"]}

and :func:`with_answer_keys` drops from an answer, at those places only, the keys the recording never
showed there (a failure answered in band keeps its own keys). Places whose keys varied (an object keyed by values, such as a metadata map or a
per-status count) are never listed, so nothing there is dropped; nothing is ever added; keys the
outputSchema declares stay.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..base import Prediction, Step
from .failures import reads_as_failure  # an in-band failure has the failure's keys, not the success's

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the places whose keys the recording proved.
ANSWER_KEYS_META = "agentworld/answer_keys"


def child(path: str, key: str) -> str:
    """The place of ``key`` inside the object at ``path`` (``""`` is the answer itself)."""
    return f"{path}.{key}" if path else key


def item(path: str) -> str:
    """The place of a list's items at ``path``."""
    return f"{path}[]"


def with_answer_keys(step: Step, answer: Prediction) -> Prediction:
    """``answer`` without the keys the recording proved absent at its places; unchanged otherwise."""
    found = (step.tool.definition.get("_meta") or {}).get(ANSWER_KEYS_META)
    if not isinstance(found, dict) or not found or answer.is_error:
        return answer
    if reads_as_failure(_inner(answer.observation)):
        return answer
    closed = {str(p): {str(k) for k in keys} for p, keys in found.items() if isinstance(keys, list)}
    declared = _declared(step.tool.output_schema or {})
    observation = _outer(answer.observation, closed, declared)
    text = answer.text
    if isinstance(text, str) and text.lstrip()[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if parsed is not None:
            pruned = _outer(parsed, closed, declared)
            if pruned != parsed:
                text = json.dumps(pruned, indent=2 if "\n" in text else None, ensure_ascii=False)
    if observation == answer.observation and text == answer.text:
        return answer
    return dataclasses.replace(answer, observation=observation, text=text)


def _outer(value: Any, closed: dict[str, set[str]], declared: set[str]) -> Any:
    """The answer pruned, through the one-key ``{"result": ...}`` wrapper (a JSON text inside parsed)."""
    if isinstance(value, dict) and list(value) == ["result"]:
        inner = value["result"]
        if isinstance(inner, str) and inner.lstrip()[:1] in ("{", "["):
            try:
                parsed = json.loads(inner)
            except ValueError:
                return value
            pruned = _outer(parsed, closed, declared)
            if pruned == parsed:
                return value
            return {"result": json.dumps(pruned, indent=2 if "\n" in inner else None, ensure_ascii=False)}
        return {"result": _outer(inner, closed, declared)}
    return _pruned(value, "", closed, declared)


def _inner(value: Any) -> Any:
    """The answer inside one-key ``{"result": ...}`` wrappers, a JSON text parsed."""
    for _ in range(3):
        if isinstance(value, dict) and list(value) == ["result"]:
            value = value["result"]
        if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
            try:
                value = json.loads(value)
            except ValueError:
                break
    return value


def _pruned(value: Any, path: str, closed: dict[str, set[str]], declared: set[str]) -> Any:
    if isinstance(value, list):
        return [_pruned(v, item(path), closed, declared) for v in value]
    if not isinstance(value, dict):
        return value
    keep = closed.get(path)
    return {k: _pruned(v, child(path, k), closed, declared) for k, v in value.items()
            if keep is None or k in keep or k in declared}


def _declared(schema: Any) -> set[str]:
    """Every property name an outputSchema declares, at any depth (those always stay)."""
    names: set[str] = set()
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            names |= {str(k) for k in props}
        for sub in schema.values():
            names |= _declared(sub)
    elif isinstance(schema, list):
        for sub in schema:
            names |= _declared(sub)
    return names


__all__ = ["ANSWER_KEYS_META", "child", "item", "with_answer_keys"]
