"""The version-control engine's answers: facts under the keys an outputSchema names, else git's text.

An operation's facts are keyed by normalised names (``currentbranch``); a schema's property is
filled from the fact of its normalised name (``current_branch`` and ``currentBranch`` alike), or
of a synonym (``stagedChanges`` <- ``staged``), nested objects and arrays of objects in turn.
A list of changes grouped by kind (``{"added": [...]}``) is flattened where the schema wants an
array; a fact that is None is left out (a real answer omits it). The result goes through
:func:`..common.conform`, which invents only what the schema requires and no fact gave.
"""

from __future__ import annotations

import re
from typing import Any

from ....state.ledger import Effect
from ...base import Prediction, Step
from ..common import conform
from .git_ops import Done

JSONDict = dict[str, Any]
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "commithash": ("hash", "commit"), "hash": ("commithash",), "sha": ("hash", "commithash"),
    "current": ("currentbranch",), "name": ("branch",), "committedfiles": ("files",),
    "conflicted": ("conflicts",), "total": ("totalcount", "count"),
}


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _flat(value: Any) -> Any:
    if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
        return sorted(p for ps in value.values() for p in ps)
    return value


def _kind(schema: JSONDict) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None:
        for alt in schema.get("anyOf") or schema.get("oneOf") or []:
            if isinstance(alt, dict) and alt.get("type") not in (None, "null"):
                return _kind(alt)
    return kind if isinstance(kind, str) else None


def fill(schema: Any, facts: JSONDict) -> JSONDict:
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return {}
    out: JSONDict = {}
    for prop, sub in props.items():
        key = _norm(prop)
        candidates = (key, *_SYNONYMS.get(key, ()))
        found = next((c for c in candidates if c in facts and facts[c] is not None), None)
        if found is not None and isinstance(sub, dict):
            out[prop] = _shape(sub, facts[found])
    return out


def _shape(schema: JSONDict, value: Any) -> Any:
    kind = _kind(schema)
    if kind == "array":
        value = _flat(value)
        items = schema.get("items")
        if isinstance(value, list) and isinstance(items, dict) and _kind(items) == "object" and "properties" in items:
            return [fill(items, v) if isinstance(v, dict) else v for v in value]
        return value if isinstance(value, list) else [value]
    if kind == "object" and isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        return fill(schema, value)
    if kind == "boolean" and isinstance(value, (list, dict)):
        return bool(value)
    if kind == "string" and isinstance(value, list):
        return "\n".join(map(str, value))
    return value


def render(step: Step, done: Done, effects: list[Effect]) -> Prediction:
    out = step.tool.output_schema
    if not out or step.effects_only:
        return Prediction(done.text or "Done.", effects=effects)
    body = fill(out, done.facts)
    if "success" in (out.get("properties") or {}):
        body["success"] = True
    return Prediction(conform(body, out, step.rng), effects=effects)


__all__ = ["fill", "render"]
