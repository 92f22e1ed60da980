"""The workbook engine's operations: each loads the workbook, changes a copy, returns the answer.

Imported only when a spreadsheet catalog's tool is called (openpyxl and formulas load then,
not for every catalog). :func:`answer` turns a handler's result or failure into the
prediction and the workbook's new state into an effect.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ....state.ledger import Effect, Entity
from ...base import Prediction, Step
from .a1 import (
    Area, RangeError, address, check_sheet_name, parse_area, parse_cell, renamed_references, shifted,
)
from .workbook_args import (
    PATH_ARGS as _PATH_ARGS, RANGE_ARGS as _RANGE_ARGS, SHEET_ARGS as _SHEET_ARGS, by_role, optional, regex_search,
)
from .workbook_book import (
    COLLECTION, MAX_CELLS, MAX_SHEETS, MAX_WORKBOOKS, Book, Failure, Sheet, book_of, check_value, extensions,
    file_size, normal_path,
)
from .workbook_calc import Calculator, syntax_error, warm_up

JSONDict = dict[str, Any]
#: Cells one call may read or write.
MAX_IO = 10_000
warm_up()


def _arg(step: Step, names: tuple[str, ...], role: str | None = None) -> Any:
    """The argument of one of the usual ``names``, else the one the catalog describes as playing ``role``."""
    lowered = {k.lower(): v for k, v in step.arguments.items()}
    found = next((lowered[n] for n in names if lowered.get(n) is not None), None)
    return by_role(step.tool, step.arguments, role) if found is None and role is not None else found


def _text(step: Step, names: tuple[str, ...], what: str, role: str | None = None) -> str:
    value = _arg(step, names, role)
    if not isinstance(value, str) or not value:
        raise Failure(f"{what} is required.")
    return value


def _path(step: Step) -> str:
    """The workbook's key, of an extension this catalog's tools name (decided once per catalog)."""
    allowed = step.derived(("workbook", "extensions"), lambda: extensions(" ".join(
        f"{t.get('description') or ''} {t.get('inputSchema') or ''}" for t in step.world.tools)))
    return normal_path(_arg(step, _PATH_ARGS), allowed)


_DEFAULTS = re.compile(r"defaults? to (.*)", re.IGNORECASE)
_DEFAULT = re.compile(r"'([^']{1,31})'(?: for ([\w/ .]+))?")


def default_sheet(tool: Any, path: str) -> str:
    """A new workbook's first sheet: the default the sheet parameter's description states (for this kind of
    file, when it names kinds), else ``Sheet1``."""
    props = (tool.input_schema or {}).get("properties") or {}
    for name in _SHEET_ARGS:
        text = str((props.get(name) or {}).get("description") or "") if isinstance(props, dict) else ""
        stated = _DEFAULTS.search(text)
        for default, kinds in _DEFAULT.findall(stated.group(1) if stated else ""):
            if not kinds or any(path.lower().endswith("." + k.strip(" .").lower()) for k in re.split(r"[/, ]+", kinds)):
                return str(default)
    return "Sheet1"


class _Call:
    """One call: the episode's workbooks as they stand, and the one this call changes."""

    def __init__(self, step: Step) -> None:
        self.step = step
        self.changed: Book | None = None
        self.created = False
        #: What the call found besides its answer, for a catalog that asks for it (:mod:`.workbook_serve`).
        self.facts: JSONDict = {}

    def entity(self, path: str) -> Entity | None:
        """The workbook's entity: keyed by its path, or (a hand-written seed) any key with that path."""
        ledger = self.step.episode.ledger
        entity = ledger.get(COLLECTION, path)
        if entity is None:
            entity = next((e for e in ledger.items(COLLECTION) if e.fields.get("path") == path), None)
        return entity

    def entity_fields(self, path: str) -> JSONDict | None:
        entity = self.entity(path)
        return entity.fields if entity is not None else None

    def book(self) -> Book:
        path = _path(self.step)
        fields = self.entity_fields(path)
        if fields is None:
            raise Failure(f"Workbook {path} does not exist.")
        return book_of(path, fields)

    def sheet(self, book: Book) -> Sheet:
        """The sheet the call names; the first one where the catalog leaves the sheet optional."""
        if _arg(self.step, _SHEET_ARGS, "sheet") is None and optional(self.step.tool, "sheet"):
            return book.sheets[0]
        return book.sheet(_text(self.step, _SHEET_ARGS, "sheet", "sheet"))

    def save(self, book: Book, *, created: bool = False) -> None:
        if book.cell_count() > MAX_CELLS:
            raise Failure(f"A workbook here holds at most {MAX_CELLS} cells; clear some before writing more.")
        self.changed, self.created = book, created


def _area(step: Step, sheet: Sheet, *, default_used: bool = False) -> Area:
    text = _arg(step, _RANGE_ARGS, "range")
    if text is None and _arg(step, ("start_cell",)):
        end = _arg(step, ("end_cell",))
        text = f"{_arg(step, ('start_cell',))}:{end}" if end else _arg(step, ("start_cell",))
    if text is None:
        if default_used:
            return _bounded(step, sheet.used())
        raise Failure("range is required, in A1 notation such as 'A1:C10'.")
    return parse_area(str(text), sheet.used())


def _bounded(step: Step, used: Area) -> Area:
    """The used area cut to the rows and columns the call bounds it by (``start_row``, ``end_column``...)."""
    def bound(names: tuple[str, ...], default: int) -> int:
        value = _arg(step, names)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else default

    return Area(bound(("start_row", "first_row"), used.min_row), bound(("start_col", "start_column"), used.min_col),
                bound(("end_row", "last_row"), used.max_row), bound(("end_col", "end_column"), used.max_col))


def _rows(values: list[list[Any]]) -> list[list[Any]]:
    """Rows as the server returns them: trailing empty cells and trailing empty rows left out."""
    trimmed = []
    for row in values:
        while row and row[-1] is None:
            row = row[:-1]
        trimmed.append(row)
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    return trimmed


def _create_workbook(call: _Call) -> JSONDict:
    step = call.step
    path = _path(step)
    if call.entity_fields(path) is not None and not step.arguments.get("overwrite"):
        raise Failure(f"{path} already exists. Pass overwrite=true to replace it.")
    if len(step.episode.ledger.items(COLLECTION)) >= MAX_WORKBOOKS:
        raise Failure(f"At most {MAX_WORKBOOKS} workbooks can be created in one session.")
    names = step.arguments.get("sheets") or [_arg(step, _SHEET_ARGS) or default_sheet(step.tool, path)]
    book = Book(path, [])
    for name in names if isinstance(names, list) else [names]:
        check_sheet_name(str(name))
        book.taken(str(name))
        book.sheets.append(Sheet(str(name)))
    call.save(book, created=True)
    return {"path": path}


def _describe_workbook(call: _Call) -> JSONDict:
    book = call.book()
    sheets = [{"name": s.name, "used_range": s.used().a1(), **({"active": True} if i == 0 else {})}
              for i, s in enumerate(book.sheets)]
    return {"sheets": sheets, "doc_properties": {"author": "openpyxl"}, "calculation": {"full_calc_on_load": True}}


def _list_workbooks(call: _Call) -> JSONDict:
    directory = str(call.step.arguments.get("directory") or "").strip().strip("/")
    recursive = bool(call.step.arguments.get("recursive"))
    listed: JSONDict = {}
    for entity in call.step.episode.ledger.items(COLLECTION):
        path = str(entity.fields.get("path") or entity.key)
        inside = path[len(directory) + 1:] if directory and path.startswith(directory + "/") else \
            (path if not directory else None)
        if inside is None or ("/" in inside and not recursive):
            continue
        book = book_of(path, entity.fields)
        listed[path] = file_size(book) if book.cell_count() <= 20_000 else 4_096 + 16 * book.cell_count()
    return dict(sorted(listed.items()))


def _describe_sheet(call: _Call) -> JSONDict:
    sheet = call.sheet(call.book())
    used = sheet.used()
    call.facts = {"rows": used.max_row if sheet.cells else 0, "columns": used.max_col if sheet.cells else 0}
    return {"used_range": used.a1()}


def _list_sheets(call: _Call) -> JSONDict:
    return {"sheets": [s.name for s in call.book().sheets]}


def _create_sheet(call: _Call) -> JSONDict:
    book = call.book()
    name = _arg(call.step, ("new_name", "sheet_name", "name", "sheet", "title"), "new_sheet")
    if name is None and optional(call.step.tool, "new_sheet"):  # "auto-generated if omitted"
        name = next(f"Sheet{n}" for n in range(len(book.sheets) + 1, MAX_SHEETS + 2) if book.find(f"Sheet{n}") is None)
    name = _text(call.step, ("new_name", "sheet_name", "name", "sheet", "title"), "new_name", "new_sheet") \
        if name is None else str(name)
    check_sheet_name(name)
    book.taken(name)
    if len(book.sheets) >= MAX_SHEETS:
        raise Failure(f"A workbook can hold at most {MAX_SHEETS} sheets.")
    position = call.step.arguments.get("position")
    index = len(book.sheets) if not isinstance(position, int) else max(0, min(position - 1, len(book.sheets)))
    book.sheets.insert(index, Sheet(name))
    call.save(book)
    return {"sheet": name}


def _rename_sheet(call: _Call) -> JSONDict:
    book = call.book()
    sheet = book.sheet(_text(call.step, ("sheet", "sheet_name", "old_name", "source_sheet"), "sheet", "sheet"))
    new = _text(call.step, ("new_name", "new_sheet_name", "target_name", "name"), "new_name", "new_sheet")
    check_sheet_name(new)
    book.taken(new, besides=sheet)
    old, sheet.name = sheet.name, new
    for each in book.sheets:  # references to it follow, as in Excel
        for key, value in each.cells.items():
            if isinstance(value, str) and value.startswith("="):
                each.cells[key] = renamed_references(value, old, new)
    call.save(book)
    return {"sheet": new}


def _copy_sheet(call: _Call) -> JSONDict:
    book = call.book()
    sheet = book.sheet(_text(call.step, ("sheet", "sheet_name", "source_sheet"), "sheet", "sheet"))
    new = _arg(call.step, ("new_name", "target_sheet", "new_sheet_name", "name"), "new_sheet")
    if new is None and optional(call.step.tool, "new_sheet"):
        new = next(f"{sheet.name} ({n})" for n in range(2, MAX_SHEETS + 2) if book.find(f"{sheet.name} ({n})") is None)
    new = _text(call.step, ("new_name", "target_sheet", "new_sheet_name", "name"), "new_name", "new_sheet") \
        if new is None else str(new)
    check_sheet_name(new)
    book.taken(new)
    copy = Sheet(new, {k: renamed_references(v, sheet.name, new) if isinstance(v, str) and v.startswith("=") else v
                       for k, v in sheet.cells.items()})
    book.sheets.append(copy)
    call.save(book)
    return {"sheet": new}


def _delete_sheet(call: _Call) -> JSONDict:
    book = call.book()
    sheet = call.sheet(book)
    if len(book.sheets) == 1:
        raise Failure("A workbook must keep at least one visible worksheet.")
    book.sheets.remove(sheet)
    call.save(book)
    return {"sheet": sheet.name}


def _store(sheet: Sheet, row: int, col: int, value: Any) -> None:
    value = check_value(value)
    if isinstance(value, str) and value.startswith("=") and len(value) > 1:
        problem = syntax_error(value)
        if problem is not None:
            raise Failure(f"Formula '{value}' is not valid: {problem}.")
    sheet.put(row, col, value)


def _write_range(call: _Call) -> JSONDict:
    book = call.book()
    sheet = call.sheet(book)
    rows = _arg(call.step, ("rows", "data", "values", "value"))
    if not isinstance(rows, list):
        rows = [[rows]] if rows is not None else []
    rows = [r if isinstance(r, list) else [r] for r in rows]
    if not any(rows):
        raise Failure("rows must contain at least one value.")
    at = _arg(call.step, ("at", "start_cell", "cell", "target_cell")) or "A1"
    top, left = parse_cell(str(at))
    width = max(len(r) for r in rows)
    area = Area(top, left, top + len(rows) - 1, left + width - 1)
    if area.size > MAX_IO:
        raise Failure(f"At most {MAX_IO} cells can be written per call; write fewer rows.")
    if area.max_row > 1_048_576 or area.max_col > 16_384:
        raise Failure("The data does not fit on the sheet from that cell.")
    from .workbook_rows import coerced, coerces_numbers

    coerce = coerces_numbers(call.step)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            _store(sheet, top + i, left + j, coerced(value) if coerce else value)
    call.save(book)
    return {"sheet": sheet.name, "range": area.a1(), "cells_written": sum(len(r) for r in rows)}


def _apply_formula(call: _Call) -> JSONDict:
    book = call.book()
    sheet = call.sheet(book)
    row, col = parse_cell(_text(call.step, ("cell", "at", "target_cell", "start_cell"), "cell"))
    formula = _text(call.step, ("formula",), "formula")
    formula = formula if formula.startswith("=") else "=" + formula
    _store(sheet, row, col, formula)
    call.save(book)
    value, reason = Calculator(book).value(sheet.name, row, col)
    return {"sheet": sheet.name, "cell": address(row, col), "formula": formula, "value": value,
            **({"uncalculated": reason} if reason else {})}


def _read_range(call: _Call) -> JSONDict:
    book = call.book()
    sheet = call.sheet(book)
    area = _area(call.step, sheet, default_used=True)
    limit = call.step.arguments.get("max_cells")
    limit = min(limit, MAX_IO) if isinstance(limit, int) and limit > 0 else 2_000
    if area.cols > limit:
        raise Failure(f"Range {area.a1()} has {area.cols} columns; at most {limit} cells can be read per call. "
                      "Read fewer columns.")
    per_page = limit // area.cols
    page = Area(area.min_row, area.min_col, min(area.max_row, area.min_row + per_page - 1), area.max_col)
    formulas = call.step.arguments.get("mode") == "formulas"
    calc, uncalculated = Calculator(book), {}
    values = []
    for row in page.cells():
        out = []
        for r, c in row:
            if formulas:
                out.append(sheet.cells.get((r, c)))
                continue
            value, reason = calc.value(sheet.name, r, c)
            if reason is not None:
                uncalculated[address(r, c)] = reason
            out.append(value)
        values.append(out)
    answer: JSONDict = {"range": page.a1(), "values": _rows(values)}
    call.facts = {"values": answer["values"], **({"value": values[0][0]} if area.size == 1 else {})}
    if page.max_row < area.max_row:
        answer["next_range"] = Area(page.max_row + 1, area.min_col, area.max_row, area.max_col).a1()
    if uncalculated:
        answer["uncalculated"] = uncalculated
    return answer


def _shown(value: Any) -> str:
    return ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value)


def _find_cells(call: _Call) -> JSONDict:
    book = call.book()
    query = _text(call.step, ("query", "search", "search_term", "text", "value"), "query", "pattern")
    sheets = [call.sheet(book)] if _arg(call.step, _SHEET_ARGS, "sheet") else book.sheets
    regex = _compiled(query) if regex_search(call.step.tool) else None
    exact, case = bool(call.step.arguments.get("exact")), bool(call.step.arguments.get("case_sensitive"))
    formulas = call.step.arguments.get("mode") == "formulas"
    most = call.step.arguments.get("max_results")
    most = min(most, 1_000) if isinstance(most, int) and most > 0 else 100
    needle = query if case else query.lower()
    matches: JSONDict = {}
    found, truncated = 0, False
    for sheet in sheets:
        for (r, c) in sorted(sheet.cells):
            value = sheet.cells[(r, c)]
            if not formulas and isinstance(value, str) and value.startswith("="):
                continue  # the server searches stored values, and a formula written here has none yet
            text = _shown(value) if case else _shown(value).lower()
            if regex is not None:
                hit = regex.search(_shown(value)) is not None
            else:
                hit = (text == needle) if exact else (needle in text)
            if hit:
                if found == most:
                    truncated = True
                    break
                matches.setdefault(sheet.name, {})[address(r, c)] = value
                call.facts.setdefault("matches", []).append({"sheet": sheet.name, "cell": address(r, c), "value": value})
                found += 1
    return {"matches": matches, **({"truncated": True} if truncated else {})}


def _compiled(pattern: str) -> re.Pattern[str]:
    if len(pattern) > 1_000:
        raise Failure("The pattern is too long.")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise Failure(f"Invalid regular expression: {exc}") from exc


def _retyped(text: str) -> Any:
    """A replaced cell's new value as Excel retypes it: numbers become numbers."""
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and re.fullmatch(r"[+-]?\d+", text.strip()) else number


def _replace_cells(call: _Call) -> JSONDict:
    book = call.book()
    step = call.step
    query = _text(step, ("query", "search", "find", "find_text", "old_text"), "query")
    replacement = _arg(step, ("replacement", "replace", "replace_with", "new_text"))
    replacement = "" if replacement is None else str(replacement)
    sheets = [call.sheet(book)] if _arg(step, _SHEET_ARGS) else book.sheets
    exact, case = bool(step.arguments.get("exact")), bool(step.arguments.get("case_sensitive"))
    in_formulas = step.arguments.get("in_formulas", True) is not False
    pattern = re.compile(re.escape(query), 0 if case else re.IGNORECASE)
    replaced: JSONDict = {}
    for sheet in sheets:
        for key, value in list(sheet.cells.items()):
            if isinstance(value, bool) or (isinstance(value, str) and value.startswith("=") and not in_formulas):
                continue
            text = str(value)
            if exact:
                new = replacement if (text == query if case else text.lower() == query.lower()) else text
            else:
                new = pattern.sub(lambda _: replacement, text)
            if new != text:
                _store(sheet, *key, new if new.startswith("=") else (_retyped(new) if new else None))
                replaced[sheet.name] = replaced.get(sheet.name, 0) + 1
    if replaced:
        call.save(book)
    return {"replaced": replaced}


def _copy_range(call: _Call) -> JSONDict:
    book = call.book()
    step = call.step
    source = call.sheet(book)
    area = _area(step, source)
    target = book.sheet(str(_arg(step, ("to_sheet", "target_sheet", "destination_sheet")) or source.name))
    top, left = parse_cell(str(_arg(step, ("at", "target_cell", "target_start", "destination")) or ""))
    if area.size > MAX_IO:
        raise Failure(f"At most {MAX_IO} cells can be copied per call.")
    paste = str(step.arguments.get("paste") or "all")
    transpose, skip_blanks = bool(step.arguments.get("transpose")), bool(step.arguments.get("skip_blanks"))
    calc = Calculator(book)
    copied = []
    for r, c in (cell for row in area.cells() for cell in row):
        raw = source.cells.get((r, c))
        dr, dc = (c - area.min_col, r - area.min_row) if transpose else (r - area.min_row, c - area.min_col)
        value = raw
        if isinstance(raw, str) and raw.startswith("="):
            if paste == "values":
                value = calc.value(source.name, r, c)[0]
            else:
                value = shifted(raw, (r, c), (top + dr, left + dc), transpose=transpose)
        copied.append((top + dr, left + dc, value))
    if paste != "formats":
        for r, c, value in copied:
            if not (skip_blanks and value is None):
                target.put(r, c, value)
    rows, cols = (area.cols, area.rows) if transpose else (area.rows, area.cols)
    call.save(book)
    return {"sheet": target.name, "range": Area(top, left, top + rows - 1, left + cols - 1).a1()}


def _clear_range(call: _Call) -> JSONDict:
    book = call.book()
    sheet = call.sheet(book)
    area = _area(call.step, sheet)
    if str(call.step.arguments.get("clear") or "contents") in ("contents", "all"):
        for key in [k for k in sheet.cells if area.min_row <= k[0] <= area.max_row
                    and area.min_col <= k[1] <= area.max_col]:
            del sheet.cells[key]
        call.save(book)
    return {"sheet": sheet.name, "range": area.a1()}


def _format(call: _Call) -> JSONDict:
    """Formatting changes no value: checked (sheet, range) and acknowledged as the server does."""
    book = call.book()
    sheet = call.sheet(book)
    if _arg(call.step, _RANGE_ARGS) is None and _arg(call.step, ("start_cell",)) is None:
        return {"sheet": sheet.name}
    return {"sheet": sheet.name, "range": _area(call.step, sheet).a1()}


def _copy_workbook(call: _Call) -> JSONDict:
    step = call.step
    source = _arg(step, ("source", "src", "from", *_PATH_ARGS))
    target = _arg(step, ("destination", "dest", "target", "to", "new_path"))
    allowed = extensions(" ".join(str(t.get("description") or "") for t in step.world.tools))
    source_path, target_path = normal_path(source, allowed), normal_path(target, allowed)
    fields = call.entity_fields(source_path)
    if fields is None:
        raise Failure(f"File not found: {source}")
    if call.entity_fields(target_path) is not None:
        raise Failure(f"File already exists: {target}")
    book = book_of(source_path, fields)
    call.save(Book(target_path, book.sheets), created=True)
    return {"path": target_path}


def _rows_op(kind: str) -> Callable[[_Call], JSONDict]:
    def run(call: _Call) -> JSONDict:
        from .workbook_rows import append_rows, delete_lines, insert_lines

        book = call.book()
        sheet = call.sheet(book)
        axis = 0 if kind.endswith("rows") else 1
        if kind == "append_rows":
            result = append_rows(call.step, sheet, _store)
        elif kind.startswith("insert"):
            result = insert_lines(call.step, sheet, _store, axis=axis)
        else:
            result = delete_lines(call.step, sheet, axis=axis)
        call.save(book)
        return result
    return run


def _describe_table(call: _Call) -> Any:
    from .workbook_rows import describe_table

    book = call.book()
    if _arg(call.step, _SHEET_ARGS, "sheet") is None:
        return [describe_table(call.step, sheet) for sheet in book.sheets]
    return describe_table(call.step, call.sheet(book))


def _sql(call: _Call) -> Any:
    from .workbook_sql import run_sql

    book = call.book()
    result, changed = run_sql(call.step, book)
    if changed:
        call.save(book)
    return result


_OPS: dict[str, Callable[[_Call], Any]] = {
    "copy_workbook": _copy_workbook, "append_rows": _rows_op("append_rows"), "insert_rows": _rows_op("insert_rows"),
    "delete_rows": _rows_op("delete_rows"), "insert_columns": _rows_op("insert_columns"),
    "delete_columns": _rows_op("delete_columns"), "describe_table": _describe_table, "sql": _sql,
    "create_workbook": _create_workbook, "describe_workbook": _describe_workbook, "list_workbooks": _list_workbooks,
    "describe_sheet": _describe_sheet, "list_sheets": _list_sheets, "create_sheet": _create_sheet,
    "rename_sheet": _rename_sheet, "copy_sheet": _copy_sheet, "delete_sheet": _delete_sheet,
    "write_range": _write_range, "apply_formula": _apply_formula, "read_range": _read_range,
    "find_cells": _find_cells, "replace_cells": _replace_cells, "copy_range": _copy_range,
    "clear_range": _clear_range, "format": _format,
}


def answer(step: Step, op: str) -> Prediction:
    """The answer to ``step`` (a call of operation ``op``) and the workbook it changed, as an effect."""
    call = _Call(step)
    try:
        result = _OPS[op](call)
        from .workbook_serve import served

        result = served(step, op, result, call.facts)
    except (Failure, RangeError) as exc:
        return Prediction(f"Error executing tool {step.tool.name}: {exc}", is_error=True, effects=[])
    effects: list[Effect] = []
    if call.changed is not None:
        entity = call.entity(call.changed.path)
        effects.append(Effect("update" if entity is not None else "create", COLLECTION,
                              entity.key if entity is not None else call.changed.path, call.changed.fields()))
    # the reference server prints its result compactly beside the structured copy
    from .workbook_serve import wraps

    if not isinstance(result, dict) or wraps(step):  # a value the tool returns: the serving prints and wraps it
        return Prediction(result, effects=effects, text=result if isinstance(result, str) else None)
    return Prediction(result, effects=effects, text=json.dumps(result, separators=(",", ":"), ensure_ascii=False))


__all__ = ["MAX_IO", "answer"]
