"""An SQLite server's FastMCP tools answered by the episode's database, printed as FastMCP prints them.

``tests/catalogs/sqlfiles_dev_server.json`` is the listing of a real SQLite MCP server (PyPI
``sqlite-mcp-server``, see ``tests/realism/catalogs/SOURCES.md``): ``add_record(db_path, table_name, title,
content)`` adds a row, its description saying a missing table is created "with columns: id, title, content,
and created_at"; ``execute_query`` runs a SELECT; ``list_tables`` returns ``list[str]``; every tool is the MCP
SDK's FastMCP, so a list comes back as ``{"result": [...]}`` and one text block per item. Served bare by
``agentworld-mcp serve`` to a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import stdio_session

CATALOG = Path(__file__).resolve().parent / "catalogs" / "sqlfiles_dev_server.json"
DB = "/data/garden.db"


async def test_rows_added_by_arguments_are_rows_a_query_reads_one_block_per_row() -> None:
    async with stdio_session(str(CATALOG)) as session:
        for title, content in [("Tomatoes planted", "Six plants."), ("Compost turned", "Bin two is ready.")]:
            added = await session.call_tool("add_record", {"db_path": DB, "table_name": "journal", "title": title,
                                                           "content": content})
            assert not added.isError, added.content
        rows = await session.call_tool("execute_query", {"db_path": DB, "query": "SELECT id, title FROM journal"})
        columns = await session.call_tool("execute_query", {
            "db_path": DB, "query": "SELECT name FROM pragma_table_info('journal') ORDER BY cid"})
        tables = await session.call_tool("list_tables", {"db_path": DB})
    assert rows.structuredContent == {"result": [{"id": 1, "title": "Tomatoes planted"},
                                                 {"id": 2, "title": "Compost turned"}]}
    assert [json.loads(block.text) for block in rows.content] == rows.structuredContent["result"]
    # the table the description says the tool makes: its stated columns, the stamp last
    assert [row["name"] for row in columns.structuredContent["result"]] == ["id", "title", "content", "created_at"]
    # as the real server listed them (its recording): SQLite's own sequence table beside the new one
    assert tables.structuredContent == {"result": ["journal", "sqlite_sequence"]}
    assert [block.text for block in tables.content] == ["journal", "sqlite_sequence"]


async def test_each_database_file_is_a_database_of_its_own() -> None:
    other = "/data/archive.db"
    async with stdio_session(str(CATALOG)) as session:
        made = await session.call_tool("create_database", {"db_path": other})
        await session.call_tool("add_record", {"db_path": DB, "table_name": "journal", "title": "Seeds sown",
                                               "content": "Basil indoors."})
        garden = await session.call_tool("list_tables", {"db_path": DB})
        archive = await session.call_tool("execute_query", {
            "db_path": other, "query": "SELECT name FROM sqlite_master WHERE type = 'table'"})
        files = await session.call_tool("list_databases", {"path": "/data"})
    assert not made.isError, made.content
    assert "journal" in garden.structuredContent["result"]
    assert archive.structuredContent == {"result": []}  # the new file holds no table of the other one
    assert sorted(files.structuredContent["result"]) == ["archive.db", "garden.db"]


async def test_a_keyword_search_tool_is_no_statement_tool() -> None:
    from agentworld_mcp.world.catalog import Catalog
    from agentworld_mcp.world.world import load_world

    search = Catalog(load_world(str(CATALOG))).get("search_databases")
    assert search is not None and search.role.style != "sql"


async def test_a_refused_statement_comes_back_as_the_error_a_python_tool_returns() -> None:
    async with stdio_session(str(CATALOG)) as session:
        refused = await session.call_tool("execute_query", {"db_path": DB, "query": "DELETE FROM journal"})
    assert not refused.isError  # the tool caught it: ``return [{"error": str(e)}]``
    (item,) = refused.structuredContent["result"]
    assert list(item) == ["error"] and "SELECT" in item["error"]
