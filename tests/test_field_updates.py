"""A keyed action whose other arguments are fields of the record changes that record, and a list's
declared default filters by the states the catalog's own text lists.

``reprioritise_item(id, priority, reason)`` is no verb the model knows, but it names one record by
its id and sets a field the create tool takes: the new priority is stored and a later read shows it
(``reason`` is said of the change and is not stored). ``list_items(status="pending")`` with the
states written only in the description (``One of "pending" (default), "done", or "all"``): new items
start ``pending``, a call with no arguments shows them, and ``complete_item`` leaves one ``done``.
``notify_item(id, priority)`` sends something and changes nothing. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_STR = {"type": "string"}
_ID = {"type": "integer"}
_MAYBE = {"anyOf": [_STR, {"type": "null"}], "default": None}

PLANNER = {
    "name": "planner",
    "tools": [
        {"name": "add_item", "description": "Create a new item.\n\n    Args:\n        title: The title.\n"
                                            "        priority: Optional, one of \"low\", \"med\", \"high\".\n",
         "inputSchema": {"type": "object", "properties": {"title": _STR, "due": _MAYBE, "priority": _MAYBE},
                         "required": ["title"]}},
        {"name": "list_items", "description": "List items.\n\n    Args:\n"
                                              "        status: One of \"pending\" (default), \"done\", or \"all\".\n",
         "inputSchema": {"type": "object", "properties": {"status": {"type": "string", "default": "pending"}}}},
        {"name": "show_item", "description": "Show one item's current fields.",
         "inputSchema": {"type": "object", "properties": {"id": _ID}, "required": ["id"]}},
        {"name": "complete_item", "description": "Mark an item done.",
         "inputSchema": {"type": "object", "properties": {"id": _ID}, "required": ["id"]}},
        {"name": "reprioritise_item", "description": "Change an existing item's priority.",
         "inputSchema": {"type": "object", "properties": {"id": _ID, "priority": _STR, "reason": _MAYBE},
                         "required": ["id", "priority"]}},
        {"name": "schedule_item", "description": "Set or change an item's due date.",
         "inputSchema": {"type": "object", "properties": {"id": _ID, "due": _STR}, "required": ["id", "due"]}},
        {"name": "notify_item", "description": "Tell the item's owner about it.",
         "inputSchema": {"type": "object", "properties": {"id": _ID, "priority": _STR}, "required": ["id"]}},
    ],
}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _item(body: Any) -> Any:
    return body.get("item", body) if isinstance(body, dict) else body


def _items(body: Any) -> list[Any]:
    if isinstance(body, list):
        return body
    return next(v for v in body.values() if isinstance(v, list))


async def test_a_keyed_action_setting_a_field_of_the_record_is_stored_and_reads_back(tmp_path: Path) -> None:
    world = tmp_path / "planner.json"
    world.write_text(json.dumps(PLANNER), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = _item(_body(await session.call_tool("add_item", {"title": "Order chairs", "priority": "med"})))
        item_id = made["id"]

        changed = _item(_body(await session.call_tool(
            "reprioritise_item", {"id": item_id, "priority": "high", "reason": "the shop closes early"})))
        assert changed["priority"] == "high"
        await session.call_tool("schedule_item", {"id": item_id, "due": "2026-12-08"})

        read = _item(_body(await session.call_tool("show_item", {"id": item_id})))
        assert read["title"] == "Order chairs"
        assert read["priority"] == "high" and read["due"] == "2026-12-08"
        assert "reason" not in read


async def test_an_action_that_sends_something_leaves_the_record_as_it_was(tmp_path: Path) -> None:
    world = tmp_path / "planner.json"
    world.write_text(json.dumps(PLANNER), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = _item(_body(await session.call_tool("add_item", {"title": "Order chairs", "priority": "low"})))
        await session.call_tool("notify_item", {"id": made["id"], "priority": "high"})
        read = _item(_body(await session.call_tool("show_item", {"id": made["id"]})))
        assert read["priority"] == "low"


async def test_new_items_start_in_the_first_listed_state_and_the_declared_default_filters(tmp_path: Path) -> None:
    world = tmp_path / "planner.json"
    world.write_text(json.dumps(PLANNER), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        first = _item(_body(await session.call_tool("add_item", {"title": "Book the hall"})))
        second = _item(_body(await session.call_tool("add_item", {"title": "Write the briefing"})))
        assert first["status"] == "pending"

        pending = _items(_body(await session.call_tool("list_items", {})))
        assert [i["id"] for i in pending] == [first["id"], second["id"]]

        done = _item(_body(await session.call_tool("complete_item", {"id": first["id"]})))
        assert done["status"] == "done"
        pending = _items(_body(await session.call_tool("list_items", {})))
        assert [i["id"] for i in pending] == [second["id"]]
        finished = _items(_body(await session.call_tool("list_items", {"status": "done"})))
        assert [i["id"] for i in finished] == [first["id"]]
        everything = _items(_body(await session.call_tool("list_items", {"status": "all"})))
        assert {i["id"] for i in everything} == {first["id"], second["id"]}
