"""An undo tool served: it reverses the episode's own last change (``sim2real/learn_undo.py`` learns it).

A tool named for undoing (``undo``, ``revert``, ``rollback``) that needs no argument acts on the
episode's last change, never on the one the recording showed: the entities the latest turn created
are deleted, those it updated are set back to what an earlier answer of the episode showed of them.
An undo's own changes are no change to undo (undoing twice goes further back). The answer's
``_meta["agentworld/undo"]["templates"]`` (``"Undid: Done #{{id}} -> reopened \\"{{title}}\\""``) are
filled from the entity undone; with nothing to undo the answer is left as the model gave it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import TYPE_CHECKING, Any

from ...state.ledger import Effect, Entity
from .learned_state import answer_data, failed, keyed_objects

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of an undo tool's learned answer templates.
UNDO_META = "agentworld/undo"
_WORDS = {"undo", "revert", "rollback"}
_SLOT = re.compile(r"\{\{(\w+)\}\}")


def is_undo_tool(definition: JSONDict) -> bool:
    """A tool named for undoing whose call needs no argument: it undoes whatever came last."""
    words = {w.lower() for w in re.split(r"[^A-Za-z]+|(?<=[a-z])(?=[A-Z])", str(definition.get("name", ""))) if w}
    required = (definition.get("inputSchema") or {}).get("required") or []
    return bool(words & _WORDS) and not required


def _last_turn(step: Step, entities: list[Entity]) -> int:
    """The latest turn that changed an entity, an undo's own turns left out."""
    undo_turns = {t.index for t in step.episode.turns if t.tool == step.tool.name}
    turns = {t for e in entities for t in (e.created_turn, e.updated_turn) if t and t not in undo_turns}
    return max(turns, default=0)


def _shown_before(step: Step, entity: Entity, turn: int) -> JSONDict | None:
    """What the latest answer before ``turn`` showed of ``entity`` (its fields the entity keeps)."""
    for past in reversed(step.episode.turns):
        if past.index >= turn or failed(past.result):
            continue
        for obj in keyed_objects(answer_data(past.result)):
            if str(obj.get("id", "")) == entity.key or entity.key in {str(v) for v in obj.values() if isinstance(v, (str, int))}:
                shown = {k: copy.deepcopy(v) for k, v in obj.items() if k in entity.fields}
                if shown:
                    return shown
    return None


def _reversal(step: Step) -> tuple[list[Effect], Entity | None]:
    ledger = step.episode.ledger
    entities = [e for c in ledger.collections() for e in ledger.items(c)]
    turn = _last_turn(step, entities)
    if not turn:
        return [], None
    effects: list[Effect] = []
    first: Entity | None = None
    for entity in entities:
        if entity.created_turn == turn and entity.status == "created":
            effects.append(Effect("delete", entity.collection, entity.key))
        elif entity.updated_turn == turn and (before := _shown_before(step, entity, turn)) is not None:
            effects.append(Effect("update", entity.collection, entity.key, fields=before))
        else:
            continue
        first = first or entity
    return effects, first


def _filled(template: str, fields: JSONDict) -> str | None:
    names = _SLOT.findall(template)
    if any(fields.get(n) is None for n in names):
        return None
    return _SLOT.sub(lambda m: str(fields[m.group(1)]), template)


def with_undo(step: Step, answer: Prediction) -> Prediction:
    """``answer`` of an undo tool, reversing the episode's last change (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(UNDO_META)
    if not isinstance(meta, dict) or answer.is_error or not is_undo_tool(step.tool.definition):
        return answer
    effects, entity = _reversal(step)
    if entity is None:
        return answer
    found = meta.get("templates")
    templates: JSONDict = found if isinstance(found, dict) else {}
    filled = {k: v for k, t in templates.items() if isinstance(t, str) and (v := _filled(t, entity.fields)) is not None}
    observation = answer.observation
    if isinstance(observation, dict):
        observation = {**observation, **{k: v for k, v in filled.items() if k in observation}}
    text = answer.text
    if isinstance(text, str) and filled:
        text = _retext(text, filled)
    return dataclasses.replace(answer, observation=observation, text=text, effects=effects)


def _retext(text: str, filled: JSONDict) -> str:
    """A JSON text answer with the filled fields, written as it was (indent, escapes)."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return text
    data.update({k: v for k, v in filled.items() if k in data})
    indent = 2 if "\n  " in text else None
    return json.dumps(data, indent=indent, ensure_ascii=text.isascii())


__all__ = ["UNDO_META", "is_undo_tool", "with_undo"]
