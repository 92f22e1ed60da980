"""A database catalog with record tools, learned from a recording: what the recording never showed of its tables.

A table the recording only listed accepts the columns the session named elsewhere and refuses one it never
named; a delete with no conditions is refused as the server's ``DELETE ... WHERE`` with nothing after it is;
a report on the whole database counts the tables the episode's database has now. Through a real MCP client
over stdio, on a world learned through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

_OBJ = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}
_STR = {"type": "string"}


def _tool(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"name": name, "description": f"{name.replace('_', ' ')} of the SQLite database",
            "inputSchema": {"type": "object", "properties": props, "required": required,
                            "$schema": "http://json-schema.org/draft-07/schema#"}}  # a Node (zod) server's listing


CATALOG = {"name": "store", "tools": [
    _tool("database_info", {}, []),
    _tool("run_sql", {"sql": _STR}, ["sql"]),
    _tool("list_tables", {}, []),
    _tool("describe_table", {"tableName": _STR}, ["tableName"]),
    _tool("create_record", {"table": _STR, "data": _OBJ}, ["table", "data"]),
    _tool("read_records", {"table": _STR, "conditions": _OBJ}, ["table"]),
    _tool("update_records", {"table": _STR, "data": _OBJ, "conditions": _OBJ}, ["table", "data", "conditions"]),
    _tool("delete_records", {"table": _STR, "conditions": _OBJ}, ["table", "conditions"]),
]}

CALLS: list[tuple[str, dict[str, Any], Any, bool]] = [
    ("database_info", {}, {"file": "/srv/shop.db", "bytes": 8192, "tableCount": 2}, False),
    ("list_tables", {}, [{"name": "items"}, {"name": "parcels"}], False),
    ("describe_table", {"tableName": "items"}, [
        {"cid": 0, "name": "id", "type": "INTEGER", "notnull": 0, "dflt_value": None, "pk": 1},
        {"cid": 1, "name": "label", "type": "TEXT", "notnull": 1, "dflt_value": None, "pk": 0},
        {"cid": 2, "name": "weight", "type": "REAL", "notnull": 0, "dflt_value": None, "pk": 0}], False),
    ("run_sql", {"sql": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"}, [], False),
    ("create_record", {"table": "items", "data": {"label": "lamp", "weight": 2.5}},
     {"message": "Record created", "insertedId": 1}, False),
    ("update_records", {"table": "items", "data": {"weight": 3}, "conditions": {"id": 1}},
     {"message": "Records updated", "rowsAffected": 1}, False),
    ("update_records", {"table": "items", "data": {"colour": "red"}, "conditions": {"id": 1}},
     'Error updating records: Column "colour" does not exist in table "items"', True),
    ("delete_records", {"table": "items", "conditions": {}}, "Error deleting records: SQLITE_ERROR: incomplete input", True),
    ("delete_records", {"table": "items", "conditions": {"id": 1}}, {"message": "Records deleted", "rowsAffected": 1}, False),
]


def _recording(path: Path) -> Path:
    lines = []
    for turn, (tool, arguments, answer, is_error) in enumerate(CALLS, 1):
        text = answer if isinstance(answer, str) else json.dumps(answer, indent=2)
        lines.append(json.dumps({"episode": "e1", "turn": turn, "tool": tool, "arguments": arguments,
                                 "result": {"content": [{"type": "text", "text": text}], "isError": is_error},
                                 "is_error": is_error}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _world(tmp_path: Path) -> Path:
    return learn_cli(_recording(tmp_path / "rec.jsonl"), CATALOG, tmp_path / "world.json")


async def test_a_table_only_listed_takes_the_sessions_column_names_and_refuses_one_never_named(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        made = await session.call_tool("create_record", {"table": "parcels", "data": {"label": "box", "weight": 1}})
        assert not made.isError, made.content
        assert json.loads(made.content[0].text)["insertedId"] == 1
        rows = await session.call_tool("read_records", {"table": "parcels", "conditions": {"label": "box"}})
        assert [r["weight"] for r in json.loads(rows.content[0].text)] == [1]
        odd = await session.call_tool("update_records", {"table": "parcels", "data": {"zone": 4}, "conditions": {"id": 1}})
        assert odd.isError and 'Column "zone" does not exist' in odd.content[0].text
        colour = await session.call_tool("update_records", {"table": "parcels", "data": {"colour": "red"},
                                                            "conditions": {"id": 1}})
        assert colour.isError  # the recording showed the server refuse this name


async def test_a_delete_with_no_conditions_is_refused_and_deletes_nothing(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        await session.call_tool("create_record", {"table": "items", "data": {"label": "cup"}})
        refused = await session.call_tool("delete_records", {"table": "items", "conditions": {}})
        assert refused.isError and "incomplete input" in refused.content[0].text
        rows = await session.call_tool("read_records", {"table": "items"})
        assert [r["label"] for r in json.loads(rows.content[0].text)] == ["cup"]


async def test_a_report_on_the_database_counts_the_tables_it_has_now(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        await session.call_tool("run_sql", {"sql": "CREATE TABLE labels (id INTEGER PRIMARY KEY, text TEXT)"})
        report = json.loads((await session.call_tool("database_info", {})).content[0].text)
        assert report == {"file": "/srv/shop.db", "bytes": 8192, "tableCount": 3}
