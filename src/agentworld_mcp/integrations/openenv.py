"""An OpenEnv environment backed by the simulator (``pip install 'agentworld-mcp[openenv]'``).

OpenEnv (reset / step / state, with MCP tools inside) is the interface TRL, ART, Unsloth and
torchforge consume. Here every OpenEnv session is one episode of one shared :class:`Simulator`:

* ``reset(seed=..., episode_id=...)`` starts that episode afresh from the world's seed state,
  drawing generated values from ``seed`` (the same seed and episode id give the same answers);
  without an ``episode_id`` the session gets a fresh unique one, so rollouts never share state.
* ``ListToolsAction`` lists the world's catalog; ``CallToolAction`` goes through
  :meth:`Simulator.call` in the session's episode, the pipeline every other door uses.
* ``state`` is the episode id, the number of tool calls, the ledger snapshot and the reward.
* ``reward``: an optional callable ``(EpisodeView) -> float`` computed after every call from the
  episode's state, so the last observation's reward is the reward of the final state.

openenv-core is imported here only; the CLI imports this module when ``openenv`` is run.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import os
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from pydantic import Field

from ..pipeline.engine import Simulator
from ..state.episode import Episode, Turn, episode_id as as_episode_id
from ..errors import ConfigError, EpisodeNotFoundError, MissingExtraError
from ..serve.http_guard import HttpGuard
from ..state.result import ToolResult
from ..world.world import World

try:  # the optional extra; fastmcp comes with openenv-core
    from fastmcp import FastMCP
    from fastmcp.tools import Tool as FastTool
    from fastmcp.tools import ToolResult as FastToolResult
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.mcp_environment import MCPEnvironment
    from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation, ListToolsObservation
    from openenv.core.env_server.mcp_types import Tool as OpenEnvTool
    from openenv.core.env_server.types import Action, Observation, State
    from openenv.core.utils import run_async_safely
except ImportError:  # pragma: no cover - exercised in a subprocess without the package
    raise MissingExtraError("agentworld-mcp openenv", "openenv", "openenv-core") from None

JSONDict = dict[str, Any]

#: Prefix of the episode ids given to sessions that reset without naming one.
SESSION_PREFIX = "openenv-"


@dataclass(frozen=True, slots=True)
class EpisodeView:
    """What a reward function sees of an episode: its id, ledger snapshot and trajectory."""

    episode: str
    state: JSONDict  # live entities by collection, as Simulator.state returns them
    turns: list[Turn]
    world: World


Reward = Callable[[EpisodeView], float]


def load_reward(spec: str) -> Reward:
    """A reward function: ``path/to/rewards.py:function`` (a file, as a user points at it), or
    ``module:function`` for an importable module (on PYTHONPATH, or in the current folder)."""
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise ConfigError(f"--reward {spec!r}: expected FILE.py:FUNCTION or MODULE:FUNCTION, "
                          "e.g. examples/openenv/rewards.py:issues_closed")
    try:
        target: Any = _reward_module(module_name)
    except (ImportError, OSError, SyntaxError) as exc:
        raise ConfigError(f"--reward {spec!r}: cannot import {module_name!r} ({exc})") from None
    for part in attr.split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise ConfigError(f"--reward {spec!r}: {attr!r} is not a function of {module_name!r}")
    return cast(Reward, target)


def _reward_module(name: str) -> Any:
    path = Path(name)
    if path.suffix == ".py":  # a file: loaded as it is, nothing added to sys.path
        if not path.is_file():
            raise ImportError(f"no file {path}")
        spec = importlib.util.spec_from_file_location(f"_agentworld_reward_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path:  # as `python -m` would: the user's folder is importable
        sys.path.append(os.getcwd())
    return importlib.import_module(name)


class SimulatorEnvironment(MCPEnvironment):
    """One OpenEnv session: one episode of ``sim``, its tools the world's catalog."""

    # Sessions are independent episodes of one simulator; its store serialises each episode.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, sim: Simulator, *, reward: Reward | None = None) -> None:
        self.sim = sim
        self.reward_fn = reward
        self._episode: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._owned = False  # an id this session made up: deleted when the session ends
        self._state = State(episode_id=None, step_count=0)
        server = FastMCP(f"agentworld-{sim.world.name}", instructions=sim.world.scenario or None)
        super().__init__(server)
        # The catalog on the session's FastMCP server too: OpenEnv's HTTP /mcp route and code mode use it.
        # (Added after the base class's check of reserved names: here they do not clash with reset/step.)
        for spec in sim.world.tools:
            server.add_tool(_CatalogTool(
                name=spec["name"], title=spec.get("title"), description=spec.get("description") or "",
                parameters=spec.get("inputSchema") or {"type": "object"}, output_schema=spec.get("outputSchema"),
                annotations=spec.get("annotations"), answer=self._answer))

    # -- OpenEnv's lifecycle ------------------------------------------------------

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **kwargs: Any) -> Observation:
        self._loop = asyncio.get_running_loop()
        await self._forget()
        chosen = as_episode_id(episode_id)
        self._owned = chosen is None
        eid = chosen or f"{SESSION_PREFIX}{uuid.uuid4().hex}"
        seed = self.sim.seed if seed is None else int(seed)
        world = self.sim.world
        # Afresh: the seed state, no turns, generated values drawn from this seed.
        with contextlib.suppress(EpisodeNotFoundError):
            await self.sim.store.delete(eid)
        async with self.sim.store.session(eid, lambda e: Episode.new(world, e, seed)):
            pass
        self._episode = eid
        await self._refresh(reward=None)
        return Observation(done=False, reward=None, metadata={
            "episode_id": eid, "seed": seed, "world": world.name, "scenario": world.scenario,
            "tools": [t["name"] for t in world.tools],
        })

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Observation:
        return run_async_safely(self.reset_async(seed=seed, episode_id=episode_id, **kwargs))

    async def step_async(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        observation = await super().step_async(action, timeout_s=timeout_s, **kwargs)
        if isinstance(action, CallToolAction) and self._episode is not None:
            observation.reward = await self._refresh(reward=self.reward_fn)
        return observation

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        return run_async_safely(self.step_async(action, timeout_s=timeout_s, **kwargs))

    def _step_impl(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        return Observation(done=False, reward=None, metadata={
            "error": f"unsupported action {type(action).__name__}: send list_tools or call_tool"})

    @property
    def state(self) -> State:
        return self._state

    def close(self) -> None:
        # OpenEnv closes a session from a worker thread: drop its made-up episode on the loop that served it.
        if self._owned and self._episode is not None and self._loop is not None and not self._loop.is_closed():
            asyncio.run_coroutine_threadsafe(self._forget(), self._loop)
        super().close()

    # -- MCP: the catalog and the pipeline ----------------------------------------

    async def _async_list_tools(self) -> list[Any]:
        # The catalog as loaded (the FastMCP server in between would rebuild each tool's schema).
        return [SimpleNamespace(name=t["name"], description=t.get("description") or "",
                                inputSchema=t.get("inputSchema") or {}) for t in self.sim.world.tools]

    async def _async_handle_list_tools(self) -> ListToolsObservation:
        tools = await self._async_list_tools()
        return ListToolsObservation(tools=[
            OpenEnvTool(name=t.name, description=t.description, input_schema=t.inputSchema) for t in tools])

    async def _async_call_tool(self, tool_name: str, arguments: dict[str, Any]) -> JSONDict:
        return _as_openenv_result(await self._answer(tool_name, arguments))

    async def _answer(self, tool_name: str, arguments: dict[str, Any] | None) -> ToolResult:
        if self._episode is None:  # a call before reset: the session's own fresh episode
            await self.reset_async()
        return await self.sim.call(tool_name, arguments or {}, episode=self._episode)

    # -- the episode's state and reward -------------------------------------------

    async def _refresh(self, *, reward: Reward | None) -> float | None:
        assert self._episode is not None
        episode = await self.sim.episode(self._episode)
        view = EpisodeView(self._episode, episode.ledger.snapshot(), list(episode.turns), self.sim.world)
        value = float(reward(view)) if reward is not None else None
        self._state = State(episode_id=self._episode, step_count=len(view.turns), seed=episode.seed,
                            world=view.world.name, ledger=view.state, reward=value)
        return value

    async def _forget(self) -> None:
        if self._owned and self._episode is not None:
            with contextlib.suppress(EpisodeNotFoundError):
                await self.sim.store.delete(self._episode)
        self._episode, self._owned = None, False


class _CatalogTool(FastTool):
    """A catalog tool on FastMCP, answered by the session's episode."""

    answer: Any = Field(default=None, exclude=True)

    async def run(self, arguments: dict[str, Any]) -> FastToolResult:
        result: ToolResult = await self.answer(self.name, arguments)
        return FastToolResult(content=result.text, structured_content=result.structured, meta=result.meta or None,
                              is_error=result.is_error)


def _as_openenv_result(result: ToolResult) -> JSONDict:
    """A tools/call result in the shape OpenEnv's clients read (FastMCP's ``CallToolResult`` fields).

    ``data`` is what ``MCPToolClient.call_tool`` returns: the structured content when the tool
    has some, else the text as the real server prints it.
    """
    return {
        "content": result.content, "structured_content": result.structured, "is_error": result.is_error,
        "meta": result.meta or None, "data": result.structured if result.structured is not None else result.text,
    }


def openenv_environment(source: Simulator | World, *, reward: Reward | None = None,
                        **overrides: Any) -> Callable[[], SimulatorEnvironment]:
    """The factory OpenEnv's server calls once per session: a new episode of one simulator each time.

    ``source`` is a :class:`Simulator`, or a :class:`World` given to ``Simulator.from_world(world,
    **overrides)``; every session shares that simulator (and its store).
    """
    sim = source if isinstance(source, Simulator) else Simulator.from_world(source, **overrides)

    def factory() -> SimulatorEnvironment:
        return SimulatorEnvironment(sim, reward=reward)

    return factory


def openenv_app(source: Simulator | World, *, reward: Reward | None = None, max_sessions: int = 64,
                auth_token: str | None = None, allowed_hosts: list[str] | None = None,
                allowed_origins: list[str] | None = None, **overrides: Any) -> Any:
    """openenv-core's FastAPI app (``/ws``, ``/mcp``, ``/reset``, ``/step``, ``/state``) for a simulator or world.

    Behind the same front door as ``serve`` (:class:`~agentworld_mcp.serve.http_guard.HttpGuard`),
    over HTTP and WebSocket alike: loopback Host and Origin only unless ``allowed_hosts`` /
    ``allowed_origins`` say otherwise (DNS rebinding), and ``Authorization: Bearer auth_token``
    when a token is given (for ``/ws``, on the upgrade request).
    """
    factory = openenv_environment(source, reward=reward, **overrides)
    name = source.world.name if isinstance(source, Simulator) else source.name
    app = create_app(factory, CallToolAction, CallToolObservation, env_name=f"agentworld-{name}",
                     max_concurrent_envs=max_sessions)
    # methods=None: OpenEnv's routes are its own, only the door is shared (no MCP screening).
    app.add_middleware(HttpGuard, methods=None, token=auth_token, allowed_hosts=allowed_hosts or (),
                       allowed_origins=allowed_origins or ())
    return app


def serve_openenv(sim: Simulator, *, host: str = "127.0.0.1", port: int = 8000, reward: Reward | None = None,
                  max_sessions: int = 64, auth_token: str | None = None, allowed_hosts: list[str] | None = None,
                  allowed_origins: list[str] | None = None, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve ``sim`` as an OpenEnv environment until interrupted."""
    import uvicorn

    hosts = list(allowed_hosts or [])
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)  # the address it was asked to bind is a name its clients use
    app = openenv_app(sim, reward=reward, max_sessions=max_sessions, auth_token=auth_token, allowed_hosts=hosts,
                      allowed_origins=allowed_origins)
    if on_ready is not None:
        on_ready(f"http://{host}:{port}")
    uvicorn.run(app, host=host, port=port, log_level="warning")
