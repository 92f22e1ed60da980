"""A call naming a parent the world does not hold (``calendar: Family``, ``project: Apollo``) is refused.

An argument named after another collection's entity (its singular, or ``<noun>_name``) refers to
one of them by its key or name; ``*_id`` references are schema.py's ``_missing_reference``. The
refusal needs the world to know the parents: some are held (seeded, observed or created), and no
entity of the call's own collection already refers to one the world does not hold (a bare world
that accepted ``calendar: Personal`` before any calendar was created never knew them all).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...world.roles import ToolRole, collection_name, singular

if TYPE_CHECKING:
    from ..base import Prediction, Step

#: The fields a parent may be named by besides its key.
_NAMES = ("name", "title", "slug", "key", "identifier", "display_name", "displayName", "summary")


def missing_parent(step: Step, role: ToolRole) -> Prediction | None:
    """The not-found refusal of the first parent argument naming nothing the world holds."""
    from .common import entity_model, not_found

    if role.style != "record" or not role.collection:
        return None
    model = entity_model(step)
    ledger = step.episode.ledger
    for arg, value in step.arguments.items():
        if not isinstance(value, str) or not value or arg in role.key_args:
            continue
        target = _parent_collection(arg)
        parent = model.entity(target) if target is not None and target != role.collection else None
        if parent is None or parent.scope:  # a parent within a scope (a repository's branch) is named with it
            continue
        held = _names(ledger.items(parent.collection), parent.key_field, arg)
        if not held or value.casefold() in held:
            continue
        referred = {str(e.fields.get(arg)).casefold() for c in ledger.collections() if c != target
                    for e in ledger.items(c) if isinstance(e.fields.get(arg), (str, int))}
        if referred - held:  # the episode already took a parent the world does not hold: it knows only some
            continue
        return not_found(step, replace(role, collection=parent.collection, key_field=parent.key_field), value)
    return None


def _parent_collection(arg: str) -> str | None:
    """The collection an argument names an entity of by name: ``calendar``, ``calendar_name``, ``calendarName``."""
    stem = arg[:-5] if arg.endswith(("_name", "Name")) else arg
    if not stem or stem != singular(stem) and not arg.endswith(("_name", "Name")):
        return None  # a plural argument (``tags``) names several things, a list filter
    return collection_name(stem)


def _names(entities: list[Any], key_field: str, arg: str) -> set[str]:
    """Every key and name the entities answer to (the argument's own name among them), case-folded."""
    found: set[str] = set()
    for entity in entities:
        found.add(str(entity.key).casefold())
        for name in (key_field, arg, *_NAMES):
            value = entity.fields.get(name)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                found.add(str(value).casefold())
    return found
