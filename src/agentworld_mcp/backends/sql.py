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
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import SimulatorError
from ..ledger import Effect
from ..roles import ToolRole
from ..world import World
from .base import Prediction, Step
from .sql_roles import DB_COLLECTION, TABLE_ARGS, dialect_of

JSONDict = dict[str, Any]
DB_NAME = "main"
_WRITE_PREFIXES = ("INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "REPLACE")
_CACHE_SIZE = 32


class SeedSQLError(SimulatorError):
    """A world's seeded SQL does not run."""

    kind = "seed_sql_error"


class SQLFailure(Exception):
    """A statement failed; the message is the database's, worded in the catalog's dialect."""


@dataclass(frozen=True)
class Convention:
    """How the catalog's server answers: its dialect, how it prints rows and errors."""

    #: sqlglot's name for the catalog's SQL (``sqlite``, ``postgres``, ``mysql``...).
    dialect: str
    #: ``repr``: Python's ``str(list_of_row_dicts)`` (the reference SQLite server);
    #: ``json``: ``JSON.stringify(rows, null, 2)`` (the reference Postgres server).
    rows: Literal["repr", "json"]
    #: ``text``: errors are text with ``isError`` false (``Database error: no such table: x``);
    #: ``error``: ``isError`` true, worded as the database words them.
    errors: Literal["text", "error"]
    error_prefix: str = "Database error: "


def convention(world: World) -> Convention:
    """The catalog's SQL convention: demonstrations first, else its dialect's reference server. Cached."""
    cached = world.__dict__.get("_agentworld_sql")
    if isinstance(cached, Convention):
        return cached
    text = " ".join([world.name, world.scenario] + [f"{t.get('name', '')} {t.get('description') or ''}"
                                                     for t in world.tools])
    named = dialect_of(text)
    dialect = named or "sqlite"  # SQL of no named dialect runs as it is
    # A catalog that names SQLite gets the reference SQLite server's habits, others the most common ones.
    rows: Literal["repr", "json"] = "repr" if named == "sqlite" else "json"
    errors: Literal["text", "error"] = "text" if named == "sqlite" else "error"
    prefix = "Database error: "
    from .sql_roles import sql_role

    for demo in world.demonstrations:
        tool = world.tool(demo.tool)
        if tool is None or sql_role(tool) is None or not isinstance(demo.response, str):
            continue
        response = demo.response.strip()
        match = re.match(r"([A-Za-z ]*error: )", response, re.IGNORECASE)
        if demo.is_error:
            errors = "error"
        elif match:
            errors, prefix = "text", match.group(1)
        elif response.startswith(("[{'", "{'")):
            rows = "repr"
        elif response.startswith(("[", "{")):
            rows = "json"
    found = Convention(dialect, rows, errors, prefix)
    world.__dict__["_agentworld_sql"] = found
    return found


# -- the episode's database -----------------------------------------------------------------------


@dataclass
class Outcome:
    """What one statement did."""

    command: str
    columns: list[str] = field(default_factory=list)
    rows: list[JSONDict] = field(default_factory=list)
    rowcount: int = -1
    lastrowid: int | None = None


class Database:
    """A working copy of the episode's database: run statements, then ask what changed."""

    def __init__(self, conn: sqlite3.Connection, dump: list[str], dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect
        self._dump = dump
        self._version = self._schema_version()
        self._own_changes = 0  # rows we wrote ourselves (information_schema), not the caller

    def run(self, sql: str) -> Outcome:
        """Run ``sql`` (in the catalog's dialect); the last statement's outcome."""
        statements = to_sqlite(sql, self.dialect)
        if len(statements) > 1 and self.dialect == "sqlite":
            statements = [sql]  # sqlite3 itself refuses several statements, in its own words
        outcome = Outcome(_command(sql))
        try:
            for statement in statements:
                if "information_schema" in statement.lower():
                    self._information_schema()
                cursor = self.conn.execute(statement)
                columns = [d[0] for d in cursor.description or ()]
                rows = [dict(zip(columns, row)) for row in cursor.fetchall()] if columns else []
                outcome = Outcome(_command(statement), columns, rows, cursor.rowcount, cursor.lastrowid)
        except sqlite3.Error as exc:
            raise SQLFailure(worded(str(exc), self.dialect, self)) from exc
        return outcome

    def query(self, sql: str, *params: Any) -> list[JSONDict]:
        """Rows of a statement of our own (catalog introspection), already in SQLite."""
        cursor = self.conn.execute(sql, params)
        columns = [d[0] for d in cursor.description or ()]
        return [dict(zip(columns, row)) for row in cursor.fetchall()]

    @property
    def changed(self) -> bool:
        return self.conn.total_changes > self._own_changes or self._schema_version() != self._version

    def dump(self) -> list[str]:
        if not self.changed:
            return self._dump
        return dump(self.conn)

    def tables(self) -> list[str]:
        return [r["name"] for r in self.query("SELECT name FROM sqlite_master WHERE type='table' "
                                              "AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]

    def columns(self, table: str) -> list[JSONDict]:
        return self.query("SELECT * FROM pragma_table_info(?)", table)

    def _schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA schema_version").fetchone()[0])

    def _information_schema(self) -> None:
        """``information_schema.tables``/``columns`` as Postgres and MySQL clients query them."""
        before = self.conn.total_changes
        attached = {r[1] for r in self.conn.execute("PRAGMA database_list")}
        if "information_schema" not in attached:
            self.conn.execute("ATTACH ':memory:' AS information_schema")
        schema = "public" if self.dialect in ("postgres", "redshift") else DB_NAME
        self.conn.executescript(
            "DROP TABLE IF EXISTS information_schema.tables; DROP TABLE IF EXISTS information_schema.columns;"
            "CREATE TABLE information_schema.tables (table_catalog, table_schema, table_name, table_type);"
            "CREATE TABLE information_schema.columns (table_catalog, table_schema, table_name, column_name,"
            " ordinal_position, column_default, is_nullable, data_type);")
        for table in self.tables():
            self.conn.execute("INSERT INTO information_schema.tables VALUES (?, ?, ?, 'BASE TABLE')",
                              (DB_NAME, schema, table))
            for col in self.columns(table):
                self.conn.execute("INSERT INTO information_schema.columns VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                  (DB_NAME, schema, table, col["name"], col["cid"] + 1, col["dflt_value"],
                                   "NO" if col["notnull"] or col["pk"] else "YES", data_type(col["type"], self.dialect)))
        self._own_changes += self.conn.total_changes - before


_PRISTINE: OrderedDict[str, tuple[sqlite3.Connection, list[str]]] = OrderedDict()


def open_database(step: Step, conv: Convention) -> Database:
    """A working copy of the episode's database (the ledger's ``sql_databases/main``, else empty)."""
    entity = step.episode.ledger.get(DB_COLLECTION, DB_NAME)
    fields = entity.fields if entity is not None else {}
    dialect = str(fields.get("dialect") or conv.dialect)
    source = fields.get("sql") or []
    statements = [source] if isinstance(source, str) else [str(s) for s in source]
    digest = hashlib.sha256(json.dumps([dialect, statements]).encode()).hexdigest()
    cached = _PRISTINE.get(digest)
    if cached is None:
        cached = _PRISTINE[digest] = _build(dialect, statements)
        while len(_PRISTINE) > _CACHE_SIZE:
            _PRISTINE.popitem(last=False)
    _PRISTINE.move_to_end(digest)
    pristine, dump = cached
    work = _connect(step.turn)
    pristine.backup(work)
    return Database(work, dump, conv.dialect)


def _connect(turn: int) -> sqlite3.Connection:
    """A fresh in-memory database whose ``now()`` is the simulated clock at ``turn``."""
    from .schema import clock

    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    stamp = clock(turn).strftime("%Y-%m-%d %H:%M:%S")
    conn.create_function("now", 0, lambda: stamp, deterministic=True)
    return conn


def _build(dialect: str, statements: list[str]) -> tuple[sqlite3.Connection, list[str]]:
    conn = _connect(0)  # seed state is at turn 0
    try:
        for statement in statements:
            if dialect == "sqlite":
                conn.executescript(statement)
            else:
                for translated in to_sqlite(statement, dialect):
                    conn.execute(translated)
    except sqlite3.Error as exc:
        raise SeedSQLError(f"the world's seeded SQL does not run: {exc}",
                           hint=f"check seed.{DB_COLLECTION} in the world file") from exc
    return conn, statements if dialect == "sqlite" else dump(conn)


def dump(conn: sqlite3.Connection) -> list[str]:
    """The database as SQL statements that rebuild it exactly.

    Unlike ``iterdump`` (tables by name, rows renumbered) it keeps the order tables were
    created in (``list_tables`` answers in that order) and every row's rowid.
    """
    tables: list[str] = []
    later: list[str] = []
    sequence: list[str] = []
    master = conn.execute("SELECT name, type, sql FROM sqlite_master WHERE sql NOT NULL ORDER BY rowid").fetchall()
    for name, kind, sql in master:
        if kind != "table":
            later.append(f"{sql};")  # indexes, views and triggers once the rows are in
            continue
        if name == "sqlite_sequence":
            sequence = ['DELETE FROM "sqlite_sequence";'] + [
                f'INSERT INTO "sqlite_sequence" VALUES({_quoted(n)},{seq});'
                for n, seq in conn.execute('SELECT name, seq FROM "sqlite_sequence"')]
            continue
        if name.startswith("sqlite_"):
            continue
        tables.append(f"{sql};")
        ident = name.replace('"', '""')
        info = conn.execute(f'PRAGMA table_info("{ident}")').fetchall()
        columns = [str(r[1]) for r in info]
        keys = [r for r in info if r[5]]
        aliased = len(keys) == 1 and str(keys[0][2]).upper() == "INTEGER"  # INTEGER PRIMARY KEY is the rowid
        if not aliased and not re.search(r"without\s+rowid", sql, re.IGNORECASE) and not {
                "rowid", "_rowid_", "oid"} & {c.lower() for c in columns}:
            columns = ["rowid", *columns]  # keep rowids: a read after deletes sees the same ones
        names = ",".join('"{}"'.format(c.replace('"', '""')) for c in columns)
        values = "||','||".join('quote("{}")'.format(c.replace('"', '""')) for c in columns)
        tables += [f'INSERT INTO "{ident}"({names}) VALUES({row});'
                   for (row,) in conn.execute(f'SELECT {values} FROM "{ident}"')]
    return tables + later + sequence


def _quoted(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


# -- dialects -------------------------------------------------------------------------------------


def to_sqlite(sql: str, dialect: str) -> list[str]:
    """``sql`` as SQLite statements; what sqlglot cannot parse is left for SQLite to reject in its words."""
    if dialect == "sqlite":
        return [sql]
    import sqlglot
    from sqlglot import exp

    try:
        trees = sqlglot.parse(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return [sql]
    out = []
    for tree in trees:
        if tree is None:
            continue
        for node in tree.find_all(exp.DataType):  # SERIAL is an autoincrementing INTEGER PRIMARY KEY in SQLite
            if node.this in (exp.DataType.Type.SERIAL, exp.DataType.Type.BIGSERIAL, exp.DataType.Type.SMALLSERIAL):
                node.set("this", exp.DataType.Type.INT)
        for table in tree.find_all(exp.Table):  # one schema: public.users is users
            if table.args.get("db") is not None and table.db.lower() in ("public", DB_NAME) and not table.catalog:
                table.set("db", None)
        if isinstance(tree, exp.Create) and str(tree.kind).upper() == "INDEX":
            for ordered in tree.find_all(exp.Ordered):  # SQLite indexes take no NULLS FIRST/LAST
                ordered.set("nulls_first", True)
        _simulated_clock(tree)
        if isinstance(tree, exp.Select) and dialect in ("postgres", "redshift"):
            _postgres_names(tree)
        try:
            out.append(tree.sql(dialect="sqlite"))
        except sqlglot.errors.SqlglotError:
            return [sql]
    return out or [sql]


def _simulated_clock(tree: Any) -> None:
    """``now()``, ``CURRENT_DATE``... read the simulated clock (:func:`now`), never the wall clock."""
    from sqlglot import exp

    clock: dict[type, str] = {exp.CurrentTimestamp: "now()", exp.Localtimestamp: "now()",
                              exp.CurrentDate: "date(now())", exp.CurrentTime: "time(now())"}
    for node in list(tree.walk()):
        replacement = clock.get(type(node))
        if replacement is not None:
            new = sqlglot_expression(replacement)
            # SQLite takes an expression default only in parentheses: DEFAULT (now())
            node.replace(exp.Paren(this=new) if isinstance(node.parent, exp.DefaultColumnConstraint) else new)


def sqlglot_expression(sql: str) -> Any:
    import sqlglot

    return sqlglot.parse_one(sql, read="sqlite")


def _postgres_names(select: Any) -> None:
    """Result columns named as Postgres names them (``count``, ``name`` for ``name::text``, ``?column?``)."""
    from sqlglot import exp

    for i, projection in enumerate(select.expressions):
        if isinstance(projection, (exp.Alias, exp.Column, exp.Star)):
            continue
        inner = projection
        while isinstance(inner, (exp.Cast, exp.TryCast, exp.Window)):
            inner = inner.this
        if isinstance(inner, exp.Column):
            name = inner.name
        elif isinstance(inner, exp.Anonymous):
            name = str(inner.name).lower()
        elif isinstance(inner, exp.Func):
            name = inner.sql_name().lower()
        else:
            name = "?column?"
        select.expressions[i] = exp.alias_(projection, name, quoted=True)


_POSTGRES_ERRORS: tuple[tuple[str, str], ...] = (
    (r"no such table: (?:\w+\.)?(.+)", 'relation "{0}" does not exist'),
    (r"no such column: (.+)", 'column "{0}" does not exist'),
    (r"table \"?(.+?)\"? already exists", 'relation "{0}" already exists'),
    (r"NOT NULL constraint failed: (\w+)\.(\w+)", 'null value in column "{1}" of relation "{0}" violates not-null constraint'),
    (r'near "(.+?)": syntax error', 'syntax error at or near "{0}"'),
    (r"incomplete input", "syntax error at end of input"),
)
_MYSQL_ERRORS: tuple[tuple[str, str], ...] = (
    (r"no such table: (?:\w+\.)?(.+)", "Table '" + DB_NAME + ".{0}' doesn't exist"),
    (r"no such column: (.+)", "Unknown column '{0}' in 'field list'"),
    (r"table \"?(.+?)\"? already exists", "Table '{0}' already exists"),
    (r"NOT NULL constraint failed: (\w+)\.(\w+)", "Column '{1}' cannot be null"),
    (r'near "(.+?)": syntax error', ("You have an error in your SQL syntax; check the manual that corresponds to "
                                    "your MySQL server version for the right syntax to use near '{0}' at line 1")),
)


def worded(message: str, dialect: str, db: Database | None = None) -> str:
    """SQLite's error message as the catalog's database words it."""
    unique = re.fullmatch(r"UNIQUE constraint failed: (\w+)\.(\w+)", message)
    if unique and dialect in ("postgres", "redshift"):
        table, column = unique.groups()
        primary = db is not None and any(c["name"] == column and c["pk"] for c in db.columns(table))
        name = f"{table}_pkey" if primary else f"{table}_{column}_key"
        return f'duplicate key value violates unique constraint "{name}"'
    patterns = _POSTGRES_ERRORS if dialect in ("postgres", "redshift") else _MYSQL_ERRORS if dialect == "mysql" else ()
    for pattern, template in patterns:
        match = re.fullmatch(pattern, message)
        if match:
            return template.format(*match.groups())
    return message


def data_type(declared: str, dialect: str) -> str:
    """A declared column type as the dialect's catalog reports it (``VARCHAR(100)`` -> ``character varying``)."""
    base = declared.split("(")[0].strip().lower()
    if dialect not in ("postgres", "redshift"):
        return base or "text"
    return {"int": "integer", "integer": "integer", "bigint": "bigint", "smallint": "smallint", "serial": "integer",
            "varchar": "character varying", "char": "character", "text": "text", "real": "real",
            "double": "double precision", "float": "double precision", "numeric": "numeric", "decimal": "numeric",
            "boolean": "boolean", "bool": "boolean", "timestamp": "timestamp without time zone",
            "timestamptz": "timestamp with time zone", "date": "date", "json": "json", "jsonb": "jsonb",
            "uuid": "uuid", "bytea": "bytea", "blob": "bytea"}.get(base, base or "text")


def _command(sql: str) -> str:
    """``INSERT``, ``CREATE TABLE``...: the statement's command as Postgres reports it."""
    tokens = re.sub(r"^(\s|--[^\n]*\n|/\*.*?\*/)+", "", sql, flags=re.DOTALL).split()
    if not tokens:
        return ""
    first = tokens[0].upper().rstrip(";")
    if first in ("CREATE", "DROP", "ALTER") and len(tokens) > 1:
        second = tokens[1].upper()
        if second in ("UNIQUE", "TEMP", "TEMPORARY", "VIRTUAL") and len(tokens) > 2:
            second = tokens[2].upper()
        return f"{first} {second}"
    return first


# -- answering ------------------------------------------------------------------------------------


def predict_sql(step: Step, role: ToolRole) -> Prediction:
    """The database's answer to ``step`` and, when it changed the database, its new dump as an effect."""
    conv = convention(step.world)
    db = open_database(step, conv)
    try:
        body = _OPS.get(role.op or "query", _query)(step, role, db, conv)
    except SQLFailure as exc:
        return _error(step, conv, str(exc), database=True)
    except _Refused as exc:
        return _error(step, conv, str(exc), database=False)
    finally:
        dump = db.dump() if db.changed else None
        db.conn.close()
    effects: list[Effect] = []
    if dump is not None:
        existing = step.episode.ledger.get(DB_COLLECTION, DB_NAME) is not None
        effects.append(Effect("update" if existing else "create", DB_COLLECTION, DB_NAME,
                              {"name": DB_NAME, "dialect": "sqlite", "sql": dump}))
    return _answer(step, conv, body, effects)


class _Refused(Exception):
    """The server refused the call before reaching the database (wrong kind of statement)."""


@dataclass
class _Body:
    """An answer before rendering: rows or a message, and counts for structured outputs."""

    rows: list[JSONDict] | None = None
    value: Any = None  # a non-row JSON answer ({command, rowCount, rows})
    message: str | None = None
    count: int | None = None
    columns: list[str] = field(default_factory=list)


def _statement(step: Step, role: ToolRole) -> str:
    value = step.arguments.get(role.query_arg or "") if role.query_arg else None
    if not isinstance(value, str) or not value.strip():
        raise _Refused(f"Missing {role.query_arg or 'query'} argument")
    return value


def _read(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    if conv.errors == "text" and not sql.strip().upper().startswith("SELECT"):
        raise _Refused(f"Only SELECT queries are allowed for {step.tool.name}")
    outcome = db.run(sql)
    if db.changed:  # a read-only transaction refuses writes
        raise SQLFailure(f"cannot execute {outcome.command or _command(sql)} in a read-only transaction"
                         if conv.dialect in ("postgres", "redshift") else
                         "attempt to write a readonly database")
    return _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns)


def _write(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    if conv.errors == "text" and sql.strip().upper().startswith("SELECT"):
        raise _Refused(f"SELECT queries are not allowed for {step.tool.name}")
    return _result(db.run(sql), conv, sql)


def _query(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    sql = _statement(step, role)
    return _result(db.run(sql), conv, sql)


def _result(outcome: Outcome, conv: Convention, sql: str) -> _Body:
    """A statement's result: rows for a query, the write's counts for the rest, per convention."""
    writes = sql.strip().upper().startswith(_WRITE_PREFIXES) and not outcome.columns
    if not writes:
        return _Body(rows=outcome.rows, count=len(outcome.rows), columns=outcome.columns)
    if conv.rows == "repr":  # mcp-server-sqlite: [{'affected_rows': N}]
        return _Body(rows=[{"affected_rows": outcome.rowcount}], count=outcome.rowcount)
    if conv.dialect == "mysql":  # mysql2's ResultSetHeader
        return _Body(value={"affectedRows": max(outcome.rowcount, 0), "insertId": outcome.lastrowid or 0},
                     count=max(outcome.rowcount, 0))
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


def _table_arg(step: Step) -> str:
    table = next((step.arguments[a] for a in TABLE_ARGS if isinstance(step.arguments.get(a), str)), None)
    if not table:
        raise _Refused("Missing table_name argument")
    return str(table)


def _list_tables(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    if conv.rows == "repr":  # the reference server's own query, sqlite_sequence included
        rows = db.query("SELECT name FROM sqlite_master WHERE type='table'")
    else:
        rows = [{"table_name": t} for t in db.tables()]
    return _Body(rows=rows, count=len(rows))


def _list_schemas(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    name = "public" if conv.dialect in ("postgres", "redshift") else DB_NAME
    return _Body(rows=[{"schema_name": name}], count=1)


def _describe_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    table = _table_arg(step)
    if conv.rows == "repr":  # the reference server interpolates the name into PRAGMA, errors and all
        return _Body(rows=db.run(f"PRAGMA table_info({table})").rows)
    columns = db.columns(table)
    if not columns:
        raise SQLFailure(worded(f"no such table: {table}", conv.dialect))
    rows = [{"column_name": c["name"], "data_type": data_type(c["type"], conv.dialect),
             "is_nullable": "NO" if c["notnull"] or c["pk"] else "YES", "column_default": c["dflt_value"]}
            for c in columns]
    return _Body(rows=rows, count=len(rows))


def _drop_table(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    table = _table_arg(step)
    db.run(f"DROP TABLE {table}")
    return _Body(message=f"Table {table} dropped successfully")


def _row_op(step: Step, role: ToolRole, db: Database, conv: Convention) -> _Body:
    """insert/update/delete with the row as arguments, as servers build them (``... RETURNING *``)."""
    table = _table_arg(step)
    data = step.arguments.get("data") or step.arguments.get("values") or step.arguments.get("row") or {}
    where = step.arguments.get("where")
    params = list(data.values()) if isinstance(data, dict) else []
    if role.op == "insert":
        cols = ", ".join(data) if isinstance(data, dict) else ""
        sql = f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' for _ in params)}) RETURNING *"
    elif role.op == "update":
        sets = ", ".join(f"{c} = ?" for c in data) if isinstance(data, dict) else ""
        sql = f"UPDATE {table} SET {sets}" + (f" WHERE {where}" if where else "") + " RETURNING *"
    else:
        sql = f"DELETE FROM {table}" + (f" WHERE {where}" if where else "") + " RETURNING *"
    try:
        cursor = db.conn.execute(sql, [json.dumps(p) if isinstance(p, (dict, list)) else p for p in params])
        columns = [d[0] for d in cursor.description or ()]
        rows = [dict(zip(columns, r)) for r in cursor.fetchall()]
    except sqlite3.Error as exc:
        raise SQLFailure(worded(str(exc), conv.dialect, db)) from exc
    if conv.rows == "repr":
        return _Body(rows=[{"affected_rows": len(rows)}], count=len(rows))
    return _Body(rows=rows, count=len(rows), columns=columns)


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


_OPS = {
    "read": _read, "write": _write, "query": _query, "create_table": _create_table, "list_tables": _list_tables,
    "list_schemas": _list_schemas, "describe_table": _describe_table, "drop_table": _drop_table,
    "insert": _row_op, "update": _row_op, "delete": _row_op, "create_index": _create_index,
    "alter_table": _alter_table,
}


# -- rendering ------------------------------------------------------------------------------------


def render_rows(rows: Any, conv: Convention) -> str:
    """Rows as the server prints them: ``str(rows)`` (Python servers) or ``JSON.stringify(rows, null, 2)``."""
    if conv.rows == "repr":
        return str(rows)
    return json.dumps(rows, indent=2, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"type": "Buffer", "data": list(value)}
    return str(value)


def _answer(step: Step, conv: Convention, body: _Body, effects: list[Effect]) -> Prediction:
    if body.value is not None:
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
    from .schema import conform

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
    if conv.errors == "text":
        text = f"{conv.error_prefix}{message}" if database else f"Error: {message}"
        if step.tool.output_schema:
            body = _Body(message=text)
            return Prediction(_structured(step, body, text), effects=[])
        return Prediction(text, effects=[])
    return Prediction(message, is_error=True, effects=[])


__all__ = ["Convention", "SQLFailure", "convention", "open_database", "predict_sql", "to_sqlite", "worded"]
