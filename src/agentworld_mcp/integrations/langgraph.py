"""LangGraph / LangChain adapters: simulated tools for agents, in process (no MCP hop).

Three ways to put an agent in a simulated world, from most to least invasive:

* :func:`simulated_tools` - LangChain tools made from a world file, one per world tool;
* :func:`simulate_tools` - stand-ins for an agent's *existing* tools, with the same names,
  descriptions and argument schemas, so the model sees exactly what it saw before;
* :func:`tool_call_wrapper` / :func:`atool_call_wrapper` - hooks for
  ``ToolNode(tools, wrap_tool_call=..., awrap_tool_call=...)``: the graph and its tools stay
  as they are, and the calls are answered by the world model instead of the real tools
  (optionally only some of them).

Every call goes through :meth:`Simulator.call`, like a call to the MCP server. The episode
(the isolated world instance) is LangGraph's ``thread_id`` from the run config, so parallel
runs on different threads never see each other's state and one thread keeps its world
across turns. A fixed ``episode=`` overrides that; with neither, calls share one world.

Results become ``ToolMessage``s as ``langchain-mcp-adapters`` makes them: the text content,
``artifact`` = the structuredContent, ``status="error"`` for an ``isError`` result. A
simulator failure (endpoint down, cassette miss) is raised as
:class:`~agentworld_mcp.errors.SimulatorFailedError`, never shown to the agent as a tool
answer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..errors import MissingExtraError

try:
    from langchain_core.messages import ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.runnables.config import ensure_config
    from langchain_core.tools import BaseTool, ToolException
    from pydantic import ConfigDict
    from pydantic_core import to_jsonable_python
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise MissingExtraError("agentworld_mcp.integrations.langgraph", "langgraph", exc.name or "langchain-core") from exc

from ._blocking import run_blocking
from ..models.base import WorldModel
from ..pipeline.engine import Simulator
from ..state.episode import EPISODE_HEADER
from ..errors import ConfigError
from ..state.result import ToolResult
from .scripted import ScriptedChatModel, ScriptError  # re-exported: agent tests without an API key
from .toolworld import Overlay, world_from_definitions
from ..world.world import World, load_world

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command

JSONDict = dict[str, Any]
WorldSource = World | Simulator | str | os.PathLike[str]

__all__ = [
    "SimulatedTool", "SimulatedTools", "SimulatedToolError", "ThreadEpisodes", "ToolCallWrapper", "AsyncToolCallWrapper",
    "atool_call_wrapper", "episode_from_config", "make_simulator", "simulate_tools", "simulated_tools",
    "tool_call_wrapper", "world_from_tools", "ScriptedChatModel", "ScriptError",
]


# -- building the simulator ----------------------------------------------------------------

def make_simulator(
    source: WorldSource,
    *,
    seed: int | None = None,
    backend: WorldModel | str | None = None,
) -> Simulator:
    """A :class:`Simulator` for a world file path, a :class:`World`, or a ready simulator."""
    if isinstance(source, Simulator):
        if seed is not None or backend is not None:
            raise ConfigError("seed= and backend= configure a new simulator; set them on the Simulator you passed")
        return source
    world = source if isinstance(source, World) else load_world(source)
    return Simulator.from_world(world, seed=seed, backend=backend)


def world_from_tools(tools: Iterable[BaseTool | JSONDict], world: Overlay = None) -> World:
    """A world whose catalog is ``tools`` (LangChain tools or MCP tool dicts).

    ``world`` (a world file, or its data) adds scenario, seed state, demonstrations,
    perturbations and backend; see :func:`agentworld_mcp.integrations.toolworld.world_from_definitions`.
    """
    return world_from_definitions([mcp_tool_definition(t) for t in tools], world)


def mcp_tool_definition(tool: BaseTool | JSONDict) -> JSONDict:
    """An MCP tool definition (name, description, inputSchema) for a LangChain tool or MCP dict."""
    if isinstance(tool, dict):
        return tool
    if not isinstance(tool, BaseTool):
        raise ConfigError(
            f"cannot simulate {tool!r}: expected a LangChain BaseTool (e.g. made with @tool) or an MCP tool dict"
        )
    return {"name": tool.name, "description": tool.description or "", "inputSchema": arguments_schema(tool)}


def arguments_schema(tool: BaseTool) -> JSONDict:
    """The JSON Schema of the arguments a model sends to ``tool`` (injected arguments left out)."""
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        out = dict(schema)
    elif hasattr(schema, "model_json_schema"):
        out = schema.model_json_schema()
    else:  # pydantic v1 model
        out = schema.schema()
    out.setdefault("type", "object")
    return out


# -- tools ------------------------------------------------------------------------------------

class SimulatedToolError(ToolException):
    """A simulated ``isError`` result; becomes a ``ToolMessage`` with ``status="error"``."""

    def __init__(self, result: ToolResult) -> None:
        self.result = result
        super().__init__(result.text)


def _error_content(error: ToolException) -> str:
    if isinstance(error, SimulatedToolError):
        return error.result.text
    raise error  # a ToolException not made here keeps propagating


def episode_from_config(config: RunnableConfig | None) -> str | None:
    """LangGraph's ``thread_id`` from a run config (None outside a threaded run)."""
    thread = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


class SimulatedTool(BaseTool):
    """A LangChain tool answered by a :class:`Simulator` (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    simulator: Simulator
    world_tool: str
    episode: str | None = None
    perturb: Any = None
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: Any = _error_content
    model_arguments: frozenset[str] | None = None

    # LangChain would validate against a pydantic args_schema and hand us python objects;
    # the simulator validates JSON against the inputSchema itself (an invalid call is an
    # ``isError`` result, as from an MCP server), so pass the model's arguments through raw.
    def _to_args_and_kwargs(self, tool_input: str | JSONDict, tool_call_id: str | None) -> tuple[tuple[Any, ...], JSONDict]:
        if isinstance(tool_input, str):
            spec = self.simulator.catalog.get(self.world_tool)
            props = list(((spec.input_schema if spec else {}) or {}).get("properties") or {})
            if len(props) != 1:
                raise ToolException(f"{self.name} takes named arguments {props}; pass a dict, not a string")
            tool_input = {props[0]: tool_input}
        arguments = {k: v for k, v in tool_input.items() if self.model_arguments is None or k in self.model_arguments}
        return (to_jsonable_python(arguments),), {}

    def _episode(self, config: RunnableConfig | None) -> str | None:
        return self.episode if self.episode is not None else episode_from_config(config)

    async def _arun(self, arguments: JSONDict, config: RunnableConfig) -> tuple[str, Any]:
        result = await self.simulator.call(self.world_tool, arguments, episode=self._episode(config), perturb=self.perturb)
        return _output(self.world_tool, result)

    def _run(self, arguments: JSONDict, config: RunnableConfig) -> tuple[str, Any]:
        return run_blocking(self._arun(arguments, config))


def _output(tool: str, result: ToolResult) -> tuple[str, Any]:
    result.raise_for_simulator_error(tool)
    if result.is_error:
        raise SimulatedToolError(result)
    return result.text, result.structured


class SimulatedTools(list[SimulatedTool]):
    """A list of simulated tools that also carries the :class:`Simulator` answering them."""

    def __init__(self, tools: Iterable[SimulatedTool], simulator: Simulator) -> None:
        super().__init__(tools)
        self.simulator = simulator

    def by_name(self, name: str) -> SimulatedTool:
        for tool in self:
            if tool.name == name:
                return tool
        raise KeyError(f"no simulated tool {name!r}; tools: {', '.join(t.name for t in self)}")


def simulated_tools(
    world_or_simulator: WorldSource,
    *,
    tools: Iterable[str] | None = None,
    episode: str | None = None,
    perturb: Any = None,
    seed: int | None = None,
    backend: WorldModel | str | None = None,
) -> SimulatedTools:
    """LangChain tools for a world: one per world tool (or the ``tools`` named).

    ``world_or_simulator`` is a world file path, a :class:`World` or a :class:`Simulator`
    (share one simulator to share its episodes). ``seed`` and ``backend`` (``"schema"``,
    ``"llm"`` or a world model) configure a new simulator. ``episode`` pins every call to one
    episode instead of the run's ``thread_id``; ``perturb`` is passed to each call.
    """
    sim = make_simulator(world_or_simulator, seed=seed, backend=backend)
    wanted = sim.world.tool_names if tools is None else list(tools)
    missing = [n for n in wanted if sim.catalog.get(n) is None]
    if missing:
        raise ConfigError(f"world {sim.world.name!r} has no tool {', '.join(map(repr, missing))}; "
                          f"its tools: {', '.join(sim.world.tool_names)}")
    out = []
    for name in wanted:
        definition = sim.world.tool(name) or {}
        out.append(SimulatedTool(
            name=name, description=definition.get("description") or definition.get("title") or name,
            args_schema=definition.get("inputSchema") or {"type": "object"}, simulator=sim, world_tool=name,
            episode=episode, perturb=perturb,
        ))
    return SimulatedTools(out, sim)


def simulate_tools(
    real_tools: Sequence[BaseTool],
    *,
    world: Overlay = None,
    simulator: Simulator | None = None,
    episode: str | None = None,
    perturb: Any = None,
    seed: int | None = None,
    backend: WorldModel | str | None = None,
) -> SimulatedTools:
    """Stand-ins for an agent's tools: same names, descriptions and argument schemas.

    The world is built from the tools themselves (see :func:`world_from_tools`); ``world``
    (a world file or data) may add a scenario, seed state, perturbations or a backend.
    Or pass a ``simulator`` already built on such a world (the pytest plugin does).
    Bind the stand-ins to the model instead of the real tools; nothing else changes.
    """
    real = list(real_tools)
    if simulator is None:
        sim = make_simulator(world_from_tools(real, world), seed=seed, backend=backend)
    else:
        if world is not None or seed is not None or backend is not None:
            raise ConfigError("world=, seed= and backend= build a new simulator; leave them out with simulator=")
        sim = simulator
        missing = [t.name for t in real if sim.catalog.get(t.name) is None]
        if missing:
            raise ConfigError(f"the simulator's world {sim.world.name!r} has no tool {', '.join(map(repr, missing))}")
    out = []
    for tool in real:
        schema = arguments_schema(tool)
        out.append(SimulatedTool(
            name=tool.name, description=tool.description, args_schema=tool.args_schema or schema,
            simulator=sim, world_tool=tool.name, episode=episode, perturb=perturb,
            tags=tool.tags, metadata=tool.metadata, return_direct=tool.return_direct,
            model_arguments=frozenset(schema.get("properties") or ()),
        ))
    return SimulatedTools(out, sim)


# -- ToolNode hooks ---------------------------------------------------------------------------

class _Simulation:
    """What the sync and async ToolNode wrappers share: which calls to simulate, and how."""

    def __init__(
        self,
        source: WorldSource | Sequence[BaseTool],
        only: Iterable[str] | None,
        episode: str | None,
        perturb: Any,
        seed: int | None,
        backend: WorldModel | str | None,
    ) -> None:
        if isinstance(source, (list, tuple)):
            source = world_from_tools(source)
        self.simulator = make_simulator(source, seed=seed, backend=backend)  # type: ignore[arg-type]
        self.only = None if only is None else frozenset(only)
        unknown = sorted((self.only or frozenset()) - set(self.simulator.world.tool_names))
        if unknown:
            raise ConfigError(f"only= names tools the world {self.simulator.world.name!r} does not have: "
                              f"{', '.join(unknown)}; its tools: {', '.join(self.simulator.world.tool_names)}")
        self.episode = episode
        self.perturb = perturb

    def simulates(self, request: ToolCallRequest) -> bool:
        name = request.tool_call["name"]
        if self.only is not None:
            return name in self.only
        return self.simulator.catalog.get(name) is not None

    async def answer(self, request: ToolCallRequest) -> ToolMessage:
        call = request.tool_call
        runtime = getattr(request, "runtime", None)
        config = getattr(runtime, "config", None) or ensure_config()
        episode = self.episode if self.episode is not None else episode_from_config(config)
        result = (await self.simulator.call(
            call["name"], to_jsonable_python(call.get("args") or {}), episode=episode, perturb=self.perturb,
        )).raise_for_simulator_error(call["name"])
        return ToolMessage(
            content=result.text, artifact=result.structured, tool_call_id=call["id"], name=call["name"],
            status="error" if result.is_error else "success",
        )


class ToolCallWrapper:
    """``ToolNode(wrap_tool_call=...)`` hook: simulated calls are answered, the rest executed."""

    def __init__(self, simulation: _Simulation) -> None:
        self._simulation = simulation
        self.simulator = simulation.simulator

    def __call__(
        self, request: ToolCallRequest, execute: Callable[[ToolCallRequest], ToolMessage | Command]
    ) -> ToolMessage | Command:
        if not self._simulation.simulates(request):
            return execute(request)
        return run_blocking(self._simulation.answer(request))


class AsyncToolCallWrapper:
    """``ToolNode(awrap_tool_call=...)`` hook, the async twin of :class:`ToolCallWrapper`."""

    def __init__(self, simulation: _Simulation) -> None:
        self._simulation = simulation
        self.simulator = simulation.simulator

    async def __call__(
        self, request: ToolCallRequest, execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]
    ) -> ToolMessage | Command:
        if not self._simulation.simulates(request):
            return await execute(request)
        return await self._simulation.answer(request)


def tool_call_wrapper(
    world_or_simulator: WorldSource | Sequence[BaseTool],
    *,
    only: Iterable[str] | None = None,
    episode: str | None = None,
    perturb: Any = None,
    seed: int | None = None,
    backend: WorldModel | str | None = None,
) -> ToolCallWrapper:
    """A ``wrap_tool_call`` hook for ``ToolNode`` that simulates the graph's tool calls.

    ``world_or_simulator`` is a world file, a :class:`World`, a :class:`Simulator`, or the
    graph's own tools (the world is then built from them). Calls to tools the world has
    are simulated, or only those named in ``only``; every other call runs the real tool.
    Pass the same :class:`Simulator` to :func:`atool_call_wrapper` to share episodes.
    """
    return ToolCallWrapper(_Simulation(world_or_simulator, only, episode, perturb, seed, backend))


def atool_call_wrapper(
    world_or_simulator: WorldSource | Sequence[BaseTool],
    *,
    only: Iterable[str] | None = None,
    episode: str | None = None,
    perturb: Any = None,
    seed: int | None = None,
    backend: WorldModel | str | None = None,
) -> AsyncToolCallWrapper:
    """The ``awrap_tool_call`` twin of :func:`tool_call_wrapper` (for ``graph.ainvoke``)."""
    return AsyncToolCallWrapper(_Simulation(world_or_simulator, only, episode, perturb, seed, backend))


# -- langchain-mcp-adapters against `agentworld-mcp serve` ----------------------------------------

class ThreadEpisodes:
    """A ``MultiServerMCPClient`` tool interceptor: each LangGraph thread gets its own world.

    ``agentworld-mcp serve`` answers every connection from one shared world unless a
    request names an episode. This interceptor sends the run's ``thread_id`` as the
    ``x-agentworld-episode`` header (streamable HTTP), so threads are isolated over MCP as
    they are in process::

        MultiServerMCPClient({...}, tool_interceptors=[ThreadEpisodes()])
    """

    async def __call__(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        config = getattr(getattr(request, "runtime", None), "config", None) or ensure_config()
        thread = episode_from_config(config)
        if thread is None:
            return await handler(request)
        return await handler(request.override(headers={**(request.headers or {}), EPISODE_HEADER: thread}))
