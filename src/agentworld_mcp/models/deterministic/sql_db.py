"""The episode's SQLite database: a cached pristine copy per dump, a working copy per call.

:func:`open_database` gives a call its own in-memory copy of the episode's database (the
ledger entity ``sql_databases/main``, see :mod:`.sql`); :class:`Database` runs the call's
statements on it and says whether they changed it; :func:`dump` writes it back as SQL that
rebuilds it exactly (table order and rowids kept). Pristine copies are cached by dump, so
a call costs a ``backup`` (microseconds), not a replay of the dump.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ...errors import SimulatorError
from ..base import Step
from .sql_sandbox import SandboxedConnection, connect, fetch
from .sql_dialects import (
    TYPED_DIALECTS,
    command,
    data_type,
    declared_defaults,
    register_typed_values,
    sqlite_clock,
    to_sqlite,
    worded,
)
from ...world.sql_roles import DB_COLLECTION, DB_NAME

JSONDict = dict[str, Any]
_CACHE_SIZE = 32


class SeedSQLError(SimulatorError):
    """A world's seeded SQL does not run."""

    kind = "seed_sql_error"


class SQLFailure(Exception):
    """A statement failed; the message is the database's, worded in the catalog's dialect."""


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

    def __init__(self, conn: SandboxedConnection, dump: list[str], dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect
        self._dump = dump
        self._version = self._schema_version()
        self._own_changes = 0  # rows we wrote ourselves (information_schema), not the caller

    def run(self, sql: str, params: list[Any] | None = None) -> Outcome:
        """Run ``sql`` (in the catalog's dialect, ``?`` bound to ``params``); the last statement's outcome."""
        statements = to_sqlite(sql, self.dialect)
        outcome = Outcome(command(sql))
        with self.conn.statement():  # every statement sandboxed, after translation; one time bound for all
            for statement in statements:
                if "information_schema" in statement.lower():
                    try:
                        self._information_schema()
                    except sqlite3.Error as exc:
                        raise SQLFailure(worded(str(exc), self.dialect)) from exc
                columns, rows, cursor = self.execute(statement, params)
                if statement.lstrip().upper().startswith("PRAGMA"):
                    rows = [declared_defaults(row) for row in rows]
                outcome = Outcome(command(statement), columns, rows, cursor.rowcount, cursor.lastrowid)
        return outcome

    def execute(self, statement: str, params: list[Any] | None = None) -> tuple[list[str], list[JSONDict], sqlite3.Cursor]:
        """One caller's SQLite statement within the sandbox's bounds: its columns, rows and cursor."""
        try:
            with self.conn.statement():
                cursor = self.conn.execute(statement, params or ())
                columns = [d[0] for d in cursor.description or ()]
                rows = [dict(zip(columns, row)) for row in fetch(cursor, self.conn.bounds)] if columns else []
        except sqlite3.Error as exc:
            message = self.conn.explain(exc)
            raise SQLFailure(worded(message, self.dialect, self.is_primary_key)) from exc
        return columns, rows, cursor

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
        return [declared_defaults(c) for c in self.query("SELECT * FROM pragma_table_info(?)", table)]

    def is_primary_key(self, table: str, column: str) -> bool:
        return any(c["name"] == column and c["pk"] for c in self.columns(table))

    def _schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA schema_version").fetchone()[0])

    def _information_schema(self) -> None:
        """``information_schema.tables``/``columns`` as Postgres and MySQL clients query them."""
        before = self.conn.total_changes
        attached = {r[1] for r in self.conn.execute("PRAGMA database_list")}
        if "information_schema" not in attached:
            with self.conn.trusted():  # ours, in memory; callers may not ATTACH
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


_PRISTINE: OrderedDict[str, tuple[SandboxedConnection, list[str]]] = OrderedDict()


def open_database(step: Step, dialect: str, *, typed: bool = True) -> Database:
    """A working copy of the episode's database (the ledger's ``sql_databases/main``, else empty);
    ``typed``: values converted as the dialect's usual driver converts them (see :func:`_connect`)."""
    key = database_key(step)
    entity = step.episode.ledger.get(DB_COLLECTION, key)
    fields = entity.fields if entity is not None else {}
    stored = str(fields.get("dialect") or dialect)  # seeds are in the catalog's dialect unless they say
    source = fields.get("sql") or []
    if entity is None and key == DB_NAME and step.world.demonstrations:  # what the demonstrations showed (sql_seed)
        stored, source = "sqlite", step.derived("sql_seed", lambda: _shown(step))
    statements = [source] if isinstance(source, str) else [str(s) for s in source]
    digest = _digest(stored, statements)
    cached = _PRISTINE.get(digest)
    if cached is None:
        conn, dump = _build(stored, statements)
        cached = remember(conn, stored, statements, dump)
    _PRISTINE.move_to_end(digest)
    pristine, dump = cached
    work = _connect(step.turn, dialect, typed=typed)
    pristine.backup(work)
    work.bound_size()
    return Database(work, dump, dialect)


def database_key(step: Step) -> str:
    """The database a call acts on: the file its path argument names (``db_path``: each file a database of its
    own, as SQLite files are), else the episode's one database."""
    from ...world.roles import normalise_path
    from ...world.sql_roles import DATABASE_PATH_ARGS

    path = next((step.arguments[a] for a in DATABASE_PATH_ARGS if isinstance(step.arguments.get(a), str)
                 and step.arguments[a].strip()), None)
    return normalise_path(path.strip()) if path is not None else DB_NAME


def _shown(step: Step) -> list[str]:
    from .common import entity_model
    from .sql_seed import seed_statements

    return seed_statements(step.world, entity_model(step).roles)


def _digest(dialect: str, statements: list[str]) -> str:
    return hashlib.sha256(json.dumps([dialect, statements]).encode()).hexdigest()


def remember(conn: SandboxedConnection, dialect: str, statements: list[str],
              dump: list[str]) -> tuple[SandboxedConnection, list[str]]:
    """Keep ``conn`` as the pristine copy of the database these statements build (least recently used go)."""
    entry = _PRISTINE[_digest(dialect, statements)] = (conn, dump)
    while len(_PRISTINE) > _CACHE_SIZE:
        _PRISTINE.popitem(last=False)[1][0].close()
    return entry


def _connect(turn: int, dialect: str = "sqlite", *, typed: bool = True) -> SandboxedConnection:
    """A fresh sandboxed in-memory database whose ``now()`` is the simulated clock at ``turn``.

    For a dialect whose servers return typed values (Postgres), column values come back as
    their declared types say (:func:`~.sql_dialects.register_typed_values`).
    """
    from .common import clock

    typed = typed and dialect in TYPED_DIALECTS
    if typed:
        register_typed_values()
    conn = connect(check_same_thread=False, isolation_level=None,
                   detect_types=sqlite3.PARSE_DECLTYPES if typed else 0)
    stamp = clock(turn).strftime("%Y-%m-%d %H:%M:%S")
    conn.create_function("now", 0, lambda: stamp, deterministic=True)
    return conn


def _build(dialect: str, statements: list[str]) -> tuple[SandboxedConnection, list[str]]:
    conn = _connect(0)  # seed state is at turn 0
    try:
        for statement in statements:  # seeds are sandboxed too: a world file is input like any other
            with conn.statement():
                if dialect == "sqlite":
                    conn.executescript(sqlite_clock(statement))
                else:
                    for translated in to_sqlite(statement, dialect):
                        conn.execute(translated)
    except sqlite3.Error as exc:
        raise SeedSQLError(f"the world's seeded SQL does not run: {conn.explain(exc)}",
                           hint=f"check seed.{DB_COLLECTION} in the world file") from exc
    return conn, statements if dialect == "sqlite" else dump(conn)


def dump(conn: SandboxedConnection) -> list[str]:
    """The database as SQL statements that rebuild it exactly.

    Unlike ``iterdump`` (tables by name, rows renumbered) it keeps the order tables were
    created in (``list_tables`` answers in that order) and every row's rowid.
    """
    with conn.trusted():
        return _dump(conn)


def _dump(conn: SandboxedConnection) -> list[str]:
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
