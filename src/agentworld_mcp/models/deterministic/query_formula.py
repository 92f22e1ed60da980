"""Spreadsheet-like formula filters (``AND({Status}='Open', {Priority}>2)``) parsed into a condition tree.

A record is kept when the formula's value is truthy (not empty, zero, false or blank). The
grammar is the one spreadsheet-style databases document for filter formulas: field
references in braces (``{Due date}``) or bare (``Status``), string (single or double
quotes), number and ``TRUE()``/``FALSE()`` literals, comparisons ``= != <> < > <= >=``,
``&`` (join text), ``+ - * /`` and function calls. The logical functions (``AND``, ``OR``,
``NOT``) become the tree's own connectives; the others are evaluated by name in
:mod:`.query_eval` (``FIND``, ``SEARCH``, ``LOWER``, ``UPPER``, ``LEN``, ``TRIM``,
``BLANK``, ``IF``, ``IS_BEFORE``, ``IS_AFTER``, ``CONCATENATE``...). An unknown function
is an error naming it.
"""

from __future__ import annotations

import re

from sqlglot import exp

from .query_errors import QueryError, TokenCursor

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<field>\{[^{}]*\})
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_][\w.]*)
  | (?P<op><=|>=|!=|<>|=|<|>|&|\+|-|\*|/)
  | (?P<punct>[(),])
""", re.VERBOSE)
_COMPARISONS: dict[str, type[exp.Expression]] = {
    "=": exp.EQ, "!=": exp.NEQ, "<>": exp.NEQ, "<": exp.LT, ">": exp.GT, "<=": exp.LTE, ">=": exp.GTE}
_TERMS: dict[str, type[exp.Expression]] = {"+": exp.Add, "-": exp.Sub}
_FACTORS: dict[str, type[exp.Expression]] = {"*": exp.Mul, "/": exp.Div}
FUNCTIONS = frozenset({"FIND", "SEARCH", "LOWER", "UPPER", "LEN", "TRIM", "BLANK", "IF", "IS_BEFORE", "IS_AFTER",
                       "IS_SAME", "CONCATENATE", "TODAY", "NOW", "ABS", "ROUND", "VALUE", "LEFT", "RIGHT",
                       "ARRAYJOIN", "T", "XOR"})


def parse(text: str) -> exp.Expression:
    """The formula ``text`` states (``QueryError`` at the first token the grammar does not expect)."""
    return _Parser(text).whole()


class _Parser(TokenCursor):
    END = "end of formula"

    def __init__(self, text: str) -> None:
        super().__init__(_TOKEN, text)

    def whole(self) -> exp.Expression:
        if not self.tokens:
            raise QueryError("syntax", self.END, 0)
        node = self.comparison()
        if self.at < len(self.tokens):
            self.fail()
        return node

    def peek(self) -> str | None:
        token = self.current()
        return token[1] if token else None

    def take(self, text: str) -> None:
        if self.peek() != text:
            self.fail()
        self.at += 1

    # -- grammar, loosest binding first ------------------------------------------------------------
    def comparison(self) -> exp.Expression:
        node = self.joined()
        op = self.peek()
        if op in _COMPARISONS:
            self.at += 1
            return _COMPARISONS[op](this=node, expression=self.joined())
        return node

    def joined(self) -> exp.Expression:
        node = self.terms()
        while self.peek() == "&":
            self.at += 1
            node = exp.Anonymous(this="CONCATENATE", expressions=[node, self.terms()])
        return node

    def terms(self) -> exp.Expression:
        node = self.factors()
        while (op := self.peek()) in _TERMS:
            self.at += 1
            node = _TERMS[op](this=node, expression=self.factors())
        return node

    def factors(self) -> exp.Expression:
        node = self.unary()
        while (op := self.peek()) in _FACTORS:
            self.at += 1
            node = _FACTORS[op](this=node, expression=self.unary())
        return node

    def unary(self) -> exp.Expression:
        if self.peek() == "-":
            self.at += 1
            return exp.Neg(this=self.unary())
        return self.primary()

    def primary(self) -> exp.Expression:
        if self.at >= len(self.tokens):
            self.fail()
        kind, text, _ = self.tokens[self.at]
        self.at += 1
        if text == "(":
            node = self.comparison()
            self.take(")")
            return exp.Paren(this=node)
        if kind == "string":
            return exp.Literal.string(re.sub(r"\\(.)", r"\1", text[1:-1]))
        if kind == "number":
            return exp.Literal.number(text)
        if kind == "field":
            return exp.column(text[1:-1].strip(), quoted=True)
        if kind != "name":
            self.at -= 1
            self.fail()
        if self.peek() == "(":
            return self.call(text)
        if text.upper() in ("TRUE", "FALSE"):
            return exp.Boolean(this=text.upper() == "TRUE")
        return exp.column(text, quoted=True)

    def call(self, name: str) -> exp.Expression:
        upper = name.upper()
        self.take("(")
        args: list[exp.Expression] = []
        if self.peek() != ")":
            args.append(self.comparison())
            while self.peek() == ",":
                self.at += 1
                args.append(self.comparison())
        self.take(")")
        if upper in ("AND", "OR") and args:
            node = args[0]
            for arg in args[1:]:
                node = (exp.And if upper == "AND" else exp.Or)(this=node, expression=arg)
            return exp.Paren(this=node)
        if upper == "NOT" and len(args) == 1:
            return exp.Not(this=args[0])
        if upper in ("TRUE", "FALSE") and not args:
            return exp.Boolean(this=upper == "TRUE")
        if upper not in FUNCTIONS:
            raise QueryError("unsupported", f"the function {upper}()")
        return exp.Anonymous(this=upper, expressions=args)


__all__ = ["FUNCTIONS", "parse"]
