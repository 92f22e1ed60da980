"""An index-addressed workbook keeps a cell's style, its defined names and what its description showed.

A small catalog of such a server (``sheet`` an integer index, cells by ``row``/``column``, every answer
a JSON text in ``result``) is served by ``agentworld-mcp serve`` and driven by a real MCP client over
stdio. Bare: a style set on a range reads back on each of its cells, a defined name lists with the
create tool's arguments and nothing invented, a plain-word answer is JSON text like every other one.
Learned with the ``agentworld-mcp learn`` CLI from one recorded session: a style reads back in the
recorded shape (a property the recording never set goes beside one of its kind), and the workbook's
description keeps the keys it showed (constants, and the file the session opened).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
INT, S, B = {"type": "integer"}, {"type": "string"}, {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None}
WRAPPED = {"type": "object", "properties": {"result": S}, "required": ["result"]}


def tool(tool_name: str, description: str, **props: Any) -> JSONDict:
    return {"name": tool_name, "description": description, "outputSchema": WRAPPED,
            "inputSchema": {"type": "object", "properties": props}}


CATALOG: JSONDict = {"name": "styled-book", "tools": [
    tool("open_workbook", "Open a workbook from an xlsx file for this session.", file_path=S),
    tool("describe_workbook", "Get information about the current workbook: sheets and metadata."),
    tool("read_cell", "Read one cell's content and type. sheet: Sheet index (0-based)", sheet=INT, row=INT,
         column=INT),
    tool("write_cell", "Write a cell's value. sheet: Sheet index (0-based)", sheet=INT, row=INT, column=INT, value=S),
    tool("add_sheet", "Add a sheet to the workbook.", name=S),
    tool("set_cell_style", "Set style properties on a cell or range. sheet: Sheet index (0-based)", sheet=INT,
         row=INT, column=INT, col_end={"anyOf": [INT, {"type": "null"}], "default": None}, bold=B, italic=B),
    tool("get_cell_style", "Get the style of a cell. sheet: Sheet index (0-based)", sheet=INT, row=INT, column=INT),
    tool("create_defined_name", "Create a defined name.", name=S, formula=S,
         scope={"anyOf": [INT, {"type": "null"}], "default": None}),
    tool("list_defined_names", "List the defined names."),
]}


def _result(answer: Any) -> Any:
    assert not answer.isError, answer.content
    return json.loads(answer.structuredContent["result"])


async def test_a_style_set_on_a_range_reads_back_and_a_defined_name_lists_as_created(tmp_path: Path) -> None:
    world = tmp_path / "book.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        added = await session.call_tool("add_sheet", {"name": "Notes"})
        set_ = _result(await session.call_tool("set_cell_style", {"sheet": 0, "row": 1, "column": 1, "col_end": 3,
                                                                  "bold": True}))
        styled = _result(await session.call_tool("get_cell_style", {"sheet": 0, "row": 1, "column": 3}))
        plain = _result(await session.call_tool("get_cell_style", {"sheet": 0, "row": 2, "column": 1}))
        created = _result(await session.call_tool("create_defined_name", {"name": "Totals", "formula": "Sheet1!$A$1"}))
        names = _result(await session.call_tool("list_defined_names", {}))
    assert added.structuredContent["result"] == '"ok"'
    assert set_ == {"status": "ok"} and created == {"status": "ok"}
    assert styled == {"bold": True} and plain == {}
    assert names == [{"name": "Totals", "formula": "Sheet1!$A$1", "scope": None}]


def _line(tool_name: str, arguments: JSONDict, result: Any) -> str:
    text = json.dumps(result)
    return json.dumps({"tool": tool_name, "arguments": arguments, "is_error": False, "result": {
        "content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}})


THEME = {"name": "Office", "accent1": "#4F81BD"}


def _recording(path: Path) -> Path:
    font = {"name": "Calibri", "size": 11, "bold": True}
    info = {"name": "prices", "locale": "en", "theme": THEME,
            "sheets": [{"index": 0, "name": "Prices", "dimensions": [1, 1, 1, 1]}], "file": "/data/prices.xlsx"}
    lines = [
        _line("open_workbook", {"file_path": "/data/prices.xlsx"},
              {"status": "loaded", "sheets": [{"index": 0, "name": "Prices", "dimensions": [1, 1, 1, 1]}]}),
        _line("describe_workbook", {}, info),
        _line("set_cell_style", {"sheet": 0, "row": 1, "column": 1, "col_end": 2, "bold": True}, {"status": "ok"}),
        _line("get_cell_style", {"sheet": 0, "row": 1, "column": 2}, {"font": font}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_a_learned_world_reads_styles_and_the_workbook_description_in_the_recorded_shape(
        tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "rec.jsonl"), CATALOG, tmp_path / "world.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("open_workbook", {"file_path": "/data/prices.xlsx"})
        await session.call_tool("add_sheet", {"name": "Notes"})
        described = _result(await session.call_tool("describe_workbook", {}))
        await session.call_tool("set_cell_style", {"sheet": 1, "row": 2, "column": 2, "italic": True})
        italic = _result(await session.call_tool("get_cell_style", {"sheet": 1, "row": 2, "column": 2}))
        unset = _result(await session.call_tool("get_cell_style", {"sheet": 1, "row": 5, "column": 5}))
    assert described["locale"] == "en" and described["theme"] == THEME
    assert described["file"] == "/data/prices.xlsx"
    assert [s["name"] for s in described["sheets"]] == ["Prices", "Notes"]
    assert italic == {"font": {"name": "Calibri", "size": 11, "italic": True}}
    assert unset == {"font": {"name": "Calibri", "size": 11}}
