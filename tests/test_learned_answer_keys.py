"""A learned world's answers keep to the keys the recording proved its objects have (issue 22).

A notes server records one session: every note it shows, created, read or listed, has the keys
``note_id``, ``title``, ``body``, ``tags``, answered FastMCP-style as ``{"result": "<JSON text>"}``; a
note's ``labels`` map is keyed by values (``{"mood": ...}``, ``{"room": ...}``). Learned with the
``agentworld-mcp learn`` CLI and driven by a real MCP client over stdio with notes the recording never
saw, the answers have the recorded keys and no key of the model's own (a creation stamp), while the
value-keyed map is never fixed to one note's keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
NOTE_ARGS = {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string"},
                                               "tags": {"type": "array", "items": {"type": "string"}}},
             "required": ["title", "body"]}
CATALOG: JSONDict = {"name": "notes", "tools": [
    {"name": "create_note", "description": "Create a note.", "inputSchema": NOTE_ARGS},
    {"name": "get_note", "description": "Get a note by its id.",
     "inputSchema": {"type": "object", "properties": {"note_id": {"type": "integer"}}, "required": ["note_id"]}},
    {"name": "list_notes", "description": "List notes.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "note_labels", "description": "A note's labels.",
     "inputSchema": {"type": "object", "properties": {"note_id": {"type": "integer"}}, "required": ["note_id"]}},
]}
KEYS = {"note_id", "title", "body", "tags"}
#: FastMCP's form: the answer is a JSON text under ``result``.
WRAPPED = {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}
for _tool in CATALOG["tools"]:
    _tool["outputSchema"] = WRAPPED


def line(turn: int, tool: str, arguments: JSONDict, answer: Any) -> str:
    wrapped = {"result": json.dumps(answer)}
    result = {"content": [{"type": "text", "text": json.dumps(wrapped)}], "structuredContent": wrapped, "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    notes = [{"note_id": 1, "title": "Dentist", "body": "Tuesday at nine", "tags": ["health"]},
             {"note_id": 2, "title": "Books", "body": "return two", "tags": []}]
    calls: list[tuple[str, JSONDict, Any]] = [
        ("create_note", {k: notes[0][k] for k in ("title", "body", "tags")}, notes[0]),
        ("create_note", {k: notes[1][k] for k in ("title", "body", "tags")}, notes[1]),
        ("get_note", {"note_id": 1}, notes[0]),
        ("list_notes", {}, notes),
        ("note_labels", {"note_id": 1}, {"note_id": 1, "labels": {"mood": "calm"}}),
        ("note_labels", {"note_id": 2}, {"note_id": 2, "labels": {"room": "attic", "shelf": "top"}}),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def note_of(result: Any) -> Any:
    assert not result.isError, result.content
    return json.loads(result.structuredContent["result"])


async def test_notes_the_recording_never_saw_are_answered_with_exactly_the_recorded_keys(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        made = note_of(await session.call_tool("create_note", {"title": "Plants", "body": "water the fern",
                                                                "tags": ["home"]}))
        read = note_of(await session.call_tool("get_note", {"note_id": made["note_id"]}))
    assert set(made) == KEYS and made["title"] == "Plants"
    assert set(read) == KEYS and read["body"] == "water the fern"


def test_a_map_keyed_by_values_is_never_fixed_to_the_keys_one_answer_showed(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")
    tools = {t["name"]: t for t in json.loads(world.read_text())["tools"]}
    fixed = tools["note_labels"]["_meta"]["agentworld/answer_keys"]
    assert fixed == {"": ["labels", "note_id"]}  # the answer's own keys are fixed, the labels map is not
    assert sorted(tools["get_note"]["_meta"]["agentworld/answer_keys"][""]) == sorted(KEYS)  # one read, a proved form
