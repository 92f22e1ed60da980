"""A recorded list that FastMCP printed one text block per item is learned as the list it is (issue 22).

The MCP SDK's FastMCP answers a ``-> list`` tool with ``structuredContent: {"result": [...]}`` and one text
block per item. A recording of such an SQLite server listed its tables and read a table's rows; learned with
the ``agentworld-mcp learn`` CLI and served by ``agentworld-mcp serve`` to a real MCP client over stdio, a
new session finds those tables and rows (read as two JSON texts joined, they were no list at all).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]


def _tool(name: str, description: str, props: JSONDict, result: JSONDict) -> JSONDict:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": list(props),
                            "title": f"{name}Arguments"},
            "outputSchema": {"type": "object", "properties": {"result": result}, "required": ["result"],
                             "title": f"{name}Output"}}


ROWS = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
CATALOG: JSONDict = {"name": "shop-sqlite", "tools": [
    _tool("list_tables", "List the tables of the SQLite database.", {}, {"type": "array", "items": {"type": "string"}}),
    _tool("read_query", "Run a SELECT query on the SQLite database.", {"query": {"type": "string"}}, ROWS),
]}
CUSTOMERS = [{"id": 1, "name": "Ines Carvalho", "city": "Lisbon"}, {"id": 2, "name": "Jonas Berg", "city": "Oslo"}]


def _turn(turn: int, tool: str, arguments: JSONDict, items: list[Any]) -> str:
    blocks = [{"type": "text", "text": item if isinstance(item, str) else json.dumps(item, indent=2)} for item in items]
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                       "result": {"content": blocks, "structuredContent": {"result": items}, "isError": False}})


async def test_a_new_session_reads_the_rows_a_listed_recording_showed(tmp_path: Path) -> None:
    recording = tmp_path / "train.jsonl"
    recording.write_text("\n".join([
        _turn(1, "list_tables", {}, ["customers", "orders"]),
        _turn(2, "read_query", {"query": "SELECT * FROM customers"}, CUSTOMERS),
    ]) + "\n", encoding="utf-8")
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        tables = await session.call_tool("list_tables", {})
        oslo = await session.call_tool("read_query", {"query": "SELECT name FROM customers WHERE city = 'Oslo'"})
    assert tables.structuredContent == {"result": ["customers", "orders"]}
    assert [block.text for block in tables.content] == ["customers", "orders"]
    assert oslo.structuredContent == {"result": [{"name": "Jonas Berg"}]}


async def test_a_read_only_tool_refuses_a_write_in_the_recorded_words(tmp_path: Path) -> None:
    refusal = {"error": "Security violation: Only SELECT queries are allowed."}
    recording = tmp_path / "train.jsonl"
    recording.write_text("\n".join([
        _turn(1, "read_query", {"query": "SELECT * FROM customers"}, CUSTOMERS),
        _turn(2, "read_query", {"query": "DELETE FROM customers"}, [refusal]),
    ]) + "\n", encoding="utf-8")
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        refused = await session.call_tool("read_query", {"query": "UPDATE customers SET city = 'Porto'"})
        kept = await session.call_tool("read_query", {"query": "SELECT city FROM customers WHERE id = 1"})
    assert refused.structuredContent == {"result": [refusal]}
    assert kept.structuredContent == {"result": [{"city": "Lisbon"}]}
