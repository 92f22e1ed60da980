"""Formula results, computed with the ``formulas`` library as a workbook is read.

Each formula is compiled once (cached by its text) into a function of the ranges it
references; a read feeds it the referenced cells' values, themselves computed first, so a
formula sees its precedents' results. What cannot be computed is reported as the reference
server reports it: no value, and the reason (an unknown function's name, ``circular
reference``) under ``uncalculated``. Errors a formula returns are values (``#DIV/0!``).
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from .a1 import Area, RangeError, parse_area

try:
    import formulas  # type: ignore[import-untyped]
    import numpy as np
    from formulas.tokens.operand import XlError  # type: ignore[import-untyped]
    from schedula.utils.cst import EMPTY  # type: ignore[import-untyped]
    from schedula.utils.exc import DispatcherError  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - the extra is declared with openpyxl
    from ....errors import MissingExtraError

    raise MissingExtraError("Spreadsheet tools", "engines", "formulas") from exc

# A function formulas does not implement is logged with a traceback before it is raised; the
# engine reports it in the answer instead.
logging.getLogger("schedula").setLevel(logging.CRITICAL)

#: How deep a chain of formulas referencing formulas is followed (a guard on the recursion).
MAX_DEPTH = 48
_SHEET_REF = re.compile(r"^(?:'((?:[^']|'')+)'|([^!]+))!(.+)$")


class Sheets(Protocol):
    """What the calculator reads: a sheet's raw cells and its used area, by name (any case)."""

    def raw(self, sheet: str, row: int, col: int) -> Any: ...

    def used(self, sheet: str) -> Area: ...

    def find(self, name: str) -> str | None: ...


class Uncalculated(Exception):
    """A formula that cannot be computed here; the message is the reason the answer gives."""


_compiling = threading.Lock()  # formulas loads its function tables on first use; one thread at a time
_warming: list[threading.Thread] = []


@lru_cache(maxsize=2048)
def compiled(formula: str) -> Callable[..., Any]:
    """The formula as a function of its inputs (``fn.inputs``: the ranges, in argument order)."""
    with _compiling:
        fn: Callable[..., Any] = formulas.Parser().ast(formula)[1].compile()
    return fn


def warm_up() -> None:
    """Load formulas' parser and common functions in the background, once: the first formula read is
    then not the one that pays for it (about a second)."""
    if _warming:
        return

    def warm() -> None:
        try:
            compiled("=SUM(A1:A2)+AVERAGE(B1:B2)*ROUND(C1,2)+IF(D1>0,MAX(E1:E2),MIN(F1:F2))")
        except Exception:  # a failed warm-up only means the first real call compiles from cold
            pass

    thread = threading.Thread(target=warm, name="workbook-formulas-warm-up", daemon=True)
    _warming.append(thread)
    thread.start()


def syntax_error(formula: str) -> str | None:
    """Why ``formula`` is not a valid formula, or None (openpyxl's tokenizer reads it; fast, no compiling)."""
    from openpyxl.formula.tokenizer import Tokenizer  # type: ignore[import-untyped]

    if len(formula) > 8192:
        return "longer than 8192 characters"
    try:
        tokens = Tokenizer(formula).items
    except IndexError:
        return "unmatched ')'"
    except Exception as exc:  # TokenizerError: an unterminated string or bracket
        return str(exc).rstrip(".") or "not a formula"
    depth = 0
    for token in tokens:
        if token.subtype == "OPEN":
            depth += 1
        elif token.subtype == "CLOSE":
            depth -= 1
    if depth > 0:
        return "unclosed '('"
    if not tokens or tokens[-1].type == "OPERATOR-INFIX":
        return "it ends without an operand"
    return None


class Calculator:
    """Values of a workbook's cells, formulas computed; one per read (memoised)."""

    def __init__(self, sheets: Sheets) -> None:
        self.sheets = sheets
        self.memo: dict[tuple[str, int, int], tuple[Any, str | None]] = {}
        self.active: list[tuple[str, int, int]] = []

    def value(self, sheet: str, row: int, col: int) -> tuple[Any, str | None]:
        """The cell's value (a formula's result) and, when it cannot be computed, why."""
        raw = self.sheets.raw(sheet, row, col)
        if not (isinstance(raw, str) and raw.startswith("=")):
            return raw, None
        key = (sheet, row, col)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:
            return None, "circular reference"
        if len(self.active) >= MAX_DEPTH:
            return None, "formula chain too long"
        self.active.append(key)
        try:
            result: tuple[Any, str | None] = (plain(self._compute(sheet, raw)), None)
        except Uncalculated as exc:
            result = (None, str(exc))
        finally:
            self.active.pop()
        self.memo[key] = result
        return result

    def _compute(self, sheet: str, formula: str) -> Any:
        try:
            fn = compiled(_on_the_simulated_clock(formula))
        except Exception:
            raise Uncalculated("invalid formula") from None
        args = [self._input(sheet, str(ref)) for ref in getattr(fn, "inputs", ())]
        try:
            return fn(*args)
        except DispatcherError as exc:
            if len(exc.args) > 1 and isinstance(exc.args[1], str):
                raise Uncalculated(exc.args[1].upper()) from None  # the function formulas lacks
            raise Uncalculated("cannot be calculated here") from None
        except Exception:
            raise Uncalculated("cannot be calculated here") from None

    def _input(self, sheet: str, ref: str) -> Any:
        match = _SHEET_REF.match(ref)
        if match:
            named = (match.group(1) or "").replace("''", "'") or match.group(2)
            target = self.sheets.find(named)
            if target is None:
                return XlError("#REF!")
            sheet, ref = target, match.group(3)
        try:
            area = parse_area(ref, self.sheets.used(sheet))
        except RangeError:
            raise Uncalculated(ref) from None  # a defined name: not modelled
        if area.size > 100_000:
            raise Uncalculated("range too large")
        values = [[self._operand(sheet, r, c) for (r, c) in row] for row in area.cells()]
        if area.size == 1:
            return values[0][0]
        array = np.empty((area.rows, area.cols), dtype=object)
        for i, row_values in enumerate(values):
            for j, value in enumerate(row_values):
                array[i, j] = value
        return array

    def _operand(self, sheet: str, row: int, col: int) -> Any:
        value, reason = self.value(sheet, row, col)
        if reason is not None:
            raise Uncalculated(reason)
        if value is None:
            return EMPTY
        if isinstance(value, str) and value.startswith("#") and value.endswith(("!", "?", "A")):
            return XlError(value)
        return value


_VOLATILE_CLOCK = re.compile(r"\b(TODAY|NOW)\(\s*\)", re.IGNORECASE)


def _on_the_simulated_clock(formula: str) -> str:
    """``TODAY()``/``NOW()`` read the simulation's clock, not the host's: the same answer every run."""
    from ..common import clock

    start = clock(0)

    def pinned(match: re.Match[str]) -> str:
        day = f"DATE({start.year},{start.month},{start.day})"
        return day if match.group(1).upper() == "TODAY" else f"({day}+TIME({start.hour},{start.minute},{start.second}))"

    return _VOLATILE_CLOCK.sub(pinned, formula)


def plain(value: Any) -> Any:
    """A formula's result as JSON: first cell of an array, 15 significant digits, errors as text."""
    if isinstance(value, np.ndarray):
        value = value.ravel()[0] if value.size else None
    if isinstance(value, XlError):
        return str(value)
    if value is EMPTY:
        return 0
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        number = float(value)
        if not math.isfinite(number):
            return "#NUM!"
        number = float(f"{number:.15g}")  # Excel keeps 15 significant digits
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return str(value)


__all__ = ["Calculator", "MAX_DEPTH", "Sheets", "compiled", "plain", "syntax_error", "warm_up"]
