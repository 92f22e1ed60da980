"""A world learned from one session answers another session as the recorded server would (issue 22).

Two small servers record one session each; ``agentworld-mcp learn`` learns a world through the CLI and
``agentworld-mcp serve`` serves it to a real MCP client over stdio, which plays a different session
(other titles, other paths):

* a card board: every write of the recorded session is stamped with one instant, written without a
  zone (the learned clock); a card's history lists a row per create and move of the card, numbered
  among the session's events (a history of the lifecycle); a summary counts the cards by kind and
  state (counts of the episode's entities);
* a notes store with an outputSchema: the ``etag`` is the sha256 of the note's text (a digest field);
  refusals keep the structured error the server answered; a workspace the session never used is
  refused as the recording refused one.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
INSTANT = "2026-05-01T10:00:00"
CARD = {"type": "object", "properties": {"card_id": {"type": "integer"}}, "required": ["card_id"]}
BOARD: JSONDict = {"name": "board", "tools": [
    {"name": "create_card", "description": "Create a card.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "kind": {"type": "string"}},
                     "required": ["title", "kind"]}},
    {"name": "get_card", "description": "Get a card by its id.", "inputSchema": CARD},
    {"name": "start_card", "description": "Start work on a card.", "inputSchema": CARD},
    {"name": "finish_card", "description": "Finish a card.", "inputSchema": CARD},
    {"name": "card_history", "description": "The state changes of a card, oldest first.", "inputSchema": CARD},
    {"name": "board_summary", "description": "How many cards of each kind are in each state.",
     "inputSchema": {"type": "object", "properties": {}}},
]}
DATA = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                                         "etag": {"type": "string"}}, "required": ["path", "etag"]}
ANSWER = {"type": "object", "properties": {"ok": {"type": "boolean"}, "data": DATA, "error": {"type": "object"}},
          "required": ["ok", "data"]}  # a success's shape (a client checks no refusal against it)
NOTE = {"type": "object", "properties": {"workspace": {"type": "string"}, "path": {"type": "string"}},
        "required": ["workspace", "path"]}
NOTES: JSONDict = {"name": "notes", "tools": [
    {"name": "create_note", "description": "Create a note.", "outputSchema": ANSWER,
     "inputSchema": {"type": "object", "properties": {"workspace": {"type": "string"}, "path": {"type": "string"},
                                                      "content": {"type": "string"}},
                     "required": ["workspace", "path", "content"]}},
    {"name": "read_note", "description": "Read a note.", "inputSchema": NOTE, "outputSchema": ANSWER},
]}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict, *, structured: bool = False,
         is_error: bool = False) -> str:
    result: JSONDict = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": is_error}
    if structured:
        result["structuredContent"] = answer
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def card(number: int, title: str, kind: str, state: str) -> JSONDict:
    return {"id": number, "title": title, "kind": kind, "state": state, "created_at": INSTANT, "updated_at": INSTANT}


def event(seq: int, number: int, before: str | None, after: str, kind: str) -> JSONDict:
    return {"seq": seq, "card_id": number, "before": before, "after": after, "kind": kind, "at": INSTANT}


def board_recording(path: Path) -> Path:
    made = [("Fix login", "bug"), ("Write docs", "task"), ("Crash on save", "bug")]
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("create_card", {"title": t, "kind": k}, {"ok": True, "card": card(n, t, k, "open")})
        for n, (t, k) in enumerate(made, 1)]
    calls += [
        ("start_card", {"card_id": 1}, {"ok": True, "from": "open", "to": "active"}),
        ("finish_card", {"card_id": 1}, {"ok": True, "from": "active", "to": "finished"}),
        ("card_history", {"card_id": 1}, {"ok": True, "events": [
            event(1, 1, None, "open", "create"), event(4, 1, "open", "active", "start"),
            event(5, 1, "active", "finished", "finish")], "total": 3}),
        ("finish_card", {"card_id": 2}, {"ok": True, "from": "open", "to": "finished"}),
        ("get_card", {"card_id": 2}, {"ok": True, "card": card(2, "Write docs", "task", "finished")}),
        ("board_summary", {}, {"ok": True, "summary": {"bug": {"finished": 1, "open": 1}, "task": {"finished": 1}}}),
    ]
    path.write_text("\n".join(line(n, *c) for n, c in enumerate(calls, 1)) + "\n", encoding="utf-8")
    return path


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def notes_recording(path: Path) -> Path:
    texts = {"Plans/garden.md": "# Garden\n\nTomatoes in May.\n", "Plans/kitchen.md": "# Kitchen\n\nNew tiles.\n"}
    calls: list[tuple[str, JSONDict, JSONDict, bool]] = []
    for name, text in texts.items():
        calls.append(("create_note", {"workspace": "main", "path": name, "content": text},
                      {"ok": True, "data": {"path": name, "etag": sha(text)}}, False))
        for _ in range(2):  # read twice: reading a note again is usual
            calls.append(("read_note", {"workspace": "main", "path": name},
                          {"ok": True, "data": {"path": name, "content": text, "etag": sha(text)}}, False))
    calls.append(("read_note", {"workspace": "home", "path": "Plans/garden.md"},
                  {"ok": False, "error": {"code": "WORKSPACE_NOT_FOUND", "message": "Workspace 'home' is not configured."}},
                  True))
    lines = [line(n, tool, args, answer, structured=True, is_error=failed)
             for n, (tool, args, answer, failed) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_every_write_of_an_episode_is_stamped_with_one_instant_written_as_the_server_writes_it(
        tmp_path: Path) -> None:
    world = learn_cli(board_recording(tmp_path / "board.jsonl"), BOARD, tmp_path / "board.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        first = json_answer(await session.call_tool("create_card", {"title": "Slow search", "kind": "bug"}))["card"]
        second = json_answer(await session.call_tool("create_card", {"title": "Add export", "kind": "task"}))["card"]
        read = json_answer(await session.call_tool("get_card", {"card_id": first["id"]}))["card"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", first["created_at"]), first  # no zone, as recorded
    assert first["created_at"] == second["created_at"] == second["updated_at"] == read["created_at"]


async def test_a_cards_history_lists_a_row_per_create_and_move_of_this_episode(tmp_path: Path) -> None:
    world = learn_cli(board_recording(tmp_path / "board.jsonl"), BOARD, tmp_path / "board.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        one = json_answer(await session.call_tool("create_card", {"title": "Slow search", "kind": "bug"}))["card"]["id"]
        two = json_answer(await session.call_tool("create_card", {"title": "Add export", "kind": "task"}))["card"]["id"]
        await session.call_tool("start_card", {"card_id": two})
        await session.call_tool("finish_card", {"card_id": two})
        history = json_answer(await session.call_tool("card_history", {"card_id": two}))
        alone = json_answer(await session.call_tool("card_history", {"card_id": one}))
    assert [(e["seq"], e["before"], e["after"], e["kind"]) for e in history["events"]] == [
        (2, None, "open", "create"), (3, "open", "active", "start"), (4, "active", "finished", "finish")]
    assert all(e["card_id"] == two for e in history["events"]) and history["total"] == 3
    assert [(e["seq"], e["after"]) for e in alone["events"]] == [(1, "open")] and alone["total"] == 1


async def test_a_summary_counts_the_episodes_cards_by_kind_and_state(tmp_path: Path) -> None:
    world = learn_cli(board_recording(tmp_path / "board.jsonl"), BOARD, tmp_path / "board.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        for title, kind in (("Slow search", "bug"), ("Add export", "task"), ("Typo in footer", "bug")):
            await session.call_tool("create_card", {"title": title, "kind": kind})
        await session.call_tool("start_card", {"card_id": 3})
        summary = json_answer(await session.call_tool("board_summary", {}))["summary"]
    assert summary == {"bug": {"active": 1, "open": 1}, "task": {"open": 1}}


async def test_an_etag_the_recording_shows_as_the_texts_sha256_is_the_new_notes_and_a_read_shows_it_again(
        tmp_path: Path) -> None:
    world = learn_cli(notes_recording(tmp_path / "notes.jsonl"), NOTES, tmp_path / "notes.json", "--no-seed")
    text = "# Trip\n\nLisbon in April.\n"
    async with stdio_session(str(world)) as session:
        made = await session.call_tool("create_note", {"workspace": "main", "path": "Travel/trip.md", "content": text})
        read = await session.call_tool("read_note", {"workspace": "main", "path": "Travel/trip.md"})
    assert made.structuredContent is not None and made.structuredContent["data"]["etag"] == sha(text)
    assert read.structuredContent is not None and read.structuredContent["data"]["etag"] == sha(text)


async def test_a_workspace_the_session_never_used_is_refused_with_the_recorded_structured_error(tmp_path: Path) -> None:
    world = learn_cli(notes_recording(tmp_path / "notes.jsonl"), NOTES, tmp_path / "notes.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_note", {"workspace": "main", "path": "a.md", "content": "# A\n"})
        refused = await session.call_tool("read_note", {"workspace": "archive", "path": "a.md"})
        kept = await session.call_tool("read_note", {"workspace": "main", "path": "a.md"})
    assert refused.isError and refused.structuredContent is not None
    assert refused.structuredContent["error"] == {"code": "WORKSPACE_NOT_FOUND",
                                                  "message": "Workspace 'archive' is not configured."}
    assert not kept.isError
