"""A learned world answers the values its recording makes clear, where the model would invent them (issue 22).

A board server records one session: every answer says ``success: true``, every tool shows the same
board id, a new card's ``state_id`` is always 1 and its ``kind_id`` follows the ``card_type`` argument,
a card's ``notes`` are null unless given, a page read never has more and counts its words in the
hundreds. Learned with the ``agentworld-mcp learn`` CLI, served by ``agentworld-mcp serve`` and driven
by a real MCP client over stdio with titles the recording never saw; the statistics never replace a
value the call gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
BOARD = "b7f3c2a9e14d"
CATALOG: JSONDict = {"name": "board", "tools": [
    {"name": "open_board", "description": "Open the board of the current directory.",
     "inputSchema": {"type": "object", "properties": {"directory": {"type": "string"}}, "required": ["directory"]}},
    {"name": "add_card", "description": "Add a card to the board.",
     "inputSchema": {"type": "object", "properties": {
         "card_type": {"type": "string"}, "title": {"type": "string"}, "notes": {"type": "string"},
         "label": {"type": "string"}}, "required": ["card_type", "title"]}},
    {"name": "get_card", "description": "Get a card by its id.",
     "inputSchema": {"type": "object", "properties": {"card_id": {"type": "integer"}}, "required": ["card_id"]}},
    {"name": "page_stats", "description": "Statistics of a wiki page.",
     "inputSchema": {"type": "object", "properties": {"page": {"type": "string"}}, "required": ["page"]},
     "outputSchema": {"type": "object", "properties": {
         "ok": {"type": "boolean"}, "data": {"type": "object", "properties": {
             "page": {"type": "string"}, "words": {"type": "integer"}, "state": {"type": "string"},
             "has_more": {"type": "boolean"}}}}, "required": ["ok", "data"]}},
]}
KINDS = {"bug": 1, "chore": 2, "idea": 3}
CARDS = [("bug", "Login fails after reset", "Cookie stays stale."), ("idea", "Export to CSV", None),
         ("chore", "Renew certificates", None), ("idea", "Dark mode", "Users keep asking.")]
PAGES = [("Home", 120, "draft"), ("Setup", 87, "final"), ("Roadmap", 301, "draft")]


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict, structured: bool = False) -> str:
    result: JSONDict = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    if structured:
        result["structuredContent"] = answer
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def card(number: int, kind: str, title: str, notes: str | None) -> JSONDict:
    return {"id": number, "board_id": BOARD, "kind_id": KINDS[kind], "state_id": 1, "title": title,
            "notes": notes, "kind_name": kind, "label": "normal"}


def recording(path: Path) -> Path:
    lines = [line(1, "open_board", {"directory": "."}, {"success": True, "board_id": BOARD})]
    for number, (kind, title, notes) in enumerate(CARDS, 1):
        arguments = {"card_type": kind, "title": title, **({"notes": notes} if notes else {})}
        lines.append(line(len(lines) + 1, "add_card", arguments, {"success": True, "card": card(number, kind, title, notes)}))
    for number, (kind, title, notes) in enumerate(CARDS[:2], 1):
        lines.append(line(len(lines) + 1, "get_card", {"card_id": number},
                          {"success": True, "card": card(number, kind, title, notes)}))
    for page, words, state in PAGES:
        answer = {"ok": True, "data": {"page": page, "words": words, "state": state, "has_more": False}}
        lines.append(line(len(lines) + 1, "page_stats", {"page": page}, answer, structured=True))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


def parsed(result: Any) -> JSONDict:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return dict(result.structuredContent)
    body = json.loads(result.content[0].text)
    assert isinstance(body, dict)
    return body


async def test_a_new_card_answers_the_recorded_constants_and_the_kind_its_type_decides(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        opened = parsed(await session.call_tool("open_board", {"directory": "."}))
        made = parsed(await session.call_tool("add_card", {"card_type": "chore", "title": "Water the plants"}))
        read = parsed(await session.call_tool("get_card", {"card_id": made["card"]["id"]}))
    assert opened["success"] is True and opened["board_id"] == BOARD
    item = made["card"]
    assert made["success"] is True
    assert item["board_id"] == BOARD and item["state_id"] == 1 and item["kind_id"] == KINDS["chore"]
    assert item["title"] == "Water the plants" and item["kind_name"] == "chore"
    assert item["notes"] is None  # no notes given: the server's null, not an invented sentence
    # the stored card holds the same values: a later read shows them
    assert {k: read["card"][k] for k in ("board_id", "kind_id", "state_id", "notes")} == {
        "board_id": BOARD, "kind_id": KINDS["chore"], "state_id": 1, "notes": None}


async def test_a_statistic_never_replaces_a_value_the_call_gives(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = parsed(await session.call_tool("add_card", {"card_type": "bug", "title": "Crash on save",
                                                           "notes": "Seen twice.", "label": "urgent"}))
    item = made["card"]
    # ``label`` was ``normal`` in every recorded answer, but this call names it: the call's value stands
    assert item["label"] == "urgent"
    assert item["notes"] == "Seen twice." and item["title"] == "Crash on save" and item["kind_id"] == KINDS["bug"]


async def test_a_type_the_recording_never_showed_keeps_the_models_answer(tmp_path: Path) -> None:
    world = learned(tmp_path)
    table = json.loads(world.read_text(encoding="utf-8"))
    meta = next(t for t in table["tools"] if t["name"] == "add_card")["_meta"]["agentworld/values"]
    assert meta["card.kind_id"] == {"x-argument": "card_type", "x-cases": [["bug", 1], ["idea", 3], ["chore", 2]]}
    async with stdio_session(str(world)) as session:
        made = parsed(await session.call_tool("add_card", {"card_type": "epic", "title": "Mobile app"}))
    item = made["card"]
    assert isinstance(item["kind_id"], int) and item["state_id"] == 1 and item["kind_name"] == "epic"


async def test_numbers_and_words_of_a_structured_answer_stay_within_what_the_recording_showed(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        answers = [parsed(await session.call_tool("page_stats", {"page": page})) for page in ("FAQ", "Team", "Budget")]
    for answer in answers:
        data = answer["data"]
        assert answer["ok"] is True and data["has_more"] is False
        assert 0 <= data["words"] <= 999  # the recording's magnitude, not an unbounded random integer
        assert data["state"] in ("draft", "final")  # a recorded word, never an invented one
