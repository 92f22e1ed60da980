"""A1 addresses as a spreadsheet user writes them: ``B2``, ``A1:D20``, ``B:B``, ``2:3``.

Parsing and printing lean on openpyxl's own helpers (the library the workbook engine holds
workbooks in), so a range means here what it means to a server built on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openpyxl.utils.cell import column_index_from_string, get_column_letter, range_boundaries  # type: ignore[import-untyped]
from openpyxl.utils.exceptions import CellCoordinatesException  # type: ignore[import-untyped]

#: Excel's grid.
MAX_ROW = 1_048_576
MAX_COL = 16_384
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")


class RangeError(ValueError):
    """An address that is not A1 notation, worded for the agent."""


@dataclass(frozen=True)
class Area:
    """A rectangle of cells, 1-based and inclusive."""

    min_row: int
    min_col: int
    max_row: int
    max_col: int

    @property
    def rows(self) -> int:
        return self.max_row - self.min_row + 1

    @property
    def cols(self) -> int:
        return self.max_col - self.min_col + 1

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def a1(self) -> str:
        first = f"{get_column_letter(self.min_col)}{self.min_row}"
        if self.rows == 1 and self.cols == 1:
            return first
        return f"{first}:{get_column_letter(self.max_col)}{self.max_row}"

    def cells(self) -> list[list[tuple[int, int]]]:
        return [[(r, c) for c in range(self.min_col, self.max_col + 1)] for r in range(self.min_row, self.max_row + 1)]

    def clipped(self, used: Area) -> Area:
        """A whole column or row range cut to the used rows or columns (``B:B`` -> ``B1:B40``)."""
        return Area(self.min_row, self.min_col, min(self.max_row, used.max_row), min(self.max_col, used.max_col))


def address(row: int, col: int) -> str:
    return f"{get_column_letter(col)}{row}"


def parse_area(text: str, used: Area | None = None) -> Area:
    """``A1:D20``, ``B2``, ``B:B`` or ``2:3`` as an :class:`Area`; whole columns/rows end at ``used``."""
    cleaned = text.strip().replace("$", "").upper()
    try:
        if not cleaned or "!" in cleaned:
            raise ValueError(cleaned)
        min_col, min_row, max_col, max_row = range_boundaries(cleaned)
    except (ValueError, TypeError, CellCoordinatesException):
        raise RangeError(f"Invalid range '{text}'. Use A1 notation such as 'B2' or 'A1:C10'.") from None
    whole = min_row is None or min_col is None
    rows = (1, MAX_ROW) if min_row is None or max_row is None else sorted((min_row, max_row))
    cols = (1, MAX_COL) if min_col is None or max_col is None else sorted((min_col, max_col))
    area = Area(rows[0], cols[0], rows[1], cols[1])
    if area.max_row > MAX_ROW or area.max_col > MAX_COL or area.min_row < 1 or area.min_col < 1:
        raise RangeError(f"Invalid range '{text}'. Use A1 notation such as 'B2' or 'A1:C10'.")
    if whole and used is not None:
        area = area.clipped(used)
    return area


def parse_cell(text: str) -> tuple[int, int]:
    """The top-left cell an ``at`` argument names (``B2``; ``B2:C3`` starts at B2)."""
    cleaned = text.strip().replace("$", "").upper()
    try:
        if "!" in cleaned:
            raise ValueError(cleaned)
        min_col, min_row, _, _ = range_boundaries(cleaned)
    except (ValueError, TypeError, CellCoordinatesException):
        min_col = min_row = None
    if min_col is None or min_row is None or not 1 <= min_row <= MAX_ROW or not 1 <= min_col <= MAX_COL:
        raise RangeError(f"Range '{text}' must have explicit rows and columns, such as 'A1:C10'.")
    return min_row, min_col


def check_sheet_name(name: str) -> None:
    """Excel's rules for a sheet name, worded as the reference server words them."""
    if not name or len(name) > 31:
        raise RangeError("Sheet names must be 1 to 31 characters long.")
    if _SHEET_FORBIDDEN.search(name):
        raise RangeError("Sheet names cannot contain any of [ ] : * ? / \\.")


def quoted(name: str) -> str:
    """A sheet name as a formula writes it (``Sheet1``, ``'Q1 Sales'``)."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) else "'" + name.replace("'", "''") + "'"


def renamed_references(formula: str, old: str, new: str) -> str:
    """A formula whose references to sheet ``old`` now name ``new`` (as Excel does on rename)."""
    pattern = re.compile(r"(?<![A-Za-z0-9_.'])(?:'" + re.escape(old.replace("'", "''")) + r"'|"
                         + re.escape(old) + r")!", re.IGNORECASE)
    return pattern.sub(lambda _: quoted(new) + "!", formula)


_CELL_REF = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)(\d+)")


def shifted(formula: str, origin: tuple[int, int], dest: tuple[int, int], *, transpose: bool = False) -> str:
    """A formula copied from ``origin`` to ``dest``: relative references move with it, as in Excel.

    Pasted transposed, a relative reference's row and column offsets swap too. A reference
    pushed off the grid becomes ``#REF!``.
    """
    from openpyxl.formula.tokenizer import Tokenizer  # type: ignore[import-untyped]

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # not a formula openpyxl can read: copied as it is
        return formula

    def moved(match: re.Match[str]) -> str:
        col_abs, col, row_abs, row = match.groups()
        r, c = int(row), column_index_from_string(col.upper())
        dr, dc = r - origin[0], c - origin[1]
        if transpose:
            dr, dc = dc, dr
        new_r = r if row_abs else dest[0] + dr
        new_c = c if col_abs else dest[1] + dc
        if not (1 <= new_r <= MAX_ROW and 1 <= new_c <= MAX_COL):
            raise RangeError("#REF!")
        return f"{col_abs}{get_column_letter(new_c)}{row_abs}{new_r}"

    parts = []
    for token in tokens:
        value = str(token.value)
        if token.type == "OPERAND" and token.subtype == "RANGE":
            sheet, bang, ref = value.rpartition("!")
            try:
                value = sheet + bang + _CELL_REF.sub(moved, ref)
            except RangeError:
                value = "#REF!"
        parts.append(value)
    return "=" + "".join(parts)


__all__ = ["Area", "MAX_COL", "MAX_ROW", "RangeError", "address", "check_sheet_name", "parse_area", "parse_cell",
           "quoted", "renamed_references", "shifted"]
