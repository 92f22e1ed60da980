"""Create answers echo what they name; an interval created without its end ends where its texts say.

A schedule catalog keeps slots made by ``create_slot``. A folder create answers ``{"ok": true,
"created": name}`` as its description states, echoing the name (never a timestamp), and a slot
created without an end ends where the description says (nothing is invented where it says nothing).
Through a real MCP client over stdio, served from the bare catalog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

JSONDict = dict[str, Any]
_STR = {"type": "string"}
_OPT = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
UID = {"type": "object", "properties": {"uid": _STR}, "required": ["uid"]}


SCHEDULE: JSONDict = {"name": "schedule", "tools": [
    _tool("create_slot", "Create a slot (repeating if `rule` is given).",
          {"title": _STR, "start": _STR,
           "end": {**_OPT, "description": "Omit for the default: 30 minutes after `start`, 1 day for all-day."},
           "rule": _OPT}, ["title", "start"]),
    _tool("get_slot", "Get a slot by its uid.", UID["properties"], ["uid"]),
    _tool("update_slot", "Edit a slot.", {"uid": _STR, "title": _OPT}, ["uid"]),
    _tool("delete_slot", "Delete a slot and all of its instances.", UID["properties"], ["uid"]),
    _tool("remove_instance", "Drop a single instance of a repeating slot.",
          {"uid": _STR, "instance": _STR}, ["uid", "instance"]),
    _tool("move_instance", "Reschedule a single instance of a repeating slot.",
          {"uid": _STR, "instance": _STR, "new_start": _STR}, ["uid", "instance", "new_start"]),
    _tool("mark_done", "Mark a slot done.", {"uid": _STR, "instance": _OPT}, ["uid"]),
    _tool("create_folder", 'Create a folder.\n\nReturns `{"ok": True, "created": name}`.', {"name": _STR}, ["name"]),
    _tool("delete_folder", 'Delete a folder.\n\nReturns `{"ok": True, "deleted": name}`.', {"name": _STR}, ["name"]),
]}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _world(tmp_path: Path, catalog: JSONDict) -> str:
    path = tmp_path / f"{catalog['name']}.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return str(path)


async def test_a_create_or_delete_answer_named_after_its_action_echoes_the_name_given(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, SCHEDULE)) as session:
        created = _body(await session.call_tool("create_folder", {"name": "Volunteering"}))
        assert created == {"ok": True, "created": "Volunteering"}
        deleted = _body(await session.call_tool("delete_folder", {"name": "Volunteering"}))
        assert deleted == {"ok": True, "deleted": "Volunteering"}


async def test_a_slot_created_without_an_end_ends_where_the_description_says(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, SCHEDULE)) as session:
        timed = _body(await session.call_tool("create_slot", {"title": "Call", "start": "2027-01-04T09:00"}))
        all_day = _body(await session.call_tool("create_slot", {"title": "Offsite", "start": "2027-01-08"}))
        offset = _body(await session.call_tool("create_slot", {"title": "Demo", "start": "2027-01-04T16:45:00+01:00"}))
        assert _body(await session.call_tool("get_slot", {"uid": timed["uid"]}))["end"] == "2027-01-04T09:30"
        assert _body(await session.call_tool("get_slot", {"uid": all_day["uid"]}))["end"] == "2027-01-09"
        assert _body(await session.call_tool("get_slot", {"uid": offset["uid"]}))["end"] == "2027-01-04T17:15:00+01:00"


async def test_an_end_no_description_states_is_not_invented(tmp_path: Path) -> None:
    tools = [dict(t) for t in SCHEDULE["tools"]]
    tools[0] = _tool("create_slot", "Create a slot.", {"title": _STR, "start": _STR, "end": _OPT}, ["title", "start"])
    async with stdio_session(_world(tmp_path, {"name": "plain", "tools": tools})) as session:
        slot = _body(await session.call_tool("create_slot", {"title": "Call", "start": "2027-01-04T09:00"}))
        assert _body(await session.call_tool("get_slot", {"uid": slot["uid"]})).get("end") is None


def _line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})
