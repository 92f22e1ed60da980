"""A learned text editor answers as the recorded one: refusals in band, previews with context, new files' text.

A small generic editor catalog (a current file, line ranges, a staged overwrite that a confirm applies) is
recorded as JSONL here, learned through the CLI and played over stdio with a real MCP client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import json_answer, learn_cli, stdio_session

pytestmark = pytest.mark.anyio

OBJ: dict[str, Any] = {"type": "object"}


def _tool(name: str, description: str, **props: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}


CATALOG = {"name": "editor", "tools": [
    _tool("open_file", "Set the current file to work with.", path={"type": "string"}),
    _tool("view_lines", "Read lines of the current file.", start={"type": "integer"}, end={"type": "integer"}),
    _tool("select", "Select lines of the current file.", start={"type": "integer"}, end={"type": "integer"}),
    _tool("overwrite", "Stage a replacement of the selected lines.", new_lines={"type": "array"}),
    _tool("confirm", "Apply the staged change."),
    _tool("cancel", "Discard the staged change."),
    _tool("create_file", "Create a new file and make it current.", path={"type": "string"}),
]}

NOTES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def _line(turn: int, tool: str, arguments: dict[str, Any], body: Any) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(body)}], "structuredContent": body, "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def _recording(path: Path) -> Path:
    calls = [
        ("open_file", {"path": "notes.txt"}, {"result": "Current file: notes.txt"}),
        ("view_lines", {"start": 1, "end": 8}, {"lines": [[i + 1, t] for i, t in enumerate(NOTES)]}),
        ("confirm", {}, {"error": "No pending changes to apply. Stage an overwrite first."}),
        ("select", {"start": 9, "end": 2}, {"error": "start must not exceed end."}),
        ("create_file", {"path": "new.txt"}, {"status": "success", "text": "# NEW FILE", "message": "Created."}),
    ]
    path.write_text("\n".join(_line(i + 1, *c) for i, c in enumerate(calls)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return learn_cli(_recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")


async def test_a_refusal_is_answered_in_band_in_the_recorded_words(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await session.call_tool("open_file", {"path": "notes.txt"})
        answer = json_answer(await session.call_tool("cancel", {}))
    assert list(answer) == ["error"] and answer["error"].endswith("Stage an overwrite first.")


async def test_a_preview_shows_three_lines_of_context_around_the_change(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await session.call_tool("open_file", {"path": "notes.txt"})
        await session.call_tool("select", {"start": 5, "end": 5})
        answer = json_answer(await session.call_tool("overwrite", {"new_lines": ["EPSILON", "EPSILON 2"]}))
    assert answer["diff_lines"] == [[2, "beta"], [3, "gamma"], [4, "delta"], ["-5", "epsilon"], ["+5", "EPSILON"],
                                    ["+6", "EPSILON 2"], [6, "zeta"], [7, "eta"], [8, "theta"]]


async def test_a_new_file_starts_with_the_recorded_placeholder_text(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        created = json_answer(await session.call_tool("create_file", {"path": "other.txt"}))
        answer = json_answer(await session.call_tool("overwrite", {"new_lines": ["first"]}))
    assert created["text"] == "# NEW FILE"
    assert answer["diff_lines"] == [["-1", "# NEW FILE"], ["+1", "first"]]
