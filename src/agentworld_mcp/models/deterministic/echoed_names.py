"""An answer field named after the call's own action echoes what the call named.

``create_calendar(name)`` answers ``{"ok": true, "created": "Book club"}`` and
``delete_event(uid)`` ``{"ok": true, "deleted": "<uid>"}``: a field that is the past participle
of the tool's verb (``created``, ``deleted``, ``renamed``, ``added``) reports *what* was acted
on, not *when*. When the call names exactly one thing (one name-like argument), that field
echoes its value. Timestamps keep their own names (``created_at``, ``createdAt``), and a field a
schema types as anything but a string (``deleted: true``) is left as it is.
"""

from __future__ import annotations

from typing import Any

from ..base import Step
from ...world.roles import is_id_name, verb_kind, words

JSONDict = dict[str, Any]

#: Arguments that name a thing without being id-shaped.
_NAME_WORDS = frozenset({"title", "label"})


def echo_named_action(step: Step, observation: Any, shape: JSONDict) -> Any:
    """``observation`` with its action-named field (``created``) set to the one name the call gave."""
    if not isinstance(observation, dict) or step.role.kind not in ("create", "delete", "move"):
        return observation
    field = _action_field(step.tool.name, observation, shape)
    if field is None:
        return observation
    named = [v for k, v in step.arguments.items()
             if (is_id_name(k) or k.lower() in _NAME_WORDS) and isinstance(v, (str, int)) and not isinstance(v, bool)]
    if len(named) != 1 or observation.get(field) == named[0]:
        return observation
    return {**observation, field: named[0]}


def _action_field(tool_name: str, observation: JSONDict, shape: JSONDict) -> str | None:
    """The answer's field that is the past participle of a verb of the tool's name, if any."""
    verbs = [w for w in words(tool_name)[:2] if verb_kind(w) is not None]
    declared = (shape.get("properties") or {}) if isinstance(shape, dict) else {}
    for field in observation:
        if not any(field.lower() in _participles(v) for v in verbs):
            continue
        typed = declared.get(field)
        if isinstance(typed, dict) and typed.get("type") not in (None, "string") or (
                isinstance(typed, dict) and typed.get("format") in ("date-time", "date")):
            return None
        return field
    return None


def _participles(verb: str) -> tuple[str, ...]:
    """``create`` -> created; ``add`` -> added; ``drop`` -> dropped."""
    if verb.endswith("e"):
        return (verb + "d",)
    return (verb + "ed", verb + verb[-1] + "ed")
