"""Answer fields filled from the call and its episode, as ``learn`` traced them (``sim2real/learn_provenance.py``).

Under a tool's ``agentworld/learned`` meta, ``slots`` maps a top-level answer field to a template in
the sentence templates' syntax (:mod:`.learned_text`)::

    "slots": {"opened_by": "{{last.desk_login.username}}",
              "status": "Case {{args.case_id}} has been closed."}

A template that is one slot gives the value itself (a number stays a number); any other is rendered
as text (one without slots is a constant: ``"status": "Open"``). A field whose slot this episode cannot
fill (no login yet) keeps the model's answer: the recording is silent there. The entity the call creates or changes gets a session value too (a later read
shows who created it), and so does a constant status word a create answers (``status: Open``); a
sentence is the answer's alone.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ...world.values import same_value
from .learned_text import SLOT, render_text, slot_value_of

if TYPE_CHECKING:
    from ...state.ledger import Effect, Entity
    from ..base import Prediction, Step

JSONDict = dict[str, Any]


def slot_value(step: Step, template: str) -> Any:
    """The template's value for this call, or None when the episode cannot fill it."""
    whole = SLOT.fullmatch(template)
    if whole is not None and whole.group(1) in ("args", "last"):
        value = slot_value_of(step, whole.group(1), whole.group(2))
        return None if isinstance(value, (dict, list)) else value
    return render_text(step, template)


def with_slots(step: Step, answer: Prediction, slots: JSONDict) -> Prediction:
    """``answer`` with each slotted field filled, in the answer and in what the call stores."""
    if answer.is_error or not isinstance(answer.observation, dict):
        return answer
    observation = dict(answer.observation)
    filled: JSONDict = {}
    stored: JSONDict = {}  # a session value is the entity's too; a sentence is only the answer's
    created: JSONDict = {}  # a status word a create answers is the new entity's
    for name, template in slots.items():
        value = slot_value(step, template) if isinstance(template, str) else None
        if value is None:
            continue
        filled[name] = value
        if (whole := SLOT.fullmatch(template)) is not None and whole.group(1) == "last":
            stored[name] = value
        elif not SLOT.search(template):
            created[name] = value
    if not filled:
        return answer
    observation.update(filled)
    collection = step.role.collection

    def kept(effect: Effect) -> Effect:
        if effect.collection != collection or effect.op not in ("create", "update"):
            return effect
        new = {k: v for k, v in stored.items() if effect.op == "create" or k in effect.fields}
        new.update({k: v for k, v in created.items() if effect.op == "create" and k in effect.fields})
        return dataclasses.replace(effect, fields={**effect.fields, **new}) if new else effect

    effects = [kept(e) for e in answer.effects or []]
    text = answer.text
    return dataclasses.replace(answer, observation=observation, effects=effects,
                               text=None if isinstance(text, str) and text.lstrip().startswith("{") else text)


def named_entities(step: Step) -> list[Entity]:
    """The entities the call names: in any collection, one keyed by the value of one of its arguments
    (``get_quote(ticker=X)``, ``fetch_receipt(order_ref=N)`` of an order another tool made)."""
    ledger = step.episode.ledger
    values = {str(v) for v in step.arguments.values()
              if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip()}
    return [e for c in ledger.collections() for v in sorted(values) if (e := ledger.get(c, v)) is not None]


def _restored(model: Any, learned: Any, fields: JSONDict) -> tuple[Any, bool]:
    """``learned`` with each leaf the model took from ``fields`` (same name, same value) put back."""
    if not isinstance(model, dict) or not isinstance(learned, dict):
        return learned, False
    out, changed = dict(learned), False
    for name, value in model.items():
        if name not in out:
            continue
        if isinstance(value, dict):
            out[name], inner = _restored(value, out[name], fields)
            changed = changed or inner
        elif not isinstance(value, list) and name in fields and same_value(fields[name], value) \
                and not same_value(out[name], value):
            out[name], changed = value, True
    return out, changed


def entity_kept(step: Step, model: Prediction, learned: Prediction) -> Prediction:
    """``learned`` (the model's answer with the values a recording suggested) with every field the model read
    from the entity the call names put back: the entity this episode holds (seeded or made by an earlier
    call) decides its own fields, not what the training session's entities held."""
    if learned is model or model.is_error or learned.is_error:
        return learned
    entities = named_entities(step)
    if not entities:
        return learned
    observation, changed = learned.observation, False
    for entity in entities:
        observation, restored = _restored(model.observation, observation, entity.fields)
        changed = changed or restored
    if not changed:
        return learned
    text = learned.text
    return dataclasses.replace(learned, observation=observation,
                               text=None if isinstance(text, str) and text.lstrip().startswith(("{", "[")) else text)


__all__ = ["entity_kept", "named_entities", "slot_value", "with_slots"]
