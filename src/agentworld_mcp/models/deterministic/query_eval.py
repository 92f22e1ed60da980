"""A parsed query evaluated over one record, in Python (no database, nothing executed).

Comparisons are real: numbers as numbers (``"12"`` from a text field compares with ``10``),
ISO dates and times as moments (a day compared with a date-time field covers every moment of
it), booleans as booleans (``true``/``'true'``), text under the language's case rule.
Logic is SQL's three-valued one: a comparison with a field the record lacks is unknown, and
an unknown condition keeps no record; ``field = null`` asks whether it is empty where the
language says so (object-query, OData, formulas). A list field holds a value when one of its
elements does; an object compares by its identity (id, key, name). Relative date literals
(``LAST_N_DAYS:30``, ``TODAY``) are ranges around the episode's clock.

Field paths resolve the way services name fields: exactly, then ignoring case and separators
(``CreatedDate`` is ``created_date``), through nested objects (``Owner.Name``), by the last
segment of a qualified name (``System.Title`` -> ``title``, or ``fields["System.Title"]``)
and by a key suffix (``project`` -> ``project_key``, ``projectId``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .query_detect import Language
from .query_parse import Ordering, path

JSONDict = dict[str, Any]
_SUFFIXES = ("", "_key", "Key", "_id", "Id", "_name", "Name")
MISSING = object()
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$")


_OPERATORS = {"EQ": "=", "NEQ": "!=", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<="}


class _Any:
    """A macro the episode cannot know (the caller ``@me``): every comparison with it holds."""


ANY = _Any()


@dataclass(frozen=True)
class Span:
    """A range of moments ``[start, end)``: a day, or a relative date literal."""

    start: dt.datetime
    end: dt.datetime


def resolve(item: Mapping[str, Any], name: str) -> Any:
    """The value of field path ``name`` on ``item``, or :data:`MISSING`."""
    found = _key(item, name)
    if found is not MISSING:
        return found
    if "." in name:
        head, rest = name.split(".", 1)
        inner = _key(item, head)
        if isinstance(inner, Mapping):
            nested = resolve(inner, rest)
            if nested is not MISSING:
                return nested
        fields = _key(item, "fields")
        if isinstance(fields, Mapping) and (found := _key(fields, name)) is not MISSING:
            return found
        return resolve(item, name.rsplit(".", 1)[-1])
    for suffix in _SUFFIXES[1:]:
        if (found := _key(item, name + suffix)) is not MISSING:
            return found
    fields = item.get("fields")  # records that keep their values under ``fields`` ({id, fields: {Status}})
    return _key(fields, name) if isinstance(fields, Mapping) else MISSING


def has_field(items: Sequence[Mapping[str, Any]], declared: set[str], name: str) -> bool:
    """Whether any record has field ``name``, or the catalog declares it (``declared``: its properties)."""
    normal = {_normal(d) for d in declared}
    last = name.rsplit(".", 1)[-1]
    if _normal(name) in normal or _normal(last) in normal or _normal(name.split(".", 1)[0]) in normal:
        return True
    return any(resolve(item, name) is not MISSING for item in items)


def _key(item: Mapping[str, Any], name: str) -> Any:
    if name in item:
        return item[name]
    wanted = _normal(name)
    for key, value in item.items():
        if _normal(key) == wanted:
            return value
    return MISSING


def _normal(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).casefold()


class Evaluator:
    """Evaluates condition trees of one language over records."""

    def __init__(self, language: Language, now: dt.datetime, params: Mapping[str, Any] | None = None) -> None:
        self.language = language
        self.now = now if now.tzinfo else now.replace(tzinfo=dt.UTC)
        self.params = {k.casefold(): v for k, v in (params or {}).items()}

    # -- conditions ---------------------------------------------------------------------------------
    def holds(self, condition: exp.Expression | None, item: Mapping[str, Any]) -> bool:
        try:
            return condition is None or self.truth(condition, item) is True
        except RecursionError:  # bounded by MAX_NODES; kept as a guard: an unanswerable query keeps nothing
            return False

    def truth(self, node: exp.Expression, item: Mapping[str, Any]) -> bool | None:
        if isinstance(node, exp.Paren):
            return self.truth(node.this, item)
        if isinstance(node, exp.And):
            left, right = self.truth(node.this, item), self.truth(node.expression, item)
            return False if False in (left, right) else None if None in (left, right) else True
        if isinstance(node, exp.Or):
            left, right = self.truth(node.this, item), self.truth(node.expression, item)
            return True if True in (left, right) else None if None in (left, right) else False
        if isinstance(node, exp.Not):
            inner = self.truth(node.this, item)
            return None if inner is None else not inner
        if isinstance(node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
            return self._compare(node, item)
        if isinstance(node, (exp.Like, exp.ILike)):
            return self._like(node, item)
        if isinstance(node, exp.In):
            have = self.value(node.this, item)
            if have is None:
                return None
            return any(self.compare("=", have, self.value(v, item)) for v in node.expressions)
        if isinstance(node, exp.Is):
            have = self.value(node.this, item)
            target = node.expression
            if isinstance(target, exp.Null):
                return _blank(have)
            return self.compare("=", have, self.value(target, item))
        if isinstance(node, exp.Between):
            have = self.value(node.this, item)
            low, high = self.value(node.args["low"], item), self.value(node.args["high"], item)
            above, below = self.compare(">=", have, low), self.compare("<=", have, high)
            return None if None in (above, below) else bool(above and below)
        return _truthy(self.value(node, item))

    def _compare(self, node: exp.Expression, item: Mapping[str, Any]) -> bool | None:
        op = _OPERATORS[type(node).__name__]
        left, right = node.this, node.expression
        if self.language.null_equality and isinstance(right, exp.Null) and op in ("=", "!="):
            empty = _blank(self.value(left, item))
            return empty if op == "=" else not empty
        if self.language.family == "formula" and op in ("=", "!="):  # BLANK() and "" are equal to an empty field
            a, b = self.value(left, item), self.value(right, item)
            if _blank(a) or _blank(b):
                same = _blank(a) and _blank(b)
                return same if op == "=" else not same
            return self.compare(op, a, b)
        return self.compare(op, self.value(left, item), self.value(right, item))

    def compare(self, op: str, have: Any, wanted: Any) -> bool | None:
        """``have op wanted`` (``None``: unknown, a side is missing)."""
        if have is ANY or wanted is ANY:
            return True
        if isinstance(have, list):
            if op == "!=":
                hits = [self.compare("=", h, wanted) for h in have]
                return not any(hits)
            return any(self.compare(op, h, wanted) for h in have)
        if isinstance(have, Mapping):
            names = [v for k, v in have.items() if k.casefold() in ("id", "key", "name", "value", "displayname",
                                                                     "title", "email", "uniquename")]
            hits = [self.compare("=", v, wanted) for v in names]
            return any(hits) if op == "=" else (not any(hits)) if op == "!=" else None
        if have is None or wanted is None:
            return None
        if isinstance(wanted, Span) or isinstance(have, Span):
            return _in_span(op, have, wanted)
        a, b = self._comparable(have, wanted)
        try:
            return {"=": a == b, "!=": a != b, ">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]
        except TypeError:  # a number against words: different kinds are simply unequal
            return op == "!="

    def _comparable(self, have: Any, wanted: Any) -> tuple[Any, Any]:
        if isinstance(have, bool) or isinstance(wanted, bool):
            return _boolean(have), _boolean(wanted)
        number_a, number_b = _number(have), _number(wanted)
        if number_a is not None and number_b is not None and (
                not isinstance(have, str) or not isinstance(wanted, str)):
            return number_a, number_b
        if isinstance(have, str) and isinstance(wanted, str):
            moment_a, moment_b = moment(have), moment(wanted)
            if moment_a is not None and moment_b is not None:
                return moment_a, moment_b
            if self.language.casefold:
                return have.casefold(), wanted.casefold()
        return have, wanted

    def _like(self, node: exp.Expression, item: Mapping[str, Any]) -> bool | None:
        have, pattern = self.value(node.this, item), self.value(node.expression, item)
        if isinstance(have, list):
            return any(like(str(h), str(pattern), True) for h in have if h is not None)
        if have is None or pattern is None:
            return None
        # LIKE ignores case in the object-query languages and in SQLite, the default here; ILIKE always.
        return like(str(have), str(pattern), True)

    # -- values -------------------------------------------------------------------------------------
    def value(self, node: exp.Expression, item: Mapping[str, Any]) -> Any:
        if isinstance(node, exp.Paren):
            return self.value(node.this, item)
        if isinstance(node, exp.Column):
            found = resolve(item, path(node))
            return None if found is MISSING else found
        if isinstance(node, exp.Literal):
            if node.is_string:
                return Span(*_day(node.this)) if _DAY.match(node.this) and self.language.family == "sql" else node.this
            return _number(node.this)
        if isinstance(node, exp.Boolean):
            return bool(node.this)
        if isinstance(node, exp.Null):
            return None
        if isinstance(node, exp.Neg):
            inner = _number(self.value(node.this, item))
            return None if inner is None else -inner
        if isinstance(node, exp.Parameter):
            return self._macro(node.name)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            return self._arithmetic(node, item)
        if isinstance(node, (exp.DPipe, exp.Concat)):
            parts = [self.value(p, item) for p in _arguments(node)]
            return "".join("" if p is None else str(p) for p in parts)
        if isinstance(node, exp.Func):
            return self._call(node, item)
        if isinstance(node, (exp.And, exp.Or, exp.Not, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE,
                             exp.Like, exp.ILike, exp.In, exp.Is, exp.Between)):
            return self.truth(node, item)
        return None

    def _macro(self, name: str) -> Any:
        lowered = name.casefold()
        if lowered == "today":
            return Span(*_day(self.now.date().isoformat()))
        if lowered in self.params and self.params[lowered] not in (None, ""):
            return self.params[lowered]
        return ANY  # ``@me``, ``@project`` with no project given: the caller's own scope

    def _arithmetic(self, node: exp.Expression, item: Mapping[str, Any]) -> Any:
        left, right = self.value(node.this, item), self.value(node.expression, item)
        if isinstance(left, Span) and isinstance(node, (exp.Add, exp.Sub)):  # ``@today - 7``
            days = _number(right)
            if days is None:
                return None
            shift = dt.timedelta(days=days if isinstance(node, exp.Add) else -days)
            return Span(left.start + shift, left.end + shift)
        a, b = _number(left), _number(right)
        if a is None or b is None:
            return None
        if isinstance(node, exp.Add):
            return a + b
        if isinstance(node, exp.Sub):
            return a - b
        if isinstance(node, exp.Mul):
            return a * b
        if b == 0:
            return None
        return a / b if isinstance(node, exp.Div) else a % b

    def _call(self, node: exp.Func, item: Mapping[str, Any]) -> Any:
        name = (str(node.this) if isinstance(node, exp.Anonymous) else node.sql_name()).upper()
        args = [self.value(a, item) for a in _arguments(node)]
        if name == "DATE_LITERAL":
            return self._relative(str(args[0]), int(args[1] or 0))
        if name in ("TODAY", "NOW"):
            return self.now.date().isoformat() if name == "TODAY" else self.now.isoformat()
        function = _FUNCTIONS.get(name)
        if function is None:
            return None
        try:
            return function(self, args)
        except (TypeError, ValueError, IndexError):
            return None

    def _relative(self, name: str, n: int) -> Span:
        today = dt.datetime.combine(self.now.date(), dt.time(), dt.UTC)
        day = dt.timedelta(days=1)
        week_start = today - dt.timedelta(days=(today.weekday() + 1) % 7)  # weeks start on Sunday
        month_start = today.replace(day=1)
        year_start = today.replace(month=1, day=1)
        spans = {
            "TODAY": (today, today + day), "YESTERDAY": (today - day, today), "TOMORROW": (today + day, today + 2 * day),
            "THIS_WEEK": (week_start, week_start + 7 * day), "LAST_WEEK": (week_start - 7 * day, week_start),
            "NEXT_WEEK": (week_start + 7 * day, week_start + 14 * day),
            "THIS_MONTH": (month_start, _months(month_start, 1)), "LAST_MONTH": (_months(month_start, -1), month_start),
            "NEXT_MONTH": (_months(month_start, 1), _months(month_start, 2)),
            "THIS_YEAR": (year_start, _months(year_start, 12)), "LAST_YEAR": (_months(year_start, -12), year_start),
            "NEXT_YEAR": (_months(year_start, 12), _months(year_start, 24)),
        }
        if name in spans:
            return Span(*spans[name])
        unit = name.rsplit("_", 1)[-1]
        length = {"DAYS": n * day, "WEEKS": 7 * n * day}.get(unit)
        if name.startswith("LAST"):  # up to and including today
            start = today - length if length is not None else _months(today, -n * (12 if unit == "YEARS" else 1))
            return Span(start, today + day)
        end = today + day + length if length is not None else _months(today + day, n * (12 if unit == "YEARS" else 1))
        return Span(today + day, end)

    # -- ordering -----------------------------------------------------------------------------------
    def ordered(self, items: list[Any], order: tuple[Ordering, ...], fields_of: Callable[[Any], Mapping[str, Any]]
                ) -> list[Any]:
        """``items`` sorted by ``order`` (stable; missing values first ascending, last descending)."""
        result = list(items)
        for name, descending, nulls_first in reversed(order):
            first = (not descending) if nulls_first is None else nulls_first
            present = [i for i in result if _sortable(resolve(fields_of(i), name)) is not None]
            absent = [i for i in result if _sortable(resolve(fields_of(i), name)) is None]
            present.sort(key=lambda i: self._key(_sortable(resolve(fields_of(i), name))), reverse=descending)
            result = absent + present if first else present + absent
        return result

    def _key(self, value: Any) -> tuple[int, Any]:
        number = _number(value) if not isinstance(value, str) or _MOMENT.match(value) is None else None
        if number is not None:
            return (0, number)
        if isinstance(value, str) and (when := moment(value)) is not None:
            return (1, when)
        text = str(value)
        return (2, text.casefold() if self.language.casefold else text)


# -- helpers ------------------------------------------------------------------------------------------

def _arguments(node: Any) -> list[exp.Expression]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    found: list[exp.Expression] = []
    for key in node.arg_types:
        value = node.args.get(key)
        found += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, exp.Expression)]
    return found


def _blank(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _truthy(value: Any) -> bool | None:
    if value is None or value is ANY:
        return None if value is None else True
    if isinstance(value, Span):
        return True
    if isinstance(value, str):
        return value != "" and value.casefold() != "false"
    return bool(value)


def _boolean(value: Any) -> Any:
    if isinstance(value, str) and value.casefold() in ("true", "false"):
        return value.casefold() == "true"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value) if len(value) < 40 else None
        except ValueError:
            return None
    return None


def moment(text: str) -> dt.datetime | None:
    """An ISO date or date-time as an aware moment (UTC when no offset is given), or None."""
    if not isinstance(text, str) or _MOMENT.match(text) is None:
        return None
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _day(text: str) -> tuple[dt.datetime, dt.datetime]:
    start = moment(text)
    assert start is not None
    return start, start + dt.timedelta(days=1)


def _months(when: dt.datetime, count: int) -> dt.datetime:
    index = when.year * 12 + when.month - 1 + count
    return when.replace(year=index // 12, month=index % 12 + 1, day=1)


def _in_span(op: str, have: Any, wanted: Any) -> bool | None:
    if isinstance(have, Span) and not isinstance(wanted, Span):  # ``TODAY > CloseDate``: turn it round
        flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">="}.get(op, op)
        return _in_span(flipped, wanted, have)
    when = moment(have) if isinstance(have, str) else have.start if isinstance(have, Span) else None
    if when is None or not isinstance(wanted, Span):
        return None
    inside = wanted.start <= when < wanted.end
    return {"=": inside, "!=": not inside, "<": when < wanted.start, "<=": when < wanted.end,
            ">": when >= wanted.end, ">=": when >= wanted.start}[op]


def _sortable(value: Any) -> Any:
    if value is MISSING or value is None or value == "":
        return None
    if isinstance(value, Mapping):
        return next((value[k] for k in ("name", "displayName", "title", "key", "id") if k in value), None)
    return value


def like(text: str, pattern: str, casefold: bool) -> bool:
    """SQL ``LIKE``: ``%`` any run, ``_`` one character; segments matched left to right (no backtracking blowup)."""
    if casefold:
        text, pattern = text.casefold(), pattern.casefold()
    segments = pattern.split("%")
    if len(segments) == 1:
        return len(text) == len(pattern) and _fits(text, 0, pattern)
    first, last, middle = segments[0], segments[-1], segments[1:-1]
    if len(first) + len(last) > len(text) or not _fits(text, 0, first) or not _fits(
            text, len(text) - len(last), last):
        return False
    at, stop = len(first), len(text) - len(last)
    for segment in middle:
        found = _find(text, segment, at, stop)
        if found < 0:
            return False
        at = found + len(segment)
    return True


def _fits(text: str, at: int, segment: str) -> bool:
    return all(p == "_" or text[at + i] == p for i, p in enumerate(segment))


def _find(text: str, segment: str, start: int, stop: int) -> int:
    if "_" not in segment:
        return text.find(segment, start, stop)
    for at in range(start, stop - len(segment) + 1):
        if _fits(text, at, segment):
            return at
    return -1


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _position(needle: Any, hay: Any, casefold: bool, start: Any = None) -> int:
    a, b = _text(needle), _text(hay)
    if casefold:
        a, b = a.casefold(), b.casefold()
    return b.find(a, max(0, int(_number(start) or 1) - 1)) + 1


def _contains(self: Evaluator, args: list[Any]) -> bool | None:
    if args[0] is None:
        return None
    if isinstance(args[0], list):
        return any(_contains(self, [a, args[1]]) for a in args[0])
    return _position(args[1], args[0], self.language.casefold) > 0


def _starts(self: Evaluator, args: list[Any]) -> bool | None:
    a, b = _text(args[0]), _text(args[1])
    if self.language.casefold:
        a, b = a.casefold(), b.casefold()
    return None if args[0] is None else a.startswith(b)


def _ends(self: Evaluator, args: list[Any]) -> bool | None:
    a, b = _text(args[0]), _text(args[1])
    if self.language.casefold:
        a, b = a.casefold(), b.casefold()
    return None if args[0] is None else a.endswith(b)


def _date_part(index: int) -> Callable[[Evaluator, list[Any]], Any]:
    def part(self: Evaluator, args: list[Any]) -> Any:
        when = moment(_text(args[0]))
        return None if when is None else (when.year, when.month, when.day, when.hour, when.minute)[index]
    return part


def _compare_dates(op: str) -> Callable[[Evaluator, list[Any]], Any]:
    def check(self: Evaluator, args: list[Any]) -> Any:
        a, b = moment(_text(args[0])), moment(_text(args[1]))
        return None if a is None or b is None else {"<": a < b, ">": a > b, "=": a == b}[op]
    return check


_FUNCTIONS: dict[str, Callable[[Evaluator, list[Any]], Any]] = {
    "LOWER": lambda s, a: _text(a[0]).lower(), "TOLOWER": lambda s, a: _text(a[0]).lower(),
    "UPPER": lambda s, a: _text(a[0]).upper(), "TOUPPER": lambda s, a: _text(a[0]).upper(),
    "LENGTH": lambda s, a: len(_text(a[0])), "LEN": lambda s, a: len(_text(a[0])),
    "TRIM": lambda s, a: _text(a[0]).strip(), "T": lambda s, a: a[0] if isinstance(a[0], str) else "",
    "CONCAT": lambda s, a: "".join(_text(x) for x in a), "CONCATENATE": lambda s, a: "".join(_text(x) for x in a),
    "ARRAYJOIN": lambda s, a: (_text(a[1]) if len(a) > 1 else ", ").join(
        _text(x) for x in (a[0] if isinstance(a[0], list) else [a[0]])),
    "CONTAINS": _contains, "SUBSTRINGOF": lambda s, a: _contains(s, [a[1], a[0]]),
    "STARTSWITH": _starts, "ENDSWITH": _ends,
    "INDEXOF": lambda s, a: _position(a[1], a[0], False) - 1,
    "SUBSTRING": lambda s, a: _text(a[0])[int(a[1]):(int(a[1]) + int(a[2])) if len(a) > 2 else None],
    "LEFT": lambda s, a: _text(a[0])[:int(a[1])], "RIGHT": lambda s, a: _text(a[0])[-int(a[1]):] if int(a[1]) else "",
    "FIND": lambda s, a: _position(a[0], a[1], False, a[2] if len(a) > 2 else None),
    "SEARCH": lambda s, a: _position(a[0], a[1], True, a[2] if len(a) > 2 else None) or None,
    "BLANK": lambda s, a: None, "IF": lambda s, a: a[1] if _truthy(a[0]) else (a[2] if len(a) > 2 else None),
    "XOR": lambda s, a: sum(1 for x in a if _truthy(x)) % 2 == 1,
    "ABS": lambda s, a: abs(_number(a[0]) or 0), "ROUND": lambda s, a: round(_number(a[0]) or 0, int(
        _number(a[1]) or 0) if len(a) > 1 else 0),
    "VALUE": lambda s, a: _number(a[0]), "COALESCE": lambda s, a: next((x for x in a if x is not None), None),
    "YEAR": _date_part(0), "MONTH": _date_part(1), "DAY": _date_part(2), "HOUR": _date_part(3),
    "MINUTE": _date_part(4), "DATE": lambda s, a: _text(a[0])[:10] or None,
    "IS_BEFORE": _compare_dates("<"), "IS_AFTER": _compare_dates(">"), "IS_SAME": _compare_dates("="),
}

__all__ = ["ANY", "MISSING", "Evaluator", "Span", "has_field", "like", "moment", "resolve"]
