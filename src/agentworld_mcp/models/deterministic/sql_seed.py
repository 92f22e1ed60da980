"""The database a world's demonstrations show, as SQL that builds it (a learned world's initial tables).

A recorded session of a database server shows the tables it started with: a table listing names them,
a table description gives their columns (``PRAGMA table_info`` rows), and row reads (a record tool's
rows, a ``SELECT`` on one table) give their rows. Tables the session created itself (``CREATE TABLE``
in a statement) are left out: the episode creates them again. A table whose columns were never shown
gets those of its rows, else a rowid key. Only what a demonstration showed is seeded.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...world.roles import ToolRole
from ...world.sql_roles import TABLE_ARGS
from ...world.world import World
from .sql_records import quoted

JSONDict = dict[str, Any]
_CREATED = re.compile(r"\bCREATE\s+(?:TEMP\w*\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[`\"\[]?(\w+)", re.IGNORECASE)
_ONE_TABLE = re.compile(r"^\s*SELECT\s+(.+?)\s+FROM\s+[`\"\[]?(\w+)[`\"\]]?(?:\s+WHERE\b.*)?\s*;?\s*$",
                        re.IGNORECASE | re.DOTALL)


def seed_statements(world: World, roles: dict[str, ToolRole]) -> list[str]:
    """SQLite statements that build the tables and rows the demonstrations show the database started with."""
    names, columns, rows, created = _shown(world, roles)
    tables = [t for t in [*names, *columns, *rows] if t.lower() not in created]
    out: list[str] = []
    for table in dict.fromkeys(tables):
        shown = columns.get(table) or _columns_of(rows.get(table, []))
        keys = [quoted(str(c["name"])) for c in shown if c.get("pk")]
        if len(keys) > 1:  # a composite key is the table's, not a column's
            shown = [{**c, "pk": 0} for c in shown]
        tail = f", PRIMARY KEY ({', '.join(keys)})" if len(keys) > 1 else ""
        out.append(f"CREATE TABLE {quoted(table)} ({', '.join(_column_sql(c) for c in shown)}{tail})")
        known = {str(c["name"]) for c in shown}
        for row in rows.get(table, []):
            if row and set(row) <= known:
                values = ", ".join(_literal(v) for v in row.values())
                out.append(f"INSERT OR IGNORE INTO {quoted(table)} ({', '.join(map(quoted, row))}) VALUES ({values})")
    return out


def unshown_tables(world: World, roles: dict[str, ToolRole]) -> set[str]:
    """Seeded tables whose columns no demonstration showed (listed by name only): their seed is a guess."""
    names, columns, rows, created = _shown(world, roles)
    return {t for t in names if t not in columns and not any(rows.get(t, [])) and t.lower() not in created}


def vocabulary(world: World) -> set[str]:
    """Every name the recording used for a column: row and condition keys, described columns, row keys and
    the identifiers of its statements, less the columns a server's refusal named as missing."""
    words: set[str] = set()
    for demo in world.demonstrations:
        for value in demo.arguments.values():
            if isinstance(value, dict):
                words |= {str(k) for k in value}
            elif isinstance(value, str):
                words |= set(_IDENTIFIER.findall(value))
        answer = _parsed(demo.response)
        for item in answer if isinstance(answer, list) and not demo.is_error else []:
            if isinstance(item, dict):
                words |= {str(k) for k in item} | ({str(item["name"])} if "name" in item and "type" in item else set())
    refused = {next(g for g in m.groups() if g) for demo in world.demonstrations
               if demo.is_error and isinstance(demo.response, str) for m in _MISSING_COLUMN.finditer(demo.response)}
    return words - refused


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MISSING_COLUMN = re.compile(r"[Cc]olumn\s+[\"'`]?(\w+)[\"'`]?\s+does not exist|no such column:\s+(?:\w+\.)?(\w+)")


def _shown(world: World, roles: dict[str, ToolRole]
           ) -> tuple[list[str], dict[str, list[JSONDict]], dict[str, list[JSONDict]], set[str]]:
    """Tables the demonstrations listed, the columns they described, the rows they read, the tables they created."""
    created: set[str] = set()
    names: list[str] = []
    columns: dict[str, list[JSONDict]] = {}
    rows: dict[str, list[JSONDict]] = {}
    for demo in world.demonstrations:
        role = roles.get(demo.tool)
        if role is None or role.style != "sql" or demo.is_error:
            continue
        answer = _parsed(demo.response)
        table = next((str(demo.arguments[a]) for a in TABLE_ARGS if isinstance(demo.arguments.get(a), str)), None)
        statement = demo.arguments.get(role.query_arg or "") if role.query_arg else None
        if isinstance(statement, str):
            created |= {m.lower() for m in _CREATED.findall(statement)}
            one = _ONE_TABLE.match(statement)
            if one and isinstance(answer, list) and "(" not in one.group(1) and " JOIN " not in statement.upper():
                rows.setdefault(one.group(2), []).extend(r for r in answer if isinstance(r, dict))
        elif role.op == "list_tables" and isinstance(answer, list):
            for item in answer:
                name = next(iter(item.values()), None) if isinstance(item, dict) and len(item) == 1 else item
                if isinstance(name, str) and name not in names and not name.startswith("sqlite_"):
                    names.append(name)
        elif role.op == "describe_table" and table and isinstance(answer, list):
            described = [c for c in answer if isinstance(c, dict) and "name" in c and "type" in c]
            if described:
                columns.setdefault(table, described)
        elif role.op == "select_rows" and table and isinstance(answer, list):
            rows.setdefault(table, []).extend(r for r in answer if isinstance(r, dict))
    return names, columns, rows, created


def _parsed(response: Any) -> Any:
    if isinstance(response, str):
        try:
            return json.loads(response)
        except ValueError:
            return None
    return response


def _columns_of(rows: list[JSONDict]) -> list[JSONDict]:
    """Columns for a table only its rows showed: their keys and value types, ``id`` the key; else a rowid key."""
    seen: dict[str, Any] = {}
    for row in rows:
        for key, value in row.items():
            if seen.get(key) is None:
                seen[key] = value
    if not seen:
        return [{"name": "id", "type": "INTEGER", "notnull": 0, "dflt_value": None, "pk": 1}]
    return [{"name": k, "type": _type_of(v), "notnull": 0, "dflt_value": None, "pk": int(k == "id")}
            for k, v in seen.items()]


def _type_of(value: Any) -> str:
    if isinstance(value, bool) or isinstance(value, int):
        return "INTEGER"
    if isinstance(value, float):
        return "REAL"
    return "TEXT"


def _column_sql(column: JSONDict) -> str:
    parts = [quoted(str(column["name"])), str(column.get("type") or "")]
    if column.get("pk"):
        parts.append("PRIMARY KEY")
    if column.get("notnull"):
        parts.append("NOT NULL")
    default = column.get("dflt_value")
    if default is not None:
        parts.append(f"DEFAULT {default}")
    return " ".join(p for p in parts if p)


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    text = json.dumps(value) if isinstance(value, (dict, list)) else str(value)
    return "'" + text.replace("'", "''") + "'"


__all__ = ["seed_statements", "unshown_tables", "vocabulary"]
