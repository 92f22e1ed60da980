"""A listing of the things some creates made, in a collection other tools also fill (``learn_key_collection.py``).

A journal keeps its todos as entries: ``create_todo`` answers ``entry_id: 6`` and ``get_entry`` shows entry 6,
so ``learn`` moves the todo tools to ``entries``. ``list_todos`` then lists entries, but only those a todo
create made, not every diary entry: ``learn`` writes ``extra: {"made_by": ["create_todo"]}`` on its role, and
the listing keeps the entities whose key one of those creates answered in this episode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .learned_state import answer_data, failed

if TYPE_CHECKING:
    from ..base import Step


def made_keys(step: Step, creates: Any) -> set[str]:
    """The keys the episode's successful calls of ``creates`` made (the key field each create answers)."""
    names = {c for c in creates if isinstance(c, str)} if isinstance(creates, list) else set()
    catalog = step.catalog
    keys: set[str] = set()
    for turn in step.episode.turns:
        if turn.tool not in names or failed(turn.result):
            continue
        spec = catalog.get(turn.tool) if catalog is not None else None
        data = answer_data(turn.result)
        value = data.get(spec.role.key_field) if spec is not None and isinstance(data, dict) else None
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            keys.add(str(value))
    return keys


__all__ = ["made_keys"]
