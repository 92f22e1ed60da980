"""One workbook of the episode: sheets of cells, kept as a ledger entity, written out with openpyxl.

The entity (collection ``workbooks``, keyed by the workbook's path) holds
``{"path": "sales.xlsx", "sheets": [{"name": "Sheet1", "cells": {"A1": "Region", "D2": "=B2+C2"}}]}``:
values as given (text, numbers, booleans), formulas as their text. A world seeds it the
same way. Nothing touches the host's files: :func:`file_size` saves to memory only.
"""

from __future__ import annotations

import io
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from .a1 import Area, RangeError, address

try:
    from openpyxl import Workbook  # type: ignore[import-untyped]
    from openpyxl.utils.cell import coordinate_to_tuple  # type: ignore[import-untyped]
except ImportError as exc:  # the `engines` extra
    from ....errors import MissingExtraError

    raise MissingExtraError("Spreadsheet tools", "engines", "openpyxl") from exc

COLLECTION = "workbooks"
#: Bounds on what one episode may build (the simulator holds it in memory and in its store).
MAX_WORKBOOKS = 64
MAX_SHEETS = 255
MAX_CELLS = 200_000
MAX_TEXT = 32_767
EXTENSIONS = (".xlsm", ".xlsx", ".xltm", ".xltx")
#: Other tabular files a catalog may say its tools take (a ``.csv`` is a workbook of one sheet).
_NAMED_EXTENSIONS = re.compile(r"\.(csv|tsv|ods|xls)\b", re.IGNORECASE)


class Failure(Exception):
    """The call fails as the server fails it; the message is what the agent reads."""


@dataclass
class Sheet:
    name: str
    cells: dict[tuple[int, int], Any] = field(default_factory=dict)

    def used(self) -> Area:
        if not self.cells:
            return Area(1, 1, 1, 1)
        rows = [r for r, _ in self.cells]
        cols = [c for _, c in self.cells]
        return Area(min(rows), min(cols), max(rows), max(cols))

    def put(self, row: int, col: int, value: Any) -> None:
        if value is None:
            self.cells.pop((row, col), None)
        else:
            self.cells[(row, col)] = value


@dataclass
class Book:
    path: str
    sheets: list[Sheet]

    # -- the calculator's view (:class:`.workbook_calc.Sheets`) -------------------------------

    def raw(self, sheet: str, row: int, col: int) -> Any:
        return self.sheet(sheet).cells.get((row, col))

    def used(self, sheet: str) -> Area:
        return self.sheet(sheet).used()

    def find(self, name: str) -> str | None:
        return next((s.name for s in self.sheets if s.name.lower() == name.lower()), None)

    # -- sheets --------------------------------------------------------------------------------

    def sheet(self, name: str) -> Sheet:
        for sheet in self.sheets:
            if sheet.name == name:
                return sheet
        available = ", ".join(f"'{s.name}'" for s in self.sheets)
        raise Failure(f"Sheet '{name}' not found. Available sheets: {available}.")

    def taken(self, name: str, *, besides: Sheet | None = None) -> None:
        if any(s.name.lower() == name.lower() and s is not besides for s in self.sheets):
            raise Failure(f"A sheet named '{name}' already exists.")

    def cell_count(self) -> int:
        return sum(len(s.cells) for s in self.sheets)

    def fields(self) -> dict[str, Any]:
        return {"path": self.path, "sheets": [{"name": s.name, "cells": {address(r, c): v for (r, c), v in
                                                                          sorted(s.cells.items())}}
                                              for s in self.sheets]}


def book_of(path: str, fields: dict[str, Any]) -> Book:
    """The workbook an entity's fields describe (tolerant of a hand-written seed)."""
    sheets: list[Sheet] = []
    for entry in fields.get("sheets") or []:
        if isinstance(entry, str):
            sheets.append(Sheet(entry))
            continue
        if not isinstance(entry, dict):
            continue
        sheet = Sheet(str(entry.get("name") or f"Sheet{len(sheets) + 1}"))
        cells = entry.get("cells") or {}
        for coordinate, value in (cells.items() if isinstance(cells, dict) else []):
            try:
                row, col = coordinate_to_tuple(str(coordinate).upper())
            except (ValueError, TypeError):
                continue
            sheet.put(row, col, value)
        sheets.append(sheet)
    return Book(str(fields.get("path") or path), sheets or [Sheet("Sheet1")])


def extensions(text: str) -> tuple[str, ...]:
    """The file extensions a workbook may have: Excel's, and those the catalog's ``text`` names (``.csv``)."""
    named = sorted({"." + m.lower() for m in _NAMED_EXTENSIONS.findall(text)})
    return EXTENSIONS + tuple(e for e in named if e not in EXTENSIONS)


def normal_path(value: Any, allowed: tuple[str, ...] = EXTENSIONS) -> str:
    """The workbook's key: its path as given, tidied (``./a.xlsx`` and ``a.xlsx`` are one file)."""
    if not isinstance(value, str) or not value.strip():
        raise Failure("path is required: the workbook's file name, such as 'sales.xlsx'.")
    if len(value) > 1024 or "\x00" in value:
        raise Failure("path is not a valid file name.")
    path = posixpath.normpath(value.strip().replace("\\", "/"))
    if not path.lower().endswith(allowed):
        raise Failure(f"Path '{value}' must point to a workbook file ({', '.join(allowed)}).")
    return path


def check_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise Failure(f"Text in a cell can be at most {MAX_TEXT} characters.")
        return value
    raise Failure("Cell values must be text, numbers, booleans or null.")


def file_size(book: Book) -> int:
    """The workbook's size saved as .xlsx by openpyxl (to memory, never to disk)."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    for sheet in book.sheets:
        worksheet = workbook.create_sheet(_safe_title(sheet.name))
        for (row, col), value in sheet.cells.items():
            worksheet.cell(row=row, column=col, value=value)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return len(buffer.getvalue())


def _safe_title(name: str) -> str:
    try:
        from .a1 import check_sheet_name

        check_sheet_name(name)
        return name
    except RangeError:
        return "Sheet"


__all__ = ["Book", "COLLECTION", "EXTENSIONS", "Failure", "extensions", "MAX_CELLS", "MAX_SHEETS", "MAX_WORKBOOKS", "Sheet", "book_of",
           "check_value", "file_size", "normal_path"]
