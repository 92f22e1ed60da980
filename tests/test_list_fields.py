"""Tools that add or remove values of a list field change the entities they name.

``add_labels(issue_id, labels)`` puts the labels on the issue (a read shows them, a later
``remove_labels`` takes some away); ``add_tags(paths, tags)`` on notes makes a tag search find
them. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

_STR = {"type": "string"}
_STRS = {"type": "array", "items": _STR}

TRACKER = {
    "name": "tracker",
    "tools": [
        {"name": "create_issue", "description": "Create an issue.",
         "inputSchema": {"type": "object", "properties": {"title": _STR}, "required": ["title"]}},
        {"name": "get_issue", "description": "Get an issue by id.",
         "inputSchema": {"type": "object", "properties": {"issue_id": _STR}, "required": ["issue_id"]}},
        {"name": "add_labels", "description": "Add labels to an issue.",
         "inputSchema": {"type": "object", "properties": {"issue_id": _STR, "labels": _STRS},
                         "required": ["issue_id", "labels"]}},
        {"name": "remove_labels", "description": "Remove labels from an issue.",
         "inputSchema": {"type": "object", "properties": {"issue_id": _STR, "labels": _STRS},
                         "required": ["issue_id", "labels"]}},
    ],
}

VAULT = {
    "name": "vault",
    "tools": [
        {"name": "create_note", "description": "Create a note at a path.",
         "inputSchema": {"type": "object", "properties": {"path": _STR, "content": _STR},
                         "required": ["path", "content"]}},
        {"name": "add_tags", "description": "Add tags to notes.",
         "inputSchema": {"type": "object", "properties": {"paths": _STRS, "tags": _STRS},
                         "required": ["paths", "tags"]}},
        {"name": "search_notes", "description": "Search notes by content or tag.",
         "inputSchema": {"type": "object", "properties": {
             "query": _STR, "mode": {"type": "string", "enum": ["content", "tag"]}}, "required": ["query"]},
         "outputSchema": {"type": "object", "properties": {"matches": {"type": "array", "items": {
             "type": "object", "properties": {"path": _STR, "line": {"type": "integer"}, "snippet": _STR}}}}}},
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


async def test_labels_added_to_an_issue_read_back_and_removed_ones_are_gone(tmp_path: Path) -> None:
    world = tmp_path / "tracker.json"
    world.write_text(json.dumps(TRACKER), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _body(await session.call_tool("create_issue", {"title": "Login fails"}))
        issue_id = str(created["id"])

        added = await session.call_tool("add_labels", {"issue_id": issue_id, "labels": ["bug", "urgent"]})
        assert not added.isError
        read = _body(await session.call_tool("get_issue", {"issue_id": issue_id}))
        assert read["title"] == "Login fails" and read["labels"] == ["bug", "urgent"]

        removed = await session.call_tool("remove_labels", {"issue_id": issue_id, "labels": ["urgent"]})
        assert not removed.isError
        read = _body(await session.call_tool("get_issue", {"issue_id": issue_id}))
        assert read["labels"] == ["bug"]


async def test_a_note_tagged_by_path_is_found_by_a_tag_search(tmp_path: Path) -> None:
    world = tmp_path / "vault.json"
    world.write_text(json.dumps(VAULT), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_note", {"path": "Travel/Lisbon.md", "content": "# Lisbon\n\nFlights booked.\n"})
        await session.call_tool("create_note", {"path": "Recipes/Soup.md",
                                                "content": "---\ntags: [recipe]\n---\n# Soup\n"})
        before = _body(await session.call_tool("search_notes", {"query": "travel", "mode": "tag"}))
        assert before["matches"] == []

        tagged = await session.call_tool("add_tags", {"paths": ["Travel/Lisbon.md", "Recipes/Soup.md"],
                                                      "tags": ["travel"]})
        assert not tagged.isError
        found = _body(await session.call_tool("search_notes", {"query": "travel", "mode": "tag"}))
        assert sorted(m["path"].lstrip("/") for m in found["matches"]) == ["Recipes/Soup.md", "Travel/Lisbon.md"]
        # the front matter's own tag is still there beside the new one
        kept = _body(await session.call_tool("search_notes", {"query": "recipe", "mode": "tag"}))
        assert [m["path"].lstrip("/") for m in kept["matches"]] == ["Recipes/Soup.md"]


MANAGED = {
    "name": "managed_vault",
    "tools": [
        VAULT["tools"][0], VAULT["tools"][2],
        _tool("manage_tags", "Add, remove or replace the tags of a note.",
              {"path": _STR, "operation": {"type": "string", "enum": ["add", "remove", "set"]}, "tags": _STRS},
              ["path", "operation", "tags"]),
        _tool("rename_tag", "Rename a tag in every note that has it.",
              {"old_tag": _STR, "new_tag": _STR}, ["old_tag", "new_tag"]),
    ],
}

LABELLED = {
    "name": "labelled_tracker",
    "tools": [
        *TRACKER["tools"][:2],
        _tool("update_labels", "Change an issue's labels.",
              {"issue_id": _STR, "action": {"type": "string"}, "labels": _STRS}, ["issue_id", "action", "labels"]),
        _tool("rename_label", "Rename a label on all issues.", {"from": _STR, "to": _STR}, ["from", "to"]),
    ],
}


async def _tagged(session: Any, tag: str) -> list[str]:
    found = _body(await session.call_tool("search_notes", {"query": tag, "mode": "tag"}))
    return sorted(m["path"].lstrip("/") for m in found["matches"])


async def test_a_manage_tool_adds_removes_and_sets_tags_as_its_operation_argument_says(tmp_path: Path) -> None:
    world = tmp_path / "managed.json"
    world.write_text(json.dumps(MANAGED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_note", {"path": "Travel/Lisbon.md", "content": "# Lisbon\n"})
        note = {"path": "Travel/Lisbon.md"}

        added = await session.call_tool("manage_tags", {**note, "operation": "add", "tags": ["travel", "2026"]})
        assert not added.isError
        assert await _tagged(session, "travel") == ["Travel/Lisbon.md"]

        await session.call_tool("manage_tags", {**note, "operation": "remove", "tags": ["travel"]})
        assert await _tagged(session, "travel") == []
        assert await _tagged(session, "2026") == ["Travel/Lisbon.md"]

        await session.call_tool("manage_tags", {**note, "operation": "set", "tags": ["trips"]})
        assert await _tagged(session, "2026") == []
        assert await _tagged(session, "trips") == ["Travel/Lisbon.md"]


async def test_renaming_a_tag_moves_every_note_holding_it_to_the_new_name(tmp_path: Path) -> None:
    world = tmp_path / "managed.json"
    world.write_text(json.dumps(MANAGED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_note", {"path": "a.md", "content": "---\ntags: [draft, work]\n---\nA\n"})
        await session.call_tool("create_note", {"path": "b.md", "content": "---\ntags: [draft]\n---\nB\n"})
        await session.call_tool("create_note", {"path": "c.md", "content": "---\ntags: [work]\n---\nC\n"})

        renamed = await session.call_tool("rename_tag", {"old_tag": "draft", "new_tag": "wip"})
        assert not renamed.isError
        assert await _tagged(session, "draft") == []
        assert await _tagged(session, "wip") == ["a.md", "b.md"]
        # a note's other tags stay as they were
        assert await _tagged(session, "work") == ["a.md", "c.md"]


async def test_an_action_argument_and_a_from_to_rename_change_an_issues_labels(tmp_path: Path) -> None:
    world = tmp_path / "labelled.json"
    world.write_text(json.dumps(LABELLED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        first = str(_body(await session.call_tool("create_issue", {"title": "Login fails"}))["id"])
        second = str(_body(await session.call_tool("create_issue", {"title": "Logout fails"}))["id"])
        for issue_id in (first, second):
            await session.call_tool("update_labels", {"issue_id": issue_id, "action": "add", "labels": ["bug"]})
        await session.call_tool("update_labels", {"issue_id": first, "action": "add", "labels": ["urgent"]})

        renamed = await session.call_tool("rename_label", {"from": "bug", "to": "defect"})
        assert not renamed.isError
        first_read = _body(await session.call_tool("get_issue", {"issue_id": first}))
        second_read = _body(await session.call_tool("get_issue", {"issue_id": second}))
        assert first_read["labels"] == ["defect", "urgent"] and second_read["labels"] == ["defect"]


async def test_an_operation_that_is_not_a_change_leaves_the_tags_alone(tmp_path: Path) -> None:
    world = tmp_path / "managed.json"
    world.write_text(json.dumps(MANAGED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("create_note", {"path": "n.md", "content": "---\ntags: [keep]\n---\nN\n"})
        await session.call_tool("manage_tags", {"path": "n.md", "operation": "list", "tags": ["other"]})
        assert await _tagged(session, "keep") == ["n.md"]
        assert await _tagged(session, "other") == []
