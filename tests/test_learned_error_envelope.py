"""A learned world's refusals come in the recorded server's error envelope, with its flag (issue 22).

A server wraps every failure the same way, whichever tool failed and whatever failed under it. A notes
server records one session with three refusals of different tools, each ``Error: Notes <tool> failed:
code 2\\nDetail: <message>\\n--``; another records only ``Error executing tool <name>``. Learned with the
``agentworld-mcp learn`` CLI, served by ``agentworld-mcp serve`` and driven by a real MCP client over
stdio, a refusal the recording never showed (a note the new session never made, a tool that never
failed) says its own message inside the server's envelope, names its own tool, and is ``isError``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"note_id": {"type": "integer"}}, "required": ["note_id"]}
CATALOG: JSONDict = {"name": "notes", "tools": [
    {"name": "create_note", "description": "Create a note.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "get_note", "description": "Get a note by its id.", "inputSchema": KEY},
    {"name": "update_note", "description": "Update a note's title.",
     "inputSchema": {"type": "object", "properties": {"note_id": {"type": "integer"}, "title": {"type": "string"}},
                     "required": ["note_id", "title"]}},
    {"name": "delete_note", "description": "Delete a note.", "inputSchema": KEY},
]}


def line(turn: int, tool: str, arguments: JSONDict, text: str, is_error: bool = False) -> str:
    result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def wrapped(tool: str, message: str) -> str:
    return f"Error: Notes {tool} failed: code 2\nDetail: {message}\n--"


def recording(path: Path, refusal: Any) -> Path:
    titles = ["Harbor schedule", "Pantry inventory", "Volunteer roster"]
    calls: list[tuple[str, JSONDict, str, bool]] = [
        ("create_note", {"title": t}, json.dumps({"id": n, "title": t}), False) for n, t in enumerate(titles, 1)]
    calls += [
        ("get_note", {"note_id": 1}, json.dumps({"id": 1, "title": titles[0]}), False),
        ("get_note", {"note_id": 9}, refusal("get_note", "get", "note 9 does not exist"), True),
        ("delete_note", {"note_id": 3}, json.dumps({"deleted": 3}), False),
        ("delete_note", {"note_id": 3}, refusal("delete_note", "delete", "note 3 was already removed"), True),
        ("create_note", {"title": ""}, refusal("create_note", "create", "a title must not be empty"), True),
    ]
    lines = [line(turn, *call) for turn, call in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path, refusal: Any) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl", refusal), CATALOG, tmp_path / "learned.json", "--no-seed")


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_a_refusal_the_recording_never_showed_says_its_message_inside_the_servers_envelope(
        tmp_path: Path) -> None:
    world = learned(tmp_path, lambda tool, verb, message: wrapped(tool, message))
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_note", {"title": "Board minutes"}))
        missing = await session.call_tool("update_note", {"note_id": 4242, "title": "Rota"})
    assert made["title"] == "Board minutes"  # a success is no refusal: left as it is
    assert missing.isError
    text = text_of(missing)
    assert text.startswith("Error: Notes update_note failed: code 2\nDetail: "), text
    assert text.endswith("\n--"), text
    assert "4242" in text  # the model's own message, in the slot


async def test_a_server_that_names_only_the_failed_tool_is_answered_with_that_sentence(tmp_path: Path) -> None:
    world = learned(tmp_path, lambda tool, verb, message: f"Error executing tool {tool}")
    async with stdio_session(str(world)) as session:
        missing = await session.call_tool("update_note", {"note_id": 4242, "title": "Rota"})
        again = await session.call_tool("get_note", {"note_id": 777})
    assert missing.isError and again.isError
    assert text_of(missing) == "Error executing tool update_note"
    assert text_of(again) == "Error executing tool get_note"


async def test_a_server_whose_refusals_share_nothing_keeps_the_models_own_wording(tmp_path: Path) -> None:
    words = {"get_note": "No such note.", "delete_note": "Gone already!", "create_note": "Title? Please."}
    world = learned(tmp_path, lambda tool, verb, message: words[tool])
    data = json.loads(world.read_text(encoding="utf-8"))
    assert not any("agentworld/error_envelope" in (t.get("_meta") or {}) for t in data["tools"])
    async with stdio_session(str(world)) as session:
        missing = await session.call_tool("update_note", {"note_id": 4242, "title": "Rota"})
    assert missing.isError
    assert "4242" in text_of(missing)
