"""A learned world creates the children a splitting call lists, and shares a missing-key refusal (issue 22).

A to-do server records one session: ``add_item`` makes items with server-made ids; ``split_item(id, into=[...])``
answers with the parent and one new item per title, linked by ``parent_id``; ``show_item`` shows an item and
its ``children`` (always empty in the recording); ``update_item`` changes an item's rank (a field update, no state
move); ``show_item`` of an unknown id is refused as ``no item with id N``. Learned with the ``agentworld-mcp
learn`` CLI (no seed), served by ``agentworld-mcp serve`` and driven by a real MCP client over stdio with titles
the recording never saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
CATALOG: JSONDict = {"name": "todo", "tools": [
    {"name": "add_item", "description": "Create an item.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "show_item", "description": "Show one item and its children.", "inputSchema": KEY},
    {"name": "list_items", "description": "List every item.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "split_item", "description": "Split an item into children with the titles given.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"},
                                                      "into": {"type": "array", "items": {"type": "string"}}},
                     "required": ["id", "into"]}},
    {"name": "update_item", "description": "Change an item's rank.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}, "rank": {"type": "string"}},
                     "required": ["id", "rank"]}},
    {"name": "finish_item", "description": "Mark an item finished.", "inputSchema": KEY},
]}
WHEN = "2026-11-24T10:00:00+00:00"


def item(number: int, title: str, *, state: str = "open", rank: str | None = None, parent: int | None = None) -> JSONDict:
    return {"id": number, "title": title, "state": state, "rank": rank, "created_at": WHEN, "parent_id": parent}


def missing(number: int) -> JSONDict:
    return {"ok": False, "error": "not_found", "message": f"no item with id {number}"}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    titles = ["Book the hall", "Order chairs", "Write the briefing"]
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("add_item", {"title": t}, {"ok": True, "item": item(n, t)}) for n, t in enumerate(titles, 1)]
    calls += [
        ("show_item", {"id": 1}, {"ok": True, "item": item(1, titles[0]), "children": []}),
        ("update_item", {"id": 2, "rank": "high"}, {"ok": True, "item": item(2, titles[1], rank="high")}),
        ("show_item", {"id": 2}, {"ok": True, "item": item(2, titles[1], rank="high"), "children": []}),
        ("split_item", {"id": 3, "into": ["Draft the shifts", "Collect contacts"]},
         {"ok": True, "parent": item(3, titles[2]),
          "children": [item(4, "Draft the shifts", parent=3), item(5, "Collect contacts", parent=3)]}),
        ("finish_item", {"id": 1}, {"ok": True, "item": item(1, titles[0], state="done")}),
        ("list_items", {}, {"ok": True, "items": [item(1, titles[0], state="done"), item(2, titles[1], rank="high"),
                                                  item(3, titles[2]), item(4, "Draft the shifts", parent=3),
                                                  item(5, "Collect contacts", parent=3)]}),
        ("show_item", {"id": 42}, missing(42)),
        ("finish_item", {"id": 99}, missing(99)),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def test_splitting_an_item_creates_one_child_per_title_that_reads_and_lists_show(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        first = json_answer(await session.call_tool("add_item", {"title": "Plan the garden day"}))["item"]["id"]
        other = json_answer(await session.call_tool("add_item", {"title": "Print tickets"}))["item"]["id"]
        split = json_answer(await session.call_tool(
            "split_item", {"id": first, "into": ["Ask the nursery", "Rent wheelbarrows", "Recruit helpers"]}))
        shown = json_answer(await session.call_tool("show_item", {"id": first}))
        alone = json_answer(await session.call_tool("show_item", {"id": other}))
        child = split["children"][1]["id"]
        finished = json_answer(await session.call_tool("finish_item", {"id": child}))
        listed = json_answer(await session.call_tool("list_items", {}))
    assert [c["title"] for c in split["children"]] == ["Ask the nursery", "Rent wheelbarrows", "Recruit helpers"]
    assert {c["parent_id"] for c in split["children"]} == {first}
    assert {c["state"] for c in split["children"]} == {"open"}
    assert len({c["id"] for c in split["children"]} | {first, other}) == 5  # fresh ids, after the episode's
    assert split["parent"]["title"] == "Plan the garden day"
    assert [c["title"] for c in shown["children"]] == ["Ask the nursery", "Rent wheelbarrows", "Recruit helpers"]
    assert alone["children"] == []
    assert (finished["item"]["title"], finished["item"]["parent_id"]) == ("Rent wheelbarrows", first)
    assert "Recruit helpers" in [i["title"] for i in listed["items"]]


async def test_a_missing_item_is_refused_by_every_tool_that_names_it_in_the_recorded_wording(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        await session.call_tool("add_item", {"title": "Plan the garden day"})
        split = json_answer(await session.call_tool("split_item", {"id": 50, "into": ["Anything"]}))
        ranked = json_answer(await session.call_tool("update_item", {"id": 7, "rank": "low"}))
        listed = json_answer(await session.call_tool("list_items", {}))
    assert split == missing(50)
    assert ranked == missing(7)
    assert [i["title"] for i in listed["items"]] == ["Plan the garden day"]  # the refused split made nothing


async def test_changing_a_field_beside_the_state_leaves_the_state_as_it_was(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("add_item", {"title": "Plan the garden day"}))["item"]["id"]
        ranked = json_answer(await session.call_tool("update_item", {"id": made, "rank": "low"}))
        shown = json_answer(await session.call_tool("show_item", {"id": made}))
    assert (ranked["item"]["state"], ranked["item"]["rank"]) == ("open", "low")
    assert (shown["item"]["state"], shown["item"]["rank"]) == ("open", "low")
