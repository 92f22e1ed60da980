"""A research agent for the fictional Mars colony: it answers questions only the colony's records can.

Nothing about Ares Station exists outside ``examples/worlds/mars-colony.yaml``, so the agent
cannot answer from memory: it has to look things up with the colony's MCP tools. It
understands the three kinds of question ``agentworld-mcp populate --facts`` writes:

* ``How many incidents have severity high?`` - lists the collection, page by page (the
  tool's own ``limit``/``cursor``), passing the field as a filter when the tool takes it,
  and counts;
* ``What is the status of incident inc_4?`` - gets the entity and reads the field;
* ``What is the name of the habitat of the member who reported incident inc_5?``
  - gets the incident, follows its ``reported_by`` to the crew member, then the member's
  ``habitat_id`` to the habitat, and reads its name.

The chat model is scripted (:class:`ColonyResearcher`): it sees only the conversation, picks
tools by name from those bound to it and reads what they answer, as a real model would. Swap
in ``ChatOpenAI(...)`` (with the same tools) and the tests, graded by the world's facts, stay the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool

PAGE_SIZE = 5  # small pages, so answering a count means following cursors
_COUNT = re.compile(r"how many ([\w ]+?) have ([\w ]+?) (\S+)\?$", re.I)
_WHAT = re.compile(r"what is the ([\w ]+?) of (.+)\?$", re.I)
_HOP = re.compile(r"the (\w+) (?:of|(?:who|that) is the ([\w ]+?) of|(?:who|that) (\w+)) ", re.I)
_START = re.compile(r"(\w+) (\S+)$")
_CURSOR_HINT = re.compile(r'again with (\w+)="([^"]+)"')


@dataclass(frozen=True)
class Count:
    collection: str
    field: str
    value: str


@dataclass(frozen=True)
class Chain:
    """Get ``start``'s entity ``key``, follow ``hops`` (noun, link field) outward, read ``field``."""

    field: str
    start: str
    key: str
    hops: tuple[tuple[str, str], ...]


def understand(question: str) -> Count | Chain | None:
    """The question taken apart; None when the agent cannot answer that kind of question."""
    question = question.strip()
    if match := _COUNT.match(question):
        return Count(match.group(1), _name(match.group(2)), match.group(3))
    if not (match := _WHAT.match(question)):
        return None
    rest, hops = match.group(2), []
    while hop := _HOP.match(rest):
        if hop.group(3):  # "the member who reported": the incident's ``reported_by``
            hops.append((hop.group(1), f"{hop.group(3).lower()}_by"))
        else:
            hops.append((hop.group(1), _name(hop.group(2)) if hop.group(2) else f"{hop.group(1)}_id"))
        rest = rest[hop.end():]
    if not (start := _START.match(rest)):
        return None
    return Chain(_name(match.group(1)), start.group(1), start.group(2), tuple(reversed(hops)))


class ColonyResearcher(BaseChatModel):
    """A chat model whose 'reasoning' is a script over the conversation so far (see the module docstring)."""

    tool_args: dict[str, tuple[str, ...]] = {}

    @property
    def _llm_type(self) -> str:
        return "scripted-colony-researcher"

    def bind_tools(self, tools: Sequence[BaseTool | Any], **kwargs: Any) -> ColonyResearcher:
        found = {}
        for tool in tools:
            schema = tool.args if isinstance(tool, BaseTool) else tool.get("inputSchema", {}).get("properties", {})
            found[tool.name if isinstance(tool, BaseTool) else tool["name"]] = tuple(schema)
        return self.model_copy(update={"tool_args": found})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._decide(messages))])

    def _decide(self, messages: list[BaseMessage]) -> AIMessage:
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        results = [m for m in messages[last_human + 1:] if isinstance(m, ToolMessage)]
        if results and results[-1].status == "error":
            return AIMessage(f"Could not answer: {results[-1].text}")
        plan = understand(messages[last_human].text)
        turn = len(messages)
        if isinstance(plan, Count):
            return self._count(plan, results, turn)
        if isinstance(plan, Chain):
            return self._chain(plan, results, turn)
        return AIMessage("I answer 'How many ... have ...?' and 'What is the ... of ...?' questions about the colony.")

    def _count(self, plan: Count, results: list[ToolMessage], turn: int) -> AIMessage:
        tool = self._tool("list", plan.collection)
        args: dict[str, Any] = {"limit": PAGE_SIZE} if "limit" in self.tool_args[tool] else {}
        if plan.field in self.tool_args[tool]:
            args[plan.field] = plan.value  # let the server filter; still checked below
        cursor = _page(results[-1])[1] if results else None
        if not results or cursor:
            return _call(tool, {**args, **({cursor[0]: cursor[1]} if cursor else {})}, turn)
        items = [item for message in results for item in _page(message)[0]]
        if items and plan.field not in items[0]:  # the listing shows less than the entity: read each one
            return AIMessage(f"The listing of {plan.collection} does not show {plan.field}.")
        return AIMessage(str(sum(1 for item in items if str(item.get(plan.field)).casefold() == plan.value.casefold())))

    def _chain(self, plan: Chain, results: list[ToolMessage], turn: int) -> AIMessage:
        nouns = [plan.start, *(noun for noun, _ in plan.hops)]
        if len(results) < len(nouns):
            key = plan.key if not results else _entity(results[-1]).get(plan.hops[len(results) - 1][1])
            if key is None:
                return AIMessage(f"The {nouns[len(results) - 1]} names no {plan.hops[len(results) - 1][0]}.")
            tool = self._tool("get", nouns[len(results)])
            id_arg = next(a for a in self.tool_args[tool] if a.endswith("_id"))
            return _call(tool, {id_arg: key}, turn)
        return AIMessage(str(_entity(results[-1]).get(plan.field)))

    def _tool(self, verb: str, noun: str) -> str:
        stem = noun.removesuffix("s")
        found = next((n for n in self.tool_args if n.startswith(f"{verb}_") and stem in n), None)
        if found is None:
            raise ValueError(f"no {verb} tool for {noun}; the agent was given {sorted(self.tool_args)}")
        return found


def _name(words: str) -> str:
    return "_".join(words.lower().split())


def _call(name: str, args: dict[str, Any], turn: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{turn}_{name}", "type": "tool_call"}])


def _entity(message: ToolMessage) -> dict[str, Any]:
    body = json.loads(message.text)
    return body if isinstance(body, dict) else {}


def _page(message: ToolMessage) -> tuple[list[dict[str, Any]], tuple[str, str] | None]:
    """A listing's items and the (argument, cursor) of its next page, in either way a server says it:
    a ``next_cursor`` field, or a line under the JSON naming the argument to call again with."""
    text = message.text
    body_text, _, hint = text.partition("\n\n")
    body = json.loads(body_text)
    if isinstance(body, list):
        found = _CURSOR_HINT.search(hint)
        return body, (found.group(1), found.group(2)) if found else None
    items = next((v for v in body.values() if isinstance(v, list)), [])
    cursor = body.get("next_cursor")
    return items, ("cursor", cursor) if cursor else None
