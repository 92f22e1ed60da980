"""Learned state lifecycles served: a transition tool moves the stored entity along the recorded order.

``sim2real/learn_lifecycle.py`` writes, under a tool's ``_meta``::

    "agentworld/lifecycle": {"collection": "items", "word": "status_name", "id": "status_id",
                             "previous": "previous_status", "new": "new_status",
                             "order": ["backlog", "todo", "in_progress", "closed"],
                             "ids": {"backlog": 1, "todo": 2, "in_progress": 3, "closed": 6},
                             "move": "next" | "fixed" (with "target") | "set" (with "argument"),
                             "refusals": {"closed": {<the recorded result>}}}

:func:`with_lifecycle` takes the model's answer to such a tool and makes it the state's: the previous
word is the entity's state word, the new one the next state, the fixed target or the argument; the
entity's word and id fields move together (a later list by state finds it). A state the recording
showed refused is answered as recorded. An entity the state does not hold keeps the model's answer
(its not-found). A list tool's ``filters`` (``{"status": "status_name"}``) say which field a word
argument compares with (:func:`state_field`).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...state.ledger import Effect
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned lifecycle.
LIFECYCLE_META = "agentworld/lifecycle"


def lifecycle_of(step: Step) -> JSONDict:
    meta = (step.tool.definition.get("_meta") or {}).get(LIFECYCLE_META)
    return meta if isinstance(meta, dict) else {}


def state_field(step: Step | None, name: str, item: JSONDict) -> str | None:
    """The item's field a list tool's ``name`` argument filters on, as the recording showed it."""
    if step is None:
        return None
    filters = lifecycle_of(step).get("filters")
    found = filters.get(name) if isinstance(filters, dict) else None
    return found if isinstance(found, str) and found in item else None


def _target(meta: JSONDict, step: Step, current: str) -> str | None:
    order = [w for w in meta.get("order") or () if isinstance(w, str)]
    how = meta.get("move")
    if how == "fixed":
        target = meta.get("target")
        return target if isinstance(target, str) else None
    if how == "set":
        given = step.arguments.get(str(meta.get("argument")))
        return given if isinstance(given, str) and given else None
    if current in order and order.index(current) + 1 < len(order):
        return order[order.index(current) + 1]
    return None  # the last state, or one the recording never ordered: the model answers


def _set_path(observation: Any, path: str, value: Any) -> bool:
    target = observation
    if isinstance(target, dict) and list(target) == ["result"] and isinstance(target["result"], dict):
        target = target["result"]  # FastMCP's wrapper: the paths are the printed value's
    *parents, leaf = path.split(".")
    for name in parents:
        target = target.get(name) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return False
    target[leaf] = value
    return True


def _refused(recorded: JSONDict) -> Prediction:
    from ..base import Prediction
    from .learned_state import answer_data, answer_text

    data = answer_data(recorded)
    return Prediction(data if data is not None else answer_text(recorded), is_error=bool(recorded.get("isError")),
                      effects=[])


def with_lifecycle(step: Step, answer: Prediction) -> Prediction:
    """``answer`` moved along the tool's learned lifecycle (see the module doc)."""
    meta = lifecycle_of(step)
    word, collection = meta.get("word"), meta.get("collection")
    if not isinstance(word, str) or not isinstance(collection, str) or answer.is_error:
        return answer
    from ...state.ledger import Effect
    from . import records

    role = step.role
    key = role.key_of(step.arguments)
    entity = records.lookup(step, dataclasses.replace(role, collection=collection), str(key)) if key is not None else None
    ids: JSONDict = found if isinstance(found := meta.get("ids"), dict) else {}
    id_name = meta.get("id")
    if entity is None:
        return answer
    current = entity.fields.get(word)
    if current is None and isinstance(id_name, str):  # only the id stored: its word
        current = next((w for w, i in ids.items() if i == entity.fields.get(id_name)), None)
    if not isinstance(current, str):
        return answer
    refusals = meta.get("refusals")
    if isinstance(refusals, dict) and isinstance(refusals.get(current), dict):
        return _refused(refusals[current])
    new = _target(meta, step, current)
    if new is None:
        return answer
    observation = copy.deepcopy(answer.observation)
    if not all(_set_path(observation, str(meta.get(p)), w) for p, w in (("previous", current), ("new", new))):
        return answer
    changes: JSONDict = {word: new}
    if isinstance(id_name, str) and new in ids:
        changes[id_name] = ids[new]
    effects: list[Effect] = [e for e in answer.effects or () if (e.collection, e.key) != (collection, entity.key)]
    kept = {k: v for e in answer.effects or () if (e.collection, e.key) == (collection, entity.key)
            for k, v in e.fields.items() if k in entity.fields}  # the model's ``updated_at``; no invented field
    effects.append(Effect("update", collection, entity.key, {**kept, **changes}))
    text = answer.text
    return dataclasses.replace(answer, observation=observation, effects=effects,
                               text=None if isinstance(text, str) and text.lstrip()[:1] in ("{", "[") else text)


__all__ = ["LIFECYCLE_META", "lifecycle_of", "state_field", "with_lifecycle"]
