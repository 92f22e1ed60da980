"""An operation that reports itself in a status line: the line, and only the fields its outputSchema lists.

Programs that act on their own state often answer an operation with a status line rather than the
record: ``close_item(item_id=3)`` -> ``{"status": "Item 3 has been closed successfully."}``. The
outputSchema says so when a string field with no listed values is described as the status of an
operation (``Status of the close operation``, ``Login status message``, ``Status of the
transaction``) or as the status of what the tool itself does (``The status of the irrigation`` of
``start_irrigation``, a tool that addresses no record; ``Initial status of the order`` of a tool
that creates orders is the order's own state, and is left alone). Such a field gets the outcome
sentence of :mod:`.outcome_text` (the tool's verb and noun, the call's short values; a lone longer
value, ``zone: north orchard, rows 4 to 9``, is named too, since it is what the line is about),
and the answer holds only the fields the outputSchema lists, not the record the handler rendered.
Effects are the handler's, untouched.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ...world.roles import ToolRole, words
from ..base import Prediction, Step

JSONDict = dict[str, Any]

_STATUS_NAMES = frozenset({"status", "message", "result", "msg", "detail", "details", "notification", "outcome",
                           "confirmation"})
_OPERATION = re.compile(r"\bstatus (?:message|of (?:the |this )?(?:[\w-]+ )?(?:operation|transaction|request|action|"
                        r"call|attempt))\b", re.IGNORECASE)
_LISTED = re.compile(r"\[enum\]|\bone of\b", re.IGNORECASE)
_SECRET = re.compile(r"pass(?:word)?|secret|token", re.IGNORECASE)
#: A lone argument value longer than this is content (a message body), not what the status line is about.
_LONG = 120


def status_field(step: Step, role: ToolRole) -> str | None:
    """The outputSchema's field that reports the operation in a line, if it has one."""
    props = (step.tool.output_schema or {}).get("properties") or {}
    for name, sub in props.items():
        if name.lower() not in _STATUS_NAMES or not isinstance(sub, dict) or sub.get("type") != "string":
            continue
        text = str(sub.get("description") or "")
        if sub.get("enum") or sub.get("format") or _LISTED.search(text):
            continue
        if _OPERATION.search(text) or _about_itself(step, role, text):
            return name
    return None


def _about_itself(step: Step, role: ToolRole, text: str) -> bool:
    """``The status of the irrigation`` of ``start_irrigation``, a tool that addresses no record."""
    if role.collection in step.episode.ledger.collections() or role.key_args or role.kind == "create":
        return False  # a tool that creates a record reports that record's own state
    nouns = words(step.tool.name)[1:]
    return bool(nouns) and re.search(rf"\bstatus of (?:the )?{re.escape(nouns[-1])}\b", text, re.IGNORECASE) is not None


def status_line(step: Step) -> str:
    """:func:`.outcome_text.sentence`, naming a lone argument's value when the sentence names none."""
    from .outcome_text import sentence

    line = sentence(step)
    shown = {k: v for k, v in step.arguments.items()
             if isinstance(v, (str, int, float)) and not isinstance(v, bool) and not _SECRET.search(k)}
    if len(shown) == 1 and not any(str(v) in line for v in shown.values()):
        (name, value), = shown.items()
        if len(str(value)) <= _LONG:
            line = f"{line.rstrip('.')} ({name}: {value})."
    return line


def reported(step: Step, role: ToolRole, prediction: Prediction) -> Prediction:
    """The handler's answer as the operation's status line where the outputSchema asks for one
    (see the module doc); anything else passes through unchanged."""
    out = step.tool.output_schema
    if not out or prediction.is_error or not isinstance(prediction.observation, dict):
        return prediction
    field = status_field(step, role)
    if field is None:
        return prediction
    from .common import conform

    props = out.get("properties") or {}
    body = {n: v for n, v in prediction.observation.items() if n in props}
    body[field] = status_line(step)
    return replace(prediction, observation=conform(body, out, step.rng), text=None, checked=False)


__all__ = ["reported", "status_field", "status_line"]
