"""Answers in the catalog's house style (:mod:`...world.house_style`): the envelope its tools state.

When most tools of a catalog that say what they return say ``{"success": true, ...}``, a tool that
says nothing answers in the same envelope: the flag, then the payload under the key its noun gives
(``{"success": true, "item": {...}}`` for one record, ``{"success": true, "items": [...]}`` for a
list, other objects' fields beside the flag, an acknowledgement's sentence as its ``message``), and a refusal in band in the catalog's failure shape
(``{"success": false, "error": "Item 77 not found"}``), ``isError`` false. A tool that states a
success shape with the flag but no failure refuses in the catalog's failure shape too. Tools with an
outputSchema are left as they are.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...state.result import dump_json
from ...world.described_shape import DescribedReturns, described_returns, failure_answer
from ...world.house_style import HouseStyle, flag_of, house_style, stated_shape
from ...world.roles import singular
from ..base import Prediction, Step
from .learned_error_envelope import error_envelope

JSONDict = dict[str, Any]
#: Kinds whose answer is the record they act on, put under its noun.
_RECORD_KINDS = ("create", "read", "update", "action", "move")


def in_house_style(step: Step, answer: Prediction) -> Prediction:
    """``answer`` in the house style of ``step``'s catalog; unchanged where it has none or the tool states its own."""
    if step.tool.output_schema or step.effects_only:
        return answer
    if answer.is_error and error_envelope(step) is not None:
        return answer  # a recorded server's own error envelope wins (learned_error_envelope.py)
    style = step.derived("house style", lambda: house_style(step.world.tools))
    if style is None:
        return answer
    own = stated_shape(step.tool.definition)
    if own is not None:
        stated = described_returns(step.tool.description)
        if answer.is_error and flag_of(own) == style.flag and (stated is None or stated.failure is None):
            return _refused(step, answer, style)
        if _flagless(step, own, stated, answer):  # ``Dict with items and total_count``: the flag goes without saying
            return dataclasses.replace(answer, observation={style.flag: True, **answer.observation})
        return answer
    if answer.is_error:
        return _refused(step, answer, style)
    return _enveloped(step, answer, style)


def _flagless(step: Step, own: JSONDict, stated: DescribedReturns | None, answer: Prediction) -> bool:
    """Whether a successful answer in a shape the description states (not one learned from a recording)
    leaves out the house flag."""
    learned = (step.tool.definition.get("_meta") or {}).get("agentworld/output_shape")
    return (not learned and stated is not None and stated.success is not None and flag_of(own) is None
            and not answer.is_error and answer.text is None and isinstance(answer.observation, dict)
            and own.get("type") == "object" and not any(isinstance(v, bool) for v in answer.observation.values()))


def _refused(step: Step, failure: Prediction, style: HouseStyle) -> Prediction:
    message = failure.text if failure.text is not None else str(failure.observation)
    body = failure_answer(DescribedReturns(None, style.failure, style.codes), message, step.role.noun)
    if body is None:
        return failure
    return dataclasses.replace(failure, observation=body, is_error=False, effects=[], text=None, checked=False)


def _enveloped(step: Step, answer: Prediction, style: HouseStyle) -> Prediction:
    observation = answer.observation
    role = step.role
    last = (role.collection or "").split("_")[-1]
    flag: JSONDict = {style.flag: True}
    if isinstance(observation, list):
        body: JSONDict = {**flag, role.items_field or last or "items": observation}
    elif isinstance(observation, str) and answer.text is None:
        body = {**flag, "message": observation}  # an acknowledgement: the catalog answers in its envelope
    elif not isinstance(observation, dict) or isinstance(observation.get(style.flag), bool):
        return answer  # already flagged
    elif role.style == "record" and role.kind in _RECORD_KINDS and _is_record(observation, role.key_field) and last:
        body = {**flag, singular(last): observation}
    else:
        body = {**flag, **observation}
    text = answer.text
    if text is not None:  # a page's text: the listing's JSON, then how to get more
        before = dump_json(observation)
        text = dump_json(body) + text[len(before):] if text.startswith(before) else None
    return dataclasses.replace(answer, observation=body, text=text)


def _is_record(observation: JSONDict, key_field: str) -> bool:
    """Whether an answer is one entity (it carries its key and a field besides), not an operation's report."""
    return key_field in observation and len(observation) > 1 and "deleted" not in observation


__all__ = ["in_house_style"]
