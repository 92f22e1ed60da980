"""A learned world refuses to create what the episode already holds, with the real server's words (issue 22).

A notes server records one session: ``create_note`` makes a note at a path; creating the same path again is
refused with ``File already exists: PATH`` (``isError``). One such refusal is enough: the path was present
when it came. Learned with the ``agentworld-mcp learn`` CLI, served by ``agentworld-mcp serve`` and driven by
a real MCP client over stdio with paths the recording never saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "notes", "tools": [
    {"name": "create_note", "description": "Create a new note at a path.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                     "required": ["path", "content"]}},
    {"name": "read_note", "description": "Read the note at a path.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "list_notes", "description": "List the notes.", "inputSchema": {"type": "object", "properties": {}}},
]}
LISTED = json.dumps({"notes": [{"path": "archive/2023.md", "title": "Old year"}]})


def line(turn: int, tool: str, arguments: JSONDict, text: str, is_error: bool = False) -> str:
    result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    calls = [
        ("create_note", {"path": "plans/q3.md", "content": "Budget review"}, "Created note plans/q3.md", False),
        ("read_note", {"path": "plans/q3.md"}, "Budget review", False),
        ("create_note", {"path": "plans/q3.md", "content": "Other text"}, "File already exists: plans/q3.md", True),
        ("create_note", {"path": "ideas.md", "content": "Garden"}, "Created note ideas.md", False),
    ]
    lines = [line(turn, *call) for turn, call in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def seeded_recording(path: Path) -> Path:
    """A note the server listed is refused at once: no earlier call of the session created it."""
    calls = [
        ("list_notes", {}, LISTED, False),
        ("create_note", {"path": "archive/2023.md", "content": "New"}, "File already exists: archive/2023.md", True),
        ("create_note", {"path": "ideas.md", "content": "Garden"}, "Created note ideas.md", False),
        ("create_note", {"path": "todo.md", "content": "Milk"}, "Created note todo.md", False),
    ]
    path.write_text("\n".join(line(turn, *call) for turn, call in enumerate(calls, 1)) + "\n", encoding="utf-8")
    return path


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def test_creating_a_path_the_episode_holds_is_refused_with_the_recorded_wording_and_flag(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        first = await session.call_tool("create_note", {"path": "travel/rome.md", "content": "Flights"})
        assert not first.isError, text(first)
        again = await session.call_tool("create_note", {"path": "travel/rome.md", "content": "Hotels"})
        assert again.isError
        assert text(again) == "File already exists: travel/rome.md"
        other = await session.call_tool("create_note", {"path": "travel/paris.md", "content": "Trains"})
        assert not other.isError, text(other)
        assert "already exists" not in text(other)


async def test_a_refusal_of_a_listed_path_is_learned_and_refuses_a_path_the_learned_seed_holds(tmp_path: Path) -> None:
    world = learn_cli(seeded_recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        seeded = await session.call_tool("create_note", {"path": "archive/2023.md", "content": "Again"})
        assert seeded.isError
        assert text(seeded) == "File already exists: archive/2023.md"
        fresh = await session.call_tool("create_note", {"path": "recipes/soup.md", "content": "Leeks"})
        assert not fresh.isError, text(fresh)
        again = await session.call_tool("create_note", {"path": "recipes/soup.md", "content": "Carrots"})
        assert again.isError
        assert text(again) == "File already exists: recipes/soup.md"


def test_a_create_refused_while_its_path_was_absent_learns_no_present_rule(tmp_path: Path) -> None:
    rec = tmp_path / "train.jsonl"
    rec.write_text("\n".join([
        line(1, "create_note", {"path": "a.md", "content": "x"}, "Created note a.md"),
        line(2, "create_note", {"path": "b.md", "content": "y"}, "File already exists: b.md", True),
        line(3, "create_note", {"path": "c.md", "content": "z"}, "Created note c.md"),
    ]) + "\n", encoding="utf-8")
    world = json.loads(learn_cli(rec, CATALOG, tmp_path / "learned.json", "--no-seed").read_text(encoding="utf-8"))
    tool = next(t for t in world["tools"] if t["name"] == "create_note")
    rules = ((tool.get("_meta") or {}).get("agentworld/learned") or {}).get("rules") or []
    assert all(r["when"]["if"] != "present" for r in rules), rules
