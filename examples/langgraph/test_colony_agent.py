"""A LangGraph agent answers questions whose answers exist only in a fiction, graded by the world's facts.

``examples/worlds/mars-colony.yaml`` is a Mars colony invented by ``agentworld-mcp populate``
(its seed state) with ``mars-colony.facts.jsonl`` beside it: questions and answers that hold
only in that fiction. The research agent (``colony_agent.py``) must look the answers up with
the colony's tools; each test grades its reply with a fact, the way an RL reward would.

Two ways in: the ``agentworld`` pytest fixture (tools in process, facts from the fixture) and
``agentworld-mcp serve mars-colony`` over stdio through langchain-mcp-adapters.
"""

from __future__ import annotations

import sys
import uuid
from typing import Any

import pytest
from colony_agent import ColonyResearcher
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from triage_agent import build_agent

from agentworld_mcp.fiction.facts import facts_path, read_facts
from agentworld_mcp.world.world import bundled_world

pytestmark = pytest.mark.agentworld(world="../worlds/mars-colony.yaml")

SERVE = [sys.executable, "-m", "agentworld_mcp", "serve", "mars-colony"]  # a bundled world, by name


def grade(reply: str, fact: dict[str, Any]) -> bool:
    """The reward: the agent's reply is the fact's answer (case and surrounding space aside)."""
    return reply.strip().casefold() == str(fact["answer"]).strip().casefold()


def research(graph: Any, question: str) -> tuple[str, list[ToolMessage]]:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    out = graph.invoke({"messages": [HumanMessage(question)]}, config)
    return out["messages"][-1].text, [m for m in out["messages"] if isinstance(m, ToolMessage)]


def test_the_agent_answers_every_question_of_the_fiction(agentworld) -> None:
    """Counts, lookups and joins across collections: every fact the world's facts file holds."""
    assert {f["kind"] for f in agentworld.facts} == {"count", "lookup", "join"}
    graph = build_agent(agentworld.tools, model=ColonyResearcher())
    wrong = []
    for fact in agentworld.facts:
        reply, _ = research(graph, fact["question"])
        if not grade(reply, fact):
            wrong.append((fact["question"], fact["answer"], reply))
    assert wrong == []


def test_a_count_the_server_cannot_filter_follows_every_page(agentworld) -> None:
    """``list_shipments`` has no ``cargo_type`` filter: the agent reads all twelve shipments in pages of
    five, following the cursor each page names, and counts them itself."""
    fact = next(f for f in agentworld.facts if f["question"].startswith("How many shipments have cargo type"))
    graph = build_agent(agentworld.tools, model=ColonyResearcher())
    reply, calls = research(graph, fact["question"])
    assert grade(reply, fact)
    assert [m.name for m in calls] == ["list_shipments"] * 3
    agentworld.assert_called_with("list_shipments", limit=5)
    agentworld.assert_not_called("create_shipment")


def test_a_two_hop_join_reads_three_collections(agentworld) -> None:
    fact = next(f for f in agentworld.facts if f["kind"] == "join" and len(f["evidence"]) == 3)
    graph = build_agent(agentworld.tools, model=ColonyResearcher())
    reply, calls = research(graph, fact["question"])
    assert grade(reply, fact), (fact, reply)
    # the agent read exactly the entities the fact's evidence names, in order
    read = [m.name for m in calls]
    assert read == ["get_incident", "get_crew_member", "get_habitat"]
    assert [e.split("/")[1] for e in fact["evidence"]][-1] in calls[-1].text


async def test_the_same_agent_over_mcp_stdio_answers_from_the_bundled_world() -> None:
    """``agentworld-mcp serve mars-colony`` in a subprocess; the facts come from beside the bundled file."""
    facts = read_facts(facts_path(bundled_world("mars-colony")))  # type: ignore[arg-type]  # it is bundled
    asked = [next(f for f in facts if f["kind"] == kind) for kind in ("count", "lookup", "join")]
    client = MultiServerMCPClient({"colony": {"transport": "stdio", "command": SERVE[0], "args": SERVE[1:]}})
    async with client.session("colony") as session:
        graph = build_agent(await load_mcp_tools(session), model=ColonyResearcher())
        for fact in asked:
            out = await graph.ainvoke({"messages": [HumanMessage(fact["question"])]},
                                      {"configurable": {"thread_id": uuid.uuid4().hex}})
            assert grade(out["messages"][-1].text, fact), (fact, out["messages"][-1].text)
