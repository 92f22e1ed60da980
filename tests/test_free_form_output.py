"""A free-form object outputSchema (``{"type": "object", "additionalProperties": true}``) is no shape:
the tool answers the data it promises, as an object, never ``{}``. An editor with a current file
(``set_file`` then tools without a path) reads numbered lines, stages and applies edits, finds lines
and lists directories. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_STR = {"type": "string"}
_INT = {"type": "integer"}
FREE = {"type": "object", "additionalProperties": True}


def _tool(name: str, description: str, props: dict[str, Any], out: dict[str, Any] | None = FREE) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "description": description,
                            "inputSchema": {"type": "object", "properties": props, "required": list(props)}}
    if out is not None:
        tool["outputSchema"] = out
    return tool


NOTES = {"name": "notes", "tools": [
    _tool("create_note", "Create a note.", {"title": _STR, "body": _STR}),
    _tool("get_note", "Get a note by id.", {"note_id": _STR}),
    _tool("list_notes", "List all notes.", {}),
]}

EDITOR = {"name": "editor", "tools": [
    _tool("set_file", "Set the current file to work with.", {"filepath": _STR}, None),
    _tool("new_file", "Create a new file; it becomes the current file.", {"filepath": _STR}),
    _tool("read", "Read lines of the current file from start to end.", {"start": _INT, "end": _INT}),
    _tool("select", "Select lines for a later overwrite.", {"start": _INT, "end": _INT}),
    _tool("overwrite", "Overwrite the selected lines.", {"new_lines": {"type": "array", "items": _STR}}),
    _tool("confirm", "Confirm the pending change.", {}),
    _tool("cancel", "Cancel the pending change.", {}),
    _tool("find_line", "Find lines of the current file holding a text.", {"search_text": _STR}),
    _tool("listdir", "List a directory.", {"dirpath": _STR}),
]}


def _object(result: Any) -> dict[str, Any]:
    assert not result.isError, result.content
    assert isinstance(result.structuredContent, dict)
    assert json.loads(result.content[0].text) == result.structuredContent
    return result.structuredContent


async def test_a_free_form_object_tool_answers_its_data_not_an_empty_object(tmp_path: Path) -> None:
    world = tmp_path / "notes.json"
    world.write_text(json.dumps(NOTES), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _object(await session.call_tool("create_note", {"title": "Groceries", "body": "milk, eggs"}))
        assert created["title"] == "Groceries" and created["body"] == "milk, eggs"
        note_id = next(str(v) for k, v in created.items() if k.endswith("id"))
        read = _object(await session.call_tool("get_note", {"note_id": note_id}))
        assert read["title"] == "Groceries"
        listed = _object(await session.call_tool("list_notes", {}))
        assert listed and any(isinstance(v, list) and v for v in listed.values())


async def test_an_editor_edits_its_current_file_and_reads_numbered_lines_back(tmp_path: Path) -> None:
    world = tmp_path / "editor.json"
    world.write_text(json.dumps(EDITOR), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        assert (await session.call_tool("read", {"start": 1, "end": 2})).isError  # no current file yet
        _object(await session.call_tool("new_file", {"filepath": "docs/plan.md"}))
        staged = _object(await session.call_tool("overwrite", {"new_lines": ["# Plan", "ship on Friday", "party"]}))
        assert ["+2", "ship on Friday"] in staged["diff_lines"]
        _object(await session.call_tool("confirm", {}))

        read = _object(await session.call_tool("read", {"start": 2, "end": 3}))
        assert read["lines"] == [[2, "ship on Friday"], [3, "party"]]
        found = _object(await session.call_tool("find_line", {"search_text": "Friday"}))
        assert found["matches"] == [[2, "ship on Friday"]]
        assert _object(await session.call_tool("listdir", {"dirpath": "docs"}))["filenames"] == ["plan.md"]

        _object(await session.call_tool("select", {"start": 3, "end": 3}))
        _object(await session.call_tool("overwrite", {"new_lines": ["no party"]}))
        _object(await session.call_tool("cancel", {}))
        assert (await session.call_tool("confirm", {})).isError  # the change was dropped
        opened = await session.call_tool("set_file", {"filepath": "docs/plan.md"})
        assert not opened.isError
        read = _object(await session.call_tool("read", {"start": 1, "end": 3}))
        assert read["lines"][2] == [3, "party"]
