"""A populated fictional world is a search environment: through a real MCP client, and through LangGraph.

``agentworld-mcp serve mars-colony`` (the bundled world, its seed written by ``populate --seed
2030``) answers its search and list tools from that seed: a search finds entities by words of
their fields (every word, in any field, any case), the best match comes first, filters narrow,
the tool's own ``limit``/``cursor`` walk every result once, and every episode starts from the
same fiction. Expectations are computed from the world file's seed, never written in.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_mcp_adapters.tools import load_mcp_tools
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from agentworld_mcp import load_world
from agentworld_mcp.integrations.langgraph import ScriptedChatModel
from agentworld_mcp.world.world import bundled_world

from .conftest import WORLDS, stdio_session

WORLD = WORLDS / "mars-colony.yaml"
SEED = load_world(WORLD).seed
JSONDict = dict[str, Any]


def page_of(result: Any) -> tuple[list[JSONDict], str | None]:
    """The entities of a list/search result and its next cursor, whichever way the tool says it (a
    ``next_cursor`` field in structured results, a line under the JSON for tools without outputSchema,
    or a second text block when the paginate perturbation cuts the page)."""
    if result.structuredContent is not None:
        body = result.structuredContent
        return next(v for v in body.values() if isinstance(v, list)), body.get("next_cursor")
    texts = [block.text for block in result.content]  # the JSON page, then (or in a second block) the hint
    found = re.search(r'again with cursor="([^"]+)"', "\n".join(texts))
    return json.loads(texts[0].partition("\n\n")[0]), found.group(1) if found else None


async def call(session: Any, tool: str, **arguments: Any) -> tuple[list[JSONDict], str | None]:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    return page_of(result)


async def walk(session: Any, tool: str, **arguments: Any) -> list[JSONDict]:
    """Every page of a listing, following the cursors the tool hands out."""
    items, cursor = await call(session, tool, **arguments)
    while cursor:
        more, cursor = await call(session, tool, **arguments, cursor=cursor)
        items += more
    return items


def holds_every_word(entity: JSONDict, query: str) -> bool:
    text = " ".join(str(v) for v in entity.values() if isinstance(v, str)).casefold()
    return all(word in text for word in re.findall(r"\w+", query.casefold()))


def ids(items: list[JSONDict]) -> list[str]:
    return [item["id"] for item in items]


def test_the_bundled_world_is_the_populated_fiction() -> None:
    assert bundled_world("mars-colony") == WORLD
    assert {name: len(entities) for name, entities in SEED.items()} == dict.fromkeys(
        ("habitats", "members", "shipments", "incidents"), 12)


async def test_a_search_finds_entities_by_words_of_their_fields() -> None:
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        member = SEED["members"][3]
        last = member["full_name"].split()[-1]
        query = f"{last.upper()} {member['role']}"  # a surname and a role: two fields, any case, any order
        found = await walk(colony, "search_crew_members", query=query, limit=50)
        assert member["id"] in ids(found)
        assert sorted(ids(found)) == sorted(m["id"] for m in SEED["members"] if holds_every_word(m, query))
        # punctuation and word order do not matter; a word that is nowhere finds nothing
        again = await walk(colony, "search_crew_members", query=f"{member['role']}, {last.lower()}!", limit=50)
        assert sorted(ids(again)) == sorted(ids(found))
        assert await walk(colony, "search_crew_members", query=f"{last} xylophone") == []


async def test_the_best_match_comes_first() -> None:
    """An incident's own title, searched for, puts that incident first, ahead of those that share its words."""
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        for incident in SEED["incidents"][:4]:
            found = await walk(colony, "search_incidents", query=incident["title"].lower(), limit=50)
            assert ids(found)[0] == incident["id"], (incident["title"], ids(found))
        # a word in the name weighs more than the same word in a description
        habitat = SEED["habitats"][1]
        word = habitat["name"].split()[0]
        found = await walk(colony, "search_incidents", query=word, limit=50)
        in_title = [i["id"] for i in SEED["incidents"] if word.casefold() in i["title"].casefold()]
        assert in_title and ids(found)[: len(in_title)] == in_title


async def test_filters_narrow_on_enums_references_numbers_and_days() -> None:
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        everything = await walk(colony, "search_incidents", query="incident", limit=50)
        high = await walk(colony, "search_incidents", query="incident", severity="high", limit=50)
        assert set(ids(high)) < set(ids(everything))
        assert sorted(ids(high)) == sorted(i["id"] for i in SEED["incidents"] if i["severity"] == "high")

        habitat = SEED["members"][0]["habitat_id"]
        quartered = await walk(colony, "list_crew_members", habitat_id=habitat)
        assert ids(quartered) == [m["id"] for m in SEED["members"] if m["habitat_id"] == habitat]

        capacity = SEED["habitats"][0]["capacity"]
        sized = await walk(colony, "list_habitats", capacity=capacity)
        assert ids(sized) == [h["id"] for h in SEED["habitats"] if h["capacity"] == capacity]

        day = SEED["incidents"][0]["occurred_at"][:10]  # a day holds every moment of it
        that_day = await walk(colony, "list_incidents", occurred_at=day)
        assert ids(that_day) == [i["id"] for i in SEED["incidents"] if i["occurred_at"].startswith(day)]


@pytest.mark.parametrize("tool,arguments", [
    ("search_incidents", {"query": "habitat"}),  # no outputSchema: the cursor is named under the JSON
    ("list_incidents", {}),  # an outputSchema: next_cursor and total in structuredContent
    ("list_crew_members", {}),
])
async def test_pagination_walks_every_result_once_in_order(tool: str, arguments: JSONDict) -> None:
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        whole, cursor = await call(colony, tool, **arguments, limit=50)
        assert cursor is None and len(whole) > 5
        pages = []
        items, cursor = await call(colony, tool, **arguments, limit=5)
        pages.append(items)
        while cursor:
            items, cursor = await call(colony, tool, **arguments, limit=5, cursor=cursor)
            pages.append(items)
        assert [len(p) for p in pages[:-1]] == [5] * (len(pages) - 1)
        walked = [i for page in pages for i in page]
        assert ids(walked) == ids(whole) and len(set(ids(walked))) == len(walked)


async def test_the_paginate_perturbation_pages_the_whole_listing() -> None:
    """Under ``--perturb paginated`` the perturbation stage cuts the pages (snapshot cursors) from the
    whole ranked listing; the world model does not cut its own page first, so nothing is lost."""
    async with stdio_session("mars-colony", "--perturb", "paginated") as colony:
        walked = await walk(colony, "search_incidents", query="habitat", limit=4)
    async with stdio_session("mars-colony") as colony:
        whole, _ = await call(colony, "search_incidents", query="habitat", limit=50)
    assert ids(walked) == ids(whole) and len(whole) > 4


async def test_a_structured_listing_says_how_many_there_are() -> None:
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        result = await colony.call_tool("list_incidents", {"limit": 5})
        body = result.structuredContent
        assert body is not None and body["total"] == len(SEED["incidents"])
        assert len(body["incidents"]) == 5 and body["next_cursor"]


async def test_every_episode_starts_from_the_same_fiction() -> None:
    """What one session creates, the next server (a fresh episode) never sees; the seed is the same."""
    async with stdio_session("mars-colony") as first:
        before = await walk(first, "search_incidents", query="habitat", limit=50)
        created = await first.call_tool("create_incident", {
            "title": "Regolith breach in the habitat airlock", "severity": "critical",
            "habitat_id": SEED["habitats"][0]["id"]})
        assert not created.isError
        found = await walk(first, "search_incidents", query="regolith breach", limit=50)
        assert len(found) == 1 and found[0]["severity"] == "critical"
    async with stdio_session("mars-colony") as second:
        assert await walk(second, "search_incidents", query="regolith breach", limit=50) == []
        assert await walk(second, "search_incidents", query="habitat", limit=50) == before


async def test_a_langgraph_agent_searches_the_fiction_over_mcp() -> None:
    """A LangGraph tool loop, tools from langchain-mcp-adapters over the stdio session, looks a crew
    member up by words of their specialty and answers with what the search returned."""
    async with stdio_session("mars-colony") as colony:  # served by its bundled name
        member = SEED["members"][5]
        query = member["specialty"]
        model = ScriptedChatModel([
            {"name": "search_crew_members", "args": {"query": query, "limit": 3}},
            lambda messages: json.loads(messages[-1].text.partition("\n\n")[0])[0]["full_name"],
        ])
        tools = await load_mcp_tools(colony)
        bound = model.bind_tools(tools)
        graph = StateGraph(MessagesState)
        graph.add_node("agent", lambda state: {"messages": [bound.invoke(state["messages"])]})
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition)
        graph.add_edge("tools", "agent")
        out = await graph.compile().ainvoke({"messages": [HumanMessage(f"Who specialises in {query}?")]},
                                            {"configurable": {"thread_id": uuid.uuid4().hex}})
        searched = [m for m in out["messages"] if isinstance(m, ToolMessage)]
        assert [m.name for m in searched] == ["search_crew_members"]
        best = [m for m in SEED["members"] if m["specialty"] == query]
        assert out["messages"][-1].text in {m["full_name"] for m in best}
        assert model.remaining == 0


async def test_a_cursor_the_tool_never_gave_is_refused() -> None:
    """As real APIs do: a made-up cursor is a tool error that says what to pass, never a silent first page."""
    async with stdio_session("mars-colony") as colony:
        result = await colony.call_tool("list_crew_members", {"limit": 3, "cursor": "not-a-cursor"})
    assert result.isError
    assert "Invalid cursor 'not-a-cursor'" in result.content[0].text and "previous page" in result.content[0].text


async def test_the_id_of_the_last_item_seen_starts_the_next_page() -> None:
    """Stripe-style ``starting_after``: the key of the last item seen works as a cursor too."""
    async with stdio_session("mars-colony") as colony:
        whole, _ = await call(colony, "list_crew_members", limit=50)
        after, _ = await call(colony, "list_crew_members", limit=3, cursor=ids(whole)[2])
    assert ids(after) == ids(whole)[3:6]
