"""``agentworld-mcp proxy``: a transparent MCP proxy in front of a real server, recording it.

Clients see exactly what the real server answers: tools/list pages and tools/call results
are passed on as the JSON the server sent, and a JSON-RPC error from the server reaches the
client with the same code and message (the SDK plumbing is in :mod:`.transport`). With
``--record FILE.jsonl`` every call is appended by the same :class:`TrajectoryRecorder` as
``serve --record``, the real result standing where the simulator's would, with secret
arguments redacted. The catalog the server listed at start is written beside the
recording as ``FILE.tools.json`` (a tools/list dump, itself a world file), which
``agentworld-mcp learn`` and ``score`` read.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any, Protocol

from .catalog import Catalog
from .episode import DEFAULT_EPISODE, META_EPISODE, Episode, Turn, episode_id
from .record import TrajectoryRecorder
from .world import World, load_world_data

log = logging.getLogger("agentworld_mcp.proxy")
JSONDict = dict[str, Any]

#: Argument names whose values never reach a recording.
SECRET_NAME = re.compile(r"token|secret|password|passwd|authorization|api[_-]?key|cookie", re.IGNORECASE)
REDACTED = "[redacted]"
#: What the recorded turns name as their world model.
REAL_BACKEND = "real"


class UpstreamClient(Protocol):
    """A session to the real server (:class:`agentworld_mcp.transport.Upstream`)."""

    name: str
    version: str
    instructions: str | None

    async def list_tools_page(self, cursor: str | None) -> JSONDict: ...

    async def list_tools(self) -> list[JSONDict]: ...

    async def call_tool(self, name: str, arguments: JSONDict, meta: JSONDict | None = None) -> JSONDict: ...


def redact(value: Any) -> Any:
    """``value`` with every entry whose name looks like a secret replaced by ``[redacted]``, at any depth."""
    if isinstance(value, dict):
        return {k: REDACTED if isinstance(k, str) and SECRET_NAME.search(k) else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def catalog_path(recording: str | os.PathLike[str]) -> Path:
    """Where the catalog of a recording lives: ``FILE.jsonl`` -> ``FILE.tools.json``."""
    path = Path(recording)
    return path.with_name(path.name[: -len(path.suffix)] + ".tools.json" if path.suffix else path.name + ".tools.json")


class Proxy:
    """Forwards calls to ``upstream`` and records each one as a turn of its episode."""

    def __init__(self, upstream: UpstreamClient, *, recorder: TrajectoryRecorder | None = None,
                 episode: str | None = None) -> None:
        self.upstream = upstream
        self.recorder = recorder
        self.name = upstream.name
        self.version = upstream.version
        self.instructions = upstream.instructions
        #: Each proxy run is its own episode unless told otherwise (a recording file collects many runs).
        self.default_episode = episode or f"proxy-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        self.tools: list[JSONDict] = []
        self._catalog: Catalog | None = None
        self._episodes: dict[str, Episode] = {}

    async def start(self) -> None:
        """List the real server's tools once: the recording's catalog (written beside it)."""
        self.tools = await self.upstream.list_tools()
        if self.recorder is None:
            return
        world = _world_of(self.tools, self.name)
        self._catalog = Catalog(world)
        sidecar = catalog_path(self.recorder.path)
        sidecar.write_text(json.dumps({"tools": self.tools}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log.info("recording %s: catalog of %d tools in %s", self.recorder.path, len(self.tools), sidecar)

    async def list_tools_page(self, cursor: str | None) -> JSONDict:
        return await self.upstream.list_tools_page(cursor)

    async def call_tool(self, name: str, arguments: JSONDict, meta: JSONDict | None) -> JSONDict:
        started, t0 = time.time(), time.perf_counter()
        result = await self.upstream.call_tool(name, arguments, meta)  # a JSON-RPC error passes through unrecorded
        if self.recorder is not None and self._catalog is not None:
            selected = episode_id((meta or {}).get(META_EPISODE)) or self.default_episode or DEFAULT_EPISODE
            ep = self._episodes.get(selected)
            if ep is None:
                ep = self._episodes[selected] = Episode.new(self._catalog.world, selected, 0)
            # MCP's default made explicit: the trajectory format (and its readers) expect isError.
            kept = result if "isError" in result else {**result, "isError": False}
            turn = Turn(ep.next_turn, name, redact(arguments), kept, REAL_BACKEND, [], started,
                        round((time.perf_counter() - t0) * 1000, 3))
            ep.turns.append(turn)
            self.recorder.record(self._catalog, ep, turn)
        return result

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


def _world_of(tools: list[JSONDict], name: str) -> World:
    """The catalog as a world (for the recorder's system prompt); a catalog our validator refuses is kept as is."""
    try:
        return load_world_data({"name": name, "tools": tools}, source="<upstream>")
    except Exception as exc:  # the real server's catalog is what it is: record it anyway
        log.warning("the upstream catalog does not load as a world (%s); recording it unchecked", exc)
        return World.model_construct(name=name, tools=tools)


__all__ = ["REDACTED", "Proxy", "SECRET_NAME", "catalog_path", "redact"]
