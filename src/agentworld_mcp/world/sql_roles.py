"""Which tools speak SQL, and what each one does to the database.

A tool is a *query tool* when one of its string arguments carries a statement (``sql``,
``query``, ``statement``...) and the tool says so: the argument is named after SQL, or
the tool or argument description mentions SQL, a SQL database (SQLite, PostgreSQL,
MySQL...) or a statement keyword in capitals (``SELECT``, ``INSERT``). A plain
``query`` argument of a search tool ("search query") is not one.

A tool is a *table tool* when its name is a table or schema operation (``list_tables``,
``describe_table``, ``get_table_schema``, ``list_schemas``, ``createTable``, ``insert``
with a ``table`` argument...) and either its descriptions mention a SQL database or all
its arguments are table-shaped (``table_name``, ``columns``, ``data``, ``where``). That
keeps ``list_tables(baseId)`` of a spreadsheet service a record tool.

Both get (from :func:`agentworld_mcp.world.roles.infer_role`, which asks :func:`sql_operation`) a
:class:`~agentworld_mcp.world.roles.ToolRole` with ``style="sql"`` and an ``op``:
``read`` (SELECT only), ``write`` (no SELECT), ``query`` (any statement),
``create_table``, ``list_tables``, ``list_schemas``, ``describe_table``, ``drop_table``,
``insert``/``update``/``delete`` (rows given as arguments), ``create_index``,
``alter_table``. :mod:`agentworld_mcp.models.deterministic.sql` answers them from the episode's database.
This module sits below :mod:`agentworld_mcp.world.roles` and returns plain data, so the two never
import each other.
"""

from __future__ import annotations

import re
from typing import Any


JSONDict = dict[str, Any]

#: The ledger collection holding the episode's databases (one entity per database).
DB_COLLECTION = "sql_databases"
#: The one database of an episode (its key in that collection).
DB_NAME = "main"
#: Arguments that carry a SQL statement, most specific first.
SQL_ARGS = ("sql", "sql_query", "sqlQuery", "query_sql", "sql_statement", "statement", "query", "sqlStatement")
#: Arguments naming a table, a schema or parts of a row operation.
TABLE_ARGS = ("table_name", "tableName", "table", "name_of_table")
_TABLEISH = frozenset(TABLE_ARGS) | {
    "schema", "schema_name", "schemaName", "database", "db", "database_name", "columns", "data", "values", "where",
    "constraints", "indexName", "index_name", "unique", "type", "operation", "details", "if_exists", "ifExists",
    "row", "rows", "set", "filter", "limit", "include_views",
}
#: SQL databases and dialects, as catalogs name them -> sqlglot dialect.
DIALECTS: tuple[tuple[str, str], ...] = (
    (r"postgres(?:ql)?|psql|supabase|neon|timescale", "postgres"),
    (r"mysql|mariadb", "mysql"),
    (r"sqlite\d?", "sqlite"),
    (r"bigquery", "bigquery"),
    (r"snowflake", "snowflake"),
    (r"duckdb|motherduck", "duckdb"),
    (r"redshift", "redshift"),
    (r"clickhouse", "clickhouse"),
    (r"sql ?server|mssql|t-sql|tsql|azure sql", "tsql"),
    (r"oracle", "oracle"),
    (r"trino|presto|athena", "trino"),
)
_SQL_WORDS = re.compile(
    r"(?<![a-z])(?:sql|" + "|".join(p for p, _ in DIALECTS) + r")(?![a-z])", re.IGNORECASE)
_STATEMENT_WORDS = re.compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE TABLE|DDL|DML)\b")
_KEYWORD = re.compile(r"\b(?:keywords?|search terms?|terms?|text to (?:find|search))\b", re.IGNORECASE)
_DB_WORDS = re.compile(r"\bdatabases?\b|\bschemas?\b|\bcolumns?\b", re.IGNORECASE)
_READ_ONLY = re.compile(r"read[- ]?only|\bselect (?:sql )?(?:query|queries|statements?)\b|\bonly select\b", re.IGNORECASE)
_WRITES = re.compile(r"\b(?:insert|update|delete|modif\w*|writes?|ddl|dml|mutat\w*)\b", re.IGNORECASE)

#: op -> the role kind other stages (perturbation rules, guards) see.
#: The role kind (:data:`agentworld_mcp.world.roles.KINDS`) of each operation.
KIND_OF_OP: dict[str, str] = {
    "read": "search", "query": "action", "write": "update", "create_table": "create", "list_tables": "list",
    "list_schemas": "list", "describe_table": "read", "drop_table": "delete", "insert": "create",
    "update": "update", "delete": "delete", "create_index": "create", "alter_table": "update",
    "sample_rows": "search", "select_rows": "search", "database_info": "read", "create_database": "create",
}


def sql_operation(tool: JSONDict, tokens: list[str]) -> tuple[str, str | None] | None:
    """``(op, statement argument)`` of a tool that speaks SQL, or None; ``tokens`` are its name's words."""
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    text = _descriptions(tool, props)
    sql_arg = _statement_arg(tool, props, tokens)
    if sql_arg is not None and ("sql" in sql_arg.lower() or _SQL_WORDS.search(text) or _STATEMENT_WORDS.search(text)):
        return _query_op(tokens, tool.get("description") or "", tool.get("annotations") or {}), sql_arg
    op = _table_op(tokens, props)
    if op is None:
        return None
    if _SQL_WORDS.search(text) or _DB_WORDS.search(tool.get("description") or "") or set(props) <= _TABLEISH:
        return op, None
    return None


def _statement_arg(tool: JSONDict, props: JSONDict, tokens: list[str]) -> str | None:
    """The argument that may carry a statement; not a search tool's keyword ("Search for a keyword in all SQLite
    databases": its ``query`` is a search term)."""
    found = next((a for a in SQL_ARGS if _is_string(props.get(a))), None)
    if found is not None and "sql" not in found.lower() and tokens[:1] in (["search"], ["find"]) \
            and _KEYWORD.search(tool.get("description") or ""):
        return None
    return found


#: Words of a tool name that read a few of a table's rows, and that describe a table's columns.
_SAMPLE_WORDS = frozenset({"sample", "samples", "preview", "peek", "head", "rows", "browse"})
_DESCRIBE_WORDS = frozenset({"schema", "describe", "columns", "column", "structure", "info", "metadata",
                             "definition", "fields", "inspect"})
_CHANGING_VERBS = frozenset({"insert", "update", "delete", "add", "create", "drop", "remove", "write", "set",
                             "append", "alter", "rename", "truncate", "import", "load"})
_TABLE_WORDS = frozenset({"table", "tables", "schema", "schemas", "columns", "column", "database", "rows"})


def database_ops(tools: dict[str, JSONDict], tokens: dict[str, list[str]], sql_tools: set[str]
                 ) -> dict[str, tuple[str, str | None]]:
    """Tool name -> op for the table tools of a *database catalog* (one with a SQL statement tool, named in
    ``sql_tools``) that do not name SQL themselves: in such a catalog ``get_schema_info(table_name)`` describes
    a table of the same database, ``get_table_sample(table_name, limit)`` reads its rows and ``show_columns``
    lists its columns. A tool qualifies by its name's words (``tokens``) and its table argument, never by
    its exact name; a tool of a catalog without a statement tool is left to :func:`sql_operation`. A tool
    of such a catalog that takes a statement (``create_table(query)``, ``export_query(query, format)``) runs it,
    though its own description never says SQL. Values: ``(op, statement argument or None)``."""
    if not sql_tools:
        return {}
    ops: dict[str, tuple[str, str | None]] = {}
    for name, tool in tools.items():
        if name in sql_tools:
            continue
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        statement = _statement_arg(tool, props, tokens.get(name, []))
        if statement is not None:
            ops[name] = (_query_op(tokens.get(name, []), tool.get("description") or "", tool.get("annotations") or {}),
                         statement)
            continue
        op = _database_op(tokens.get(name, []), props)
        if op is not None:
            ops[name] = (op, None)
    return ops


#: Words of an argument-less tool that reports on the database as a whole (``db_info``, ``database_stats``).
_WHOLE_DB_WORDS = frozenset({"db", "database", "sqlite"})
_REPORT_WORDS = frozenset({"info", "stats", "status", "metadata", "summary", "details"})


def _database_op(tokens: list[str], props: JSONDict) -> str | None:
    names = set(tokens)
    whole = not props or set(props) <= set(DATABASE_PATH_ARGS)  # nothing but the database it acts on
    if whole and names & (_WHOLE_DB_WORDS | {"schema"}) and names & _REPORT_WORDS:
        return "database_info"
    if props and set(props) <= set(DATABASE_PATH_ARGS) and tokens[:1] == ["create"] and names & _WHOLE_DB_WORDS:
        return "create_database"  # ``create_database(db_path)``: a new, empty database file
    table_arg = any(a in props for a in TABLE_ARGS)
    if not (names & _TABLE_WORDS or table_arg):
        return None
    found = _table_op(tokens, props) or _record_op(tokens, props)
    if found is not None or (tokens and tokens[0] in _CHANGING_VERBS):  # a write this does not know stays a record
        return found
    if names & _SAMPLE_WORDS and table_arg:
        return "sample_rows"
    if names & _DESCRIBE_WORDS and (table_arg or not props):
        return "describe_table"
    return None


#: Verbs of a record tool of a database catalog (``create_record(table, data)``, ``read_records(table, conditions)``)
#: -> the row operation it is; arguments that carry a row's values and its selection, as objects.
_RECORD_VERBS = {"create": "insert", "add": "insert", "insert": "insert", "new": "insert",
                 "read": "select_rows", "get": "select_rows", "find": "select_rows", "list": "select_rows",
                 "select": "select_rows", "fetch": "select_rows", "search": "select_rows", "query": "select_rows",
                 "update": "update", "modify": "update", "edit": "update", "change": "update", "set": "update", "patch": "update",
                 "delete": "delete", "remove": "delete"}
ROW_ARGS = ("data", "values", "row", "record", "fields", "set")
#: Arguments naming the database a call acts on (its file or its name): never a column of a row.
DATABASE_ARGS = ("db_path", "dbPath", "database_path", "databasePath", "db_file", "database_file", "db",
                 "database", "db_name", "dbName", "database_name", "databaseName")
#: Those that name a database by its file: each path is a database of its own (an SQLite file).
DATABASE_PATH_ARGS = ("db_path", "dbPath", "database_path", "databasePath", "db_file", "database_file")
CONDITION_ARGS = ("conditions", "where", "filter", "filters", "criteria", "match")


def _record_op(tokens: list[str], props: JSONDict) -> str | None:
    """The row operation of a tool with a table argument and row objects, by its verb: in a catalog that also runs
    SQL its rows are the database's rows, so ``create_record(table, data)`` is an INSERT and ``read_records(table,
    conditions)`` a SELECT (the same database answers the statement tool and these)."""
    if not tokens or not any(a in props for a in TABLE_ARGS):
        return None
    op = _RECORD_VERBS.get(tokens[0])
    objects = {a for a in (*ROW_ARGS, *CONDITION_ARGS) if _is_object(props.get(a))}
    if op == "insert" and not objects & set(ROW_ARGS) and flat_columns(props):
        return op  # ``add_record(table_name, title, content)``: the row's columns are the arguments
    if op in ("insert", "update") and not objects & set(ROW_ARGS):
        return None
    if op in ("select_rows", "delete") and not objects & set(CONDITION_ARGS):  # a sample or a drop has no selection
        return None
    return op


def flat_columns(props: JSONDict) -> list[str]:
    """The arguments of a row tool that are the row's own columns: scalars other than the table and database."""
    return [a for a, schema in props.items() if a not in TABLE_ARGS and a not in DATABASE_ARGS
            and isinstance(schema, dict) and not _is_object(schema) and schema.get("type") != "array"]


def _is_object(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or (kind is None and "properties" in schema)


def dialect_of(text: str) -> str | None:
    """The SQL dialect ``text`` names first (``"Run a PostgreSQL query"`` -> ``postgres``)."""
    found: list[tuple[int, str]] = []
    for pattern, dialect in DIALECTS:
        match = re.search(r"(?<![a-z])(?:" + pattern + r")(?![a-z])", text, re.IGNORECASE)
        if match:
            found.append((match.start(), dialect))
    return min(found)[1] if found else None


def _descriptions(tool: JSONDict, props: JSONDict) -> str:
    parts = [tool.get("description") or "", tool.get("title") or ""]
    parts += [s.get("description") or "" for s in props.values() if isinstance(s, dict)]
    return " ".join(parts)


def _is_string(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def _query_op(tokens: list[str], description: str, annotations: JSONDict) -> str:
    names = set(tokens)
    if "create" in names and "table" in names:
        return "create_table"
    if names & {"read", "select"}:
        return "read"
    if names & {"write", "modify", "mutate", "update", "insert"}:
        return "write"
    reads = bool(_READ_ONLY.search(description)) or annotations.get("readOnlyHint") is True
    writes = bool(_WRITES.search(description))
    if reads and not writes:
        return "read"
    if writes and not reads and not re.search(r"\bselect\b|\bany\b|\barbitrary\b", description, re.IGNORECASE):
        return "write"
    return "query"


def _table_op(tokens: list[str], props: JSONDict) -> str | None:
    names = set(tokens)
    table = bool(names & {"table", "tables"})
    has_table_arg = any(a in props for a in TABLE_ARGS)
    verb = tokens[0] if tokens else ""
    if "tables" in names and verb in ("list", "show", "get", "all", "fetch", "tables"):
        return "list_tables"
    if names & {"schemas", "databases"} and verb in ("list", "show", "get", "schemas", "databases"):
        return "list_schemas"
    if table and (names & {"describe", "schema", "info", "columns", "structure", "inspect", "definition"}):
        return "describe_table"
    if table and verb == "create" and has_table_arg and "columns" in props:
        return "create_table"
    if table and verb in ("drop", "delete", "remove") and has_table_arg and "where" not in props:
        return "drop_table"
    if table and verb == "alter" and has_table_arg:
        return "alter_table"
    if verb == "create" and "index" in names and has_table_arg:
        return "create_index"
    if has_table_arg and verb in ("insert", "update", "delete") and (verb == "delete" or "data" in props
                                                                     or "values" in props or "row" in props):
        return verb
    return None
