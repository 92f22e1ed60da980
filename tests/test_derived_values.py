"""Numbers and values the call or the answer itself determines are never random.

A small notes catalog whose outputSchemas allow any integer up to 2**53 (as typed servers
publish them): lengths measure the text beside them, counts the list beside them, an offset
the call did not ask for is 0, a one-object read has no more pages, fields named like an
argument echo it inside an envelope, and a list named after a list argument has one item per
element. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_BIG = {"type": "integer", "minimum": 0, "maximum": 9007199254740991}


def _envelope(data: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {
        "ok": {"type": "boolean"},
        "data": {"type": "object", "properties": data, "required": required}}, "required": ["ok", "data"]}


def _tool(name: str, description: str, args: dict[str, Any], required: list[str],
          data: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": args, "required": required},
            "outputSchema": _envelope(data, [k for k in data if k != "next_cursor"])}


_PATH = {"type": "string", "description": "Path of the note relative to the notebook root"}
NOTEBOOK = {
    "name": "notebook",
    "tools": [
        _tool("create_note", "Create a note at a path with the given content.",
              {"path": _PATH, "content": {"type": "string"}}, ["path", "content"],
              {"path": {"type": "string"}, "revision": {"type": "string"}}),
        _tool("read_note", "Read a page of a note's content.",
              {"path": _PATH, "cursor": {"type": "string"}}, ["path"],
              {"path": {"type": "string"}, "content": {"type": "string"}, "total_characters": _BIG,
               "offset": _BIG, "has_more": {"type": "boolean"}, "next_cursor": {"type": "string"}}),
        _tool("move_note", "Move or rename a note.",
              {"source": _PATH, "destination": _PATH}, ["source", "destination"],
              {"source": {"type": "string"}, "destination": {"type": "string"}, "ambiguous_links": _BIG}),
        _tool("add_tags", "Add tags to several notes at once.",
              {"paths": {"type": "array", "items": {"type": "string"}},
               "tags": {"type": "array", "items": {"type": "string"}}}, ["paths", "tags"],
              {"updated": {"type": "array", "items": {"type": "object", "properties": {
                  "path": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
                  "required": ["path", "tags"]}},
               "unchanged_count": _BIG}),
        _tool("list_reminders", "List the reminders that are due.",
              {"limit": {"type": "integer"}}, [],
              {"reminders": {"type": "array", "items": {"type": "object", "properties": {
                  "title": {"type": "string"}}, "required": ["title"]}},
               "count": _BIG, "has_more": {"type": "boolean"}}),
    ],
}


async def _notebook(tmp_path: Path) -> Path:
    world = tmp_path / "notebook.json"
    world.write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    return world


async def test_a_read_measures_the_text_it_returns_and_starts_at_offset_zero(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        text = "# Soup\n\n- lentils\n- carrots\n"
        await session.call_tool("create_note", {"path": "Recipes/Soup.md", "content": text})
        read = await session.call_tool("read_note", {"path": "Recipes/Soup.md"})
        data = (read.structuredContent or {})["data"]
        assert data["content"] == text
        assert data["total_characters"] == len(text)
        assert data["offset"] == 0


async def test_a_one_object_read_that_asked_for_no_page_has_no_more(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        await session.call_tool("create_note", {"path": "a.md", "content": "short"})
        data = ((await session.call_tool("read_note", {"path": "a.md"})).structuredContent or {})["data"]
        assert data["has_more"] is False
        assert "next_cursor" not in data


async def test_fields_named_like_arguments_echo_them_inside_the_envelope(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        await session.call_tool("create_note", {"path": "Drafts/Plan.md", "content": "plan"})
        moved = await session.call_tool("move_note", {"source": "Drafts/Plan.md", "destination": "Projects/Plan.md"})
        data = (moved.structuredContent or {})["data"]
        assert data["source"] == "Drafts/Plan.md"
        assert data["destination"] == "Projects/Plan.md"
        # a count of what was left ambiguous is none, not a sixteen-digit random number
        assert data["ambiguous_links"] == 0


async def test_a_list_named_after_a_list_argument_has_one_item_per_element(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        paths = ["Travel/Lisbon.md", "Travel/Porto.md"]
        tagged = await session.call_tool("add_tags", {"paths": paths, "tags": ["travel", "spring"]})
        data = (tagged.structuredContent or {})["data"]
        assert [item["path"] for item in data["updated"]] == paths
        assert all(sorted(item["tags"]) == ["spring", "travel"] for item in data["updated"])
        assert data["unchanged_count"] == 0


async def test_a_count_beside_a_list_is_the_length_of_that_list(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        listed = await session.call_tool("list_reminders", {"limit": 50})
        data = (listed.structuredContent or {})["data"]
        assert data["count"] == len(data["reminders"])
        assert data["has_more"] is False  # fewer than the fifty the call allowed


async def test_no_integer_in_any_answer_is_drawn_from_the_whole_unbounded_range(tmp_path: Path) -> None:
    async with stdio_session(str(await _notebook(tmp_path))) as session:
        answers = [
            await session.call_tool("read_note", {"path": "missing-or-invented.md"}),
            await session.call_tool("move_note", {"source": "x.md", "destination": "y.md"}),
            await session.call_tool("list_reminders", {}),
        ]
        for answer in answers:
            numbers = _integers(answer.structuredContent)
            assert all(n < 2**31 for n in numbers), numbers


def _integers(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _integers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _integers(v)]
    return []


async def test_an_answer_stays_schema_valid_when_the_schema_requires_the_cursor(tmp_path: Path) -> None:
    tool = _tool("summarize_topic", "Summarize what is known about a topic, one page at a time.",
                 {"topic": {"type": "string"}}, ["topic"],
                 {"text": {"type": "string"}, "has_more": {"type": "boolean"}, "next_cursor": {"type": "string"}})
    tool["outputSchema"]["properties"]["data"]["required"] = ["text", "has_more", "next_cursor"]
    strict = {"name": "strict", "tools": [tool]}
    world = tmp_path / "strict.json"
    world.write_text(json.dumps(strict), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        read = await session.call_tool("summarize_topic", {"topic": "tides"})
        assert not read.isError
        data = (read.structuredContent or {})["data"]
        assert data["has_more"] is False
        assert isinstance(data["next_cursor"], str)  # required by the schema, so kept

