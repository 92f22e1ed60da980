"""pytest plugin: an ``agentworld`` fixture that puts an agent's tools in a simulated world.

Registered through the ``pytest11`` entry point, so installing agentworld-mcp is enough.
It costs nothing when unused: importing it loads only pytest; worlds, world models and
LangChain are imported when a test first asks for the fixture.

::

    @pytest.mark.agentworld(world="worlds/issue-tracker.yaml", seed=7)
    def test_triage(agentworld):
        graph = build_agent(agentworld.tools)
        graph.invoke(...)
        agentworld.assert_called("create_issue")
        agentworld.assert_not_called("delete_issue")

The marker takes ``world`` (a world file, relative to the test file or the rootdir),
``tools`` (MCP tool dicts or LangChain tools; with ``world`` the file adds scenario,
seed state and perturbations), ``seed``, ``perturb`` (a per-call perturbation override),
``backend`` (``schema`` or ``llm``), ``cassette`` (a file under the cassette directory, or
False), ``episode`` and ``facts`` (a ``.facts.jsonl`` file). ``agentworld.use(...)`` takes the
same settings inside a test. ``agentworld.facts`` are the world's question/answer facts for
grading (``agentworld-mcp populate --facts``): the ``facts`` file, else ``<world>.facts.jsonl``
beside the world file.

Command-line options set the cassette policy for the whole run, e.g. in CI::

    pytest --agentworld-record-mode none --agentworld-cassette-dir tests/cassettes

When a test using the fixture fails (an ``assert`` too), its report gets a section listing
the calls made, per episode. ``--agentworld-save DIR`` writes each test's trajectory, one
JSON line per turn, to ``DIR/<test id>.jsonl`` (``agentworld-mcp report`` renders it).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..pipeline.config import SimulatorConfig
from ..world.kinds import BackendKind, RecordMode

if TYPE_CHECKING:
    from ..world.catalog import Catalog
    from ..pipeline.engine import Simulator
    from ..state.episode import Episode, Turn
    from ..state.result import ToolResult
    from ..world.world import World

# config imports nothing heavy: loading the plugin stays free in every pytest run.
RECORD_MODES = RecordMode.names()
BACKENDS = BackendKind.names()
MARKER = "agentworld"
_SETTINGS = ("world", "tools", "seed", "perturb", "backend", "cassette", "episode", "facts")


# -- hooks ----------------------------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentworld", "agentworld-mcp simulated tool worlds")
    group.addoption("--agentworld-record-mode", choices=RECORD_MODES, default=None,
                    help="cassette record mode for llm-backed worlds, as in VCR.py: once (default), "
                         "new_episodes, none (replay only: CI), all (re-record)")
    group.addoption("--agentworld-cassette-dir", default=None, metavar="DIR",
                    help="where cassettes live (default: a 'cassettes' folder beside each test file)")
    group.addoption("--agentworld-save", default=None, metavar="DIR",
                    help="write each agentworld test's trajectory (one JSON line per turn) to DIR/<test id>.jsonl")
    group.addoption("--agentworld-backend", choices=BACKENDS, default=None,
                    help="world model for every agentworld test (default: each world file's backend.type, "
                         "else schema)")
    parser.addini("agentworld_record_mode", "default for --agentworld-record-mode", default=None)
    parser.addini("agentworld_cassette_dir", "default for --agentworld-cassette-dir", default=None)
    parser.addini("agentworld_backend", "default for --agentworld-backend", default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "agentworld(world=None, *, tools=None, seed=None, perturb=None, backend=None, cassette=None, episode=None): "
        "configure the agentworld fixture's simulated world for this test",
    )
    mode = _option(config, "record_mode")
    if mode is not None and mode not in RECORD_MODES:
        raise pytest.UsageError(f"agentworld_record_mode = {mode!r}; use one of {', '.join(RECORD_MODES)}")
    backend = _option(config, "backend")
    if backend is not None and backend not in BACKENDS:
        raise pytest.UsageError(f"agentworld_backend = {backend!r}; use one of {', '.join(BACKENDS)}")


def pytest_report_header(config: pytest.Config) -> str:
    mode = _option(config, "record_mode") or "once"
    where = _option(config, "cassette_dir") or "cassettes/ beside each test file"
    backend = _option(config, "backend") or "per world file (default schema)"
    return f"agentworld: backend={backend}, record mode={mode}, cassette dir={where}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                                           pytest.TestReport]:
    """A failed test that used the fixture shows the calls it made, however it failed."""
    report = yield
    env = getattr(item, "funcargs", {}).get("agentworld")
    if report.failed and isinstance(env, AgentWorld):
        report.sections.append((f"agentworld: calls made ({report.when})", env.calls_by_episode()))
    return report


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"agentworld_{name}", default=None)
    if value is None:
        value = config.getini(f"agentworld_{name}") or None
    return value


@pytest.fixture
def agentworld(request: pytest.FixtureRequest) -> Iterator[AgentWorld]:
    """A simulated tool world for this test (see the module docstring)."""
    env = AgentWorld(_RunSettings.of(request), _marker_settings(request))
    problem = env.try_build()
    if problem is not None:  # a bad world file or setting: fail this test, say why, no traceback
        pytest.fail(f"agentworld: {problem}", pytrace=False)
    try:
        yield env
    finally:
        env.close()
        save = request.config.getoption("agentworld_save", default=None)
        if save and env.turns:
            env.save(Path(save) / (_file_name(request.node.nodeid) + ".jsonl"))


def _marker_settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for mark in reversed(list(request.node.iter_markers(MARKER))):  # outermost first, closest wins
        if len(mark.args) > 1:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} takes the world file as its only positional argument")
        unknown = sorted(set(mark.kwargs) - set(_SETTINGS))
        if unknown:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} got unknown settings {unknown}; "
                                    f"it takes {', '.join(_SETTINGS)}")
        if mark.args:
            settings["world"] = mark.args[0]
        settings.update(mark.kwargs)
    return settings


# -- settings -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _RunSettings:
    """What the command line, the ini file and the test's location decide."""

    record_mode: str | None
    cassette_dir: Path
    backend: str | None
    test_dir: Path
    rootdir: Path
    module: str
    test_name: str

    @classmethod
    def of(cls, request: pytest.FixtureRequest) -> _RunSettings:
        config = request.config
        test_dir = Path(request.node.path).parent
        cassette_dir = _option(config, "cassette_dir")
        return cls(
            record_mode=_option(config, "record_mode"),
            cassette_dir=(Path(cassette_dir) if cassette_dir else test_dir / "cassettes"),
            backend=_option(config, "backend"),
            test_dir=test_dir,
            rootdir=Path(config.rootpath),
            module=Path(request.node.path).stem,
            test_name=re.sub(r"[^\w.-]+", "_", request.node.name).strip("_"),
        )


# -- the environment ------------------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    """One tool call the simulated world answered."""

    index: int
    tool: str
    arguments: dict[str, Any]
    result: ToolResult
    episode: str
    perturbations: tuple[str, ...] = ()  # kinds of the perturbations injected into this call

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        outcome = f" -> error: {_first_line(self.result.text)}" if self.result.is_error else ""
        injected = f" [injected: {', '.join(self.perturbations)}]" if self.perturbations else ""
        return f"{self.tool}({args}){outcome}{injected}"


@dataclass
class _CallLog:
    """The fixture's TurnSink: every call of the test, whichever way it arrived."""

    calls: list[Call] = field(default_factory=list)
    #: Every turn as one trajectory line (``--agentworld-save``), in the order the calls were answered.
    lines: list[dict[str, Any]] = field(default_factory=list)

    def record(self, catalog: Catalog, episode: Episode, turn: Turn) -> None:
        from ..state.result import ToolResult

        kinds = tuple(str(p.get("kind", "?")) for p in turn.perturbations)
        self.calls.append(Call(len(self.calls) + 1, turn.tool, dict(turn.arguments),
                               ToolResult.from_dict(turn.result), episode.id, kinds))
        from ..trajectories.record import turn_line  # the --record line layout (schemas/trajectory.schema.json)

        self.lines.append(turn_line(catalog.world.name, episode, turn))


class AgentWorld:
    """The ``agentworld`` fixture: a simulated world, its tools, its calls, assertions.

    Built from the marker's settings, or from :meth:`use` inside the test. Tool calls are
    recorded whichever way they arrive (the LangChain tools, the ToolNode wrappers,
    :meth:`call`), across all episodes (LangGraph threads) of the test.
    """

    def __init__(self, run: _RunSettings, settings: dict[str, Any]) -> None:
        self._run = run
        self._settings = dict(settings)
        self._sim: Simulator | None = None
        self._calls = _CallLog()
        self._tools: list[Any] | None = None

    # -- configuration ------------------------------------------------------------------
    @property
    def configured(self) -> bool:
        return "world" in self._settings or "tools" in self._settings

    def use(self, world: str | os.PathLike[str] | None = None, **settings: Any) -> AgentWorld:
        """Configure (or reconfigure) the world; takes the marker's settings. Returns ``self``."""
        unknown = sorted(set(settings) - set(_SETTINGS))
        if unknown:
            raise TypeError(f"agentworld.use() got unknown settings {unknown}; it takes {', '.join(_SETTINGS)}")
        self.close()
        self._sim, self._tools, self._calls = None, None, _CallLog()
        if world is not None:
            settings["world"] = world
        self._settings.update(settings)
        self.build()
        return self

    def try_build(self) -> str | None:
        """Build the world if the marker configured one; the problem, if that failed."""
        from ..errors import AgentWorldError

        if not self.configured:
            return None
        try:
            self.build()
        except AgentWorldError as exc:
            return str(exc)
        return None

    def build(self) -> Simulator:
        if self._sim is not None:
            return self._sim
        if not self.configured:
            raise RuntimeError(
                "the agentworld fixture has no world: add @pytest.mark.agentworld(world='path/to/world.yaml') "
                "(or tools=[...]) to the test, or call agentworld.use(world=...) first"
            )
        from ..pipeline.engine import Simulator

        world = self._world()
        # Marker (per test) over the run's pytest options; the world file and environment below.
        kind = self._settings.get("backend") or self._run.backend
        cassette = self._cassette(SimulatorConfig.resolve(world, backend=kind).backend.value)
        self._sim = Simulator.from_world(
            world, backend=kind, seed=self._settings.get("seed"), cassette=cassette,
            record_mode=self._run.record_mode if cassette is not None else None, recorders=[self._calls],
        )
        return self._sim

    def _world(self) -> World:
        from ..world.world import load_world

        world = self._settings.get("world")
        tools = self._settings.get("tools")
        path = None if world is None or _is_world_object(world) else self._find(world)
        if tools is None:
            if path is not None:
                return load_world(path)
            from ..world.world import World, load_world_data

            return world if isinstance(world, World) else load_world_data(world)
        overlay = world if path is None else path
        if self._langchain_tools(tools):
            from .langgraph import world_from_tools

            return world_from_tools(tools, overlay)
        from .toolworld import world_from_definitions

        return world_from_definitions(tools, overlay)

    def _find(self, world: str | os.PathLike[str]) -> Path:
        from ..world.world import find_world  # one name resolution for every entry point

        return find_world(world, near=[self._run.test_dir, self._run.rootdir],
                          hint="Fix the path in @pytest.mark.agentworld(world=...) or agentworld.use(world=...), "
                          "or name a bundled world.")

    def _cassette(self, kind: str) -> Path | None:
        cassette = self._settings.get("cassette")
        if cassette is False:
            return None
        if cassette is None or cassette is True:
            if kind != "llm":
                return None  # the deterministic world model needs no recording
            return self._run.cassette_dir / self._run.module / f"{self._run.test_name}.yaml"
        path = Path(cassette)
        return path if path.is_absolute() else self._run.cassette_dir / path

    @staticmethod
    def _langchain_tools(tools: Sequence[Any]) -> bool:
        return any(not isinstance(t, dict) for t in tools)

    # -- what the test uses ------------------------------------------------------------------
    @property
    def simulator(self) -> Simulator:
        return self.build()

    @property
    def world(self) -> World:
        return self.build().world

    @property
    def episode(self) -> str | None:
        """The episode every call is pinned to (None: each LangGraph thread is its own)."""
        return self._settings.get("episode")

    @property
    def tools(self) -> list[Any]:
        """LangChain tools answered by this world (stand-ins with the same schemas, if given tools)."""
        if self._tools is None:
            # ``from .langgraph import`` (not ``from . import langgraph``) goes through sys.modules, so it
            # sees the same engine as build() even after pytester's in-process runs drop modules.
            from .langgraph import simulate_tools, simulated_tools

            sim = self.build()
            given = self._settings.get("tools")
            opts: dict[str, Any] = {"episode": self.episode, "perturb": self._settings.get("perturb")}
            if given is not None and self._langchain_tools(given):
                self._tools = simulate_tools(given, simulator=sim, **opts)
            else:
                self._tools = simulated_tools(sim, **opts)
        return self._tools

    def tool(self, name: str) -> Any:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(f"no tool {name!r} in this world; tools: {', '.join(t.name for t in self.tools)}")

    def tool_call_wrapper(self, *, only: Sequence[str] | None = None) -> Any:
        """A ``ToolNode(wrap_tool_call=...)`` hook on this world (calls are recorded here too)."""
        from .langgraph import tool_call_wrapper

        return tool_call_wrapper(self.build(), only=only, episode=self.episode, perturb=self._settings.get("perturb"))

    def atool_call_wrapper(self, *, only: Sequence[str] | None = None) -> Any:
        """The ``awrap_tool_call`` twin of :meth:`tool_call_wrapper`."""
        from .langgraph import atool_call_wrapper

        return atool_call_wrapper(self.build(), only=only, episode=self.episode, perturb=self._settings.get("perturb"))

    async def acall(self, tool: str, arguments: dict[str, Any] | None = None, /, *, episode: str | None = None,
                    **kwargs: Any) -> ToolResult:
        """Make a tool call yourself (arrange a state, check one); it is recorded like the agent's."""
        result = await self.build().call(tool, {**(arguments or {}), **kwargs}, episode=episode or self.episode,
                                         perturb=self._settings.get("perturb"))
        return result.raise_for_simulator_error(tool)

    def call(self, tool: str, arguments: dict[str, Any] | None = None, /, *, episode: str | None = None,
             **kwargs: Any) -> ToolResult:
        """The sync twin of :meth:`acall` (works inside a running event loop too)."""
        from ._blocking import run_blocking

        return run_blocking(self.acall(tool, arguments, episode=episode, **kwargs))

    async def astate(self, episode: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """The ledger: live entities by collection, in ``episode`` (default: the shared world)."""
        from ..state.episode import DEFAULT_EPISODE

        return await self.build().state(episode or self.episode or DEFAULT_EPISODE)

    def state(self, episode: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """The sync twin of :meth:`astate`; pass a LangGraph thread id to see that thread's world."""
        from ._blocking import run_blocking

        return run_blocking(self.astate(episode))

    @property
    def facts(self) -> list[dict[str, Any]]:
        """Facts that hold in the world's fiction, for grading an agent's answer (``populate --facts``).

        Each is ``{"question", "answer", "kind", "evidence"}``. Read from the marker's ``facts``
        file, else from ``<world>.facts.jsonl`` beside the world file (``mars.yaml`` ->
        ``mars.facts.jsonl``); ``[]`` when the world has none.
        """
        from ..fiction.facts import facts_path, read_facts

        given = self._settings.get("facts")
        world = self._settings.get("world")
        if given is not None:
            return read_facts(self._find(given))
        if world is None or _is_world_object(world):
            return []
        path = facts_path(self._find(world))
        return read_facts(path) if path.is_file() else []

    @property
    def calls(self) -> list[Call]:
        """Every call answered so far, in order, across episodes."""
        return list(self._calls.calls)

    def calls_to(self, tool: str) -> list[Call]:
        return [c for c in self._calls.calls if c.tool == tool]

    @property
    def call_names(self) -> list[str]:
        return [c.tool for c in self._calls.calls]

    @property
    def turns(self) -> list[dict[str, Any]]:
        """Every turn of the test as a trajectory line (episode, turn, tool, arguments, result, ...)."""
        return list(self._calls.lines)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the test's trajectory, one JSON line per turn (``agentworld-mcp report`` reads it)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in self._calls.lines),
                          encoding="utf-8")
        return target

    def calls_by_episode(self) -> str:
        """The calls made, grouped by episode: what a failed test's report shows."""
        if not self._calls.calls:
            return "No tool calls were made." + ("" if self._sim is not None or self.configured else
                                                 " (the fixture has no world)")
        episodes: dict[str, list[Call]] = {}
        for c in self._calls.calls:
            episodes.setdefault(c.episode, []).append(c)
        blocks = []
        for episode, calls in episodes.items():
            listed = "\n".join(f"  {c.index}. {c}" for c in calls)
            blocks.append(f"episode {episode!r} ({len(calls)} call(s)):\n{listed}")
        return "\n".join(blocks)

    # -- assertions ----------------------------------------------------------------------
    def assert_called(self, tool: str, *, times: int | None = None) -> None:
        """``tool`` was called (exactly ``times`` times, if given)."""
        self._known(tool)
        n = len(self.calls_to(tool))
        if times is None and n == 0:
            raise AssertionError(f"expected {tool} to be called, but it was not called.\n{self._made()}")
        if times is not None and n != times:
            raise AssertionError(f"expected {tool} to be called {_times(times)}, but it was called {_times(n)}."
                                 f"\n{self._made()}")

    def assert_not_called(self, tool: str) -> None:
        self._known(tool)
        made = self.calls_to(tool)
        if made:
            listed = "\n".join(f"  {c.index}. {c}" for c in made)
            raise AssertionError(f"expected {tool} not to be called, but it was called {_times(len(made))}:\n{listed}"
                                 f"\n{self._made()}")

    def assert_called_with(self, tool: str, /, **arguments: Any) -> None:
        """Some call to ``tool`` had these arguments (others it had may be anything)."""
        self._known(tool)
        made = self.calls_to(tool)
        if any(all(k in c.arguments and c.arguments[k] == v for k, v in arguments.items()) for c in made):
            return
        wanted = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        if not made:
            raise AssertionError(f"expected a call {tool}({wanted}), but {tool} was not called.\n{self._made()}")
        listed = "\n".join(f"  {c.index}. {c}" for c in made)
        raise AssertionError(f"expected a call {tool}({wanted}), but {tool} was called with:\n{listed}")

    def assert_call_order(self, *tools: str) -> None:
        """These tools were called in this order (other calls may come in between)."""
        for tool in tools:
            self._known(tool)
        names = iter(self.call_names)
        if all(any(name == tool for name in names) for tool in tools):
            return
        raise AssertionError(f"expected calls in the order {' -> '.join(tools)}, but the calls were "
                             f"{' -> '.join(self.call_names) or '(none)'}.\n{self._made()}")

    def _known(self, tool: str) -> None:
        names = self.build().world.tool_names
        if tool not in names:
            raise AssertionError(f"{tool!r} is not a tool of world {self.world.name!r}; its tools: {', '.join(names)}")

    def _made(self) -> str:
        if not self._calls.calls:
            return "No tool calls were made."
        listed = "\n".join(f"  {c.index}. {c}" for c in self._calls.calls)
        return f"Calls made ({len(self._calls.calls)}):\n{listed}"

    # -- teardown ------------------------------------------------------------------------
    def close(self) -> None:
        """Close the world model (saves cassettes). The fixture does this after the test."""
        if self._sim is not None:
            from ._blocking import run_blocking

            sim, self._sim = self._sim, None
            run_blocking(sim.aclose())


def _is_world_object(value: Any) -> bool:
    from ..world.world import World

    return isinstance(value, (World, dict))


def _file_name(node_id: str) -> str:
    """A test id as a file name: ``tests/test_a.py::test_b[x]`` -> ``tests_test_a.py_test_b_x``."""
    return re.sub(r"[^\w.-]+", "_", node_id).strip("_")


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 100 else line[:97] + "..."


__all__ = ["AgentWorld", "Call"]
