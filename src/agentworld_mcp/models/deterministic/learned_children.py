"""Learned children served: a splitting call creates one entity per item of its list argument, and reads of
the parent list them.

``sim2real/learn_children.py`` writes, under a tool's ``_meta``::

    "agentworld/children": {"spawn": {"argument": "into", "path": "subtasks", "field": "title",
                                      "links": {"parent_id": "id"}, "key": {"field": "id", "number": true},
                                      "defaults": {"status": "pending"}, "instants": ["created_at"],
                                      "fields": [...], "shows": "parent", "collection": "tasks"}}
    "agentworld/children": {"view": {"path": "subtasks", "link": "parent_id", "argument": "id",
                                     "collection": "tasks", "fields": ["id", "title", "status"]}}

:func:`with_children` answers a ``spawn`` tool with the children it creates (fresh keys after the episode's,
the item, the links from the call, the recorded defaults, the model's clock for instants) under ``path``,
the linked entity as the state holds it under ``shows``, and stores the children; a ``view`` read lists the
live entities whose link field names the key it reads, each with only the ``fields`` the recorded reads
showed (all of them where the recording listed none). A link naming nothing the state holds, or a failed
answer, is left to the model and the learned rules.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned children.
CHILDREN_META = "agentworld/children"


def _payload(observation: Any) -> JSONDict | None:
    if isinstance(observation, dict) and list(observation) == ["result"] and isinstance(observation["result"], dict):
        return observation["result"]  # FastMCP's wrapper: the fields are the printed value's
    return observation if isinstance(observation, dict) else None


def _changed(answer: Prediction, observation: Any, effects: list[Any] | None) -> Prediction:
    text = answer.text
    return dataclasses.replace(answer, observation=observation, effects=effects,
                               text=None if isinstance(text, str) and text.lstrip()[:1] in ("{", "[") else text)


def _spawned(step: Step, answer: Prediction, meta: JSONDict) -> Prediction:
    from ...state.ledger import Effect
    from . import records
    from .common import now_iso

    items, collection = step.arguments.get(str(meta.get("argument"))), meta.get("collection")
    links: JSONDict = found if isinstance(found := meta.get("links"), dict) else {}
    key_meta: JSONDict = found if isinstance(found := meta.get("key"), dict) else {}
    key_field = key_meta.get("field")
    if not isinstance(items, list) or not items or not isinstance(collection, str) or not isinstance(key_field, str):
        return answer
    role = dataclasses.replace(step.role, kind="create", collection=collection, key_field=key_field)
    linked = [step.arguments.get(str(a)) for a in links.values()]
    parents = [records.lookup(step, dataclasses.replace(step.role, collection=collection), str(v)) for v in linked]
    if any(p is None for p in parents):
        return answer  # the link names nothing the state holds: the model's (or a rule's) refusal stands
    observation = copy.deepcopy(answer.observation)
    payload = _payload(observation)
    if payload is None:
        return answer
    children: list[JSONDict] = []
    effects = list(answer.effects or [])
    for offset, item in enumerate(items):
        key: Any = records.new_key(step, role, None, offset)
        if key_meta.get("number") is True and isinstance(key, str) and key.isdigit():
            key = int(key)
        values: JSONDict = {key_field: key, str(meta.get("field")): item,
                            **{str(f): step.arguments.get(str(a)) for f, a in links.items()},
                            **(meta.get("defaults") or {}), **{str(f): now_iso(step.turn) for f in meta.get("instants") or ()}}
        order = [f for f in meta.get("fields") or () if f in values]
        child = {f: values[f] for f in order + [f for f in values if f not in order]}
        children.append(child)
        effects.append(Effect("create", collection, role.scoped(step.arguments, str(key)), copy.deepcopy(child)))
    payload[str(meta.get("path"))] = children
    shows = meta.get("shows")
    if isinstance(shows, str) and parents and parents[0] is not None:
        payload[shows] = copy.deepcopy(parents[0].fields)
    return _changed(answer, observation, effects)


def _summary(fields: JSONDict, shown: list[Any] | None) -> JSONDict:
    """The child as the read lists it: only the fields the recording showed there, else the whole entity."""
    if not shown:
        return copy.deepcopy(fields)
    return {str(f): copy.deepcopy(fields.get(str(f))) for f in shown}


def _viewed(step: Step, answer: Prediction, meta: JSONDict) -> Prediction:
    path, link, collection = meta.get("path"), meta.get("link"), meta.get("collection")
    key = step.arguments.get(str(meta.get("argument")))
    observation = copy.deepcopy(answer.observation)
    payload = _payload(observation)
    if payload is None or not isinstance(path, str) or not isinstance(link, str) or not isinstance(collection, str) \
            or key is None or path not in payload:
        return answer
    shown = meta.get("fields") if isinstance(meta.get("fields"), list) else None
    payload[path] = [_summary(e.fields, shown) for e in step.episode.ledger.items(collection)
                     if e.fields.get(link) is not None and str(e.fields.get(link)) == str(key)]
    return _changed(answer, observation, answer.effects)


def with_children(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with the children the call creates or the read shows (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(CHILDREN_META)
    if not isinstance(meta, dict) or answer.is_error:
        return answer
    from .failures import reads_as_failure

    if reads_as_failure(answer.observation):  # an in-band refusal (``ok: false``) stays one
        return answer
    if isinstance(spawn := meta.get("spawn"), dict):
        return _spawned(step, answer, spawn)
    if isinstance(view := meta.get("view"), dict):
        return _viewed(step, answer, view)
    return answer


__all__ = ["CHILDREN_META", "with_children"]
