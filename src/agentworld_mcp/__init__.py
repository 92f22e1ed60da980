"""agentworld-mcp: simulated MCP tool environments answered by a world model.

The public API::

    from agentworld_mcp import Simulator, load_world

    sim = Simulator(load_world("examples/worlds/issue-tracker.yaml"), seed=7)
    result = await sim.call("create_issue", {"title": "Crash on start"})

Names are imported on first use (PEP 562): the pytest plugin is loaded into every pytest
run of an environment where agentworld-mcp is installed, and must cost nothing there.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Prediction": "backends.base", "Step": "backends.base", "WorldModel": "backends.base",
    "SchemaWorldModel": "backends.schema",
    "Outcome": "engine", "Simulator": "engine", "Stats": "engine",
    "SimulatorConfig": "config", "BackendKind": "kinds", "RecordMode": "kinds", "Gate": "step",
    "DEFAULT_EPISODE": "episode", "Episode": "episode", "Turn": "episode",
    "AgentWorldError": "errors", "CassetteMissError": "errors", "ConfigError": "errors",
    "EpisodeNotFoundError": "errors", "InvalidObservationError": "errors", "MissingExtraError": "errors",
    "ModelEndpointError": "errors", "SimulatorError": "errors", "SimulatorFailedError": "errors",
    "SimulatorBugError": "errors", "InvalidSelectorError": "errors",
    "StateFileError": "errors", "UnknownToolError": "errors", "WorldFileError": "errors",
    "Effect": "ledger", "Entity": "ledger", "Ledger": "ledger",
    "TrajectoryRecorder": "record",
    "ToolResult": "result",
    "MemoryStore": "store", "SqliteStore": "store", "RedisStore": "store_redis",
    "World": "world", "load_world": "world", "load_world_data": "world",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentworld_mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ imports on first use
    from .backends.base import Prediction, Step, WorldModel
    from .backends.schema import SchemaWorldModel
    from .config import SimulatorConfig
    from .engine import Outcome, Simulator, Stats
    from .episode import DEFAULT_EPISODE, Episode, Turn
    from .errors import (
        AgentWorldError, CassetteMissError, ConfigError, EpisodeNotFoundError, InvalidObservationError,
        InvalidSelectorError, MissingExtraError, ModelEndpointError, SimulatorBugError, SimulatorError,
        SimulatorFailedError, StateFileError, UnknownToolError, WorldFileError,
    )
    from .kinds import BackendKind, RecordMode
    from .ledger import Effect, Entity, Ledger
    from .record import TrajectoryRecorder
    from .result import ToolResult
    from .step import Gate
    from .store import MemoryStore, SqliteStore
    from .store_redis import RedisStore
    from .world import World, load_world, load_world_data
