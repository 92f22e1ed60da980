"""The state of a workbook whose tools address sheets by 0-based index and cells by 1-based row and column.

One session workbook (``load_workbook`` opens it, every other tool works on it) is one ledger
entity of :data:`COLLECTION`: its sheets in order, each a map of ``"row:column"`` to the text
the agent wrote (a formula keeps its ``=``), and its defined names. :class:`Grid` is the
working copy a call changes; :meth:`Grid.fields` is what goes back into the ledger.
Formulas are computed with :class:`.workbook_calc.Calculator`; a defined name in a formula
reads the range it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .a1 import Area, RangeError, check_sheet_name
from .workbook_calc import Calculator

JSONDict = dict[str, Any]
_T = TypeVar("_T")
COLLECTION = "indexed_workbooks"
KEY = "current"
#: Cells one workbook may hold; sheets it may have (a guard on memory, not a product limit).
MAX_CELLS = 200_000
MAX_SHEETS = 256
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


class GridFailure(Exception):
    """A call the workbook refuses; the message is the answer's text."""


@dataclass
class GridSheet:
    name: str
    cells: dict[tuple[int, int], str] = field(default_factory=dict)
    #: The style properties set on a cell, under the set tool's argument names (``{"bold": True}``).
    styles: dict[tuple[int, int], JSONDict] = field(default_factory=dict)

    def used(self) -> Area | None:
        if not self.cells:
            return None
        rows = [r for r, _ in self.cells]
        cols = [c for _, c in self.cells]
        return Area(min(rows), min(cols), max(rows), max(cols))


@dataclass
class Grid:
    name: str = "Book1"
    sheets: list[GridSheet] = field(default_factory=lambda: [GridSheet("Sheet1")])
    names: list[JSONDict] = field(default_factory=list)
    #: The file the session last loaded or saved ("" before either).
    file: str = ""

    # -- what the calculator reads ---------------------------------------------------------------

    def raw(self, sheet: str, row: int, col: int) -> Any:
        found = self._named(sheet)
        text = found.cells.get((row, col)) if found is not None else None
        if text is None:
            return None
        if text.startswith("="):
            return self._with_names(text)
        return number_of(text) if is_number(text) else text

    def used(self, sheet: str) -> Area:
        found = self._named(sheet)
        return (found.used() if found is not None else None) or Area(1, 1, 1, 1)

    def find(self, name: str) -> str | None:
        found = self._named(name)
        return found.name if found is not None else None

    # -- the agent's view ------------------------------------------------------------------------

    def sheet(self, index: Any) -> GridSheet:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.sheets):
            raise GridFailure("Invalid sheet index")
        return self.sheets[index]

    def value(self, sheet: GridSheet, row: int, col: int) -> Any:
        """The cell's value, a formula computed (the reason it could not be, as Excel's error text)."""
        result, reason = Calculator(self).value(sheet.name, row, col)
        return "#ERROR!" if reason is not None else result

    def put(self, sheet: GridSheet, row: int, col: int, text: str) -> None:
        if row < 1:
            raise GridFailure("Invalid row")
        if col < 1:
            raise GridFailure("Invalid column")
        if text == "":
            sheet.cells.pop((row, col), None)
            return
        if (row, col) not in sheet.cells and sum(len(s.cells) for s in self.sheets) >= MAX_CELLS:
            raise GridFailure(f"The workbook holds at most {MAX_CELLS} cells")
        sheet.cells[(row, col)] = text

    def add_sheet(self, name: str | None) -> GridSheet:
        if len(self.sheets) >= MAX_SHEETS:
            raise GridFailure(f"A workbook holds at most {MAX_SHEETS} sheets")
        if not name:
            number = len(self.sheets) + 1
            while self._named(f"Sheet{number}") is not None:
                number += 1
            name = f"Sheet{number}"
        self.check_name(name)
        added = GridSheet(name)
        self.sheets.append(added)
        return added

    def check_name(self, name: str, besides: GridSheet | None = None) -> None:
        try:
            check_sheet_name(name)
        except RangeError:
            raise GridFailure(f"Invalid name for a sheet: '{name}'.") from None
        taken = self._named(name)
        if taken is not None and taken is not besides:
            raise GridFailure(f"A worksheet already exists with that name: '{name}'.")

    def shift(self, sheet: GridSheet, axis: int, at: int, count: int) -> None:
        """Insert (``count`` > 0) or delete (``count`` < 0) lines of ``axis`` (0 rows, 1 columns) at ``at``."""
        sheet.cells = _shifted(sheet.cells, axis, at, count)
        sheet.styles = _shifted(sheet.styles, axis, at, count)

    def _named(self, name: str) -> GridSheet | None:
        return next((s for s in self.sheets if s.name.lower() == name.lower()), None)

    def _with_names(self, formula: str) -> str:
        """A defined name in ``formula`` replaced by the reference it names (the calculator reads ranges)."""
        for entry in self.names:
            name = str(entry.get("name") or "")
            target = str(next((entry[k] for k in ("formula", "refers_to", "reference", "range", "value")
                               if isinstance(entry.get(k), str)), ""))
            if name and target:
                formula = re.sub(rf"(?<![\w.!$']){re.escape(name)}(?![\w(!])", target.lstrip("="), formula,
                                 flags=re.IGNORECASE)
        return formula

    # -- the ledger ------------------------------------------------------------------------------

    def fields(self) -> JSONDict:
        sheets: list[JSONDict] = []
        for s in self.sheets:
            stored: JSONDict = {"name": s.name, "cells": {f"{r}:{c}": t for (r, c), t in sorted(s.cells.items())}}
            if s.styles:
                stored["styles"] = {f"{r}:{c}": dict(v) for (r, c), v in sorted(s.styles.items())}
            sheets.append(stored)
        return {"name": self.name, "sheets": sheets, "names": [dict(n) for n in self.names], "file": self.file}


def grid_of(fields: JSONDict | None) -> Grid:
    """The working copy of a stored workbook (a new one-sheet workbook when none is stored)."""
    if not fields:
        return Grid()
    sheets: list[GridSheet] = []
    for stored in fields.get("sheets") or ():
        cells: dict[tuple[int, int], str] = {}
        for place, text in (stored.get("cells") or {}).items():
            row, _, col = str(place).partition(":")
            if row.isdigit() and col.isdigit():
                cells[(int(row), int(col))] = str(text)
        styles: dict[tuple[int, int], JSONDict] = {}
        for place, style in (stored.get("styles") or {}).items():
            row, _, col = str(place).partition(":")
            if row.isdigit() and col.isdigit() and isinstance(style, dict):
                styles[(int(row), int(col))] = dict(style)
        sheets.append(GridSheet(str(stored.get("name") or f"Sheet{len(sheets) + 1}"), cells, styles))
    return Grid(str(fields.get("name") or "Book1"), sheets or [GridSheet("Sheet1")],
                [dict(n) for n in fields.get("names") or () if isinstance(n, dict)], str(fields.get("file") or ""))


def is_number(text: str) -> bool:
    return bool(_NUMBER.fullmatch(text.strip()))


def number_of(text: str) -> int | float:
    number = float(text)
    return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number


def _shifted(placed: dict[tuple[int, int], _T], axis: int, at: int, count: int) -> dict[tuple[int, int], _T]:
    """``placed`` (cells or styles by row and column) after ``count`` lines of ``axis`` are inserted or deleted at
    ``at``: what sat on deleted lines is gone, what sat at or after ``at`` moves by ``count``."""
    moved: dict[tuple[int, int], _T] = {}
    for (row, col), value in placed.items():
        place = (row, col)[axis]
        if count < 0 and at <= place < at - count:
            continue
        if place >= at:
            place += count
        moved[(place, col) if axis == 0 else (row, place)] = value
    return moved


__all__ = ["COLLECTION", "Grid", "GridFailure", "GridSheet", "KEY", "grid_of", "is_number", "number_of"]
