"""The MySQL family's catalog statements, answered from the episode's SQLite database.

``SHOW TABLES``, ``SHOW FULL TABLES``, ``SHOW DATABASES``, ``DESCRIBE t`` / ``DESC t`` / ``SHOW COLUMNS FROM t``
have no SQLite counterpart that sqlglot could translate, so they are answered here with the rows and
column names MySQL gives them (``Tables_in_<db>``; ``Field``, ``Type``, ``Null``, ``Key``, ``Default``, ``Extra``).
"""

from __future__ import annotations

import re
from typing import Any

from .sql_db import Database, Outcome, SQLFailure
from .sql_dialects import data_type, worded
from ...world.sql_roles import DB_NAME

JSONDict = dict[str, Any]
_IDENT = r"[`\"]?([\w$]+)[`\"]?(?:\.[`\"]?([\w$]+)[`\"]?)?"
_TABLES = re.compile(r"\s*SHOW\s+(FULL\s+)?TABLES\s*;?\s*", re.IGNORECASE)
_DATABASES = re.compile(r"\s*SHOW\s+(?:DATABASES|SCHEMAS)\s*;?\s*", re.IGNORECASE)
_DESCRIBE = re.compile(rf"\s*(?:DESCRIBE|DESC|EXPLAIN|SHOW\s+(?:FULL\s+)?(?:COLUMNS|FIELDS)\s+(?:FROM|IN))\s+{_IDENT}\s*;?\s*",
                       re.IGNORECASE)


def show_statement(sql: str, db: Database, dialect: str) -> Outcome | None:
    """The outcome of a MySQL catalog statement, or None for any other statement (or another dialect)."""
    if dialect != "mysql":
        return None
    tables = _TABLES.fullmatch(sql)
    if tables:
        column = f"Tables_in_{DB_NAME}"
        rows: list[JSONDict] = [{column: t, **({"Table_type": "BASE TABLE"} if tables.group(1) else {})}
                                for t in sorted(db.tables())]
        columns = [column] + (["Table_type"] if tables.group(1) else [])
        return Outcome("SHOW", columns, rows, len(rows))
    if _DATABASES.fullmatch(sql):
        rows = [{"Database": name} for name in ("information_schema", DB_NAME)]
        return Outcome("SHOW", ["Database"], rows, len(rows))
    described = _DESCRIBE.fullmatch(sql)
    if described:
        table = described.group(2) or described.group(1)
        columns_of = db.columns(table)
        if not columns_of:
            raise SQLFailure(worded(f"no such table: {table}", dialect))
        rows = mysql_describe(db, table, columns_of)
        return Outcome("DESCRIBE", list(rows[0]), rows, len(rows))
    return None


def mysql_describe(db: Database, table: str, columns: list[JSONDict]) -> list[JSONDict]:
    """``DESCRIBE table`` as MySQL prints it: Field, Type, Null, Key, Default, Extra."""
    unique = {row["name"] for index in db.query("SELECT name FROM pragma_index_list(?) WHERE \"unique\"", table)
              for row in db.query("SELECT name FROM pragma_index_info(?)", index["name"])}
    autoincrement = "AUTOINCREMENT" in str(db.query("SELECT sql FROM sqlite_master WHERE name = ?", table)).upper()
    rows = []
    for c in columns:
        integer_key = c["pk"] and str(c["type"]).upper() == "INTEGER"
        default = c["dflt_value"]
        if isinstance(default, str) and default.startswith("'") and default.endswith("'"):
            default = default[1:-1].replace("''", "'")
        rows.append({"Field": c["name"], "Type": data_type(c["type"], "mysql"),
                     "Null": "NO" if c["notnull"] or c["pk"] else "YES",
                     "Key": "PRI" if c["pk"] else "UNI" if c["name"] in unique else "", "Default": default,
                     "Extra": "auto_increment" if integer_key and autoincrement else ""})
    return rows


__all__ = ["mysql_describe", "show_statement"]
