"""Simulated tools cannot reach the host or hang the server, whatever a caller sends.

The SQL tools run callers' statements on a real SQLite connection, sandboxed: no file is
attached, written or read (``ATTACH``, ``VACUUM INTO``), no extension loaded, no setting of
consequence changed; a statement is interrupted past its time bound and a result refused past
its size bound, each answered as the SQL server's own error. Patterns built from callers'
input (a glob, a query-language filter, a schema ``pattern``) answer in bounded time. Every
attack goes through a real MCP client to ``agentworld-mcp serve``, over stdio and, where a
second client matters, over streamable HTTP.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from .conftest import http_server, http_session, stdio_session
from .scenarios import CATALOGS

SQLITE = CATALOGS / "sqlite.json"
FILESYSTEM = CATALOGS / "filesystem.json"
#: Generous: a broken sandbox hangs for minutes; a working one answers in milliseconds (or the SQL bound).
PATIENCE = 20
RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

Call = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, str]]]


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _caller(session: ClientSession) -> Call:
    async def call(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = await asyncio.wait_for(session.call_tool(tool, arguments), PATIENCE)
        return bool(result.isError), _text(result)
    return call


@asynccontextmanager
async def _session(transport: str, *args: str) -> AsyncIterator[ClientSession]:
    if transport == "stdio":
        async with stdio_session(*args) as session:
            yield session
    else:
        with http_server(*args) as url:
            async with http_session(url) as session:
                yield session


def _world(tmp_path: Path, name: str, tools: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "tools": tools}))
    return path


def _analytics_world(tmp_path: Path) -> Path:
    """A DuckDB-style catalog: one ``execute_sql`` tool whose statements sqlglot splits and translates."""
    return _world(tmp_path, "analytics", [{
        "name": "execute_sql", "description": "Execute a SQL statement against the DuckDB database",
        "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}}])


def _victim(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE secrets (secret TEXT)")
        conn.execute("INSERT INTO secrets VALUES ('TOPSECRET')")
    conn.close()
    return path


# -- no host file is written or read ------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_vacuum_into_and_attach_create_no_host_file(tmp_path: Path, transport: str) -> None:
    vacuumed, attached = tmp_path / "vacuumed.db", tmp_path / "attached.db"
    async with _session(transport, str(SQLITE)) as session:
        call = _caller(session)
        await call("create_table", {"query": "CREATE TABLE notes (body TEXT)"})
        is_error, text = await call("write_query", {"query": f"VACUUM INTO '{vacuumed}'"})
        assert text == ("Database error: not authorized: attaching database files (ATTACH, DETACH, VACUUM) "
                        "is not allowed on this server")
        is_error, text = await call("write_query", {"query": f"ATTACH DATABASE '{attached}' AS p"})
        assert text.startswith("Database error: not authorized: attaching database files")
        # The reference server words its errors as text; the database is still there and usable.
        assert await call("write_query", {"query": "INSERT INTO notes VALUES ('kept')"}) == (
            False, "[{'affected_rows': 1}]")
    assert not vacuumed.exists() and not attached.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_an_attached_file_is_not_read_not_even_the_servers_own_state(tmp_path: Path, transport: str) -> None:
    victim = _victim(tmp_path / "victim.db")
    state = tmp_path / "state.sqlite"
    world = _analytics_world(tmp_path)
    async with _session(transport, str(world), "--state", str(state)) as session:
        call = _caller(session)
        assert (await call("execute_sql", {"sql": "CREATE TABLE t (a INTEGER)"}))[0] is False
        for target, table in ((victim, "secrets"), (state, "sqlite_master")):
            # refused, in band as the analytics engine's servers print database errors
            _, text = await call("execute_sql", {"sql": f"ATTACH '{target}' AS v; SELECT * FROM v.{table}"})
            assert text.startswith("Database error: not authorized: attaching database files")
            assert "TOPSECRET" not in text and "CREATE" not in text
        # Denied in any position of a multi-statement query, and after sqlglot's translation.
        _, text = await call("execute_sql", {"sql": f"SELECT 1; ATTACH DATABASE '{victim}' AS w"})
        assert text.startswith("Database error: not authorized")


async def test_extensions_and_settings_of_consequence_are_refused_and_harmless_switches_are_not(
        tmp_path: Path) -> None:
    async with stdio_session(str(_analytics_world(tmp_path))) as session:
        call = _caller(session)
        _, text = await call("execute_sql", {"sql": f"SELECT load_extension('{tmp_path / 'ext.so'}')"})
        assert text.startswith("Database error: not authorized") and "load_extension" in text.lower()  # sqlglot upper-cases it
        for pragma in ("journal_mode = WAL", "soft_heap_limit = 1", "writable_schema = ON", "max_page_count = 1"):
            name = pragma.split()[0]
            assert await call("execute_sql", {"sql": f"PRAGMA {pragma}"}) == (
                False, f"Database error: not authorized: PRAGMA {name} cannot be set on this server")
        assert (await call("execute_sql", {"sql": "PRAGMA foreign_keys = ON"}))[0] is False
        assert (await call("execute_sql", {"sql": "PRAGMA journal_mode"}))[0] is False  # reading is fine
    assert sorted(p.name for p in tmp_path.iterdir()) == ["analytics.json"]


# -- bounded time and size ----------------------------------------------------------------------


async def test_a_runaway_recursive_query_is_interrupted_while_another_session_is_answered() -> None:
    with http_server(str(SQLITE)) as url:
        async with http_session(url) as first, http_session(url) as second:
            runaway = asyncio.ensure_future(_caller(first)("write_query", {"query": RUNAWAY}))
            other = _caller(second)
            created = await other("create_table", {"query": "CREATE TABLE t (a INTEGER)"})
            listed = await other("list_tables", {})
            is_error, text = await runaway
    assert text == "Database error: interrupted: query took longer than 2 s"
    assert created == (False, "Table created successfully") and listed == (False, "[{'name': 't'}]")


async def test_a_runaway_statement_of_a_multi_statement_query_is_interrupted(tmp_path: Path) -> None:
    async with stdio_session(str(_analytics_world(tmp_path)), env={"AGENTWORLD_SQL_TIMEOUT": "0.5"}) as session:
        call = _caller(session)
        # worded as the analytics engine words an interrupted query, in band as its servers
        # print database errors (sql_engines.json)
        assert await call("execute_sql", {"sql": f"CREATE TABLE t (a INTEGER); {RUNAWAY}"}) == (
            False, "Database error: INTERRUPT Error: Interrupted!")
        # Nothing of an interrupted call is kept, as after a rollback.
        is_error, text = await call("execute_sql", {"sql": "SELECT count(*) AS n FROM t"})
        assert not is_error and "Table with name t does not exist" in text, text


async def test_an_interrupted_query_is_worded_as_postgres_words_a_statement_timeout() -> None:
    async with stdio_session(str(CATALOGS / "postgres.json"), env={"AGENTWORLD_SQL_TIMEOUT": "0.5"}) as session:
        assert await _caller(session)("query", {"sql": RUNAWAY}) == (
            True, "canceling statement due to statement timeout")


async def test_a_huge_value_or_result_is_refused_not_returned() -> None:
    async with stdio_session(str(SQLITE)) as session:
        call = _caller(session)
        assert await call("read_query", {"query": "SELECT hex(zeroblob(200000000))"}) == (
            False, "Database error: string or blob too big")
        is_error, text = await call("read_query", {"query": "SELECT hex(zeroblob(3000000)) AS h"})
        assert text.startswith("Database error: result too large: more than 4 MiB")
        many = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 60000) SELECT x FROM c"
        is_error, text = await call("write_query", {"query": many})
        assert text == "Database error: result too large: more than 50000 rows (add a LIMIT)"
        filled = ("CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c "
                  "WHERE x < 2000000) SELECT x, hex(randomblob(16)) AS h FROM c")
        assert await call("write_query", {"query": filled}) == (
            False, "Database error: database or disk is full (the database may hold at most 32 MiB)")
        assert await call("list_tables", {}) == (False, "[]")


# -- ordinary SQL still works -----------------------------------------------------------------------


async def test_ordinary_sql_still_works_in_both_conventions(tmp_path: Path) -> None:
    async with stdio_session(str(SQLITE)) as session:
        call = _caller(session)
        await call("create_table", {"query": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"})
        await call("create_table", {"query": "CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INT, title TEXT)"})
        assert await call("write_query", {"query": "INSERT INTO users (name) VALUES ('Ada'), ('Grace')"}) == (
            False, "[{'affected_rows': 2}]")
        await call("write_query", {"query": "INSERT INTO posts (user_id, title) VALUES (2, 'COBOL')"})
        assert await call("read_query", {"query": "SELECT u.name, p.title FROM users u JOIN posts p "
                                                   "ON p.user_id = u.id"}) == (
            False, "[{'name': 'Grace', 'title': 'COBOL'}]")
        assert await call("read_query", {"query": "SELECT * FROM pragma_table_info('users')"}) == (False, (
            "[{'cid': 0, 'name': 'id', 'type': 'INTEGER', 'notnull': 0, 'dflt_value': None, 'pk': 1}, "
            "{'cid': 1, 'name': 'name', 'type': 'TEXT', 'notnull': 0, 'dflt_value': None, 'pk': 0}]"))
    async with stdio_session(str(_analytics_world(tmp_path))) as session:
        call = _caller(session)
        is_error, _ = await call("execute_sql", {"sql": (
            "CREATE TABLE a (id INTEGER, n VARCHAR); INSERT INTO a VALUES (1, 'x'), (2, 'y'); "
            "CREATE TABLE b (id INTEGER, m VARCHAR); INSERT INTO b VALUES (2, 'q')")})
        assert is_error is False
        # rows as the engine's Python driver prints them (sql_engines.json)
        assert await call("execute_sql", {"sql": "SELECT a.n, b.m FROM a JOIN b ON a.id = b.id"}) == (
            False, "[('y', 'q')]")
        assert await call("execute_sql", {"sql": "SELECT table_name FROM information_schema.tables "
                                                 "ORDER BY table_name"}) == (False, "[('a',), ('b',)]")


# -- patterns from callers' input answer in bounded time --------------------------------------------


async def test_a_glob_with_many_stars_answers_correctly() -> None:
    stars = "*a" * 12 + "*b"
    async with stdio_session(str(FILESYSTEM)) as session:
        call = _caller(session)
        for name in ("a" * 40 + "c.txt", "a" * 40 + "b"):
            assert (await call("write_file", {"path": f"/projects/{name}", "content": "x"}))[0] is False
        assert await call("search_files", {"path": "/projects", "pattern": stars}) == (
            False, "/projects/" + "a" * 40 + "b")
        assert await call("search_files", {"path": "/projects", "pattern": "**", "excludePatterns": [stars]}) == (
            False, "/projects/" + "a" * 40 + "c.txt")
        assert await call("search_files", {"path": "/", "pattern": "**/*.txt"}) == (
            False, "/projects/" + "a" * 40 + "c.txt")


def _tool(name: str, properties: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties}}


async def test_a_query_language_value_with_a_long_run_of_spaces_answers(tmp_path: Path) -> None:
    string = {"type": "string"}
    world = _world(tmp_path, "tickets", [
        _tool("create_ticket", {"project_key": string, "summary": string, "status": string}, "Create a ticket."),
        _tool("list_tickets", {"jql": string}, "List tickets.")])
    async with stdio_session(str(world)) as session:
        call = _caller(session)
        await call("create_ticket", {"project_key": "APP", "summary": "Crash on start", "status": "open"})
        await call("create_ticket", {"project_key": "WEB", "summary": "Dark mode", "status": "todo"})
        for hostile in ("status" + " " * 60_000 + "x", "status = open" + " " * 60_000 + "x",
                        "summary ~ crash" + " " * 60_000 + "or"):
            is_error, text = await call("list_tickets", {"jql": hostile})
            assert (is_error, json.loads(text)) == (False, [])
        is_error, text = await call("list_tickets", {"jql": "status = open   OR   summary ~ dark ORDER BY created"})
        assert sorted(t["summary"] for t in json.loads(text)) == ["Crash on start", "Dark mode"]


async def test_a_backtracking_schema_pattern_is_checked_in_bounded_time(tmp_path: Path) -> None:
    world = _world(tmp_path, "codes", [
        _tool("set_code", {"code": {"type": "string", "pattern": "^(a+)+$"}}, "Set a code."),
        _tool("set_label", {"label": {"type": "string", "pattern": "^(a|aa)+$"}}, "Set a label.")])
    async with stdio_session(str(world)) as session:
        call = _caller(session)
        is_error, text = await call("set_code", {"code": "a" * 34 + "!"})
        assert is_error and f"'{'a' * 34}!' does not match '^(a+)+$'" in text
        assert (await call("set_code", {"code": "aaaa"}))[0] is False
        # A pattern that still backtracks past the budget is a problem of the value, not a hang.
        is_error, text = await call("set_label", {"label": "a" * 60 + "!"})
        assert is_error and "could not be checked against '^(a|aa)+$' in time" in text
        assert (await call("set_label", {"label": "aaa"}))[0] is False
