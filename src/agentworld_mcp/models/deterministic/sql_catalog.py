"""The database's own catalog, in the keys a tool's description states: schemas, tables, a table's details.

Answered from the episode's SQLite database (:mod:`.sql_db`) and reported as the catalog's engine
reports it: ``information_schema`` names (``BASE TABLE``, ``character varying``), the engine's
default schema and its owner (``sql_engines.json``), index names and definitions as the engine makes
them (``customers_pkey``, ``CREATE UNIQUE INDEX ... USING btree (id)``) and a table's size in
``pg_size_pretty`` words (page-sized heap, index and toast files).
"""

from __future__ import annotations

import math
import re
from typing import Any

from .sql_db import Database, SQLFailure
from .sql_dialects import data_type, worded
from .sql_shapes import Stated

JSONDict = dict[str, Any]
_PAGE = 8192
#: Column types the engine stores out of line when long: a table with one gets a toast table and its index.
_UNBOUNDED = re.compile(r"^(TEXT|JSONB?|BYTEA|XML)$|^(VARCHAR|CHARACTER VARYING)$", re.IGNORECASE)


def _pick(stated: Stated, facts: JSONDict, aliases: dict[str, tuple[str, ...]]) -> JSONDict:
    """``facts`` under the stated keys (each key takes the fact it names or an alias of it; others null)."""
    out: JSONDict = {}
    for key in stated.keys:
        fact = next((f for f, names in aliases.items() if key == f or key in names), None)
        out[key] = facts.get(fact) if fact else None
    return out


_SCHEMA_ALIASES = {"schema_name": ("name", "schema", "nspname"), "owner": ("schema_owner", "nspowner")}
_TABLE_ALIASES = {"table_name": ("name", "table", "relname"), "table_type": ("type", "kind"),
                  "row_estimate": ("row_count", "rows", "estimated_rows", "n_live_tup", "count"),
                  "total_size": ("size", "table_size", "total_relation_size"),
                  "table_schema": ("schema", "schema_name")}


def schemas(stated: Stated, schema: str, owner: str | None) -> list[JSONDict]:
    return [_pick(stated, {"schema_name": schema, "owner": owner}, _SCHEMA_ALIASES)]


def tables(stated: Stated, db: Database, schema: str) -> list[JSONDict]:
    rows = []
    for table in sorted(db.tables()):
        count = int(db.query(f'SELECT count(*) AS n FROM "{table}"')[0]["n"])
        facts = {"table_name": table, "table_type": "BASE TABLE", "row_estimate": count,
                 "total_size": size_pretty(_total_size(db, table, count)), "table_schema": schema}
        rows.append(_pick(stated, facts, _TABLE_ALIASES))
    return rows


def _total_size(db: Database, table: str, count: int) -> int:
    """Heap pages for the rows, a metapage and a leaf per index, a toast index where a column is unbounded."""
    heap = math.ceil(count * 64 / _PAGE) * _PAGE if count else 0
    indexes = len(_indexes(db, table, "public"))
    toast = any(_UNBOUNDED.match(str(c["type"] or "TEXT").strip()) for c in db.columns(table))
    return heap + indexes * (2 * _PAGE if count else _PAGE) + (_PAGE if toast else 0)


def size_pretty(size: int) -> str:
    """``pg_size_pretty``: bytes under 10 kB, then kB, MB... rounded half up."""
    for unit in ("bytes", "kB", "MB", "GB"):
        if abs(size) < 10 * 1024:
            return f"{size} {unit}"
        size = (size + 512) // 1024
    return f"{size} TB"


def details(stated: Stated, db: Database, table: str, schema: str, dialect: str) -> JSONDict:
    """A table's columns, primary key, foreign keys and indexes, under the stated keys."""
    columns = db.columns(table)
    if not columns:  # the engine names the relation as it was looked up: schema-qualified
        raise SQLFailure(worded(f"no such table: {schema}.{table}", dialect).replace(f'"{table}"', f'"{schema}.{table}"'))
    primary = [c["name"] for c in sorted((c for c in columns if c["pk"]), key=lambda c: c["pk"])]
    foreign = [{"column": fk["from"], "references": f"{schema}.{fk['table']}.{fk['to'] or 'id'}"}
               for fk in db.query("SELECT * FROM pragma_foreign_key_list(?)", table)]
    facts = {
        "table": table, "schema": schema, "primary_key": primary, "foreign_keys": foreign,
        "columns": [_column(c, dialect) for c in columns],
        "indexes": [{"name": n, "definition": d} for n, d in sorted(_indexes(db, table, schema).items())],
    }
    return _pick(stated, facts, {"table": ("table_name", "name"), "schema": ("schema_name", "table_schema"),
                                 "columns": ("fields",), "primary_key": ("primary_keys", "pk"),
                                 "foreign_keys": ("fks",), "indexes": ("index",)})


#: ``information_schema.columns`` columns and the words by which a tool's description names them.
_COLUMN_FACTS: tuple[tuple[str, str], ...] = (
    ("data_type", r"\b(?:data )?types?\b"), ("is_nullable", r"\bnull"), ("column_default", r"\bdefaults?\b"),
    ("column_key", r"\b(?:primary )?keys?\b"), ("column_comment", r"\bcomments?\b"))


def described_facts(description: str) -> list[str] | None:
    """The ``information_schema.columns`` facts a tool's description lists ("column names, data types,
    nullability, default values"), or None when it lists fewer than two."""
    facts = [name for name, words in _COLUMN_FACTS if re.search(words, description, re.IGNORECASE)]
    return facts if len(facts) >= 2 else None


def information_columns(db: Database, tables: list[str], facts: list[str], dialect: str,
                        with_table: bool) -> list[JSONDict]:
    """Rows of ``information_schema.columns`` for ``tables``: the column's name and the ``facts``, the table's
    name first when several tables are listed; upper-case names as the MySQL family prints them."""
    rows = []
    for table in tables:
        unique = {r["name"] for index in db.query("SELECT name FROM pragma_index_list(?) WHERE \"unique\"", table)
                  for r in db.query("SELECT name FROM pragma_index_info(?)", index["name"])}
        for c in db.columns(table):
            kind = data_type(c["type"], dialect)
            every = {"table_name": table, "column_name": c["name"],
                     "data_type": kind.split("(")[0] if dialect == "mysql" else kind,
                     "is_nullable": "NO" if c["notnull"] or c["pk"] else "YES",
                     "column_default": _unquoted(c["dflt_value"]),
                     "column_key": "PRI" if c["pk"] else "UNI" if c["name"] in unique else "",
                     "column_comment": ""}
            names = (["table_name"] if with_table else []) + ["column_name"] + facts
            rows.append({(n.upper() if dialect == "mysql" else n): every[n] for n in names})
    return rows


def _unquoted(default: Any) -> Any:
    if isinstance(default, str) and len(default) > 1 and default[0] == default[-1] == "'":
        return default[1:-1].replace("''", "'")
    return default


def _column(column: JSONDict, dialect: str) -> JSONDict:
    declared = str(column["type"] or "")
    size = re.search(r"\(\s*(\d+)\s*\)", declared)
    char = re.match(r"\s*(VAR)?CHAR|CHARACTER", declared, re.IGNORECASE)
    kind = data_type(declared, dialect)
    return {"name": column["name"], "position": int(column["cid"]) + 1, "type": kind,
            "max_length": int(size.group(1)) if size and char else None,
            "nullable": not (column["notnull"] or column["pk"]), "default": _default(column["dflt_value"], kind)}


def _default(value: Any, kind: str) -> Any:
    """A column default as the engine's catalog prints it (``true`` for a boolean's 1)."""
    if value is None:
        return None
    text = str(value)
    if kind == "boolean" and text.upper() in ("1", "0", "TRUE", "FALSE"):
        return "true" if text.upper() in ("1", "TRUE") else "false"
    return text


def _indexes(db: Database, table: str, schema: str) -> dict[str, str]:
    """Index name -> definition, named as the engine names the indexes its constraints make."""
    out: dict[str, str] = {}
    pk = [c["name"] for c in db.columns(table) if c["pk"]]
    for index in db.query("SELECT * FROM pragma_index_list(?)", table):
        cols = [r["name"] for r in db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", index["name"])]
        origin = index["origin"]
        name = (f"{table}_pkey" if origin == "pk" else f"{table}_{'_'.join(cols)}_key" if origin == "u"
                else str(index["name"]))
        unique = "UNIQUE " if index["unique"] else ""
        out[name] = f"CREATE {unique}INDEX {name} ON {schema}.{table} USING btree ({', '.join(cols)})"
    if pk and f"{table}_pkey" not in out:  # an INTEGER PRIMARY KEY is SQLite's rowid: the engine indexes it
        out[f"{table}_pkey"] = f"CREATE UNIQUE INDEX {table}_pkey ON {schema}.{table} USING btree ({', '.join(pk)})"
    return out


__all__ = ["described_facts", "details", "information_columns", "schemas", "size_pretty", "tables"]
