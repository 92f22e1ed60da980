"""A tool that counts records answers how many the episode holds: ``count_open_issues(repo)``.

A tool named ``count ...`` (or ``tally ...``) over a collection of records is a number, not a listing:
the records of its collection (seeded or made; none before anything was) that match its scalar
arguments naming their fields and the state words its name carries (``open`` against a ``status`` or
``state`` field, compared without case). The answer is ``{"count": n}`` without an outputSchema, else
``n`` in the schema's first integer field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...world.roles import PAGINATION_ARGS, words

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]

_COUNTING = frozenset({"count", "tally"})
_STATE_FIELDS = ("status", "state")


def predict_count(step: Step) -> Prediction | None:
    """The count a counting tool answers (see the module doc), or None for any other tool."""
    named = words(step.tool.name)
    role = step.role
    if not named or named[0] not in _COUNTING or role.style != "record":
        return None
    records = [e.fields for e in step.episode.ledger.items(role.collection)]
    asked = {k: v for k, v in step.arguments.items() if k not in PAGINATION_ARGS
             and isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    states = _states(named[1:], records)
    matches = [r for r in records
               if all(str(r.get(k)).casefold() == str(v).casefold() for k, v in asked.items() if k in r)
               and (not states or any(str(r.get(f, "")).casefold() in states for f in _STATE_FIELDS))]
    return _answer(step, len(matches))


def _states(named: list[str], records: list[JSONDict]) -> set[str]:
    """The words of the tool's name that are states its records are in (or the usual open/closed words)."""
    held = {str(r.get(f)).casefold() for r in records for f in _STATE_FIELDS if isinstance(r.get(f), str)}
    usual = {"open", "closed", "done", "pending", "active", "completed", "resolved", "unread", "draft"}
    return {w for w in named if w in held or w in usual}


def _answer(step: Step, count: int) -> Prediction:
    from ..base import Prediction
    from .common import conform

    out = step.tool.output_schema
    if not out:
        return Prediction({"count": count}, effects=[])
    props = out.get("properties") or {}
    name = next((p for p, s in props.items() if isinstance(s, dict) and s.get("type") in ("integer", "number")),
                "count")
    return Prediction(conform({name: count}, out, step.rng), effects=[])


__all__ = ["predict_count"]
