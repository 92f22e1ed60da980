"""SQL over a workbook's sheets: each sheet a table, its header row the columns.

A spreadsheet tool that takes SQL (an argument ``sql`` or ``query`` described as SQL) runs it
on an in-memory SQLite database built from the workbook for this call, in the SQL tools'
sandbox (:mod:`..sql_sandbox`: bounded time and size, no files). A read answers its rows as
``{column: value}`` objects; a write (``INSERT``, ``UPDATE``, ``DELETE``) answers
``{"affected_rows": n}`` and writes the changed tables back into their sheets' cells, below
the header. A tool described as read-only refuses a write, as its description says.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ...base import Step
from ..sql_sandbox import connect, fetch
from .workbook_args import SQL_WORDS as _SQL_WORDS
from .workbook_book import Book, Failure, Sheet
from .workbook_rows import header_row, table_of

JSONDict = dict[str, Any]
_READ = re.compile(r"^\s*(?:select|with|values)\b", re.IGNORECASE)
_READ_ONLY = re.compile(r"\bread[- ]only\b|\bonly select\b", re.IGNORECASE)


def statement_of(step: Step) -> str | None:
    """The call's SQL: an argument named ``sql``/``query``/``statement`` whose parameter speaks of SQL."""
    props = (step.tool.input_schema or {}).get("properties") or {}
    for name in ("sql", "query", "statement", "sql_query"):
        value = step.arguments.get(name)
        spec = props.get(name) if isinstance(props, dict) else None
        if isinstance(value, str) and (name == "sql" or isinstance(spec, dict)
                                       and _SQL_WORDS.search(str(spec.get("description") or ""))):
            return value
    return None


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def run_sql(step: Step, book: Book) -> tuple[Any, bool]:
    """The statement's answer, and whether it changed the workbook (its tables are then in ``book``)."""
    sql = statement_of(step)
    if not sql or not sql.strip():
        raise Failure("sql is required.")
    reading = _READ.match(sql) is not None
    if not reading and _READ_ONLY.search(step.tool.description or ""):
        raise Failure("Only SELECT statements are allowed. Use the tool for mutations to change data.")
    conn = connect()
    try:
        shapes = _load(conn, step, book)
        with conn.statement():
            try:
                cursor = conn.execute(sql)
                rows = fetch(cursor, conn.bounds) if cursor.description else []
            except sqlite3.Error as exc:
                raise Failure(conn.explain(exc)) from exc
        if cursor.description:
            names = [str(d[0]) for d in cursor.description]
            return [dict(zip(names, row)) for row in rows], False
        if reading:
            return [], False
        changed = cursor.rowcount if cursor.rowcount >= 0 else 0
        _store_back(conn, book, shapes)
        return {"affected_rows": changed}, True
    finally:
        conn.close()


def _load(conn: sqlite3.Connection, step: Step, book: Book) -> dict[str, tuple[int, list[str]]]:
    """Each sheet with a header as a table; per table its header row and columns (what is written back)."""
    shapes: dict[str, tuple[int, list[str]]] = {}
    with conn.trusted():  # type: ignore[attr-defined]
        for sheet in book.sheets:
            header = header_row(step, sheet.name)
            columns, rows = table_of(sheet, header)
            if not columns or len({c.lower() for c in columns}) != len(columns):
                continue
            conn.execute(f"CREATE TABLE {_quote(sheet.name)} ({', '.join(_quote(c) for c in columns)})")
            conn.executemany(f"INSERT INTO {_quote(sheet.name)} VALUES ({', '.join('?' * len(columns))})",
                             [tuple(_sql_value(v) for v in row) for row in rows])
            shapes[sheet.name] = (header, columns)
    return shapes


def _sql_value(value: Any) -> Any:
    return value if value is None or isinstance(value, (int, float, str)) else str(value)


def _store_back(conn: sqlite3.Connection, book: Book, shapes: dict[str, tuple[int, list[str]]]) -> None:
    """Every table's rows as its sheet's cells below the header (rows deleted leave no gap)."""
    with conn.trusted():  # type: ignore[attr-defined]
        for sheet in book.sheets:
            if sheet.name not in shapes:
                continue
            header, columns = shapes[sheet.name]
            rows = conn.execute(f"SELECT * FROM {_quote(sheet.name)} ORDER BY rowid").fetchall()
            _rewrite(sheet, header, len(columns), rows)


def _rewrite(sheet: Sheet, header: int, width: int, rows: list[tuple[Any, ...]]) -> None:
    sheet.cells = {k: v for k, v in sheet.cells.items() if k[0] <= header or k[1] > width}
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            sheet.put(header + 1 + i, j + 1, value)


__all__ = ["run_sql", "statement_of"]
