"""Rows printed as text by servers that answer in lines: a header of column names, then one line per row.

A Python server that prints ``",".join(columns)`` and then each row's values with ``str`` shows its
DB-API driver's values: a ``DECIMAL(6,2)`` keeps its scale (``12.50``), a date prints as ``2024-01-15``,
and a NULL is left empty. Booleans stay the integers the engine stores (MySQL's ``tinyint(1)``).
"""

from __future__ import annotations

from typing import Any

from .sql_dialects import typed_value

JSONDict = dict[str, Any]


def csv_text(columns: list[str], rows: list[JSONDict], declared: dict[str, str] | None = None) -> str:
    """``rows`` under a header of ``columns``, values as the driver types them (``declared``: column -> type)."""
    types = declared or {}
    lines = [",".join(columns)]
    for row in rows:
        lines.append(",".join(_cell(row.get(c), types.get(c.lower())) for c in columns))
    return "\n".join(lines)


def _cell(value: Any, declared: str | None) -> str:
    if value is None:
        return ""
    if declared and declared.split("(")[0].strip().upper() in ("BOOLEAN", "BOOL"):
        return str(value)  # tinyint(1): the stored 0/1
    typed = typed_value(value, declared)
    return str(typed)


def rows_text(rows: list[JSONDict]) -> str:
    """Rows of our own making (a catalog listing) under the header their keys make."""
    columns = list(rows[0]) if rows else []
    return csv_text(columns, rows)


__all__ = ["csv_text", "rows_text"]
