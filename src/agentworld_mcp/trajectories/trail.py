"""What an agent did in an episode, as a person reads it: turns, their outcomes, what they changed.

Shared by the HTML report (``agentworld-mcp report``, ``GET /admin/episodes/{id}/report``) and
the terminal timeline (``agentworld-mcp episodes show --turns``).

Turns come from a trajectory file (``--record``: one line per turn, or the older
AgentWorldBench lines, which carry the turn under their ``agentworld`` key) or from an
episode in a state file or a running server. What each turn created, changed or deleted is
found by replaying the turns, from the world's seed state, through the same reconciliation
the engine applies (``reconcile.infer_effects``): it needs the world (a world file, or the
one a state file stores) and works for results of any world model.
"""

from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..world.catalog import Catalog
from ..state.episode import Episode, Turn
from ..state.ledger import Effect, Entity

JSONDict = dict[str, Any]


@dataclass(frozen=True)
class Change:
    """One entity a turn created, updated or deleted."""

    op: str  # "created" | "updated" | "deleted"
    collection: str
    key: str
    fields: JSONDict = field(default_factory=dict)  # created: the entity; updated: field -> [old, new]

    def summary(self) -> str:
        sign = {"created": "+", "updated": "~", "deleted": "-"}.get(self.op, "?")
        return f"{sign}{self.collection}/{self.key}"


@dataclass
class Trail:
    """One episode's turns (and, when known, what each changed and the final ledger)."""

    world: str
    episode: str
    turns: list[Turn]
    changes: list[list[Change]] | None = None  # per turn, when the world was known
    ledger: JSONDict | None = None  # live entities at the end, when known
    source: str = ""

    @property
    def errors(self) -> int:
        return sum(1 for t in self.turns if t.result.get("isError"))

    @property
    def perturbations(self) -> int:
        return sum(len(t.perturbations) for t in self.turns)


# -- reading trajectory files ------------------------------------------------------------------

def turn_of(line: JSONDict) -> tuple[str, str, Turn] | None:
    """(world, episode, turn) of a trajectory line in either format; None for other lines."""
    nested = line.get("agentworld")
    data: JSONDict = nested if isinstance(nested, dict) else line
    tool, result = data.get("tool"), data.get("result")
    if not isinstance(tool, str) or not isinstance(result, dict):
        return None
    index = data.get("turn", data.get("index", data.get("turn_idx", 0)))
    world = data.get("world") or str(line.get("id", "")).split("/", 1)[0] or "world"
    given = data.get("info")
    info: JSONDict = given if isinstance(given, dict) else {}
    if "fidelity" in data and "fidelity" not in info:
        info = {**info, "fidelity": data["fidelity"]}
    given = data.get("timings")
    timings: JSONDict = given if isinstance(given, dict) else {}
    turn = Turn(
        index=int(index) if isinstance(index, (int, float, str)) and str(index).isdigit() else 0,
        tool=tool, arguments=dict(data.get("arguments") or {}), result=result,
        backend=str(data.get("backend") or ""), perturbations=list(data.get("perturbations") or []),
        started_at=float(data.get("started_at", timings.get("started_at", 0.0)) or 0.0),
        duration_ms=float(data.get("duration_ms", timings.get("duration_ms", 0.0)) or 0.0),
        info=info,
    )
    return str(world), str(data.get("episode", "default")), turn


def trails_from_lines(lines: Iterable[JSONDict], *, source: str = "") -> list[Trail]:
    """Group trajectory lines into one trail per (world, episode), turns in order.

    A turn seen twice (two processes appending the same history) is kept once; an episode
    reset (its turn numbers start again at 1) starts a new trail.
    """
    trails: dict[tuple[str, str, int], Trail] = {}
    generation: dict[tuple[str, str], int] = {}
    for line in lines:
        found = turn_of(line)
        if found is None:
            continue
        world, episode, turn = found
        gen = generation.setdefault((world, episode), 0)
        trail = trails.get((world, episode, gen))
        if trail is not None and trail.turns and turn.index and turn.index <= trail.turns[-1].index:
            if any(t.index == turn.index and t.tool == turn.tool and t.arguments == turn.arguments
                   for t in trail.turns):
                continue  # a duplicate line
            gen = generation[(world, episode)] = gen + 1
            trail = None
        if trail is None:
            name = episode if gen == 0 else f"{episode} (after reset {gen})"
            trail = trails[(world, episode, gen)] = Trail(world, name, [], source=source)
        trail.turns.append(turn)
    return list(trails.values())


# -- what each turn changed ---------------------------------------------------------------------

def replay(catalog: Catalog, turns: list[Turn], *, episode: str = "default", seed: int = 0) -> tuple[list[list[Change]], JSONDict]:
    """What each turn created, changed or deleted, and the live entities at the end.

    The turns are applied to a fresh ledger from the world's seed state as the engine applies
    them: a successful result's effects, inferred from the arguments and the observation.
    """
    from ..models.base import Prediction, Step
    from ..pipeline.reconcile import infer_effects

    ep = Episode.new(catalog.world, episode, seed)
    per_turn: list[list[Change]] = []
    for turn in turns:
        spec = catalog.get(turn.tool)
        changes: list[Change] = []
        if spec is not None and not turn.result.get("isError"):
            index = ep.next_turn
            step = Step(catalog.world, spec, turn.arguments, ep, index, ep.rng(index, spec.name), catalog=catalog)
            try:
                effects = infer_effects(step, Prediction(observation_of(turn.result)))
            except Exception:  # noqa: BLE001 - a report shows what it can; one odd turn must not hide the rest
                effects = []
            changes = _apply(ep, effects, index)
        per_turn.append(changes)
        ep.turns.append(Turn(ep.next_turn, turn.tool, turn.arguments, turn.result))
    return per_turn, ep.ledger.snapshot()


def trail_of_episode(episode: Episode, catalog: Catalog | None, *, source: str = "") -> Trail:
    """An episode kept by a store (state file, running server): replayed when the world is known."""
    world = catalog.world.name if catalog is not None else ""
    trail = Trail(world, episode.id, list(episode.turns), source=source, ledger=episode.ledger.snapshot())
    if catalog is not None:
        trail.changes, _ = replay(catalog, trail.turns, episode=episode.id, seed=episode.seed)
    else:
        trail.changes = changes_from_state(episode)
    return trail


def changes_from_state(episode: Episode) -> list[list[Change]]:
    """Without the world: each entity's last change, from the turn numbers the ledger keeps."""
    by_turn: dict[int, list[Change]] = {}
    for item in episode.ledger.to_dict()["entities"]:
        entity = Entity(**item)
        if entity.status == "deleted" and entity.deleted_turn:
            by_turn.setdefault(entity.deleted_turn, []).append(Change("deleted", entity.collection, entity.key))
        elif entity.status == "created" and entity.created_turn:
            by_turn.setdefault(entity.created_turn, []).append(
                Change("created", entity.collection, entity.key, entity.fields))
        elif entity.status == "updated" and entity.updated_turn:
            by_turn.setdefault(entity.updated_turn, []).append(Change("updated", entity.collection, entity.key))
    return [by_turn.get(t.index, []) for t in episode.turns]


def _apply(ep: Episode, effects: list[Effect], turn: int) -> list[Change]:
    touched: list[tuple[str, str]] = []
    for effect in effects:
        if effect.op == "observe":
            continue
        for key in (effect.key, effect.new_key):
            if key is not None and (effect.collection, key) not in touched:
                touched.append((effect.collection, key))
    before = {slot: _copy(ep.ledger.get(*slot)) for slot in touched}
    ep.ledger.apply(effects, turn)
    changes: list[Change] = []
    for slot in touched:
        old, new = before[slot], ep.ledger.get(*slot)
        if old is None and new is not None:
            changes.append(Change("created", slot[0], slot[1], copy.deepcopy(new.fields)))
        elif old is not None and new is None:
            changes.append(Change("deleted", slot[0], slot[1]))
        elif old is not None and new is not None:
            diff = {k: [old.fields.get(k), v] for k, v in new.fields.items() if old.fields.get(k) != v}
            if diff:
                changes.append(Change("updated", slot[0], slot[1], diff))
    return changes


def _copy(entity: Entity | None) -> Entity | None:
    return None if entity is None else Entity(entity.collection, entity.key, copy.deepcopy(entity.fields), entity.status)


# -- small readable pieces -----------------------------------------------------------------------

def observation_of(result: JSONDict) -> Any:
    """What the world model answered: the structuredContent, else the text (as JSON when it is)."""
    if isinstance(result.get("structuredContent"), dict):
        return result["structuredContent"]
    text = result_text(result)
    try:
        return json.loads(text)
    except ValueError:
        return text


def result_text(result: JSONDict) -> str:
    blocks = result.get("content") or []
    parts = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(f"[{block.get('type', 'content')} block]")
    return "\n".join(parts)


def short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(text.split()))  # no terminal escapes
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_args(arguments: JSONDict, limit: int = 70) -> str:
    return short(", ".join(f"{k}={short(v, 30)}" for k, v in arguments.items()), limit)


def outcome(turn: Turn) -> str:
    """``ok``, ``error: <first line>`` or ``simulator error: <kind>``."""
    result = turn.result
    given = result.get("_meta")
    meta: JSONDict = given if isinstance(given, dict) else {}
    from ..state.result import SIMULATOR_ERROR_META

    if SIMULATOR_ERROR_META in meta:
        return f"simulator error: {meta[SIMULATOR_ERROR_META]}"
    if result.get("isError"):
        lines = result_text(result).strip().splitlines()
        return "error: " + short(lines[0] if lines else "", 70)
    return "ok"


def perturbation_label(item: JSONDict) -> str:
    kind = str(item.get("kind", "?"))
    details = [f"{k}={short(v, 20)}" for k, v in item.items() if k not in ("kind", "rule")]
    return kind + (f" ({', '.join(details)})" if details else "")


def fidelity_of(turn: Turn) -> float | None:
    """The fidelity score a turn carries (``info.fidelity``: a number, or a dict with ``score``)."""
    value = turn.info.get("fidelity") if isinstance(turn.info, dict) else None
    if isinstance(value, dict):
        value = value.get("score")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def clock(started_at: float) -> str:
    if not started_at:
        return ""
    return datetime.datetime.fromtimestamp(started_at, datetime.UTC).strftime("%H:%M:%S.%f")[:-3]


def timeline(trail: Trail) -> list[str]:
    """The terminal timeline: one line per turn (plus its changes and perturbations)."""
    lines = []
    width = len(str(trail.turns[-1].index)) if trail.turns else 1
    for n, turn in enumerate(trail.turns):
        mark = "!" if turn.result.get("isError") else " "
        lines.append(f"{mark}{turn.index:>{width}}  {turn.tool}({short_args(turn.arguments)})  -> {outcome(turn)}"
                     f"  [{turn.duration_ms:.1f} ms]")
        pad = " " * (width + 3)
        for item in turn.perturbations:
            lines.append(f"{pad}perturbation: {perturbation_label(item)}")
        if trail.changes is not None and n < len(trail.changes) and trail.changes[n]:
            lines.append(f"{pad}changed: {' '.join(c.summary() for c in trail.changes[n])}")
    return lines


__all__ = ["Change", "Trail", "changes_from_state", "fidelity_of", "outcome", "replay", "result_text",
           "timeline", "trail_of_episode", "trails_from_lines", "turn_of"]
