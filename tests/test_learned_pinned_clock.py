"""A learned world keeps the fixed clock a recording shows, even where one write showed it (issue 22).

A notes server pinned to one instant (as test fixtures and replays are) answers a single revert in its
recorded session; that answer shows the instant twice (the version it went back to and the copy it
saved). Learned with the ``agentworld-mcp learn`` CLI, the world's clock for that tool stands still at
that instant (what the served answers stamp), and the world serves a new episode's revert over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
CATALOG: JSONDict = {"name": "notes", "tools": [
    {"name": "write_note", "description": "Write a note's text.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
                     "required": ["path", "text"]}},
    {"name": "revert_note", "description": "Revert a note to its last saved version.", "inputSchema": PATH},
]}
PINNED = "2026-11-24T10:00:00"


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


async def test_one_revert_that_shows_an_instant_twice_pins_the_learned_clock_there(tmp_path: Path) -> None:
    calls = [
        ("write_note", {"path": "/n/a.md", "text": "one"}, {"success": True, "path": "/n/a.md"}),
        ("write_note", {"path": "/n/a.md", "text": "two"}, {"success": True, "path": "/n/a.md"}),
        ("revert_note", {"path": "/n/a.md"},
         {"success": True, "reverted_to": {"timestamp": PINNED}, "current_saved_as": {"timestamp": PINNED}}),
    ]
    recording = tmp_path / "session.jsonl"
    recording.write_text("\n".join(line(i, *call) for i, call in enumerate(calls, 1)) + "\n")
    world = learn_cli(recording, CATALOG, tmp_path / "world.json")
    clock = {t["name"]: t.get("_meta", {}).get("agentworld/clock") for t in json.loads(world.read_text())["tools"]}
    assert clock["revert_note"] == {"format": "%Y-%m-%dT%H:%M:%S", "still": True, "at": PINNED}
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_note", {"path": "/n/b.md", "text": "three"})
        result = await session.call_tool("revert_note", {"path": "/n/b.md"})
    assert not result.isError, result.content
