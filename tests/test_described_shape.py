"""A tool whose description states its answer as a literal answers in that shape.

Servers written as Python functions often declare no outputSchema but say in the docstring what
comes back: ``Returns: {"ok": true, "book": {id, title, ...}} on success, or {"ok": false,
"error": "book_not_found", "message", "hint"} if ...``. The simulator answers such a tool in the
stated shape (constants as stated, the held record under its name, a count counting its list) and
answers a failure in the stated failure shape, in band, without inventing a hint. Through a real
MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.world.described_shape import described_returns

from .conftest import stdio_session

_STR = {"type": "string"}
_INT = {"type": "integer"}

SHELF = {
    "name": "shelf",
    "tools": [
        {"name": "add_book", "description": """Add a book to the shelf.

    Args:
        title: The book's title.
        author: Who wrote it.

    Returns:
        {"ok": true, "book": {id, title, author, shelved_at, lent_to}, "warnings": [str, ...]} on
        success, or {"ok": false, "error", "message", "hint"} if the title is empty.
    """, "inputSchema": {"type": "object", "properties": {"title": _STR, "author": _STR}, "required": ["title"]}},
        {"name": "get_book", "description": """Show one book.

    Args:
        id: Numeric book id, as returned by add_book.

    Returns:
        {"ok": true, "book": {...}} on success, or
        {"ok": false, "error": "book_not_found", "message", "hint"} if the id does not exist.
    """, "inputSchema": {"type": "object", "properties": {"id": _INT}, "required": ["id"]}},
        {"name": "list_books", "description": """List the books on the shelf, oldest first.

    Returns:
        {"ok": true, "books": [book, ...], "count": N}
    """, "inputSchema": {"type": "object", "properties": {}}},
    ],
}


def _body(result: Any) -> Any:
    assert result.structuredContent is None  # the real server answers JSON text, not structured content
    return json.loads(result.content[0].text)


async def test_a_tool_answers_in_the_shape_its_description_states(tmp_path: Path) -> None:
    world = tmp_path / "shelf.json"
    world.write_text(json.dumps(SHELF), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        listed = await session.list_tools()
        assert all(tool.outputSchema is None for tool in listed.tools)  # a stated shape is no outputSchema

        added = await session.call_tool("add_book", {"title": "The Left Hand of Darkness", "author": "Le Guin"})
        assert not added.isError
        body = _body(added)
        assert body["ok"] is True and body["warnings"] == []
        book = body["book"]
        assert book["title"] == "The Left Hand of Darkness" and book["author"] == "Le Guin"
        assert {"id", "shelved_at", "lent_to"} <= set(book) and book["lent_to"] is None

        await session.call_tool("add_book", {"title": "Kindred", "author": "Butler"})
        read = _body(await session.call_tool("get_book", {"id": book["id"]}))
        assert read["ok"] is True and read["book"]["id"] == book["id"]
        assert read["book"]["title"] == "The Left Hand of Darkness"

        listing = _body(await session.call_tool("list_books", {}))
        assert listing["ok"] is True
        assert [b["title"] for b in listing["books"]] == ["The Left Hand of Darkness", "Kindred"]
        assert listing["count"] == 2


async def test_a_missing_record_is_answered_in_the_stated_failure_shape(tmp_path: Path) -> None:
    world = tmp_path / "shelf.json"
    world.write_text(json.dumps(SHELF), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        missing = await session.call_tool("get_book", {"id": 99})
        assert not missing.isError  # the description says failures come back as the answer
        body = _body(missing)
        assert body["ok"] is False and body["error"] == "book_not_found"
        assert "99" in body["message"]
        assert "hint" not in body  # nothing known to hint: none invented


def test_return_literals_are_read_with_bare_keys_alternatives_and_asides() -> None:
    stated = described_returns("""Show a node.

    Returns:
        {"ok": true, "node": {id, name}, "parent": {"id", "name"} or null,
        "source": "cli"|"api"|null, "total": N (nodes only), "tags": [str, ...]}.
    """)
    assert stated is not None and stated.failure is None
    props = stated.success["properties"] if stated.success else {}
    assert props["ok"]["const"] is True
    assert set(props["node"]["properties"]) == {"id", "name"}
    assert "null" in props["parent"]["type"]
    assert props["source"]["enum"] == ["cli", "api", None]
    assert props["total"]["type"] == "integer" and props["tags"]["items"] == {"type": "string"}


def test_an_example_argument_or_a_field_list_is_not_a_stated_shape() -> None:
    assert described_returns('Filter issues. Pass filter as {"status": "open"}. Returns the issues found.') is None
    assert described_returns("""Get a slot.

    Returns:
        slot_id (str): The slot's id.
        start (str): When it starts.
    """) is None
    assert described_returns("- add: { agent_id } returns only { success }.") is None
