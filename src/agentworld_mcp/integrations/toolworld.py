"""Worlds made from tool definitions an agent already has, plus a world file's extras.

Agent teams start from their tools, not from a world file. The catalog then comes from
the tools (so the model sees exactly the schemas it always saw); a world file, when given,
only adds what tools cannot say: scenario, seed state, demonstrations, perturbations,
backend, and optionally output schemas and annotations for tools of the same name.
No LangChain here: :mod:`agentworld_mcp.integrations.langgraph` turns LangChain tools into the MCP
definitions this module takes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError, WorldFileError
from ..world.world import World, load_world_data

JSONDict = dict[str, Any]
Overlay = World | str | os.PathLike[str] | JSONDict | None

#: What a world file's tool entry may lend to a tool of the same name.
LENT_KEYS = ("outputSchema", "annotations", "title")


def world_from_definitions(definitions: Iterable[JSONDict], world: Overlay = None) -> World:
    """A world whose catalog is ``definitions`` (MCP tool dicts), with ``world``'s extras.

    Name, description and ``inputSchema`` always come from ``definitions``; a tool the
    world file lists under the same name lends its ``outputSchema``, ``annotations`` and
    ``title``. The world file may leave ``tools`` out altogether.
    """
    catalog = [_definition(t) for t in definitions]
    if not catalog:
        raise ConfigError("no tools given; pass the agent's tools (LangChain tools or MCP tool dicts)")
    source, base_dir, data = "<tools>", None, {}
    if isinstance(world, World):
        data = world.model_dump(exclude={"source"}, by_alias=True, exclude_none=True)
        source = world.source or source
    elif isinstance(world, dict):
        data = dict(world)
    elif world is not None:
        path = Path(world)
        source, base_dir, data = str(path), path.parent, read_world_data(path)
    if data.get("tools"):
        listed = {t["name"]: t for t in load_world_data(data, source=source, base_dir=base_dir).tools}
        for tool in catalog:
            for key in LENT_KEYS:
                if key in listed.get(tool["name"], {}) and key not in tool:
                    tool[key] = listed[tool["name"]][key]
    return load_world_data({**data, "tools": catalog}, source=source, base_dir=base_dir)


def read_world_data(path: Path) -> JSONDict:
    """A world file's raw mapping (``tools`` may be missing), with clear errors."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorldFileError(str(path), ["file not found; pass the path of a .yaml or .json world file"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise WorldFileError(str(path), [f"invalid YAML/JSON: {exc}"]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise WorldFileError(str(path), [f"the top level must be a mapping, not {type(data).__name__}"])
    return data


def _definition(tool: Any) -> JSONDict:
    if not isinstance(tool, dict) or "name" not in tool:
        raise ConfigError(f"not an MCP tool definition (a dict with 'name' and 'inputSchema'): {tool!r}")
    return {"inputSchema": {"type": "object"}, **tool}
