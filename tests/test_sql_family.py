"""A catalog with a SQL statement tool is a database: its other table tools answer from the same database.

Whatever they are called (``get_schema_info``/``get_table_sample``, ``describe_table``/``preview_rows``/
``list_tables``, ``table_info``/``show_columns``/``peek_rows``), a tool of such a catalog that names a
table, its columns or a sample of its rows reads the episode's database the statement tool writes,
prints as the catalog's SQL tool prints, and fails for a missing table as the engine family words it.
A MySQL-family catalog words SQLite's errors as MySQL does. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

JSONDict = dict[str, Any]


STRING = {"type": "string"}
#: A MySQL server printing lines: the statement tool, a column-metadata tool and a row sampler.
MYSQL_LINES = [
    _tool("execute_sql", "Execute a SQL statement against the MySQL server.", {"query": STRING}, ["query"]),
    _tool("get_schema_info", "Get column metadata for a table or all tables: column names, data types, "
          "nullability, default values. Omit table_name to see all tables.", {"table_name": STRING}),
    _tool("get_table_sample", "Fetch a small sample of rows from a table.",
          {"table_name": STRING, "limit": {"type": "integer", "description": "Rows to return (default 5)."}},
          ["table_name"]),
]
#: A MySQL server answering JSON, other names: describe, preview, list.
MYSQL_JSON = [
    _tool("run_sql", "Run a MySQL statement", {"sql": STRING}, ["sql"]),
    _tool("describe_table", "Get a table's structure", {"table": STRING}, ["table"]),
    _tool("preview_rows", "Preview the first rows of a table", {"table": STRING, "n": {"type": "integer"}}, ["table"]),
    _tool("list_tables", "List the tables", {}),
]
#: A PostgreSQL catalog, a third naming style.
POSTGRES = [
    _tool("query", "Run a read/write SQL query on the PostgreSQL database", {"sql": STRING}, ["sql"]),
    _tool("table_info", "Columns of a table", {"table_name": STRING}, ["table_name"]),
    _tool("peek_rows", "Peek at a few rows of a table", {"table_name": STRING, "limit": {"type": "integer"}},
          ["table_name"]),
]


def _world(tmp_path: Path, name: str, tools: list[JSONDict]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "tools": tools}), encoding="utf-8")
    return str(path)


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_table_tools_of_a_line_printing_mysql_catalog_read_the_database_its_sql_tool_wrote(
        tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, "shop", MYSQL_LINES)) as session:
        async def sql(query: str) -> str:
            return _text(await session.call_tool("execute_sql", {"query": query}))

        assert await sql("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
                         "price DECIMAL(6,2), stock INT DEFAULT 0)") == "Query executed successfully. Rows affected: 0"
        assert await sql("INSERT INTO items VALUES (1, 'kettle', 24.5, 3), (2, 'mug', 4, 10), (3, 'tray', NULL, 1)"
                         ) == "Query executed successfully. Rows affected: 3"
        assert await sql("SHOW TABLES") == "Tables_in_main\nitems"
        assert await sql("SELECT name, price FROM items WHERE id < 3 ORDER BY id") == "name,price\nkettle,24.50\nmug,4.00"
        assert await sql("SELECT * FROM items WHERE id = 9") == "Query executed successfully. No results returned."

        sample = await session.call_tool("get_table_sample", {"table_name": "items", "limit": 2})
        assert (sample.isError, _text(sample)) == (False, "id,name,price,stock\n1,kettle,24.50,3\n2,mug,4.00,10")
        columns = await session.call_tool("get_schema_info", {"table_name": "items"})
        assert _text(columns).splitlines() == [
            "COLUMN_NAME,DATA_TYPE,IS_NULLABLE,COLUMN_DEFAULT", "id,int,NO,", "name,varchar,NO,",
            "price,decimal,YES,", "stock,int,YES,0"]
        every = await session.call_tool("get_schema_info", {})
        assert _text(every).splitlines()[:2] == ["TABLE_NAME,COLUMN_NAME,DATA_TYPE,IS_NULLABLE,COLUMN_DEFAULT",
                                                 "items,id,int,NO,"]
        missing = await session.call_tool("get_table_sample", {"table_name": "orders"})
        assert (missing.isError, _text(missing)) == (False, "Error executing query: Table 'main.orders' doesn't exist")


async def test_a_mysql_catalog_words_sqlite_errors_as_mysql_does(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, "shop", MYSQL_LINES)) as session:
        async def sql(query: str) -> str:
            return _text(await session.call_tool("execute_sql", {"query": query}))

        await sql("CREATE TABLE items (id INT PRIMARY KEY, sku VARCHAR(10) UNIQUE, price DECIMAL(6,2))")
        await sql("INSERT INTO items VALUES (1, 'A-1', 2.5)")
        prefix = "Error executing query: "
        assert await sql("INSERT INTO items VALUES (1, 'B-2', 3)") == prefix + "Duplicate entry '1' for key 'PRIMARY'"
        assert await sql("INSERT INTO items VALUES (2, 'A-1', 3)") == prefix + "Duplicate entry 'A-1' for key 'sku'"
        assert await sql("SELECT * FROM orders") == prefix + "Table 'main.orders' doesn't exist"
        assert await sql("SELEC sku FROM items") == prefix + (
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
            "for the right syntax to use near 'SELEC sku FROM items' at line 1")
        assert await sql("UPDATE items SET price = 'cheap' WHERE id = 1") == prefix + (
            "Incorrect decimal value: 'cheap' for column 'price' at row 1")
        assert await sql("SELECT price FROM items") == "price\n2.50"  # the refused writes changed nothing


async def test_differently_named_table_tools_of_a_json_mysql_catalog_answer_from_the_same_database(
        tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, "crm", MYSQL_JSON)) as session:
        await session.call_tool("run_sql", {"sql": "CREATE TABLE people (id INT AUTO_INCREMENT PRIMARY KEY, "
                                                   "name VARCHAR(30) NOT NULL)"})
        await session.call_tool("run_sql", {"sql": "INSERT INTO people (name) VALUES ('Ada'), ('Grace'), ('Linus')"})
        tables = await session.call_tool("list_tables", {})
        assert json.loads(_text(tables)) == [{"Tables_in_main": "people"}]
        described = json.loads(_text(await session.call_tool("describe_table", {"table": "people"})))
        assert [(c["Field"], c["Type"], c["Key"]) for c in described] == [("id", "int", "PRI"),
                                                                          ("name", "varchar(30)", "")]
        preview = await session.call_tool("preview_rows", {"table": "people", "n": 2})
        assert json.loads(_text(preview)) == [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]
        missing = await session.call_tool("preview_rows", {"table": "orders"})
        assert (missing.isError, _text(missing)) == (True, "Table 'main.orders' doesn't exist")


async def test_a_postgres_catalogs_table_tools_answer_in_its_json_and_its_errors(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, "pg", POSTGRES)) as session:
        await session.call_tool("query", {"sql": "CREATE TABLE notes (id SERIAL PRIMARY KEY, body TEXT NOT NULL)"})
        await session.call_tool("query", {"sql": "INSERT INTO notes (body) VALUES ('one'), ('two')"})
        peek = await session.call_tool("peek_rows", {"table_name": "notes", "limit": 1})
        assert json.loads(_text(peek)) == [{"id": 1, "body": "one"}]
        info = json.loads(_text(await session.call_tool("table_info", {"table_name": "notes"})))
        assert [(c["column_name"], c["data_type"], c["is_nullable"]) for c in info] == [
            ("id", "integer", "NO"), ("body", "text", "NO")]
        missing = await session.call_tool("peek_rows", {"table_name": "orders"})
        assert (missing.isError, _text(missing)) == (True, 'relation "orders" does not exist')


def test_table_tools_of_a_catalog_without_a_sql_tool_stay_record_tools(tmp_path: Path) -> None:
    from agentworld_mcp.world.catalog import Catalog
    from agentworld_mcp.world.world import load_world

    sheets = [_tool("get_table_sample", "Sample rows of a table in a base", {"baseId": STRING, "table_name": STRING}),
              _tool("create_record", "Create a record", {"baseId": STRING, "fields": {"type": "object"}})]
    database = Catalog(load_world(_world(tmp_path, "db", MYSQL_LINES)))
    spreadsheet = Catalog(load_world(_world(tmp_path, "sheets", sheets)))
    assert database["get_table_sample"].role.style == "sql"
    assert database["get_schema_info"].role.op == "describe_table"
    assert spreadsheet["get_table_sample"].role.style != "sql"


#: Statement tools that never say SQL: a table made from a statement, a query exported.
STATEMENTS = [
    _tool("read_query", "Execute a SELECT query on the SQLite database", {"query": STRING}, ["query"]),
    _tool("create_table", "Create a new table in the database", {"query": STRING}, ["query"]),
    _tool("export_query", "Export query results in a format", {"query": STRING, "format": STRING}, ["query"]),
]


async def test_a_database_catalogs_tools_that_take_a_statement_run_it_whatever_their_words(tmp_path: Path) -> None:
    world = tmp_path / "statements.json"
    world.write_text(json.dumps({"name": "statements", "tools": STATEMENTS}), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = await session.call_tool("create_table", {"query": "CREATE TABLE talks (id INTEGER PRIMARY KEY, title TEXT)"})
        assert not made.isError
        rows = await session.call_tool("export_query", {"query": "SELECT name FROM sqlite_master", "format": "json"})
        assert "talks" in rows.content[0].text
