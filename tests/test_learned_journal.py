"""A journal learned from one session: entries listed after the session's first change that no change named are
the server's own (seeded), and a new entry's stored ``id`` is the number its create answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
KEY = {"type": "object", "properties": {"entry_id": {"type": "integer"}}, "required": ["entry_id"]}
CATALOG: JSONDict = {"name": "journal", "tools": [
    {"name": "add_entry", "description": "Add a journal entry; text may carry #tags.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "get_entry", "description": "Get an entry by its id.", "inputSchema": KEY},
    {"name": "search_entries", "description": "Search entries by text.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
]}
OLD = {"id": "1", "date": "2026-11-18", "text": "Kickoff with the freight client #meeting"}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def learned(tmp_path: Path) -> Path:
    new = {"id": "2", "date": "2026-11-24", "text": "Planned the hiring round #meeting"}
    calls = [
        ("add_entry", {"text": new["text"]}, {"success": True, "entry_id": 2}),
        ("get_entry", {"entry_id": 2}, {"success": True, "entry": new}),
        ("search_entries", {"query": "#meeting"}, {"success": True, "entries": [new, OLD], "total": 2}),
        ("add_entry", {"text": "Renewed the certificate"}, {"success": True, "entry_id": 3}),
    ]
    return learned_world(tmp_path, calls, CATALOG)


def learned_world(tmp_path: Path, calls: list[tuple[str, JSONDict, JSONDict]], catalog: JSONDict) -> Path:
    """The world ``learn`` writes from one session of ``calls`` (tool, arguments, answer)."""
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(line(n, *c) for n, c in enumerate(calls, 1)) + "\n", encoding="utf-8")
    return learn_cli(path, catalog, tmp_path / "learned.json")


async def test_an_entry_a_search_showed_after_a_change_is_read_back_from_a_fresh_session(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        found = json_answer(await session.call_tool("get_entry", {"entry_id": 1}))
        assert found["entry"]["text"] == OLD["text"]


async def test_a_new_entry_is_stored_under_the_number_its_create_answered(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        made = json_answer(await session.call_tool("add_entry", {"text": "Wrote the retro notes #retro"}))
        read = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
        assert str(read["entry"]["id"]) == str(made["entry_id"])


def learned_from_matches(tmp_path: Path) -> Path:
    """A session whose search answers its records under ``matches`` (no collection's name), echoing ``query``
    and ``limit`` (50 where the call gave none)."""
    new = {"id": "2", "date": "2026-11-24", "text": "Planned the hiring round"}
    calls = [
        ("add_entry", {"text": new["text"]}, {"success": True, "entry_id": 2}),
        ("search_entries", {"query": "kickoff"},
         {"success": True, "query": "kickoff", "matches": [OLD], "shown": 1, "limit": 50}),
        ("search_entries", {"query": "hiring", "limit": 10},
         {"success": True, "query": "hiring", "matches": [new], "shown": 1, "limit": 10}),
    ]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"][2]["inputSchema"]["properties"]["limit"] = {"type": "integer"}
    return learned_world(tmp_path, calls, catalog)


async def test_a_record_a_search_matched_is_seeded_and_read_back(tmp_path: Path) -> None:
    async with stdio_session(str(learned_from_matches(tmp_path))) as session:
        found = json_answer(await session.call_tool("get_entry", {"entry_id": 1}))
        assert found["text"] == OLD["text"]  # no read was recorded: the record as the catalog's model shows it


async def test_a_field_named_as_an_argument_echoes_it_and_shows_the_servers_default_without_it(
        tmp_path: Path) -> None:
    async with stdio_session(str(learned_from_matches(tmp_path))) as session:
        asked = json_answer(await session.call_tool("search_entries", {"query": "freight", "limit": 5}))
        assert (asked["query"], asked["limit"]) == ("freight", 5)
        default = json_answer(await session.call_tool("search_entries", {"query": "round"}))
        assert (default["query"], default["limit"]) == ("round", 50)


async def test_a_new_entry_starts_on_the_day_the_servers_new_entries_showed(tmp_path: Path) -> None:
    """The create answers a number (``entry_id: 4``), a read shows it as text (``"id": "4"``) with the day it was
    made; an update's short answer in between shows the key without the day."""
    day = "2026-11-24"
    calls = [
        ("add_entry", {"text": "Planned the hiring round"}, {"success": True, "entry_id": 4}),
        ("add_entry", {"text": "Call with the bank"}, {"success": True, "entry_id": 5}),
        ("update_entry", {"entry_id": 5, "text": "Call with the bank, moved"},
         {"success": True, "entry_id": 5, "timestamp": "09:30"}),
        ("get_entry", {"entry_id": 4}, {"success": True, "entry": {"id": "4", "date": day, "text": "Planned the hiring round"}}),
        ("get_entry", {"entry_id": 5}, {"success": True, "entry": {"id": "5", "date": day, "text": "Call with the bank"}}),
    ]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"].append({"name": "update_entry", "description": "Update an entry's text.", "inputSchema": {
        "type": "object", "properties": {"entry_id": {"type": "integer"}, "text": {"type": "string"}},
        "required": ["entry_id"]}})
    async with stdio_session(str(learned_world(tmp_path, calls, catalog))) as session:
        made = json_answer(await session.call_tool("add_entry", {"text": "Wrote the retro notes"}))
        read = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
        assert read["entry"]["date"] == day


def learned_with_day_files(tmp_path: Path) -> Path:
    """A session whose entries live in one file per day: a create answers the day's file and its time (10:00 where
    the call gave none), a delete answers the key it was given and the file the entry was in (its ``source``)."""
    old = {**OLD, "timestamp": "09:15", "source": "/store/2026-11-18.txt"}
    other = {"id": "2", "date": "2026-11-19", "timestamp": "14:40", "text": "Fixed the importer",
             "source": "/store/2026-11-19.txt"}
    made = {"success": True, "entry_id": 3, "day_file": "/store/2026-11-24.txt", "timestamp": "10:00"}
    calls = [
        ("search_entries", {"query": "e"}, {"success": True, "entries": [old, other]}),
        ("add_entry", {"text": "Planned the hiring round"}, made),
        ("add_entry", {"text": "Call with the bank", "timestamp": "09:30"},
         {**made, "entry_id": 4, "timestamp": "09:30"}),
        ("delete_entry", {"entry_id": 2},
         {"success": True, "entry_id": 2, "day_file": "/store/2026-11-19.txt", "message": "Entry 2 deleted"}),
    ]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"][0]["inputSchema"]["properties"]["timestamp"] = {"type": "string"}
    catalog["tools"].append({"name": "delete_entry", "description": "Delete an entry.", "inputSchema": KEY})
    return learned_world(tmp_path, calls, catalog)


async def test_a_delete_answers_the_entry_it_was_given_and_the_file_that_entry_was_in(tmp_path: Path) -> None:
    async with stdio_session(str(learned_with_day_files(tmp_path))) as session:
        gone = json_answer(await session.call_tool("delete_entry", {"entry_id": 1}))
        assert (gone["entry_id"], gone["day_file"]) == (1, "/store/2026-11-18.txt")  # entry 1's, not entry 2's


async def test_a_new_entry_answers_the_days_file_and_a_read_shows_the_time_its_create_answered(
        tmp_path: Path) -> None:
    async with stdio_session(str(learned_with_day_files(tmp_path))) as session:
        made = json_answer(await session.call_tool("add_entry", {"text": "Wrote the retro notes"}))
        assert (made["day_file"], made["timestamp"]) == ("/store/2026-11-24.txt", "10:00")
        read = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
        entry = read.get("entry", read)
        assert entry["timestamp"] == "10:00"


async def test_a_todo_listing_lists_the_entries_a_todo_create_made_and_no_other_entry(tmp_path: Path) -> None:
    """Todos are entries (``create_todo`` answers ``entry_id``, ``get_entry`` reads it): ``list_todos`` lists the
    entries a todo create made, by their own ids, not the diary entries beside them."""
    todo = {"id": 3, "status": "pending", "description": "Renew the certificate"}
    calls = [
        ("add_entry", {"text": "Planned the hiring round"}, {"success": True, "entry_id": 2}),
        ("create_todo", {"description": todo["description"]}, {"success": True, "entry_id": 3}),
        ("get_entry", {"entry_id": 3}, {"success": True, "entry": {"id": "3", "text": todo["description"]}}),
        ("list_todos", {}, {"success": True, "todos": [todo]}),
    ]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"] += [
        {"name": "create_todo", "description": "Add a todo.", "inputSchema": {
            "type": "object", "properties": {"description": {"type": "string"}}, "required": ["description"]}},
        {"name": "list_todos", "description": "List the todos.", "inputSchema": {"type": "object", "properties": {}}}]
    async with stdio_session(str(learned_world(tmp_path, calls, catalog))) as session:
        made = json_answer(await session.call_tool("create_todo", {"description": "Book the venue"}))
        json_answer(await session.call_tool("add_entry", {"text": "Lunch with the design team"}))
        listed = json_answer(await session.call_tool("list_todos", {}))["todos"]
        assert [(t["id"], t["description"]) for t in listed] == [(made["entry_id"], "Book the venue")]


async def test_a_new_entrys_tags_are_the_tags_given_then_the_hashtags_its_text_carries(tmp_path: Path) -> None:
    """The recording showed every new entry tagged with the ``#tags`` of its text after the ``tags`` it was given;
    an entry changed before it was read (its tags edited) is no evidence of how entries start."""
    calls = [
        ("add_entry", {"text": "Hiring plan #planning #hiring"}, {"success": True, "entry_id": 4}),
        ("add_entry", {"text": "Bank call #sso", "tags": ["bank"]}, {"success": True, "entry_id": 5}),
        ("add_entry", {"text": "Retro notes"}, {"success": True, "entry_id": 6}),
        ("update_entry", {"entry_id": 6, "tags": ["retro"]}, {"success": True, "entry_id": 6}),
        ("search_entries", {"query": "e"}, {"success": True, "entries": [
            {"id": "4", "text": "Hiring plan #planning #hiring", "tags": ["planning", "hiring"]},
            {"id": "5", "text": "Bank call #sso", "tags": ["bank", "sso"]},
            {"id": "6", "text": "Retro notes", "tags": ["retro"]}]}),
    ]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"][0]["inputSchema"]["properties"]["tags"] = {"type": "array", "items": {"type": "string"}}
    catalog["tools"].append({"name": "update_entry", "description": "Update an entry's tags.", "inputSchema": {
        "type": "object", "properties": {"entry_id": {"type": "integer"}, "tags": {"type": "array",
                                                                                   "items": {"type": "string"}}},
        "required": ["entry_id"]}})
    async with stdio_session(str(learned_world(tmp_path, calls, catalog))) as session:
        made = json_answer(await session.call_tool("add_entry", {"text": "Vendor review #billing", "tags": ["q4"]}))
        read = json_answer(await session.call_tool("get_entry", {"entry_id": made["entry_id"]}))
        assert read.get("entry", read)["tags"] == ["q4", "billing"]


async def test_one_calls_value_of_an_echoed_field_is_not_replayed_where_a_call_leaves_it_out(tmp_path: Path) -> None:
    """The one recorded create echoed the ``mood`` it was given: that was the call's, not the server's default."""
    calls = [("add_entry", {"text": "Planned the hiring round", "mood": "calm"},
              {"success": True, "entry_id": 2, "mood": "calm"})]
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tools"][0]["inputSchema"]["properties"]["mood"] = {"type": "string"}
    async with stdio_session(str(learned_world(tmp_path, calls, catalog))) as session:
        given = json_answer(await session.call_tool("add_entry", {"text": "Retro", "mood": "tired"}))
        left_out = json_answer(await session.call_tool("add_entry", {"text": "Lunch"}))
        assert given["mood"] == "tired" and left_out.get("mood") != "calm"
