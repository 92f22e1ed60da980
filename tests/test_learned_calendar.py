"""A world learned from one session of a scheduling server answers a session about entities it never saw.

A booking server records one session: the ``Lab`` room's bookings are listed, a booking is made with and
without a repeat rule, one is moved, one cancelled and cancelled again (refused), and the ``Lab`` is listed
again. Learned with the ``agentworld-mcp learn`` CLI, served over stdio and driven by a real MCP client
like a different session would: a room the recording never listed (``Studio``) holds bookings the
world could not see, so acting on one of them is answered as the server would (it exists there),
while a booking of the listed room that is unknown, or one cancelled in the session, stays not found;
a new booking starts as the recording's bookings started (``paid: false``, ``whole_day`` from the form
of its start), shows its series flag only when it repeats, and stores times in the server's zone;
``next_slot`` is answered only for a repeating booking; a listing comes sorted by start as its
description says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
S = {"type": "string"}
OPTIONAL = {"anyOf": [S, {"type": "null"}], "default": None}
CATALOG: JSONDict = {"name": "bookings", "tools": [
    {"name": "list_rooms", "description": "List the rooms.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "add_room", "description": "Add a room with the given name.",
     "inputSchema": {"type": "object", "properties": {"name": S}, "required": ["name"]}},
    {"name": "list_bookings", "description": "List booking occurrences in [start, end], expanding repeating "
                                             "bookings, sorted by start.",
     "inputSchema": {"type": "object", "properties": {"start": S, "end": S, "room": OPTIONAL},
                     "required": ["start", "end"]}},
    {"name": "make_booking", "description": "Make a booking (repeating if `rrule` is given).",
     "inputSchema": {"type": "object", "properties": {"title": S, "start": S, "end": OPTIONAL, "room": OPTIONAL,
                                                      "rrule": OPTIONAL}, "required": ["title", "start"]}},
    {"name": "change_booking", "description": "Change a booking. Only the fields you pass change.",
     "inputSchema": {"type": "object", "properties": {"booking_id": S, "room": OPTIONAL, "title": OPTIONAL, "start": OPTIONAL,
                                                      "end": OPTIONAL}, "required": ["booking_id"]}},
    {"name": "cancel_booking", "description": "Cancel a booking.",
     "inputSchema": {"type": "object", "properties": {"booking_id": S, "room": OPTIONAL}, "required": ["booking_id"]}},
]}
ZONE = "Europe/Vienna"


def booking(ref: str, title: str, start: str, end: str, **more: Any) -> JSONDict:
    return {"booking_id": ref, "title": title, "start": start, "end": end, "whole_day": False, "paid": False, **more}


def recording(path: Path) -> Path:
    seeded = [booking("b-seed-1", "Team sync", "2026-12-01T09:00:00+01:00", "2026-12-01T09:30:00+01:00"),
              booking("b-seed-2", "Vendor demo", "2026-12-03T14:00:00+01:00", "2026-12-03T15:00:00+01:00")]
    made_one = {"ok": True, "booking_id": "b-new-1", "room": "Lab", "start_resolved": "2026-12-08T14:00:00+01:00",
                "note": f"resolved 2026-12-08T14:00 in {ZONE}"}
    made_two = {"ok": True, "booking_id": "b-new-2", "room": "Lab", "start_resolved": "2026-12-05T09:00:00+01:00",
                "note": f"resolved 2026-12-05T09:00 in {ZONE}", "next_slot": "2026-12-05T09:00:00+01:00"}
    made_three = {"ok": True, "booking_id": "b-new-3", "room": "Lab", "start_resolved": "2026-12-12",
                  "note": "resolved 2026-12-12 (whole day)"}
    calls: list[tuple[str, JSONDict, Any, bool]] = [
        ("list_rooms", {}, {"rooms": ["Lab", "Studio"]}, False),
        ("list_bookings", {"start": "2026-12-01", "end": "2026-12-04", "room": "Lab"},
         {"room": "Lab", "count": 2, "bookings": seeded}, False),
        ("make_booking", {"title": "Budget review", "start": "2026-12-08T14:00", "end": "2026-12-08T15:00", "room": "Lab"},
         made_one, False),
        ("make_booking", {"title": "Reading group", "start": "2026-12-05T09:00", "end": "2026-12-05T10:00", "room": "Lab",
                          "rrule": "FREQ=WEEKLY;COUNT=2"}, made_two, False),
        ("make_booking", {"title": "Open day", "start": "2026-12-12", "room": "Lab"}, made_three, False),
        ("change_booking", {"booking_id": "b-seed-2", "room": "Lab", "title": "Vendor demo (moved)"},
         {"ok": True, "booking_id": "b-seed-2", "room": "Lab"}, False),
        ("cancel_booking", {"booking_id": "b-seed-1", "room": "Lab"}, {"ok": True, "cancelled": "b-seed-1", "room": "Lab"}, False),
        ("cancel_booking", {"booking_id": "b-seed-1", "room": "Lab"}, "Error executing tool cancel_booking", True),
        ("list_bookings", {"start": "2026-12-01", "end": "2026-12-31", "room": "Lab"},
         {"room": "Lab", "count": 5, "bookings": [
             {**seeded[1], "title": "Vendor demo (moved)"},
             booking("b-new-2", "Reading group", "2026-12-05T09:00:00+01:00", "2026-12-05T10:00:00+01:00", series=True),
             booking("b-new-1", "Budget review", "2026-12-08T14:00:00+01:00", "2026-12-08T15:00:00+01:00"),
             {**booking("b-new-3", "Open day", "2026-12-12", "2026-12-13"), "whole_day": True},
             booking("b-new-2", "Reading group", "2026-12-12T09:00:00+01:00", "2026-12-12T10:00:00+01:00", series=True)]},
         False),
    ]
    lines = []
    for turn, (tool, arguments, answer, is_error) in enumerate(calls, 1):
        text = answer if isinstance(answer, str) else json.dumps(answer)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        lines.append(json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")


async def test_acting_on_a_booking_of_a_room_the_recording_never_listed_succeeds_once(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        changed = await session.call_tool("change_booking", {"booking_id": "b-unseen-9", "room": "Studio", "title": "Pottery"})
        cancelled = await session.call_tool("cancel_booking", {"booking_id": "b-unseen-7", "room": "Studio"})
        again = await session.call_tool("cancel_booking", {"booking_id": "b-unseen-7", "room": "Studio"})
    assert json_answer(changed)["booking_id"] == "b-unseen-9"
    assert json_answer(cancelled)["ok"] is True
    assert again.isError  # cancelled in this session: gone, as the recording's second cancel showed


async def test_an_unknown_booking_of_a_listed_or_unheard_of_room_is_still_not_found(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        listed_room = await session.call_tool("change_booking", {"booking_id": "b-unseen-3", "room": "Lab", "title": "X"})
        no_such_room = await session.call_tool("cancel_booking", {"booking_id": "b-unseen-4", "room": "Attic"})
    assert listed_room.isError and no_such_room.isError


async def test_a_new_booking_starts_as_the_recorded_ones_did_and_lists_sorted_by_start(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        single = json_answer(await session.call_tool(
            "make_booking", {"title": "Interview", "start": "2027-01-20T11:00", "end": "2027-01-20T12:00", "room": "Studio"}))
        series = json_answer(await session.call_tool(
            "make_booking", {"title": "Choir", "start": "2027-01-06T18:00", "end": "2027-01-06T19:00", "room": "Studio",
                             "rrule": "FREQ=WEEKLY;COUNT=3"}))
        day = json_answer(await session.call_tool("make_booking", {"title": "Fair", "start": "2027-01-09", "room": "Studio"}))
        listed = json_answer(await session.call_tool("list_bookings", {"start": "2027-01-01", "end": "2027-01-31",
                                                                       "room": "Studio"}))
    assert "next_slot" not in single and series["next_slot"] == "2027-01-06T18:00:00+01:00"
    assert day["start_resolved"] == "2027-01-09"
    items = listed["bookings"]
    starts = [item["start"] for item in items]
    assert [i["title"] for i in items] == ["Choir", "Fair", "Choir", "Interview", "Choir"], starts
    interview = items[3]
    assert (interview["start"], interview["paid"], interview["whole_day"]) == ("2027-01-20T11:00:00+01:00", False, False)
    assert "series" not in interview and items[0]["series"] is True
    assert next(i for i in items if i["title"] == "Fair")["whole_day"] is True
