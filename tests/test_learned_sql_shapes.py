"""A database tool's answer in the keys its recording showed, the values the episode's database gives (issue 22).

An SQLite server's ``describe_table`` answered ``{"table": ..., "columns": [PRAGMA rows]}`` where the database
engine prints the PRAGMA rows alone. Learned with the ``agentworld-mcp learn`` CLI (bare catalog, no
outputSchema) and served by ``agentworld-mcp serve`` to a real MCP client over stdio, a table the new session
creates is described in the recorded keys, with its own columns; nothing the recording showed of another
table is replayed.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import bare_tool, json_answer, learn_cli, stdio_session, write_recording

CATALOG = {"name": "sqlite-tools", "tools": [
    bare_tool("write_query", "Execute an INSERT, UPDATE, DELETE or CREATE TABLE statement on the SQLite database.",
              {"query": {"type": "string"}}, ["query"]),
    bare_tool("describe_table", "Describe a table of the SQLite database: its columns.",
              {"table_name": {"type": "string"}}, ["table_name"]),
]}
NOTES = [{"cid": 0, "name": "id", "type": "INTEGER", "notnull": 0, "dflt_value": None, "pk": 1},
         {"cid": 1, "name": "title", "type": "TEXT", "notnull": 1, "dflt_value": None, "pk": 0}]


async def test_a_new_table_is_described_in_the_recorded_keys(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "train.jsonl", [
        ("write_query", {"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL)"},
         {"affected_rows": 0}),
        ("describe_table", {"table_name": "notes"}, {"table": "notes", "columns": NOTES}),
    ])
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_query", {"query": "CREATE TABLE plants (name TEXT, height REAL)"})
        described = json_answer(await session.call_tool("describe_table", {"table_name": "plants"}))
    assert described["table"] == "plants"
    assert [(c["name"], c["type"]) for c in described["columns"]] == [("name", "TEXT"), ("height", "REAL")]
    assert "notes" not in json.dumps(described)


async def test_a_missing_table_is_refused_in_the_recorded_words_and_band(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "train.jsonl", [
        ("write_query", {"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL)"},
         {"affected_rows": 0}),
        ("describe_table", {"table_name": "notes"}, {"table": "notes", "columns": NOTES}),
        ("describe_table", {"table_name": "orders"}, {"error": "Error describing table orders: no such table: orders"}),
    ])
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_query", {"query": "CREATE TABLE plants (name TEXT)"})
        missing = await session.call_tool("describe_table", {"table_name": "harvest"})
        there = json_answer(await session.call_tool("describe_table", {"table_name": "plants"}))
    assert not missing.isError
    assert json.loads(missing.content[0].text) == {"error": "Error describing table harvest: no such table: harvest"}
    assert there["table"] == "plants"
