"""A calendar catalog's actions answered from what its descriptions say.

``resolve_when(text)`` shows how a time text is read: in the one zone the catalog's tools name,
parsed rather than invented, and text that is no time is refused. ``mark_done(item_id)`` marks the
agenda item its key names (the collection the other keyed tools address), not a new "dones"
collection. A count a description names (``slots_remaining``) is a number. Through a real MCP
client over stdio, on a small catalog written here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

_STR = {"type": "string"}
_ZONED = {"type": "string", "description": "ISO 8601. A bare local time is interpreted as wall time in "
                                           "the configured zone (`America/New_York`)."}


AGENDA = {
    "name": "agenda",
    "tools": [
        _tool("add_item", "Add an agenda item.", {"title": _STR, "begins": _ZONED}, ["title", "begins"]),
        _tool("get_item", "Get an agenda item by its ref.", {"item_id": _STR}, ["item_id"]),
        _tool("update_item", "Edit an agenda item.", {"item_id": _STR, "title": _STR}, ["item_id"]),
        _tool("mark_done", "Mark an agenda item done.", {"item_id": _STR}, ["item_id"]),
        _tool("resolve_when", "Show how a time text will be read, without writing anything.",
              {"text": _STR}, ["text"]),
        _tool("skip_slot", "Skip one slot of a repeating item. The response includes `slots_remaining` "
                           "(slots left) and `item_id`.", {"item_id": _STR, "slot": _STR}, ["item_id", "slot"]),
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


async def test_a_time_text_is_read_in_the_zone_the_catalog_names_and_nonsense_is_refused(tmp_path: Path) -> None:
    world = tmp_path / "agenda.json"
    world.write_text(json.dumps(AGENDA), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        instant = await session.call_tool("resolve_when", {"text": "2026-07-04T16:00:00+00:00"})
        assert not instant.isError
        assert _body(instant) == {"input": "2026-07-04T16:00:00+00:00", "resolved": "2026-07-04T12:00:00-04:00"}

        wall = _body(await session.call_tool("resolve_when", {"text": "2026-01-15 09:30"}))
        assert wall["resolved"] == "2026-01-15T09:30:00-05:00"  # winter: the zone's own offset

        nonsense = await session.call_tool("resolve_when", {"text": "next blue moon"})
        assert nonsense.isError


async def test_marking_an_item_done_sets_a_flag_on_that_item(tmp_path: Path) -> None:
    world = tmp_path / "agenda.json"
    world.write_text(json.dumps(AGENDA), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _body(await session.call_tool("add_item", {"title": "Dentist", "begins": "2026-03-02T10:00"}))
        item_id = str(created.get("item_id") or created.get("id"))
        marked = await session.call_tool("mark_done", {"item_id": item_id})
        assert not marked.isError
        read = _body(await session.call_tool("get_item", {"item_id": item_id}))
        assert read["title"] == "Dentist" and read["done"] is True


async def test_a_count_the_description_names_is_a_number(tmp_path: Path) -> None:
    world = tmp_path / "agenda.json"
    world.write_text(json.dumps(AGENDA), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        skipped = await session.call_tool("skip_slot", {"item_id": "r1", "slot": "2026-03-09T10:00"})
        if not skipped.isError:
            body = _body(skipped)
            assert isinstance(body["slots_remaining"], int) and not isinstance(body["slots_remaining"], bool)
