"""Spreadsheet tools answered from real workbooks: cells written are read back, formulas computed.

What selects it. A catalog whose tools speak of workbooks, worksheets or spreadsheets and
take a workbook *file* (``path``, ``filepath``...) beside a sheet (``sheet``, ``sheet_name``)
or a range; each such tool whose name says what it does (create a workbook or sheet, write,
read, find, replace, copy or clear a range, format, list or describe sheets) is answered
here. Tools it does not know (charts, pivot tables...) are left to the record model.

What it does. Each workbook is one ledger entity (:mod:`.workbook_book`); a call loads it,
changes a copy and returns the new state as an effect. Ranges are A1 notation
(:mod:`.a1`); formulas are computed with the ``formulas`` library as they are read
(:mod:`.workbook_calc`). Answers are JSON objects in the reference server's shapes
(``{"range", "values"}``, ``{"sheet", "range", "cells_written"}``); failures are
``isError`` results worded as it words them.
"""

from __future__ import annotations

import importlib.util
import re

from ....errors import MissingExtraError
from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from .workbook_args import PATH_ARGS, RANGE_ARGS, SHEET_ARGS, takes_sql

# Checked, not imported: the libraries load when a spreadsheet tool is first called (:mod:`.workbook_ops`).
for _module in ("openpyxl", "formulas"):
    if importlib.util.find_spec(_module) is None:
        raise MissingExtraError("Spreadsheet tools", "engines", _module)

_DOMAIN = re.compile(r"\b(work ?books?|work ?sheets?|spreadsheets?|xlsx|xlsm)\b", re.IGNORECASE)
_FORMAT_WORDS = {"format", "style", "merge", "unmerge", "border", "borders", "font", "width", "height", "layout",
                 "conditional", "validation", "freeze", "color", "colour", "align"}


# -- what selects it ------------------------------------------------------------------------------


def _words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _params(tool: ToolSpec) -> dict[str, object]:
    props = (tool.input_schema or {}).get("properties") or {}
    return {str(k): v for k, v in props.items()} if isinstance(props, dict) else {}


def _args(tool: ToolSpec) -> set[str]:
    props = (tool.input_schema or {}).get("properties") or {}
    return {str(p).lower() for p in props} if isinstance(props, dict) else set()


def operation(tool: ToolSpec) -> str | None:
    """What a spreadsheet tool does, from its name and arguments (None: not one this engine models)."""
    words, args = _words(tool.name), _args(tool)
    sheets, ranges = bool(words & {"sheet", "sheets", "worksheet", "worksheets", "tab"}), \
        bool(words & {"range", "ranges", "cells", "cell", "data", "values", "value"})
    book = bool(words & {"workbook", "spreadsheet", "file", "excel", "xlsx"})
    if "list" in words and words & {"workbooks", "files", "spreadsheets"}:
        return "list_workbooks"
    if takes_sql(f"{tool.name} {tool.description}", _params(tool)):
        return "sql"
    if book and not ranges and words & {"copy", "duplicate", "clone"} and not sheets:
        return "copy_workbook"
    if "table" in words and words & {"describe", "info", "inspect", "schema"}:
        return "describe_table"
    lines = [axis for axis, names in (("rows", {"row", "rows"}), ("columns", {"column", "columns"})) if words & names]
    if len(lines) == 1:  # one kind of line: ``insert_rows_or_columns`` takes a choice this does not read
        for verbs, op in (({"append"}, "append_"), ({"insert", "add"}, "insert_"), ({"delete", "remove"}, "delete_")):
            if words & verbs and not (op == "append_" and lines[0] == "columns"):
                return op + lines[0]
    if sheets and not ranges:
        for verbs, op in (({"rename"}, "rename_sheet"), ({"copy", "duplicate", "clone"}, "copy_sheet"),
                          ({"delete", "remove", "drop"}, "delete_sheet"), ({"list"}, "list_sheets"),
                          ({"create", "add", "new", "insert"}, "create_sheet"),
                          ({"read", "dump"}, "read_range"),
                          ({"describe", "info", "get", "inspect", "dimensions", "size"}, "describe_sheet")):
            if words & verbs:
                return op
    if book and not ranges and words & {"create", "new"}:
        return "create_workbook"
    if book and not ranges and words & {"describe", "metadata", "info", "inspect"}:
        return "describe_workbook"
    if "formula" in words and words & {"apply", "set", "write", "add", "insert"}:
        return "apply_formula"
    if words & {"find", "search"}:
        return "find_cells"
    if "replace" in words:
        return "replace_cells"
    if words & _FORMAT_WORDS:
        return "format"
    if not (ranges or args & set(RANGE_ARGS)):
        return None
    for verbs, op in (({"copy"}, "copy_range"), ({"clear", "delete", "erase"}, "clear_range"),
                      ({"write", "set", "update", "put", "fill"}, "write_range"), ({"read", "get"}, "read_range")):
        if words & verbs:
            return op
    return None


def _spreadsheet_catalog(world: World) -> bool:
    """Whether the catalog is about workbook files: it says so, and its tools take a sheet and a file."""
    text = " ".join(f"{t.get('name', '')} {t.get('description') or ''}" for t in world.tools)
    if not _DOMAIN.search(text.replace("_", " ")):
        return False
    with_sheets = 0
    for tool in world.tools:
        props = ((tool.get("inputSchema") or {}).get("properties") or {})
        names = {str(p).lower() for p in props} if isinstance(props, dict) else set()
        with_sheets += bool(names & set(SHEET_ARGS)) and bool(names & set(PATH_ARGS))
    return with_sheets >= 2


def claims(world: World, tool: ToolSpec) -> bool:
    from . import workbook_indexed  # sheets by index, cells by row and column: one workbook per session

    if workbook_indexed.indexed_catalog(world):
        return workbook_indexed.claims(world, tool)
    op = operation(tool)
    if op is None or not _spreadsheet_catalog(world):
        return False
    if op == "copy_workbook":
        return bool(_args(tool) & {"source", "src", "from", *PATH_ARGS}) and bool(
            _args(tool) & {"destination", "dest", "target", "to", "new_path"})
    return op == "list_workbooks" or bool(_args(tool) & set(PATH_ARGS))


def predict(step: Step) -> Prediction | None:
    from . import workbook_indexed

    if workbook_indexed.indexed_catalog(step.world):
        return workbook_indexed.predict(step)
    op = operation(step.tool)
    if op is None:
        return None
    from .workbook_ops import answer

    return answer(step, op)


def prepare() -> None:
    """Load the libraries and compile a first formula now (seconds on a busy machine), before any call's deadline runs."""
    from .workbook_calc import compiled

    compiled("=SUM(A1:A2)+AVERAGE(B1:B2)*ROUND(C1,2)+IF(D1>0,MAX(E1:E2),MIN(F1:F2))")


__all__ = ["PATH_ARGS", "RANGE_ARGS", "SHEET_ARGS", "claims", "operation", "predict", "prepare"]
