"""A learned world answers a delete's row count and a search by title from the episode's state (issue 22).

A card server records one session: ``delete_card`` answers ``{"deleted_id": 2, "rows_affected": 1}`` for a
card that was there and ``rows_affected: 0`` for one deleted already; ``search_cards`` finds a card whose
title holds the query though the snippet it shows (the card's description) does not. Learned with the
``agentworld-mcp learn`` CLI (no seed), served by ``agentworld-mcp serve`` and driven by a real MCP client
over stdio with cards the recording never saw: the count is the state's (not the training session's last
value), and the search finds a new card by a word of its title.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"card_id": {"type": "integer"}}, "required": ["card_id"]}
CATALOG: JSONDict = {"name": "cards", "tools": [
    {"name": "create_card", "description": "Create a card.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "description": {"type": "string"}},
                     "required": ["title"]}},
    {"name": "get_card", "description": "Get a card by its id.", "inputSchema": KEY},
    {"name": "delete_card", "description": "Permanently delete a card.", "inputSchema": KEY},
    {"name": "search_cards", "description": "Full-text search across cards.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
]}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def card(number: int, title: str, description: str | None) -> JSONDict:
    return {"id": number, "title": title, "description": description, "status": "open"}


def recording(path: Path) -> Path:
    cards = [(1, "Export board to CSV", "One row per card with its status."),
             (2, "Fix login timeout", "Sessions end after five minutes."),
             (3, "Archive old sprints", "Move closed sprints out of the way.")]
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("create_card", {"title": t, "description": d}, {"success": True, "card": card(n, t, d)}) for n, t, d in cards]
    calls += [
        ("search_cards", {"query": "export"}, {"success": True, "items": [
            {"id": 1, "title": cards[0][1], "snippet": cards[0][2], "status": "open"}], "total_count": 1}),
        ("delete_card", {"card_id": 2}, {"success": True, "deleted_id": 2, "rows_affected": 1}),
        ("get_card", {"card_id": 3}, {"success": True, "card": card(*cards[2])}),
        ("delete_card", {"card_id": 2}, {"success": True, "deleted_id": 2, "rows_affected": 0}),
        ("delete_card", {"card_id": 3}, {"success": True, "deleted_id": 3, "rows_affected": 1}),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def test_a_delete_counts_one_row_for_each_card_that_was_there(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = [json_answer(await session.call_tool("create_card", {"title": t}))["card"]["id"]
                for t in ("Rotate the API keys", "Plan the offsite")]
        answers = [json_answer(await session.call_tool("delete_card", {"card_id": n})) for n in made]
    assert [(a["deleted_id"], a["rows_affected"]) for a in answers] == [(n, 1) for n in made]


async def test_a_search_finds_a_new_card_by_a_word_of_its_title_with_its_own_fields(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_card", {"title": "Renew the staging certificate"}))
        json_answer(await session.call_tool("create_card", {"title": "Tidy the backlog", "description": "Weekly."}))
        found = json_answer(await session.call_tool("search_cards", {"query": "certificate"}))
        missing = json_answer(await session.call_tool("search_cards", {"query": "zeppelin"}))
    assert [(item["id"], item["title"]) for item in found["items"]] == [
        (made["card"]["id"], "Renew the staging certificate")]
    assert found["items"][0]["status"] == made["card"]["status"]
    assert found["total_count"] == 1
    assert missing["items"] == [] and missing["total_count"] == 0
