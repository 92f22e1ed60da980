"""The workbook a session of an index-addressed spreadsheet server starts with, from its recording.

Such a server opens one workbook file for the session (``load_workbook(file_path)``) and its
tools address sheets by index and cells by row and column
(``models/deterministic/engines/workbook_indexed.py``). What the file held is the episode's
starting state, and the recording shows it: the sheets the load (or a description of the
workbook) listed, and every cell a read showed before the session wrote to that sheet. A load
that failed gives the refusal a file that is not there gets. ``learn`` writes it under the load
tool's ``_meta["agentworld/start_workbook"]``::

    {"path": "/data/stock.xlsx", "name": "stock", "sheets": [{"name": "Stock", "cells": {"1:1": "Item"}}],
     "missing": "I/O Error: No such file or directory (os error 2)"}
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.engines.workbook_meta import INFO_META, PRINTED_META, START_META, STYLE_META
from ..models.deterministic.engines.workbook_styles import PLACING, find_path, properties, without
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog, ToolSpec
from .learn_meta import write_meta
from .score import RecordedTurn, text_of

JSONDict = dict[str, Any]
_READS = ("get_cell", "get_cells")
_SHEET_WIDE = ("delete_sheet", "create", "load")
_PREFIX = re.compile(r"^Error executing tool \w+: ")


def add_workbook_start_meta(data: JSONDict, compiled: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Put the starting workbook under each load tool's ``_meta``; how many tools got it."""
    try:
        from ..models.deterministic.engines import workbook_indexed
    except Exception:  # the engines extra is missing: nothing is served from it
        return 0
    if not workbook_indexed.indexed_catalog(compiled.world):
        return 0
    learned: dict[str, JSONDict] = {}
    for turns in episodes.values():
        start = _start(turns, compiled, workbook_indexed.operation)
        if start is not None:
            for tool in start.pop("tools"):
                learned.setdefault(tool, start)
    operation = workbook_indexed.operation
    return write_meta(data, START_META, learned) + write_meta(data, PRINTED_META, _printed(
        compiled, episodes, operation)) + write_meta(data, INFO_META, _info(compiled, episodes, operation)) + \
        write_meta(data, STYLE_META, _style(compiled, episodes, operation))


def _info(compiled: Catalog, episodes: dict[str, list[RecordedTurn]], operation: Any) -> dict[str, JSONDict]:
    """Per describe tool, the keys its answers showed besides the workbook's name and sheets: those every
    answer printed alike (constants), and the one whose value was the file the session last loaded or saved."""
    answers: dict[str, list[tuple[JSONDict, str]]] = {}
    for turns in episodes.values():
        path = ""
        for turn in turns:
            spec = compiled.get(turn.tool)
            op = operation(spec) if spec is not None else None
            if op in ("load", "save") and not failed(turn.result):
                path = str(turn.arguments.get("file_path") or turn.arguments.get("path") or path)
            data = answer_data(turn.result)
            if op == "info" and isinstance(data, dict) and not failed(turn.result):
                answers.setdefault(turn.tool, []).append((data, path))
    learned: dict[str, JSONDict] = {}
    for tool, seen in answers.items():
        order = list(seen[0][0])
        files = [k for k in order if all(d.get(k) == p and p for d, p in seen)]
        constants = {k: seen[0][0][k] for k in order if k not in files and all(d.get(k) == seen[0][0][k]
                                                                                  for d, _ in seen)}
        learned[tool] = {"order": order, "constants": constants, "file": files[0] if files else None}
    return learned


def _style(compiled: Catalog, episodes: dict[str, list[RecordedTurn]], operation: Any) -> dict[str, JSONDict]:
    """Per style read tool, the shape of its answer: where each property a set call named showed (``bold``
    at ``font.bold``), and the rest of the answer, which the cell showed unset."""
    learned: dict[str, JSONDict] = {}
    for turns in episodes.values():
        styled: dict[tuple[Any, int, int], JSONDict] = {}
        for turn in turns:
            spec = compiled.get(turn.tool)
            op = operation(spec) if spec is not None else None
            args = turn.arguments
            if op == "set_style" and not failed(turn.result) and isinstance(args.get("row"), int) \
                    and isinstance(args.get("column"), int):
                rows = range(args["row"], (args.get("row_end") or args["row"]) + 1)
                cols = range(args["column"], (args.get("col_end") or args["column"]) + 1)
                for row in rows[:1000]:
                    for col in cols[:1000]:
                        key = (args.get("sheet"), row, col)
                        styled[key] = {**styled.get(key, {}), **properties(args)}
            data = answer_data(turn.result)
            if op != "get_style" or failed(turn.result) or not isinstance(data, dict):
                continue
            props = styled.get((args.get("sheet"), _int(args.get("row")), _int(args.get("column"))), {})
            paths = {name: path for name, value in props.items()
                     if (path := find_path(data, name, value)) is not None}
            known = learned.setdefault(turn.tool, {"base": None, "paths": {}})
            known["paths"].update(paths)
            if known["base"] is None or not props:
                known["base"] = without(data, list(paths.values()))
    setter = next((t for t in compiled.world.tools if operation(ToolSpec(t)) == "set_style"), None)
    return {tool: _guessed(shape, setter) for tool, shape in learned.items() if isinstance(shape["base"], dict)}


def _int(value: Any) -> int:
    return value if isinstance(value, int) else -1


def _guessed(shape: JSONDict, setter: JSONDict | None) -> JSONDict:
    """Where the set tool's properties no recorded read showed go: under the group their name begins with
    (``font_size`` at ``font.size`` when the answer has a ``font`` group), else beside a shown property of
    the same type (``italic`` beside ``bold``)."""
    props = ((setter or {}).get("inputSchema") or {}).get("properties") or {}
    if not isinstance(props, dict):
        return shape

    def kind(spec: Any) -> str:
        types = [spec.get("type")] + [a.get("type") for a in spec.get("anyOf") or () if isinstance(a, dict)] \
            if isinstance(spec, dict) else []
        return next((str(t) for t in types if t not in (None, "null")), "")

    paths: JSONDict = shape["paths"]
    for name, spec in props.items():
        if name in paths or name in PLACING:
            continue
        group, _, rest = name.partition("_")
        if rest and isinstance(shape["base"].get(group), dict):
            paths[name] = [group, rest]
            continue
        like = next((p for other, p in paths.items() if kind(props.get(other)) == kind(spec) and len(p) > 1), None)
        if like is not None:
            paths[name] = [*like[:-1], name]
    return shape


def _printed(compiled: Catalog, episodes: dict[str, list[RecordedTurn]], operation: Any) -> dict[str, str]:
    """Per write tool, the plain text every successful recorded answer printed, when all printed the same
    one that is no JSON object or list (the engine computes those)."""
    seen: dict[str, set[str]] = {}
    for turns in episodes.values():
        for turn in turns:
            spec = compiled.get(turn.tool)
            if spec is None or operation(spec) in (None, *_READS, "info", "load") or failed(turn.result):
                continue
            structured = turn.result.get("structuredContent")
            value = structured.get("result") if isinstance(structured, dict) and list(structured) == ["result"] \
                else text_of(turn.result)
            seen.setdefault(turn.tool, set()).add(value if isinstance(value, str) else "{")
    return {tool: texts.pop() for tool, texts in seen.items()
            if len(texts) == 1 and not next(iter(texts)).lstrip().startswith(("{", "["))}


def _start(turns: list[RecordedTurn], compiled: Catalog, operation: Any) -> JSONDict | None:
    start: JSONDict = {"sheets": [], "tools": []}
    touched: set[int] = set()
    frozen = False
    for turn in turns:
        spec = compiled.get(turn.tool)
        op = operation(spec) if spec is not None else None
        if op is None:
            continue
        data = answer_data(turn.result)
        if op == "load":
            path = str(turn.arguments.get("file_path") or turn.arguments.get("path") or "")
            if failed(turn.result):
                start.setdefault("missing", _PREFIX.sub("", str(text_of(turn.result) or "")).strip() or None)
            elif "path" not in start:
                start.update(path=path, name=re.sub(r"\.[A-Za-z0-9]+$", "", path.rsplit("/", 1)[-1]))
                start["tools"].append(turn.tool)
                _sheets(start, data)
            continue
        if failed(turn.result) or frozen:
            continue
        if op == "info" and isinstance(data, dict):
            if isinstance(data.get("name"), str):
                start.setdefault("name", data["name"])
            _sheets(start, data)
        elif op in _READS:
            sheet = turn.arguments.get("sheet")
            if isinstance(sheet, int) and sheet not in touched and sheet < len(start["sheets"]):
                for record in data if isinstance(data, list) else [data]:
                    _cell(start["sheets"][sheet], record)
        elif op in _SHEET_WIDE:
            frozen = True
        elif isinstance(turn.arguments.get("sheet"), int):
            touched.add(turn.arguments["sheet"])
        elif (named := _sheets_named(turn.arguments)) is not None:
            touched |= named
        else:
            frozen = True  # a write naming no one sheet (a batch): later reads may show it
    if "path" not in start:
        return None
    start["missing"] = start.get("missing")
    return start


def _sheets_named(arguments: JSONDict) -> set[int] | None:
    """The sheets a batch write names in its entries (None: some entry names none)."""
    entries = [e for v in arguments.values() if isinstance(v, list) for e in v]
    named = {e.get("sheet") for e in entries if isinstance(e, dict)}
    return {n for n in named if isinstance(n, int)} if entries and all(isinstance(n, int) for n in named) else None


def _sheets(start: JSONDict, data: Any) -> None:
    listed = data.get("sheets") if isinstance(data, dict) else None
    if start["sheets"] or not isinstance(listed, list):
        return
    start["sheets"] = [{"name": str(s["name"]), "cells": {}} for s in listed if isinstance(s, dict) and "name" in s]


def _cell(sheet: JSONDict, record: Any) -> None:
    if not isinstance(record, dict):
        return
    row, col = record.get("row"), record.get("column", record.get("col"))
    content = record.get("content", record.get("value"))
    if isinstance(row, int) and isinstance(col, int) and content is not None:
        sheet["cells"].setdefault(f"{row}:{col}", str(content))


__all__ = ["add_workbook_start_meta"]
