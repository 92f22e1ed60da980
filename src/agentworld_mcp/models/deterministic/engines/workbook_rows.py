"""Whole rows and columns of a sheet: append, insert and delete them; read a sheet as a table.

A sheet read as a table has its header in one row (``header_row``, 1 by default) and its data
below; :func:`table_of` gives the columns and the data rows, which ``describe_table`` reports and
the SQL tools (:mod:`.workbook_sql`) load. Inserting or deleting rows shifts the cells below
(columns: to the right) as a spreadsheet does.
"""

from __future__ import annotations

import re
from typing import Any

from ...base import Step
from .a1 import Area, address
from .workbook_book import Failure, Sheet

JSONDict = dict[str, Any]
#: Rows or columns one call may insert or delete.
MAX_SHIFT = 10_000
_COERCES = re.compile(r"numeric strings? (?:are |is )?(?:coerced|become|converted|turned)", re.IGNORECASE)


def coerces_numbers(step: Step) -> bool:
    """Whether the tool says numeric strings it is given are stored as numbers."""
    return bool(_COERCES.search(f"{step.tool.description} {step.tool.input_schema}"))


def coerced(value: Any) -> Any:
    """A numeric string as the number it spells (``"455"`` -> 455, ``"1.5"`` -> 1.5); anything else as it is."""
    if not isinstance(value, str) or not re.fullmatch(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*", value):
        return value
    number = float(value)
    return int(number) if re.fullmatch(r"\s*[+-]?\d+\s*", value) else number


def _int(step: Step, name: str, default: int | None = None) -> int:
    value = step.arguments.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Failure(f"{name} must be a whole number.")
    if value < 1:
        raise Failure(f"{name} must be at least 1.")
    return value


def rows_given(step: Step) -> list[list[Any]]:
    rows = step.arguments.get("data", step.arguments.get("rows", step.arguments.get("values")))
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise Failure("data must be a list of rows.")
    return [r if isinstance(r, list) else [r] for r in rows]


def _shift(sheet: Sheet, *, axis: int, at: int, by: int) -> None:
    """Move the cells at and beyond index ``at`` of ``axis`` (0: rows, 1: columns) by ``by`` (negative: delete)."""
    moved: dict[tuple[int, int], Any] = {}
    for (r, c), value in sheet.cells.items():
        index = (r, c)[axis]
        if by < 0 and at <= index < at - by:
            continue  # deleted
        if index >= at:
            r, c = (r + by, c) if axis == 0 else (r, c + by)
        moved[(r, c)] = value
    sheet.cells = moved


def append_rows(step: Step, sheet: Sheet, store: Any) -> JSONDict:
    rows = rows_given(step)
    if not rows:
        raise Failure("data must contain at least one row.")
    top = sheet.used().max_row + 1 if sheet.cells else 1
    _fill(step, sheet, top, 1, rows, store)
    width = max(len(r) for r in rows) or 1
    return {"sheet": sheet.name, "range": Area(top, 1, top + len(rows) - 1, width).a1(), "rows": len(rows)}


def insert_lines(step: Step, sheet: Sheet, store: Any, *, axis: int) -> JSONDict:
    """Insert blank rows (axis 0) or columns (axis 1) before the index given, filled with ``data`` if any."""
    name = "row" if axis == 0 else "column"
    at = _int(step, name)
    rows = rows_given(step) if axis == 0 else []
    count = max(_int(step, "count", 1), len(rows))
    if count > MAX_SHIFT:
        raise Failure(f"At most {MAX_SHIFT} {name}s can be inserted per call.")
    _shift(sheet, axis=axis, at=at, by=count)
    if rows:
        _fill(step, sheet, at, 1, rows, store)
    return {"sheet": sheet.name, name: at, f"{name}s": count}


def delete_lines(step: Step, sheet: Sheet, *, axis: int) -> JSONDict:
    name = "row" if axis == 0 else "column"
    at, count = _int(step, name), _int(step, "count", 1)
    if count > MAX_SHIFT:
        raise Failure(f"At most {MAX_SHIFT} {name}s can be deleted per call.")
    _shift(sheet, axis=axis, at=at, by=-count)
    return {"sheet": sheet.name, name: at, f"{name}s": count}


def _fill(step: Step, sheet: Sheet, top: int, left: int, rows: list[list[Any]], store: Any) -> None:
    coerce = coerces_numbers(step)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            store(sheet, top + i, left + j, coerced(value) if coerce else value)


# -- a sheet as a table --------------------------------------------------------------------------------


def header_row(step: Step, sheet: str) -> int:
    """The header's row for ``sheet``: ``header_row`` given as a number, or per sheet in a mapping; else 1."""
    given = step.arguments.get("header_row")
    if isinstance(given, dict):
        given = given.get(sheet)
    return given if isinstance(given, int) and not isinstance(given, bool) and given >= 1 else 1


def table_of(sheet: Sheet, header: int) -> tuple[list[str], list[list[Any]]]:
    """The columns (the header's texts; blank ones named by their letter) and the data rows below it."""
    if not sheet.cells:
        return [], []
    used = sheet.used()
    width = used.max_col
    columns = [str(sheet.cells.get((header, c), "")) or address(1, c)[:-1] for c in range(1, width + 1)]
    rows = [[sheet.cells.get((r, c)) for c in range(1, width + 1)] for r in range(header + 1, used.max_row + 1)]
    return columns, [row for row in rows if any(v is not None for v in row)]


def _type(values: list[Any]) -> str:
    seen = [v for v in values if v is not None]
    if seen and all(isinstance(v, bool) for v in seen):
        return "boolean"
    if seen and all(isinstance(v, int) and not isinstance(v, bool) for v in seen):
        return "integer"
    if seen and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in seen):
        return "number"
    return "text"


def describe_table(step: Step, sheet: Sheet, *, samples: int = 3) -> JSONDict:
    """A sheet as a table: its columns and their types, its row count, its first rows."""
    columns, rows = table_of(sheet, header_row(step, sheet.name))
    return {"sheet": sheet.name,
            "columns": [{"name": name, "type": _type([row[i] for row in rows])} for i, name in enumerate(columns)],
            "row_count": len(rows),
            "sample": [dict(zip(columns, row)) for row in rows[:samples]]}


__all__ = ["MAX_SHIFT", "append_rows", "coerced", "coerces_numbers", "delete_lines", "describe_table", "header_row",
           "insert_lines", "rows_given", "table_of"]
