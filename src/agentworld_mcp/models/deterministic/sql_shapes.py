"""SQL answers in the shape a tool's description states (``Returns: JSON with keys: columns, rows, row_count``).

A description that names its answer's keys is the server's own documentation of its format, so it
wins over any engine habit: :func:`stated_keys` reads them, :func:`statement_answer` fills them from a
statement's outcome, and :func:`python_value` prints a value as a Python server's ``json.dumps`` of its
DB-API row does (dates ``isoformat()``, decimals as floats, booleans as booleans).
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from dataclasses import dataclass
from typing import Any

JSONDict = dict[str, Any]

_STATED = re.compile(
    r"\b(JSON|object|dict(?:ionary)?|array|list)\b([^.\n:]{0,40}?)\bwith (?:the )?(?:keys|fields|properties)\s*:?\s*"
    r"(`?\w+`?(?:\s*,\s*(?:and\s+)?`?\w+`?|\s+and\s+`?\w+`?)*)", re.IGNORECASE)


@dataclass(frozen=True)
class Stated:
    """The answer's keys as the description names them; ``array``: a JSON array of such objects."""

    keys: tuple[str, ...]
    array: bool


def stated_keys(description: str | None) -> Stated | None:
    """``Returns: JSON array of objects with keys: schema_name, owner`` -> those keys, in an array."""
    match = _STATED.search(description or "")
    if match is None:
        return None
    keys = tuple(k.strip("` ") for k in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", match.group(3)) if k.strip("` "))
    array = match.group(1).lower() in ("array", "list") or bool(re.search(r"\b(?:array|list)\b", match.group(2), re.I))
    return Stated(keys, array) if keys else None


_ROWS = ("rows", "data", "results", "records")
_COLUMNS = ("columns", "column_names", "fields")
_ROW_COUNT = ("row_count", "rowcount", "rowCount", "count", "total", "num_rows")
_AFFECTED = ("rows_affected", "affected_rows", "affectedRows", "changes", "rowsAffected")
_STATUS = ("status", "command", "statusmessage", "command_tag")
_TIME = re.compile(r"time|elapsed|duration", re.IGNORECASE)


def command_tag(command: str, rowcount: int, selected: int) -> str:
    """The command tag the database reports (``INSERT 0 2``, ``UPDATE 1``, ``CREATE TABLE``)."""
    verb = command.split()[0] if command else ""
    if verb == "INSERT":
        return f"INSERT 0 {max(rowcount, 0)}"
    if verb in ("UPDATE", "DELETE", "MERGE"):
        return f"{verb} {max(rowcount, 0)}"
    if verb in ("SELECT", "WITH", "VALUES"):
        return f"SELECT {selected}"
    return command


def statement_answer(stated: Stated, *, columns: list[str], rows: list[JSONDict], command: str, rowcount: int,
                     elapsed: float) -> JSONDict:
    """A statement's outcome in the stated keys: rows as value lists when the answer lists its columns apart."""
    positional = any(k in _COLUMNS for k in stated.keys)
    out: JSONDict = {}
    for key in stated.keys:
        if key in _ROWS:
            out[key] = [[row.get(c) for c in columns] for row in rows] if positional else rows
        elif key in _COLUMNS:
            out[key] = list(columns)
        elif key in _ROW_COUNT:
            out[key] = len(rows)
        elif key in _AFFECTED:
            out[key] = rowcount
        elif key in _STATUS:
            out[key] = command_tag(command, rowcount, len(rows))
        elif key in ("success", "ok"):
            out[key] = True
        elif _TIME.search(key):
            out[key] = elapsed
        else:
            out[key] = None
    return out


def python_value(value: Any) -> Any:
    """A DB-API value as a Python server makes it JSON: ``isoformat()`` for times, a float for a decimal."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return value


__all__ = ["Stated", "command_tag", "python_value", "stated_keys", "statement_answer"]
