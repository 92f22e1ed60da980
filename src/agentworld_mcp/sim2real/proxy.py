"""``agentworld-mcp proxy``: a transparent MCP proxy in front of a real server, recording it.

Clients see exactly what the real server answers: tools/list pages and tools/call results
are passed on as the JSON the server sent, and a JSON-RPC error from the server reaches the
client with the same code and message (the SDK plumbing is in :mod:`.transport`). With
``--record FILE.jsonl`` every call is appended by the same :class:`TrajectoryRecorder` as
``serve --record``, the real result standing where the simulator's would, with secrets
redacted (by name, by form, and wherever the result echoes them: ``trajectories/redaction.py``).
A call the server refuses with a JSON-RPC error (an ``McpError`` it throws) is recorded too, as an
``isError`` result whose text is the error's message, with the error itself kept under
``jsonrpc_error`` (:func:`error_result`); the client still gets the JSON-RPC error, unchanged.
Not recorded: a call to a tool the server did not list (the protocol's own unknown-tool error) and
the proxy's own failures to reach the server (a timeout, a dropped connection, an HTTP failure).
The catalog the server listed at start is written beside the recording as ``FILE.tools.json``
(a tools/list dump, itself a world file), which ``agentworld-mcp learn`` and ``score`` read.

Routing (``--route GLOB=real|sim|shadow``, first match wins; ``--shadow`` makes shadow the
default): ``sim`` answers a tool from the simulator and never calls the real server (a dry
run of writes); ``shadow`` returns the real answer and has the simulator predict the same
call beside it, teacher-forced: its episode's history holds the real answers, not its own.
Shadow predictions are recorded to ``FILE.shadow.jsonl`` under the same episode and turn
as the real call, so ``score FILE.jsonl --against FILE.shadow.jsonl`` compares them.
"""

from __future__ import annotations

import json
import logging
import os
import fnmatch
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..world.catalog import Catalog
from ..state.episode import DEFAULT_EPISODE, META_EPISODE, Episode, Turn, episode_id
from ..errors import ConfigError
from ..trajectories.record import TrajectoryRecorder
from ..trajectories.redaction import REDACTED, redact, redact_call, register_secrets, secrets_in
from ..world.world import World, load_world_data

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..pipeline.engine import Simulator

log = logging.getLogger("agentworld_mcp.sim2real.proxy")
JSONDict = dict[str, Any]

#: How many secret argument values a proxy remembers to redact where later answers echo them.
MAX_REMEMBERED = 1000
#: Environment variable with extra headers for an HTTP upstream, one ``Name: value`` per line.
HEADERS_ENV = "AGENTWORLD_UPSTREAM_HEADERS"
#: What the recorded turns name as their world model.
REAL_BACKEND = "real"
#: Where a tool's calls go.
MODES = ("real", "sim", "shadow")
#: The key of a recorded result under which a JSON-RPC error of the real server is kept as sent.
JSONRPC_ERROR = "jsonrpc_error"


def error_result(error: JSONDict) -> JSONDict:
    """A JSON-RPC error (``{"code", "message", "data"?}``) as a recorded tool result: ``isError`` with the
    message as its text, which is what ``learn`` and ``score`` read, and the error itself, as sent."""
    message = str(error.get("message") or f"JSON-RPC error {error.get('code')}")
    return {"content": [{"type": "text", "text": message}], "isError": True, JSONRPC_ERROR: dict(error)}


class UpstreamClient(Protocol):
    """A session to the real server (:class:`agentworld_mcp.serve.transport.Upstream`)."""

    name: str
    version: str
    instructions: str | None

    async def list_tools_page(self, cursor: str | None) -> JSONDict: ...

    async def list_tools(self) -> list[JSONDict]: ...

    async def call_tool(self, name: str, arguments: JSONDict, meta: JSONDict | None = None) -> JSONDict: ...

    async def forward(self, method: str, params: JSONDict | None) -> JSONDict: ...


def parse_headers(specs: list[str], env: dict[str, str] | None = None) -> dict[str, str]:
    """``["Authorization: Bearer x"]`` (and ``$AGENTWORLD_UPSTREAM_HEADERS``, one per line; flags win)
    -> ``{"Authorization": "Bearer x"}``."""
    lines = [line for line in ((env if env is not None else os.environ).get(HEADERS_ENV) or "").splitlines()
             if line.strip()]
    headers: dict[str, str] = {}
    for spec in [*lines, *specs]:
        name, sep, value = spec.partition(":")
        if not sep or not name.strip() or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip()):
            where = "--header" if spec in specs else HEADERS_ENV
            shown = (spec.split() or [""])[0][:40]  # never the value: it is usually a credential
            raise ConfigError(f"{where} {shown!r}...: expected 'Name: value', "
                              "e.g. --header 'Authorization: Bearer $TOKEN'")
        headers[name.strip()] = value.strip()
    register_secrets(header_secrets(headers))  # no log line shows them, at any verbosity
    return headers


def header_secrets(headers: dict[str, str]) -> tuple[str, ...]:
    """The values of ``headers`` that must never reach a recording: every header's value but plain
    content negotiation (a header the proxy was given is usually a credential), and a scheme's credential."""
    plain = {"accept", "accept-language", "content-type", "user-agent"}
    found: list[str] = []
    for name, value in headers.items():
        if name.lower() in plain or len(value) < 4:
            continue
        found.append(value)
        scheme, _, credential = value.partition(" ")
        if credential and len(credential) >= 4:
            found.append(credential)  # ``Bearer abc``: ``abc`` alone is secret too
    return tuple(sorted(set(found), key=len, reverse=True))


def parse_routes(specs: list[str]) -> list[tuple[str, str]]:
    """``["write_*=sim", "read_file=real"]`` -> ``[("write_*", "sim"), ("read_file", "real")]``."""
    routes = []
    for spec in specs:
        glob, _, mode = spec.rpartition("=")
        if not glob or mode not in MODES:
            raise ConfigError(f"--route {spec!r}: expected GLOB=MODE with MODE one of {', '.join(MODES)}, "
                              "e.g. --route 'write_*=sim'")
        routes.append((glob, mode))
    return routes


#: The tool ``_meta`` key that routes it in a world given to ``proxy --world``.
ROUTE_META = "agentworld/route"


def world_routes(world: World) -> list[tuple[str, str]]:
    """The routes a world's tools name (``_meta: {agentworld/route: sim}``), as exact-name globs."""
    routes = []
    for tool in world.tools:
        mode = (tool.get("_meta") or {}).get(ROUTE_META)
        if mode is not None:
            if mode not in MODES:
                raise ConfigError(f"tool {tool['name']!r}: _meta.{ROUTE_META} is {mode!r}; use one of {', '.join(MODES)}")
            routes.append((fnmatch_escape(tool["name"]), str(mode)))
    return routes


def fnmatch_escape(name: str) -> str:
    """A glob matching exactly ``name`` (``[`` ``*`` ``?`` taken literally)."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def shadow_path(recording: str | os.PathLike[str]) -> Path:
    """Where shadow predictions go: ``FILE.jsonl`` -> ``FILE.shadow.jsonl``."""
    path = Path(recording)
    return path.with_name(f"{path.stem}.shadow{path.suffix or '.jsonl'}")


def catalog_path(recording: str | os.PathLike[str]) -> Path:
    """Where the catalog of a recording lives: ``FILE.jsonl`` -> ``FILE.tools.json``."""
    path = Path(recording)
    return path.with_name(path.name[: -len(path.suffix)] + ".tools.json" if path.suffix else path.name + ".tools.json")


class Proxy:
    """Forwards calls to ``upstream`` and records each one as a turn of its episode."""

    def __init__(self, upstream: UpstreamClient, *, recorder: TrajectoryRecorder | None = None,
                 episode: str | None = None, routes: list[tuple[str, str]] | None = None, default_mode: str = "real",
                 make_simulator: Callable[[World], Simulator] | None = None, secrets: tuple[str, ...] = ()) -> None:
        self.upstream = upstream
        #: Values (the upstream's credentials) that never reach a recording, wherever they show up.
        self.secrets = secrets
        #: Secret arguments seen so far (bounded, oldest dropped): a later answer may echo them (``list_*``).
        self._seen: dict[str, None] = {}
        self.recorder = recorder
        self.routes = list(routes or [])
        self.default_mode = default_mode
        self._make_simulator = make_simulator
        self.sim: Simulator | None = None
        self._shadow_recorder: TrajectoryRecorder | None = None
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
        world = _world_of(self.tools, self.name)
        if {mode for _, mode in self.routes} | {self.default_mode} != {"real"}:
            if self._make_simulator is None:
                raise ConfigError("routing to sim or shadow needs a simulator")
            self.sim = self._make_simulator(world)
        if self.recorder is None:
            return
        self._catalog = Catalog(world)
        if self.sim is not None and "shadow" in {mode for _, mode in self.routes} | {self.default_mode}:
            self._shadow_recorder = TrajectoryRecorder(shadow_path(self.recorder.path))
        sidecar = catalog_path(self.recorder.path)
        sidecar.write_text(json.dumps({"tools": self.tools}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log.info("recording %s: catalog of %d tools in %s", self.recorder.path, len(self.tools), sidecar)

    async def list_tools_page(self, cursor: str | None) -> JSONDict:
        return await self.upstream.list_tools_page(cursor)

    async def forward(self, method: str, params: JSONDict | None) -> JSONDict:
        """Prompts and resources are the real server's: passed on as they are, not recorded."""
        return await self.upstream.forward(method, params)

    def mode_for(self, tool: str) -> str:
        """``real``, ``sim`` or ``shadow``: the first route whose glob matches, else the default."""
        return next((mode for glob, mode in self.routes if fnmatch.fnmatchcase(tool, glob)), self.default_mode)

    async def call_tool(self, name: str, arguments: JSONDict, meta: JSONDict | None) -> JSONDict:
        started, t0 = time.time(), time.perf_counter()
        selected = episode_id((meta or {}).get(META_EPISODE)) or self.default_episode or DEFAULT_EPISODE
        mode = self.mode_for(name)
        if mode == "sim" and self.sim is not None:  # never reaches the real server
            result, backend = (await self.sim.call(name, arguments, episode=selected)).to_dict(), self.sim.backend.name
        else:
            try:
                result, backend = await self.upstream.call_tool(name, arguments, meta), REAL_BACKEND
            except Exception as exc:  # a refusal the server threw: recorded, then passed on to the client as sent
                refusal = self._refusal(name, exc)
                if refusal is None:
                    raise
                await self._answered(selected, name, arguments, refusal, REAL_BACKEND, mode, started, t0)
                raise
        await self._answered(selected, name, arguments, result, backend, mode, started, t0)
        return result

    def _refusal(self, name: str, exc: Exception) -> JSONDict | None:
        """The recorded result of a call the real server answered with a JSON-RPC error; None for an error
        that is no answer of a listed tool (an unknown tool's, or the proxy's own failure to reach the server)."""
        from ..serve.transport import server_error_of  # the SDK's exception type lives there only

        error = server_error_of(exc)
        if error is None or not any(tool.get("name") == name for tool in self.tools):
            return None
        return error_result(error)

    async def _answered(self, selected: str, name: str, arguments: JSONDict, result: JSONDict, backend: str,
                        mode: str, started: float, t0: float) -> None:
        turn = self._record(selected, name, arguments, result, backend, started, t0)
        if mode == "shadow" and self.sim is not None:
            await self._shadow(selected, name, arguments, result, turn)

    def _record(self, selected: str, name: str, arguments: JSONDict, result: JSONDict, backend: str,
                started: float, t0: float) -> Turn | None:
        if self.recorder is None or self._catalog is None:
            return None
        ep = self._episodes.get(selected)
        if ep is None:
            ep = self._episodes[selected] = Episode.new(self._catalog.world, selected, 0)
        # MCP's default made explicit: the trajectory format (and its readers) expect isError.
        kept = result if "isError" in result else {**result, "isError": False}
        # Secrets out before the line is written: by name, by form, and wherever the result echoes them.
        self._seen.update(dict.fromkeys(secrets_in(arguments)))
        while len(self._seen) > MAX_REMEMBERED:
            del self._seen[next(iter(self._seen))]
        kept_arguments, kept = redact_call(arguments, kept, (*self.secrets, *self._seen))
        turn = Turn(ep.next_turn, name, kept_arguments, kept, backend, [], started,
                    round((time.perf_counter() - t0) * 1000, 3))
        ep.turns.append(turn)
        self.recorder.record(self._catalog, ep, turn)
        return turn

    async def _shadow(self, selected: str, name: str, arguments: JSONDict, real: JSONDict, turn: Turn | None) -> None:
        """The simulator's prediction of a call the real server answered, then the real answer in its place."""
        assert self.sim is not None
        sim = self.sim
        shadow_episode = f"shadow:{selected}"
        try:
            outcome = await sim.run(name, arguments, episode=shadow_episode)
        except Exception as exc:  # a tool the simulated world lacks: the client has its real answer anyway
            log.warning("shadow prediction of %s failed: %s", name, exc)
            return
        async with sim.store.session(shadow_episode, lambda e: Episode.new(sim.world, e, sim.seed)) as ep:
            if ep.turns:  # teacher forcing: the next prediction sees the real history
                ep.turns[-1].result = real if "isError" in real else {**real, "isError": False}
        if self._shadow_recorder is not None and self._catalog is not None and turn is not None and outcome.turn:
            _, prediction = redact_call(arguments, outcome.result.to_dict(), (*self.secrets, *self._seen))
            predicted = Turn(turn.index, name, turn.arguments, prediction,
                             sim.backend.name,
                             outcome.turn.perturbations, outcome.turn.started_at, outcome.turn.duration_ms)
            self._shadow_recorder.record(self._catalog, self._episodes[selected], predicted)

    async def aclose(self) -> None:
        for recorder in (self.recorder, self._shadow_recorder):
            if recorder is not None:
                recorder.close()
        if self.sim is not None:
            await self.sim.aclose()


def _world_of(tools: list[JSONDict], name: str) -> World:
    """The catalog as a world (for the recorder's system prompt); a catalog our validator refuses is kept as is."""
    try:
        return load_world_data({"name": name, "tools": tools}, source="<upstream>")
    except Exception as exc:  # the real server's catalog is what it is: record it anyway
        log.warning("the upstream catalog does not load as a world (%s); recording it unchecked", exc)
        return World.model_construct(name=name, tools=tools)


__all__ = ["HEADERS_ENV", "JSONRPC_ERROR", "MODES", "error_result", "REDACTED", "header_secrets", "parse_headers", "ROUTE_META", "world_routes", "Proxy", "catalog_path", "parse_routes", "redact", "shadow_path"]
