"""A "next" tool reads one item: the first one still pending.

``get_next_task(requestId)`` "return the next pending task (not done yet)" is a listing by
its arguments (the request's tasks), but its answer is one task, not an array (recorded from
``@kazuph/mcp-taskmanager``: ``tests/realism/ground_truth/taskmanager.jsonl``). The entity
model marks such tools (``extra["first"]``: "next" and a singular noun in the name); the
listing already leaves out what is done, so the first item listed is the next one, and an
empty listing says nothing is left. Only tools without an outputSchema (a schema decides).
"""

from __future__ import annotations

import dataclasses

from ...world.roles import ToolRole, singular
from ..base import Prediction, Step


def first_pending(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` (a listing) as the one item a "next" tool returns; unchanged for other tools."""
    if not role.extra.get("first") or answer.is_error or step.tool.output_schema:
        return answer
    listed = answer.observation
    if not isinstance(listed, list):
        return answer
    if listed:
        return dataclasses.replace(answer, observation=listed[0])
    noun = singular(role.collection).replace("_", " ")
    return dataclasses.replace(answer, observation=f"No pending {noun} left: every {noun} is done.")
