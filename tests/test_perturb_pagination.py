"""Pagination: pages concatenate to exactly the unpaginated list, in each tool's own convention.

The property tests run in-process (a Simulator, the same pipeline the server uses) so
hypothesis can try many list and page sizes; one test follows cursors through a real MCP
client.
"""

from __future__ import annotations

import pytest

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_mcp import Simulator, World
from agentworld_mcp.perturb import perturber_for

from .conftest import http_server, http_session, stdio_session

NONE = "none"  # per-call override: this call unperturbed


def _obj(props: dict, **kw: Any) -> dict:
    return {"type": "object", "properties": props, **kw}


S, I = {"type": "string"}, {"type": "integer"}  # noqa: E741  (S and I read as the schema types)
TOOLS = [
    {"name": "list_issues", "description": "List issues.",
     "inputSchema": _obj({"cursor": S, "per_page": I}, additionalProperties=False),
     "outputSchema": _obj({"issues": {"type": "array", "items": _obj({"id": I, "title": S})}, "total": I,
                           "next_cursor": {"type": ["string", "null"]}}, required=["issues"]),
     "annotations": {"readOnlyHint": True}},
    {"name": "list_repos", "description": "List repositories.",
     "inputSchema": _obj({"page": {"type": "integer", "minimum": 1}, "per_page": I}, additionalProperties=False),
     "outputSchema": _obj({"repos": {"type": "array", "items": _obj({"id": I, "title": S})},
                           "has_more": {"type": "boolean"}, "total_count": I}, required=["repos"]),
     "annotations": {"readOnlyHint": True}},
    {"name": "list_users", "description": "List users.",
     "inputSchema": _obj({"offset": I, "limit": I}, additionalProperties=False),
     "outputSchema": _obj({"users": {"type": "array", "items": _obj({"id": I, "title": S})}, "total": I},
                          required=["users", "total"]),
     "annotations": {"readOnlyHint": True}},
    {"name": "listDocuments", "description": "List documents.",
     "inputSchema": _obj({"pageToken": S, "pageSize": I}, additionalProperties=False),
     "outputSchema": _obj({"documents": {"type": "array", "items": _obj({"id": I, "title": S})},
                           "nextPageToken": S}, required=["documents"], additionalProperties=False),
     "annotations": {"readOnlyHint": True}},
    {"name": "list_notes", "description": "List notes.", "inputSchema": _obj({})},  # text tool, default convention
    {"name": "create_note", "description": "Create a note.", "inputSchema": _obj({"title": S}, required=["title"])},
    {"name": "delete_note", "description": "Delete a note.", "inputSchema": _obj({"id": I}, required=["id"])},
]
COLLECTION = {"list_issues": "issues", "list_repos": "repos", "list_users": "users", "listDocuments": "documents",
              "list_notes": "notes"}


def world(size: int) -> World:
    seed = {c: [{"id": i, "title": f"{c} {i}"} for i in range(1, size + 1)] for c in COLLECTION.values()}
    return World.from_tools(TOOLS, seed=seed)


def paginated(w: World, policy: Any) -> Simulator:
    """A simulator whose run policy is ``policy`` (what ``--perturb`` sets)."""
    return Simulator(w, perturber=perturber_for(w, policy))


def items_of(tool: str, result: Any) -> list | None:
    """The listed items; None when the tool answered without a list (nothing to paginate)."""
    if result.structured is not None:
        return result.structured[COLLECTION[tool]]
    try:
        return json.loads(result.content[0]["text"])
    except ValueError:
        return None


async def follow(sim: Simulator, tool: str, *, episode: str = "default", between: Any = None) -> tuple[list, int]:
    """Every item, page after page, the way the tool's conventions say; returns (items, pages)."""
    collected: list = []
    args: dict = {}
    pages = 0
    while True:
        result = await sim.call(tool, args, episode=episode)
        assert not result.is_error, result.text
        if result.structured is not None:  # the page still matches the tool's outputSchema
            assert sim.catalog[tool].output_problems(result.structured) == []
        page = items_of(tool, result)
        collected += page
        pages += 1
        if between is not None:
            await between(pages)
        body = result.structured or {}
        if tool == "list_issues":
            if not body["next_cursor"]:
                return collected, pages
            args = {"cursor": body["next_cursor"]}
        elif tool == "listDocuments":
            if "nextPageToken" not in body:
                return collected, pages
            args = {"pageToken": body["nextPageToken"]}
        elif tool == "list_repos":
            if not body["has_more"]:
                return collected, pages
            args = {"page": pages + 1}
        elif tool == "list_users":
            if len(collected) >= body["total"] or not page:
                return collected, pages
            args = {"offset": len(collected)}
        else:  # a text tool: the cursor is in a second text block
            if len(result.content) == 1:
                return collected, pages
            args = {"cursor": json.loads(result.content[1]["text"].split("cursor=", 1)[1].split(" ")[0])}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(0, 40), page_size=st.integers(1, 12), tool=st.sampled_from(sorted(COLLECTION)))
def test_pages_concatenate_to_exactly_the_unpaginated_list(size: int, page_size: int, tool: str) -> None:
    async def run() -> None:
        sim = paginated(world(size), {"kind": "paginate", "page_size": page_size})
        unpaginated = await sim.call(tool, {}, episode="reference", perturb=NONE)
        full = items_of(tool, unpaginated)
        if full is None:  # e.g. a text tool saying there is nothing: passed through untouched
            assert (await sim.call(tool, {})).to_dict() == unpaginated.to_dict()
            return
        collected, pages = await follow(sim, tool)
        assert collected == full
        assert pages == max(1, -(-size // page_size))

    asyncio.run(run())


async def test_the_list_is_fixed_when_the_first_page_is_served():
    """Creations and deletions between pages do not shift, repeat or drop items."""
    sim = paginated(world(7), {"kind": "paginate", "tools": "list_*", "page_size": 3})
    full = items_of("list_issues", await sim.call("list_issues", {}, perturb=NONE))

    async def meddle(page: int) -> None:
        await sim.call("create_note", {"title": f"new after page {page}"})
        await sim.call("delete_note", {"id": page})

    for tool in ("list_issues", "list_notes"):
        expected = items_of(tool, await sim.call(tool, {}, perturb=NONE))
        collected, pages = await follow(sim, tool, between=meddle if tool == "list_notes" else None)
        assert collected == expected and pages == 3
    assert len(full) == 7
    now = items_of("list_notes", await sim.call("list_notes", {}, perturb=NONE))
    assert now != expected  # the world did change meanwhile


async def test_a_cursor_can_be_followed_again_and_a_forged_one_is_refused():
    sim = paginated(world(5), "paginated")
    first = await sim.call("list_issues", {})
    cursor = first.structured["next_cursor"]
    again = [await sim.call("list_issues", {"cursor": cursor}) for _ in range(2)]
    assert again[0].structured == again[1].structured  # stable: a cursor names a position, not a state
    bad = await sim.call("list_issues", {"cursor": "bm90LWEtY3Vyc29y"})
    assert bad.is_error and bad.text.startswith("400 Bad Request: invalid or expired cursor 'bm90LWEtY3Vyc29y'")
    other_tool = await sim.call("listDocuments", {"pageToken": cursor})
    assert other_tool.is_error and "invalid or expired cursor" in other_tool.text
    turns = await sim.trajectory()
    assert [t.perturbations[0].get("error") for t in turns[-2:]] == ["invalid_cursor", "invalid_cursor"]


async def test_cursors_expire_when_their_listing_is_evicted():
    from agentworld_mcp.perturb import pagination

    sim = paginated(world(4), {"kind": "paginate", "page_size": 2})
    old = (await sim.call("list_issues", {})).structured["next_cursor"]
    for _ in range(pagination.MAX_SNAPSHOTS):
        await sim.call("list_issues", {})
    expired = await sim.call("list_issues", {"cursor": old})
    assert expired.is_error and "invalid or expired cursor" in expired.text


async def test_following_cursors_through_mcp(tracker_world):
    """The issue tracker under ``--perturb paginated``: next_cursor pages, over streamable HTTP."""
    with http_server(str(tracker_world), "--perturb", "paginated", "--seed", "3") as url:
        async with http_session(url) as session:
            for n in range(8):
                assert not (await session.call_tool("create_issue", {"title": f"Issue {n}"})).isError
            full = (await session.call_tool("list_issues", {}, meta={"agentworld/perturb": "none"})).structuredContent
            assert full["total"] == 11 and full.get("next_cursor") is None
            collected, cursor, pages = [], None, 0
            while True:
                result = await session.call_tool("list_issues", {"cursor": cursor} if cursor else {})
                assert result.structuredContent["total"] == 11
                collected += result.structuredContent["issues"]
                pages += 1
                cursor = result.structuredContent["next_cursor"]
                if cursor is None:
                    break
    assert collected == full["issues"] and pages == 4


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
async def test_cursors_survive_a_process_per_call_with_a_state_file(tracker_world, tmp_path):
    """stdio clients that start a server per call (langchain-mcp-adapters does) still page correctly."""
    state = str(tmp_path / "world.db")
    flags = (str(tracker_world), "--perturb", "paginated", "--state", state)
    for n in range(4):
        async with stdio_session(*flags) as session:
            assert not (await session.call_tool("create_issue", {"title": f"Issue {n}"})).isError
    collected, cursor = [], None
    while True:
        async with stdio_session(*flags) as session:  # a new server process for every page
            page = (await session.call_tool("list_issues", {"cursor": cursor} if cursor else {})).structuredContent
        collected += [issue["id"] for issue in page["issues"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert collected == list(range(1, 8))
