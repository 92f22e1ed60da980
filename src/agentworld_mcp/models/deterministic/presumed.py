"""Entities a call names in a scope the recording never listed are presumed to exist (``learn_scoped.py``).

A world learned from one session knows a scope's contents only where the session listed them
(``list_events(calendar=Work)``); the server holds more. A later session that updates, deletes or
acts on an entity of a scope nobody listed (``update_event(uid=..., calendar=Personal)``) names
something the real server has and the world never saw: answering "not found" there is the world's
ignorance, not the server's rule. ``learn`` writes per tool the scope values it saw listed::

    "agentworld/listed_scopes": {"calendar": ["Volunteering", "Work"]}

and a write naming an unknown key is then answered as on an entity holding what the call says
(its key and scope), when the call's scope value is an existing entity of the world (a calendar
the world holds) that the recording never listed and the episode did not create. A key the episode
itself deleted, an unlisted scope nobody holds, and every scope the recording listed keep their
not-found. Reads stay not-found: what a read would show is not known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...state.ledger import Effect, Entity

if TYPE_CHECKING:
    from ...world.roles import ToolRole
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition: per scoping argument, the values whose contents a recording listed.
LISTED_SCOPES_META = "agentworld/listed_scopes"
#: Fields that name an entity by a caller-chosen name (a scope value is one of them).
_NAMES = ("name", "title", "slug", "key", "label")


def _holder(step: Step, value: str) -> Entity | None:
    """The live entity the scope value names (by key or name), in any collection."""
    ledger = step.episode.ledger
    for collection in ledger.collections():
        for entity in ledger.items(collection):
            if entity.key == value or any(entity.fields.get(n) == value for n in _NAMES):
                return entity
    return None


def presumed(step: Step, role: ToolRole, key: str) -> Entity | None:
    """The entity ``key`` names, presumed from the call where its scope was never listed (module doc)."""
    listed = (step.tool.definition.get("_meta") or {}).get(LISTED_SCOPES_META)
    if not isinstance(listed, dict) or not listed:
        return None
    if step.episode.ledger.get(role.collection, key, include_deleted=True) is not None:
        return None  # known to the world (alive or deleted by the episode): its own answer stands
    scope = {arg: value for arg in listed if isinstance(value := step.arguments.get(arg), str) and value}
    if not scope:
        return None
    for arg, value in scope.items():
        holder = _holder(step, value)
        if value in (listed.get(arg) or ()) or holder is None or holder.status == "created":
            return None  # listed, unknown, or made by this episode: the world knows its contents
    named = next((a for a in role.key_args if a in step.arguments), role.key_field)
    return Entity(role.collection, key, {named: step.arguments.get(named, key), **scope}, "observed", step.turn)


def with_presumed(step: Step, entity: Entity, answer: Prediction) -> Prediction:
    """``answer`` whose effects first make the presumed entity known (so later calls find or miss it)."""
    if answer.is_error or step.episode.ledger.get(entity.collection, entity.key, include_deleted=True) is not None:
        return answer
    import dataclasses

    effects = [Effect("observe", entity.collection, entity.key, dict(entity.fields)), *(answer.effects or [])]
    return dataclasses.replace(answer, effects=effects)


__all__ = ["LISTED_SCOPES_META", "presumed", "with_presumed"]
