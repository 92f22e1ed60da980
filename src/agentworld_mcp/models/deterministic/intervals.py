"""Intervals: a list's time window, and a write whose end precedes its start.

A listing that takes a pair of bounds named like the entity's own times (``start``/``end``,
``from``/``to``) selects the entities whose span overlaps the window; it is not an equality
filter on ``start`` (a list of ``[2026-12-01, 2026-12-14]`` holds an event at
``2026-12-07T17:30``). A create or update given both ends of an interval is refused when the
end comes before the start (or at it, where the catalog says the end must be *after* it), as
every mature calendar, booking or scheduling API refuses it.

ISO 8601 only: a bare date is its whole day; an instant with an offset is compared as an instant
when both sides carry one, else both are read as wall-clock times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
T = TypeVar("T")

#: Bound pairs a call may take, lower first. ``timeMin``/``timeMax``-style single bounds are records.bound_check's.
PAIRS = (("start", "end"), ("from", "to"), ("begin", "end"), ("start_time", "end_time"), ("startTime", "endTime"),
         ("start_at", "end_at"), ("startAt", "endAt"), ("starts_at", "ends_at"), ("start_datetime", "end_datetime"),
         ("start_date", "end_date"), ("startDate", "endDate"), ("from_date", "to_date"), ("date_from", "date_to"))
#: An entity's own start and end fields, when the window's names are not its fields.
_STARTS = ("start", "start_time", "startTime", "start_at", "startAt", "starts_at", "start_date", "startDate",
           "start_datetime", "begin", "date", "scheduled_at", "due", "due_date", "dueDate")
_ENDS = ("end", "end_time", "endTime", "end_at", "endAt", "ends_at", "end_date", "endDate", "end_datetime")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def instant(value: Any) -> tuple[datetime, bool] | None:
    """``value`` as a datetime and whether it was a bare date; None when it is no ISO 8601 time."""
    if isinstance(value, dict):  # ``start: {dateTime: ...}`` / ``{date: ...}``
        value = value.get("dateTime") or value.get("date")
    if not isinstance(value, str) or not value[:4].isdigit():
        return None
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment, _DAY.fullmatch(text) is not None


def _comparable(a: datetime, b: datetime) -> tuple[datetime, datetime]:
    """Both as instants when both carry an offset, else both as wall-clock times."""
    if (a.tzinfo is None) != (b.tzinfo is None):
        return a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a, b


def before(a: datetime, b: datetime) -> bool:
    x, y = _comparable(a, b)
    return x < y


@dataclass(frozen=True)
class Window:
    """A listing's bounds, by argument name; either may be open."""

    names: tuple[str, str]
    lower: datetime | None
    upper: datetime | None

    def holds(self, item: JSONDict) -> bool:
        """Whether ``item``'s span meets the window (an item with no time of its own is not excluded)."""
        start = next((m for f in (self.names[0], *_STARTS) if f in item and (m := instant(item[f]))), None)
        if start is None:
            return True
        end = next((m for f in (self.names[1], *_ENDS) if f in item and (m := instant(item[f]))), None)
        first = start[0]
        last = end[0] if end is not None else first + (timedelta(days=1) if start[1] else timedelta(0))
        if self.upper is not None and before(self.upper, first):
            return False
        if self.lower is None:
            return True
        # a timed entity ending exactly at the window's start is outside it; a zero-length one at it is inside
        return before(self.lower, last) or (last == first and not before(first, self.lower))


def window(step: Step, arguments: JSONDict) -> Window | None:
    """The window a list call asks for: a bound pair its inputSchema offers, at least one given as a time."""
    props = step.tool.input_schema.get("properties") or {}
    for low, high in PAIRS:
        if low not in props or high not in props:
            continue
        lower, upper = instant(arguments.get(low)), instant(arguments.get(high))
        if lower is None and upper is None:
            continue
        # a bare date as the upper bound takes in the whole of its day
        top = (upper[0] + timedelta(days=1) - timedelta(microseconds=1)) if upper and upper[1] else (
            upper[0] if upper else None)
        return Window((low, high), lower[0] if lower else None, top)
    return None


def inverted(step: Step) -> Prediction | None:
    """A write given an interval whose end precedes its start: the service's refusal."""
    from .common import error

    props = step.tool.input_schema.get("properties") or {}
    for low, high in PAIRS:
        start, end = instant(step.arguments.get(low)), instant(step.arguments.get(high))
        if low not in props or high not in props or start is None or end is None:
            continue
        strict = _says_after(step, props.get(high))
        x, y = _comparable(start[0], end[0])
        if y < x or (strict and y == x):
            relation = "after" if strict else "at or after"
            return error(f"Invalid interval: {high} ({step.arguments[high]}) must be {relation} "
                         f"{low} ({step.arguments[low]})")
    return None


def _says_after(step: Step, schema: Any) -> bool:
    """Whether the catalog says the end must come *after* the start (so an empty interval is refused too)."""
    text = " ".join(str(s.get("description") or "") for s in (schema,) if isinstance(s, dict))
    text += " " + str(step.tool.description or "")
    return re.search(r"\bmust (?:be|come|fall) (?:strictly )?after\b", text, re.IGNORECASE) is not None


#: A listing's description naming the field its items are sorted by (``sorted by start``).
_SORTED_BY = re.compile(r"\b(?:sorted|ordered)\s+by\s+`?([A-Za-z_][A-Za-z0-9_]*)`?", re.IGNORECASE)


def described_order(step: Step, items: list[T], fields: Callable[[T], JSONDict]) -> list[T]:
    """``items`` in the order the listing's description states when it names a time field
    (``sorted by start``): by instant, a bare date at its midnight; items without one keep their place last."""
    match = _SORTED_BY.search(str(step.tool.definition.get("description") or ""))
    if match is None:
        return items
    name = match.group(1)
    timed = [(instant(fields(item).get(name)), index, item) for index, item in enumerate(items)]
    if not any(t is not None for t, _, _ in timed):
        return items

    def key(entry: tuple[tuple[datetime, bool] | None, int, T]) -> tuple[int, datetime, int]:
        moment = entry[0][0] if entry[0] is not None else datetime.max
        as_utc = moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment
        return (entry[0] is None, as_utc, entry[1])

    return [item for _, _, item in sorted(timed, key=key)]
