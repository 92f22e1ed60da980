"""A search tool that answers *matches* (path, line, excerpt) finds them in the texts the episode stores.

Grep-like search tools do not return the stored documents but where the query occurs in them.
The answer is read from what the catalog's writing tools stored in this episode: the matching
line and its number, where it matched (content, name, tag) as the mode asks, a count of what was
found, and an empty list when nothing holds the query, never invented matches. Through a real MCP
client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

MATCH = {"type": "object", "properties": {
    "path": {"type": "string", "description": "Path relative to the library root"},
    "line": {"type": "integer", "minimum": 0, "description": "One-based line, zero for a name or front-matter match"},
    "excerpt": {"type": "string", "description": "The matching line"},
    "match_type": {"type": "string", "enum": ["content", "filename", "tag"]}},
    "required": ["path", "line", "excerpt", "match_type"]}

LIBRARY = {
    "name": "document-library",
    "tools": [
        {"name": "save_document", "description": "Create or overwrite a Markdown document.",
         "inputSchema": {"type": "object", "properties": {
             "path": {"type": "string", "description": "Path relative to the library root"},
             "content": {"type": "string"}}, "required": ["path", "content"]},
         "outputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "search_documents", "description": "Search document contents, file names or tags.",
         "inputSchema": {"type": "object", "properties": {
             "query": {"type": "string"},
             "mode": {"type": "string", "enum": ["content", "filename", "tag"], "default": "content"},
             "limit": {"type": "integer", "minimum": 1},
             "cursor": {"type": "string"}}, "required": ["query"]},
         "outputSchema": {"type": "object", "properties": {
             "results": {"type": "array", "items": MATCH},
             "count": {"type": "integer", "description": "Matches in this page"},
             "has_more": {"type": "boolean"}, "next_cursor": {"type": "string"},
             "warnings": {"type": "array", "items": {"type": "string"}}},
             "required": ["results", "count", "has_more", "warnings"]}},
    ],
}

SOUP = "---\ntags: [recipe, winter]\n---\n# Soup\n\nSimmer the lentils 25 minutes.\nServe hot. #dinner\n"
PLAN = "# Garden\n\nPlant lentils in April.\n"

NOTES = {
    "name": "notebook",
    "tools": [
        {"name": "create_note", "description": "Create a note.",
         "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
                         "required": ["title", "body"]},
         "outputSchema": {"type": "object", "properties": {
             "id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}},
             "required": ["id", "title", "body"]}},
        {"name": "search_notes", "description": "Find notes whose text contains the query.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
         "outputSchema": {"type": "object", "properties": {"hits": {"type": "array", "items": {
             "type": "object", "properties": {
                 "id": {"type": "string"}, "title": {"type": "string"}, "snippet": {"type": "string"}},
             "required": ["id", "title", "snippet"]}}}, "required": ["hits"]}},
    ],
}


def _world(tmp_path: Path, catalog: dict[str, Any]) -> str:
    path = tmp_path / f"{catalog['name']}.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return str(path)


async def _library(session: Any) -> None:
    await session.call_tool("save_document", {"path": "Kitchen/Soup.md", "content": SOUP})
    await session.call_tool("save_document", {"path": "Garden/Plan.md", "content": PLAN})


async def test_a_content_search_answers_each_matching_line_with_its_number(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, LIBRARY)) as session:
        await _library(session)
        found = await session.call_tool("search_documents", {"query": "LENTILS"})
        assert not found.isError
        assert found.structuredContent == {"results": [
            {"path": "Kitchen/Soup.md", "line": 6, "excerpt": "Simmer the lentils 25 minutes.", "match_type": "content"},
            {"path": "Garden/Plan.md", "line": 3, "excerpt": "Plant lentils in April.", "match_type": "content"},
        ], "count": 2, "has_more": False, "warnings": []}


async def test_the_mode_chooses_between_file_names_and_tags(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, LIBRARY)) as session:
        await _library(session)
        by_name = await session.call_tool("search_documents", {"query": "garden", "mode": "filename"})
        assert (by_name.structuredContent or {})["results"] == [
            {"path": "Garden/Plan.md", "line": 0, "excerpt": "Garden/Plan.md", "match_type": "filename"}]
        # a front-matter tag is on line 0; an inline tag on its own line
        front = await session.call_tool("search_documents", {"query": "#recipe", "mode": "tag"})
        assert (front.structuredContent or {})["results"] == [
            {"path": "Kitchen/Soup.md", "line": 0, "excerpt": "#recipe", "match_type": "tag"}]
        inline = await session.call_tool("search_documents", {"query": "dinner", "mode": "tag"})
        assert (inline.structuredContent or {})["results"] == [
            {"path": "Kitchen/Soup.md", "line": 7, "excerpt": "#dinner", "match_type": "tag"}]


async def test_a_query_no_stored_text_holds_finds_nothing_rather_than_invented_matches(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, LIBRARY)) as session:
        before = await session.call_tool("search_documents", {"query": "lentils"})
        assert (before.structuredContent or {})["results"] == []
        await _library(session)
        missing = await session.call_tool("search_documents", {"query": "plumber"})
        assert missing.structuredContent == {"results": [], "count": 0, "has_more": False, "warnings": []}
        # "Garden" is a file name and a heading, but a tag search does not look at either
        tags = await session.call_tool("search_documents", {"query": "garden", "mode": "tag"})
        assert (tags.structuredContent or {})["results"] == []


async def test_a_limited_search_pages_its_matches_with_a_cursor(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, LIBRARY)) as session:
        await _library(session)
        first = (await session.call_tool("search_documents", {"query": "lentils", "limit": 1})).structuredContent
        assert first is not None and first["has_more"] is True and first["count"] == 1
        assert first["results"][0]["path"] == "Kitchen/Soup.md"
        second = (await session.call_tool("search_documents", {"query": "lentils", "limit": 1,
                                                               "cursor": first["next_cursor"]})).structuredContent
        assert second is not None and second["has_more"] is False
        assert [r["path"] for r in second["results"]] == ["Garden/Plan.md"]


async def test_record_notes_are_found_once_each_under_their_own_id_and_title(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, NOTES)) as session:
        made = await session.call_tool("create_note", {"title": "Errands", "body": "Call the plumber.\nBuy bread."})
        note_id = (made.structuredContent or {})["id"]
        await session.call_tool("create_note", {"title": "Books", "body": "Finish the novel."})
        found = await session.call_tool("search_notes", {"q": "plumber"})
        assert found.structuredContent == {"hits": [{"id": note_id, "title": "Errands", "snippet": "Call the plumber."}]}
        none = await session.call_tool("search_notes", {"q": "garden"})
        assert none.structuredContent == {"hits": []}


async def test_a_recorded_notes_vault_finds_appended_lines_and_front_matter_tags() -> None:
    # The markdown-vault server as it listed itself: its answers are ``{ok, data: {matches, count, ...}}``.
    vault = Path(__file__).parent / "catalogs" / "vault_notes_server.json"
    async with stdio_session(str(vault)) as session:
        await session.call_tool("obsidian_create_note", {
            "vault": "notes", "path": "Travel/Lisbon.md", "content": "---\ntags:\n  - travel\n---\n# Lisbon\n"})
        await session.call_tool("obsidian_edit_note", {
            "vault": "notes", "path": "Travel/Lisbon.md", "operation": "append", "content": "\n- Belem Tower\n"})
        found = await session.call_tool("obsidian_search_vault", {"vault": "notes", "query": "belem"})
        assert found.structuredContent == {"ok": True, "data": {"matches": [
            {"path": "Travel/Lisbon.md", "kind": "content", "line": 7, "snippet": "- Belem Tower"}],
            "count": 1, "has_more": False, "warnings": []}}
        tagged = await session.call_tool("obsidian_search_vault", {"vault": "notes", "query": "travel", "mode": "tag"})
        assert (tagged.structuredContent or {})["data"]["matches"] == [
            {"path": "Travel/Lisbon.md", "kind": "tag", "line": 0, "snippet": "#travel"}]
        # the heading is kept: an append keeps what the note held
        read = await session.call_tool("obsidian_read_note", {"vault": "notes", "path": "Travel/Lisbon.md"})
        assert (read.structuredContent or {})["data"]["content"] == (
            "---\ntags:\n  - travel\n---\n# Lisbon\n\n- Belem Tower\n")
