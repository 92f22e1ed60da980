"""The LangGraph adapters: simulated tools, stand-ins for existing tools, ToolNode hooks."""

from __future__ import annotations

import subprocess
import sys

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.integrations._blocking import run_blocking
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel
from agentworld_mcp.errors import ConfigError, SimulatorFailedError
from agentworld_mcp.integrations.langgraph import (
    atool_call_wrapper,
    simulate_tools,
    simulated_tools,
    tool_call_wrapper,
    world_from_tools,
)

from .conftest import ROOT, WORLDS, free_port

sys.path.insert(0, str(ROOT / "examples" / "langgraph"))
from tracker_tools import TOOLS as REAL_TRACKER_TOOLS  # noqa: E402

TRACKER = WORLDS / "issue-tracker.yaml"


def tool_call(name: str, args: dict, call_id: str = "call-1") -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def thread(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def run_tool_node(node: ToolNode, call: dict, config: dict) -> ToolMessage:
    """A one-node graph: ToolNode needs LangGraph's runtime, as in a real agent."""
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    return graph.compile().invoke({"messages": [AIMessage("", tool_calls=[call])]}, config)["messages"][-1]


def test_importing_without_the_extra_names_the_extra() -> None:
    code = ("import sys; sys.modules['langchain_core'] = None\n"
            "try:\n    import agentworld_mcp.integrations.langgraph\n"
            "except ImportError as e:\n    print(type(e).__name__, e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("MissingExtraError agentworld_mcp.integrations.langgraph needs the optional dependency")
    assert "pip install -e '.[langgraph]'" in out


def test_one_tool_per_world_tool_with_its_name_description_and_schema() -> None:
    world = load_world(TRACKER)
    tools = simulated_tools(TRACKER)
    assert [t.name for t in tools] == world.tool_names
    for t, definition in zip(tools, world.tools):
        spec = convert_to_openai_tool(t)["function"]
        assert spec["description"] == definition["description"]
        assert spec["parameters"] == definition["inputSchema"]


def test_results_are_tool_messages_with_text_artifact_and_error_status() -> None:
    tools = simulated_tools(TRACKER)
    ok = tools.by_name("create_issue").invoke(tool_call("create_issue", {"title": "Crash"}))
    assert isinstance(ok, ToolMessage) and ok.status == "success"
    assert ok.artifact["title"] == "Crash" and '"title": "Crash"' in ok.content
    missing = tools.by_name("get_issue").invoke(tool_call("get_issue", {"issue_id": 99}))
    assert missing.status == "error" and missing.artifact is None and "99" in missing.content
    invalid = tools.by_name("create_issue").invoke(tool_call("create_issue", {"priority": "urgent"}))
    assert invalid.status == "error" and "title" in invalid.content


async def test_threads_are_episodes_and_sync_calls_work_inside_a_running_loop() -> None:
    tools = simulated_tools(TRACKER)
    close, get = tools.by_name("update_issue"), tools.by_name("get_issue")
    await close.ainvoke({"issue_id": 1, "status": "closed"}, thread("a"))
    assert '"status": "closed"' in get.invoke({"issue_id": 1}, thread("a"))  # sync, inside this loop
    assert '"status": "open"' in await get.ainvoke({"issue_id": 1}, thread("b"))
    assert '"status": "open"' in await get.ainvoke({"issue_id": 1})  # no thread: the shared world
    assert (await tools.simulator.state("a"))["issues"][0]["status"] == "closed"


async def test_a_pinned_episode_ignores_the_thread() -> None:
    tools = simulated_tools(TRACKER, episode="pinned", tools=["update_issue", "get_issue"])
    assert [t.name for t in tools] == ["update_issue", "get_issue"]
    await tools.by_name("update_issue").ainvoke({"issue_id": 2, "status": "closed"}, thread("a"))
    assert '"status": "closed"' in await tools.by_name("get_issue").ainvoke({"issue_id": 2}, thread("b"))


def test_unknown_tool_names_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"has no tool 'launch'; its tools: create_issue"):
        simulated_tools(TRACKER, tools=["launch"])
    with pytest.raises(ConfigError, match=r"only= names tools the world 'issue-tracker' does not have: launch"):
        tool_call_wrapper(TRACKER, only=["launch"])


def test_stand_ins_have_the_real_tools_schemas_and_the_world_files_state() -> None:
    stand_ins = simulate_tools(REAL_TRACKER_TOOLS, world=TRACKER)
    for real, fake in zip(REAL_TRACKER_TOOLS, stand_ins):
        assert convert_to_openai_tool(fake) == convert_to_openai_tool(real)
    got = stand_ins.by_name("get_issue").invoke(tool_call("get_issue", {"issue_id": 1}))
    assert got.artifact["title"] == "Rocket fails to launch on Mondays"  # seed state + outputSchema lent by the file
    assert stand_ins.simulator.world.scenario.startswith("The issue tracker of Acme Corp")


def test_stand_ins_from_tools_alone_remember_what_was_created() -> None:
    @tool
    def save_contact(name: str, email: str) -> dict:
        """Save a contact in the address book."""
        raise RuntimeError("the real address book is not reachable from tests")

    @tool
    def get_contact(contact_id: str) -> dict:
        """Get a saved contact by id."""
        raise RuntimeError("the real address book is not reachable from tests")

    save, get = simulate_tools([save_contact, get_contact], seed=5)
    saved = save.invoke(tool_call("save_contact", {"name": "Ada", "email": "ada@example.com"}))
    contact_id = next(v for k, v in _json(saved.content).items() if k.endswith("id"))
    fetched = get.invoke(tool_call("get_contact", {"contact_id": contact_id}))
    assert fetched.status == "success" and "ada@example.com" in fetched.content


def test_world_from_tools_keeps_the_tools_schemas_over_the_world_files() -> None:
    world = world_from_tools(REAL_TRACKER_TOOLS, TRACKER)
    assert world.tool_names == [t.name for t in REAL_TRACKER_TOOLS]
    assert world.tool("create_issue")["inputSchema"] == REAL_TRACKER_TOOLS[1].tool_call_schema.model_json_schema()
    assert "outputSchema" in world.tool("create_issue")
    with pytest.raises(ConfigError, match="no tools given"):
        world_from_tools([])


def test_the_tool_node_wrapper_simulates_only_the_named_tools() -> None:
    @tool
    def get_issue(issue_id: int) -> str:
        """Get one issue by its id."""
        return f"real issue {issue_id}"

    @tool
    def create_issue(title: str) -> str:
        """Create a new issue in the tracker and return it."""
        raise RuntimeError("must not run: it is simulated")

    sim = Simulator(load_world(TRACKER))
    node = ToolNode([get_issue, create_issue], wrap_tool_call=tool_call_wrapper(sim, only=["create_issue"]))
    created = run_tool_node(node, tool_call("create_issue", {"title": "Boom"}), thread("w"))
    assert created.status == "success" and created.artifact["id"] == 4 and created.name == "create_issue"
    real = run_tool_node(node, tool_call("get_issue", {"issue_id": 4}), thread("w"))
    assert real.content == "real issue 4"
    assert [t.tool for t in run_blocking(sim.trajectory("w"))] == ["create_issue"]


async def test_the_async_wrapper_shares_the_simulators_episodes() -> None:
    sim = Simulator(load_world(TRACKER))
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(REAL_TRACKER_TOOLS, awrap_tool_call=atool_call_wrapper(sim)))
    graph.add_edge(START, "tools")
    app = graph.compile()
    call = tool_call("update_issue", {"issue_id": 1, "status": "closed"})
    out = await app.ainvoke({"messages": [AIMessage("", tool_calls=[call])]}, thread("t"))
    assert out["messages"][-1].artifact["status"] == "closed"
    assert [t.tool for t in await sim.trajectory("t")] == ["update_issue"]
    assert (await sim.state("other"))["issues"][0]["status"] == "open"


async def test_a_simulator_failure_is_raised_not_shown_to_the_agent() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    backend = LLMWorldModel(LLMSettings(base_url=dead, model="m", retries=0, backoff=0.01, timeout=2))
    tools = simulated_tools(Simulator(load_world(TRACKER), backend=backend))
    with pytest.raises(SimulatorFailedError, match=r"simulating 'get_issue' failed \(endpoint_error\)"):
        await tools.by_name("get_issue").ainvoke(tool_call("get_issue", {"issue_id": 1}))
    sim = Simulator(load_world(TRACKER), backend=LLMWorldModel(LLMSettings(base_url=dead, model="m", retries=0,
                                                                            backoff=0.01, timeout=2)))
    with pytest.raises(SimulatorFailedError):
        run_tool_node(ToolNode(REAL_TRACKER_TOOLS, wrap_tool_call=tool_call_wrapper(sim)),
                      tool_call("get_issue", {"issue_id": 1}), thread("x"))


def _json(text: str) -> dict:
    import json

    return json.loads(text)
