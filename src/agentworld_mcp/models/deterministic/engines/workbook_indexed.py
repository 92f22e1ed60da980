"""Spreadsheet tools that address a session workbook's sheets by index and its cells by row and column.

What selects it. A catalog about workbooks or sheets whose tools take an integer ``sheet``
(an index, not a name) beside integer row and column numbers (``row``/``column``,
``row_start``/``col_end``), and no workbook file per call: one workbook is open for the
session (``load_workbook``/``create_workbook`` open it, ``save_workbook`` writes it). The
tools it models are named for what they do: read one cell or a range of cells, write one cell,
a batch of cells or pasted CSV, clear a range, add, delete or rename a sheet, insert or delete
rows and columns, describe the workbook, set and read a cell's style (``workbook_styles.py``),
create, list and delete defined names. Named styles, conditional formats... are left to the
record model.

What it answers. A cell reads as a record in the catalog's own words: the coordinates under
the names its arguments give them (``row``, ``column``), the text written under ``content``
when the read tool's description speaks of content (else ``value``), the computed value of a
formula under ``formatted`` when it speaks of a formatted value, and ``type`` (``number``,
``text``, ``boolean``) when it speaks of a type. A range read lists its non-empty cells. A
write answers ``{"status": "ok"}``. A sheet index out of range, a row or column below 1 and a
sheet name Excel refuses are errors.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from ....state.ledger import Effect
from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from .workbook_grid import (
    COLLECTION,
    KEY,
    Grid,
    GridFailure,
    GridSheet,
    grid_of,
    is_number,
)
from .workbook_meta import INFO_META, PRINTED_META, START_META, STYLE_META
from .workbook_styles import properties, read_style, set_style

JSONDict = dict[str, Any]
_DOMAIN = re.compile(r"\b(work ?books?|work ?sheets?|spreadsheets?|sheets?|xlsx)\b", re.IGNORECASE)
_ROWS = ("row", "row_start", "start_row", "first_row", "row_index")
_COLS = ("column", "col", "col_start", "column_start", "start_column", "start_col", "first_column", "column_index")
_ROW_ENDS = ("row_end", "end_row", "last_row", "to_row")
_COL_ENDS = ("col_end", "column_end", "end_column", "end_col", "last_column")
_SHEETS = ("sheet", "sheet_index", "sheet_id", "worksheet", "index")
#: Reads and writes of at most this many cells per call (a guard, not a product limit).
MAX_IO = 10_000


def _words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _props(tool: ToolSpec | JSONDict) -> JSONDict:
    schema = tool.input_schema if isinstance(tool, ToolSpec) else tool.get("inputSchema")
    props = (schema or {}).get("properties") or {}
    return props if isinstance(props, dict) else {}


def _integer(spec: Any) -> bool:
    return isinstance(spec, dict) and spec.get("type") == "integer"


def _addresses_cells(tool: ToolSpec | JSONDict) -> bool:
    """The tool takes an integer sheet and an integer row or column: a cell by place, not by A1 name."""
    props = _props(tool)
    return any(_integer(props.get(n)) for n in _SHEETS[:2]) and any(
        _integer(props.get(n)) for n in (*_ROWS, *_COLS))


def indexed_catalog(world: World) -> bool:
    """Whether the catalog's workbook is addressed by sheet index and row/column numbers (decided per catalog)."""
    text = " ".join(f"{t.get('name', '')} {t.get('description') or ''}" for t in world.tools)
    if not _DOMAIN.search(text.replace("_", " ")):
        return False
    return sum(_addresses_cells(t) for t in world.tools) >= 2


def operation(tool: ToolSpec) -> str | None:
    """What a tool of such a catalog does, from its name and arguments (None: left to the record model)."""
    words, props = _words(tool.name), _props(tool)
    book = bool(words & {"workbook", "spreadsheet", "file"})
    if book and words & {"load", "open"}:
        return "load"
    if book and words & {"create", "new"}:
        return "create"
    if book and "save" in words:
        return "save"
    if book and words & {"info", "describe", "metadata"}:
        return "info"
    if words & {"style", "styles", "format"} and words & {"cell", "cells", "range"} and _addresses_cells(tool) \
            and not words & {"named", "conditional"}:
        if words & {"set", "apply", "update", "write"}:
            return "set_style"
        if words & {"get", "read"}:
            return "get_style"
    if words & {"defined", "named"} and words & {"name", "names", "range", "ranges"} and \
            not words & {"style", "styles"}:
        for verbs, op in (({"create", "add", "define", "new"}, "create_name"), ({"list", "all"}, "list_names"),
                          ({"delete", "remove"}, "delete_name")):
            if words & verbs:
                return op
    if words & {"style", "styles", "format", "formats", "border", "color", "width", "height", "hidden", "frozen",
                "formula", "fill", "move", "name", "names"}:
        return None
    if words & {"sheet", "worksheet"} and not words & {"cell", "cells", "range"}:
        for verbs, op in (({"add", "create", "new", "insert"}, "add_sheet"), ({"delete", "remove"}, "delete_sheet"),
                          ({"rename"}, "rename_sheet")):
            if words & verbs:
                return op
        return None
    lines = [axis for axis, names in (("rows", {"row", "rows"}), ("columns", {"column", "columns"})) if words & names]
    if len(lines) == 1 and "count" in props:
        for verbs, op in (({"insert", "add"}, "insert_"), ({"delete", "remove"}, "delete_")):
            if words & verbs:
                return op + lines[0]
    if not _addresses_cells(tool) and not any(isinstance(s, dict) and s.get("type") == "array" for s in props.values()):
        return None
    if words & {"paste"} or "csv" in props:
        return "paste"
    if "clear" in words:
        return "clear"
    if words & {"set", "write", "put", "update"} and words & {"cell", "cells", "value", "values"}:
        return "set_cells" if "cells" in words or not _addresses_cells(tool) else "set_cell"
    if words & {"get", "read"} and words & {"cell", "cells", "range", "values"}:
        return "get_cells" if any(n in props for n in (*_ROW_ENDS, *_COL_ENDS)) else "get_cell"
    return None


def claims(world: World, tool: ToolSpec) -> bool:
    return operation(tool) is not None and indexed_catalog(world)


# -- answering ------------------------------------------------------------------------------------


class _Call:
    def __init__(self, step: Step) -> None:
        self.step, self.args = step, step.arguments
        entity = step.episode.ledger.get(COLLECTION, KEY)
        self.stored = entity is not None
        self.start = _learned_start(step)
        self.grid = grid_of(dict(entity.fields) if entity is not None else self.start)
        self.grid.names = _defined_names(step) or self.grid.names
        self.changed = False

    def number(self, names: tuple[str, ...], default: int | None = None) -> int:
        value = next((self.args[n] for n in names if self.args.get(n) is not None), default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise GridFailure(f"{names[0]} must be an integer")
        return value

    def sheet(self, value: Any = None) -> GridSheet:
        return self.grid.sheet(value if value is not None else next(
            (self.args[n] for n in _SHEETS if n in self.args), None))

    def keys(self) -> tuple[str, str, str, str | None, str | None]:
        """The names a cell record is given: the single read's row and column arguments, its description's words."""
        reader = next((t for t in self.step.world.tools if _words(str(t.get("name"))) & {"get", "read"} and
                       _words(str(t.get("name"))) & {"cell", "cells"} and _addresses_cells(t) and
                       not _words(str(t.get("name"))) & {"style", "format"}), self.step.tool.definition)
        props = _props(reader)
        row = next((n for n in _ROWS if n in props), "row")
        col = next((n for n in _COLS if n in props), "column")
        text = str(reader.get("description") or "").lower()
        return (row, col, "content" if "content" in text else "value",
                "formatted" if "formatted" in text else None, "type" if re.search(r"\btype\b", text) else None)

    def record(self, sheet: GridSheet, row: int, col: int) -> JSONDict:
        row_key, col_key, content_key, formatted_key, type_key = self.keys()
        text = sheet.cells.get((row, col), "")
        value = self.grid.value(sheet, row, col)
        record: JSONDict = {row_key: row, col_key: col, content_key: text}
        if text.startswith("=") and formatted_key is not None:
            record[formatted_key] = _printed(value)
        if type_key is not None:
            record[type_key] = _type_of(value)
        return record

    def save(self) -> None:
        self.changed = True


def _printed(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if value is None:
        return ""
    return str(value)


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str) and is_number(value):
        return "number"
    if isinstance(value, str) and value.startswith("#") and value.endswith(("!", "?", "A")):
        return "error"
    return "text"


def _ok() -> JSONDict:
    return {"status": "ok"}


def _sheets_of(grid: Grid) -> list[JSONDict]:
    listed = []
    for index, sheet in enumerate(grid.sheets):
        used = sheet.used()
        dims = [used.min_row, used.max_row, used.min_col, used.max_col] if used is not None else [1, 1, 1, 1]
        listed.append({"index": index, "name": sheet.name, "dimensions": dims})
    return listed


def _defined_names(step: Step) -> list[JSONDict]:
    """Names the record model keeps for the catalog's defined-name tools: entities with a name and a reference."""
    ledger = step.episode.ledger
    return [{"name": e.fields["name"], "formula": e.fields[ref]} for c in ledger.collections() if c != COLLECTION
            for e in ledger.items(c) for ref in ("formula", "refers_to", "reference")
            if isinstance(e.fields.get("name"), str) and isinstance(e.fields.get(ref), str)]


def _learned_start(step: Step) -> JSONDict | None:
    """The workbook the recorded session started with (``learn``), from any load tool of the catalog."""
    for tool in step.world.tools:
        start = (tool.get("_meta") or {}).get(START_META)
        if isinstance(start, dict):
            return start
    return None


def _tool_meta(call: _Call, key: str) -> Any:
    return (call.step.tool.definition.get("_meta") or {}).get(key)


def _area(call: _Call) -> tuple[range, range]:
    first_row, first_col = call.number(_ROWS), call.number(_COLS)
    last_row, last_col = call.number(_ROW_ENDS, first_row), call.number(_COL_ENDS, first_col)
    if first_row < 1 or first_col < 1:
        raise GridFailure("Invalid row" if first_row < 1 else "Invalid column")
    if (last_row - first_row + 1) * (last_col - first_col + 1) > MAX_IO:
        raise GridFailure(f"At most {MAX_IO} cells per call")
    return range(first_row, last_row + 1), range(first_col, last_col + 1)


def _set_style(call: _Call) -> Any:
    sheet = call.sheet()
    rows, cols = _area(call)
    set_style(sheet, rows, cols, properties(call.args))
    call.save()
    return _ok()


def _get_style(call: _Call) -> Any:
    sheet = call.sheet()
    return read_style(sheet, call.number(_ROWS), call.number(_COLS), _tool_meta(call, STYLE_META))


def _name_record(call: _Call) -> JSONDict:
    """A defined name as the create call gave it: each of the tool's arguments, its default when left out."""
    props = _props(call.step.tool)
    return {k: call.args.get(k, (spec or {}).get("default") if isinstance(spec, dict) else None)
            for k, spec in props.items()}


def _create_name(call: _Call) -> Any:
    record = _name_record(call)
    name = str(record.get("name") or "")
    if not name:
        raise GridFailure("A defined name needs a name")
    if any(str(n.get("name", "")).lower() == name.lower() and n.get("scope") == record.get("scope")
           for n in call.grid.names):
        raise GridFailure(f"Defined name already exists: '{name}'")
    call.grid.names.append(record)
    call.save()
    return _ok()


def _list_names(call: _Call) -> Any:
    """Each name with every argument its create tool takes (a left-out one at its default)."""
    creator = next((t for t in call.step.world.tools if operation(ToolSpec(t)) == "create_name"), {})
    defaults = {k: spec.get("default") for k, spec in _props(creator).items() if isinstance(spec, dict)}
    return [{**defaults, **n} for n in call.grid.names]


def _delete_name(call: _Call) -> Any:
    name = str(call.args.get("name") or "").lower()
    kept = [n for n in call.grid.names if not (str(n.get("name", "")).lower() == name and
                                               n.get("scope") == call.args.get("scope", n.get("scope")))]
    if len(kept) == len(call.grid.names):
        raise GridFailure(f"Defined name not found: '{call.args.get('name')}'")
    call.grid.names = kept
    call.save()
    return _ok()


def _load(call: _Call) -> Any:
    path = str(call.args.get("file_path") or call.args.get("path") or "")
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", path.rsplit("/", 1)[-1]) or call.grid.name
    start = call.start or {}
    if start.get("path") and path != start["path"] and isinstance(start.get("missing"), str):
        raise GridFailure(start["missing"])  # the recording showed only its own file there
    if start.get("path") == path:
        call.grid, call.stored = grid_of(start), call.stored
        call.save()
    elif not call.stored:
        call.grid.name = stem
        call.save()
    if path and call.grid.file != path:
        call.grid.file = path
        call.save()
    return {"status": "loaded", "sheets": _sheets_of(call.grid)}


def _create(call: _Call) -> Any:
    call.grid = Grid(str(call.args.get("name") or "Book1"))
    call.save()
    return {"status": "created", "sheets": _sheets_of(call.grid)}


def _save(call: _Call) -> Any:
    path = str(call.args.get("file_path") or call.args.get("path") or call.grid.name + ".xlsx")
    if call.grid.file != path:
        call.grid.file = path
        call.save()
    return {"saved": path}


def _info(call: _Call) -> Any:
    """The workbook's name and sheets, with the keys the recording showed besides them (``learn``): the
    ones every answer printed alike, and the one that named the session's file."""
    answer: JSONDict = {"name": call.grid.name, "sheets": _sheets_of(call.grid)}
    learned = _tool_meta(call, INFO_META)
    if not isinstance(learned, dict) or not isinstance(learned.get("order"), list):
        return answer
    found = learned.get("constants")
    constants: JSONDict = found if isinstance(found, dict) else {}
    shaped: JSONDict = {}
    for key in learned["order"]:
        if key in answer:
            shaped[key] = answer[key]
        elif key == learned.get("file"):
            shaped[key] = call.grid.file or None
        elif key in constants:
            shaped[key] = constants[key]
    return shaped


def _get_cell(call: _Call) -> Any:
    sheet = call.sheet()
    row, col = call.number(_ROWS), call.number(_COLS)
    return call.record(sheet, row, col)


def _get_cells(call: _Call) -> Any:
    sheet = call.sheet()
    first_row, first_col = max(1, call.number(_ROWS)), max(1, call.number(_COLS))
    last_row, last_col = call.number(_ROW_ENDS, first_row), call.number(_COL_ENDS, first_col)
    found = sorted((r, c) for (r, c) in sheet.cells if first_row <= r <= last_row and first_col <= c <= last_col)
    return [call.record(sheet, r, c) for r, c in found[:MAX_IO]]


def _set_cell(call: _Call) -> Any:
    sheet = call.sheet()
    call.grid.put(sheet, call.number(_ROWS), call.number(_COLS), _text(call.args.get("value")))
    call.save()
    return _ok()


def _set_cells(call: _Call) -> Any:
    entries = next((v for v in call.args.values() if isinstance(v, list)), [])
    if len(entries) > MAX_IO:
        raise GridFailure(f"At most {MAX_IO} cells per call")
    for entry in entries:
        if not isinstance(entry, dict):
            raise GridFailure("Each cell needs sheet, row, column and value")
        sheet = call.sheet(entry.get("sheet", call.args.get("sheet")))
        row, col = entry.get("row"), entry.get("column", entry.get("col"))
        if not isinstance(row, int) or not isinstance(col, int):
            raise GridFailure("Each cell needs sheet, row, column and value")
        call.grid.put(sheet, row, col, _text(entry.get("value")))
    call.save()
    return {"status": "ok", "cells_set": len(entries)}


def _paste(call: _Call) -> Any:
    sheet = call.sheet()
    row, col = call.number(_ROWS), call.number(_COLS)
    text = str(call.args.get("csv") or call.args.get("data") or "")
    delimiter = "\t" if "\t" in text else ","
    lines = list(csv.reader(io.StringIO(text), delimiter=delimiter)) if delimiter == "\t" else \
        [[line] if line.startswith("=") else next(csv.reader([line])) for line in text.splitlines()]
    for i, values in enumerate(lines[:MAX_IO]):
        for j, value in enumerate(values[:MAX_IO]):
            call.grid.put(sheet, row + i, col + j, value)
    call.save()
    return _ok()


def _clear(call: _Call) -> Any:
    sheet = call.sheet()
    first_row, first_col = call.number(_ROWS), call.number(_COLS)
    last_row, last_col = call.number(_ROW_ENDS, first_row), call.number(_COL_ENDS, first_col)
    if str(call.args.get("clear") or "contents").lower() not in ("formatting", "formats", "format", "style"):
        for place in [p for p in sheet.cells if first_row <= p[0] <= last_row and first_col <= p[1] <= last_col]:
            del sheet.cells[place]
    call.save()
    return _ok()


def _add_sheet(call: _Call) -> Any:
    call.grid.add_sheet(str(call.args["name"]) if call.args.get("name") else None)
    call.save()
    return "ok"


def _delete_sheet(call: _Call) -> Any:
    sheet = call.sheet()
    if len(call.grid.sheets) == 1:
        raise GridFailure("Cannot delete the only sheet of a workbook")
    call.grid.sheets.remove(sheet)
    call.save()
    return "ok"


def _rename_sheet(call: _Call) -> Any:
    sheet = call.sheet()
    name = str(call.args.get("name") or call.args.get("new_name") or "")
    call.grid.check_name(name, besides=sheet)
    sheet.name = name
    call.save()
    return "ok"


def _shift(axis: int, sign: int) -> Any:
    def run(call: _Call) -> Any:
        sheet = call.sheet()
        at = call.number(_ROWS if axis == 0 else _COLS)
        count = call.number(("count",), 1)
        if at < 1 or count < 1:
            raise GridFailure("Position and count must be at least 1")
        call.grid.shift(sheet, axis, at, sign * count)
        call.save()
        return "ok"

    return run


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


_OPS = {"load": _load, "create": _create, "save": _save, "info": _info, "get_cell": _get_cell,
        "get_cells": _get_cells, "set_cell": _set_cell, "set_cells": _set_cells, "paste": _paste, "clear": _clear,
        "add_sheet": _add_sheet, "delete_sheet": _delete_sheet, "rename_sheet": _rename_sheet,
        "insert_rows": _shift(0, 1), "delete_rows": _shift(0, -1), "insert_columns": _shift(1, 1),
        "delete_columns": _shift(1, -1), "set_style": _set_style, "get_style": _get_style,
        "create_name": _create_name, "list_names": _list_names, "delete_name": _delete_name}


_READING = ("get_cell", "get_cells", "info", "load", "get_style", "list_names")


def _serialises(step: Step) -> bool:
    """The tool answers one string field (``{"result": str}``): the server serialises its answers itself, objects
    as JSON text, so a plain word goes through the same JSON encoding (``"ok"``)."""
    listed = next((t for t in step.world.tools if t.get("name") == step.tool.name), step.tool.definition)
    out = listed.get("outputSchema")
    props = out.get("properties") if isinstance(out, dict) else None
    return isinstance(props, dict) and len(props) == 1 and \
        all(isinstance(p, dict) and p.get("type") == "string" for p in props.values())


def predict(step: Step) -> Prediction | None:
    op = operation(step.tool)
    if op is None:
        return None
    call = _Call(step)
    try:
        result = _OPS[op](call)
    except GridFailure as exc:
        return Prediction(f"Error executing tool {step.tool.name}: {exc}", is_error=True, effects=[])
    effects = [Effect("update" if call.stored else "create", COLLECTION, KEY, call.grid.fields())] \
        if call.changed else []
    printed = (step.tool.definition.get("_meta") or {}).get(PRINTED_META)
    if isinstance(printed, str) and op not in _READING:  # the recorded server's own constant (``"ok"``)
        result = printed
    elif isinstance(result, str) and _serialises(step):
        result = json.dumps(result)
    return Prediction(result, effects=effects, text=result if isinstance(result, str) else None)


__all__ = ["claims", "indexed_catalog", "operation", "predict"]
