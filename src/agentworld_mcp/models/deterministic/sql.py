"""SQL tools answered by a real database: one embedded SQLite database per episode.

Query tools (``read_query``, ``execute_sql``, ``query(sql)``) and table tools
(``list_tables``, ``describe_table``, ``createTable``...; see :mod:`.sql_roles`) run
against an in-memory SQLite database that belongs to the episode. Statements written
for another dialect (the catalog names it: PostgreSQL, MySQL, BigQuery...) are
translated to SQLite with sqlglot; answers and errors are worded as the real servers
word them (:class:`Convention`).

Where the database lives. It is one ledger entity, ``sql_databases/main``, whose fields
are its SQL dump (``{"name": "main", "dialect": "sqlite", "sql": [statements]}``). So
it is persisted, reset and listed with the rest of the episode by every store, with no
store code of its own, and a world seeds it like any other collection::

    seed:
      sql_databases:
        - name: main
          sql: ["CREATE TABLE users (id SERIAL PRIMARY KEY, name TEXT)",
                "INSERT INTO users (name) VALUES ('Ada')"]   # in the catalog's dialect

Why a dump in an effect. The deterministic model never changes the episode: it returns
effects, and the engine applies them only when the call succeeds. A call therefore runs
on a *copy* of the database (``backup`` of a cached pristine copy, microseconds), and a
call that changed it returns one ``update`` effect carrying the copy's new dump. A failed
statement returns no effect and leaves the database as it was, exactly like a rolled-back
transaction; a read returns no effect at all. The pristine copies are cached per dump, so
consecutive calls do not replay the dump.

This module answers the calls; :mod:`.sql_db` keeps the database and :mod:`.sql_dialects`
translates other dialects and words errors as they do.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from importlib import resources
from dataclasses import dataclass, field
from typing import Any, Literal

from ...state.ledger import Effect
from ...world.roles import ToolRole
from ...world.world import World
from ..base import Prediction, Step
from . import sql_catalog
from .sql_db import Database, Outcome, SQLFailure, database_key, open_database, remember
from .sql_dialects import (TYPED_DIALECTS, command, data_type, located, mysql_detail, mysql_strict, postgres_detail,
                           pyformat_placeholders, typed_value, worded)
from .sql_shapes import python_value, statement_answer, stated_keys
from .sql_show import mysql_describe, show_statement
from .sql_text import csv_text, rows_text
from ...world.sql_roles import CONDITION_ARGS, DB_COLLECTION, DB_NAME, ROW_ARGS, TABLE_ARGS, dialect_of, flat_columns
from .sql_stated import stated_table
from . import sql_info, sql_records, sql_seed

JSONDict = dict[str, Any]
_WRITE_PREFIXES = ("INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "REPLACE")


@dataclass(frozen=True)
class Convention:
    """How the catalog's server answers: its dialect, how it prints rows and errors."""

    #: sqlglot's name for the catalog's SQL (``sqlite``, ``postgres``, ``mysql``...).
    dialect: str
    #: ``repr``: Python's ``str(list_of_row_dicts)`` (the reference SQLite server);
    #: ``json``: ``JSON.stringify(rows, null, 2)`` (the reference Postgres server);
    #: ``tuples``: Python's ``str(cursor.fetchall())``, typed tuples (``[(1, True, datetime.date(2024, 1, 15))]``);
    #: ``csv``: a header line, then a line of comma-joined values per row (:mod:`.sql_text`).
    rows: Literal["repr", "json", "tuples", "csv"]
    #: ``text``: errors are text with ``isError`` false (``Database error: no such table: x``);
    #: ``error``: ``isError`` true, worded as the database words them.
    errors: Literal["text", "error"]
    error_prefix: str = "Database error: "
    #: ``driver``: values as the engine's usual driver gives them to a JSON server (node-postgres: dates as
    #: instants, exact numbers as strings); ``python``: as a Python server's ``json.dumps`` of its DB-API
    #: values (dates ``isoformat()``, decimals as floats).
    values: Literal["driver", "python"] = "driver"
    #: The engine's own catalog: the schema a new database has and who owns it.
    default_schema: str = DB_NAME
    schema_owner: str | None = None
    #: ``csv`` servers' sentences for a statement without rows (``{rowcount}`` filled in) and an empty result.
    write_message: str | None = None
    empty_message: str | None = None
    #: ``errors == "error"`` servers whose thrown text is ``error_prefix``, the driver's result code, the message
    #: (a Node server over node-sqlite3: ``Error: SQLITE_ERROR: near "x": syntax error``).
    lead: bool = False


@functools.cache
def _engines() -> JSONDict:
    """Engine family -> how its most common servers answer (``sql_engines.json``, data, not code)."""
    return dict(json.loads(resources.files(__package__).joinpath("sql_engines.json").read_text(encoding="utf-8")))


def python_server(world: World) -> bool:
    """Whether the catalog was listed by a Python server whose tools return their own text: its input
    schemas are pydantic's (``"title": "<tool>Arguments"``) or its output is the wrapper of a ``str``
    result (``{"result": string}``). Such servers print Python values and catch database errors as text."""
    for tool in world.tools:
        schema = tool.get("inputSchema") or {}
        out = tool.get("outputSchema") or {}
        if str(schema.get("title", "")).endswith("Arguments"):
            return True
        if set(out.get("properties") or {}) == {"result"} and str(out.get("title", "")).endswith("Output"):
            return True
    return False


def convention(world: World) -> Convention:
    """The catalog's SQL convention: demonstrations first, else what the catalog's listing shows of its
    server, else the habits of its engine family's common servers (``sql_engines.json``)."""
    text = " ".join([world.name, world.scenario] + [f"{t.get('name', '')} {t.get('description') or ''}"
                                                     for t in world.tools])
    named = dialect_of(text)
    dialect = named or "sqlite"  # SQL of no named dialect runs as it is
    table = _engines()
    habits: JSONDict = _variant(table["engines"].get(named or "", table["other"]), world)
    rows: Literal["repr", "json", "tuples", "csv"] = habits["rows"]
    errors: Literal["text", "error"] = habits["errors"]
    prefix = str(habits["error_prefix"])
    values: Literal["driver", "python"] = "driver"
    if python_server(world) and named not in ("sqlite", "duckdb"):
        errors, values = "text", "python"  # a Python tool catches the driver's error and returns it as its text
    from ...world.roles import infer_role

    for demo in world.demonstrations:
        tool = world.tool(demo.tool)
        if tool is None or infer_role(tool).style != "sql" or not isinstance(demo.response, str):
            continue
        response = demo.response.strip()
        match = re.match(r"([A-Za-z ]*error: )", response, re.IGNORECASE)
        if demo.is_error:
            errors = "error"
        elif match:
            errors, prefix = "text", match.group(1)
        elif response in ("[]", "{}"):  # an empty answer says nothing of how rows print
            continue
        elif response.startswith("[("):  # a DB-API cursor's fetchall() printed: rows are typed tuples
            rows = "tuples"
        elif response.startswith(("[{'", "{'")):
            rows = "repr"
        elif response.startswith(("[", "{")):
            rows = "json"
    return Convention(dialect, rows, errors, prefix, values, str(habits["default_schema"]),
                      habits.get("schema_owner"), habits.get("write_message"), habits.get("empty_message"),
                      bool(habits.get("lead")) and errors == "error")


def node_server(world: World) -> bool:
    """Whether the catalog was listed by a Node server: zod's JSON Schema names its draft (``"$schema"``) in
    every input schema, where Python SDKs never do."""
    schemas = [t.get("inputSchema") or {} for t in world.tools]
    return bool(schemas) and all("$schema" in s for s in schemas)


def _variant(habits: JSONDict, world: World) -> JSONDict:
    """The family's habits, or those of the first of its other common servers the catalog shows (the name of
    its SQL tool's statement argument)."""
    from ...world.roles import infer_role

    statement_args = {role.query_arg for role in map(infer_role, world.tools) if role.style == "sql" and role.query_arg}
    for variant in habits.get("variants") or ():
        if variant.get("listing") == "node" and node_server(world):
            return {**habits, **{k: v for k, v in variant.items() if k not in ("about", "listing")}}
        if statement_args and statement_args <= set(variant.get("statement_arg") or ()):
            return {**habits, **{k: v for k, v in variant.items() if k not in ("about", "statement_arg")}}
    return habits


# -- the episode's database -----------------------------------------------------------------------


def predict_sql(step: Step, role: ToolRole) -> Prediction:
    """The database's answer to ``step`` and, when it changed the database, its new dump as an effect."""
    conv = step.derived("sql_convention", lambda: convention(step.world))  # once per catalog
    db = open_database(step, conv.dialect, typed=conv.values == "driver")
    try:
        _absent(step, role, db)
        body = _OPS.get(role.op or "query", _query)(step, role, db, conv)
    except _Worded as worded:
        db.conn.close()
        return Prediction(worded.text, is_error=worded.is_error, effects=[], info={"failure": True})
    except (SQLFailure, _Refused, ValueError, OverflowError) as exc:  # the copy is thrown away, as a rollback
        message = str(exc)
        # Postgres's LINE/caret and DETAIL lines are in the text a Python driver's error prints (psycopg's
        # str(error)); a JavaScript server's error.message is the first line only.
        located_here = conv.dialect not in TYPED_DIALECTS or conv.values == "python"
        if (isinstance(exc, SQLFailure) and located_here and role.query_arg
                and isinstance(step.arguments.get(role.query_arg), str)):
            message = located(message, step.arguments[role.query_arg], conv.dialect)
            if conv.dialect in TYPED_DIALECTS:
                message = postgres_detail(message, step.arguments[role.query_arg], db.columns)
            elif conv.dialect == "mysql":
                message = mysql_detail(message, step.arguments[role.query_arg], db.columns, db.query)
        db.conn.close()  # ValueError/OverflowError: sqlite3 refusing a NUL in the SQL or a huge integer value
        return _error(step, conv, message, database=isinstance(exc, SQLFailure))
    except BaseException:
        db.conn.close()
        raise
    effects: list[Effect] = []
    key = database_key(step)
    made = role.op == "create_database" and key != DB_NAME and step.episode.ledger.get(DB_COLLECTION, key) is None
    if db.changed or made:  # a new database file is stored though it holds nothing yet
        dump = db.dump()
        remember(db.conn, "sqlite", dump, dump)  # the next call starts from this copy, not from the dump
        existing = step.episode.ledger.get(DB_COLLECTION, key) is not None
        effects.append(Effect("update" if existing else "create", DB_COLLECTION, key,
                              {"name": key, "dialect": "sqlite", "sql": dump}))
    else:
        db.conn.close()
    return _answer(step, conv, body, effects)


class _Refused(Exception):
    """The server refused the call before reaching the database (wrong kind of statement)."""


class _Worded(_Refused):
    """A refusal worded as a demonstration of the server words it: its whole text, and its ``isError`` flag."""

    def __init__(self, text: str, is_error: bool) -> None:
        super().__init__(text)
        self.text, self.is_error = text, is_error


@dataclass
class _Body:
    """An answer before rendering: rows or a message, and counts for structured outputs."""

    rows: list[JSONDict] | None = None
    value: Any = None  # a non-row JSON answer ({command, rowCount, rows})
    message: str | None = None
    count: int | None = None
    columns: list[str] = field(default_factory=list)
    text: str | None = None  # the answer already printed (typed tuples)


def _statement(step: Step, role: ToolRole) -> str:
    value = step.arguments.get(role.query_arg or "") if role.query_arg else None
    if not isinstance(value, str) or not value.strip():
        raise _Refused(f"Missing {role.query_arg or 'query'} argument")
    if _params(step) is not None and "%s" in value:  # a Python driver's placeholders: bind them as SQLite's
        return pyformat_placeholders(value)
    return value


def _params(step: Step) -> list[Any] | None:
    """Values for the statement's ``?`` placeholders (``params: [...]`` beside the SQL), if the call gives them."""
    for name in ("params", "parameters", "args", "bindings", "values"):
        value = step.arguments.get(name)
        if isinstance(value, list):
            return [json.dumps(v) if isinstance(v, (dict, list)) else v for v in value]
    return None


def _read(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    # a CTE is a read where the description says the tool takes one (WITH ... SELECT)
    reads = ("SELECT", "WITH") if re.search(r"\bCTEs?\b|\bWITH\b", step.tool.description or "") else ("SELECT",)
    said = step.derived("sql_wording", lambda: sql_records.wording(step.world))
    if said.read_only is not None and not sql.strip().upper().startswith(reads):
        raise _Worded(*said.read_only)  # the server's own refusal, word for word (a demonstration's)
    if conv.errors == "text" and not sql.strip().upper().startswith(reads):
        raise _Refused(f"Only SELECT queries are allowed for {step.tool.name}")
    outcome = _run(db, sql, step, conv)
    if db.changed:  # a read-only transaction refuses writes
        raise SQLFailure(_READ_ONLY.get(conv.dialect, "attempt to write a readonly database").format(
            outcome.command or command(sql)))
    return (_stated(step, db, sql, outcome, conv) or _tuples(db, sql, outcome, conv) or _lines(db, sql, outcome, conv)
            or _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns))


_READ_ONLY = {"postgres": "cannot execute {} in a read-only transaction",
              "redshift": "cannot execute {} in a read-only transaction",
              "mysql": "Cannot execute statement in a READ ONLY transaction."}


def _write(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    if conv.errors == "text" and sql.strip().upper().startswith("SELECT"):
        raise _Refused(f"SELECT queries are not allowed for {step.tool.name}")
    outcome = _run(db, sql, step, conv)
    return (_stated(step, db, sql, outcome, conv) or _tuples(db, sql, outcome, conv) or _lines(db, sql, outcome, conv)
            or _result(outcome, conv, sql))


def _query(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    outcome = _run(db, sql, step, conv)
    return (_stated(step, db, sql, outcome, conv) or _tuples(db, sql, outcome, conv) or _lines(db, sql, outcome, conv)
            or _result(outcome, conv, sql))


def _run(db: Database, sql: str, step: Step, conv: Convention) -> Outcome:
    """The statement's outcome: a catalog statement the family has and SQLite lacks (``SHOW TABLES``), else
    the database's."""
    if conv.dialect == "mysql" and (refused := mysql_strict(sql, db.columns)):
        raise SQLFailure(refused)
    return show_statement(sql, db, conv.dialect) or db.run(sql, _params(step))


def _stated(step: Step, db: Database, sql: str, outcome: Outcome, conv: Convention) -> _Body | None:
    """The outcome in the keys the tool's description states, values as the server prints them; None when
    the description states none."""
    stated = stated_keys(step.tool.description)
    if stated is None or stated.array:
        return None
    rows = _values(db, sql, outcome, conv)
    elapsed = round(0.2 + step.rng.random(), 2)  # a duration the recording cannot determine
    value = statement_answer(stated, columns=outcome.columns, rows=rows, command=outcome.command or command(sql),
                             rowcount=outcome.rowcount, elapsed=elapsed)
    return _Body(rows=rows, value=value, count=len(rows), columns=outcome.columns)


def _values(db: Database, sql: str, outcome: Outcome, conv: Convention) -> list[JSONDict]:
    """Rows with each value as the server prints it: a Python server's DB-API values made JSON, else as read."""
    if conv.values != "python" or not outcome.rows:
        return outcome.rows
    declared = _declared_types(db, sql)
    return [{c: python_value(typed_value(row[c], declared.get(c.lower()))) for c in outcome.columns}
            for row in outcome.rows]


def _tuples(db: Database, sql: str, outcome: Outcome, conv: Convention) -> _Body | None:
    """The answer as a DB-API server prints ``cursor.fetchall()``: typed tuples, ``[(n,)]`` for a write, ``[]``
    for a definition; None for other conventions."""
    if conv.rows != "tuples":
        return None
    if not outcome.columns:
        writes = outcome.command.split()[:1] in (["INSERT"], ["UPDATE"], ["DELETE"], ["REPLACE"])
        rows: list[tuple[Any, ...]] = [(max(outcome.rowcount, 0),)] if writes else []
        return _Body(rows=[], count=len(rows), text=repr(rows))
    declared = _declared_types(db, sql)
    typed = [tuple(typed_value(row[c], declared.get(c.lower())) for c in outcome.columns) for row in outcome.rows]
    return _Body(rows=outcome.rows, count=len(typed), columns=outcome.columns, text=repr(typed))


def _lines(db: Database, sql: str, outcome: Outcome, conv: Convention) -> _Body | None:
    """The answer of a server that prints lines: a header and a line per row, else its sentence for a statement
    without rows or a query that found none; None for other conventions."""
    if conv.rows != "csv":
        return None
    if not outcome.columns:
        count = max(outcome.rowcount, 0)
        return _Body(rows=[], count=count, text=(conv.write_message or "{rowcount}").format(rowcount=count))
    if not outcome.rows and conv.empty_message:
        return _Body(rows=[], count=0, columns=outcome.columns, text=conv.empty_message)
    text = csv_text(outcome.columns, outcome.rows, _declared_types(db, sql))
    return _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns, text=text)


def _declared_types(db: Database, sql: str) -> dict[str, str]:
    """Column name -> declared type, the tables the statement names first (a result column keeps its type)."""
    tables = db.tables()
    named = [t for t in tables if re.search(rf"\b{re.escape(t)}\b", sql, re.IGNORECASE)]
    types: dict[str, str] = {}
    for table in named + [t for t in tables if t not in named]:
        for column in db.columns(table):
            types.setdefault(str(column["name"]).lower(), str(column["type"] or ""))
    return types


def _result(outcome: Outcome, conv: Convention, sql: str) -> _Body:
    """A statement's result: rows for a query, the write's counts for the rest, per convention."""
    writes = sql.strip().upper().startswith(_WRITE_PREFIXES) and not outcome.columns
    if not writes:
        return _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns)
    if conv.rows == "json" and conv.dialect == "sqlite":  # a Node driver's all(): a statement's rows, none for a write
        return _Body(rows=outcome.rows, count=max(outcome.rowcount, 0), columns=outcome.columns)
    if conv.rows == "repr":  # mcp-server-sqlite: [{'affected_rows': N}]
        return _Body(rows=[{"affected_rows": outcome.rowcount}], count=outcome.rowcount)
    if conv.dialect == "mysql":  # mysql2's ResultSetHeader
        affected = max(outcome.rowcount, 0)
        update = outcome.command == "UPDATE"
        return _Body(value={"fieldCount": 0, "affectedRows": affected,
                            "insertId": (outcome.lastrowid or 0) if outcome.command in ("INSERT", "REPLACE") else 0,
                            "info": f"Rows matched: {affected}  Changed: {affected}  Warnings: 0" if update else "",
                            "serverStatus": 2, "warningStatus": 0, "changedRows": affected if update else 0},
                     count=affected)
    count = outcome.rowcount if outcome.rowcount >= 0 and not outcome.command.startswith(("CREATE", "DROP", "ALTER")) else None
    return _Body(value={"command": outcome.command.split()[0], "rowCount": count, "rows": outcome.rows},
                 count=count or 0)


def _create_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    if role.query_arg:
        sql = _statement(step, role)
        if not sql.strip().upper().startswith("CREATE TABLE"):
            raise _Refused("Only CREATE TABLE statements are allowed")
        db.run(sql)
        return _Body(message="Table created successfully")
    table = _table_arg(step)
    columns = step.arguments.get("columns") or []
    parts = []
    for col in columns:
        if isinstance(col, dict):
            extra = f" {col['constraints']}" if col.get("constraints") else ""
            parts.append(f"{col.get('name')} {col.get('type', '')}{extra}".rstrip())
        elif isinstance(col, str):
            parts.append(col)
    constraints = step.arguments.get("constraints")
    tail = ", " + ", ".join(str(c) for c in constraints) if isinstance(constraints, list) and constraints else ""
    sql = f"CREATE TABLE {table} ({', '.join(parts)}{tail})"
    db.run(sql)
    if conv.rows == "repr":
        return _Body(message="Table created successfully")
    return _Body(value={"message": f"Table {table} created successfully", "sql": sql})


def _names_table(step: Step) -> bool:
    """Whether the call names a table (a tool whose table argument is optional lists them all without one)."""
    required = (step.tool.input_schema or {}).get("required") or []
    return any(isinstance(step.arguments.get(a), str) and step.arguments[a] for a in TABLE_ARGS) or any(
        a in required for a in TABLE_ARGS)


def _table_of(step: Step, db: Database) -> str:
    """The table the call names; ``database.table`` is the table where the database is the episode's only one."""
    table = _table_arg(step)
    if "." in table and table not in db.tables():
        return table.rsplit(".", 1)[1].strip("`\"")
    return table


def _sample_rows(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    """A few of a table's rows, as the catalog's SQL tool prints a ``SELECT``; a missing table fails as a query on it."""
    table = _table_of(step, db)
    quote = "`" if conv.dialect in ("mysql", "bigquery") else '"'
    sql = f"SELECT * FROM {quote}{table.replace(quote, quote * 2)}{quote} LIMIT {_sample_size(step)}"
    outcome = db.run(sql)
    return _lines(db, sql, outcome, conv) or _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns)


def _sample_size(step: Step) -> int:
    """The call's row count, else its argument's default (declared, or "default 5" in its description), else 5."""
    props: JSONDict = (step.tool.input_schema or {}).get("properties") or {}
    for name in ("limit", "n", "count", "rows", "num_rows", "max_rows", "sample_size", "size", "top"):
        schema = props.get(name)
        if not isinstance(schema, dict):
            continue
        given = step.arguments.get(name)
        if isinstance(given, int) and not isinstance(given, bool) and given >= 0:
            most = re.search(r"\bmax(?:imum)?\.? (\d+)", schema.get("description") or "")
            return min(given, int(most.group(1))) if most else given
        if isinstance(schema.get("default"), int):
            return int(schema["default"])
        stated = re.search(r"\bdefault(?:s to|:)? (\d+)", schema.get("description") or "", re.IGNORECASE)
        if stated:
            return int(stated.group(1))
    return 5


def _table_arg(step: Step) -> str:
    table = next((step.arguments[a] for a in TABLE_ARGS if isinstance(step.arguments.get(a), str)), None)
    if not table:
        raise _Refused("Missing table_name argument")
    return str(table)


def _list_tables(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    stated = stated_keys(step.tool.description)
    if stated is not None:
        rows = sql_catalog.tables(stated, db, _schema_arg(step, conv))
        return _Body(rows=rows, count=len(rows))
    if conv.rows == "repr":  # the reference server's own query, sqlite_sequence included
        rows = db.query("SELECT name FROM sqlite_master WHERE type='table'")
    elif conv.dialect == "mysql":  # SHOW TABLES
        rows = [{f"Tables_in_{DB_NAME}": t} for t in db.tables()]
    elif conv.dialect == "sqlite":  # sqlite_master's own column, user tables only
        rows = [{"name": t} for t in db.tables()]
    else:
        rows = [{"table_name": t} for t in db.tables()]
    return _Body(rows=rows, count=len(rows))


def _schema_arg(step: Step, conv: Convention) -> str:
    value = next((step.arguments[a] for a in ("schema", "schema_name", "schemaName")
                  if isinstance(step.arguments.get(a), str)), None)
    return value or conv.default_schema


def _list_schemas(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    if held_by_path(step):  # databases are files: those the episode holds in the directory named
        folder = next((str(v) for v in step.arguments.values() if isinstance(v, str) and v.strip()), "")
        rows = [{"name": posixpath.basename(name)} for name in database_files(step, folder)]
        return _Body(rows=rows, count=len(rows))
    stated = stated_keys(step.tool.description)
    if stated is not None:
        rows = sql_catalog.schemas(stated, conv.default_schema, conv.schema_owner)
        return _Body(rows=rows, count=len(rows))
    name = "public" if conv.dialect in ("postgres", "redshift") else DB_NAME
    return _Body(rows=[{"schema_name": name}], count=1)


def _describe_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    facts = sql_catalog.described_facts(step.tool.description or "")
    if facts is not None and not _names_table(step):  # "omit table_name to see all tables": every column
        rows = sql_catalog.information_columns(db, db.tables(), facts, conv.dialect, with_table=True)
        return _Body(rows=rows, count=len(rows))
    table = _table_of(step, db)
    stated = stated_keys(step.tool.description)
    if stated is not None and not stated.array:
        return _Body(value=sql_catalog.details(stated, db, table, _schema_arg(step, conv), conv.dialect))
    if facts is not None:
        if not db.columns(table):
            raise SQLFailure(worded(f"no such table: {table}", conv.dialect))
        rows = sql_catalog.information_columns(db, [table], facts, conv.dialect, with_table=False)
        return _Body(rows=rows, count=len(rows))
    if conv.rows == "repr":  # the reference server interpolates the name into PRAGMA, errors and all
        return _Body(rows=db.run(f"PRAGMA table_info({table})").rows)
    columns = db.columns(table)
    said = step.derived("sql_wording", lambda: sql_records.wording(step.world))
    if not columns and said.missing_table:  # the server's own check, as its demonstrations word it
        raise _Refused(said.missing_table.format(table=table))
    if not columns:
        raise SQLFailure(worded(f"no such table: {table}", conv.dialect))
    if conv.rows == "json" and conv.dialect == "sqlite":  # a JSON server prints PRAGMA table_info's rows
        return _Body(rows=columns, count=len(columns))
    if conv.dialect == "mysql":
        return _Body(rows=mysql_describe(db, table, columns), count=len(columns))
    rows = [{"column_name": c["name"], "data_type": data_type(c["type"], conv.dialect),
             "is_nullable": "NO" if c["notnull"] or c["pk"] else "YES", "column_default": c["dflt_value"]}
            for c in columns]
    return _Body(rows=rows, count=len(rows))


def _drop_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    table = _table_arg(step)
    db.run(f"DROP TABLE {table}")
    return _Body(message=f"Table {table} dropped successfully")


def _row_op(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    """insert/select/update/delete with the row and its selection as arguments, as servers build them
    (``... RETURNING *``); a learned answer template words the outcome as the server does (:mod:`.sql_records`)."""
    table = _table_arg(step)
    said = step.derived("sql_wording", lambda: sql_records.wording(step.world))
    data = sql_records.first_object(step.arguments, ROW_ARGS)
    if data is None and role.op == "insert":  # ``add_record(table_name, title, content)``: a row of arguments
        data = {a: step.arguments[a] for a in flat_columns(step.tool.input_schema.get("properties") or {})
                if step.arguments.get(a) is not None}
        if table not in db.tables() and (stated := stated_table(step.tool.description, table, list(data))) is not None:
            db.run(stated)  # "If the table doesn't exist, it will be created with columns: id, title, ..."
    selection = sql_records.first_object(step.arguments, CONDITION_ARGS)
    where, where_params = sql_records.where_clause(selection)
    returning = " RETURNING *"
    if selection == {} and role.op in ("update", "delete"):  # the server joins no conditions after its WHERE
        where, returning = " WHERE ", ""  # SQLite: "incomplete input", as the server's own statement gets
    _checked(step, table, data, db, said)
    params = list(data.values()) if isinstance(data, dict) else []
    name = sql_records.quoted(table)
    if role.op == "insert":
        cols = ", ".join(map(sql_records.quoted, data)) if isinstance(data, dict) else ""
        sql = f"INSERT INTO {name} ({cols}) VALUES ({', '.join('?' for _ in params)}) RETURNING *"
    elif role.op == "update":
        sets = ", ".join(f"{sql_records.quoted(c)} = ?" for c in data) if isinstance(data, dict) else ""
        sql = f"UPDATE {name} SET {sets}{where}{returning}"
        params += where_params
    elif role.op == "select_rows":
        limit, offset = step.arguments.get("limit"), step.arguments.get("offset")
        page = (f" LIMIT {int(limit)}" if isinstance(limit, (int, float)) and not isinstance(limit, bool) else
                " LIMIT -1" if isinstance(offset, (int, float)) else "")
        page += f" OFFSET {int(offset)}" if isinstance(offset, (int, float)) and not isinstance(offset, bool) else ""
        sql, params = f"SELECT * FROM {name}{where}{page}", where_params
    else:
        sql, params = f"DELETE FROM {name}{where}{returning}", where_params
    columns, rows, cursor = db.execute(sql, [json.dumps(p) if isinstance(p, (dict, list)) else p for p in params])
    template = said.templates.get(step.tool.name)
    if template is not None and role.op != "select_rows":
        lastrowid = cursor.lastrowid if role.op == "insert" else None
        value = sql_records.filled(template, lastrowid, len(rows))
        # the server's own answer object, printed as JSON (a Python family's repr is for the driver's rows)
        printed = json.dumps(value, indent=said.indents.get(step.tool.name, 2))
        return _Body(value=value, count=len(rows), text=printed)
    if conv.rows == "repr" and role.op != "select_rows":
        return _Body(rows=[{"affected_rows": len(rows)}], count=len(rows))
    return _Body(rows=rows, count=len(rows), columns=columns)


def _checked(step: Step, table: str, data: Any, db: Database, said: sql_records.Wording) -> None:
    """The server's own checks before its statement, where the demonstrations show how it words them."""
    from .common import entity_model  # here, as the seed's reader imports it: common imports this module

    arguments = step.arguments
    if said.missing_table and table not in db.tables():
        raise _Refused(said.missing_table.format(table=table))
    known = {str(c["name"]) for c in db.columns(table)}
    conditions = sql_records.first_object(arguments, CONDITION_ARGS)
    given = [*(data or {})] + [*(conditions if isinstance(conditions, dict) else {})] \
        if isinstance(data, (dict, type(None))) else []
    if table in step.derived("sql_unshown", lambda: sql_seed.unshown_tables(step.world, entity_model(step).roles)):
        # A table the recording listed but never described: a column the session's vocabulary names is taken
        # for one of its columns (added now), one it never named is refused as the server refuses it.
        words = step.derived("sql_vocabulary", lambda: sql_seed.vocabulary(step.world))
        for column in dict.fromkeys(str(c) for c in given if str(c) not in known and str(c) in words):
            db.run(f"ALTER TABLE {sql_records.quoted(table)} ADD COLUMN {sql_records.quoted(column)}")
            known.add(column)
    if said.missing_column:
        unknown = next((str(c) for c in given if str(c) not in known), None)
        if unknown is not None:
            raise _Refused(said.missing_column.format(table=table, column=unknown))


def _database_info(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    """A report on the whole database: the recorded report's shape, its table count the database's now."""
    template = sql_info.latest_report(step.world, step.tool.name)
    return _Body(value=sql_info.database_report(template, [t for t in db.tables() if not t.startswith("sqlite_")]))


def _create_index(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    table = _table_arg(step)
    name = step.arguments.get("indexName") or step.arguments.get("index_name") or f"{table}_idx"
    columns = step.arguments.get("columns") or []
    unique = "UNIQUE " if step.arguments.get("unique") else ""
    where = f" WHERE {step.arguments['where']}" if step.arguments.get("where") else ""
    sql = f"CREATE {unique}INDEX {name} ON {table} ({', '.join(str(c) for c in columns)}){where}"
    db.run(sql)
    return _Body(value={"message": f"Index {name} created successfully", "sql": sql}
                 if conv.rows == "json" else None, message=f"Index {name} created successfully")


def _alter_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    table = _table_arg(step)
    sql = f"ALTER TABLE {table} {step.arguments.get('operation', '')} {step.arguments.get('details', '')}".strip()
    db.run(sql)
    return _Body(value={"message": f"Table {table} altered successfully", "sql": sql}
                 if conv.rows == "json" else None, message=f"Table {table} altered successfully")


def _create_database(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    """A new, empty database at the path named; one the episode holds already is kept as it is."""
    return _Body(message=f"Database created at {database_key(step)}")


def _absent(step: Step, role: ToolRole, db: Database) -> None:
    """The tool's own refusal of a database file or a table that is not there, where its demonstrations word
    one (``Database file not found at {database}``, ``Error describing table {table}: no such table: {table}``)."""
    said = step.derived("sql_wording", lambda: sql_records.wording(step.world))
    found = said.absent.get(step.tool.name)
    if found is None or role.op == "create_database":
        return
    template, is_error = found
    key = database_key(step)
    if "{database}" in template and key != DB_NAME and step.episode.ledger.get(DB_COLLECTION, key) is None:
        raise _Worded(template.replace("{database}", key), is_error)
    table = next((str(v) for a in TABLE_ARGS if isinstance(v := step.arguments.get(a), str) and v), None)
    if "{table}" in template and table is not None and table not in db.tables():
        raise _Worded(template.replace("{table}", table), is_error)


def held_by_path(step: Step) -> bool:
    """Whether the catalog names its databases by file path (a tool with a ``db_path``-like argument)."""
    from ...world.sql_roles import DATABASE_PATH_ARGS

    return any(a in (t.get("inputSchema") or {}).get("properties", {}) for t in step.world.tools
               for a in DATABASE_PATH_ARGS)


def database_files(step: Step, folder: str) -> list[str]:
    """The databases the episode holds directly in ``folder`` (all of them for an empty folder)."""
    from ...world.roles import normalise_path

    base = normalise_path(folder.strip()) if folder.strip() else ""
    names = [e.key for e in step.episode.ledger.items(DB_COLLECTION) if e.key != DB_NAME]
    return [n for n in names if not base or posixpath.dirname(n) == base.rstrip("/")]


_OPS = {
    "read": _read, "write": _write, "query": _query, "create_table": _create_table, "list_tables": _list_tables,
    "list_schemas": _list_schemas, "describe_table": _describe_table, "drop_table": _drop_table,
    "insert": _row_op, "update": _row_op, "delete": _row_op, "select_rows": _row_op, "create_index": _create_index,
    "alter_table": _alter_table, "sample_rows": _sample_rows, "database_info": _database_info,
    "create_database": _create_database,
}


# -- rendering ------------------------------------------------------------------------------------


def render_rows(rows: Any, conv: Convention) -> str:
    """Rows as the server prints them: ``str(rows)`` (Python servers) or ``JSON.stringify(rows, null, 2)``."""
    if conv.rows == "repr":
        return str(rows)
    if conv.rows == "csv" and isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
        return (rows_text(rows) if rows or not conv.empty_message else conv.empty_message)
    if conv.values == "python":  # json.dumps as a Python server calls it
        return json.dumps(rows, ensure_ascii=False, default=str)
    return json.dumps(rows, indent=2, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"type": "Buffer", "data": list(value)}
    return str(value)


def _answer(step: Step, conv: Convention, body: _Body, effects: list[Effect]) -> Prediction:
    if body.text is not None:
        text = body.text
    elif body.value is not None:
        text = render_rows(body.value, conv)
    elif body.rows is not None:
        text = render_rows(body.rows, conv)
    else:
        text = body.message or ""
    out = step.tool.output_schema
    if not out:
        return Prediction(text, effects=effects)
    return Prediction(_structured(step, body, text), effects=effects)


def _structured(step: Step, body: _Body, text: str) -> Any:
    """The answer in the tool's outputSchema: rows in its array, counts in its count fields, else text."""
    from .common import conform

    out = step.tool.output_schema or {}
    props: JSONDict = out.get("properties") or {}
    result: JSONDict = {}
    rows = body.rows if body.rows is not None else (body.value or {}).get("rows") if isinstance(body.value, dict) else None
    for name, schema in props.items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        items = schema.get("items") if isinstance(schema, dict) else None
        if kind == "array" and rows is not None and name.lower() not in ("columns", "column_names", "fields"):
            result.setdefault(name, rows)
        elif kind == "array" and isinstance(items, dict) and items.get("type") == "string":
            result[name] = body.columns or (list(rows[0]) if rows else [])
        elif kind in ("integer", "number") and re.search(r"count|rows|total|affected", name, re.IGNORECASE):
            result[name] = body.count if body.count is not None else len(rows or [])
        elif kind == "boolean" and name in ("success", "ok"):
            result[name] = True
        elif kind == "string" and name in ("result", "content", "text", "output", "message", "data"):
            result[name] = text
    if isinstance(body.value, dict):
        for name, value in body.value.items():
            if name in props:
                result.setdefault(name, value)
    return conform(result, out, step.rng)


def _error(step: Step, conv: Convention, message: str, *, database: bool) -> Prediction:
    """An error as the server words it: ``Database error: ...`` text, or ``isError`` with the database's words."""
    said = step.derived("sql_wording", lambda: sql_records.wording(step.world))
    if conv.errors == "error" and (said.leads or said.codes or conv.lead):  # a server that prefixes what it throws
        code = f"{sql_records.result_code(message)}: " if database and (said.codes or conv.lead) else ""
        lead = said.leads.get(step.tool.name, conv.error_prefix if conv.lead or said.codes else "")
        return Prediction(f"{lead}{code}{message}", is_error=True, effects=[])
    if conv.errors == "text":
        text = f"{conv.error_prefix}{message}" if database else f"Error: {message}"
        if step.tool.output_schema:
            body = _Body(message=text)
            return Prediction(_structured(step, body, text), effects=[])
        return Prediction(text, effects=[])
    return Prediction(message, is_error=True, effects=[])


__all__ = ["Convention", "convention", "predict_sql", "render_rows"]
