"""The world-model protocol: ``predict(step) -> prediction``.

Backends know nothing about MCP transports or LangChain. They get the tool, the
arguments and the episode (ledger and history) and return an observation.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

# Step and Prediction live in agentworld_mcp/step.py (below backends and perturb alike).
from ..state.step import Prediction, Step

JSONDict = dict[str, Any]

__all__ = ["Prediction", "Step", "WorldModel"]


@runtime_checkable
class WorldModel(Protocol):
    #: Short name recorded with each turn (``schema``, ``llm``, ``cassette(llm)``).
    name: str

    async def predict(self, step: Step) -> Prediction: ...

    async def aclose(self) -> None: ...
