"""A learned past-due listing served: only the entities whose date lies before the clock and that are open.

``sim2real/learn_due_filter.py`` writes ``_meta["agentworld/due_filter"]``
(``{"field": "due", "stamps": ["completed_at"], "finished": ["done"], "now": "2026-11-24T10:00:00+00:00",
"collection": "tasks"}``). :func:`with_due_filter` keeps, in the answer's list of entities, those whose
``field`` holds a date before ``now`` (the server's clock the recording showed; the model's clock without
one) and that neither a finished status nor a completion stamp marks; counts of that list follow it.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import TYPE_CHECKING, Any

from .common import now_iso

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned due filter.
DUE_FILTER_META = "agentworld/due_filter"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _open_and_due(item: Any, meta: JSONDict, today: str) -> bool:
    if not isinstance(item, dict):
        return True  # not an entity: not this filter's to judge
    due = item.get(str(meta.get("field")))
    if not isinstance(due, str) or _DATE.match(due) is None or due[:10] >= today:
        return False
    if any(item.get(str(s)) is not None for s in meta.get("stamps") or ()):
        return False
    return item.get("status") not in (meta.get("finished") or ())


def with_due_filter(step: Step, answer: Prediction) -> Prediction:
    """``answer`` listing only what is past due (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(DUE_FILTER_META)
    if not isinstance(meta, dict) or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    now = meta.get("now") if isinstance(meta.get("now"), str) else now_iso(step.turn)
    observation = copy.deepcopy(answer.observation)
    payload = observation["result"] if list(observation) == ["result"] and isinstance(
        observation["result"], dict) else observation  # FastMCP's wrapper: the fields are the printed value's
    lists = [k for k, v in payload.items() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)
             and any(str(meta.get("field")) in i for i in v)]
    if len(lists) != 1:
        return answer
    before = len(payload[lists[0]])
    payload[lists[0]] = [i for i in payload[lists[0]] if _open_and_due(i, meta, str(now)[:10])]
    for name, value in payload.items():  # a count of the listing follows it
        if isinstance(value, int) and not isinstance(value, bool) and value == before and name != lists[0]:
            payload[name] = len(payload[lists[0]])
    text = answer.text
    return dataclasses.replace(answer, observation=observation,
                               text=None if isinstance(text, str) and text.lstrip()[:1] in ("{", "[") else text)


__all__ = ["DUE_FILTER_META", "with_due_filter"]
