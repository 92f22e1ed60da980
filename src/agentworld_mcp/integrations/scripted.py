"""A scripted chat model: an agent test that needs no API key and no GPU.

::

    from agentworld_mcp.integrations.langgraph import ScriptedChatModel
    from langgraph.prebuilt import create_react_agent

    model = ScriptedChatModel([
        {"name": "list_issues", "args": {"status": "open"}},            # turn 1: one tool call
        [{"name": "get_issue", "args": {"issue_id": 1}},                 # turn 2: parallel calls
         {"name": "get_issue", "args": {"issue_id": 2}}],
        lambda messages: f"Done: {messages[-1].content[:40]}",          # turn 3: decided on what came back
    ])
    graph = create_react_agent(model, agentworld.tools)

Each time the agent asks the model, it answers with the next turn of the script: a tool call
(``{"name", "args"}``, optionally ``"id"``), a list of tool calls, final text, an
``AIMessage``, or a callable that gets the messages so far and returns one of those (to
use what a tool answered). ``bind_tools`` returns the model itself, so the test can check
``model.remaining`` after the run; a call to a tool the agent was not given, or a question
after the script ended, fails with a message naming the turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from ..errors import AgentWorldError

JSONDict = dict[str, Any]
Turn = str | JSONDict | list[JSONDict] | AIMessage | Callable[[list[BaseMessage]], Any]


class ScriptError(AgentWorldError):
    """The agent did not follow the script (asked once too often, or for a tool it was not given)."""


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers with the turns of a script, in order (see the module docstring)."""

    turns: list[Any]
    tool_names: tuple[str, ...] | None = None  # set by bind_tools: the tools the agent was given
    _position: int = PrivateAttr(default=0)
    _calls: int = PrivateAttr(default=0)

    def __init__(self, turns: Sequence[Turn], **kwargs: Any) -> None:
        super().__init__(turns=list(turns), **kwargs)  # type: ignore[call-arg]  # pydantic fields, as keywords

    @property
    def _llm_type(self) -> str:
        return "agentworld-scripted"

    @property
    def remaining(self) -> int:
        """Turns of the script not played yet (0 once the agent has gone through all of it)."""
        return len(self.turns) - self._position

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Remember the tools' names (calls to others fail); the same model, so its position is shared."""
        self.tool_names = tuple(_tool_name(t) for t in tools)
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        if self._position >= len(self.turns):
            raise ScriptError(f"the agent asked the scripted model for turn {self._position + 1}, but the script has "
                              f"{len(self.turns)} turn(s); add a final text turn (a string) to end the run")
        number, turn = self._position + 1, self.turns[self._position]
        self._position += 1
        if callable(turn) and not isinstance(turn, AIMessage):
            turn = turn(list(messages))
        return self._message(turn, number)

    def _message(self, turn: Any, number: int) -> AIMessage:
        if isinstance(turn, AIMessage):
            return turn
        if isinstance(turn, str):
            return AIMessage(content=turn)
        calls = [turn] if isinstance(turn, dict) else turn
        if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in calls):
            raise ScriptError(f"turn {number} of the script is {turn!r}; give text, a tool call "
                              '{"name": ..., "args": {...}}, a list of tool calls, an AIMessage or a callable')
        tool_calls = []
        for call in calls:
            if self.tool_names is not None and call["name"] not in self.tool_names:
                raise ScriptError(f"turn {number} of the script calls {call['name']!r}, which the agent was not "
                                  f"given; its tools: {', '.join(self.tool_names)}")
            self._calls += 1
            tool_calls.append({"name": call["name"], "args": dict(call.get("args", call.get("arguments")) or {}),
                               "id": str(call.get("id") or f"call_{self._calls}"), "type": "tool_call"})
        return AIMessage(content="", tool_calls=tool_calls)


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):  # an OpenAI-style function dict or an MCP tool definition
        return str(tool.get("name") or tool.get("function", {}).get("name"))
    return str(getattr(tool, "name", None) or getattr(tool, "__name__", tool))


__all__ = ["ScriptError", "ScriptedChatModel"]
