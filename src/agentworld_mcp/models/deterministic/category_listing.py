"""A listing named after a kind of record the state holds lists the records of that kind.

``get_todos`` on a board whose ``new_item(item_type="todo")`` stored items, ``list_bugs`` on a tracker
whose issues carry ``type: Bug``, ``list_drafts`` beside messages in ``status: draft``: no collection of
todos, bugs or drafts exists, but one held collection has records whose short category value (a type,
kind or state word) is the listing's noun. Those records are the listing, not an invented set of
entities (:mod:`.observed`) nor an acknowledgement. Only a one-word value compares (``To-Do`` and
``todos`` are the noun ``todo``); the records' own key, names and texts never do.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from ...world.roles import ToolRole, singular, words

if TYPE_CHECKING:
    from ...state.ledger import Entity
    from ..base import Step

#: A category value: one short word (``todo``, ``To-Do``).
_WORD = re.compile(r"[A-Za-z][A-Za-z_-]{1,30}")
#: The last word of a field that sorts records into kinds (``item_type``, ``issueType``, ``status``).
_KIND_WORDS = frozenset({"type", "kind", "category", "status", "state", "stage", "class", "label"})


def _word(value: str) -> str:
    return singular(re.sub(r"[^a-z]", "", value.lower()))


def category_records(step: Step, role: ToolRole) -> tuple[ToolRole, str, str] | None:
    """The held collection, field and value whose records a listing of ``role``'s noun shows; None if not one.

    Exactly one (collection, field) may hold the noun: two places holding it would make the choice a guess."""
    noun = _word(role.collection.split("_")[-1])
    if len(noun) < 3:
        return None
    ledger = step.episode.ledger
    found: set[tuple[str, str, str]] = set()
    for collection in ledger.collections():
        if collection == role.collection:
            continue
        for entity in ledger.items(collection):
            found.update((collection, field, value) for field, value in _categories(entity) if _word(value) == noun)
    places = {(c, f) for c, f, _ in found}
    if len(places) != 1:
        return None
    collection, field, value = sorted(found)[0]
    return dataclasses.replace(role, collection=collection), field, value


def _categories(entity: Entity) -> list[tuple[str, str]]:
    """The entity's one-word values of fields that sort records into kinds (never its key, names or texts)."""
    return [(field, value) for field, value in entity.fields.items()
            if isinstance(value, str) and value != entity.key and _WORD.fullmatch(value)
            and (named := words(field)) and named[-1].lower() in _KIND_WORDS]


__all__ = ["category_records"]
