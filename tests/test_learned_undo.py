"""A learned world's undo reverses the episode's own last change, never the recording's (issue 22).

A notes server records one session: notes are added, one is archived, then ``undo`` (no arguments)
reverses that archive and says so, naming the note. Learned with the ``agentworld-mcp learn`` CLI and
driven by a real MCP client over stdio with notes the recording never saw: the undo removes the note the
episode added last, and its summary names that note, not the training session's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
CATALOG: JSONDict = {"name": "notes", "tools": [
    {"name": "add_note", "description": "Add a note.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "get_note", "description": "Get a note by its id.", "inputSchema": KEY},
    {"name": "archive_note", "description": "Archive a note.", "inputSchema": KEY},
    {"name": "undo", "description": "Undo the last change.", "inputSchema": {"type": "object", "properties": {}}},
]}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def note(number: int, title: str, state: str = "open") -> JSONDict:
    return {"id": number, "title": title, "state": state}


def recording(path: Path) -> Path:
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("add_note", {"title": "Harbor kestrel follow-up"}, {"ok": True, "note": note(1, "Harbor kestrel follow-up")}),
        ("add_note", {"title": "Call the plumber"}, {"ok": True, "note": note(2, "Call the plumber")}),
        ("archive_note", {"id": 1}, {"ok": True, "note": note(1, "Harbor kestrel follow-up", "archived")}),
        ("undo", {}, {"ok": True, "summary": 'Undid #1 "Harbor kestrel follow-up"'}),
        ("get_note", {"id": 1}, {"ok": True, "note": note(1, "Harbor kestrel follow-up")}),
        ("get_note", {"id": 9}, {"ok": False, "error": "no note with id 9"}),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_undo_removes_the_note_the_episode_added_last_and_names_it(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        json_answer(await session.call_tool("add_note", {"title": "Renew the parking permit"}))
        made = json_answer(await session.call_tool("add_note", {"title": "Water the ferns"}))
        undone = json_answer(await session.call_tool("undo", {}))
        gone = await session.call_tool("get_note", {"id": made["note"]["id"]})
    assert "Water the ferns" in undone["summary"] and "Harbor kestrel" not in undone["summary"]
    assert f"#{made['note']['id']}" in undone["summary"]
    assert "Water the ferns" not in gone.content[0].text
