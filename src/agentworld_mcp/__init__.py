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
    "Prediction": "models.base", "Step": "models.base", "WorldModel": "models.base",
    "SchemaWorldModel": "models.deterministic.schema",
    "Outcome": "pipeline.engine", "Simulator": "pipeline.engine", "Stats": "pipeline.engine",
    "SimulatorConfig": "pipeline.config", "BackendKind": "world.kinds", "RecordMode": "world.kinds", "Gate": "state.step",
    "DEFAULT_EPISODE": "state.episode", "Episode": "state.episode", "Turn": "state.episode",
    "AgentWorldError": "errors", "CassetteMissError": "errors", "ConfigError": "errors",
    "EpisodeNotFoundError": "errors", "InvalidObservationError": "errors", "MissingExtraError": "errors",
    "ModelEndpointError": "errors", "SimulatorError": "errors", "SimulatorFailedError": "errors",
    "SimulatorBugError": "errors", "InvalidSelectorError": "errors",
    "StateFileError": "errors", "UnknownToolError": "errors", "WorldFileError": "errors",
    "Effect": "state.ledger", "Entity": "state.ledger", "Ledger": "state.ledger",
    "TrajectoryRecorder": "trajectories.record",
    "ToolResult": "state.result",
    "MemoryStore": "state.store", "SqliteStore": "state.store", "RedisStore": "state.store_redis",
    "World": "world.world", "load_world": "world.world", "load_world_data": "world.world",
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
    from .models.base import Prediction, Step, WorldModel
    from .models.deterministic.schema import SchemaWorldModel
    from .pipeline.config import SimulatorConfig
    from .pipeline.engine import Outcome, Simulator, Stats
    from .state.episode import DEFAULT_EPISODE, Episode, Turn
    from .errors import (
        AgentWorldError, CassetteMissError, ConfigError, EpisodeNotFoundError, InvalidObservationError,
        InvalidSelectorError, MissingExtraError, ModelEndpointError, SimulatorBugError, SimulatorError,
        SimulatorFailedError, StateFileError, UnknownToolError, WorldFileError,
    )
    from .world.kinds import BackendKind, RecordMode
    from .state.ledger import Effect, Entity, Ledger
    from .trajectories.record import TrajectoryRecorder
    from .state.result import ToolResult
    from .state.step import Gate
    from .state.store import MemoryStore, SqliteStore
    from .state.store_redis import RedisStore
    from .world.world import World, load_world, load_world_data
