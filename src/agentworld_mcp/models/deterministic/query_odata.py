"""OData ``$filter`` expressions parsed into the condition tree :mod:`.query_eval` evaluates.

The OData v4 URL conventions' common core: comparisons ``eq ne gt ge lt le`` and ``in
(...)``, ``and`` / ``or`` / ``not``, parentheses, arithmetic ``add sub mul div mod``,
string, number, boolean, ``null``, date and date-time literals, property paths
(``Address/City``) and the string and date functions (``contains``, ``startswith``,
``endswith``, ``tolower``, ``toupper``, ``length``, ``indexof``, ``substring``, ``trim``,
``concat``, ``year``, ``month``, ``day``, ``now``). Lambda operators (``any``/``all``) are
named as unsupported. The tree is sqlglot's (the one SQL-shaped queries parse to), built
here by a recursive-descent parser: nothing is executed, and a malformed filter raises
:class:`~.query_errors.QueryError` with the position of the unexpected token.
"""

from __future__ import annotations

import re

from sqlglot import exp

from .query_errors import QueryError, TokenCursor

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<string>'(?:[^']|'')*')
  | (?P<date>\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?)
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[mMdDlL]?)
  | (?P<name>[A-Za-z_$@][\w.]*(?:/[A-Za-z_$@][\w.]*)*)
  | (?P<punct>[(),:])
""", re.VERBOSE)
_COMPARISONS: dict[str, type[exp.Expression]] = {
    "eq": exp.EQ, "ne": exp.NEQ, "gt": exp.GT, "ge": exp.GTE, "lt": exp.LT, "le": exp.LTE}
_ARITHMETIC: dict[str, type[exp.Expression]] = {"add": exp.Add, "sub": exp.Sub, "mul": exp.Mul, "div": exp.Div,
                                                "mod": exp.Mod}
FUNCTIONS = frozenset({"contains", "startswith", "endswith", "tolower", "toupper", "length", "indexof", "substring",
                       "trim", "concat", "year", "month", "day", "hour", "minute", "now", "date", "substringof"})


def parse(text: str) -> exp.Expression:
    """The condition ``text`` states (``QueryError`` at the first token the grammar does not expect)."""
    return _Parser(text).whole()


class _Parser(TokenCursor):
    def __init__(self, text: str) -> None:
        super().__init__(_TOKEN, text)

    def whole(self) -> exp.Expression:
        node = self.disjunction()
        if self.at < len(self.tokens):
            self.fail()
        return node

    # -- tokens ------------------------------------------------------------------------------------
    def word(self) -> str:
        token = self.current()
        return token[1].lower() if token is not None and token[0] == "name" else ""

    def take(self, text: str) -> None:
        token = self.current()
        if token is None or token[1].lower() != text:
            self.fail()
        self.at += 1

    # -- grammar, loosest binding first ------------------------------------------------------------
    def disjunction(self) -> exp.Expression:
        node = self.conjunction()
        while self.word() == "or":
            self.at += 1
            node = exp.Or(this=node, expression=self.conjunction())
        return node

    def conjunction(self) -> exp.Expression:
        node = self.negation()
        while self.word() == "and":
            self.at += 1
            node = exp.And(this=node, expression=self.negation())
        return node

    def negation(self) -> exp.Expression:
        if self.word() == "not":
            self.at += 1
            return exp.Not(this=self.negation())
        return self.comparison()

    def comparison(self) -> exp.Expression:
        node = self.additive()
        op = self.word()
        if op in _COMPARISONS:
            self.at += 1
            return _COMPARISONS[op](this=node, expression=self.additive())
        if op == "in":
            self.at += 1
            self.take("(")
            values = [self.additive()]
            while self.current() is not None and self.current()[1] == ",":  # type: ignore[index]
                self.at += 1
                values.append(self.additive())
            self.take(")")
            return exp.In(this=node, expressions=values)
        if op == "has":
            raise QueryError("unsupported", "the 'has' operator")
        return node

    def additive(self) -> exp.Expression:
        node = self.primary()
        while self.word() in _ARITHMETIC:
            op = self.word()
            self.at += 1
            node = _ARITHMETIC[op](this=node, expression=self.primary())
        return node

    def primary(self) -> exp.Expression:
        token = self.current()
        if token is None:
            self.fail()
        assert token is not None
        kind, text, _ = token
        self.at += 1
        if text == "(":
            node = self.disjunction()
            self.take(")")
            return exp.Paren(this=node)
        if kind == "string":
            return exp.Literal.string(text[1:-1].replace("''", "'"))
        if kind == "date":
            return exp.Literal.string(text)
        if kind == "number":
            return exp.Literal.number(text.rstrip("mMdDlL"))
        if kind != "name":
            self.at -= 1
            self.fail()
        lowered = text.lower()
        if lowered in ("true", "false"):
            return exp.Boolean(this=lowered == "true")
        if lowered == "null":
            return exp.Null()
        if lowered in ("-", "not"):
            self.at -= 1
            self.fail()
        following = self.current()
        if following is not None and following[1] == "(":
            return self.call(text)
        if following is not None and following[1] == ":":
            self.fail()
        return exp.column(text.replace("/", "."), quoted=True)

    def call(self, name: str) -> exp.Expression:
        last = name.rsplit("/", 1)[-1].lower()
        if last in ("any", "all"):
            raise QueryError("unsupported", f"the lambda operator '{last}'")
        if name.lower() not in FUNCTIONS:
            raise QueryError("unsupported", f"the function '{name}'")
        self.take("(")
        args: list[exp.Expression] = []
        if self.current() is not None and self.current()[1] != ")":  # type: ignore[index]
            args.append(self.disjunction())
            while self.current() is not None and self.current()[1] == ",":  # type: ignore[index]
                self.at += 1
                args.append(self.disjunction())
        self.take(")")
        return exp.Anonymous(this=name.lower(), expressions=args)


__all__ = ["FUNCTIONS", "parse"]
