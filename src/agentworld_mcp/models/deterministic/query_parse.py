"""Query text -> a checked condition tree, ordering and limits (nothing is executed).

SQL-shaped languages (plain SQL ``WHERE`` clauses and whole ``SELECT ... FROM object``
statements of object-query and work-item query languages) are parsed by sqlglot; a clause
alone is parsed as the ``WHERE`` of a ``SELECT``, so ``ORDER BY``/``LIMIT`` tails come with
it. Before parsing, the object-query language's unquoted date literals (``2024-01-31``,
``LAST_N_DAYS:30``, ``TODAY``) and the work-item language's ``CONTAINS``/``UNDER``/``EVER``
operators are rewritten into SQL the tree can hold. OData filters and formulas have their
own small parsers (:mod:`.query_odata`, :mod:`.query_formula`) that build the same tree.

Every tree is checked against what :mod:`.query_eval` can evaluate (one statement, no
joins, grouping or subqueries, known functions) and bounded (:data:`MAX_CHARS` characters,
:data:`MAX_NODES` nodes), so evaluation costs at most a few hundred steps per record.
Parses are cached per (language, text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from . import query_formula, query_odata
from .query_detect import Language
from .query_errors import MAX_CHARS, MAX_NODES, QueryError

#: (field path, descending, nulls first: None for the language's default).
Ordering = tuple[str, bool, "bool | None"]


@dataclass(frozen=True)
class Parsed:
    """A readable query: its condition and, where it states them, ordering, limit and (statements) projection."""

    condition: exp.Expression | None
    order: tuple[Ordering, ...] = ()
    limit: int | None = None
    offset: int = 0
    #: The object a statement reads (``FROM Account``); None for a condition alone.
    source: str | None = None
    #: Fields a statement selects, as written; None selects every field.
    columns: tuple[str, ...] | None = None
    #: ``COUNT()`` (``""``) or ``COUNT(field)`` of an aggregate statement.
    count: str | None = None
    #: Every field path the query names (each must exist on the records).
    fields: frozenset[str] = frozenset()


#: sqlglot node types the evaluator knows; anything else in a tree is named as unsupported.
_ALLOWED: tuple[type[exp.Expression], ...] = (
    exp.And, exp.Or, exp.Not, exp.Paren, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike,
    exp.In, exp.Is, exp.Between, exp.Column, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Neg, exp.Add,
    exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.Anonymous, exp.Lower, exp.Upper, exp.Length, exp.Trim, exp.Coalesce,
    exp.Abs, exp.Parameter, exp.Var, exp.DPipe, exp.Escape, exp.Tuple, exp.Where, exp.Select, exp.From, exp.Table,
    exp.Star, exp.Order, exp.Ordered, exp.Limit, exp.Offset, exp.Count, exp.Concat)
_SQL_FUNCTIONS = frozenset({"DATE_LITERAL", "CONTAINS", "STARTSWITH", "ENDSWITH", "NOW", "TODAY"})
_NAMED = {exp.Join: "JOIN", exp.Group: "GROUP BY", exp.Having: "HAVING", exp.Subquery: "subqueries",
          exp.Union: "UNION", exp.With: "WITH", exp.Window: "window functions"}


def parse(language: Language, text: str) -> Parsed:
    """``text`` read as ``language`` (raises :class:`QueryError` naming the problem)."""
    found = _cached(language, text)
    if isinstance(found, QueryError):
        raise found
    return found


@lru_cache(maxsize=512)
def _cached(language: Language, text: str) -> Parsed | QueryError:
    try:
        if len(text) > MAX_CHARS:
            raise QueryError("limit", f"{len(text)} characters, at most {MAX_CHARS}")
        if language.family == "odata":
            parsed = Parsed(_bounded(query_odata.parse(text)))
        elif language.family == "formula":
            parsed = Parsed(_bounded(query_formula.parse(text)))
        else:
            parsed = _sql(language, text)
        return _with_fields(parsed)
    except QueryError as problem:
        return problem
    except RecursionError:  # ``((((...))))`` or ``not not not ...`` deeper than any real query
        return QueryError("limit", "nested too deeply")


def _bounded(tree: exp.Expression) -> exp.Expression:
    nodes = sum(1 for _ in tree.walk())
    if nodes > MAX_NODES:
        raise QueryError("limit", f"{nodes} terms, at most {MAX_NODES}")
    return tree


def _with_fields(parsed: Parsed) -> Parsed:
    names = {path(c) for c in parsed.condition.find_all(exp.Column)} if parsed.condition is not None else set()
    names |= {name for name, _, _ in parsed.order}
    names |= set(parsed.columns or ())
    if parsed.count:
        names.add(parsed.count)
    return Parsed(parsed.condition, parsed.order, parsed.limit, parsed.offset, parsed.source, parsed.columns,
                  parsed.count, frozenset(names))


def path(column: exp.Column) -> str:
    """A column's field path as written (``Owner.Name``, ``System.Title``, ``Address.City``)."""
    return ".".join(part.name for part in column.parts)


# -- SQL-shaped languages ------------------------------------------------------------------------

_QUOTED = re.compile(r"('(?:[^'\\]|\\.|'')*')")
_LEADING_WHERE = re.compile(r"^\s*where\s+", re.IGNORECASE)
_DATETIME = re.compile(r"(?<![\w'.-])(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)"
                       r"(?![\w:.-])")
_RELATIVE = re.compile(r"(?<![@\w])((?:LAST|NEXT)_N_(?:DAYS|WEEKS|MONTHS|YEARS)):(\d+)\b", re.IGNORECASE)
_NAMED_RANGE = re.compile(r"(?<![@\w])(TODAY|YESTERDAY|TOMORROW|(?:LAST|THIS|NEXT)_(?:WEEK|MONTH|YEAR))\b(?!\s*\()",
                          re.IGNORECASE)
_CONTAINS = re.compile(r"\b(NOT\s+)?CONTAINS(?:\s+WORDS)?\s+'((?:[^']|'')*)'", re.IGNORECASE)
_UNDER = re.compile(r"\b(NOT\s+)?UNDER\s+'((?:[^']|'')*)'", re.IGNORECASE)
_EVER = re.compile(r"\bEVER\b", re.IGNORECASE)


def _sql(language: Language, text: str) -> Parsed:
    stripped = text.strip()
    statement = language.statement or stripped[:6].upper() == "SELECT"
    prefix = "" if statement else "SELECT * FROM _ WHERE "
    source = _rewritten(language, prefix + _LEADING_WHERE.sub("", stripped, count=1))
    try:
        trees = sqlglot.parse(source, read=language.dialect)
    except ParseError as bad:
        first = bad.errors[0] if bad.errors else {}
        token = str(first.get("highlight") or "").strip()
        column = max(0, int(first.get("col") or 0) - len(prefix))
        raise QueryError("syntax", token or "end of query", column) from None
    except SqlglotError as bad:  # the tokenizer: an unterminated string, a stray character
        raise QueryError("syntax", _last_quote(stripped), None) from bad
    if len(trees) != 1 or trees[0] is None:
        raise QueryError("syntax", ";", stripped.find(";"))
    tree = trees[0]
    for kind, what in _NAMED.items():
        if tree.find(kind) is not None:
            raise QueryError("unsupported", what)
    if not isinstance(tree, exp.Select):
        raise QueryError("syntax", stripped.split(None, 1)[0] if stripped else "end of query", 0)
    _bounded(tree)
    for node in tree.walk():
        if not isinstance(node, _ALLOWED):
            raise QueryError("unsupported", f"'{node.sql()[:60]}'")
        if isinstance(node, exp.Anonymous) and str(node.this).upper() not in _SQL_FUNCTIONS:
            raise QueryError("unsupported", f"the function {str(node.this).upper()}()")
        if isinstance(node, exp.Select) and node is not tree:
            raise QueryError("unsupported", "subqueries")
    where = tree.args.get("where")
    condition = where.this if isinstance(where, exp.Where) else None
    return Parsed(condition, _order(tree), _number(tree.args.get("limit")), _number(tree.args.get("offset")) or 0,
                  *(_projection(tree) if statement else (None, None, None)))


def _rewritten(language: Language, text: str) -> str:
    """Literals and operators the language has and SQL lacks, as SQL (outside quoted strings only)."""
    if not language.casefold:
        return text
    parts = _QUOTED.split(text)
    for i in range(0, len(parts), 2):
        part = _DATETIME.sub(r"'\1'", parts[i])
        part = _RELATIVE.sub(lambda m: f"DATE_LITERAL('{m.group(1).upper()}', {m.group(2)})", part)
        parts[i] = _NAMED_RANGE.sub(lambda m: f"DATE_LITERAL('{m.group(1).upper()}', 1)", part)
    joined = "".join(parts)
    if language.shape != "work_items":
        return joined
    joined = _CONTAINS.sub(lambda m: f"{m.group(1) or ''}ILIKE '%{m.group(2)}%'", joined)
    joined = _UNDER.sub(lambda m: f"{m.group(1) or ''}ILIKE '{m.group(2)}%'", joined)
    return _EVER.sub("=", joined)


def _projection(tree: exp.Select) -> tuple[str | None, tuple[str, ...] | None, str | None]:
    source = tree.args.get("from") or tree.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    if not isinstance(table, exp.Table):
        raise QueryError("syntax", "FROM", None)
    columns: list[str] = []
    count: str | None = None
    for item in tree.expressions:
        if isinstance(item, exp.Star):
            return table.name, None, None
        if isinstance(item, exp.Count):
            inner = item.this
            count = path(inner) if isinstance(inner, exp.Column) else ""
        elif isinstance(item, exp.Column):
            columns.append(path(item))
        else:
            raise QueryError("unsupported", f"the selected expression '{item.sql()[:60]}'")
    return table.name, tuple(columns), count


def _order(tree: exp.Select) -> tuple[Ordering, ...]:
    order = tree.args.get("order")
    if not isinstance(order, exp.Order):
        return ()
    found: list[Ordering] = []
    for ordered in order.expressions:
        column = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        if not isinstance(column, exp.Column):
            raise QueryError("unsupported", f"ordering by '{column.sql()[:60]}'")
        explicit = ordered.args.get("nulls_first") if "NULLS" in ordered.sql().upper() else None
        found.append((path(column), bool(ordered.args.get("desc")), explicit))
    return tuple(found)


def _number(node: exp.Expression | None) -> int | None:
    if node is None:
        return None
    value = node.args.get("expression") or node.this
    if not isinstance(value, exp.Literal) or value.is_string or not value.this.isdigit():
        raise QueryError("syntax", value.sql() if isinstance(value, exp.Expression) else "LIMIT", None)
    return int(value.this)


def _last_quote(text: str) -> str:
    at = text.rfind("'")
    return text[at:at + 20] if at >= 0 else text[-20:]


__all__ = ["Ordering", "Parsed", "parse", "path"]
