"""List filters written in a query language, evaluated over the episode's records.

An argument such as ``whereClause: "Name LIKE 'Acme%'"``, ``$filter: "price gt 10"``,
``filterByFormula: "AND({Status}='Open', {Priority}>2)"`` or ``jql: 'project = ROC'`` is
not a field of the items: it is an expression over them. Which language it is comes from
the catalog (:mod:`.query_detect`); SQL-shaped clauses, OData filters and formulas are
parsed (:mod:`.query_parse`) and evaluated with real comparisons (:mod:`.query_eval`).
Whole ``SELECT`` statements of object-query languages are :mod:`.query_statement`'s.

Two entry points for the record model's listing: :func:`filter_query` gives the predicate
one argument applies to each item, and :func:`listing` runs after the items are found: an
unreadable query or a field that no record has and the catalog does not declare becomes the
language's own error (a filter that cannot be read keeps no item, never every item), and the
query's ``ORDER BY``/``LIMIT`` (or OData's ``$orderby``/``$top``/``$skip``) apply.

The JQL-like reading is kept for ``jql``/``cql`` and undeclared ``filter`` arguments whose
value is not OData or a formula: clauses ``field OP value`` (``=``, ``!=``, ``~``, ``!~``,
``:``) joined by ``AND`` (``&``) and ``OR`` (``|``), a bare word that must appear in the item
(``p1``); a clause on a field the item lacks or on a function (``currentUser()``) cannot be
judged and is left out; an ``ORDER BY`` tail orders the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from ...world.roles import ToolRole
from ..base import Prediction, Step
from .common import clock, error, item_schema
from .query_detect import EXPRESSION_ARGS, JQL, Language, declared, sniffed
from .query_errors import QueryError, worded
from .query_eval import Evaluator, has_field
from .query_parse import Ordering, Parsed, parse
from .query_statement import predict_statement

JSONDict = dict[str, Any]
T = TypeVar("T")

#: Argument names that hold an expression rather than a field value (whatever their description).
QUERY_ARGS = EXPRESSION_ARGS
# Linear time on any input: a separator is tried only where a run of spaces starts ((?<!\s)), not
# again from each space within it (quadratic in a long run); the third alternative is a "|" or
# "&" right after a run the previous separator took, which the original patterns split on too.
_ORDER = re.compile(r"(?<!\s)\s+order\s+by\s+(.*)$", re.IGNORECASE | re.DOTALL)
_OR = re.compile(r"(?<!\s)(?:\s+or\s+|\s*\|\s*)|(?<=\s)\|\s*", re.IGNORECASE)
_AND = re.compile(r"(?<!\s)(?:\s+and\s+|\s*&\s*)|(?<=\s)&\s*", re.IGNORECASE)
#: ``field OP``; the value is the rest of the clause (``(.+?)\s*$`` there was quadratic in its spaces).
_CLAUSE = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(!=|!~|=|~|:)")
_SUFFIXES = ("", "_key", "Key", "_id", "Id", "_name", "Name")
_SORT_TERM = re.compile(r"^\s*([\w.$/\[\]]+)(?:\s+(asc|desc))?\s*$", re.IGNORECASE)


def is_expression(name: str, value: Any) -> bool:
    return name in QUERY_ARGS and isinstance(value, str) and bool(value.strip())


def language_of(step: Step | None, name: str) -> Language | None:
    """The language argument ``name`` of the step's tool speaks (read once per catalog), or None."""
    if step is None:
        return JQL if name in QUERY_ARGS else None
    return step.derived(("query-language", step.tool.name, name), lambda: declared(step.tool.definition, name))


def filter_query(step: Step | None, name: str, value: Any) -> Callable[[JSONDict], bool] | None:
    """The predicate argument ``name`` (value ``value``) applies to each item, or None: not an expression."""
    if not isinstance(value, str) or not value.strip():
        return None
    language = language_of(step, name)
    if language is None:
        return None
    language = sniffed(language, value)
    if language.family == "jql":
        return lambda item: holds(value, item, _haystack(item))
    if language.family == "search":
        return lambda item: _searched(value, _haystack(item))
    try:
        parsed = parse(language, value)
    except QueryError:
        return lambda item: False  # :func:`listing` answers with the language's error
    evaluator = Evaluator(language, clock(step.turn if step else 0), step.arguments if step else {})
    return lambda item: evaluator.holds(parsed.condition, item)


def listing(step: Step, role: ToolRole, found: list[T], fields_of: Callable[[T], JSONDict]
            ) -> tuple[list[T], Prediction | None]:
    """``found`` ordered and cut as the call's query says, or the error its query deserves."""
    for name in role.filters:
        value = step.arguments.get(name)
        language = language_of(step, name) if isinstance(value, str) and value.strip() else None
        if language is None or not isinstance(value, str):
            continue
        language = sniffed(language, value)
        if language.family == "jql":
            order = _jql_order(value)
            found = Evaluator(language, clock(step.turn)).ordered(found, order, fields_of) if order else found
            continue
        if language.family == "search":
            continue
        try:
            parsed = parse(language, value)
            _check_fields(step, role, parsed)
        except QueryError as problem:
            return found, error(worded(language, problem, value, role.collection))
        found = _ordered_and_cut(step, language, parsed, found, fields_of)
    return found, None


def _check_fields(step: Step, role: ToolRole, parsed: Parsed) -> None:
    items = [e.fields for e in step.episode.ledger.items(role.collection)]
    schema = item_schema(step, role, many=True) or {}
    known = set(schema.get("properties") or {})
    from . import records  # the catalog's entity model: fields no record has yet are still fields

    entity = records.entity_type(step, role)
    if entity is not None:
        known |= set(entity.fields)
    if not items and not known:
        return
    unknown = next((f for f in sorted(parsed.fields) if not has_field(items, known, f)), None)
    if unknown is not None:
        raise QueryError("field", unknown)


def _ordered_and_cut(step: Step, language: Language, parsed: Parsed, found: list[T],
                     fields_of: Callable[[T], JSONDict]) -> list[T]:
    evaluator = Evaluator(language, clock(step.turn))
    order = parsed.order or _sort_argument(step.arguments.get("$orderby"))
    found = evaluator.ordered(found, order, fields_of) if order else found
    skip = parsed.offset or _count(step.arguments.get("$skip")) or 0
    limit = parsed.limit if parsed.limit is not None else _count(step.arguments.get("$top"))
    found = found[skip:]
    return found[:limit] if limit is not None else found


def _sort_argument(value: Any) -> tuple[Ordering, ...]:
    """OData's ``$orderby=name desc, price``."""
    if not isinstance(value, str):
        return ()
    order: list[Ordering] = []
    for term in value.split(",")[:16]:
        match = _SORT_TERM.match(term)
        if match:
            order.append((match.group(1).replace("/", "."), (match.group(2) or "").lower() == "desc", None))
    return tuple(order)


def _jql_order(value: str) -> tuple[Ordering, ...]:
    match = _ORDER.search(value)
    return _sort_argument(match.group(1)) if match else ()


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def _searched(value: str, haystack: str) -> bool:
    """OData ``$search``: every term (quoted phrases whole) appears; ``OR`` between groups, ``NOT term`` absent."""
    for alternative in re.split(r"\s+OR\s+", value.strip()):
        terms = re.findall(r'(NOT\s+)?("[^"]*"|\S+)', alternative)
        if terms and all((term.strip('"').casefold() in haystack) != bool(negated)
                         for negated, term in terms if term.upper() != "AND"):
            return True
    return False


def _haystack(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(_haystack(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_haystack(v) for v in value)
    return str(value).casefold() if isinstance(value, str) else ""


# -- the JQL-like reading -----------------------------------------------------------------------------

def holds(expression: str, item: JSONDict, haystack: str) -> bool:
    """Whether ``item`` (with ``haystack``, its text, casefolded) satisfies ``expression``."""
    expression = _ORDER.sub("", expression).strip()
    if not expression:
        return True
    return any(all(_term(term, item, haystack) for term in _AND.split(alt) if term.strip())
               for alt in _OR.split(expression) if alt.strip())


def _term(term: str, item: JSONDict, haystack: str) -> bool:
    term = term.strip().strip("()")
    match = _CLAUSE.match(term)
    rest = term[match.end():] if match is not None else ""
    # A value is one line (spaces around it aside) with at least one character: what the old
    # ``\s*(.+?)\s*$`` took, whose spaces ``strip`` drops below anyway.
    if match is None or "\n" in rest.strip() or not rest.replace("\n", ""):
        return term.strip("\"'").casefold() in haystack
    field, op = match.groups()
    wanted = rest.strip().strip("\"'")
    if wanted.endswith(")"):  # ``currentUser()``, ``now()``: a function the model cannot evaluate
        return True
    have = _field(item, field)
    if have is None:
        return True
    text = " ".join(str(v) for v in have) if isinstance(have, list) else str(have)
    if op in ("~", "!~"):
        found = wanted.casefold() in text.casefold()
        return found if op == "~" else not found
    equal = any(str(v).casefold() == wanted.casefold() for v in (have if isinstance(have, list) else [have]))
    return equal if op in ("=", ":") else not equal


def _field(item: JSONDict, name: str) -> Any:
    lowered = {k.casefold(): v for k, v in item.items()}
    for suffix in _SUFFIXES:
        value = lowered.get((name + suffix).casefold())
        if value is not None:
            return value
    return None


__all__ = ["QUERY_ARGS", "filter_query", "holds", "is_expression", "language_of", "listing", "predict_statement"]
