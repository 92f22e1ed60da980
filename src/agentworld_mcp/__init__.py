"""agentworld-mcp: simulated MCP tool environments answered by a world model.

The public API::

    from agentworld_mcp import Simulator, load_world

    sim = Simulator(load_world("examples/worlds/issue-tracker.yaml"), seed=7)
    result = await sim.call("create_issue", {"title": "Crash on start"})
"""

__version__ = "0.1.0"

from .backends.base import Prediction, Step, WorldModel  # noqa: E402
from .backends.schema import SchemaWorldModel  # noqa: E402
from .engine import Simulator, Stats  # noqa: E402
from .episode import DEFAULT_EPISODE, Episode, Turn  # noqa: E402
from .errors import (  # noqa: E402
    AgentWorldError,
    CassetteMissError,
    ConfigError,
    EpisodeNotFoundError,
    StateFileError,
    InvalidObservationError,
    MissingExtraError,
    ModelEndpointError,
    SimulatorError,
    UnknownToolError,
    WorldFileError,
)
from .ledger import Effect, Entity, Ledger  # noqa: E402
from .record import TrajectoryRecorder  # noqa: E402
from .result import ToolResult  # noqa: E402
from .store import MemoryStore, SqliteStore  # noqa: E402
from .world import World, load_world, load_world_data  # noqa: E402

__all__ = [
    "__version__",
    "AgentWorldError", "CassetteMissError", "ConfigError", "DEFAULT_EPISODE", "Effect", "Entity", "Episode",
    "EpisodeNotFoundError", "InvalidObservationError", "Ledger", "MissingExtraError", "ModelEndpointError",
    "Prediction", "SchemaWorldModel", "Simulator", "SimulatorError", "Stats", "Step", "ToolResult", "Turn",
    "UnknownToolError", "World", "WorldFileError", "WorldModel", "load_world", "load_world_data",
    "MemoryStore", "SqliteStore", "StateFileError", "TrajectoryRecorder",
]
