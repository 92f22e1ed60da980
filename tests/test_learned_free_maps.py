"""A learned world keeps an object's keys where they are the caller's data (issue 22).

A journal server's ``add_note`` takes ``metadata``, declared as a free-form object (any key, string
values). The recorded session gave ``{"owner": "priya"}`` and read it back. Learned with the
``agentworld-mcp learn`` CLI and served by ``agentworld-mcp serve`` to a real MCP client over stdio, a
note made with other keys reads back with those keys, not with the recording's ``owner`` only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, learn_cli, stdio_session, write_recording

JSONDict = dict[str, Any]
FREE_FORM = {"type": "object", "additionalProperties": {"type": "string"}}
CATALOG: JSONDict = {"name": "journal", "tools": [
    bare_tool("add_note", "Add a note to the journal.", {"text": {"type": "string"}, "metadata": FREE_FORM}, ["text"]),
    bare_tool("get_note", "Get a note by its id.", {"note_id": {"type": "integer"}}, ["note_id"]),
]}


def recording(path: Path) -> Path:
    calls = [
        ("add_note", {"text": "Hiring plan drafted", "metadata": {"owner": "priya"}}, {"success": True, "note_id": 1}),
        ("get_note", {"note_id": 1}, {"success": True, "note": {"id": 1, "text": "Hiring plan drafted",
                                                                "metadata": {"owner": "priya"}}}),
        ("add_note", {"text": "Venue booked"}, {"success": True, "note_id": 2}),
        ("get_note", {"note_id": 2}, {"success": True, "note": {"id": 2, "text": "Venue booked", "metadata": {}}}),
    ]
    return write_recording(path, calls)


async def test_a_free_form_argument_reads_back_with_the_keys_the_call_gave(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool(
            "add_note", {"text": "Retro notes", "metadata": {"mood": "mixed", "sprint": "47"}}))
        note = json_answer(await session.call_tool("get_note", {"note_id": made["note_id"]}))
    assert note["note"]["text"] == "Retro notes"
    assert note["note"]["metadata"] == {"mood": "mixed", "sprint": "47"}
