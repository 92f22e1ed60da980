"""Which query language an argument speaks, read from the catalog (and, failing that, the value).

A tool's argument holds an expression over the records rather than a field value when its
name or its description says so: ``whereClause`` / "SQL WHERE clause", ``$filter`` /
"OData filter expression", ``filterByFormula`` / "formula", ``jql``, "SOQL query", "WIQL"...
The language decides the grammar (:mod:`.query_parse`), how strings compare (case rules)
and how errors are worded (each language's own style). An undeclared ``filter`` argument is
judged by its value: OData operators (``price gt 10``) or formula field references
(``{Status}``) name their language; anything else keeps the JQL-like reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ...world.sql_roles import dialect_of

JSONDict = dict[str, Any]
Family = Literal["sql", "odata", "formula", "search", "jql"]


@dataclass(frozen=True)
class Language:
    """One query language: its grammar family and the rules its documentation states."""

    #: Words for messages ("object query", "OData"...).
    name: str
    family: Family
    #: String comparisons (``=``, ``LIKE``, ``contains``) ignore case.
    casefold: bool = False
    #: ``field = null`` asks whether the field is empty (object-query languages, OData, formulas);
    #: in plain SQL it is unknown, so no record holds.
    null_equality: bool = True
    #: The argument takes whole ``SELECT ... FROM object`` statements, not a condition alone.
    statement: bool = False
    #: sqlglot's dialect for SQL-shaped text (bracketed identifiers, ``@macros``).
    dialect: str | None = None
    #: How the answer to a statement is shaped: ``records`` (totalSize/done/records) or ``work_items``.
    shape: str = "records"


OBJECT_QUERY = Language("object query", "sql", casefold=True, statement=True)
WORK_ITEM_QUERY = Language("work-item query", "sql", casefold=True, statement=True, dialect="tsql",
                           shape="work_items")
SQL_WHERE = Language("SQL", "sql", null_equality=False)
ODATA = Language("OData", "odata")
FORMULA = Language("formula", "formula")
SEARCH = Language("search", "search", casefold=True)
JQL = Language("JQL", "jql", casefold=True)

#: Argument names that hold an expression whatever their description says (today's list).
EXPRESSION_ARGS = frozenset({"jql", "cql", "filter", "filters", "filter_query", "filterQuery", "filterByFormula",
                             "formula", "where", "query_string", "whereClause", "where_clause", "wiql", "soql",
                             "$filter", "$search", "odata_filter", "odataFilter"})

_OBJECT_WORDS = re.compile(r"\bsoql\b|object query language", re.IGNORECASE)
_WORK_ITEM_WORDS = re.compile(r"\bwiql\b|work[- ]?item query language", re.IGNORECASE)
_ODATA_WORDS = re.compile(r"\bodata\b|\$filter\b", re.IGNORECASE)
_FORMULA_WORDS = re.compile(r"\bformula\b", re.IGNORECASE)
_WHERE_WORDS = re.compile(r"\bwhere[- ]?clause\b|\bsql[- ]like\b|\bsql (?:filter|condition|expression|where)\b",
                          re.IGNORECASE)
_JQL_WORDS = re.compile(r"\bjql\b|\bcql\b", re.IGNORECASE)
#: Value shapes that name a language when the catalog does not.
_ODATA_VALUE = re.compile(
    r"^\s*(?:not\s+)?(?:[A-Za-z_][\w/]*\s+(?:eq|ne|gt|ge|lt|le|in)\s+\S"
    r"|(?:contains|startswith|endswith|substringof)\s*\()", re.IGNORECASE)
_FORMULA_VALUE = re.compile(r"^\s*(?:AND|OR|NOT|FIND|SEARCH|IF)\s*\(|\{[^{}]+\}\s*(?:=|!=|<|>)")
_SELECT = re.compile(r"^\s*select\s+\S.*?\bfrom\s+[\w\[\]]", re.IGNORECASE | re.DOTALL)


def declared(tool: JSONDict, arg: str) -> Language | None:
    """The language the catalog says ``arg`` of ``tool`` speaks, or None (not an expression argument)."""
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    schema = props.get(arg)
    if not isinstance(schema, dict) or schema.get("type") not in ("string", None):
        return None
    own = f"{arg} {schema.get('description') or ''}"
    everything = f"{own} {tool.get('description') or ''}"
    lowered = arg.lower().lstrip("$")
    if _WORK_ITEM_WORDS.search(own) or (lowered == "query" and _WORK_ITEM_WORDS.search(everything)):
        return WORK_ITEM_QUERY
    if _OBJECT_WORDS.search(own) or (lowered == "query" and _OBJECT_WORDS.search(everything)):
        return OBJECT_QUERY
    if arg == "$search":
        return SEARCH
    if _ODATA_WORDS.search(own) or (lowered.startswith("filter") and _ODATA_WORDS.search(everything)):
        return ODATA
    if "formula" in lowered or (lowered.startswith("filter") and _FORMULA_WORDS.search(own)):
        return FORMULA
    if lowered in ("where", "whereclause", "where_clause") or _WHERE_WORDS.search(own):
        return SQL_WHERE if dialect_of(everything) is None else _with_dialect(dialect_of(everything))
    if lowered in ("jql", "cql") or _JQL_WORDS.search(own):
        return JQL
    return JQL if arg in EXPRESSION_ARGS else None


def sniffed(language: Language, value: str) -> Language:
    """An undeclared filter's language read from its value; a declared language stands."""
    if language is not JQL:
        return language
    if _ODATA_VALUE.search(value):
        return ODATA
    if _FORMULA_VALUE.search(value):
        return FORMULA
    return language


def is_statement(value: str) -> bool:
    """Whether ``value`` is a whole ``SELECT ... FROM object`` statement."""
    return _SELECT.match(value) is not None


def _with_dialect(dialect: str | None) -> Language:
    return Language("SQL", "sql", null_equality=False, dialect=dialect)


__all__ = ["EXPRESSION_ARGS", "FORMULA", "JQL", "Language", "OBJECT_QUERY", "ODATA", "SEARCH", "SQL_WHERE",
           "WORK_ITEM_QUERY", "declared", "is_statement", "sniffed"]
