"""A field that names a hash of an entity's text is that hash, in a bare catalog (no recording).

``etag`` beside a note is the sha256 of the note's text: a read of an unchanged note shows the
create's etag, an append changes it and its answer shows the new one. A hex field whose schema only
gives the hash's length is that hash; an identifier with a hex pattern is not a digest. Through a real
MCP client over stdio.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

_STR = {"type": "string"}
_SHA256 = {"type": "string", "pattern": "^[a-f0-9]{64}$", "description": "Revision of the note's content"}


def _out(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


NOTES = {
    "name": "notes",
    "tools": [
        {"name": "create_note", "description": "Create a note at a path.",
         "inputSchema": {"type": "object", "properties": {"path": _STR, "content": _STR},
                         "required": ["path", "content"]},
         "outputSchema": _out(path=_STR, etag=_SHA256)},
        {"name": "read_note", "description": "Read a note's content.",
         "inputSchema": {"type": "object", "properties": {"path": _STR}, "required": ["path"]},
         "outputSchema": _out(path=_STR, content=_STR, etag=_SHA256)},
        {"name": "edit_note", "description": "Append to a note or replace its content.",
         "inputSchema": {"type": "object", "properties": {
             "path": _STR, "operation": {"type": "string", "enum": ["append", "replace"]}, "content": _STR},
             "required": ["path", "operation", "content"]},
         "outputSchema": _out(path=_STR, etag=_SHA256)},
    ],
}

_HEX32 = {"type": "string", "pattern": "^[0-9a-f]{32}$"}
DOCUMENTS = {
    "name": "documents",
    "tools": [
        {"name": "create_document", "description": "Create a document.",
         "inputSchema": {"type": "object", "properties": {"title": _STR, "body": _STR},
                         "required": ["title", "body"]},
         "outputSchema": _out(id=_HEX32, title=_STR, body=_STR,
                              revision={"type": "string", "pattern": "^[0-9a-f]{40}$"})},
    ],
}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def test_a_notes_etag_is_the_sha256_of_its_text_and_changes_only_when_the_text_does(tmp_path: Path) -> None:
    world = tmp_path / "notes.json"
    world.write_text(json.dumps(NOTES), encoding="utf-8")
    first, more = "# Lisbon\n\nFlights booked.\n", "\n- Belem Tower\n"
    async with stdio_session(str(world)) as session:
        created = _body(await session.call_tool("create_note", {"path": "Travel/Lisbon.md", "content": first}))
        read = _body(await session.call_tool("read_note", {"path": "Travel/Lisbon.md"}))
        assert read["content"] == first
        assert created["etag"] == read["etag"] == _sha256(first)

        edited = _body(await session.call_tool(
            "edit_note", {"path": "Travel/Lisbon.md", "operation": "append", "content": more}))
        read_again = _body(await session.call_tool("read_note", {"path": "Travel/Lisbon.md"}))
        assert read_again["content"] == first + more
        assert edited["etag"] == read_again["etag"] == _sha256(first + more) != created["etag"]

        reread = _body(await session.call_tool("read_note", {"path": "Travel/Lisbon.md"}))
        assert reread["etag"] == read_again["etag"]


async def test_a_hex_field_of_a_hashs_length_digests_the_text_but_a_hex_id_stays_an_id(tmp_path: Path) -> None:
    world = tmp_path / "documents.json"
    world.write_text(json.dumps(DOCUMENTS), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        one = _body(await session.call_tool("create_document", {"title": "A", "body": "Same words."}))
        two = _body(await session.call_tool("create_document", {"title": "B", "body": "Same words."}))
    assert one["revision"] == two["revision"] == hashlib.sha1(b"Same words.").hexdigest()
    assert one["id"] != two["id"]
