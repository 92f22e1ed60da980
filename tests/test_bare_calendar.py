"""A calendar catalog served bare answers as its own descriptions say, through a real MCP client over stdio.

The catalog states a few answers (``{"agendas": [name, ...]}``, ``{"ok": True, "created": name}``)
and names the zone a bare local time is read in (``America/Chicago``). Its other tools answer
alike: a listing under its collection's name, a change with the ``ok`` flag, and stored times
written in that zone (a bare wall time gets the zone's offset, an offset-qualified instant is
converted), so a later listing and the expanded repeats of a series show what the server would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_STR = {"type": "string"}
_OPT = {"anyOf": [_STR, {"type": "null"}], "default": None}
_ZONED = ("ISO 8601 datetime. A bare local time is interpreted as wall time in the configured zone "
          "(`America/Chicago`); an offset-qualified time is converted to that zone.")

PLANNER = {
    "name": "agenda",
    "tools": [
        {"name": "list_agendas", "description": "List agendas.\n\nReturns `{\"agendas\": [name, ...]}` sorted by name.",
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "create_agenda", "description": "Create an agenda.\n\nReturns `{\"ok\": True, \"created\": name}`.",
         "inputSchema": {"type": "object", "properties": {"name": _STR}, "required": ["name"]}},
        {"name": "delete_agenda", "description": "Delete an agenda.\n\nReturns `{\"ok\": True, \"deleted\": name}`.",
         "inputSchema": {"type": "object", "properties": {"name": _STR}, "required": ["name"]}},
        {"name": "add_meeting", "description": "Add a meeting, recurring if `rrule` is given.",
         "inputSchema": {"type": "object", "properties": {
             "title": _STR, "start": {**_STR, "description": _ZONED},
             "end": {**_OPT, "description": "ISO 8601 datetime. Omit for 30 minutes after `start`."},
             "agenda": _OPT, "rrule": _OPT}, "required": ["title", "start"]}},
        {"name": "list_meetings", "description": "List meeting occurrences in [start, end], expanding recurring series.",
         "inputSchema": {"type": "object", "properties": {"start": _STR, "end": _STR, "agenda": _OPT},
                         "required": ["start", "end"]}},
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


async def test_meetings_are_stored_in_the_named_zone_and_listed_under_their_collection_name(tmp_path: Path) -> None:
    world = tmp_path / "agenda.json"
    world.write_text(json.dumps(PLANNER), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        assert _body(await session.call_tool("create_agenda", {"name": "Team"})) == {"ok": True, "created": "Team"}
        local = _body(await session.call_tool("add_meeting", {
            "title": "Standup", "start": "2026-12-07T09:00", "agenda": "Team", "rrule": "FREQ=WEEKLY;COUNT=2"}))
        assert local["ok"] is True
        converted = _body(await session.call_tool("add_meeting", {
            "title": "Call with Berlin", "start": "2026-12-08T16:00:00+01:00", "agenda": "Team"}))
        assert converted["ok"] is True

        listed = _body(await session.call_tool("list_meetings", {"start": "2026-12-01", "end": "2026-12-31",
                                                                 "agenda": "Team"}))
        assert set(listed) == {"meetings"}
        starts = sorted((m["title"], m["start"], m["end"]) for m in listed["meetings"])
        assert starts == [
            ("Call with Berlin", "2026-12-08T09:00:00-06:00", "2026-12-08T09:30:00-06:00"),
            ("Standup", "2026-12-07T09:00:00-06:00", "2026-12-07T09:30:00-06:00"),
            ("Standup", "2026-12-14T09:00:00-06:00", "2026-12-14T09:30:00-06:00"),
        ]


async def test_a_date_only_meeting_stays_a_date_and_a_catalog_naming_no_zone_keeps_its_times(tmp_path: Path) -> None:
    unzoned = json.loads(json.dumps(PLANNER).replace(" in the configured zone (`America/Chicago`)", ""))
    for catalog, want in ((PLANNER, "2026-12-12"), (unzoned, "2026-12-12")):
        world = tmp_path / "agenda.json"
        world.write_text(json.dumps(catalog), encoding="utf-8")
        async with stdio_session(str(world)) as session:
            made = _body(await session.call_tool("add_meeting", {"title": "Market", "start": "2026-12-12"}))
            assert made["start"] == want
    async with stdio_session(str(world)) as session:
        made = _body(await session.call_tool("add_meeting", {"title": "Sync", "start": "2026-12-09T10:00"}))
        assert made["start"] == "2026-12-09T10:00"
