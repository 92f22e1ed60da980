"""Per-tool world models: each tool answered by the world model its ``_meta`` names.

A hybrid is fast where the ledger suffices and rich where it does not: CRUD tools on the
deterministic model, an open-ended search or compute tool on the language model::

    tools:
      - name: search_web
        _meta: {agentworld/backend: llm}

Tools that name none use the world's model (``backend.type``, the environment, ``--backend``).
All the models share the episode (its ledger and turns), so a record the deterministic
model created is a fact in the language model's prompt.
"""

from __future__ import annotations

from typing import Any

from .base import Prediction, Step, WorldModel

JSONDict = dict[str, Any]

#: The tool ``_meta`` key naming its world model (``schema`` or ``llm``).
BACKEND_META = "agentworld/backend"


def tool_backends(tools: list[JSONDict]) -> dict[str, str]:
    """The tools that name their own world model, by name."""
    out: dict[str, str] = {}
    for tool in tools:
        kind = (tool.get("_meta") or {}).get(BACKEND_META)
        if isinstance(kind, str) and kind:
            out[tool["name"]] = kind
    return out


class PerToolWorldModel:
    """Delegates each call to the model of its tool's kind, else to the default kind's."""

    def __init__(self, models: dict[str, WorldModel], default: str, by_tool: dict[str, str]) -> None:
        self.models = models
        self.default = default
        self.by_tool = by_tool
        self.name = "+".join([models[default].name, *(m.name for k, m in sorted(models.items()) if k != default)])

    def model_for(self, tool: str) -> WorldModel:
        return self.models[self.by_tool.get(tool, self.default)]

    async def predict(self, step: Step) -> Prediction:
        return await self.model_for(step.tool.name).predict(step)

    async def aclose(self) -> None:
        for model in self.models.values():
            await model.aclose()


__all__ = ["BACKEND_META", "PerToolWorldModel", "tool_backends"]
