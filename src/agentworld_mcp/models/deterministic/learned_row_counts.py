"""Row counts served from the episode's state (``sim2real/learn_row_counts.py`` learns which fields they are).

A delete or update addressed by a key often answers how many entities it changed: ``{"deleted_id": 3,
"rows_affected": 1}`` when entity 3 was there, ``0`` when it was not (deleted already, never created).
That count is no constant and no echo: it is the state's. A tool's ``_meta["agentworld/row_counts"]``
names the fields, the collection and the argument holding the key::

    {"fields": ["rows_affected"], "collection": "items", "key_arg": "item_id"}

and each field of a successful answer becomes 1 when the key names a live entity before the call, else 0.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Prediction, Step

#: ``_meta`` key of a tool definition whose answers count the entities the call changed.
ROW_COUNTS_META = "agentworld/row_counts"


def with_row_counts(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with its learned count fields set from whether the call's key named an entity."""
    meta: Any = (step.tool.definition.get("_meta") or {}).get(ROW_COUNTS_META)
    if not isinstance(meta, dict) or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    fields, collection, key_arg = meta.get("fields"), meta.get("collection"), meta.get("key_arg")
    key = step.arguments.get(key_arg) if isinstance(key_arg, str) else None
    if not isinstance(fields, list) or not isinstance(collection, str) or not isinstance(key, (str, int)):
        return answer
    changed = int(step.episode.ledger.get(collection, key) is not None)  # the state before this call
    observation = copy.deepcopy(answer.observation)
    touched = False
    for field in fields:
        if isinstance(field, str) and field in observation and observation[field] != changed:
            observation[field] = changed
            touched = True
    return dataclasses.replace(answer, observation=observation, text=None) if touched else answer


__all__ = ["ROW_COUNTS_META", "with_row_counts"]
