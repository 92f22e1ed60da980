"""Behaviour learned from the order of a real session's calls, applied to the episode's calls.

``learn`` (``sim2real/learn_rules.py``) writes under a tool's ``_meta``::

    "agentworld/learned": {
        "rules": [{"when": {"if": "acted", "arg": "taskId", "tool": "mark_task_done"},
                   "isError": false, "text": "{\\n  \\"status\\": \\"error\\", ..."}],
        "sets": {"approved": true},
        "next": {"parent": "requestId", "skip": "mark_task_done"},
        "copies": {"thoughtNumber": "thoughtNumber"},
        "defaults": {"limit": 50},
        "counters": {"thoughtHistoryLength": 0}}

A rule whose condition holds on the episode so far (:mod:`.learned_state`, read from the
episode's own answers; ``present``, below: a create whose key names what the episode holds)
answers with the server's wording and flag, the call's values in it, and changes nothing; a ``value``
condition (:func:`value_refused`) holds on the call's own value of an argument, whatever the state.
``sets`` are fields a successful change sets, in the answer and in the ledger. ``next`` is used by
:mod:`.learned_envelope` to pick the first pending item. ``copies`` are answer fields that echo an argument
of the call (``defaults``: what they show when the call leaves it out); ``counters`` count the tool's
successful calls in the episode (plus the offset): both replace what the model answered in those fields.
``slots`` fill fields from the call and the episode (an earlier call's argument, a sentence with the call's
values: :mod:`.learned_provenance`). A counter that is the id of the entity the call creates continues the
episode's state instead (seed included), and the entity is stored under it.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
from collections.abc import Callable
from typing import Any

from ...state.ledger import Effect
from ..base import Prediction, Step
from .learned_state import LEARNED_META, History, episode_history, learned
from .failures import reads_as_failure
from .learned_envelope import ENVELOPE_META
from .learned_provenance import with_slots
from .learned_text import templated, text_template

JSONDict = dict[str, Any]
_DONE = "_agentworld_learned"


def computed(step: Step) -> bool:
    """Whether a domain engine or the key-value store answers ``step``'s tool from the episode's state."""
    from .engines import engine_for
    from .keyspace import command_for

    return engine_for(step) is not None or command_for(step) is not None


def learned_answer(step: Step, predict: Callable[[Step], Prediction]) -> Prediction | None:
    """The answer a learned rule gives, or the model's answer with the fields the tool sets; None otherwise."""
    meta = learned(step)
    if not meta and text_template(step) is not None:
        meta = {"text": True}  # a sentence template alone
    if not meta or step.tool.__dict__.get(_DONE) or step.tool.__dict__.get("_agentworld_plain"):  # served.py's inner call
        return None
    rules = [r for r in meta.get("rules") or () if isinstance(r, dict) and isinstance(r.get("when"), dict)]
    if rules:
        history = episode_history(step)
        for rule in rules:
            if holds(history, rule["when"], step.arguments):
                if rule["when"].get("if") == "value" and (own := _refusal(step, predict, rule)) is not None:
                    return own  # the model refuses too, from the episode's state (``Available slides: 0-2``)
                return _ruled(step, rule)
    if computed(step):  # an engine or the keyspace computes this tool's answer: a template would only copy one
        return None
    sets, copies, counters, slots, defaults, lookups = (
        m if isinstance(m := meta.get(k), dict) else {}
        for k in ("sets", "copies", "counters", "slots", "defaults", "lookups"))
    sentence = text_template(step)
    if not sets and not copies and not counters and not slots and not lookups and sentence is None:
        return None
    tool = dataclasses.replace(step.tool)
    tool.__dict__[_DONE] = True
    answer = predict(dataclasses.replace(step, tool=tool))
    if sentence is not None:  # a prose answer learned as a sentence with slots (``learned_text.py``)
        answer = templated(step, answer, sentence)
    if not answer.is_error and isinstance(answer.observation, dict) and (copies or counters):
        answer = _echoed(step, answer, copies, counters, defaults)
    if not answer.is_error and isinstance(answer.observation, dict) and lookups:
        answer = _looked_up(step, answer, lookups)
    if slots:  # fields an earlier call or the call's own values fill (``learned_provenance.py``)
        answer = with_slots(step, answer, slots)
    if not sets:
        return answer
    role = step.role
    key = next((step.arguments[a] for a in role.key_args if a in step.arguments), None)
    if answer.is_error or key is None or not role.collection:
        return answer
    effects = list(answer.effects or []) + [Effect("update", role.collection, role.scoped(step.arguments, str(key)),
                                                   dict(sets))]
    observation = answer.observation
    if isinstance(observation, dict):
        observation = {k: ({**v, **sets} if isinstance(v, dict) and k == role.wrapper else v)
                       for k, v in observation.items()}
    return dataclasses.replace(answer, observation=observation, effects=effects)


def _refusal(step: Step, predict: Callable[[Step], Prediction], rule: JSONDict) -> Prediction | None:
    """The model's own answer to ``step`` (no learned behaviour) where it is a refusal; None where it accepts
    (a flag the rule's refusal shows, ``ok: false``, the other way round is an acceptance)."""
    tool = dataclasses.replace(step.tool)
    tool.__dict__[_DONE] = True
    answer = predict(dataclasses.replace(step, tool=tool))
    if answer.is_error:
        return answer
    seen = answer.observation
    inner = next(iter(seen.values())) if isinstance(seen, dict) and len(seen) == 1 else None  # ``{"result": {...}}``
    try:
        recorded = json.loads(str(rule.get("text") or ""))
    except ValueError:
        recorded = None
    for shown in (seen, inner):
        if not isinstance(shown, dict) or not reads_as_failure(shown):
            continue
        flags = {k: v for k, v in recorded.items() if isinstance(v, bool)} if isinstance(recorded, dict) else {}
        if not any(isinstance(shown.get(k), bool) and shown[k] != v for k, v in flags.items()):
            return answer
    return None


def present(history: History, value: Any) -> bool:
    """Whether ``value`` names something the history holds: shown or passed before (a seeded file's path is
    stored from the root), and not last passed to a tool that deletes (``already exists`` no longer holds)."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return False
    key = str(value)
    rooted = posixpath.normpath("/" + key.lstrip("/"))
    if key not in history.seen and rooted not in history.seen:
        return False
    acted = history.acted.get(key) or history.acted.get(rooted) or []
    return not (acted and acted[-1] in history.deleting)


def holds(history: History, condition: JSONDict, arguments: JSONDict) -> bool:
    """:meth:`History.holds`, ``present`` (the argument names something the episode holds) and ``value``."""
    if condition.get("if") == "present":
        return present(history, arguments.get(str(condition.get("arg"))))
    if condition.get("if") == "value":
        return value_refused(condition, arguments)
    return history.holds(condition, arguments)


def value_refused(condition: JSONDict, arguments: JSONDict) -> bool:
    """Whether a ``value`` condition (``sim2real/learn_value_rules.py``) refuses the call's value of its argument:
    never one accepted; always one refused; else one outside its ``allowed`` words or its ``range``."""
    if str(condition.get("arg")) not in arguments:
        return False
    value = arguments[str(condition.get("arg"))]
    if isinstance(value, bool):  # a switch: refused only as the recording refused it
        return any(v is value for v in condition.get("refused") or ())
    if not isinstance(value, (str, int, float)):
        return False
    if any(_same(value, v) for v in condition.get("accepted") or ()):
        return False
    if any(_same(value, v) for v in condition.get("refused") or ()):
        return True
    allowed = condition.get("allowed")
    if isinstance(allowed, list) and allowed:
        return not any(_same(value, v) for v in allowed)
    bounds = condition.get("range")
    if isinstance(bounds, list) and len(bounds) == 2 and not isinstance(value, str):
        lo, hi = bounds
        return (isinstance(lo, (int, float)) and value < lo) or (isinstance(hi, (int, float)) and value > hi)
    return False


def _same(a: Any, b: Any) -> bool:
    """Equal values of one kind (``1`` is not ``"1"``; ``1`` is ``1.0``)."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return not isinstance(a, bool) and not isinstance(b, bool) and a == b


def _echoed(step: Step, answer: Prediction, copies: JSONDict, counters: JSONDict,
            defaults: JSONDict | None = None) -> Prediction:
    """The answer with the fields that copy an argument copied (the server's default where the call left the
    argument out), and the counters counted, as the server did."""
    observation = dict(answer.observation)
    changed = False
    fields = _envelope_fields(step)  # a field the envelope adds later (a delete's ``entry_id``) is copied too
    for name, arg in copies.items():
        if name not in observation and name not in fields:
            continue
        if isinstance(arg, str) and arg in step.arguments:
            observation[name], changed = step.arguments[arg], True
        elif defaults and name in defaults:
            observation[name], changed = defaults[name], True
    effects = list(answer.effects or [])
    if changed:  # the entity the call made holds what its answer showed (a later read shows the same time)
        effects = [_shown_fields(step, e, observation, copies) for e in effects]
    if counters:
        done = 1 + sum(1 for t in step.episode.turns if t.tool == step.tool.name and not t.result.get("isError"))
        for name, offset in counters.items():
            if name in observation and isinstance(offset, int):
                value = done + offset
                created = _created(step, effects, name, observation[name])
                if created is not None:  # the new entity's id: it continues the state, and the ledger keys it so
                    value = _continued(step, name, created, value)
                    effects = [_rekeyed(step, e, name, value) if e is created else e for e in effects]
                observation[name], changed = value, True
    if not changed:
        return answer
    return dataclasses.replace(answer, observation=observation, effects=effects, text=None if isinstance(
        answer.text, str) and answer.text.lstrip().startswith("{") else answer.text)


def _looked_up(step: Step, answer: Prediction, lookups: JSONDict) -> Prediction:
    """The answer with each looked-up field (``sim2real/learn_lookups.py``) showing the field of the entity the
    call names as the episode holds it; a field whose entity the episode does not hold keeps the model's value."""
    role = step.role
    named = (step.arguments.get(a) for a in role.key_args)
    key = next((str(v) for v in named if isinstance(v, (str, int)) and not isinstance(v, bool)), None)
    if key is None:
        return answer
    held = step.episode.ledger.get(role.collection, role.scoped(step.arguments, key)) if role.collection else None
    entity = held.fields if held is not None else episode_history(step).entities.get(key) or {}
    fields, observation = _envelope_fields(step), dict(answer.observation)
    for name, sources in lookups.items():
        source = next((s for s in sources if isinstance(s, str) and s in entity), None) if isinstance(
            sources, list) else None
        if source is not None and (name in observation or name in fields):
            observation[name] = entity[source]
    if observation == answer.observation:
        return answer
    return dataclasses.replace(answer, observation=observation, text=None if isinstance(
        answer.text, str) and answer.text.lstrip().startswith("{") else answer.text)


def _shown_fields(step: Step, effect: Effect, observation: JSONDict, copies: JSONDict) -> Effect:
    """``effect`` with the copied fields as the answer shows them, where it creates the tool's entity with them."""
    if effect.op != "create" or effect.collection != step.role.collection:
        return effect
    shown = {n: observation[n] for n in copies if n in effect.fields and n in observation}
    return dataclasses.replace(effect, fields={**effect.fields, **shown}) if shown else effect


def _envelope_fields(step: Step) -> set[str]:
    """The top-level fields the tool's learned envelope gives every success."""
    envelope = (step.tool.definition.get("_meta") or {}).get(ENVELOPE_META)
    fields = envelope.get("fields") if isinstance(envelope, dict) else None
    return {f for f in fields if isinstance(f, str)} if isinstance(fields, list) else set()


def _created(step: Step, effects: list[Effect], name: str, shown: Any) -> Effect | None:
    """The model's creation of the tool's entity that the counted field ``name`` (an integer) identifies."""
    if not isinstance(shown, int) or isinstance(shown, bool):
        return None
    return next((e for e in effects if e.op == "create" and e.collection == step.role.collection
                 and e.fields.get(name) == shown), None)


def _continued(step: Step, name: str, created: Effect, learned_number: int) -> int:
    """A learned id counter continues the episode's state, seed included, as the real server's own counter
    does: a standing counter (``order_counter: 12446``) gives the number the model read from it; else the
    number follows the largest id the collection holds (a seeded item 7 makes the first new one 8, not 1)."""
    from .records import counter_field

    role = step.role
    if counter_field(step, role) is not None:
        return int(created.fields[name])
    ledger = step.episode.ledger
    largest = ledger.next_number(role.collection, role.scope_of(step.arguments)) - 1
    if largest < 1 and not ledger.items(role.collection):
        return learned_number  # nothing to continue: the recording's numbering (a fresh server)
    return max(learned_number, largest + 1)


def _rekeyed(step: Step, effect: Effect, name: str, value: int) -> Effect:
    """The creation keyed by the number the answer shows, so a later read of that id finds it."""
    key = step.role.scoped(step.arguments, str(value)) if name == step.role.key_field else effect.key
    fields = {**effect.fields, name: value}
    stored = [e.fields.get("id") for e in step.episode.ledger.items(step.role.collection)]
    if name != "id" and name == step.role.key_field and ("id" in fields or any(v is not None for v in stored)):
        fields["id"] = str(value) if any(isinstance(v, str) and v.isdigit() for v in stored) else value  # its own id
    return dataclasses.replace(effect, key=key, fields=fields)


def _ruled(step: Step, rule: JSONDict) -> Prediction:
    from .learned_envelope import render

    text = render(str(rule.get("text") or ""), step.arguments, {})
    structured = rule.get("structured")
    observation: Any
    if isinstance(structured, dict) and step.tool.output_schema:
        observation = _filled(structured, step.arguments)
    else:
        try:
            observation = json.loads(text) if text.strip()[:1] in ("{", "[") else text
        except ValueError:
            observation = text
    return Prediction(observation, is_error=bool(rule.get("isError")), effects=[], text=text,
                      info={"learned_rule": rule["when"]})


def _filled(value: Any, arguments: JSONDict) -> Any:
    from .learned_envelope import render

    if isinstance(value, dict):
        return {k: _filled(v, arguments) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, arguments) for v in value]
    return render(value, arguments, {}) if isinstance(value, str) else value


__all__ = ["LEARNED_META", "computed", "episode_history", "holds", "learned", "learned_answer", "present",
           "value_refused"]
