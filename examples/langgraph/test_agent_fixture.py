"""The same agent tested with the ``agentworld`` pytest fixture (installed with agentworld-mcp).

The marker names the world; the fixture hands out its tools, records every call and
offers assertions that say what was called instead when they fail.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from triage_agent import build_agent
from tracker_tools import TOOLS as REAL_TOOLS

pytestmark = pytest.mark.agentworld(world="../worlds/issue-tracker.yaml", seed=7)


def ask(graph, text: str, thread: str = "t1") -> str:
    out = graph.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}})
    return out["messages"][-1].text


def test_a_report_is_filed_and_nothing_is_deleted(agentworld) -> None:
    graph = build_agent(agentworld.tools)
    assert ask(graph, "report: Rocket crashes at liftoff") == "Filed issue #4 (high priority): Rocket crashes at liftoff"
    agentworld.assert_call_order("list_issues", "create_issue")
    agentworld.assert_called_with("create_issue", title="Rocket crashes at liftoff", priority="high")
    agentworld.assert_not_called("delete_issue")
    assert [i["id"] for i in agentworld.state("t1")["issues"]] == [1, 2, 3, 4]


def test_the_graphs_own_tools_behind_the_tool_node_wrapper(agentworld) -> None:
    graph = build_agent(REAL_TOOLS, wrap_tool_call=agentworld.tool_call_wrapper())
    assert ask(graph, "close #1") == "Closed #1."
    agentworld.assert_called("update_issue", times=1)
    assert agentworld.state("t1")["issues"][0]["status"] == "closed"
