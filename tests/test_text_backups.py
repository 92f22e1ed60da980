"""A learned editor keeps the backups its applied edits leave, and a restore brings one back (issue 22).

An editor server records one session: a file read whole, an edit applied (its report names the backup it
left, a path holding a hash of the file's path and the moment's epoch seconds), a preview (no backup), a
restore (the backup it restored, the one it made of the replaced text, the backups now), a search refused
for turning two switches on together. Learned with the ``agentworld-mcp learn`` CLI, served over stdio to a
real MCP client on another file: the backup is named by the recorded template, a restore puts the old text
back, a file never edited is refused, and the learned refusal applies only to calls that turn the switch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
PATH = {"path": {"type": "string", "description": "Absolute path of the file"}}
BACKUP = {"type": "object", "properties": {"id": {"type": "string"}, "timestamp": {"type": "string"},
                                           "size": {"type": "integer"}, "path": {"type": "string"}}}
CATALOG: JSONDict = {"name": "editor", "tools": [
    {"name": "read_file", "description": "Read a file.",
     "inputSchema": {"type": "object", "properties": PATH, "required": ["path"]},
     "outputSchema": {"type": "object", "properties": {
         "content": {"type": "string"}, "start_line": {"type": "integer"}, "end_line": {"type": "integer"},
         "total_lines": {"type": "integer"}}}},
    {"name": "edit_file", "description": "Apply search/replace changes to a file.",
     "inputSchema": {"type": "object", "properties": {
         **PATH, "changes": {"type": "array", "items": {"type": "object", "properties": {
             "search": {"type": "string"}, "replace": {"type": "string"}}}},
         "preview": {"type": "boolean", "default": False}}, "required": ["path", "changes"]},
     "outputSchema": {"type": "object", "properties": {
         "success": {"type": "boolean"}, "changes_applied": {"type": "integer"}, "changes_failed": {"type": "integer"},
         "diff": {"type": "string"}, "backup_created": {"type": ["null", "string"]}}}},
    {"name": "restore_file", "description": "Restore a file from its backups (the latest without backup_id).",
     "inputSchema": {"type": "object", "properties": {**PATH, "backup_id": {"type": "string"}}, "required": ["path"]},
     "outputSchema": {"type": "object", "properties": {
         "success": {"type": "boolean"}, "reverted_to": BACKUP, "current_saved_as": BACKUP,
         "available_backups": {"type": "array", "items": BACKUP}}}},
    {"name": "find_in_file", "description": "Find a pattern in a file.",
     "inputSchema": {"type": "object", "properties": {
         **PATH, "pattern": {"type": "string"}, "regex": {"type": "boolean", "default": False},
         "fuzzy": {"type": "boolean", "default": True}}, "required": ["path", "pattern"]},
     "outputSchema": {"type": "object", "properties": {
         "results": {"type": "array", "items": {"type": "object", "properties": {
             "line_number": {"type": "integer"}, "match": {"type": "string"}}}},
         "total_matches": {"type": "integer"}}}},
    {"name": "search_folder", "description": "Search the files under a folder.",
     "inputSchema": {"type": "object", "properties": {
         "dir_path": {"type": "string"}, "pattern": {"type": "string"}, "include_pattern": {"type": "string"}},
         "required": ["dir_path", "pattern"]},
     "outputSchema": {"type": "object", "properties": {
         "total_matches": {"type": "integer"},
         "results": {"type": "array", "items": {"type": "object", "properties": {
             "file": {"type": "string"}, "matches": {"type": "array", "items": {"type": "object", "properties": {
                 "line_number": {"type": "integer"}, "match": {"type": "string"}}}}}}}}}},
]}
TRAIN = "/work/notes.txt"
TEXT = "alpha\nbeta\ngamma\n"
REFUSAL = "Search failed: Cannot use regex and fuzzy together"


def _backup(path: str, stamp: int = 1795514400) -> str:
    return f"/work/.saved/{path.rsplit('/', 1)[1]}.{hashlib.md5(path.encode()).hexdigest()[:8]}.{stamp}"


def line(turn: int, tool: str, arguments: JSONDict, answer: Any, error: bool = False) -> str:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    other = "/work/todo.txt"
    saved = {"id": "1795514400", "timestamp": "2026-11-24T10:00:00", "size": 17, "path": _backup(TRAIN)}
    calls: list[tuple[str, JSONDict, Any, bool]] = [
        ("read_file", {"path": TRAIN}, {"content": TEXT, "start_line": 1, "end_line": 3, "total_lines": 3}, False),
        ("read_file", {"path": other}, {"content": "buy milk\n", "start_line": 1, "end_line": 1, "total_lines": 1},
         False),
        ("edit_file", {"path": TRAIN, "changes": [{"search": "beta", "replace": "BETA"}], "preview": True},
         {"success": True, "changes_applied": 1, "changes_failed": 0, "diff": "-beta\n+BETA\n", "backup_created": None},
         False),
        ("edit_file", {"path": TRAIN, "changes": [{"search": "beta", "replace": "BETA"}]},
         {"success": True, "changes_applied": 1, "changes_failed": 0, "diff": "-beta\n+BETA\n",
          "backup_created": _backup(TRAIN)}, False),
        ("restore_file", {"path": TRAIN}, {"success": True, "reverted_to": saved, "current_saved_as": saved,
                                          "available_backups": [saved]}, False),
        ("find_in_file", {"path": other, "pattern": "milk|bread", "regex": True}, REFUSAL, True),
        ("find_in_file", {"path": TRAIN, "pattern": "gamma", "fuzzy": False}, {"results": [{"line_number": 3, "match": "gamma"}], "total_matches": 1}, False),
        ("find_in_file", {"path": TRAIN, "pattern": "alpha"}, {"results": [{"line_number": 1, "match": "alpha"}], "total_matches": 1}, False),
        ("search_folder", {"dir_path": "/work", "pattern": "beta"},
         {"total_matches": 1, "results": [{"file": "notes.txt", "matches": [{"line_number": 2, "match": "beta"}]}]},
         False),
    ]
    lines = [line(turn, *call) for turn, call in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")


async def test_an_applied_edit_names_its_backup_as_recorded_and_a_restore_brings_the_old_text_back(
        tmp_path: Path) -> None:
    world = learned(tmp_path)
    other = "/work/todo.txt"
    async with stdio_session(str(world)) as session:
        preview = json_answer(await session.call_tool(
            "edit_file", {"path": other, "changes": [{"search": "milk", "replace": "oat milk"}], "preview": True}))
        edited = json_answer(await session.call_tool(
            "edit_file", {"path": other, "changes": [{"search": "milk", "replace": "oat milk"}]}))
        changed = json_answer(await session.call_tool("read_file", {"path": other}))
        restored = json_answer(await session.call_tool("restore_file", {"path": other}))
        back = json_answer(await session.call_tool("read_file", {"path": other}))
    assert preview["backup_created"] is None
    made = edited["backup_created"]
    assert made.startswith("/work/.saved/todo.txt." + hashlib.md5(other.encode()).hexdigest()[:8] + ".")
    assert "oat milk" in changed["content"]
    assert restored["reverted_to"]["path"] == made and restored["reverted_to"]["size"] == len("buy milk\n")
    assert restored["current_saved_as"]["size"] == len("buy oat milk\n")
    assert {b["path"] for b in restored["available_backups"]} >= {made}
    assert back["content"] == "buy milk\n"


async def test_restoring_a_file_never_edited_is_refused_for_having_no_backups(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        refused = await session.call_tool("restore_file", {"path": "/work/todo.txt"})
    assert refused.isError
    assert "No backups" in refused.content[0].text


async def test_a_refusal_learned_for_a_switch_applies_only_to_calls_that_turn_it(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        first = await session.call_tool("find_in_file", {"path": "/work/todo.txt", "pattern": "buy"})
        plain = await session.call_tool("find_in_file", {"path": "/work/todo.txt", "pattern": "milk", "fuzzy": False})
        switched = await session.call_tool("find_in_file", {"path": TRAIN, "pattern": "a|b", "regex": True})
    assert not first.isError and not plain.isError  # searched before, as the refused call's file was
    assert switched.isError and "regex and fuzzy" in switched.content[0].text


async def test_a_folder_search_finds_matches_in_the_files_the_world_holds_by_the_shapes_keys(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        found = json_answer(await session.call_tool("search_folder", {"dir_path": "/work", "pattern": "MILK"}))
        only = json_answer(await session.call_tool(
            "search_folder", {"dir_path": "/work", "pattern": "a", "include_pattern": "notes*"}))
    assert found["total_matches"] == 1
    assert found["results"] == [{"file": "todo.txt", "matches": [{"line_number": 1, "match": "buy milk"}]}]
    assert [r["file"] for r in only["results"]] == ["notes.txt"]
