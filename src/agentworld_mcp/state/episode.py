"""Episodes: isolated world instances, each with its ledger, trajectory and seed."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidSelectorError
from .ledger import Ledger
from ..world.world import World

JSONDict = dict[str, Any]

#: The episode every call joins unless it names another one: one shared world, as a real backend.
DEFAULT_EPISODE = "default"

# How a client names its episode (and per-call perturbations) from outside the process.
#: ``_meta`` keys a client may set on tools/call.
META_EPISODE = "agentworld/episode"
META_PERTURB = "agentworld/perturb"
#: HTTP header and query parameter that select an episode.
EPISODE_HEADER = "x-agentworld-episode"
EPISODE_QUERY = "episode"


def episode_id(value: Any) -> str | None:
    """A selector as the one string every store keys episodes by (``12345`` and ``"12345"`` are one).

    None (or an empty string) means "not given"; anything but a string or an integer is refused.
    """
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    shown = repr(value)[:80]
    raise InvalidSelectorError(f"an episode id must be a string (or an integer), got {type(value).__name__} {shown}")


@dataclass
class Turn:
    """One recorded tool call."""

    index: int
    tool: str
    arguments: JSONDict
    result: JSONDict  # CallToolResult JSON
    backend: str = ""
    perturbations: list[JSONDict] = field(default_factory=list)
    started_at: float = 0.0
    duration_ms: float = 0.0
    info: JSONDict = field(default_factory=dict)

    def to_dict(self) -> JSONDict:
        return {
            "index": self.index, "tool": self.tool, "arguments": self.arguments, "result": self.result,
            "backend": self.backend, "perturbations": self.perturbations, "started_at": self.started_at,
            "duration_ms": self.duration_ms, "info": self.info,
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> Turn:
        return cls(**data)


@dataclass
class Episode:
    id: str
    seed: int
    ledger: Ledger
    turns: list[Turn] = field(default_factory=list)
    #: Free-form per-episode state owned by pipeline stages (pagination cursors, rate-limit windows...).
    state: JSONDict = field(default_factory=dict)

    @classmethod
    def new(cls, world: World, episode_id: str, seed: int) -> Episode:
        ledger = Ledger()
        ledger.seed(world.seed)
        return cls(episode_id, seed, ledger)

    @property
    def next_turn(self) -> int:
        return len(self.turns) + 1

    def rng(self, *salt: Any) -> random.Random:
        """A generator determined by the seed, the episode and ``salt`` only (never by timing)."""
        digest = hashlib.sha256(repr((self.seed, self.id, *salt)).encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id, "seed": self.seed, "ledger": self.ledger.to_dict(),
            "turns": [t.to_dict() for t in self.turns], "state": self.state,
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> Episode:
        return cls(
            data["id"], data["seed"], Ledger.from_dict(data["ledger"]),
            [Turn.from_dict(t) for t in data.get("turns", [])], dict(data.get("state", {})),
        )
