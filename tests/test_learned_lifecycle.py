"""A learned world moves an entity along the state lifecycle its recording shows (issue 22).

A ticket server records one session: a new ticket is ``new`` (``stage_id`` 1); ``advance_ticket`` moves it
to the next stage and reports ``{"before": ..., "after": ...}``; ``set_ticket_stage`` moves it to the stage
named; ``close_ticket`` always ends at ``resolved`` (``stage_id`` 5); advancing a resolved ticket is
refused. Learned with the ``agentworld-mcp learn`` CLI (no seed), served by ``agentworld-mcp serve`` and
driven by a real MCP client over stdio with tickets the recording never saw: the words come from the
ticket's state, its stage word and id move together, a list by stage finds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"ticket_id": {"type": "integer"}}, "required": ["ticket_id"]}
CATALOG: JSONDict = {"name": "tickets", "tools": [
    {"name": "create_ticket", "description": "Create a ticket.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "get_ticket", "description": "Get a ticket by its id.", "inputSchema": KEY},
    {"name": "list_tickets", "description": "List tickets, optionally of one stage.",
     "inputSchema": {"type": "object", "properties": {"stage": {"type": "string"}}}},
    {"name": "advance_ticket", "description": "Move a ticket on.", "inputSchema": KEY},
    {"name": "set_ticket_stage", "description": "Put a ticket in a stage.",
     "inputSchema": {"type": "object", "properties": {"ticket_id": {"type": "integer"}, "stage": {"type": "string"}},
                     "required": ["ticket_id", "stage"]}},
    {"name": "close_ticket", "description": "Close a ticket.", "inputSchema": KEY},
]}
STAGE_IDS = {"new": 1, "triaged": 2, "working": 3, "resolved": 5}  # ``verified`` (4) is never shown with its id
REFUSAL = {"ok": False, "error": "Ticket is already resolved"}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def ticket(number: int, title: str, stage: str) -> JSONDict:
    return {"id": number, "title": title, "stage_id": STAGE_IDS[stage], "stage_name": stage}


def recording(path: Path) -> Path:
    titles = ["Printer jams on tray 2", "VPN drops at noon", "Badge reader offline"]
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("create_ticket", {"title": t}, {"ok": True, "ticket": ticket(n, t, "new")}) for n, t in enumerate(titles, 1)]
    calls += [
        ("advance_ticket", {"ticket_id": 1}, {"ok": True, "before": "new", "after": "triaged"}),
        ("get_ticket", {"ticket_id": 1}, {"ok": True, "ticket": ticket(1, titles[0], "triaged")}),
        ("set_ticket_stage", {"ticket_id": 1, "stage": "working"}, {"ok": True, "before": "triaged", "after": "working"}),
        ("list_tickets", {"stage": "working"}, {"ok": True, "tickets": [ticket(1, titles[0], "working")]}),
        ("advance_ticket", {"ticket_id": 1}, {"ok": True, "before": "working", "after": "verified"}),
        ("close_ticket", {"ticket_id": 2}, {"ok": True, "before": "new", "after": "resolved"}),
        ("get_ticket", {"ticket_id": 2}, {"ok": True, "ticket": ticket(2, titles[1], "resolved")}),
        ("close_ticket", {"ticket_id": 3}, {"ok": True, "before": "new", "after": "resolved"}),
        ("advance_ticket", {"ticket_id": 2}, REFUSAL),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def test_advancing_a_new_ticket_moves_it_to_the_next_stage_and_a_list_by_stage_finds_it(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_ticket", {"title": "Coffee machine leaks"}))
        number = made["ticket"]["id"]
        first = json_answer(await session.call_tool("advance_ticket", {"ticket_id": number}))
        second = json_answer(await session.call_tool("advance_ticket", {"ticket_id": number}))
        listed = json_answer(await session.call_tool("list_tickets", {"stage": "working"}))
        untouched = json_answer(await session.call_tool("list_tickets", {"stage": "new"}))
        read = json_answer(await session.call_tool("get_ticket", {"ticket_id": number}))
    assert (first["before"], first["after"]) == ("new", "triaged")
    assert (second["before"], second["after"]) == ("triaged", "working")
    assert [t["id"] for t in listed["tickets"]] == [number]
    assert untouched["tickets"] == []
    assert (read["ticket"]["stage_name"], read["ticket"]["stage_id"]) == ("working", 3)


async def test_setting_a_stage_takes_the_argument_and_the_id_between_its_recorded_neighbours(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_ticket", {"title": "Wifi slow upstairs"}))
        number = made["ticket"]["id"]
        moved = json_answer(await session.call_tool("set_ticket_stage", {"ticket_id": number, "stage": "verified"}))
        read = json_answer(await session.call_tool("get_ticket", {"ticket_id": number}))
    assert (moved["before"], moved["after"]) == ("new", "verified")
    # ``verified`` came after ``working`` (3) and before ``resolved`` (5) in the recording: its id is 4
    assert (read["ticket"]["stage_name"], read["ticket"]["stage_id"]) == ("verified", 4)


async def test_closing_always_reaches_the_final_stage_and_a_closed_ticket_is_refused_as_recorded(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_ticket", {"title": "Door code expired"}))
        number = made["ticket"]["id"]
        json_answer(await session.call_tool("advance_ticket", {"ticket_id": number}))
        closed = json_answer(await session.call_tool("close_ticket", {"ticket_id": number}))
        refused = await session.call_tool("advance_ticket", {"ticket_id": number})
        read = json_answer(await session.call_tool("get_ticket", {"ticket_id": number}))
    assert (closed["before"], closed["after"]) == ("triaged", "resolved")
    assert json.loads(refused.content[0].text) == REFUSAL
    assert (read["ticket"]["stage_name"], read["ticket"]["stage_id"]) == ("resolved", 5)
