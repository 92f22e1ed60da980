"""General mechanisms behind the realism figures, each on a small invented catalog.

None of these catalogs is one of the realism set's (tests/realism/catalogs): every tool
name, argument and wording here is made up, so each test shows the mechanism works on a
catalog the model never saw. A real MCP client drives the simulator over stdio.
"""

from __future__ import annotations

import json

from agentworld_mcp.models.deterministic.records import content_sha
from agentworld_mcp.world.entities import build

from .conftest import stdio_session
from .test_entity_model import S, tool
from .test_realistic_answers import _json, _world

_TIME_RESULT = {"type": "object", "properties": {"tz": S, "local_time": S, "day_of_week": S,
                                                  "is_dst": {"type": "boolean"}},
                "required": ["tz", "local_time", "day_of_week", "is_dst"]}
CLOCK = [
    tool("what_time", {"tz": {"type": "string", "description": "IANA zone, e.g. Asia/Tokyo"}}, ("tz",),
         "Tell the time somewhere.", output=_TIME_RESULT),
    tool("shift_time", {"from_timezone": S, "to_timezone": S, "time": {"type": "string", "description": "HH:MM"}},
         ("from_timezone", "to_timezone", "time"), "Shift a wall-clock time to another zone.",
         output={"type": "object", "$defs": {"R": _TIME_RESULT},
                 "properties": {"from": {"$ref": "#/$defs/R"}, "to": {"$ref": "#/$defs/R"}, "difference": S},
                 "required": ["from", "to", "difference"]}),
]


async def test_timezone_tools_are_computed_at_the_simulated_clock(tmp_path):
    async with stdio_session(_world(tmp_path, CLOCK, "clock")) as session:
        now = (await session.call_tool("what_time", {"tz": "Asia/Tokyo"})).structuredContent
        # the simulated clock starts on Monday 2026-03-09 09:00 UTC: 18:00 and a few minutes in Tokyo
        assert now["tz"] == "Asia/Tokyo" and now["local_time"].startswith("2026-03-09T18:0")
        assert now["local_time"].endswith("+09:00") and (now["day_of_week"], now["is_dst"]) == ("Monday", False)
        shifted = (await session.call_tool("shift_time", {"from_timezone": "Europe/Paris",
                                                          "to_timezone": "America/Sao_Paulo",
                                                          "time": "09:15"})).structuredContent
        assert shifted["from"]["local_time"] == "2026-03-09T09:15:00+01:00"
        assert shifted["to"]["local_time"] == "2026-03-09T05:15:00-03:00"
        assert shifted["difference"] == "-4.0h"
        unknown = await session.call_tool("what_time", {"tz": "Atlantis/Capital"})
        assert unknown.isError and "Atlantis/Capital" in unknown.content[0].text


WORKSPACE = [
    tool("list_rooms", {"limit": {"type": "number"}}, (), "List the rooms of the workspace."),
    tool("list_members", {}, (), "List the workspace's members."),
    tool("get_member_card", {"member_id": S}, ("member_id",), "Get a member's card."),
    tool("send_note", {"room_id": S, "text": S}, ("room_id", "text"), "Send a note to a room."),
]


async def test_listing_what_the_catalog_cannot_create_observes_a_stable_seeded_set(tmp_path):
    async with stdio_session(_world(tmp_path, WORKSPACE, "workspace")) as session:
        call = session.call_tool
        rooms = _json(await call("list_rooms", {}))
        assert len(rooms) == 3 and all(r["id"].startswith("R") and r["name"] for r in rooms)
        assert _json(await call("list_rooms", {})) == rooms  # recorded: the same rooms next time
        members = _json(await call("list_members", {}))
        card = _json(await call("get_member_card", {"member_id": members[1]["id"]}))
        assert card["id"] == members[1]["id"] and card["real_name"]  # a person has a real name
        # the listing was a sample: a room the agent knows of by id is not refused
        note = _json(await call("send_note", {"room_id": "R0000000001", "text": "hello"}))
        assert note["room_id"] == "R0000000001"


TRIPS = [
    tool("trip_planning", {"destination": S, "stops": {"type": "array", "items": {
        "type": "object", "properties": {"city": S, "nights": {"type": "integer"}}}}}, ("destination", "stops"),
         "Register a new trip and plan its stops."),
    tool("list_trips", {}, (), "List every trip."),
    tool("finish_trip", {"tripId": S}, ("tripId",), "Finish a trip."),
    tool("get_next_stop", {"tripId": S}, ("tripId",), "Return the next stop of a trip."),
    tool("show_stop_details", {"stopId": S}, ("stopId",), "Show a stop."),
    tool("change_stop", {"tripId": S, "stopId": S, "nights": {"type": "integer"}}, ("tripId", "stopId"),
         "Change a stop."),
    tool("drop_stop", {"tripId": S, "stopId": S}, ("tripId", "stopId"), "Drop a stop."),
]


def test_aspects_join_their_entity_and_a_noun_named_tool_creates_it_with_its_children():
    model = build(TRIPS)
    assert (model.roles["trip_planning"].kind, model.roles["trip_planning"].collection) == ("create", "trips")
    assert model.roles["trip_planning"].extra["children"] == {"stops": ["stops", "tripId"]}
    # ``show_stop_details(stopId)`` reads a stop: nothing creates or lists "details"
    assert (model.roles["show_stop_details"].kind, model.roles["show_stop_details"].collection) == ("read", "stops")


async def test_a_create_makes_the_children_it_is_given(tmp_path):
    async with stdio_session(_world(tmp_path, TRIPS, "trips")) as session:
        call = session.call_tool
        trip = _json(await call("trip_planning", {"destination": "Lisbon", "stops": [
            {"city": "Porto", "nights": 2}, {"city": "Faro", "nights": 3}]}))
        assert trip["tripId"] and [s["city"] for s in trip["stops"]] == ["Porto", "Faro"]
        faro = trip["stops"][1]["id"]
        assert _json(await call("show_stop_details", {"stopId": faro}))["city"] == "Faro"
        # a "next" tool reads one item, the first one pending (next_item.py)
        assert _json(await call("get_next_stop", {"tripId": trip["tripId"]}))["city"] == "Porto"
        assert _json(await call("change_stop", {"tripId": trip["tripId"], "stopId": faro, "nights": 4}))["nights"] == 4
        assert trip["tripId"] in json.dumps(_json(await call("list_trips", {})))
        await call("drop_stop", {"tripId": trip["tripId"], "stopId": faro})
        assert (await call("show_stop_details", {"stopId": faro})).isError


_BEGINS = ("Start. String '2025-01-01T10:00:00', or JSON for a zone: "
           "'{\"dateTime\": \"2025-01-01T10:00:00\", \"timeZone\": \"Europe/Paris\"}'.")
AGENDA = [
    tool("create-meeting", {"title": S, "begins": {"type": "string", "description": _BEGINS}, "timeZone": S},
         ("title", "begins"), "Create a meeting."),
    tool("get-meeting", {"meetingId": S}, ("meetingId",), "Get a meeting."),
    tool("update-meeting", {"meetingId": S, "begins": {"type": "string", "description": _BEGINS}},
         ("meetingId",), "Update a meeting."),
]


async def test_a_value_is_kept_in_the_object_form_its_description_shows(tmp_path):
    async with stdio_session(_world(tmp_path, AGENDA, "agenda")) as session:
        call = session.call_tool
        meeting = _json(await call("create-meeting", {"title": "Sync", "begins": "2026-05-04T10:00:00",
                                                      "timeZone": "Asia/Tokyo"}))
        assert meeting["begins"] == {"dateTime": "2026-05-04T10:00:00", "timeZone": "Asia/Tokyo"}
        moved = _json(await call("update-meeting", {"meetingId": meeting["id"], "begins": "2026-05-04T15:00:00"}))
        assert moved["begins"] == {"dateTime": "2026-05-04T15:00:00"}


TICKETS = [
    tool("create_ticket", {"project_key": S, "summary": S, "tags": {"type": "array", "items": S}},
         ("project_key", "summary"), "Create a ticket."),
    tool("edit_ticket", {"ticket_id": S, "fields": {"type": "string", "description": "JSON object of fields"}},
         ("ticket_id", "fields"), "Edit a ticket."),
    tool("get_ticket", {"ticket_id": S}, ("ticket_id",), "Get a ticket."),
    tool("list_tickets", {"jql": S, "tags": {"type": "array", "items": S}}, (), "List tickets."),
]


async def test_json_string_updates_query_language_and_list_filters(tmp_path):
    async with stdio_session(_world(tmp_path, TICKETS, "tickets")) as session:
        call = session.call_tool
        crash = _json(await call("create_ticket", {"project_key": "APP", "summary": "Crash on start", "tags": ["bug"]}))
        _json(await call("create_ticket", {"project_key": "WEB", "summary": "Crash in footer"}))
        _json(await call("create_ticket", {"project_key": "APP", "summary": "Dark mode"}))
        edited = _json(await call("edit_ticket", {"ticket_id": crash["id"], "fields": '{"summary": "Crash at boot"}'}))
        assert edited["summary"] == "Crash at boot"
        found = _json(await call("list_tickets", {"jql": 'project = APP AND summary ~ "crash" ORDER BY created'}))
        assert [t["summary"] for t in found] == ["Crash at boot"]
        either = _json(await call("list_tickets", {"jql": "project = WEB OR summary ~ dark"}))
        assert sorted(t["summary"] for t in either) == ["Crash in footer", "Dark mode"]
        tagged = _json(await call("list_tickets", {"tags": ["bug"]}))  # untagged tickets are not tagged "bug"
        assert [t["summary"] for t in tagged] == ["Crash at boot"]


_ITEM = {"type": "object", "properties": {"id": S, "content": S, "priority": {
    "type": "string", "enum": ["p1", "p2", "p3", "p4"], "description": "p1 (highest) to p4 (lowest)."}},
    "required": ["id", "content", "priority"]}
CHORES = [
    tool("add_chore", {"content": S, "priority": S}, ("content",), "Add a chore.", output=_ITEM),
    tool("find_chores", {"filter": {"type": "string", "description": "A filter query, e.g. p1"}}, (),
         "Find chores.", output={"type": "object", "properties": {"chores": {"type": "array", "items": _ITEM}}}),
]


async def test_priorities_start_neutral_and_a_bare_filter_word_must_match(tmp_path):
    async with stdio_session(_world(tmp_path, CHORES, "chores")) as session:
        call = session.call_tool
        urgent = (await call("add_chore", {"content": "Fix the boiler", "priority": "p1"})).structuredContent
        plain = (await call("add_chore", {"content": "Dust shelves"})).structuredContent
        assert plain["priority"] == "p4"  # not urgent until someone says so
        found = (await call("find_chores", {"filter": "p1"})).structuredContent["chores"]
        assert [c["id"] for c in found] == [urgent["id"]]


CACHE = [
    tool("put", {"key": S, "value": S, "ttl": {"type": "number"}}, ("key", "value"), "Store a value in Memcached."),
    tool("fetch", {"key": S}, ("key",), "Fetch a value from Memcached."),
    tool("remove", {"key": S}, ("key",), "Remove a key from Memcached."),
    tool("list", {"pattern": S}, (), "List Memcached keys matching a pattern."),
]


async def test_a_key_value_database_answers_in_prose(tmp_path):
    async with stdio_session(_world(tmp_path, CACHE, "cache")) as session:
        call = session.call_tool
        assert (await call("put", {"key": "user:1", "value": "ada"})).content[0].text == "Successfully set key: user:1"
        assert (await call("fetch", {"key": "user:1"})).content[0].text == "ada"  # the bare value
        await call("put", {"key": "user:2", "value": "bob"})
        assert (await call("list", {"pattern": "user:*"})).content[0].text == "Found keys:\nuser:1\nuser:2"
        removed = await call("remove", {"key": "user:1"})
        assert removed.content[0].text == "Successfully deleted key: user:1"
        missing = await call("fetch", {"key": "user:1"})
        assert not missing.isError and missing.content[0].text == "Key not found: user:1"


FORGE = [
    tool("put_file", {"org": S, "project": S, "path": S, "content": S, "branch": S,
                      "sha": {"type": "string", "description": "Blob sha of the file replaced"}},
         ("org", "project", "path", "content", "branch"), "Create or update a file in a Forgejo project."),
    tool("read_file", {"org": S, "project": S, "path": S, "branch": S}, ("org", "project", "path"),
         "Read a file of a Forgejo project."),
]


async def test_hosted_files_are_records_of_their_project_and_branch(tmp_path):
    async with stdio_session(_world(tmp_path, FORGE, "forge")) as session:
        call = session.call_tool
        where = {"org": "acme", "project": "site", "path": "docs/a.md"}
        written = _json(await call("put_file", {**where, "content": "v1\n", "branch": "draft"}))
        assert written["path"] == "docs/a.md" and written["sha"] == content_sha("v1\n")
        rewritten = _json(await call("put_file", {**where, "content": "v2\n", "branch": "draft"}))  # an upsert
        assert rewritten["sha"] == content_sha("v2\n")
        assert _json(await call("read_file", {**where, "branch": "draft"}))["content"] == "v2\n"
        assert (await call("read_file", {**where, "branch": "main"})).isError  # not on another branch
        assert (await call("read_file", {**where, "project": "blog", "branch": "draft"})).isError


HELPDESK = [
    tool("case_write", {"method": {"type": "string", "enum": ["create", "update"]}, "case_id": S, "title": S},
         ("method",), "Create or update a case."),
    tool("case_read", {"method": {"type": "string", "enum": ["get", "get_comments"]}, "case_id": S},
         ("method", "case_id"), "Read a case or its comments."),
    tool("add_case_comment", {"case_id": S, "body": S}, ("case_id", "body"), "Comment on a case."),
]


async def test_a_selector_value_naming_a_sub_collection_reads_it(tmp_path):
    async with stdio_session(_world(tmp_path, HELPDESK, "helpdesk")) as session:
        call = session.call_tool
        case = _json(await call("case_write", {"method": "create", "title": "Printer on fire"}))
        _json(await call("add_case_comment", {"case_id": case["id"], "body": "Extinguisher used."}))
        comments = _json(await call("case_read", {"method": "get_comments", "case_id": case["id"]}))
        assert [c["body"] for c in comments] == ["Extinguisher used."]
        assert _json(await call("case_read", {"method": "get", "case_id": case["id"]}))["title"] == "Printer on fire"
