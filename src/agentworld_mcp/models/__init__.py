"""World models: ``predict(step) -> Prediction``, knowing nothing of MCP or LangChain.

``base`` (the protocol), ``factory.make_backend`` (picks one from settings), the language
world model (``llm`` over an OpenAI-compatible endpoint, ``llm_http`` its request path,
``prompt`` Qwen-AgentWorld's format, ``guard`` its checks against the ledger), ``cassette``
(record and replay, as VCR.py does), ``routed`` (a model per tool) and the deterministic
model in :mod:`agentworld_mcp.models.deterministic`.

May import: :mod:`agentworld_mcp.state`, :mod:`agentworld_mcp.world`,
:mod:`agentworld_mcp.errors`; never the pipeline or the perturbation stage.
"""

from __future__ import annotations

from .base import Prediction, Step, WorldModel
from .factory import make_backend

__all__ = ["Prediction", "Step", "WorldModel", "make_backend"]
