"""A change named after a field (``set_status(item_id, status)``) changes the entity its id argument names.

Board servers name such tools after the field they set, not the item: ``set_status``, ``advance_status``,
``set_priority``. The item is named only by the id argument. Through a real MCP client over stdio, the
status set reads back and filters the listing.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import stdio_session

S = {"type": "string"}
INT = {"type": "integer"}


def _tool(name: str, props: dict, required: list[str], description: str) -> dict:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": required}}


BOARD = {
    "name": "board",
    "tools": [
        _tool("new_item", {"title": S, "priority": INT}, ["title"], "Create a new item on the board."),
        _tool("get_item", {"item_id": INT}, ["item_id"], "Get full details of a specific item."),
        _tool("list_items", {"status": S}, [], "List items with an optional status filter."),
        _tool("set_status", {"item_id": INT, "status": S}, ["item_id", "status"], "Set an item's status."),
    ],
}


async def test_a_status_set_by_a_tool_named_after_the_field_reads_back_and_filters(tmp_path: Path) -> None:
    world = tmp_path / "board.json"
    world.write_text(json.dumps(BOARD), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        first = json.loads((await session.call_tool("new_item", {"title": "Fix login"})).content[0].text)
        second = json.loads((await session.call_tool("new_item", {"title": "Export to CSV"})).content[0].text)
        key, other = (next(v for k, v in item.items() if k.endswith("id")) for item in (first, second))
        await session.call_tool("set_status", {"item_id": other, "status": "todo"})
        changed = await session.call_tool("set_status", {"item_id": key, "status": "in_progress"})
        assert not changed.isError
        read = json.loads((await session.call_tool("get_item", {"item_id": key})).content[0].text)
        assert read["status"] == "in_progress"
        listed = json.loads((await session.call_tool("list_items", {"status": "in_progress"})).content[0].text)
        assert [item["title"] for item in listed] == ["Fix login"]
