"""What SQL a tool call may run: the episode's in-memory database only, in bounded time and size.

The simulated SQL tools run agents' statements on a real SQLite connection, so SQLite's
own reach has to be cut to the episode's database:

* an authorizer denies what touches the host or the process: ``ATTACH``/``DETACH`` (and
  ``VACUUM``, which SQLite authorizes as an ``ATTACH``: ``VACUUM INTO 'file'`` writes a file),
  ``load_extension()``, ``fts3_tokenizer()``, and every ``PRAGMA`` that sets something other
  than the harmless switches in :data:`_SETTABLE_PRAGMAS` (reading a pragma is allowed);
* a progress handler interrupts a statement that runs longer than :attr:`Bounds.seconds`;
* ``SQLITE_LIMIT_LENGTH`` bounds one value (``zeroblob(200000000)`` fails as SQLite fails),
  ``max_page_count`` bounds the database, and :func:`fetch` bounds a result's rows and bytes;
* temporary tables and sorts stay in memory (``temp_store``), never in a host temp file.

The bounds come from the environment (``AGENTWORLD_SQL_TIMEOUT`` and friends, see
:meth:`Bounds.from_env`); each refusal is an ``sqlite3.OperationalError`` whose message says
what is not allowed, so the tool answers it as the server's own SQL error.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...errors import SimulatorError

_MiB = 1 << 20
#: Virtual-machine steps between two looks at the clock (a few microseconds of work).
_PROGRESS_STEPS = 10_000
#: Pragmas a statement may set: per-connection switches that touch no file and no process-wide setting.
_SETTABLE_PRAGMAS = frozenset({
    "foreign_keys", "defer_foreign_keys", "recursive_triggers", "case_sensitive_like", "ignore_check_constraints",
    "reverse_unordered_selects", "query_only",
    # Introspection pragmas whose argument is a table or index name, not a setting.
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "foreign_key_check", "integrity_check", "quick_check",
})
_DENIED_FUNCTIONS = frozenset({"load_extension", "fts3_tokenizer"})
_ATTACH_DENIED = "attaching database files (ATTACH, DETACH, VACUUM) is not allowed on this server"


class SQLSandboxConfigError(SimulatorError):
    """An ``AGENTWORLD_SQL_*`` bound in the environment is not a positive number."""

    kind = "sql_sandbox_config"


@dataclass(frozen=True)
class Bounds:
    """How long one statement may run and how much it may store and return."""

    seconds: float = 2.0
    rows: int = 50_000
    result_bytes: int = 4 * _MiB
    value_bytes: int = 16 * _MiB
    database_bytes: int = 32 * _MiB

    @classmethod
    def from_env(cls) -> Bounds:
        """The defaults, each overridden by its ``AGENTWORLD_SQL_*`` variable where one is set."""
        return cls(seconds=_number("AGENTWORLD_SQL_TIMEOUT", cls.seconds, float),
                   rows=_number("AGENTWORLD_SQL_MAX_ROWS", cls.rows, int),
                   result_bytes=_number("AGENTWORLD_SQL_MAX_RESULT_BYTES", cls.result_bytes, int),
                   value_bytes=_number("AGENTWORLD_SQL_MAX_VALUE_BYTES", cls.value_bytes, int),
                   database_bytes=_number("AGENTWORLD_SQL_MAX_DATABASE_BYTES", cls.database_bytes, int))


def _number(name: str, default: Any, kind: type) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if not 0 < value < math.inf:  # nan and inf too: a bound that never trips is no bound
        raise SQLSandboxConfigError(f"{name}={raw!r} is not a positive {kind.__name__}",
                                    hint=f"set {name} to a positive number or unset it (default {default})")
    return value


class SandboxedConnection(sqlite3.Connection):
    """A connection that runs only what :mod:`.sql_sandbox` allows (``sqlite3.connect(factory=...)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bounds = Bounds.from_env()
        self._deadline: float | None = None
        self._timed_out = False
        self._denied: str | None = None
        self._trusted = False
        self.set_authorizer(self._authorize)
        self.set_progress_handler(self._progress, _PROGRESS_STEPS)
        self.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self.bounds.value_bytes)
        with self.trusted():
            self.execute("PRAGMA temp_store = MEMORY")  # no host temp files for sorts or TEMP tables
            self.bound_size()

    def bound_size(self) -> None:
        """Cap the database's pages (a copy restored by ``backup`` takes the source's page size)."""
        with self.trusted():
            page = int(self.execute("PRAGMA page_size").fetchone()[0])
            self.execute(f"PRAGMA max_page_count = {max(1, self.bounds.database_bytes // page)}")

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """Our own statements pass the authorizer (the ``information_schema`` we attach in memory), and
        may build longer values than a caller's (a dump line quotes a whole row: twice its size)."""
        before, self._trusted = self._trusted, True
        self.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 3 * self.bounds.value_bytes)
        try:
            yield
        finally:
            self._trusted = before
            if not before:
                self.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self.bounds.value_bytes)

    @contextlib.contextmanager
    def statement(self) -> Iterator[None]:
        """Run a caller's statement (prepare, step and fetch) within :attr:`Bounds.seconds`.

        Nested in another, it shares that one's deadline: a multi-statement query gets one bound in all.
        """
        if self._deadline is not None:
            yield
            return
        self._deadline = time.monotonic() + self.bounds.seconds
        self._timed_out, self._denied = False, None
        try:
            yield
        finally:
            self._deadline = None

    def explain(self, exc: sqlite3.Error) -> str:
        """The error's message, saying what was refused where the sandbox refused it."""
        message = str(exc)
        if self._timed_out and message == "interrupted":
            return f"interrupted: query took longer than {self.bounds.seconds:g} s"
        if self._denied and message in ("not authorized", "authorization denied"):  # VACUUM says the latter
            return f"not authorized: {self._denied}"
        if message == "database or disk is full":
            return f"{message} (the database may hold at most {self.bounds.database_bytes // _MiB} MiB)"
        return message

    def _progress(self) -> int:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self._timed_out = True
            return 1  # SQLite stops the statement: "interrupted"
        return 0

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None,
                   _source: str | None) -> int:
        if self._trusted:
            return sqlite3.SQLITE_OK
        reason = _refusal(action, arg1, arg2)
        if reason is None:
            return sqlite3.SQLITE_OK
        self._denied = reason
        return sqlite3.SQLITE_DENY


def _refusal(action: int, arg1: str | None, arg2: str | None) -> str | None:
    """Why SQLite must not do ``action``, or None where it may."""
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return _ATTACH_DENIED
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
        return f"the function {arg2}() is not allowed on this server"
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None and (arg1 or "").lower() not in _SETTABLE_PRAGMAS:
        return f"PRAGMA {arg1} cannot be set on this server"
    return None


def connect(**options: Any) -> SandboxedConnection:
    """A new sandboxed in-memory database (``options`` as :func:`sqlite3.connect` takes them)."""
    conn = sqlite3.connect(":memory:", factory=SandboxedConnection, **options)
    assert isinstance(conn, SandboxedConnection)
    return conn


def fetch(cursor: sqlite3.Cursor, bounds: Bounds) -> list[tuple[Any, ...]]:
    """A cursor's rows, refused once there are more than :attr:`Bounds.rows` or :attr:`Bounds.result_bytes`."""
    columns = [str(d[0]) for d in cursor.description or ()]
    header = sum(len(c) for c in columns)  # each row prints its column names again
    rows: list[tuple[Any, ...]] = []
    size = 0
    while batch := cursor.fetchmany(256):
        rows.extend(batch)
        size += sum(header + sum(_size(v) for v in row) for row in batch)
        if len(rows) > bounds.rows:
            raise sqlite3.OperationalError(f"result too large: more than {bounds.rows} rows (add a LIMIT)")
        if size > bounds.result_bytes:
            raise sqlite3.OperationalError(f"result too large: more than {bounds.result_bytes // _MiB} MiB "
                                           "(select fewer rows or columns, or use LIMIT)")
    return rows


def _size(value: Any) -> int:
    return len(value) * (2 if isinstance(value, bytes) else 1) if isinstance(value, (str, bytes)) else 8


__all__ = ["Bounds", "SQLSandboxConfigError", "SandboxedConnection", "connect", "fetch"]
