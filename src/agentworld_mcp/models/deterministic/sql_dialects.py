"""SQL of other dialects run by SQLite, and SQLite's answers worded as those databases word them.

* :func:`to_sqlite` translates a statement with sqlglot (``SERIAL``, ``ILIKE``, ``::casts``,
  ``public.`` schemas, Postgres result column names) and caches the translation;
* the clock keywords and ``now()`` read the simulated clock, so an episode replays byte for byte;
* :func:`worded` turns SQLite's error messages into Postgres' or MySQL's;
* :func:`data_type` reports a declared column type as the dialect's catalog does.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import json
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from ...world.sql_roles import DB_NAME

JSONDict = dict[str, Any]


def to_sqlite(sql: str, dialect: str) -> list[str]:
    """``sql`` as SQLite statements; what sqlglot cannot parse is left for SQLite to reject in its words."""
    return list(_translated(sql, dialect))


@functools.lru_cache(maxsize=1024)  # agents repeat their queries; parsing is most of a call's cost
def _translated(sql: str, dialect: str) -> tuple[str, ...]:
    return tuple(_translate(sql, dialect))


def _translate(sql: str, dialect: str) -> list[str]:
    if dialect == "sqlite":
        return [sqlite_clock(sql)]  # as it is, so SQLite words its own errors; only the clock is ours
    import sqlglot
    from sqlglot import exp

    try:
        trees = sqlglot.parse(sql, read=dialect)
    except (sqlglot.errors.SqlglotError, RecursionError):  # SQLite will say what is wrong
        return [sql]
    out = []
    for tree in trees:
        if tree is None:
            continue
        for node in list(tree.find_all(exp.DataType)):
            if isinstance(node.parent, exp.ColumnDef):  # a column keeps its declared type: SQLite takes any name
                node.replace(exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=_declared_type(node, dialect)))
        for table in tree.find_all(exp.Table):  # one schema: public.users is users
            if table.args.get("db") is not None and table.db.lower() in ("public", DB_NAME) and not table.catalog:
                table.set("db", None)
        if isinstance(tree, exp.Create) and str(tree.kind).upper() == "INDEX":
            for ordered in tree.find_all(exp.Ordered):  # SQLite indexes take no NULLS FIRST/LAST
                ordered.set("nulls_first", True)
        _simulated_clock(tree)
        _series_as_cte(tree)
        if isinstance(tree, exp.Select) and dialect in ("postgres", "redshift"):
            _postgres_names(tree)
        try:
            out.append(tree.sql(dialect="sqlite", unsupported_level=sqlglot.ErrorLevel.IGNORE))  # ENGINE=...
        except (sqlglot.errors.SqlglotError, RecursionError):  # SQLite will say what is wrong
            return [sql]
    return out or [sql]


#: SQLite's clock keywords -> the simulated clock; the reverse is how a column default reads back.
_CLOCK_KEYWORDS = {"CURRENT_TIMESTAMP": "(now())", "CURRENT_DATE": "(date(now()))", "CURRENT_TIME": "(time(now()))"}
_DECLARED = {form: k for k, v in _CLOCK_KEYWORDS.items() for form in (v, v[1:-1])}  # SQLite drops the parens
_QUOTED = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])""")
_CLOCK = re.compile(r"\b(CURRENT_TIMESTAMP|CURRENT_DATE|CURRENT_TIME)\b", re.IGNORECASE)


def sqlite_clock(sql: str) -> str:
    """SQLite ``sql`` with its clock keywords reading the simulated clock (quoted text left alone)."""
    if not _CLOCK.search(sql):
        return sql
    parts = _QUOTED.split(sql)
    return "".join(part if i % 2 else _CLOCK.sub(lambda m: _CLOCK_KEYWORDS[m.group(1).upper()], part)
                   for i, part in enumerate(parts))


def declared_defaults(column: JSONDict) -> JSONDict:
    """A column default as it was declared (``CURRENT_TIMESTAMP``), not as the simulated clock runs it."""
    default = column.get("dflt_value")
    if isinstance(default, str) and default in _DECLARED:
        return {**column, "dflt_value": _DECLARED[default]}
    return column


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


def _declared_type(node: Any, dialect: str) -> str:
    """A column's type as declared in ``dialect``; SERIAL and INT as SQLite's autonumbered INTEGER."""
    from sqlglot import exp

    serial = (exp.DataType.Type.SERIAL, exp.DataType.Type.BIGSERIAL, exp.DataType.Type.SMALLSERIAL)
    if node.this in serial or node.this == exp.DataType.Type.INT:
        return "INTEGER"  # INTEGER PRIMARY KEY is the rowid: numbered on insert, as SERIAL is
    return str(node.sql(dialect))


def _series_as_cte(tree: Any) -> None:
    """``FROM generate_series(1, 3) AS n`` as a recursive CTE (SQLite has no table-valued series)."""
    import sqlglot
    from sqlglot import exp

    for table in list(tree.find_all(exp.Table)):
        series = table.this
        if not isinstance(series, (exp.GenerateSeries, exp.ExplodingGenerateSeries)):
            continue
        alias = table.args.get("alias")
        name = alias.name if alias is not None and alias.name else "generate_series"
        columns = alias.columns if alias is not None else []
        column = columns[0].name if columns else name
        start, end = series.args["start"].sql("sqlite"), series.args["end"].sql("sqlite")
        step = series.args["step"].sql("sqlite") if series.args.get("step") is not None else "1"
        down = step.lstrip().startswith("-")
        more = f'"{column}" + {step} {">=" if down else "<="} {end}'
        inner = (f'WITH RECURSIVE "_series"("{column}") AS (SELECT {start} WHERE {start} {">=" if down else "<="} '
                 f'{end} UNION ALL SELECT "{column}" + {step} FROM "_series" WHERE {more}) '
                 f'SELECT "{column}" FROM "_series"')
        table.replace(exp.Subquery(this=sqlglot.parse_one(inner, read="sqlite"),
                                   alias=exp.TableAlias(this=exp.to_identifier(name))))


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
        if isinstance(inner, exp.Count):  # bigint: node-postgres gives it as a string
            projection = exp.cast(projection, "TEXT")
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
    (r"interrupted: query took longer than .*", "canceling statement due to statement timeout"),
)
#: The embedded analytics engine's errors: a class of error, then its message.
_DUCKDB_ERRORS: tuple[tuple[str, str], ...] = (
    (r"no such table: (?:\w+\.)?(.+)", "Catalog Error: Table with name {0} does not exist!"),
    (r"no such column: (.+)", 'Binder Error: Referenced column "{0}" not found in FROM clause!'),
    (r"table \"?(.+?)\"? already exists", 'Catalog Error: Table with name "{0}" already exists!'),
    (r"UNIQUE constraint failed: (\w+)\.(\w+)", 'Constraint Error: Duplicate key "{1}" violates primary key constraint.'),
    (r"NOT NULL constraint failed: (\w+)\.(\w+)", 'Constraint Error: NOT NULL constraint failed: {0}."{1}"'),
    (r'near "(.+?)": syntax error', 'Parser Error: syntax error at or near "{0}"'),
    (r"incomplete input", "Parser Error: syntax error at end of input"),
    (r"interrupted: query took longer than .*", "INTERRUPT Error: Interrupted!"),
)
_MYSQL_ERRORS: tuple[tuple[str, str], ...] = (
    (r"no such table: (?:\w+\.)?(.+)", "Table '" + DB_NAME + ".{0}' doesn't exist"),
    (r"no such column: (.+)", "Unknown column '{0}' in 'field list'"),
    (r"table \"?(.+?)\"? already exists", "Table '{0}' already exists"),
    (r"NOT NULL constraint failed: (\w+)\.(\w+)", "Column '{1}' cannot be null"),
    (r'near "(.+?)": syntax error', ("You have an error in your SQL syntax; check the manual that corresponds to "
                                    "your MySQL server version for the right syntax to use near '{0}' at line 1")),
    (r"interrupted: query took longer than .*",
     "Query execution was interrupted, maximum statement execution time exceeded"),
)


def worded(message: str, dialect: str, primary_key: Callable[[str, str], bool] | None = None) -> str:
    """SQLite's error message as the catalog's database words it (``primary_key(table, column)`` names the key)."""
    unique = re.fullmatch(r"UNIQUE constraint failed: (\w+)\.(\w+)", message)
    if unique and dialect in ("postgres", "redshift"):
        table, column = unique.groups()
        primary = primary_key is not None and primary_key(table, column)
        name = f"{table}_pkey" if primary else f"{table}_{column}_key"
        return f'duplicate key value violates unique constraint "{name}"'
    patterns = (_POSTGRES_ERRORS if dialect in ("postgres", "redshift") else _MYSQL_ERRORS if dialect == "mysql"
                else _DUCKDB_ERRORS if dialect == "duckdb" else ())
    for pattern, template in patterns:
        match = re.fullmatch(pattern, message)
        if match:
            return template.format(*match.groups())
    return message


def data_type(declared: str, dialect: str) -> str:
    """A declared column type as the dialect's catalog reports it (``VARCHAR(100)`` -> ``character varying``)."""
    base = declared.split("(")[0].strip().lower()
    if dialect == "mysql":  # DESCRIBE keeps the length: varchar(100), decimal(10,2)
        size = declared[len(declared.split("(")[0]):].replace(" ", "").lower()
        return {"integer": "int", "boolean": "tinyint(1)", "bool": "tinyint(1)"}.get(base, (base or "text") + size)
    if dialect not in ("postgres", "redshift"):
        return base or "text"
    return {"int": "integer", "integer": "integer", "bigint": "bigint", "smallint": "smallint", "serial": "integer",
            "varchar": "character varying", "char": "character", "text": "text", "real": "real",
            "double": "double precision", "float": "double precision", "numeric": "numeric", "decimal": "numeric",
            "boolean": "boolean", "bool": "boolean", "timestamp": "timestamp without time zone",
            "timestamptz": "timestamp with time zone", "date": "date", "json": "json", "jsonb": "jsonb",
            "uuid": "uuid", "bytea": "bytea", "blob": "bytea"}.get(base, base or "text")


def command(sql: str) -> str:
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


# -- values as node-postgres gives them ---------------------------------------------------------

#: Dialects whose servers turn column values into their declared types (the Postgres servers' driver).
TYPED_DIALECTS = ("postgres", "redshift")


def _boolean(raw: bytes) -> Any:
    text = raw.decode()
    return {"1": True, "t": True, "true": True, "0": False, "f": False, "false": False}.get(text.lower(), text)


def _timestamp(raw: bytes) -> str:
    """A timestamp as JSON.stringify prints the Date node-postgres makes of it."""
    text = raw.decode()
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode()


@functools.cache
def register_typed_values() -> None:
    """Converters, by declared column type, for connections opened with ``PARSE_DECLTYPES``: booleans
    as booleans, bigint and numeric as strings (exact), timestamps and dates as ISO instants, json parsed."""
    as_text: Callable[[bytes], Any] = bytes.decode
    for names, convert in ((("BOOLEAN", "BOOL"), _boolean), (("BIGINT", "INT8", "DECIMAL", "NUMERIC"), as_text),
                           (("TIMESTAMP", "TIMESTAMPTZ", "DATE"), _timestamp), (("JSON", "JSONB"), _json)):
        for name in names:
            sqlite3.register_converter(name, convert)



def typed_value(value: Any, declared: str | None) -> Any:
    """A stored SQLite value as a DB-API driver returns its declared type: ``BOOLEAN`` a bool, ``DATE`` a
    ``datetime.date``, ``TIMESTAMP`` a ``datetime.datetime``, ``DECIMAL(8,2)`` a ``Decimal`` of that scale."""
    if value is None or not declared:
        return value
    base = declared.split("(")[0].strip().upper()
    try:
        if base in ("BOOLEAN", "BOOL") and isinstance(value, int):
            return bool(value)
        if base == "DATE" and isinstance(value, str):
            return dt.date.fromisoformat(value[:10])
        if base in ("TIMESTAMP", "DATETIME", "TIMESTAMPTZ") and isinstance(value, str):
            return dt.datetime.fromisoformat(value)
        if base in ("DECIMAL", "NUMERIC") and isinstance(value, (int, float, str)):
            scale = re.search(r",\s*(\d+)\s*\)", declared)
            number = decimal.Decimal(str(value))
            return number.quantize(decimal.Decimal(1).scaleb(-int(scale.group(1)))) if scale else number
    except (ValueError, decimal.InvalidOperation):
        return value  # a value its column's type does not describe is printed as stored
    return value


def pyformat_placeholders(sql: str) -> str:
    """A Python driver's ``%s`` placeholders as SQLite's ``?`` (quoted text left alone; ``%%`` is a ``%``)."""
    parts = _QUOTED.split(sql)
    return "".join(part if i % 2 else part.replace("%s", "?").replace("%%", "%") for i, part in enumerate(parts))


_POSTGRES_LOCATED = (r'relation "(.+?)" does not exist', r'column "(.+?)" does not exist',
                     r'syntax error at or near "(.+?)"')


def located(message: str, sql: str, dialect: str) -> str:
    """An error as the engine prints it with the query's line: the embedded analytics engine underlines the
    token (``LINE 1: SELECT * FROM missing`` / ``^^^^^^^``), Postgres puts one caret at its start; other
    dialects' errors unchanged."""
    if dialect in TYPED_DIALECTS and "\n" not in sql.strip():
        return _postgres_located(message, sql.strip())
    if dialect != "duckdb" or "\n" in sql.strip():
        return message
    query = sql.strip()
    if message == "Parser Error: syntax error at end of input" and query.split():
        token = query.split()[-1]
        message, at = f'Parser Error: syntax error at or near "{token}"', query.rfind(token)
    else:
        match = (re.match(r'Parser Error: syntax error at or near "(.+)"', message)
                 or (re.match(r"Catalog Error: Table with name (\S+) does not exist!", message)
                     if command(query) == "SELECT" else None))
        if match is None:
            return message
        token = match.group(1)
        found = re.search(rf"(?<![\w]){re.escape(token)}(?![\w])", query, re.IGNORECASE)
        if found is None:
            return message
        at = found.start()
    return f"{message}\n\nLINE 1: {query}\n{' ' * (len('LINE 1: ') + at)}{'^' * len(token)}"


def _postgres_located(message: str, query: str) -> str:
    for pattern in _POSTGRES_LOCATED:
        match = re.fullmatch(pattern, message)
        if match is None:
            continue
        found = re.search(rf"(?<![\w]){re.escape(match.group(1))}(?![\w])", query, re.IGNORECASE)
        if found is None:
            return message
        return f"{message}\nLINE 1: {query}\n{' ' * (len('LINE 1: ') + found.start())}^"
    return message


def mysql_detail(message: str, sql: str, columns_of: Callable[[str], list[JSONDict]],
                 query: Callable[..., list[JSONDict]]) -> str:
    """A MySQL error with what the server reads from the statement: the text from the offending token on
    (``near 'SELEC title FROM books' at line 1``, at most 80 characters as MySQL prints it), and the entry a
    unique key already holds (``Duplicate entry '2' for key 'PRIMARY'``); else as it is."""
    near = re.fullmatch(r"(.*near ')(.*)(' at line )1", message, re.DOTALL)
    if near is not None:
        found = re.search(rf"(?<![\w]){re.escape(near.group(2))}", sql) if near.group(2) else None
        if found is not None:
            line = sql.count("\n", 0, found.start()) + 1
            return f"{near.group(1)}{sql[found.start():].rstrip().rstrip(';')[:80]}{near.group(3)}{line}"
        return message
    unique = re.fullmatch(r"UNIQUE constraint failed: (\w+)\.(\w+)((?:, \w+\.\w+)*)", message)
    if unique is None:
        return message
    table = unique.group(1)
    keys = [unique.group(2)] + re.findall(r"\.(\w+)", unique.group(3))
    primary = {c["name"] for c in columns_of(table) if c["pk"]}
    name = "PRIMARY" if set(keys) <= primary else keys[0]  # MySQL names a unique index after its first column
    entry = _duplicate_entry(sql, table, keys, columns_of, query)
    return f"Duplicate entry '{entry}' for key '{name}'" if entry is not None else message


_NUMERIC_KINDS = {"INT": "integer", "INTEGER": "integer", "BIGINT": "integer", "SMALLINT": "integer",
                  "TINYINT": "integer", "MEDIUMINT": "integer", "DECIMAL": "decimal", "NUMERIC": "decimal",
                  "FLOAT": "double", "DOUBLE": "double", "REAL": "double"}


def mysql_strict(sql: str, columns_of: Callable[[str], list[JSONDict]]) -> str | None:
    """The error a MySQL server in strict mode (its default) gives a text that is no number written to a
    numeric column (``Incorrect decimal value: 'cheap' for column 'price' at row 1``); None when it is fine.
    SQLite would store the text as it is."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="mysql")
    except (sqlglot.errors.SqlglotError, RecursionError, ValueError):
        return None
    if not isinstance(tree, (exp.Update, exp.Insert)) or tree.find(exp.Table) is None:
        return None
    table = tree.find(exp.Table).name  # type: ignore[union-attr]
    declared = {str(c["name"]).lower(): str(c["type"] or "").split("(")[0].strip().upper() for c in columns_of(table)}
    written: list[tuple[int, str, Any]] = []
    if isinstance(tree, exp.Update):
        written = [(1, eq.this.name, eq.expression) for eq in tree.expressions if isinstance(eq, exp.EQ)]
    elif isinstance(tree.this, exp.Schema) and isinstance(tree.expression, exp.Values):
        names = [c.name for c in tree.this.expressions]
        written = [(i + 1, n, v) for i, row in enumerate(tree.expression.expressions)
                   for n, v in zip(names, row.expressions)]
    for row, column, value in written:
        kind = _NUMERIC_KINDS.get(declared.get(column.lower(), ""))
        if kind and isinstance(value, exp.Literal) and value.is_string and not _is_number(value.name):
            return f"Incorrect {kind} value: '{value.name}' for column '{column}' at row {row}"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _duplicate_entry(sql: str, table: str, keys: list[str], columns_of: Callable[[str], list[JSONDict]],
                     query: Callable[..., list[JSONDict]]) -> str | None:
    """The key values of the INSERT's first row that the table (or an earlier row of the same INSERT) holds."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="mysql")
    except (sqlglot.errors.SqlglotError, RecursionError):
        return None
    values = tree.find(exp.Values) if isinstance(tree, exp.Insert) else None
    if values is None:
        return None
    target = tree.this
    named = ([c.name for c in target.expressions] if isinstance(target, exp.Schema)
             else [str(c["name"]) for c in columns_of(table)])
    seen: set[tuple[str, ...]] = set()
    for row in values.expressions:
        try:
            shown = tuple(_literal(row.expressions[named.index(k)]) for k in keys)
        except (ValueError, IndexError):
            return None
        where = " AND ".join(f'CAST("{k}" AS TEXT) = ?' for k in keys)
        if shown in seen or query(f'SELECT 1 FROM "{table}" WHERE {where}', *shown):
            return "-".join(shown)
        seen.add(shown)
    return None


def _literal(node: Any) -> str:
    from sqlglot import exp

    return str(node.name) if isinstance(node, exp.Literal) else str(node.sql("mysql"))


def postgres_detail(message: str, sql: str, columns_of: Callable[[str], list[JSONDict]]) -> str:
    """A unique violation's ``DETAIL:  Key (email)=(ada@example.com) already exists.``, the key's value read
    from the INSERT that failed (``columns_of(table)``: the table's columns, to find the key's); else as it is."""
    match = re.match(r'duplicate key value violates unique constraint "(\w+?)_(pkey|(\w+)_key)"', message)
    if match is None:
        return message
    table = match.group(1)
    columns = columns_of(table)
    keys = ([c["name"] for c in sorted((c for c in columns if c["pk"]), key=lambda c: c["pk"])]
            if match.group(2) == "pkey" else [match.group(3)])
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except (sqlglot.errors.SqlglotError, RecursionError):
        return message
    values = tree.find(exp.Values) if isinstance(tree, exp.Insert) else None
    if values is None or not values.expressions or not keys:
        return message
    target = tree.this
    named = ([c.name for c in target.expressions] if isinstance(target, exp.Schema)
             else [str(c["name"]) for c in columns])
    row = values.expressions[0].expressions
    try:
        shown = [row[named.index(k)] for k in keys]
    except (ValueError, IndexError):
        return message
    text = ", ".join(v.name if isinstance(v, exp.Literal) else v.sql("postgres") for v in shown)
    return f"{message}\nDETAIL:  Key ({', '.join(keys)})=({text}) already exists."
