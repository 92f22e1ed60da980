"""A new record resembles the records its collection was seeded with.

A notes store seeded with two notes, each with a date-only ``created``, an ``author``, a
``folder`` path that embeds its id, no attachments and ``pinned: false``: a note created in
the episode carries the same (the path built from its own id, the date in the seed's form, not
older than the newest note) and reads back with exactly those values. Tweets seeded without a
creation stamp get none. Where the seed disagrees, nothing is invented. Through a real MCP
client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

_STR = {"type": "string"}


NOTES = {
    "name": "notes",
    "tools": [
        _tool("create_note", "Create a note.", {"title": _STR, "body": _STR}, ["title"]),
        _tool("get_note", "Get a note by id.", {"note_id": _STR}, ["note_id"]),
    ],
    "seed": {"notes": [
        {"id": "12444", "title": "Alpha", "body": "x", "created": "2026-11-20", "author": "maria",
         "folder": "/home/maria/notes/12444.md", "attachments": [], "pinned": False, "rating": 4},
        {"id": "12446", "title": "Beta", "body": "y", "created": "2026-11-21", "author": "maria",
         "folder": "/home/maria/notes/12446.md", "attachments": [], "pinned": False, "rating": 2},
    ]},
}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


async def _created_and_read(tmp_path: Path, world: dict[str, Any], create: tuple[str, dict[str, Any]],
                            read: str, key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    path = tmp_path / f"{world['name']}.json"
    path.write_text(json.dumps(world), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        created = _body(await session.call_tool(*create))
        again = _body(await session.call_tool(read, {key: created["id"]}))
    return created, again


async def test_a_new_note_carries_what_every_seeded_note_carries(tmp_path: Path) -> None:
    created, read = await _created_and_read(tmp_path, NOTES, ("create_note", {"title": "Gamma"}), "get_note",
                                            "note_id")
    assert created["id"] == "12447"  # the seed's ids continue
    assert created["folder"] == "/home/maria/notes/12447.md"  # the seed's template, filled with its own id
    assert created["created"] == "2026-11-21"  # the seed's form, not older than its newest note
    assert created["author"] == "maria" and created["attachments"] == [] and created["pinned"] is False
    assert "rating" not in created  # the seed disagrees (4, 2): nothing invented
    for name in ("folder", "created", "author", "attachments", "pinned"):
        assert read[name] == created[name], name  # stored with the note: every read agrees


async def test_a_seed_without_creation_stamps_gets_no_stamp_on_a_new_record(tmp_path: Path) -> None:
    posts = {"name": "posts", "tools": [
        _tool("post_tweet", "Post a tweet for the authenticated user.", {"content": _STR}, ["content"]),
        _tool("get_tweet", "Get a tweet by id.", {"tweet_id": {"type": "integer"}}, ["tweet_id"]),
    ], "seed": {"tweets": [{"id": 0, "username": "ana", "content": "hello", "tags": []},
                           {"id": 1, "username": "ana", "content": "again", "tags": []}]}}
    created, read = await _created_and_read(tmp_path, posts, ("post_tweet", {"content": "third"}), "get_tweet",
                                            "tweet_id")
    assert created["id"] == 2 and created["username"] == "ana" and created["tags"] == []
    assert not any("created" in name for name in created), created
    assert read["content"] == "third" and not any("created" in name for name in read), read


async def test_without_a_seed_a_new_record_keeps_the_models_own_fields(tmp_path: Path) -> None:
    bare = {**NOTES, "name": "bare"}
    del bare["seed"]
    created, _ = await _created_and_read(tmp_path, bare, ("create_note", {"title": "Gamma"}), "get_note", "note_id")
    assert "folder" not in created and "author" not in created
    assert any("created" in name for name in created)  # nothing says this store does not stamp its notes


async def test_a_new_records_state_word_is_written_as_the_seed_writes_it(tmp_path: Path) -> None:
    desk = {"name": "desk", "tools": [
        _tool("create_ticket", "Create a ticket in the system and queue it.", {"title": _STR}, ["title"]),
        _tool("get_ticket", "Get a ticket by id.", {"ticket_id": {"type": "integer"}}, ["ticket_id"]),
        _tool("close_ticket", "Close a ticket.", {"ticket_id": {"type": "integer"}}, ["ticket_id"]),
    ], "seed": {"tickets": [{"id": 1, "title": "Printer", "status": "Open"},
                            {"id": 2, "title": "VPN", "status": "Closed"}]}}
    created, read = await _created_and_read(tmp_path, desk, ("create_ticket", {"title": "Badge"}), "get_ticket",
                                            "ticket_id")
    assert created["id"] == 3 and created["status"] == "Open" and read["status"] == "Open"


async def test_a_state_a_verb_sets_is_spelled_as_the_catalogs_enum_spells_it(tmp_path: Path) -> None:
    status = {"type": "string", "enum": ["Open", "Pending", "Solved", "Closed"]}
    desk = {"name": "desk", "tools": [
        _tool("create_ticket", "Create a support ticket.", {"subject": _STR}, ["subject"]),
        _tool("close_ticket", "Close a ticket.", {"ticket_id": {"type": "integer"}}, ["ticket_id"]),
        _tool("list_tickets", "List tickets, optionally filtered by status.", {"status": status}),
    ]}
    path = tmp_path / "desk.json"
    path.write_text(json.dumps(desk), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        made = _body(await session.call_tool("create_ticket", {"subject": "Printer"}))
        closed = _body(await session.call_tool("close_ticket", {"ticket_id": made["id"]}))
        listed = _body(await session.call_tool("list_tickets", {"status": "Closed"}))
    assert closed["status"] == "Closed"  # the enum's spelling, not the verb's ``closed``
    assert [t["subject"] for t in listed] == ["Printer"]
