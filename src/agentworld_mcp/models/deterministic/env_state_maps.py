"""A keyed map of the standing state that an action sets part of, and the counts derived from it.

A device's state often holds a map of parts to a two-valued state (``{"front": "open",
"back": "closed"}``) rather than a collection of records. An action that takes a list of those
parts (``parts: ["front"]``) and picks one of the two values (a boolean argument named after a
value, ``close: true``, or the tool's own verb, ``close_hatches``) sets each listed part to it.
An integer answer field whose name carries one of the values (``remainingOpenHatches``,
``closed_count``) is then the number of parts in that state, after the change. The two values are
those an answer field lists (``[Enum]: ["open", "closed"]``); without an outputSchema, a value the
map holds and its ``un``-prefixed opposite (``unlocked``/``locked``), named by a boolean argument
or the tool's verb, and the answer is the map as changed.

Pure functions of the step: the change is returned as an update effect, never applied here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ...state.ledger import Effect, Entity
from ...world.conventions import described_enum
from ...world.roles import words
from ..base import Step
from .determined import name_key, standing

JSONDict = dict[str, Any]

@dataclass(frozen=True)
class MapChange:
    """The standing map a call sets part of: where it is, its new value and the two states it holds."""

    entity: Entity
    field: str
    new: JSONDict
    options: tuple[str, str]

    def effect(self) -> Effect:
        return Effect("update", self.entity.collection, self.entity.key, {self.field: copy.deepcopy(self.new)})

    def count(self, answer_name: str) -> int | None:
        """The number of parts in the state ``answer_name`` names (``remainingUnlockedX`` -> unlocked)."""
        tokens = set(words(answer_name))
        named = [o for o in self.options if set(words(o)) <= tokens]
        if len(named) != 1:
            return None
        return sum(1 for v in self.new.values() if v == named[0])


def _options(step: Step) -> list[tuple[str, str]]:
    """The two-valued states the answer fields describe (``[Enum]: ["open", "closed"]``)."""
    found = []
    for sub in ((step.tool.output_schema or {}).get("properties") or {}).values():
        options = described_enum(sub)
        if len(options) == 2:
            found.append((options[0], options[1]))
    return found


def _chosen(step: Step, options: tuple[str, str]) -> str | None:
    """The value the call picks: a boolean named after one value, else the tool's verb naming one."""
    for arg, flag in step.arguments.items():
        if isinstance(flag, bool) and name_key(arg):
            for i, option in enumerate(options):
                if name_key(option).startswith(name_key(arg)):
                    return option if flag else options[1 - i]
    verb = name_key(words(step.tool.name)[0]) if words(step.tool.name) else ""
    stems = [o for o in options if verb and name_key(o).startswith(verb)]
    return stems[0] if len(stems) == 1 else None


def _antonyms(held: JSONDict, step: Step) -> list[tuple[str, str]]:
    """Without an outputSchema, the two states a map holds: a held value and its ``un``-prefixed
    opposite (``unlocked``/``locked``), when a boolean argument or the tool's verb names one of them."""
    values = {v for v in held.values() if isinstance(v, str)}
    names = [name_key(a) for a, v in step.arguments.items() if isinstance(v, bool)] + [
        name_key(w) for w in words(step.tool.name)[:1]]
    pairs = []
    for value in sorted(values):
        key = name_key(value)
        other = value[2:] if key.startswith("un") and len(key) > 4 else f"un{value}"
        negative = value if key.startswith("un") else other
        if negative not in values and not any(n.startswith("un") and name_key(negative).startswith(n) for n in names):
            continue  # an ``un`` state the map shows or an argument names, never an invented ``unopen``
        if not any(n and (key.startswith(n) or name_key(other).startswith(n)) for n in names):
            continue
        pairs.append((value, other))
    return pairs


def map_change(step: Step) -> MapChange | None:
    """The standing map whose keys a list argument names, set to the value the call picks."""
    parts = [v for v in step.arguments.values()
             if isinstance(v, list) and v and all(isinstance(p, str) for p in v)]
    if len(parts) != 1:
        return None
    listed = parts[0]
    for entity in standing(step):
        for field, held in entity.fields.items():
            if not (isinstance(held, dict) and held and set(listed) <= set(held)):
                continue
            for options in (_options(step) if step.tool.output_schema else _antonyms(held, step)):
                value = _chosen(step, options)
                if value is not None and all(v in options for v in held.values()):
                    new = {k: (value if k in listed else v) for k, v in held.items()}
                    return MapChange(entity, field, new, options)
    return None


__all__ = ["MapChange", "map_change"]
