"""The ledger: what an episode has established so far.

Entities are keyed by collection and identifier. The deterministic world model answers
from the ledger; the language world model gets it as compact state facts and is checked
against it (see docs/architecture.md, 'Concepts').

Lookups by key are dict lookups, so a call's cost does not grow with the episode's
history; listing a collection walks that collection only.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from ..world.roles import ID_NAMES, collection_name, is_id_name, normalise_path, compound_key, singular  # compound_key: re-exported

JSONDict = dict[str, Any]
Status = Literal["seeded", "created", "updated", "observed", "deleted"]
Op = Literal["create", "update", "delete", "move", "observe"]

#: Field sets that identify an entity together (a relation is its endpoints and its type).
COMPOUND_KEYS: tuple[tuple[str, ...], ...] = (
    ("from", "relationType", "to"),
    ("source", "type", "target"),
    ("from", "type", "to"),
)
_NESTED_DEPTH = 2


def identity(fields: JSONDict, collection: str | None = None) -> tuple[str, str] | None:
    """The (field, key) that identifies an entity: ``id`` first, then, for an entity of a known
    ``collection``, its own id (``user_id`` of a user: the name its tools address it by, before its
    ``email`` or ``name``), then other id-like keys.

    Paths are normalised; entities identified by several fields (relations) get a
    :func:`compound_key` under the field name ``"from+relationType+to"``.
    """
    own = _own_id(fields, collection) if collection else None
    if own is not None and not isinstance(fields.get("id"), (str, int)):
        return own
    for name in ID_NAMES:
        value = fields.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return name, normalise_path(value) if name == "path" and isinstance(value, str) else str(value)
    for names in COMPOUND_KEYS:
        if all(isinstance(fields.get(n), (str, int)) for n in names):
            return "+".join(names), compound_key(*(fields[n] for n in names))
    for name, value in fields.items():
        if is_id_name(name) and isinstance(value, (str, int)) and not isinstance(value, bool):
            return name, str(value)
    return None


def _own_id(fields: JSONDict, collection: str) -> tuple[str, str] | None:
    """``user_id`` (or ``userId``, ``user_uuid``...) of an entity of ``users``, where it holds a value."""
    stems = {singular(collection), collection}
    for stem in sorted(stems):
        for suffix in ("_id", "Id", "_uuid", "_key", "_number"):
            value = fields.get(stem + suffix)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return stem + suffix, str(value)
    return None


def _counts(key: str) -> bool:
    """Whether ``key`` is a number ``int()`` reads: ``isdigit`` also holds for ``'¹'``, which ``int()`` refuses
    (a fuzzed key crashed the simulator so), and ``int()`` refuses more than 4300 digits."""
    return key.isdecimal() and len(key) < 4300


def _counter(collection: str, scope: tuple[str, ...]) -> str:
    return collection + compound_key(*scope) if scope else collection


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
    """One change a tool call makes to the world.

    ``create`` stores a new entity (replacing a deleted one with that key); ``update``
    merges ``fields`` into a live entity; ``delete`` marks it deleted; ``move`` re-keys it
    (the old key reads as deleted); ``observe`` records what an observation revealed
    without counting as a change (nested entities, fields a read had to fill in).
    """

    op: Op
    collection: str
    key: str
    fields: JSONDict = field(default_factory=dict)
    new_key: str | None = None  # for moves and renames


class Ledger:
    def __init__(self) -> None:
        self._collections: dict[str, dict[str, Entity]] = {}
        self._counters: dict[str, int] = {}
        #: What changed since a persistent store last saved: slot -> True if it was (re)stored
        #: (it moves to the end of its collection's order), False if changed in place. A store
        #: writes O(changes) per call from this, never the whole ledger.
        self.changes: dict[tuple[str, str], bool] = {}

    # -- reading -----------------------------------------------------------------
    def get(self, collection: str, key: Any, *, include_deleted: bool = False) -> Entity | None:
        entity = self._collections.get(collection, {}).get(str(key))
        if entity is None or (not entity.alive and not include_deleted):
            return None
        return entity

    def items(self, collection: str) -> list[Entity]:
        """Live entities of a collection, in the order they came into being."""
        return [e for e in self._collections.get(collection, {}).values() if e.alive]

    def last(self, collection: str) -> Entity | None:
        """The most recently stored live entity of a collection (O(1) unless many were deleted)."""
        for entity in reversed(self._collections.get(collection, {}).values()):
            if entity.alive:
                return entity
        return None

    def counters(self) -> dict[str, int]:
        """The id sequences so far (collection or scope -> last number), for stores to persist."""
        return dict(self._counters)

    def collections(self) -> list[str]:
        return sorted(c for c, entities in self._collections.items() if entities)

    def __len__(self) -> int:
        return sum(1 for entities in self._collections.values() for e in entities.values() if e.alive)

    def next_number(self, collection: str, scope: tuple[str, ...] = ()) -> int:
        """The sequence number a new entity of ``collection`` gets (after every seeded/created one).

        Within a ``scope`` (``("acme", "rocket")``) numbers run on their own: issue 1 of
        acme/rocket and issue 1 of acme/webapp. Reading it changes nothing: the number is
        taken when the creation is applied, so a world model may ask while predicting, and a
        failed call leaves no gap.
        """
        return self._counters.get(_counter(collection, scope), 0) + 1

    # -- writing -----------------------------------------------------------------
    def seed(self, seed: dict[str, list[JSONDict]]) -> None:
        """Entities that exist from the start (a world file's ``seed:``), status ``seeded``, turn 0."""
        for collection, entities in seed.items():
            for i, fields in enumerate(entities):
                ident = identity(fields, collection)
                key = ident[1] if ident else str(i + 1)
                self._put(Entity(collection, key, copy.deepcopy(fields), "seeded", 0))
                self._nested(fields, 0, 0)

    def apply(self, effects: list[Effect], turn: int) -> None:
        for effect in effects:
            current = self.get(effect.collection, effect.key, include_deleted=True)
            if current is not None:
                self.changes.setdefault((effect.collection, effect.key), False)
            if effect.op == "create":
                self._put(Entity(effect.collection, effect.key, copy.deepcopy(effect.fields), "created", turn))
                self._nested(effect.fields, turn, 0)
            elif effect.op == "observe":
                if current is None or not current.alive:
                    self._put(Entity(effect.collection, effect.key, copy.deepcopy(effect.fields), "observed", turn))
                else:
                    for name, value in effect.fields.items():
                        current.fields.setdefault(name, copy.deepcopy(value))
                self._nested(effect.fields, turn, 0)
            elif current is None or not current.alive:
                continue
            elif effect.op == "update":
                current.fields.update(copy.deepcopy(effect.fields))
                if not (current.status == "created" and current.created_turn == turn):
                    current.status = "updated"
                current.updated_turn = turn
                self._nested(effect.fields, turn, 0)
            elif effect.op == "delete":
                current.status, current.deleted_turn = "deleted", turn
            elif effect.op == "move" and effect.new_key is not None:
                moved = {**copy.deepcopy(current.fields), **copy.deepcopy(effect.fields)}
                current.status, current.deleted_turn = "deleted", turn
                self._put(Entity(effect.collection, effect.new_key, moved, "created", turn))

    def _put(self, entity: Entity) -> None:
        entities = self._collections.setdefault(entity.collection, {})
        entities.pop(entity.key, None)  # a re-created key starts afresh, at the end of the order
        entities[entity.key] = entity
        self.changes.pop((entity.collection, entity.key), None)
        self.changes[(entity.collection, entity.key)] = True
        self._bump(entity.collection, entity.key)

    def _nested(self, fields: JSONDict, turn: int, depth: int) -> None:
        """Entities inside an entity (``labels: [{name: bug}]``) become known in their own collection."""
        if depth >= _NESTED_DEPTH:
            return
        for name, value in fields.items():
            children = [value] if isinstance(value, dict) else value if isinstance(value, list) else ()
            for child in children:
                if not isinstance(child, dict):
                    continue
                ident = identity(child)
                if ident is None:
                    continue
                collection = collection_name(name)
                if self.get(collection, ident[1]) is None:
                    status: Status = "seeded" if turn == 0 else "observed"
                    self._put(Entity(collection, ident[1], copy.deepcopy(child), status, turn))
                self._nested(child, turn, depth + 1)

    def _bump(self, collection: str, key: str) -> None:
        if key.startswith('["'):  # a scoped key: the number counts within its scope
            try:
                parts = json.loads(key)
            except ValueError:
                parts = None
            if isinstance(parts, list) and parts and _counts(str(parts[-1])):
                name = _counter(collection, tuple(str(p) for p in parts[:-1]))
                self._counters[name] = max(self._counters.get(name, 0), int(parts[-1]))
            return
        if _counts(key):
            self._counters[collection] = max(self._counters.get(collection, 0), int(key))
        else:
            digits = "".join(ch for ch in key.rsplit("_", 1)[-1].rsplit("-", 1)[-1] if ch.isdecimal())
            if digits and len(digits) < 9 and digits == key.rsplit("_", 1)[-1].rsplit("-", 1)[-1]:
                self._counters[collection] = max(self._counters.get(collection, 0), int(digits))

    # -- persistence ---------------------------------------------------------------
    def snapshot(self) -> JSONDict:
        """Live entities by collection: what a person inspecting the world wants to see."""
        out: dict[str, list[JSONDict]] = {}
        for collection in self.collections():
            alive = [copy.deepcopy(e.fields) for e in self._collections[collection].values() if e.alive]
            if alive:
                out[collection] = alive
        return out

    def to_dict(self) -> JSONDict:
        return {
            "entities": [e.to_dict() for entities in self._collections.values() for e in entities.values()],
            "counters": dict(self._counters),
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> Ledger:
        ledger = cls()
        for item in data.get("entities", []):
            entity = Entity(**item)
            ledger._collections.setdefault(entity.collection, {})[entity.key] = entity
        ledger._counters = dict(data.get("counters", {}))
        return ledger
