"""The ledger: what an episode has established so far.

Entities are keyed by collection and identifier. The deterministic world model answers
from the ledger; the language world model gets it as compact state facts and is checked
against it (see DESIGN.md, 'Ledger').
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

from .roles import ID_NAMES, is_id_name

JSONDict = dict[str, Any]
Status = Literal["seeded", "created", "updated", "deleted"]
Op = Literal["create", "update", "delete", "move"]


def identity(fields: JSONDict) -> tuple[str, str] | None:
    """The (field, value) that identifies an entity: ``id`` first, then other id-like keys."""
    for name in ID_NAMES:
        value = fields.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return name, str(value)
    for name, value in fields.items():
        if is_id_name(name) and isinstance(value, (str, int)) and not isinstance(value, bool):
            return name, str(value)
    return None


@dataclass
class Entity:
    collection: str
    key: str
    fields: JSONDict
    status: Status = "created"
    created_turn: int | None = None
    updated_turn: int | None = None
    deleted_turn: int | None = None

    @property
    def alive(self) -> bool:
        return self.status != "deleted"

    def to_dict(self) -> JSONDict:
        return {
            "collection": self.collection, "key": self.key, "fields": self.fields, "status": self.status,
            "created_turn": self.created_turn, "updated_turn": self.updated_turn, "deleted_turn": self.deleted_turn,
        }


@dataclass(frozen=True)
class Effect:
    """One change a tool call makes to the world."""

    op: Op
    collection: str
    key: str
    fields: JSONDict = field(default_factory=dict)
    new_key: str | None = None  # for moves and renames


class Ledger:
    def __init__(self) -> None:
        self._entities: dict[tuple[str, str], Entity] = {}
        self._counters: dict[str, int] = {}

    # -- reading -----------------------------------------------------------------
    def get(self, collection: str, key: Any, *, include_deleted: bool = False) -> Entity | None:
        entity = self._entities.get((collection, str(key)))
        if entity is None or (not entity.alive and not include_deleted):
            return None
        return entity

    def items(self, collection: str) -> list[Entity]:
        """Live entities of a collection, in the order they came into being."""
        return [e for (c, _), e in self._entities.items() if c == collection and e.alive]

    def collections(self) -> list[str]:
        return sorted({c for c, _ in self._entities})

    def __len__(self) -> int:
        return sum(1 for e in self._entities.values() if e.alive)

    def next_number(self, collection: str) -> int:
        """A fresh sequence number for ``collection`` (after every seeded/created one)."""
        self._counters[collection] = self._counters.get(collection, 0) + 1
        return self._counters[collection]

    # -- writing -----------------------------------------------------------------
    def seed(self, seed: dict[str, list[JSONDict]]) -> None:
        for collection, entities in seed.items():
            for i, fields in enumerate(entities):
                ident = identity(fields)
                key = ident[1] if ident else str(i + 1)
                self._entities[(collection, key)] = Entity(collection, key, copy.deepcopy(fields), "seeded", 0)
                self._bump(collection, key)

    def apply(self, effects: list[Effect], turn: int) -> None:
        for effect in effects:
            slot = (effect.collection, effect.key)
            current = self._entities.get(slot)
            if effect.op == "create":
                self._entities.pop(slot, None)  # re-creating a deleted key starts afresh, at the end
                self._entities[slot] = Entity(effect.collection, effect.key, copy.deepcopy(effect.fields), "created", turn)
                self._bump(effect.collection, effect.key)
            elif current is None or not current.alive:
                continue
            elif effect.op == "update":
                current.fields.update(copy.deepcopy(effect.fields))
                current.status = "updated" if current.status != "created" or current.created_turn != turn else "created"
                current.updated_turn = turn
            elif effect.op == "delete":
                current.status, current.deleted_turn = "deleted", turn
            elif effect.op == "move" and effect.new_key is not None:
                current.status, current.deleted_turn = "deleted", turn
                moved = {**copy.deepcopy(current.fields), **copy.deepcopy(effect.fields)}
                self._entities.pop((effect.collection, effect.new_key), None)
                self._entities[(effect.collection, effect.new_key)] = Entity(
                    effect.collection, effect.new_key, moved, "created", turn)

    def _bump(self, collection: str, key: str) -> None:
        if key.isdigit():
            self._counters[collection] = max(self._counters.get(collection, 0), int(key))
        else:
            digits = "".join(ch for ch in key.rsplit("_", 1)[-1].rsplit("-", 1)[-1] if ch.isdigit())
            if digits and len(digits) < 9:
                self._counters[collection] = max(self._counters.get(collection, 0), int(digits))

    # -- persistence ---------------------------------------------------------------
    def snapshot(self) -> JSONDict:
        """Live entities by collection: what a person inspecting the world wants to see."""
        out: dict[str, list[JSONDict]] = {}
        for entity in self._entities.values():
            if entity.alive:
                out.setdefault(entity.collection, []).append(copy.deepcopy(entity.fields))
        return out

    def to_dict(self) -> JSONDict:
        return {"entities": [e.to_dict() for e in self._entities.values()], "counters": dict(self._counters)}

    @classmethod
    def from_dict(cls, data: JSONDict) -> Ledger:
        ledger = cls()
        for item in data.get("entities", []):
            entity = Entity(**item)
            ledger._entities[(entity.collection, entity.key)] = entity
        ledger._counters = dict(data.get("counters", {}))
        return ledger
