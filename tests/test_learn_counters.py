"""A learned id counter continues the world it is served with (issue 22): a server whose recording numbered its
new items 0, 1, 2 answers 0 first on a fresh world, and the id after the largest one on a world seeded with
items; the new item is stored under the id the answer shows, so reading it back finds it. Learned with the
``agentworld-mcp learn`` CLI, served by ``agentworld-mcp serve`` and driven by a real MCP client over stdio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "desk", "tools": [
    {"name": "create_item", "description": "Create a new item.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "priority": {"type": "integer"}},
                     "required": ["title"]}},
    {"name": "get_item", "description": "Get an item by its id.",
     "inputSchema": {"type": "object", "properties": {"item_id": {"type": "integer"}}, "required": ["item_id"]}},
]}


def line(episode: str, turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": episode, "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    """Two sessions of a server that numbers new items from 0, each item read back once."""
    lines = []
    for episode, titles in (("a", ["Fix the printer", "Order paper"]), ("b", ["Call the plumber", "Book a room",
                                                                              "Water plants"])):
        turn = 0
        for number, title in enumerate(titles):
            item = {"id": number, "title": title, "priority": 5, "status": "open"}
            lines.append(line(episode, turn := turn + 1, "create_item", {"title": title, "priority": 5}, item))
            lines.append(line(episode, turn := turn + 1, "get_item", {"item_id": number}, item))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> JSONDict:
    out = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.yaml", "--no-seed")
    data: JSONDict = yaml.safe_load(out.read_text(encoding="utf-8"))
    return data


async def created_then_read(world: Path, titles: list[str]) -> list[tuple[JSONDict, JSONDict]]:
    out = []
    async with stdio_session(str(world)) as session:
        for title in titles:
            made = json.loads((await session.call_tool("create_item", {"title": title, "priority": 1})).content[0].text)
            read = await session.call_tool("get_item", {"item_id": made["id"]})
            out.append((made, {} if read.isError else json.loads(read.content[0].text)))
    return out


async def test_a_learned_counter_numbers_new_items_as_the_recording_did_on_a_fresh_world(tmp_path: Path) -> None:
    world = tmp_path / "fresh.yaml"
    world.write_text(yaml.safe_dump(learned(tmp_path)), encoding="utf-8")
    pairs = await created_then_read(world, ["Renew the lease", "Sweep the yard"])
    assert [made["id"] for made, _ in pairs] == [0, 1]
    assert [read.get("title") for _, read in pairs] == ["Renew the lease", "Sweep the yard"]


async def test_a_learned_counter_continues_after_the_largest_id_the_seed_holds(tmp_path: Path) -> None:
    data = learned(tmp_path)
    data["seed"] = {"items": [{"id": 7, "title": "Seeded one", "priority": 3, "status": "open"},
                              {"id": 3, "title": "Seeded two", "priority": 1, "status": "open"}]}
    world = tmp_path / "seeded.yaml"
    world.write_text(yaml.safe_dump(data), encoding="utf-8")
    pairs = await created_then_read(world, ["Renew the lease", "Sweep the yard"])
    assert [made["id"] for made, _ in pairs] == [8, 9]  # not 0 and 1 beside the seeded items
    assert [read.get("title") for _, read in pairs] == ["Renew the lease", "Sweep the yard"]
