"""Counts per state served from the episode's entities (``sim2real/learn_counts.py`` learns where they are).

A summary tool answers how many entities hold each value of a field, or of two fields nested
(``{"summary": {"feature": {"backlog": 2}, "issue": {"closed": 1}}}``: by type, then by state). The
counts are the state's: a tool's ``_meta["agentworld/counts"]`` says where the answer holds them and
by which fields of which collection they group::

    [{"path": "summary", "collection": "items", "by": ["type_name", "status_name"], "sorted": true}]

and the answer's object at that path is replaced by the counts of the collection's live entities
(a group no entity holds is absent, as the server's ``GROUP BY`` leaves it out).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition whose answers hold counts of entities grouped by their fields.
COUNTS_META = "agentworld/counts"


def grouped(entities: Iterable[JSONDict], by: list[str], in_order: bool = False) -> JSONDict:
    """``{value of by[0]: {value of by[1]: count}}`` (one level per field); entities lacking a field are left out."""
    out: JSONDict = {}
    for fields in entities:
        values = [fields.get(name) for name in by]
        if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            continue
        holder = out
        for value in values[:-1]:
            holder = holder.setdefault(str(value), {})
        holder[str(values[-1])] = holder.get(str(values[-1]), 0) + 1
    return _sorted(out) if in_order else out


def _sorted(value: Any) -> Any:
    return {k: _sorted(value[k]) for k in sorted(value)} if isinstance(value, dict) else value


def with_counts(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with the learned counts computed from the episode's entities (see the module doc)."""
    metas = (step.tool.definition.get("_meta") or {}).get(COUNTS_META)
    if not isinstance(metas, list) or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    observation = copy.deepcopy(answer.observation)
    changed = False
    for meta in metas:
        path, collection, by = meta.get("path"), meta.get("collection"), meta.get("by")
        if not isinstance(path, str) or not isinstance(collection, str) or not isinstance(by, list):
            continue
        *parents, leaf = path.split(".")
        holder: Any = observation
        for name in parents:
            holder = holder.get(name) if isinstance(holder, dict) else None
        if not isinstance(holder, dict):
            continue
        entities = [e.fields for e in step.episode.ledger.items(collection)]
        holder[leaf] = grouped(entities, [str(b) for b in by], bool(meta.get("sorted")))
        changed = True
    return dataclasses.replace(answer, observation=observation, text=None) if changed else answer


__all__ = ["COUNTS_META", "grouped", "with_counts"]
