"""A spreadsheet catalog that names its arguments its own way, returns plain values and runs SQL over sheets.

The workbook engine reads which argument is the sheet, the pattern or the range from the
catalog's descriptions, accepts the file kinds the catalog names (a ``.csv`` is one sheet),
answers a FastMCP-wrapped tool with the value it returns (a list of sheet names, rows, a name),
runs SQL with each sheet a table, and, in a world learned from a recording, tells a write in the
recorded sentence filled for the new call. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
_FILE = {"type": "string", "description": "Path to the spreadsheet file"}
_SHEET = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
          "description": "Sheet name. Defaults to the first sheet if omitted."}
_ROWS = {"type": "array", "items": {"type": "array", "items": {}}, "description": "Rows of values."}


def _wrapped(kind: JSONDict) -> JSONDict:
    return {"type": "object", "properties": {"result": kind}, "required": ["result"]}


def _tool(name: str, description: str, props: JSONDict, required: list[str], out: JSONDict | None) -> JSONDict:
    tool: JSONDict = {"name": name, "description": description,
                      "inputSchema": {"type": "object", "properties": props, "required": required}}
    if out is not None:
        tool["outputSchema"] = _wrapped(out)
    return tool


CATALOG: JSONDict = {"name": "grid", "tools": [
    _tool("create_workbook", "Create a new spreadsheet file (.xlsx or .csv).",
          {"file": _FILE, "sheet_name": {"type": "string", "description": "Name of the first sheet."}}, ["file"],
          {"type": "string"}),
    _tool("list_sheets", "List the sheet names of a workbook.", {"file": _FILE}, ["file"],
          {"type": "array", "items": {"type": "string"}}),
    _tool("add_sheet", "Add a sheet to the workbook.",
          {"file": _FILE, "name": {"type": "string", "description": "Name for the new sheet."}}, ["file", "name"],
          {"type": "string"}),
    _tool("delete_sheet", "Delete a sheet from the workbook.",
          {"file": _FILE, "name": {"type": "string", "description": "Name of the sheet to delete"}}, ["file", "name"],
          {"type": "string"}),
    _tool("append_rows", "Append rows after the last used row of a sheet.",
          {"file": _FILE, "data": _ROWS, "sheet": _SHEET}, ["file", "data"], {"type": "string"}),
    _tool("read_sheet", "Read a whole sheet as a list of rows.", {"file": _FILE, "sheet": _SHEET}, ["file"],
          {"type": "array", "items": {"type": "array", "items": {}}}),
    _tool("read_range", "Read a rectangular range of cells.",
          {"file": _FILE, "range_str": {"type": "string", "description": "Cell range in A1 notation, e.g. 'A1:B2'"},
           "sheet": _SHEET}, ["file", "range_str"], {"type": "array", "items": {"type": "array", "items": {}}}),
    _tool("search_sheet", "Search the cells of a sheet; returns matches like [{\"cell\": \"B3\", \"value\": \"x\"}].",
          {"file": _FILE, "pattern": {"type": "string", "description": "Regular expression pattern to search for."},
           "sheet": _SHEET}, ["file", "pattern"], {"type": "array", "items": {"type": "object"}}),
    _tool("run_sql", "Run SQL over the workbook: each sheet is a table, its header row the columns.",
          {"file": _FILE, "sql": {"type": "string", "description": "SQL statement; sheet names are table names."}},
          ["file", "sql"], None),
]}

BOOK_ROWS = [["Name", "Team", "Points"], ["Ada", "Red", 7], ["Bo", "Blue", 3], ["Cy", "Red", 5]]


async def _call(session: Any, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent.get("result")
    return json.loads(result.content[0].text)


def _world(tmp_path: Path) -> Path:
    world = tmp_path / "grid.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    return world


async def test_sheets_named_by_descriptions_are_found_and_wrapped_tools_return_plain_values(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        assert await _call(session, "create_workbook", file="scores.xlsx", sheet_name="Scores") == "scores.xlsx"
        await _call(session, "append_rows", file="scores.xlsx", sheet="Scores", data=BOOK_ROWS)
        assert await _call(session, "add_sheet", file="scores.xlsx", name="Spare") == "Spare"
        assert await _call(session, "list_sheets", file="scores.xlsx") == ["Scores", "Spare"]
        await _call(session, "delete_sheet", file="scores.xlsx", name="Spare")
        assert await _call(session, "list_sheets", file="scores.xlsx") == ["Scores"]
        assert await _call(session, "read_range", file="scores.xlsx", range_str="A2:C3") == BOOK_ROWS[1:3]
        assert await _call(session, "read_sheet", file="scores.xlsx") == BOOK_ROWS  # the first sheet, by default
        matches = await _call(session, "search_sheet", file="scores.xlsx", pattern="^R.d$")
        assert matches == [{"cell": "B2", "value": "Red"}, {"cell": "B4", "value": "Red"}]


async def test_a_csv_file_named_by_the_catalog_is_a_workbook_of_one_sheet(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        await _call(session, "create_workbook", file="points.csv")
        await _call(session, "append_rows", file="points.csv", data=[["a", "b"], [1, 2]])
        assert await _call(session, "read_sheet", file="points.csv") == [["a", "b"], [1, 2]]
        assert len(await _call(session, "list_sheets", file="points.csv")) == 1


async def test_sql_reads_sheets_as_tables_and_a_write_changes_the_cells(tmp_path: Path) -> None:
    async with stdio_session(str(_world(tmp_path))) as session:
        await _call(session, "create_workbook", file="scores.xlsx", sheet_name="Scores")
        await _call(session, "append_rows", file="scores.xlsx", sheet="Scores", data=BOOK_ROWS)
        totals = await _call(session, "run_sql", file="scores.xlsx",
                             sql="SELECT Team, SUM(Points) AS total FROM Scores GROUP BY Team ORDER BY Team")
        assert totals == [{"Team": "Blue", "total": 3}, {"Team": "Red", "total": 12}]
        changed = await _call(session, "run_sql", file="scores.xlsx", sql="UPDATE Scores SET Points = 9 WHERE Name = 'Bo'")
        assert changed == {"affected_rows": 1}
        assert await _call(session, "read_range", file="scores.xlsx", range_str="C3") == [[9]]
        missing = await session.call_tool("run_sql", {"file": "scores.xlsx", "sql": "SELECT * FROM Nowhere"})
        assert missing.isError and "Nowhere" in missing.content[0].text


def _turn(turn: int, tool: str, arguments: JSONDict, answer: Any) -> str:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": answer}, "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


async def test_a_learned_world_tells_a_write_in_the_recorded_sentence_filled_for_the_new_call(tmp_path: Path) -> None:
    calls = [("create_workbook", {"file": "a.xlsx", "sheet_name": "Log"}, "a.xlsx"),
             ("append_rows", {"file": "a.xlsx", "sheet": "Log", "data": [["when", "what"], ["mon", "x"]]},
              "Appended 2 rows"),
             ("append_rows", {"file": "a.xlsx", "sheet": "Log", "data": [["tue", "y"]]}, "Appended 1 rows"),
             ("read_sheet", {"file": "a.xlsx"}, [["when", "what"], ["mon", "x"], ["tue", "y"]])]
    recording = tmp_path / "train.jsonl"
    recording.write_text("\n".join(_turn(i, *c) for i, c in enumerate(calls, 1)) + "\n", encoding="utf-8")
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await _call(session, "create_workbook", file="other.xlsx", sheet_name="Books")
        told = await _call(session, "append_rows", file="other.xlsx", sheet="Books",
                           data=[["t"], ["Dune"], ["Emma"], ["Kim"]])
        assert told == "Appended 4 rows"
        assert await _call(session, "read_sheet", file="other.xlsx") == [["t"], ["Dune"], ["Emma"], ["Kim"]]
