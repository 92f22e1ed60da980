"""Question/answer facts that hold only in a world's fiction, for graders and RL rewards.

Computed from the world's seed state, so they are true by construction, and only there: an
agent cannot answer "How many incidents have severity high?" from memory. Three kinds:

* ``count``: how many entities of a collection have a field value (``status: open``);
* ``lookup``: one field of one entity named by its key;
* ``join``: a field of the entity another one refers to (the habitat of the crew member
  who reported an incident).

Each fact is one JSON line: ``{"question", "answer", "kind", "evidence": ["collection/key"]}``.
The pytest fixture reads them from ``<world>.facts.jsonl`` beside the world file
(``agentworld.facts``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..world.catalog import Catalog
from .references import Shape, entity_key, shapes
from ..world.world import World

JSONDict = dict[str, Any]
#: Fields worth asking about in a lookup, in order of preference.
_LOOKUP_FIELDS = ("status", "state", "severity", "priority", "category", "type", "kind", "role", "name", "title",
                  "summary", "email")
#: The fields that name an entity for a person (a join answers with one of them).
_NAME_FIELDS = ("name", "title", "full_name", "fullName", "display_name", "displayName", "summary", "subject", "label")
_TEXT_FIELDS = ("description", "body", "content", "text", "details", "notes", "note", "comment", "message")


@dataclass(frozen=True)
class Fact:
    question: str
    answer: str
    kind: str
    evidence: tuple[str, ...]

    def to_dict(self) -> JSONDict:
        data = asdict(self)
        data["evidence"] = list(self.evidence)
        return data


def facts_of(world: World, *, seed: int = 0, per_collection: int = 3) -> list[Fact]:
    """Counts, lookups and joins over ``world``'s seed state (``seed`` picks which)."""
    every = shapes(Catalog(world))
    rng = random.Random(f"facts:{seed}")
    out: list[Fact] = []
    for collection, entities in world.seed.items():
        shape = every.get(collection)
        items = [e for e in entities if isinstance(e, dict)]
        if shape is None or not items:
            continue
        out += _counts(shape, items, rng)[:1]
        out += _lookups(shape, items, rng)[:per_collection]
        out += _joins(shape, items, world.seed, every, rng)[:per_collection]
    return out


def _ref(shape: Shape, entity: JSONDict, index: int = 0) -> str:
    return f"{shape.collection}/{entity_key(entity, shape, index)}"


def _categorical(shape: Shape, items: list[JSONDict]) -> list[str]:
    """Fields with a few repeated scalar values: what a count is asked about."""
    out = []
    for name, schema in shape.fields.items():
        if name == shape.key_field or name in shape.references:
            continue
        seen = [e.get(name) for e in items if isinstance(e.get(name), (str, bool))]
        if len(seen) < 2 or name in _NAME_FIELDS or name in _TEXT_FIELDS:
            continue
        if schema.get("enum") or name in ("status", "state") or isinstance(seen[0], bool) or (
                len(set(seen)) <= max(2, len(seen) // 2) and all(len(str(v)) < 40 for v in seen)):
            out.append(name)
    return out


def _counts(shape: Shape, items: list[JSONDict], rng: random.Random) -> list[Fact]:
    out = []
    for name in _categorical(shape, items):
        tally = Counter(str(e.get(name)).lower() if isinstance(e.get(name), bool) else e.get(name) for e in items
                        if name in e)
        value = sorted(tally, key=str)[rng.randrange(len(tally))]
        matched = [_ref(shape, e, i) for i, e in enumerate(items) if
                   (str(e.get(name)).lower() if isinstance(e.get(name), bool) else e.get(name)) == value]
        out.append(Fact(f"How many {shape.collection.replace('_', ' ')} have {_words(name)} {value}?",
                        str(tally[value]), "count", tuple(matched)))
    return out


def _lookups(shape: Shape, items: list[JSONDict], rng: random.Random) -> list[Fact]:
    fields = [f for f in _LOOKUP_FIELDS if f in shape.fields and f != shape.key_field]
    if not fields:
        return []
    out = []
    for index in rng.sample(range(len(items)), k=min(len(items), 3)):
        entity = items[index]
        name = next((f for f in fields if isinstance(entity.get(f), (str, int)) and not isinstance(entity.get(f), bool)),
                    None)
        if name is None:
            continue
        key = entity_key(entity, shape, index)
        out.append(Fact(f"What is the {_words(name)} of {shape.noun} {key}?", str(entity[name]), "lookup",
                        (_ref(shape, entity, index),)))
    return out


def _joins(shape: Shape, items: list[JSONDict], seed: dict[str, list[JSONDict]], every: dict[str, Shape],
           rng: random.Random) -> list[Fact]:
    out = []
    for name, ref in shape.references.items():
        target_shape = every.get(ref.target)
        targets = [e for e in seed.get(ref.target) or [] if isinstance(e, dict)]
        if ref.many or target_shape is None or not targets or ref.target == shape.collection:
            continue
        index_of = {entity_key(t, target_shape, i): (i, t) for i, t in enumerate(targets)}
        linked = [(i, e) for i, e in enumerate(items) if _scalar_key(e.get(name), target_shape) in index_of]
        if not linked:
            continue
        index, entity = linked[rng.randrange(len(linked))]
        t_index, target = index_of[str(_scalar_key(entity[name], target_shape))]
        key = entity_key(entity, shape, index)
        # two hops where the target refers on (the habitat of the crew member who reported the incident)
        hop = _second_hop(target_shape, target, seed, every)
        if hop is not None:
            hop_name, far_shape, far_index, far = hop
            label_field, label = _label(far, far_shape, far_index)
            out.append(Fact(f"What is the {label_field} of the {far_shape.noun} {_who(hop_name, far_shape)} the "
                            f"{target_shape.noun} {_who(name, target_shape)} {shape.noun} {key}?", label, "join",
                            (_ref(shape, entity, index), _ref(target_shape, target, t_index),
                             _ref(far_shape, far, far_index))))
        else:
            named = next((f for f in _NAME_FIELDS if isinstance(target.get(f), str)), None)
            if named is None:
                continue
            out.append(Fact(f"What is the {_words(named)} of the {target_shape.noun} {_who(name, target_shape)} "
                            f"{shape.noun} {key}?", str(target[named]), "join",
                            (_ref(shape, entity, index), _ref(target_shape, target, t_index))))
    return out


def _second_hop(shape: Shape, entity: JSONDict, seed: dict[str, list[JSONDict]], every: dict[str, Shape]
                ) -> tuple[str, Shape, int, JSONDict] | None:
    for name, ref in shape.references.items():
        far_shape = every.get(ref.target)
        if ref.many or far_shape is None or ref.target == shape.collection:
            continue
        key = _scalar_key(entity.get(name), far_shape)
        for i, far in enumerate(seed.get(ref.target) or []):
            if isinstance(far, dict) and entity_key(far, far_shape, i) == key:
                return name, far_shape, i, far
    return None


def _scalar_key(value: Any, target: Shape) -> str | None:
    if isinstance(value, dict):
        value = value.get(target.key_field, value.get("id"))
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _label(entity: JSONDict, shape: Shape, index: int) -> tuple[str, str]:
    """What names an entity for a person: (the field's words, its value); its key when it has no name."""
    name = next((f for f in _NAME_FIELDS if isinstance(entity.get(f), str)), None)
    return (_words(name), str(entity[name])) if name else (_words(shape.key_field), entity_key(entity, shape, index))


def _stem(name: str) -> str:
    from ..world.roles import id_stem

    return _words(id_stem(name) or name)


def _who(name: str, target: Shape) -> str:
    """``habitat_id`` of an incident -> "of"; ``reporter`` -> "who is the reporter of"."""
    stem = _stem(name)
    if stem == target.noun or target.noun.endswith(" " + stem) or stem.endswith(target.noun):
        return "of"
    if stem.endswith(" by") and len(stem.split()) > 1:  # ``reported_by`` -> "who reported"
        return f"{'who' if target.is_people else 'that'} {stem.removesuffix(' by')}"
    return f"{'who' if target.is_people else 'that'} is the {stem} of"


def _words(name: str) -> str:
    from ..world.roles import words

    return " ".join(words(name))


def write_facts(path: Path, facts: Iterable[Fact]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(f.to_dict(), ensure_ascii=False) + "\n" for f in facts), encoding="utf-8")
    return path


def read_facts(path: str | Path) -> list[JSONDict]:
    """The facts of a ``.facts.jsonl`` file, one dict per line."""
    text = Path(path).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def facts_path(world_path: str | Path) -> Path:
    """Where a world's facts live by default: ``mars.yaml`` -> ``mars.facts.jsonl`` beside it."""
    path = Path(world_path)
    return path.with_name(f"{path.stem}.facts.jsonl")


__all__ = ["Fact", "facts_of", "facts_path", "read_facts", "write_facts"]
