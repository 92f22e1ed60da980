"""List filters written in a query language (JQL, Todoist filters, Airtable-like formulas).

An argument such as ``jql: 'project = ROC AND summary ~ "Engine"'`` or ``filter: 'p1'``
is not a field of the items: it is an expression over them. The common core of these
languages is evaluated: clauses ``field OP value`` (``=``, ``!=``, ``~``, ``!~``, ``:``,
values quoted or bare) joined by ``AND`` (``&``), alternatives by ``OR`` (``|``), an
``ORDER BY`` tail ignored. A field is the item's own (``summary``), or one that names it by
key or id (``project`` -> ``project_key``, ``projectId``); a clause on a field the item does
not have, or on a function (``currentUser()``), cannot be judged and is left out. A bare
word must appear in the item (``p1`` holds for a task of priority ``p1``).
"""

from __future__ import annotations

import re
from typing import Any

JSONDict = dict[str, Any]

#: Argument names that hold an expression rather than a field value.
QUERY_ARGS = frozenset({"jql", "cql", "filter", "filters", "filter_query", "filterQuery", "filterByFormula",
                        "formula", "where", "query_string"})
# Linear time on any input: a separator is tried only where a run of spaces starts ((?<!\s)), not
# again from each space within it (quadratic in a long run); the third alternative is a "|" or
# "&" right after a run the previous separator took, which the original patterns split on too.
_ORDER = re.compile(r"(?<!\s)\s+order\s+by\s+.*$", re.IGNORECASE | re.DOTALL)
_OR = re.compile(r"(?<!\s)(?:\s+or\s+|\s*\|\s*)|(?<=\s)\|\s*", re.IGNORECASE)
_AND = re.compile(r"(?<!\s)(?:\s+and\s+|\s*&\s*)|(?<=\s)&\s*", re.IGNORECASE)
#: ``field OP``; the value is the rest of the clause (``(.+?)\s*$`` there was quadratic in its spaces).
_CLAUSE = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(!=|!~|=|~|:)")
_SUFFIXES = ("", "_key", "Key", "_id", "Id", "_name", "Name")


def is_expression(name: str, value: Any) -> bool:
    return name in QUERY_ARGS and isinstance(value, str) and bool(value.strip())


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


__all__ = ["QUERY_ARGS", "holds", "is_expression"]
