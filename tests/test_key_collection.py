"""A thing a tool names after one noun but keys by another's id lives with that other noun's things.

A journal server records one session: two entries are added, a todo is created (it answers ``entry_id``),
entries are read back, one is deleted and then not found. Learned with the ``agentworld-mcp learn`` CLI and
served over stdio, a different session creates a todo first and then entries: the ids continue one sequence
across both tools, the todo reads back through the entry reader, and an entry read after a listing whose
``limit`` equals its id is still found (only the delete explains the recorded "not found").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
S = {"type": "string"}
ID = {"type": "object", "properties": {"entry_id": {"type": "integer"}}, "required": ["entry_id"]}
CATALOG: JSONDict = {"name": "journal", "tools": [
    {"name": "add_entry", "description": "Add an entry.",
     "inputSchema": {"type": "object", "properties": {"text": S}, "required": ["text"]}},
    {"name": "get_entry", "description": "Get one entry by id.", "inputSchema": ID},
    {"name": "delete_entry", "description": "Delete an entry by id.", "inputSchema": ID},
    {"name": "list_recent_entries", "description": "List recent entries.",
     "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer"}}}},
    {"name": "create_todo", "description": "Create a todo.",
     "inputSchema": {"type": "object", "properties": {"description": S}, "required": ["description"]}},
]}


def entry(n: int, text: str) -> JSONDict:
    return {"success": True, "entry": {"id": str(n), "text": text}}


def recording(path: Path) -> Path:
    calls: list[tuple[str, JSONDict, Any]] = [
        ("add_entry", {"text": "Drafted the plan"}, {"success": True, "entry_id": 4}),
        ("add_entry", {"text": "Called the bank"}, {"success": True, "entry_id": 5}),
        ("create_todo", {"description": "Renew the certificate"}, {"success": True, "entry_id": 6}),
        ("create_todo", {"description": "Send the mockups"}, {"success": True, "entry_id": 7}),
        ("get_entry", {"entry_id": 4}, entry(4, "Drafted the plan")),
        ("get_entry", {"entry_id": 6}, entry(6, "Renew the certificate")),
        ("list_recent_entries", {"limit": 3}, {"success": True, "entries": [
            entry(6, "Renew the certificate")["entry"], entry(5, "Called the bank")["entry"],
            entry(4, "Drafted the plan")["entry"]]}),
        ("delete_entry", {"entry_id": 3}, {"success": True, "entry_id": 3}),
        ("get_entry", {"entry_id": 3}, {"success": False, "error": "Entry 3 not found."}),
    ]
    lines = [json.dumps({"episode": "train", "turn": n, "tool": tool, "arguments": arguments,
                         "result": {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}})
             for n, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "session.jsonl"), CATALOG, tmp_path / "world.json")


@pytest.mark.anyio
async def test_a_todo_keyed_by_an_entry_id_shares_the_entries_sequence_and_reads_back(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        todo = json_answer(await session.call_tool("create_todo", {"description": "Book the venue"}))
        first = json_answer(await session.call_tool("add_entry", {"text": "Pairing session"}))
        second = json_answer(await session.call_tool("add_entry", {"text": "Sprint retro"}))
        assert [todo["entry_id"], first["entry_id"], second["entry_id"]] == [4, 5, 6]
        read = json_answer(await session.call_tool("get_entry", {"entry_id": 4}))
    assert read["success"] is True  # found where the entry reader looks (its ``description`` is no ``text``: not linked)


@pytest.mark.anyio
async def test_an_entry_read_after_a_listing_limited_to_its_id_is_still_found(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        made = json_answer(await session.call_tool("add_entry", {"text": "Quarterly review"}))
        await session.call_tool("list_recent_entries", {"limit": made["entry_id"]})
        read = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
        await session.call_tool("delete_entry", {"entry_id": made["entry_id"]})
        gone = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
    assert read["success"] is True and "Quarterly review" in json.dumps(read)
    assert gone["success"] is False
