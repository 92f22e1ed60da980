"""A learned world answers a call's times in the server's own zone, as the recording showed it.

A recorded server that answers the call's instant re-expressed in its zone (a naive time read as its
wall time, an aware one converted) and an end defaulted to a fixed duration after the start answers
new calls the same way: with the zone's offset on that date when the recording names a zone whose
offsets fit, with the one fixed offset otherwise. Learned through ``agentworld-mcp learn``, served
over stdio to a real MCP client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

_STR = {"type": "string"}


def _catalog(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "tools": [
            {"name": "book_slot", "description": "Book a slot; the end defaults to one hour after the start.",
             "inputSchema": {"type": "object", "properties": {"title": _STR, "begins": _STR, "ends": _STR},
                             "required": ["title", "begins"]}},
            {"name": "convert_time", "description": "Convert a time to the server's zone.",
             "inputSchema": {"type": "object", "properties": {"when": _STR}, "required": ["when"]}},
        ],
    }


def _line(turn: int, tool: str, arguments: dict[str, Any], answer: dict[str, Any]) -> str:
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                       "result": {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}})


def _recording(path: Path, zone_note: str, offsets: tuple[str, str]) -> Path:
    winter, summer = offsets
    lines = [
        _line(1, "book_slot", {"title": "Standup", "begins": "2026-01-12T09:00", "ends": "2026-01-12T09:15"},
              {"id": "s-1", "begins_at": f"2026-01-12T09:00:00{winter}", "ends_at": f"2026-01-12T09:15:00{winter}",
               "note": zone_note}),
        _line(2, "book_slot", {"title": "Review", "begins": "2026-07-01T14:00:00+00:00"},
              {"id": "s-2", "begins_at": f"2026-07-01T{_shift('14:00', summer)}:00{summer}",
               "ends_at": f"2026-07-01T{_shift('15:00', summer)}:00{summer}", "note": zone_note}),
        _line(3, "convert_time", {"when": "2026-02-03T08:30:00+00:00"},
              {"input": "2026-02-03T08:30:00+00:00", "converted": f"2026-02-03T{_shift('08:30', winter)}:00{winter}"}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _shift(clock: str, offset: str) -> str:
    """``clock`` (UTC) on the wall of ``offset`` (same day in these examples)."""
    hours, minutes = (int(p) for p in clock.split(":"))
    sign = -1 if offset[0] == "-" else 1
    total = hours * 60 + minutes + sign * (int(offset[1:3]) * 60 + int(offset[4:6]))
    return f"{total // 60:02d}:{total % 60:02d}"


async def test_a_new_call_gets_its_times_in_the_named_zone_with_that_dates_offset(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "named.jsonl", "times are America/New_York", ("-05:00", "-04:00"))
    world = learn_cli(recording, _catalog("named"), tmp_path / "named.json")
    async with stdio_session(str(world)) as session:
        booked = json_answer(await session.call_tool("book_slot", {"title": "Launch", "begins": "2026-08-20T10:30"}))
        assert booked["begins_at"] == "2026-08-20T10:30:00-04:00"  # summer time, a naive time is the wall's
        assert booked["ends_at"] == "2026-08-20T11:30:00-04:00"  # one hour after, as the recording defaulted
        winter = json_answer(await session.call_tool("book_slot", {"title": "Audit", "begins": "2026-12-01T15:00:00+00:00",
                                                                  "ends": "2026-12-01T16:45:00+00:00"}))
        assert winter["begins_at"] == "2026-12-01T10:00:00-05:00"
        assert winter["ends_at"] == "2026-12-01T11:45:00-05:00"
        converted = json_answer(await session.call_tool("convert_time", {"when": "2026-06-15T12:00:00Z"}))
        assert converted["converted"] == "2026-06-15T08:00:00-04:00"


async def test_a_recording_naming_no_zone_gives_its_one_fixed_offset(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "fixed.jsonl", "booked", ("+05:30", "+05:30"))
    world = learn_cli(recording, _catalog("fixed"), tmp_path / "fixed.json")
    async with stdio_session(str(world)) as session:
        converted = json_answer(await session.call_tool("convert_time", {"when": "2026-03-09T00:00:00+00:00"}))
        assert converted["converted"] == "2026-03-09T05:30:00+05:30"
        booked = json_answer(await session.call_tool("book_slot", {"title": "Call", "begins": "2026-03-09T08:00"}))
        assert booked["begins_at"] == "2026-03-09T08:00:00+05:30"
        assert booked["ends_at"] == "2026-03-09T09:00:00+05:30"


async def test_a_time_given_in_words_still_gets_an_answer_of_the_recorded_shape(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "prose.jsonl", "booked", ("+05:30", "+05:30"))
    world = learn_cli(recording, _catalog("prose"), tmp_path / "prose.json")
    async with stdio_session(str(world)) as session:
        result = await session.call_tool("convert_time", {"when": "next Tuesday at noon"})
        answer = json.loads(result.content[0].text)
        assert not result.isError and isinstance(answer["converted"], str)  # the model's answer, no crash
