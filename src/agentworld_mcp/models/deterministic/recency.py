"""A listing that says it shows the recent or latest records lists the newest first.

``list_recent_entries(limit)``, "List the most recent entries (newest first)", ``latest_notes``: the
tool's name or description promises recency, so ``limit: 3`` keeps the three added last, not the three
the store holds first. Newest is the ledger's order of arrival reversed (seeded records first, then
those the episode created), the order a store that appends its records keeps.
"""

from __future__ import annotations

import re
from typing import TypeVar

from ...world.roles import words
from ..base import Step

T = TypeVar("T")

#: Words of a tool's name that promise the newest records.
_NAME_WORDS = frozenset({"recent", "latest", "newest", "last"})
#: A description that states the order: "most recent", "newest first", "latest entries".
_DESCRIBED = re.compile(r"\b(?:most\s+recent|newest\s+first|latest|recent\s+\w+\s*\(newest)", re.IGNORECASE)
#: A description that states another order wins ("oldest first", "sorted by", "in chronological order").
_OTHER_ORDER = re.compile(r"\b(?:oldest\s+first|sorted\s+by|order(?:ed)?\s+by|chronological)", re.IGNORECASE)


def promises_recent(step: Step) -> bool:
    """Whether the tool's name or description says it lists the newest records."""
    description = str(step.tool.definition.get("description") or "")
    if _OTHER_ORDER.search(description):
        return False
    return bool(_NAME_WORDS & set(words(step.tool.name))) or _DESCRIBED.search(description) is not None


def newest_first(step: Step, found: list[T]) -> list[T]:
    """``found`` (in ledger order) newest first when the listing promises recency, else as it is."""
    return list(reversed(found)) if promises_recent(step) else found


__all__ = ["newest_first", "promises_recent"]
