"""Tools that add or remove values of a list field change the entities they name.

``add_labels(issue_id, labels)`` puts the labels on the issue (a read shows them, a later
``remove_labels`` takes some away); ``add_tags(paths, tags)`` on notes makes a tag search find
them. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

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
