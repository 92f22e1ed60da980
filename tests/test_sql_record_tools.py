"""Record tools of a SQL catalog (``add_row(table, data)``, ``find_rows(table, conditions)``...) run on the same
database as its statement tool, and a world learned from a session starts with the tables the session showed.

Through a real MCP client over stdio; the catalog is a small generic one written here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

_STR = {"type": "string"}
_ROW = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}


def _tool(name: str, description: str, **props: Any) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": props}}


CATALOG = {
    "name": "records-db",
    "tools": [
        _tool("run_sql", "Execute a SQL statement against the SQLite database", sql=_STR),
        _tool("list_tables", "List the tables of the database"),
        _tool("add_row", "Insert a row into a table", table=_STR, data=_ROW),
        _tool("find_rows", "Read rows of a table matching conditions", table=_STR, conditions=_ROW,
              limit={"type": "number"}),
        _tool("change_rows", "Update rows of a table", table=_STR, data=_ROW, conditions=_ROW),
        _tool("remove_rows", "Delete rows of a table", table=_STR, conditions=_ROW),
    ],
}


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def test_rows_added_by_a_record_tool_are_seen_by_a_statement_and_the_other_way_round(tmp_path: Path) -> None:
    world = tmp_path / "db.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("run_sql", {"sql": "CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT)"})
        await session.call_tool("add_row", {"table": "pets", "data": {"name": "Rex", "kind": "dog"}})
        await session.call_tool("run_sql", {"sql": "INSERT INTO pets (name, kind) VALUES ('Tom', 'cat')"})
        counted = json.loads(_text(await session.call_tool("run_sql", {"sql": "SELECT COUNT(*) AS n FROM pets"})))
        assert counted == [{"n": 2}]
        cats = json.loads(_text(await session.call_tool("find_rows", {"table": "pets", "conditions": {"kind": "cat"}})))
        assert cats == [{"id": 2, "name": "Tom", "kind": "cat"}]
        await session.call_tool("change_rows", {"table": "pets", "data": {"kind": "wolf"}, "conditions": {"id": 1}})
        await session.call_tool("remove_rows", {"table": "pets", "conditions": {"name": "Tom"}})
        left = json.loads(_text(await session.call_tool("run_sql", {"sql": "SELECT name, kind FROM pets"})))
        assert left == [{"name": "Rex", "kind": "wolf"}]
        refused = await session.call_tool("add_row", {"table": "pets", "data": {"kind": "fish"}})
        assert refused.isError and "NOT NULL constraint failed: pets.name" in _text(refused)


def _turn(n: int, tool: str, arguments: dict[str, Any], text: str, error: bool = False) -> dict[str, Any]:
    return {"episode": "e1", "turn": n, "tool": tool, "arguments": arguments,
            "result": {"content": [{"type": "text", "text": text}], "isError": error}, "is_error": error}


async def test_a_learned_world_starts_with_the_tables_and_rows_its_session_showed_and_answers_in_their_words(
        tmp_path: Path) -> None:
    row = {"id": 1, "name": "Ada", "city": "Oslo"}
    turns = [
        _turn(1, "list_tables", {}, json.dumps([{"name": "people"}], indent=2)),
        _turn(2, "find_rows", {"table": "people", "conditions": {"city": "Oslo"}}, json.dumps([row], indent=2)),
        _turn(3, "add_row", {"table": "people", "data": {"name": "Bo", "city": "Rome"}},
              json.dumps({"message": "Row added", "newId": 2}, indent=2)),
        _turn(4, "find_rows", {"table": "ghosts", "conditions": {}}, 'Error reading rows: Table "ghosts" is unknown', True),
    ]
    recording = tmp_path / "session.jsonl"
    recording.write_text("\n".join(json.dumps(t) for t in turns) + "\n", encoding="utf-8")
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        added = json.loads(_text(await session.call_tool("add_row", {"table": "people", "data": {"name": "Cy", "city": "Oslo"}})))
        assert added == {"message": "Row added", "newId": 2}
        oslo = json.loads(_text(await session.call_tool("run_sql", {"sql": "SELECT name FROM people WHERE city = 'Oslo'"})))
        assert oslo == [{"name": "Ada"}, {"name": "Cy"}]
        missing = await session.call_tool("remove_rows", {"table": "elves", "conditions": {"id": 1}})
        assert missing.isError and _text(missing).endswith('Table "elves" is unknown')
