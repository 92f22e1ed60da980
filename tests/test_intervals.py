"""Times and parents a scheduling catalog's calls carry: listed in a window, refused when impossible.

A listing that takes ``start``/``end`` selects what overlaps the window (not equality on ``start``) and
shows each repeat of a series where its description says it lists occurrences; a write whose interval
ends before it starts, whose recurrence rule RFC 5545 rejects, or that names a parent the world does
not hold is refused. A world learned from a recording seeds the parents a listing of names showed and
the items a scoped listing showed, in that scope. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import learn_cli, stdio_session, bare_tool as _tool

_STR = {"type": "string"}
_OPT = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}


CATALOG = {
    "name": "rooms",
    "tools": [
        _tool("list_rooms", 'List the rooms. Returns `{"rooms": [name, ...]}`.', {}, []),
        _tool("create_room", "Create a room with the given name.", {"name": _STR}, ["name"]),
        _tool("create_booking", "Book a room (repeating if `rrule` is given).",
              {"title": _STR, "start": _STR, "end": {**_OPT, "description": "Must be after `start`."},
               "room": _OPT, "rrule": _OPT}, ["title", "start"]),
        _tool("list_bookings", "List booking occurrences in [start, end], expanding repeating bookings.",
              {"start": _STR, "end": _STR, "room": _OPT}, ["start", "end"]),
        _tool("update_booking", "Change a booking.", {"booking_id": _STR, "room": _OPT, "title": _OPT}, ["booking_id"]),
        _tool("delete_booking", "Cancel a booking.", {"booking_id": _STR, "room": _OPT}, ["booking_id"]),
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _items(body: Any) -> list[dict[str, Any]]:
    return body if isinstance(body, list) else next(v for v in body.values() if isinstance(v, list))


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "rooms.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return path


async def test_a_booking_is_listed_by_any_window_that_overlaps_it_and_by_no_other(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_room", {"name": "Attic"})
        made = await session.call_tool("create_booking", {"title": "Standup", "start": "2026-12-07T17:30",
                                                          "end": "2026-12-07T18:00", "room": "Attic"})
        assert not made.isError
        inside = _items(_body(await session.call_tool(
            "list_bookings", {"start": "2026-12-01", "end": "2026-12-14", "room": "Attic"})))
        assert [b["title"] for b in inside] == ["Standup"]
        same_day = _items(_body(await session.call_tool(
            "list_bookings", {"start": "2026-12-07", "end": "2026-12-07", "room": "Attic"})))
        assert [b["title"] for b in same_day] == ["Standup"]
        later = _items(_body(await session.call_tool(
            "list_bookings", {"start": "2027-01-01", "end": "2027-01-31", "room": "Attic"})))
        assert later == []


async def test_a_repeating_booking_is_listed_once_per_occurrence_inside_the_window(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_booking", {"title": "Review", "start": "2026-12-02T10:00",
                                                   "end": "2026-12-02T11:00", "rrule": "FREQ=WEEKLY;COUNT=3"})
        listed = _items(_body(await session.call_tool("list_bookings", {"start": "2026-12-01", "end": "2026-12-31"})))
        assert [b["start"][:16] for b in listed] == ["2026-12-02T10:00", "2026-12-09T10:00", "2026-12-16T10:00"]
        assert [b["end"][:16] for b in listed] == ["2026-12-02T11:00", "2026-12-09T11:00", "2026-12-16T11:00"]


async def test_an_interval_ending_before_or_at_its_start_is_refused(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        backwards = await session.call_tool("create_booking", {"title": "X", "start": "2026-12-11T16:00",
                                                               "end": "2026-12-11T15:00"})
        empty = await session.call_tool("create_booking", {"title": "X", "start": "2026-12-11T16:00",
                                                           "end": "2026-12-11T16:00"})
        assert backwards.isError and "end" in backwards.content[0].text
        assert empty.isError
        listed = _items(_body(await session.call_tool("list_bookings", {"start": "2026-12-01", "end": "2026-12-31"})))
        assert listed == []


async def test_a_recurrence_rule_the_standard_rejects_is_refused_naming_the_problem(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        bad = await session.call_tool("create_booking", {"title": "Sprint", "start": "2026-12-14T10:00",
                                                         "rrule": "FREQ=FORTNIGHTLY"})
        assert bad.isError and "FORTNIGHTLY" in bad.content[0].text
        good = await session.call_tool("create_booking", {"title": "Sprint", "start": "2026-12-14T10:00",
                                                          "rrule": "FREQ=WEEKLY;INTERVAL=2"})
        assert not good.isError


async def test_a_room_the_world_does_not_hold_is_refused_once_it_holds_some(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_room", {"name": "Attic"})
        unknown = await session.call_tool("create_booking", {"title": "Lunch", "start": "2026-12-13T12:30",
                                                             "room": "Cellar"})
        assert unknown.isError and "Cellar" in unknown.content[0].text
        listed = await session.call_tool("list_bookings", {"start": "2026-12-01", "end": "2026-12-31",
                                                           "room": "Cellar"})
        assert listed.isError
        known = await session.call_tool("create_booking", {"title": "Lunch", "start": "2026-12-13T12:30",
                                                           "room": "attic"})
        assert not known.isError


async def test_a_bare_world_that_took_an_unheld_room_does_not_refuse_it_later(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        first = await session.call_tool("create_booking", {"title": "A", "start": "2026-12-01T09:00", "room": "Hall"})
        assert not first.isError
        await session.call_tool("create_room", {"name": "Attic"})
        again = await session.call_tool("create_booking", {"title": "B", "start": "2026-12-02T09:00", "room": "Hall"})
        assert not again.isError


def _line(turn: int, tool: str, arguments: dict[str, Any], answer: Any, error: bool = False) -> str:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def _recording(path: Path) -> Path:
    weekly = {"booking_id": "b-7", "title": "Weekly sync", "start": "2026-12-01T09:00:00+00:00",
              "end": "2026-12-01T09:30:00+00:00"}
    path.write_text("\n".join([
        _line(1, "list_rooms", {}, {"rooms": ["Attic", "Loft"]}),
        _line(2, "list_bookings", {"start": "2026-12-01", "end": "2026-12-20", "room": "Loft"}, {"room": "Loft", "bookings": [
            weekly, {**weekly, "start": "2026-12-08T09:00:00+00:00", "end": "2026-12-08T09:30:00+00:00"},
            {"booking_id": "b-9", "title": "Dinner", "start": "2026-12-04T17:30:00+00:00",
             "end": "2026-12-04T19:30:00+00:00"}]}),
        _line(3, "create_booking", {"title": "Retro", "start": "2026-12-11T16:00", "room": "Loft"},
              {"ok": True, "booking_id": "b-10", "room": "Loft"}),
        _line(4, "list_rooms", {}, {"rooms": ["Attic", "Loft"]}),
    ]) + "\n", encoding="utf-8")
    return path


async def test_a_learned_world_holds_the_listed_rooms_and_the_bookings_in_the_room_they_were_listed_in(
        tmp_path: Path) -> None:
    learned = learn_cli(_recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    seed = json.loads(learned.read_text(encoding="utf-8"))["seed"]
    assert [r["name"] for r in seed["rooms"]] == ["Attic", "Loft"]
    assert sorted(b["booking_id"] for b in seed["bookings"]) == ["b-7", "b-9"]  # one series, not one per repeat
    assert {b["room"] for b in seed["bookings"]} == {"Loft"}
    async with stdio_session(str(learned)) as session:
        rooms = _body(await session.call_tool("list_rooms", {}))
        assert rooms["rooms"] == ["Attic", "Loft"]
        listed = _items(_body(await session.call_tool(
            "list_bookings", {"start": "2026-12-04", "end": "2026-12-05", "room": "Loft"})))
        assert [b["booking_id"] for b in listed] == ["b-9"]
        unknown = await session.call_tool("create_booking", {"title": "X", "start": "2026-12-12T10:00", "room": "Garage"})
        assert unknown.isError or "not found" in unknown.content[0].text.lower()
