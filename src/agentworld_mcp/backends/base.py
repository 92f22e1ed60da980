"""The world-model protocol: ``predict(step) -> prediction``.

Backends know nothing about MCP transports or LangChain. They get the tool, the
arguments and the episode (ledger and history) and return an observation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..catalog import ToolSpec
from ..episode import Episode
from ..ledger import Effect
from ..world import World

JSONDict = dict[str, Any]


@dataclass
class Step:
    """Everything a world model may use to predict one observation."""

    world: World
    tool: ToolSpec
    arguments: JSONDict
    episode: Episode
    turn: int
    rng: random.Random
    #: Plain-language events for the world model (instructed perturbations).
    instructions: list[str] = field(default_factory=list)


@dataclass
class Prediction:
    """A world model's answer to a step.

    ``observation`` is the tool's response: a JSON value for tools with an outputSchema
    (or JSON-ish tools), text otherwise. ``text``, when given, is the text block exactly as
    the real server prints it (``Successfully wrote to /a.txt``), independent of the
    structured ``observation``; without it the text block is the observation (JSON rendered).
    ``effects`` are the changes the call makes to the world; ``None`` lets the engine infer
    them from the arguments and the observation.
    """

    observation: Any
    is_error: bool = False
    effects: list[Effect] | None = None
    info: JSONDict = field(default_factory=dict)
    text: str | None = None


@runtime_checkable
class WorldModel(Protocol):
    #: Short name recorded with each turn (``schema``, ``llm``, ``cassette(llm)``).
    name: str

    async def predict(self, step: Step) -> Prediction: ...

    async def aclose(self) -> None: ...
