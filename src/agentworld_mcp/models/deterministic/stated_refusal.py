"""Refusals of an argument value outside what the catalog states (:mod:`...world.stated_values`).

An ``enum`` or ``minimum`` in the input schema is checked before any world model is asked; a
vocabulary or a range stated only in words (``Types: 'blocks', 'depends_on'``, ``Complexity 1-5``)
is checked here, and the call refused as real servers word it (``Complexity must be 1-5, got 7``).
The refusal is served as the tool serves failures: in the shape its description states, in band
where its catalog's convention says so, else ``isError``. A domain engine (which refuses in its
own words) and a refusal learned from a recording of the argument outrank the words.
"""

from __future__ import annotations

from typing import Any

from ...world.stated_values import Stated, inside, stated_values
from ..base import Prediction, Step
from .common import error

JSONDict = dict[str, Any]


def stated_refusal(step: Step) -> Prediction | None:
    """The refusal of ``step``'s first argument value the catalog's words rule out, served; None otherwise."""
    found = step.tool.__dict__.get("_agentworld_stated_values")
    if found is None:
        props = (step.tool.input_schema.get("properties") or {})
        found = {arg: s for arg, prop in props.items() if isinstance(prop, dict) and "enum" not in prop
                 and (s := stated_values(step.tool.description, arg, prop, props)) is not None}
        step.tool.__dict__["_agentworld_stated_values"] = found
    if not found:
        return None
    for arg, stated in found.items():
        message = _refused(arg, step.arguments.get(arg), stated)
        if message is not None and not _learned(step, arg) and not _computed(step):
            return _served(step, error(message))
    return None


def _refused(arg: str, value: Any, stated: Stated) -> str | None:
    label = arg.replace("_", " ").strip()
    label = label[:1].upper() + label[1:]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if stated.bounds is not None and number and not inside(value, stated.bounds):
        lo, hi = stated.bounds
        if lo is not None and hi is not None:
            return f"{label} must be {lo}-{hi}, got {value}"
        return f"{label} must be at least {lo}, got {value}" if lo is not None else f"{label} must be at most {hi}, got {value}"
    if stated.allowed and isinstance(value, str) and value.lower() not in {a.lower() for a in stated.allowed}:
        return f"Invalid {label.lower()} '{value}'. Must be one of: {', '.join(stated.allowed)}"
    return None


def _learned(step: Step, arg: str) -> bool:
    """Whether a recording taught how this tool refuses ``arg``'s values (its wording and bounds then hold)."""
    from .learned_state import learned

    rules = learned(step).get("rules") or ()
    return any(isinstance(r, dict) and isinstance(r.get("when"), dict) and r["when"].get("if") == "value"
               and r["when"].get("arg") == arg for r in rules)


def _computed(step: Step) -> bool:
    from .learned_rules import computed

    return computed(step)


def _served(step: Step, refusal: Prediction) -> Prediction:
    """``refusal`` as the tool serves failures: its stated failure shape, else its catalog's convention."""
    from .described_answer import stated_failure
    from .failures import in_band
    from .served import serving

    answer = stated_failure(step, refusal)
    if not answer.is_error:
        return answer
    how = serving(step)
    if how is not None and how.convention.in_band:
        return in_band(step, answer, how.convention, step.role.noun, None)
    return answer


__all__ = ["stated_refusal"]
