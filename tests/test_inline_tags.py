"""Tags a journal's records carry (``#hashtags`` in their text, a ``tags`` argument) are counted from
the records, never invented; tools whose descriptions say what they return answer data, not "done"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_STR = {"type": "string"}
_INT = {"type": "integer"}

LOGBOOK = {
    "name": "logbook",
    "tools": [
        {"name": "add_note", "description": "Add a note. Text may include #tags inline.",
         "inputSchema": {"type": "object", "properties": {"text": _STR, "tags": {"type": "array", "items": _STR}},
                         "required": ["text"]}},
        {"name": "get_note", "description": "Get a note by id.",
         "inputSchema": {"type": "object", "properties": {"note_id": _INT}, "required": ["note_id"]}},
        {"name": "list_tags", "description": "List all tags with note counts.",
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "get_stats", "description": "Note counts for a month.",
         "inputSchema": {"type": "object", "properties": {"month": _INT}}},
        {"name": "mark_chore_done", "description": "Mark a chore as done by id (sets status:done + completed_at).",
         "inputSchema": {"type": "object", "properties": {"chore_id": _INT}, "required": ["chore_id"]}},
        {"name": "total_hours", "description": "Sum hours across notes. Returns sums, sums_display, and samples.",
         "inputSchema": {"type": "object", "properties": {"query": _STR}}},
    ],
}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


async def test_listed_tags_are_counted_from_the_notes_text_and_tag_arguments(tmp_path: Path) -> None:
    world = tmp_path / "logbook.json"
    world.write_text(json.dumps(LOGBOOK), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        assert _body(await session.call_tool("list_tags", {})) == []
        await session.call_tool("add_note", {"text": "Fixed the importer #bug time:2h"})
        await session.call_tool("add_note", {"text": "Standup notes #meeting", "tags": ["bug"]})
        listed = _body(await session.call_tool("list_tags", {}))
        assert listed == [{"tag": "bug", "count": 2}, {"tag": "meeting", "count": 1}]


async def test_a_statistics_read_invents_no_entities_of_its_own(tmp_path: Path) -> None:
    world = tmp_path / "logbook.json"
    world.write_text(json.dumps(LOGBOOK), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        text = (await session.call_tool("get_stats", {"month": 11})).content[0].text
        assert "general" not in text and "engineering" not in text


async def test_marking_and_summing_tools_answer_data_rather_than_an_acknowledgement(tmp_path: Path) -> None:
    world = tmp_path / "logbook.json"
    world.write_text(json.dumps(LOGBOOK), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        marked = _body(await session.call_tool("mark_chore_done", {"chore_id": 4}))
        assert isinstance(marked, dict) and marked["chore_id"] == 4
        summed = _body(await session.call_tool("total_hours", {"query": "#bug"}))
        assert set(summed) == {"sums", "sums_display", "samples"}


JOURNAL = {
    "name": "journal",
    "tools": [
        {"name": "add_note", "description": "Add a note. Text may include #tags inline.",
         "inputSchema": {"type": "object", "properties": {"text": _STR, "tags": {"type": "array", "items": _STR}},
                         "required": ["text"]}},
        {"name": "list_tags", "description": "List all tags with note counts.",
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "notes_by_tag", "description": "List notes for a single tag.",
         "inputSchema": {"type": "object", "properties": {"tag": _STR, "limit": _INT}, "required": ["tag"]}},
        {"name": "list_recent_notes", "description": "List the most recent notes (newest first).",
         "inputSchema": {"type": "object", "properties": {"limit": _INT}}},
    ],
}


def _texts(listed: Any) -> list[str]:
    items = listed if isinstance(listed, list) else next(v for v in listed.values() if isinstance(v, list))
    return [item["text"] for item in items]


async def test_a_listing_by_tag_keeps_the_notes_carrying_it_as_an_argument_or_inline(tmp_path: Path) -> None:
    world = tmp_path / "journal.json"
    world.write_text(json.dumps(JOURNAL), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("add_note", {"text": "Retro: too many scope changes", "tags": ["retro"]})
        await session.call_tool("add_note", {"text": "Fixed the importer #bug"})
        await session.call_tool("add_note", {"text": "Second retro, calmer #retro"})
        tagged = _texts(_body(await session.call_tool("notes_by_tag", {"tag": "retro"})))
        assert tagged == ["Retro: too many scope changes", "Second retro, calmer #retro"]
        assert _texts(_body(await session.call_tool("notes_by_tag", {"tag": "#bug"}))) == ["Fixed the importer #bug"]


async def test_a_listing_by_a_tag_no_note_carries_is_empty_rather_than_a_refusal(tmp_path: Path) -> None:
    world = tmp_path / "journal.json"
    world.write_text(json.dumps(JOURNAL), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("add_note", {"text": "Standup #meeting"})
        await session.call_tool("list_tags", {})
        assert _texts(_body(await session.call_tool("notes_by_tag", {"tag": "offsite"}))) == []


async def test_a_recent_listing_shows_the_newest_notes_first(tmp_path: Path) -> None:
    world = tmp_path / "journal.json"
    world.write_text(json.dumps(JOURNAL), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        for text in ("first", "second", "third"):
            await session.call_tool("add_note", {"text": text})
        result = await session.call_tool("list_recent_notes", {"limit": 2})
        listed, _ = json.JSONDecoder().raw_decode(result.content[0].text)  # a note on more pages may follow
        assert _texts(listed) == ["third", "second"]
