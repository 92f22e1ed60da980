"""SQL tools are answered by a real database, as the real SQL servers answer them.

Three real catalogs: the reference SQLite server (``mcp-server-sqlite`` from PyPI; its
``tools/list`` and its answers to a whole episode were recorded off the wire by
``tests/ground_truth/record_sqlite_server.py``), a Postgres server
(``enhanced-postgres-mcp-server``, whose ``query`` tool is the official
``@modelcontextprotocol/server-postgres`` one) and a MySQL server (``@f4ww4z/mcp-mysql-server``),
the last two copied from their published npm packages. Every call goes through a real MCP
client to ``agentworld-mcp serve`` over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentworld_mcp.world.roles import infer_role

from .conftest import stdio_session
from .scenarios import CATALOGS

HERE = Path(__file__).resolve().parent
SQLITE = CATALOGS / "sqlite.json"
POSTGRES = CATALOGS / "postgres.json"
MYSQL = CATALOGS / "mysql.json"
GROUND_TRUTH = HERE / "ground_truth" / "sqlite_server.jsonl"


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _tools(path: Path) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in json.loads(path.read_text())["tools"]}


def _world(tmp_path: Path, name: str, tools: list[dict[str, Any]], **extra: Any) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "tools": tools, **extra}))
    return path


# -- which tools speak SQL ---------------------------------------------------------------------------


def test_sql_tools_of_real_catalogs_are_recognised_and_the_rest_are_not() -> None:
    sqlite = {name: infer_role(t) for name, t in _tools(SQLITE).items()}
    assert {n: (r.style, r.op) for n, r in sqlite.items()} == {
        "read_query": ("sql", "read"), "write_query": ("sql", "write"), "create_table": ("sql", "create_table"),
        "list_tables": ("sql", "list_tables"), "describe_table": ("sql", "describe_table"),
        "append_insight": ("record", None),
    }
    postgres = {name: infer_role(t) for name, t in _tools(POSTGRES).items()}
    assert {n: r.op for n, r in postgres.items() if r.style == "sql"} == {
        "query": "read", "execute": "write", "insert": "insert", "update": "update", "delete": "delete",
        "createTable": "create_table", "createIndex": "create_index", "alterTable": "alter_table",
    }
    assert postgres["createFunction"].style == postgres["createTrigger"].style == "record"
    # A search tool's "query" and a spreadsheet service's tables are not SQL.
    memory = _tools(CATALOGS / "memory.json")
    assert infer_role(memory["search_nodes"]).style == "graph"
    airtable_like = {"name": "list_tables", "description": "List the tables of a base",
                     "inputSchema": {"type": "object", "properties": {"baseId": {"type": "string"}}}}
    assert infer_role(airtable_like).style == "record"


# -- the reference SQLite server, call for call -------------------------------------------------------


async def test_an_episode_answers_exactly_as_the_reference_sqlite_server_did() -> None:
    recorded = [json.loads(line) for line in GROUND_TRUTH.read_text().splitlines()]
    differences = []
    async with stdio_session(str(SQLITE)) as session:
        for call in recorded:
            result = await session.call_tool(call["tool"], call["arguments"])
            ours = {"content": [{"type": "text", "text": _text(result)}], "isError": result.isError}
            if ours != call["result"]:
                differences.append((call["tool"], call["arguments"], ours, call["result"]))
    assert len(recorded) >= 25
    assert differences == []


async def test_sqlite_tables_survive_across_serve_processes(tmp_path: Path) -> None:
    """A stdio client that starts a server per session (``serve --state FILE``) keeps its tables."""
    state = tmp_path / "state.sqlite"
    async with stdio_session(str(SQLITE), "--state", str(state)) as session:
        created = await session.call_tool("create_table", {
            "query": "CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT, done INT)"})
        assert _text(created) == "Table created successfully"
        inserted = await session.call_tool("write_query", {
            "query": "INSERT INTO tasks (title, done) VALUES ('write tests', 0), ('ship', 0)"})
        assert _text(inserted) == "[{'affected_rows': 2}]"
    async with stdio_session(str(SQLITE), "--state", str(state)) as session:
        updated = await session.call_tool("write_query", {"query": "UPDATE tasks SET done = 1 WHERE id = 1"})
        assert _text(updated) == "[{'affected_rows': 1}]"
        # A failed statement changes nothing, in this process or the next.
        duplicate = await session.call_tool("write_query", {"query": "INSERT INTO tasks (id, title) VALUES (1, 'dup')"})
        assert _text(duplicate) == "Database error: UNIQUE constraint failed: tasks.id"
    async with stdio_session(str(SQLITE), "--state", str(state)) as session:
        rows = await session.call_tool("read_query", {"query": "SELECT * FROM tasks ORDER BY id"})
        assert _text(rows) == "[{'id': 1, 'title': 'write tests', 'done': 1}, {'id': 2, 'title': 'ship', 'done': 0}]"
        assert _text(await session.call_tool("list_tables", {})) == "[{'name': 'tasks'}]"
        assert _text(await session.call_tool("describe_table", {"table_name": "tasks"})) == (
            "[{'cid': 0, 'name': 'id', 'type': 'INTEGER', 'notnull': 0, 'dflt_value': None, 'pk': 1}, "
            "{'cid': 1, 'name': 'title', 'type': 'TEXT', 'notnull': 0, 'dflt_value': None, 'pk': 0}, "
            "{'cid': 2, 'name': 'done', 'type': 'INT', 'notnull': 0, 'dflt_value': None, 'pk': 0}]")


async def test_episodes_have_separate_databases(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    async with stdio_session(str(SQLITE), "--state", str(state), "--episode", "a") as session:
        await session.call_tool("create_table", {"query": "CREATE TABLE only_in_a (x)"})
    async with stdio_session(str(SQLITE), "--state", str(state), "--episode", "b") as session:
        assert _text(await session.call_tool("list_tables", {})) == "[]"
        assert _text(await session.call_tool("read_query", {"query": "SELECT * FROM only_in_a"})) == (
            "Database error: no such table: only_in_a")


async def test_the_database_clock_is_the_simulated_clock_so_episodes_replay_byte_for_byte() -> None:
    """``DEFAULT CURRENT_TIMESTAMP`` reads the simulated clock (turn N is N minutes after the start)."""
    from agentworld_mcp import Simulator
    from agentworld_mcp.world.world import load_world

    answers = []
    for _ in range(2):
        async with Simulator(load_world(SQLITE)) as sim:
            await sim.call("create_table", {"query": "CREATE TABLE events (id INTEGER PRIMARY KEY, "
                                                     "at TEXT DEFAULT CURRENT_TIMESTAMP, note TEXT)"})
            await sim.call("write_query", {"query": "INSERT INTO events (note) VALUES ('CURRENT_TIMESTAMP')"})
            rows = await sim.call("read_query", {"query": "SELECT * FROM events"})
            described = await sim.call("describe_table", {"table_name": "events"})
            answers.append((rows.text, described.text))
    assert answers[0] == answers[1]
    assert answers[0][0] == "[{'id': 1, 'at': '2026-03-09 09:02:00', 'note': 'CURRENT_TIMESTAMP'}]"
    assert "'dflt_value': 'CURRENT_TIMESTAMP'" in answers[0][1]  # described as declared


# -- a Postgres server: JSON rows, Postgres SQL, Postgres errors ----------------------------------


async def test_postgres_catalog_create_insert_select_describe_and_errors(tmp_path: Path) -> None:
    state = tmp_path / "pg.sqlite"
    async with stdio_session(str(POSTGRES), "--state", str(state)) as session:
        await _postgres_create_and_insert(session.call_tool)
    async with stdio_session(str(POSTGRES), "--state", str(state)) as session:  # the tables outlive the process
        await _postgres_select_describe_and_errors(session.call_tool)


async def _postgres_create_and_insert(call: Any) -> None:
    created = await call("execute", {"sql": "CREATE TABLE users (id SERIAL PRIMARY KEY, name VARCHAR(100) NOT NULL, "
                                            "email TEXT UNIQUE, created_at TIMESTAMP DEFAULT now())"})
    assert json.loads(_text(created)) == {"command": "CREATE", "rowCount": None, "rows": []}
    inserted = await call("execute", {"sql": "INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com')"})
    assert json.loads(_text(inserted)) == {"command": "INSERT", "rowCount": 1, "rows": []}
    returned = json.loads(_text(await call("insert", {"table": "users",
                                                      "data": {"name": "Grace", "email": "grace@example.com"}})))
    assert [(r["id"], r["name"]) for r in returned] == [(2, "Grace")]  # SERIAL numbers the rows


async def _postgres_select_describe_and_errors(call: Any) -> None:
    # Postgres SQL (ILIKE, ::casts, the public schema), rows printed as JSON.stringify(rows, null, 2).
    selected = await call("query", {"sql": "SELECT id, name::text, count(*) OVER () FROM public.users "
                                           "WHERE email ILIKE '%EXAMPLE.COM' ORDER BY id"})
    # count(*) is a bigint, which node-postgres gives as a string.
    assert _text(selected) == json.dumps([{"id": 1, "name": "Ada", "count": "2"},
                                          {"id": 2, "name": "Grace", "count": "2"}], indent=2)
    columns = json.loads(_text(await call("query", {"sql": "SELECT column_name, data_type FROM "
                                                           "information_schema.columns WHERE table_name = 'users'"})))
    assert [(c["column_name"], c["data_type"]) for c in columns] == [
        ("id", "integer"), ("name", "character varying"), ("email", "text"),
        ("created_at", "timestamp without time zone")]

    # Errors are isError, worded as Postgres words them; the read-only query tool refuses writes.
    for tool, sql, message in [
        ("query", "SELECT * FROM missing", 'relation "missing" does not exist'),
        ("query", "SELECT nme FROM users", 'column "nme" does not exist'),
        ("query", "INSERT INTO users (name) VALUES ('x')", "cannot execute INSERT in a read-only transaction"),
        ("execute", "INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com')",
         'duplicate key value violates unique constraint "users_email_key"'),
        ("execute", "INSERT INTO users (email) VALUES ('z@example.com')",
         'null value in column "name" of relation "users" violates not-null constraint'),
        ("query", "SELEC 1", 'syntax error at or near "SELEC"'),
    ]:
        result = await call(tool, {"sql": sql})
        assert (result.isError, _text(result)) == (True, message), sql

    updated = json.loads(_text(await call("update", {"table": "users", "data": {"name": "Grace Hopper"},
                                                     "where": "id = 2"})))
    assert [r["name"] for r in updated] == ["Grace Hopper"]
    deleted = json.loads(_text(await call("delete", {"table": "users", "where": "id = 1"})))
    assert [r["name"] for r in deleted] == ["Ada"]
    table = json.loads(_text(await call("createTable", {"tableName": "orders", "columns": [
        {"name": "id", "type": "SERIAL", "constraints": "PRIMARY KEY"}, {"name": "user_id", "type": "INTEGER"}]})))
    assert table == {"message": "Table orders created successfully",
                     "sql": "CREATE TABLE orders (id SERIAL PRIMARY KEY, user_id INTEGER)"}
    tables = json.loads(_text(await call("query", {"sql": "SELECT table_name FROM information_schema.tables "
                                                          "WHERE table_schema = 'public'"})))
    assert tables == [{"table_name": "users"}, {"table_name": "orders"}]
    remaining = json.loads(_text(await call("query", {"sql": "SELECT name, created_at FROM users"})))
    # The simulated clock, printed as JSON.stringify prints the Date node-postgres makes of a timestamp.
    assert remaining == [{"name": "Grace Hopper", "created_at": "2026-03-09T09:03:00.000Z"}]


async def test_official_postgres_server_answers_from_the_world_seed(tmp_path: Path) -> None:
    """``@modelcontextprotocol/server-postgres`` has one read-only ``query`` tool; the world seeds its tables."""
    world = _world(tmp_path, "server-postgres", [_tools(POSTGRES)["query"]], seed={"sql_databases": [{
        "name": "main",
        "sql": ["CREATE TABLE products (id SERIAL PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2))",
                "INSERT INTO products (name, price) VALUES ('kettle', 24.5), ('mug', 6)"],
    }]})
    answers = []
    for _ in range(2):  # byte-reproducible: a fresh server answers the same
        async with stdio_session(str(world)) as session:
            result = await session.call_tool("query", {"sql": "SELECT name, price FROM products WHERE price > 10"})
            answers.append((result.isError, _text(result)))
            series = await session.call_tool("query", {"sql": "SELECT n FROM generate_series(1, 3) AS n"})
            assert json.loads(_text(series)) == [{"n": 1}, {"n": 2}, {"n": 3}]  # a set-returning function
    # numeric is exact in Postgres: node-postgres gives it as a string.
    assert answers[0] == answers[1] == (False, json.dumps([{"name": "kettle", "price": "24.5"}], indent=2))


# -- a MySQL server: MySQL SQL, mysql2's result headers, DESCRIBE and SHOW TABLES -----------------


async def test_mysql_catalog_speaks_mysql() -> None:
    """``@f4ww4z/mcp-mysql-server``: ``execute`` for writes, ``query`` for SELECT, both with ``params``."""
    async with stdio_session(str(MYSQL)) as session:
        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            result = await session.call_tool(tool, arguments)
            return (result.isError, json.loads(_text(result)) if not result.isError else _text(result))

        await call("execute", {"sql": "CREATE TABLE `users` (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) "
                                      "NOT NULL, email VARCHAR(100) UNIQUE, active BOOLEAN DEFAULT 1) ENGINE=InnoDB"})
        assert await call("execute", {"sql": "INSERT INTO users (name, email) VALUES (?, ?)",
                                      "params": ["Ada", "ada@example.com"]}) == (False, {
            "fieldCount": 0, "affectedRows": 1, "insertId": 1, "info": "", "serverStatus": 2, "warningStatus": 0,
            "changedRows": 0})
        await call("execute", {"sql": "INSERT INTO users (name, email) VALUES ('Grace', 'g@example.com'), "
                                      "('Linus', 'l@example.com')"})
        updated = await call("execute", {"sql": "UPDATE users SET active = 0 WHERE name = 'Linus'"})
        assert updated[1]["info"] == "Rows matched: 1  Changed: 1  Warnings: 0"
        assert await call("query", {"sql": "SELECT `name` FROM users WHERE active = ? ORDER BY id LIMIT 1, 1",
                                    "params": [1]}) == (False, [{"name": "Grace"}])
        assert await call("list_tables", {}) == (False, [{"Tables_in_main": "users"}])
        described = await call("describe_table", {"table": "users"})
        assert [(c["Field"], c["Type"], c["Key"], c["Extra"]) for c in described[1]] == [
            ("id", "int", "PRI", "auto_increment"), ("name", "varchar(50)", "", ""),
            ("email", "varchar(100)", "UNI", ""), ("active", "tinyint(1)", "", "")]
        assert await call("query", {"sql": "SELECT * FROM orders"}) == (True, "Table 'main.orders' doesn't exist")
        assert await call("query", {"sql": "SELECT nme FROM users"}) == (True, "Unknown column 'nme' in 'field list'")
        assert await call("query", {"sql": "DELETE FROM users"}) == (
            True, "Cannot execute statement in a READ ONLY transaction.")


# -- the catalog's outputSchema -------------------------------------------------------------------


async def test_structured_results_conform_to_the_tools_output_schema(tmp_path: Path) -> None:
    rows_tool = {"name": "execute_sql", "description": "Execute a SQL statement against the DuckDB database",
                 "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]},
                 "outputSchema": {"type": "object", "properties": {
                     "rows": {"type": "array", "items": {"type": "object"}}, "row_count": {"type": "integer"},
                     "columns": {"type": "array", "items": {"type": "string"}}},
                     "required": ["rows", "row_count"]}}
    wrapped_tool = {"name": "run_query", "description": "Run a SQL query",
                    "inputSchema": {"type": "object", "properties": {"query": {"type": "string",
                                                                               "description": "SQL to run"}}},
                    "outputSchema": {"type": "object", "properties": {"result": {"type": "string"}},
                                     "required": ["result"], "x-fastmcp-wrap-result": True}}
    world = _world(tmp_path, "duck", [rows_tool, wrapped_tool])
    async with stdio_session(str(world)) as session:
        await session.call_tool("execute_sql", {"sql": "CREATE TABLE t (a INTEGER, b VARCHAR)"})
        await session.call_tool("execute_sql", {"sql": "INSERT INTO t VALUES (1, 'x'), (2, 'y')"})
        result = await session.call_tool("execute_sql", {"sql": "SELECT a, b FROM t ORDER BY a"})
        jsonschema.validate(result.structuredContent, rows_tool["outputSchema"])
        assert result.structuredContent["rows"] == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
        assert result.structuredContent["row_count"] == 2 and result.structuredContent["columns"] == ["a", "b"]
        wrapped = await session.call_tool("run_query", {"query": "SELECT b FROM t WHERE a = 2"})
        jsonschema.validate(wrapped.structuredContent, wrapped_tool["outputSchema"])
        # the text a DuckDB server's str-returning tool prints: its driver's rows (sql_engines.json)
        assert wrapped.structuredContent["result"] == "[('y',)]"


@pytest.mark.parametrize("catalog", [SQLITE, POSTGRES, MYSQL])
def test_catalogs_load_as_worlds(catalog: Path) -> None:
    from agentworld_mcp.world.world import load_world

    assert load_world(catalog).tools
