"""Why a query cannot be answered, worded as its language's own service words it.

A query the model cannot read is an error naming the problem (the unexpected token, the
unknown field), never "every record". The wording follows each language's documented
errors: object-query ``MALFORMED_QUERY: unexpected token`` / ``INVALID_FIELD: No such
column``, OData's ``Syntax error at position N`` / ``Could not find a property named``,
formula ``Unknown field names``, SQLite's ``near "X": syntax error`` / ``no such column``.
"""

from __future__ import annotations

import re
from typing import Literal, NoReturn

from .query_detect import Language

Kind = Literal["syntax", "field", "object", "unsupported", "limit"]

#: Longest expression read, in characters; and most parsed nodes (what evaluation costs per record).
MAX_CHARS = 4000
MAX_NODES = 400


class QueryError(ValueError):
    """A query that cannot be answered: ``kind`` says why, ``detail`` names the token, field or construct."""

    def __init__(self, kind: Kind, detail: str, position: int | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.position = position


def worded(language: Language, problem: QueryError, text: str, entity: str | None = None) -> str:
    """``problem`` as ``language``'s service says it (``entity``: the object or type queried)."""
    what, where = problem.detail, entity or "record"
    position = problem.position if problem.position is not None else max(0, len(text))
    if problem.kind == "limit":
        return f"The {language.name} expression is too large ({what}); simplify it."
    if problem.kind == "unsupported":
        return f"Unsupported in this {language.name} expression: {what}. Rewrite it without that."
    if language.family == "odata":
        return {"syntax": f"Syntax error at position {position} in '{text}'.",
                "field": f"Could not find a property named '{what}' on type '{where}'.",
                "object": f"Resource not found for the segment '{what}'."}[problem.kind]
    if language.family == "formula":
        return {"syntax": f"INVALID_FILTER_BY_FORMULA: The formula for filtering records is invalid: unexpected "
                          f"'{what}' at position {position}. Please check your formula text.",
                "field": f"INVALID_FILTER_BY_FORMULA: Unknown field names: {what}",
                "object": f"Could not find table {what}"}[problem.kind]
    if language.shape == "work_items":
        return {"syntax": f"TF51006: The query statement could not be parsed. The error is caused by «{what}».",
                "field": f"TF51005: The query references a field that does not exist. The error is caused by "
                         f"«{what}».",
                "object": f"TF51005: The query references an object that does not exist. The error is caused by "
                          f"«{what}»."}[problem.kind]
    if language.statement:
        return {"syntax": f"MALFORMED_QUERY: unexpected token: '{what}'",
                "field": f"INVALID_FIELD: No such column '{what}' on entity '{where}'. If you are attempting to use "
                         "a custom field, be sure to append the '__c' after the custom field name. Please reference "
                         "your WSDL or the describe call for the appropriate names.",
                "object": f"INVALID_TYPE: sObject type '{what}' is not supported."}[problem.kind]
    return {"syntax": f'near "{what}": syntax error' if what else "incomplete input",
            "field": f"no such column: {what}",
            "object": f"no such table: {what}"}[problem.kind]




def tokenized(pattern: re.Pattern[str], text: str) -> list[tuple[str, str, int]]:
    """``text`` as (kind, token, offset) triples by ``pattern``'s named groups, spaces (group ``ws``)
    left out; ``QueryError`` at the first character no group matches. Shared by the hand-written
    grammars (OData, formulas)."""
    found: list[tuple[str, str, int]] = []
    at = 0
    while at < len(text):
        match = pattern.match(text, at)
        if match is None:
            raise QueryError("syntax", text[at], at)
        if match.lastgroup != "ws":
            found.append((match.lastgroup or "", match.group(), at))
        at = match.end()
    return found


class TokenCursor:
    """A hand-written grammar's place in its tokens (OData, formulas): the tokens, the one at hand,
    and the syntax error at it, naming :attr:`END` when the text ran out."""

    END = "end of expression"

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self.tokens = tokenized(pattern, text)
        self.at = 0
        self.end = len(text)

    def current(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def fail(self) -> NoReturn:
        token = self.current()
        raise QueryError("syntax", token[1] if token else self.END, token[2] if token else self.end)


__all__ = ["MAX_CHARS", "MAX_NODES", "QueryError", "TokenCursor", "tokenized", "worded"]
