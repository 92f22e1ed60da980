"""Answers of an environment's reads in the keys a recording showed (``learn``'s environment statistics).

A program whose state is a set of named quantities (a greenhouse's water level and vents, an account's
balance, a current time) answers a status read with the quantities an argument picks, under the names
the recording shows, not in the wrapper its outputSchema declares. ``sim2real/learn_environment.py``
writes per tool, under ``_meta``::

    "agentworld/environment": {
        "unwrap": "status",                       # the declared object the answers leave out
        "keys": {"argument": "option",            # which top-level keys appear for which value
                 "cases": [["vents", ["ventStatus"]], ["water", ["waterLevel"]]]},
        "fields": ["ventStatus", "waterLevel"]}    # every top-level key the answers held

:func:`with_environment` applies them to the deterministic model's successful answer, before the
learned values: the declared wrapper is taken off (its fields become the answer), a key neither the
outputSchema nor the recording shows is left out (the model's own ``items``), and for an
argument value the recording showed, the answer holds exactly the recorded keys, each the state's
current quantity of that name (:func:`quantity`), else the model's own value; for a value it never
showed, the quantities the value names (``water`` -> ``waterLevel``; ``heating`` -> the answer field
``heatingMode`` the outputSchema lists, read from the state's ``heaterMode``). A read answers from the
state first; another tool's own answer (which holds what it changed) wins over the state's old value.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

from ...world.roles import singular, words

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned environment statistics.
ENVIRONMENT_META = "agentworld/environment"
#: Words an answer puts before the quantity it names (``currentAirTemperature`` is ``airTemperature``).
_FILLERS = ("current", "new", "updated", "remaining", "final", "present", "total")
#: A quantity's name ends in one of these for many quantities at once: never enough to match on alone.
_GENERIC = frozenset({"status", "state", "level", "value", "info", "data", "name", "id", "type"})


def environment_of(step: Step) -> JSONDict:
    meta = (step.tool.definition.get("_meta") or {}).get(ENVIRONMENT_META)
    return meta if isinstance(meta, dict) else {}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _quantities(step: Step) -> dict[str, Any]:
    """The standing state's fields by name (the first entity holding a name wins)."""
    from .determined import standing

    found: dict[str, Any] = {}
    for entity in standing(step):
        for name, value in entity.fields.items():
            found.setdefault(name, value)
    return found


def quantity(step: Step, name: str) -> tuple[bool, Any]:
    """``(found, value)``: the state's quantity an answer key names: the field of that name, of that name
    after a filler word (``currentAirTemperature`` -> ``airTemperature``), else the one field sharing the
    key's last word (``heatingMode`` -> ``heaterMode``) where no other field does."""
    held = _quantities(step)
    wanted = _key(name)
    if not wanted:
        return False, None
    for field, value in held.items():
        if _key(field) == wanted:
            return True, copy.deepcopy(value)
    bare = next((wanted[len(f):] for f in _FILLERS if wanted.startswith(f) and len(wanted) > len(f) + 2), None)
    suffixed = [f for f in held if (bare is not None and _key(f) == bare)
                or (len(_key(f)) >= 5 and wanted.endswith(_key(f)))]
    if len(suffixed) == 1:
        return True, copy.deepcopy(held[suffixed[0]])
    tokens = words(name)
    last = singular(tokens[-1]) if tokens else ""
    if not last or last in _GENERIC or len(tokens) < 2:
        return False, None
    sharing = [f for f in held if (w := words(f)) and len(w) >= 2 and singular(w[-1]) == last]
    return (True, copy.deepcopy(held[sharing[0]])) if len(sharing) == 1 else (False, None)


def _named_by(value: str, name: str) -> bool:
    """Whether a field's name carries every word of an option's value (``vents`` -> ``ventStatus``)."""
    wanted = {singular(w) for w in words(value)}
    return bool(wanted) and wanted <= {singular(w) for w in words(name)}


def _declared_fields(step: Step, wrapper: str | None) -> list[str]:
    """The answer fields the outputSchema (or learned shape) lists, inside the wrapper the answers leave out."""
    from .shape import output_shape

    schema = step.tool.output_schema or output_shape(step.tool.definition) or {}
    props = schema.get("properties") or {}
    inner = props.get(wrapper) if wrapper else None
    if isinstance(inner, dict) and isinstance(inner.get("properties"), dict):
        props = inner["properties"]
    return [n for n in props if isinstance(n, str)]


def _chosen_keys(step: Step, keys: JSONDict, wrapper: str | None) -> list[str] | None:
    """The top-level keys the answer holds for this call's value of the keyed argument (see the module doc)."""
    argument = keys.get("argument")
    value = step.arguments.get(argument) if isinstance(argument, str) else None
    if not isinstance(value, str) or not value:
        return None
    for case in keys.get("cases") or []:
        if isinstance(case, list) and len(case) == 2 and case[0] == value and isinstance(case[1], list):
            return [str(k) for k in case[1]]
    held = [f for f in _quantities(step) if _named_by(value, f)]
    if held:
        return held
    declared = [f for f in _declared_fields(step, wrapper) if _named_by(value, f)]
    return declared or None


def with_environment(step: Step, answer: Prediction) -> Prediction:
    """``answer`` in the keys the recording showed (see the module doc)."""
    meta = environment_of(step)
    if not meta or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    observation: JSONDict = copy.deepcopy(answer.observation)
    wrapper = meta.get("unwrap") if isinstance(meta.get("unwrap"), str) else None
    if wrapper is not None and isinstance(observation.get(wrapper), dict):
        observation = dict(observation[wrapper])
    fields = meta.get("fields")
    if isinstance(fields, list) and step.tool.output_schema:
        allowed = {str(f) for f in fields} | set(step.tool.output_schema.get("properties") or {})
        observation = {k: v for k, v in observation.items() if k in allowed}
    keys = meta.get("keys")
    chosen = _chosen_keys(step, keys, wrapper) if isinstance(keys, dict) else None
    if chosen:
        from .environment import reads

        reading = reads(step)
        body: JSONDict = {}
        for name in chosen:
            found, value = quantity(step, name)
            if name in observation and (not reading or not found):
                body[name] = observation[name]
            elif found:
                body[name] = value
        observation = body or observation
    if observation == answer.observation:
        return answer
    text = answer.text
    return dataclasses.replace(answer, observation=observation,
                               text=None if isinstance(text, str) and text.lstrip()[:1] in ("{", "[") else text)


__all__ = ["ENVIRONMENT_META", "environment_of", "quantity", "with_environment"]
