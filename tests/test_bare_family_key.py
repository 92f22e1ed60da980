"""A bare catalog's record is answered with its key under the name the family's tools take it by.

``add_entry`` answers ``{"entry_id": ...}`` where ``get_entry``/``update_entry``/``delete_entry``
take ``entry_id``; the update and the read answer it too. The record keeps its own ``id``. A
catalog whose envelope nests the record under its noun, or whose tools take several key names,
is left as it was. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

_STR = {"type": "string"}
_INT = {"type": "integer"}


JOURNAL = {
    "name": "journal",
    "tools": [
        _tool("add_entry", "Add a new diary entry.", {"text": _STR}, ["text"]),
        _tool("get_entry", "Get a single entry by its numeric ID.", {"entry_id": _INT}, ["entry_id"]),
        _tool("update_entry", "Update an existing entry.", {"entry_id": _INT, "text": _STR}, ["entry_id"]),
        _tool("delete_entry", "Delete an entry by numeric identifier.", {"entry_id": _INT}, ["entry_id"]),
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


async def test_a_created_entry_answers_its_key_as_entry_id_and_the_update_and_read_echo_it(tmp_path: Path) -> None:
    world = tmp_path / "journal.json"
    world.write_text(json.dumps(JOURNAL), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _body(await session.call_tool("add_entry", {"text": "Kickoff with the harbor team"}))
        assert created["entry_id"] == created["id"]
        key = created["entry_id"]

        updated = _body(await session.call_tool("update_entry", {"entry_id": key, "text": "Kickoff moved"}))
        assert updated["entry_id"] == key and updated["text"] == "Kickoff moved"
        read = _body(await session.call_tool("get_entry", {"entry_id": key}))
        assert read["entry_id"] == key and read["text"] == "Kickoff moved"


async def test_a_family_that_takes_two_key_names_gets_no_new_key(tmp_path: Path) -> None:
    mixed = {"name": "mixed", "tools": [
        JOURNAL["tools"][0], JOURNAL["tools"][1],
        _tool("remove_entry", "Delete an entry.", {"entryId": _INT}, ["entryId"]),
    ]}
    world = tmp_path / "mixed.json"
    world.write_text(json.dumps(mixed), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _body(await session.call_tool("add_entry", {"text": "Kickoff"}))
        assert "id" in created and "entry_id" not in created and "entryId" not in created
