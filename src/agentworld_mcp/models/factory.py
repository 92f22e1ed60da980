"""The factory that picks a world model (backend) from settings.

``schema`` needs nothing; ``llm`` needs the ``llm`` extra (``openai``) and an
OpenAI-compatible endpoint, unless a cassette replays it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..world.kinds import BackendKind, RecordMode
from ..errors import ConfigError
from ..world.world import World
from .base import WorldModel


__all__ = ["make_backend"]


def make_backend(
    world: World,
    *,
    kind: str | None = None,
    cassette: str | Path | None = None,
    record_mode: str | None = None,
    **options: Any,
) -> WorldModel:
    """The world model for ``world``: ``kind``, else the world file's ``backend.type``, else ``schema``.

    ``options`` are llm settings (``base_url``, ``model``, ``temperature``, ``max_tokens``,
    ``timeout``...; see :class:`~agentworld_mcp.models.llm.LLMSettings`) and override the
    world file and the environment. ``cassette`` (with ``record_mode``) records or replays
    the llm backend's model requests.
    """
    kind = BackendKind.parse(kind or world.backend.get("type") or "schema", "backend")
    cassette = cassette or world.backend.get("cassette")
    from .routed import tool_backends

    by_tool = {name: BackendKind.parse(k, f"_meta.agentworld/backend of tool {name!r}")
               for name, k in tool_backends(world.tools).items()}
    if any(k is not kind for k in by_tool.values()):  # per-tool world models (models/routed.py)
        from .routed import PerToolWorldModel

        kinds = {kind, *by_tool.values()}
        models = {k.value: _one(world, k, cassette if k is BackendKind.LLM else None, record_mode,
                                options if k is BackendKind.LLM else {}) for k in kinds}
        return PerToolWorldModel(models, kind.value, {name: k.value for name, k in by_tool.items()})
    return _one(world, kind, cassette, record_mode, options)


def _one(world: World, kind: BackendKind, cassette: str | Path | None, record_mode: str | None,
         options: dict[str, Any]) -> WorldModel:
    if kind is BackendKind.SCHEMA:
        given = sorted(k for k, v in options.items() if v not in (None, []))
        if given or cassette:
            flags = ", ".join(given + (["cassette"] if cassette else []))
            raise ConfigError(f"settings {flags} only apply to the llm backend; add --backend llm (or drop them)")
        from .deterministic.schema import SchemaWorldModel

        return SchemaWorldModel()
    from .llm import LLMSettings, LLMWorldModel

    model = LLMWorldModel(LLMSettings.resolve(world.backend, **options))
    if cassette is None:
        return model
    from .cassette import Cassette, CassetteWorldModel

    mode = record_mode or world.backend.get("record_mode") or RecordMode.ONCE
    return CassetteWorldModel(model, Cassette(cassette, mode))
