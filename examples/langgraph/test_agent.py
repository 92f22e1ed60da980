"""The triage agent's tests, run four ways against the simulated issue tracker.

Every test runs once per way of connecting the agent to the world, with the same
assertions:

* ``simulated_tools``   - tools made from the world file, in process;
* ``tool_node_wrapper`` - the agent's real tools, untouched; ``ToolNode``'s
  ``wrap_tool_call``/``awrap_tool_call`` answer the calls in process;
* ``mcp_stdio`` and ``mcp_http`` - ``agentworld-mcp serve`` in a subprocess, reached
  through langchain-mcp-adapters' ``MultiServerMCPClient``.

The world starts with issues #1 (open), #2 (open) and #3 (closed). Each LangGraph thread
is its own world: a thread keeps its state across turns, two threads never share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from triage_agent import build_agent
from tracker_tools import TOOLS as REAL_TOOLS

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.integrations.langgraph import ThreadEpisodes, atool_call_wrapper, simulated_tools, tool_call_wrapper

WORLD = Path(__file__).resolve().parents[1] / "worlds" / "issue-tracker.yaml"
SERVE = [sys.executable, "-m", "agentworld_mcp", "serve", str(WORLD)]
WAYS = ["simulated_tools", "tool_node_wrapper", "mcp_stdio", "mcp_http"]


class Agent:
    """The triage agent reached one way; ``ask`` runs one turn on a thread."""

    def __init__(self, graph_for_thread: Any) -> None:
        self._graph_for_thread = graph_for_thread

    async def ask(self, thread: str, text: str) -> str:
        graph = await self._graph_for_thread(thread)
        out = await graph.ainvoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}})
        return out["messages"][-1].text

    async def tool_calls(self, thread: str) -> list[tuple[str, str]]:
        """(tool, status) of every tool call the thread made, in order."""
        graph = await self._graph_for_thread(thread)
        state = await graph.aget_state({"configurable": {"thread_id": thread}})
        return [(m.name, m.status) for m in state.values["messages"] if isinstance(m, ToolMessage)]


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """``agentworld-mcp serve --transport http`` on a free loopback port; yields its MCP URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*SERVE, "--transport", "http", "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"agentworld-mcp serve exited: {proc.stderr.read() if proc.stderr else ''}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("agentworld-mcp serve did not listen within 30 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with http_server() as url:
        yield url


@contextlib.asynccontextmanager
async def connect(way: str, request: pytest.FixtureRequest) -> AsyncIterator[Agent]:
    """The agent, connected to a fresh simulated tracker the given way."""
    if way == "simulated_tools":
        graph = build_agent(simulated_tools(WORLD))
        yield Agent(lambda thread: _ready(graph))
    elif way == "tool_node_wrapper":
        sim = Simulator(load_world(WORLD))  # one world model for both hooks: sync and async runs share episodes
        graph = build_agent(REAL_TOOLS, wrap_tool_call=tool_call_wrapper(sim), awrap_tool_call=atool_call_wrapper(sim))
        yield Agent(lambda thread: _ready(graph))
    elif way == "mcp_http":
        url = request.getfixturevalue("server_url")
        client = MultiServerMCPClient({"tracker": {"transport": "streamable_http", "url": url}},
                                      tool_interceptors=[ThreadEpisodes()])
        graph = build_agent(await client.get_tools())
        yield Agent(lambda thread: _ready(graph))
    elif way == "mcp_stdio":
        # One stdio server is one world, and the client cannot name an episode per call over
        # stdio, so each thread gets its own server process (a long-lived session each).
        client = MultiServerMCPClient({"tracker": {"transport": "stdio", "command": SERVE[0], "args": SERVE[1:]}})
        async with contextlib.AsyncExitStack() as stack:
            graphs: dict[str, Any] = {}

            async def graph_for(thread: str) -> Any:
                if thread not in graphs:
                    session = await stack.enter_async_context(client.session("tracker"))
                    graphs[thread] = build_agent(await load_mcp_tools(session))
                return graphs[thread]

            yield Agent(graph_for)
    else:
        raise ValueError(way)


async def _ready(graph: Any) -> Any:
    return graph


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("way", WAYS)
async def test_reporting_a_new_problem_files_an_issue(way: str, request: pytest.FixtureRequest) -> None:
    async with connect(way, request) as agent:
        thread = new_thread()
        answer = await agent.ask(thread, "report: Rocket crashes at liftoff")
        assert answer == "Filed issue #4 (high priority): Rocket crashes at liftoff"
        assert await agent.tool_calls(thread) == [("list_issues", "success"), ("create_issue", "success")]
        # the same thread remembers: the new issue is open now
        assert await agent.ask(thread, "how many open issues?") == "3 open issues: #1, #2, #4"


@pytest.mark.parametrize("way", WAYS)
async def test_reporting_a_known_problem_comments_instead(way: str, request: pytest.FixtureRequest) -> None:
    async with connect(way, request) as agent:
        thread = new_thread()
        answer = await agent.ask(thread, "report: Update the launch checklist")
        assert answer == "Commented on existing issue #2."
        assert [name for name, _ in await agent.tool_calls(thread)] == ["list_issues", "add_comment"]


@pytest.mark.parametrize("way", WAYS)
async def test_closed_issues_stay_closed_across_turns(way: str, request: pytest.FixtureRequest) -> None:
    async with connect(way, request) as agent:
        thread = new_thread()
        assert await agent.ask(thread, "close #1") == "Closed #1."
        assert await agent.ask(thread, "how many open issues?") == "1 open issue: #2"


@pytest.mark.parametrize("way", WAYS)
async def test_a_missing_issue_is_a_tool_error_the_agent_reports(way: str, request: pytest.FixtureRequest) -> None:
    async with connect(way, request) as agent:
        thread = new_thread()
        answer = await agent.ask(thread, "close #99")
        assert answer.startswith("Could not close #99:")
        assert "99" in answer.removeprefix("Could not close #99:")
        assert await agent.tool_calls(thread) == [("update_issue", "error")]


@pytest.mark.parametrize("way", WAYS)
async def test_threads_are_isolated_worlds(way: str, request: pytest.FixtureRequest) -> None:
    async with connect(way, request) as agent:
        first, second = new_thread(), new_thread()
        assert await agent.ask(first, "close #1") == "Closed #1."
        assert await agent.ask(second, "how many open issues?") == "2 open issues: #1, #2"
        assert await agent.ask(first, "how many open issues?") == "1 open issue: #2"


@pytest.mark.parametrize("way", ["simulated_tools", "tool_node_wrapper",
                                 pytest.param("mcp_http", marks=pytest.mark.slow)])  # over HTTP: the long tier
async def test_twenty_concurrent_threads_keep_isolated_state(way: str, request: pytest.FixtureRequest) -> None:
    """Twenty conversations at once, each filing its own report: every one sees only its own."""
    async with connect(way, request) as agent:
        threads = [new_thread() for _ in range(20)]
        filed = await asyncio.gather(*(agent.ask(t, f"report: Sensor {n} reads zero") for n, t in enumerate(threads)))
        assert filed == [f"Filed issue #4 (medium priority): Sensor {n} reads zero" for n in range(20)]
        counts = await asyncio.gather(*(agent.ask(t, "how many open issues?") for t in threads))
        assert counts == ["3 open issues: #1, #2, #4"] * 20


def test_the_sync_api_runs_the_same_agent() -> None:
    """``graph.invoke`` (no event loop) works through the sync tool path and sync wrapper."""
    for tools, wrap in ((simulated_tools(WORLD), None), (REAL_TOOLS, tool_call_wrapper(WORLD))):
        graph = build_agent(tools, wrap_tool_call=wrap)
        config = {"configurable": {"thread_id": new_thread()}}
        out = graph.invoke({"messages": [HumanMessage("report: Rocket crashes at liftoff")]}, config)
        assert isinstance(out["messages"][-1], AIMessage)
        assert out["messages"][-1].text == "Filed issue #4 (high priority): Rocket crashes at liftoff"
