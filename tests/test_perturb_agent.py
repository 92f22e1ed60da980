"""Perturbations really stress agents: a careful LangGraph agent recovers, a naive one fails.

The agent is a real LangGraph graph (``StateGraph`` + ``ToolNode``) whose tools come from
langchain-mcp-adapters' ``MultiServerMCPClient`` talking to ``agentworld-mcp serve`` over
streamable HTTP. Its chat model is scripted: it decides each tool call from the conversation
only (the task, its earlier calls, the tool messages), as a real model would.

Task: file the given issues, then report the ids of all issues in the tracker.

* careful: waits the hinted time on a 429, retries timeouts, 5xx and conflicts, follows ``next_cursor``;
* naive: gives up on the first error and believes the first page is the whole list.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from .conftest import http_server, http_session

TITLES = [f"Launch step {n} fails" for n in range(1, 7)]
TRANSIENT = re.compile(r"^(409|429|5\d\d) |ETIMEDOUT|EAGAIN|EBUSY")
RETRY_AFTER = re.compile(r"retry after (\d+)s")


class ScriptedAgent(BaseChatModel):
    """A chat model whose reasoning is a script over the conversation."""

    careful: bool = True
    max_retries: int = 8

    @property
    def _llm_type(self) -> str:
        return "scripted-perturbation-agent"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedAgent:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        raise NotImplementedError("the agent runs async (it waits on rate limits without blocking)")

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                         **kw: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=await self._decide(messages))])

    async def _decide(self, messages: list[BaseMessage]) -> AIMessage:
        titles = json.loads(next(m for m in messages if isinstance(m, HumanMessage)).text.split(":", 1)[1])
        results = [m for m in messages if isinstance(m, ToolMessage)]
        calls = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
        if results and results[-1].status == "error":
            last = results[-1].text
            failures = 0
            for r in reversed(results):
                if r.status != "error":
                    break
                failures += 1
            if not self.careful or not TRANSIENT.search(last) or failures > self.max_retries:
                return AIMessage(f"FAILED: {last}")
            if hint := RETRY_AFTER.search(last):
                await asyncio.sleep(int(hint.group(1)))
            return _call(calls[-1]["name"], calls[-1]["args"], len(messages))  # the same call again
        created = [r for r in results if r.name == "create_issue" and r.status != "error"]
        if len(created) < len(titles):
            return _call("create_issue", {"title": titles[len(created)]}, len(messages))
        pages = [json.loads(r.text) for r in results if r.name == "list_issues" and r.status != "error"]
        if not pages:
            return _call("list_issues", {}, len(messages))
        cursor = pages[-1].get("next_cursor")
        if cursor and self.careful:
            return _call("list_issues", {"cursor": cursor}, len(messages))
        ids = sorted(issue["id"] for page in pages for issue in page["issues"])
        return AIMessage(json.dumps(ids))


def _call(name: str, args: dict, turn: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{turn}"}])


def build_agent(model: BaseChatModel, tools: list) -> Any:
    graph = StateGraph(MessagesState)
    bound = model.bind_tools(tools)

    async def agent(state: MessagesState) -> dict:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


async def run_agent(tracker_world, careful: bool, *flags: str) -> tuple[str, list[BaseMessage], dict]:
    """The agent's answer, its conversation, and the tracker's true state afterwards."""
    with http_server(str(tracker_world), *flags) as url:
        client = MultiServerMCPClient({"tracker": {"transport": "streamable_http", "url": url}})
        tools = [t for t in await client.get_tools() if t.name in ("create_issue", "list_issues")]
        agent = build_agent(ScriptedAgent(careful=careful), tools)
        task = HumanMessage("File these issues, then tell me the ids of all issues: " + json.dumps(TITLES))
        state = await agent.ainvoke({"messages": [task]}, {"recursion_limit": 200})
        async with http_session(url) as session:  # the truth, unperturbed
            truth = await session.call_tool("list_issues", {}, meta={"agentworld/perturb": "none"})
    return state["messages"][-1].text, state["messages"], truth.structuredContent


def errors_seen(messages: list[BaseMessage]) -> list[str]:
    return [m.text for m in messages if isinstance(m, ToolMessage) and m.status == "error"]


@pytest.mark.parametrize("preset, seed", [("flaky-network", "7"), ("paginated", "0"), ("chaos", "7")])
async def test_a_careful_agent_recovers(tracker_world, preset, seed):
    answer, messages, truth = await run_agent(tracker_world, True, "--perturb", preset, "--seed", seed)
    titles = [i["title"] for i in truth["issues"]]
    assert json.loads(answer) == sorted(i["id"] for i in truth["issues"])
    assert all(titles.count(t) == 1 for t in TITLES)  # every issue filed, none twice
    if preset != "paginated":
        assert errors_seen(messages), f"{preset} with seed {seed} injected no error: pick a seed that does"
    if preset != "flaky-network":
        pages = [m for m in messages if isinstance(m, ToolMessage) and m.name == "list_issues" and m.status != "error"]
        assert len(pages) == 3  # 9 issues in pages of 3


@pytest.mark.parametrize("preset, seed", [("flaky-network", "7"), ("paginated", "0")])
async def test_a_naive_agent_fails(tracker_world, preset, seed):
    answer, messages, truth = await run_agent(tracker_world, False, "--perturb", preset, "--seed", seed)
    every_id = sorted(i["id"] for i in truth["issues"])
    if preset == "flaky-network":
        assert answer.startswith("FAILED: ") and TRANSIENT.search(answer[len("FAILED: "):])
        assert len([i for i in truth["issues"] if i["title"] in TITLES]) < len(TITLES)  # work left undone
    else:
        assert json.loads(answer) == every_id[:3] != every_id  # it believed the first page


async def test_without_perturbations_both_agents_succeed(tracker_world):
    for careful in (True, False):
        answer, messages, truth = await run_agent(tracker_world, careful, "--perturb", "none")
        assert json.loads(answer) == sorted(i["id"] for i in truth["issues"]) and not errors_seen(messages)
