"""Refusals any mature API gives, before a record call is answered (each module says when).

An interval whose end precedes its start (:mod:`.intervals`), a recurrence rule RFC 5545 rejects
(:mod:`.recurrence`) on a write, and a parent the world does not hold on any call (:mod:`.parents`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .intervals import inverted
from .parents import missing_parent
from .recurrence import invalid_rule

if TYPE_CHECKING:
    from ...world.roles import ToolRole
    from ..base import Prediction, Step

#: Kinds of call that write what they are given.
_WRITES = frozenset({"create", "update"})


def refused(step: Step, role: ToolRole) -> Prediction | None:
    """The refusal of this record call, else None (the call is answered as usual)."""
    if role.kind in _WRITES:
        if (problem := inverted(step) or invalid_rule(step)) is not None:
            return problem
    return missing_parent(step, role)
