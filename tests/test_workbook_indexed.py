"""A workbook whose tools address sheets by index and cells by row and column keeps what is written.

A small catalog of such a server (one workbook open per session, ``sheet`` an integer index, cells by
1-based ``row``/``column``, every answer a JSON text in FastMCP's ``result``) is served by
``agentworld-mcp serve`` and driven by a real MCP client over stdio. With the bare catalog: cells read
back as written with formulas computed, a range read of an empty area lists nothing (no invented
rows), a sheet index out of range and a name Excel refuses are errors. Learned with the
``agentworld-mcp learn`` CLI from one recorded session: the file the session opened starts with the
sheets and cells the recording showed, another file is refused as it was, a write prints what it
printed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
INT, S = {"type": "integer"}, {"type": "string"}
WRAPPED = {"type": "object", "properties": {"result": S}, "required": ["result"]}


def tool(tool_name: str, description: str, **props: Any) -> JSONDict:
    return {"name": tool_name, "description": description, "outputSchema": WRAPPED,
            "inputSchema": {"type": "object", "properties": props, "required": list(props)}}


CATALOG: JSONDict = {"name": "grid-book", "tools": [
    tool("open_workbook", "Open a workbook from an xlsx file for this session.", file_path=S),
    tool("read_cell", "Read one cell's content, formatted value, and type. sheet: Sheet index (0-based)",
         sheet=INT, row=INT, column=INT),
    tool("read_cells", "Read the non-empty cells of a range. sheet: Sheet index (0-based)",
         sheet=INT, row_start=INT, col_start=INT, row_end=INT, col_end=INT),
    tool("write_cell", "Write a cell's value; a formula starts with '='. sheet: Sheet index (0-based)",
         sheet=INT, row=INT, column=INT, value=S),
    tool("add_sheet", "Add a sheet to the workbook.", name=S),
    tool("rename_sheet", "Rename a sheet. sheet: Sheet index (0-based)", sheet=INT, name=S),
]}


def _result(answer: Any) -> Any:
    assert not answer.isError, answer.content
    return json.loads(answer.structuredContent["result"])


def _error(answer: Any) -> str:
    assert answer.isError
    return str(answer.content[0].text)


async def test_cells_written_read_back_with_formulas_computed_and_bad_places_refused(tmp_path: Path) -> None:
    world = tmp_path / "book.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        assert _result(await session.call_tool("read_cells", {"sheet": 0, "row_start": 1, "col_start": 1,
                                                               "row_end": 5, "col_end": 5})) == []
        for row, value in ((1, "12"), (2, "30"), (3, "=SUM(A1:A2)")):
            await session.call_tool("write_cell", {"sheet": 0, "row": row, "column": 1, "value": value})
        total = _result(await session.call_tool("read_cell", {"sheet": 0, "row": 3, "column": 1}))
        listed = _result(await session.call_tool("read_cells", {"sheet": 0, "row_start": 1, "col_start": 1,
                                                                 "row_end": 2, "col_end": 1}))
        missing = _error(await session.call_tool("read_cell", {"sheet": 3, "row": 1, "column": 1}))
        bad_name = _error(await session.call_tool("rename_sheet", {"sheet": 0, "name": "Q1/Q2"}))
    assert total == {"row": 3, "column": 1, "content": "=SUM(A1:A2)", "formatted": "42", "type": "number"}
    assert [(c["row"], c["content"], c["type"]) for c in listed] == [(1, "12", "number"), (2, "30", "number")]
    assert "Invalid sheet index" in missing
    assert "Invalid name for a sheet" in bad_name


def _line(tool_name: str, arguments: JSONDict, result: Any, *, error: str | None = None) -> str:
    if error is not None:
        answer: JSONDict = {"content": [{"type": "text", "text": f"Error executing tool {tool_name}: {error}"}],
                            "isError": True}
    else:
        text = result if isinstance(result, str) else json.dumps(result)
        answer = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text},
                  "isError": False}
    return json.dumps({"episode": "train", "tool": tool_name, "arguments": arguments, "result": answer})


def _recording(path: Path) -> Path:
    start = {"status": "loaded", "sheets": [{"index": 0, "name": "Prices", "dimensions": [1, 2, 1, 2]}]}
    cells = [{"row": 1, "column": 1, "content": "Tea", "type": "text"},
             {"row": 1, "column": 2, "content": "4", "type": "number"},
             {"row": 2, "column": 1, "content": "Cocoa", "type": "text"},
             {"row": 2, "column": 2, "content": "6", "type": "number"}]
    lines = [
        _line("open_workbook", {"file_path": "/data/prices.xlsx"}, start),
        _line("read_cells", {"sheet": 0, "row_start": 1, "col_start": 1, "row_end": 2, "col_end": 2}, cells),
        _line("add_sheet", {"name": "Notes"}, json.dumps("ok")),
        _line("write_cell", {"sheet": 0, "row": 3, "column": 2, "value": "=B1+B2"}, {"status": "ok"}),
        _line("open_workbook", {"file_path": "/data/other.xlsx"}, None, error="No such file or directory"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_a_learned_world_opens_the_recorded_file_with_its_cells_and_refuses_another(tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "session.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        opened = _result(await session.call_tool("open_workbook", {"file_path": "/data/prices.xlsx"}))
        added = await session.call_tool("add_sheet", {"name": "Stock"})
        await session.call_tool("write_cell", {"sheet": 0, "row": 4, "column": 2, "value": "=B2*2"})
        doubled = _result(await session.call_tool("read_cell", {"sheet": 0, "row": 4, "column": 2}))
        name = _result(await session.call_tool("read_cell", {"sheet": 0, "row": 2, "column": 1}))
        other = _error(await session.call_tool("open_workbook", {"file_path": "/data/elsewhere.xlsx"}))
    assert [s["name"] for s in opened["sheets"]] == ["Prices"]
    assert added.structuredContent["result"] == '"ok"'
    assert doubled["formatted"] == "12" and name["content"] == "Cocoa"
    assert "No such file or directory" in other
