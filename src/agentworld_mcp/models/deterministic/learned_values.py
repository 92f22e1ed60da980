"""Answer values the recording makes clear, filled where the model would invent them (``learn``'s statistics).

``sim2real/learn_values.py`` writes per tool, under ``_meta``, JSON Schema keywords per answer path
(``item.status_id``, ``data.matches[].kind``; list items as ``[]``)::

    "agentworld/values": {"success": {"const": true},
                          "item.type_id": {"x-argument": "item_type", "x-cases": [["feature", 3]]},
                          "data.matches[].kind": {"enum": ["content", "tag"]},
                          "data.total_characters": {"minimum": 0, "maximum": 192}}

:func:`with_values` applies them to the deterministic model's successful answer, last, so a
field the shape's generator filled at random reads as the server's: a constant is set, a case is
looked up by the call's argument (an argument value the recording never showed keeps the model's
answer), a word outside the vocabulary becomes the most frequent one, a word the one recorded answer
showed (``examples``) stands for the model's, a number past the
recording's magnitude is drawn within its range. What the episode determines is never
overridden: a field named like an argument of the call, a value the call's arguments hold, a field
of an entity the state already holds (a read shows what the ledger says). The entity the call
creates or changes gets the same values, so a later read shows them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .failures import reads_as_failure
from .learned_state import VALUES_META, key_of, values_of
from ...world.values import leaves, same_value

if TYPE_CHECKING:
    from ...state.ledger import Effect
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: Texts shorter than this are not looked up in the state (``a``, ``ok`` are everywhere).
_MIN_TEXT = 2


def leaf_name(path: str) -> str:
    """``data.matches[].kind`` -> ``kind``."""
    return path.rsplit(".", 1)[-1].replace("[]", "")


def _slots(value: Any, prefix: str = "", holder: str = "") -> Iterator[tuple[str, JSONDict, str, str]]:
    """``(path, object, field, the field naming the object)`` for every scalar field of an object."""
    if isinstance(value, dict):
        for name, sub in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(sub, (dict, list)):
                yield from _slots(sub, path, name)
            else:
                yield path, value, name, holder
    elif isinstance(value, list):
        for item in value:
            yield from _slots(item, prefix + "[]", holder)





def _held(step: Step, obj: JSONDict, name: str, holder: str) -> bool:
    """Whether the state already holds ``name`` of the entity ``obj`` shows (a read of the ledger)."""
    from ...world.roles import collection_name

    role = step.role
    ledger = step.episode.ledger
    keys = {k for k in (key_of(obj), obj.get(role.key_field) if role.key_field else None)
            if isinstance(k, (str, int)) and not isinstance(k, bool)}
    collections = {c for c in (role.collection, collection_name(holder) if holder else None) if c}
    for collection in collections:
        for key in keys:
            entity = ledger.get(collection, str(key))
            if entity is None and role.scope_of(step.arguments):
                entity = ledger.get(collection, role.scoped(step.arguments, str(key)))
            if entity is not None and name in entity.fields:
                return True
    return False


def _failure(observation: Any, statistics: JSONDict) -> bool:
    """Whether the answer reports a failure in band, a flag the recording always showed set one way aside:
    a generator's random ``success: false`` beside a success's fields is no failure, an ``error`` is."""
    if isinstance(observation, dict):
        observation = {k: v for k, v in observation.items()
                       if not (isinstance(v, bool) and isinstance(statistics.get(k), dict)
                               and isinstance(statistics[k].get("const"), bool))}
    return reads_as_failure(observation)


def _known_texts(step: Step) -> set[str]:
    """Every text a field of the state holds, and every text an earlier call passed."""
    ledger = step.episode.ledger
    found = {v for c in ledger.collections() for e in ledger.items(c) for v in leaves(e.fields)}
    found.update(v for t in step.episode.turns for v in leaves(t.arguments))
    return {v for v in found if isinstance(v, str)}


def _magnitude(maximum: int) -> int:
    """The largest number of ``maximum``'s digits (192 -> 999): a count of the same order still fits."""
    return 10 ** len(str(abs(maximum))) - 1


def _value(step: Step, statistic: JSONDict, current: Any) -> tuple[bool, Any]:
    """``(whether to set, the value)`` the statistic gives for a field the model answered ``current``."""
    argument = statistic.get("x-argument")
    if isinstance(argument, str):
        given = step.arguments.get(argument)
        if argument not in step.arguments and "x-absent" in statistic:
            return True, statistic["x-absent"]  # an optional argument left out: the server's default
        if given is None or isinstance(given, (dict, list)):
            return False, None
        cases = statistic.get("x-cases")
        if cases is None:
            return True, given
        form = json.dumps(given, sort_keys=True)
        found = [case[1] for case in cases if isinstance(case, list) and len(case) == 2
                 and json.dumps(case[0], sort_keys=True) == form]
        return (True, found[0]) if found else (False, None)
    if "const" in statistic:
        return True, statistic["const"]
    if "x-first" in statistic:  # the server's first id: this episode's first answer of the tool only
        earlier = any(t.tool == step.tool.name and not t.result.get("isError") for t in step.episode.turns)
        return (False, None) if earlier else (True, statistic["x-first"])
    if current is None:  # a null is the model's "nothing": no word or number is known to stand there
        return False, None
    enum = statistic.get("enum")
    if isinstance(enum, list) and enum:
        return (False, None) if current in enum else (True, enum[0])
    examples = statistic.get("examples")
    if isinstance(examples, list) and examples and isinstance(current, str):
        return True, examples[0]
    low, high = statistic.get("minimum"), statistic.get("maximum")
    if isinstance(low, int) and isinstance(high, int) and high >= low:
        fits = isinstance(current, int) and not isinstance(current, bool) and low <= current <= _magnitude(high)
        return (False, None) if fits else (True, step.rng.randint(low, high))
    return False, None


def with_values(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with the tool's learned statistics applied (see the module doc)."""
    from .learned_created import with_created  # a new entity in the state the recording showed new ones in
    from .learned_instants import with_instants  # an argument's instant in the server's zone

    answer = with_created(step, with_instants(step, answer))
    statistics = values_of(step)
    if not statistics or answer.is_error or not isinstance(answer.observation, (dict, list)):
        return answer
    from .learned_rules import computed

    if _failure(answer.observation, statistics) or computed(step) or step.role.style == "sql":
        return answer  # an engine's answer is the state's, a database's too
    from .editor import edits

    if edits(step):  # the editor's line numbers and texts are the episode's file and selection
        return answer
    observation = json.loads(json.dumps(answer.observation))
    target = observation
    if isinstance(target, dict) and list(target) == ["result"] and isinstance(target["result"], (dict, list)):
        target = target["result"]  # FastMCP's wrapper: the paths are the printed value's
    given = [v for v in leaves(step.arguments) if v is not None]
    known: set[str] | None = None  # the texts the state and the episode's calls hold (computed once)
    changed: list[tuple[JSONDict, str, Any, Any]] = []
    moved: list[Effect] = []  # the standing quantities the call set
    for path, obj, name, holder in list(_slots(target)):
        statistic = statistics.get(path)
        if not isinstance(statistic, dict):
            continue
        current = obj[name]
        copies = statistic.get("x-argument") == name and "x-cases" not in statistic
        if not copies and (name in step.arguments or any(same_value(current, g) for g in given)):
            continue  # the call decides it
        if obj is target and (quantity := _set_quantity(step, name, statistic, current)) is not None:
            obj[name] = quantity[1].fields[name]
            changed.append((obj, name, current, obj[name]))
            moved.append(quantity[1])
            continue  # an action's learned value of a quantity the state holds: the call set it
        if _held(step, obj, name, holder):
            continue  # the state decides it
        if isinstance(current, str) and len(current) >= _MIN_TEXT:
            known = _known_texts(step) if known is None else known
            if current in known:
                continue  # a text the state or an earlier call holds: read, not invented
        settable, value = _value(step, statistic, current)
        if settable and not same_value(value, current):
            obj[name] = value
            changed.append((obj, name, current, value))
    changed += _lists_set(step, target, statistics)
    if not changed:
        return answer
    effects = None if answer.effects is None else [_stored(e, changed) for e in answer.effects]
    if moved:
        effects = [*(effects or []), *moved]
    text = answer.text
    return dataclasses.replace(answer, observation=observation, effects=effects,
                               text=None if isinstance(text, str) and text.lstrip()[:1] in ("{", "[") else text)


#: Names too general to say which quantity of the state an answer shows (``status: "success"``).
_GENERAL = frozenset({"status", "state", "result", "message", "success", "ok", "error", "value", "type", "mode"})


def _set_quantity(step: Step, name: str, statistic: JSONDict, current: Any) -> tuple[str, Effect] | None:
    """An action (no read) whose learned value stands under the name of a quantity the standing state holds
    (``startHeater`` -> ``heaterState: running``): the value, and the update that stores it, so a later
    read shows what the call set. Only a constant or a case of the call's argument, of the quantity's type."""
    from ...state.ledger import Effect
    from .determined import standing
    from .environment import reads

    if ("const" not in statistic and "x-cases" not in statistic) or name.lower() in _GENERAL or reads(step):
        return None
    settable, value = _value(step, statistic, current)
    if not settable or isinstance(value, (dict, list)):
        return None
    for entity in standing(step):
        held = entity.fields.get(name)
        if name in entity.fields and type(held) is type(value) and not same_value(held, value):
            return name, Effect("update", entity.collection, entity.key, {name: value})
    return None


def _lists_set(step: Step, target: Any, statistics: JSONDict) -> list[tuple[JSONDict, str, Any, Any]]:
    """The whole lists a case of the call's argument gives (``plant_list`` for ``bed: North``)."""
    changed: list[tuple[JSONDict, str, Any, Any]] = []
    for path, statistic in statistics.items():
        cases = statistic.get("x-cases") if isinstance(statistic, dict) else None
        if isinstance(statistic, dict) and statistic.get("const") == [] and "[]" not in path:
            cases = [[None, []]]  # a list the recording always showed empty: empty, whatever the call
        if "[]" in path or not isinstance(cases, list) or not any(
                isinstance(c, list) and len(c) == 2 and isinstance(c[1], list) for c in cases):
            continue
        *outer, name = path.split(".")
        obj = target
        for part in outer:
            obj = obj.get(part) if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or name in step.arguments:
            continue
        settable, value = (True, []) if statistic.get("const") == [] else _value(step, statistic, obj.get(name))
        if settable and isinstance(value, list) and not same_value(value, obj.get(name)):
            changed.append((obj, name, obj.get(name), value))
            obj[name] = value
    return changed


def _stored(effect: Effect, changed: list[tuple[JSONDict, str, Any, Any]]) -> Effect:
    """The creation or change of an entity the answer shows, with the values set in the answer."""
    if effect.op not in ("create", "update"):
        return effect
    fields, stored_as = dict(effect.fields), effect.key
    for obj, name, old, new in changed:
        key = key_of(obj)
        rekeyed = effect.op == "create" and str(old) == effect.key and isinstance(new, (str, int))
        mine = key is None or key == effect.key or rekeyed or any(
            str(v) == key for k, v in effect.fields.items() if k == "id" or k.endswith(("_id", "Id")))
        if mine and name in fields and same_value(fields[name], old):
            fields[name] = new
            if rekeyed:  # the answer's id was the new entity's key (a server's first id): it is stored under it
                stored_as = str(new)
    if fields == effect.fields:
        return effect
    return dataclasses.replace(effect, fields=fields, key=stored_as)


__all__ = ["VALUES_META", "leaf_name", "values_of", "with_values"]
