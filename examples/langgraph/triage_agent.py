"""A small issue-triage agent: a LangGraph ``StateGraph`` + ``ToolNode`` loop.

The chat model is scripted (:class:`TriageModel`), so the example runs without an API key,
but it behaves like a real one: it only sees the conversation (the user's request and the
tool messages), picks tool calls from the tools bound to it, and reads their results. Swap
in ``ChatOpenAI(...)`` and the graph and its tests stay the same.

The agent understands three requests:

* ``report: <title>``   - lists open issues; comments on an open issue with the same title,
  or files a new one;
* ``close #<id>``       - closes the issue;
* ``how many open issues?`` - counts them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

REQUIRED_TOOLS = ("list_issues", "create_issue", "update_issue", "add_comment")


class TriageModel(BaseChatModel):
    """A chat model whose 'reasoning' is a script over the conversation so far."""

    tool_names: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "scripted-triage"

    def bind_tools(self, tools: Sequence[BaseTool | Any], **kwargs: Any) -> TriageModel:
        names = tuple(getattr(t, "name", None) or t["name"] for t in tools)
        missing = [n for n in REQUIRED_TOOLS if n not in names]
        if missing:
            raise ValueError(f"the triage agent needs the tools {missing}; it was given {list(names)}")
        return self.model_copy(update={"tool_names": names})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._decide(messages))])

    def _decide(self, messages: list[BaseMessage]) -> AIMessage:
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        request = messages[last_human].text.strip()
        results = [m for m in messages[last_human + 1:] if isinstance(m, ToolMessage)]
        turn = len(messages)
        if match := re.match(r"report:\s*(.+)", request, re.I):
            return self._report(match.group(1).strip(), results, turn)
        if match := re.match(r"close #(\d+)", request, re.I):
            return self._close(int(match.group(1)), results, turn)
        if re.search(r"how many open", request, re.I):
            return self._count(results, turn)
        return AIMessage("I can `report: <title>`, `close #<id>` or tell you how many open issues there are.")

    def _report(self, title: str, results: list[ToolMessage], turn: int) -> AIMessage:
        if not results:
            return _call("list_issues", {"status": "open"}, turn)
        if len(results) == 1:
            if results[0].status == "error":
                return AIMessage(f"Could not list issues: {results[0].text}")
            same = [i for i in _json(results[0]).get("issues", []) if i["title"].lower() == title.lower()]
            if same:
                return _call("add_comment", {"issue_id": same[0]["id"], "body": "Reported again."}, turn)
            priority = "high" if re.search(r"crash|fail|down", title, re.I) else "medium"
            return _call("create_issue", {"title": title, "priority": priority}, turn)
        outcome = results[-1]
        if outcome.status == "error":
            return AIMessage(f"Could not file the report: {outcome.text}")
        data = _json(outcome)
        if outcome.name == "add_comment":
            return AIMessage(f"Commented on existing issue #{data['issue_id']}.")
        return AIMessage(f"Filed issue #{data['id']} ({data['priority']} priority): {data['title']}")

    def _close(self, issue_id: int, results: list[ToolMessage], turn: int) -> AIMessage:
        if not results:
            return _call("update_issue", {"issue_id": issue_id, "status": "closed"}, turn)
        if results[-1].status == "error":
            return AIMessage(f"Could not close #{issue_id}: {results[-1].text}")
        return AIMessage(f"Closed #{_json(results[-1])['id']}.")

    def _count(self, results: list[ToolMessage], turn: int) -> AIMessage:
        if not results:
            return _call("list_issues", {"status": "open"}, turn)
        issues = _json(results[-1]).get("issues", [])
        ids = ", ".join(f"#{i['id']}" for i in issues)
        return AIMessage(f"{len(issues)} open issue{'' if len(issues) == 1 else 's'}: {ids}")


def _call(name: str, args: dict[str, Any], turn: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{turn}_{name}", "type": "tool_call"}])


def _json(message: ToolMessage) -> dict[str, Any]:
    """A tool result's JSON, whether the content is a string or MCP content blocks."""
    return json.loads(message.text)


def build_agent(tools: Sequence[BaseTool], *, model: BaseChatModel | None = None, wrap_tool_call: Any = None,
                awrap_tool_call: Any = None, checkpointer: Any = None) -> Any:
    """The agent graph: model -> tools -> model ... until the model answers without a tool call.

    ``wrap_tool_call``/``awrap_tool_call`` go to the ``ToolNode`` (that is how
    :func:`agentworld_mcp.integrations.langgraph.tool_call_wrapper` plugs in). A checkpointer keeps each
    thread's conversation across ``invoke`` calls (an in-memory one by default).
    """
    bound = (model or TriageModel()).bind_tools(tools)

    def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [bound.invoke(state["messages"])]}

    async def acall_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    from langchain_core.runnables import RunnableLambda

    graph = StateGraph(MessagesState)
    graph.add_node("agent", RunnableLambda(call_model, afunc=acall_model))
    graph.add_node("tools", ToolNode(tools, wrap_tool_call=wrap_tool_call, awrap_tool_call=awrap_tool_call))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer if checkpointer is not None else InMemorySaver())
