"""Recurrence rules (RFC 5545 ``RRULE``): refused when invalid, expanded where a listing shows occurrences.

A write carrying a rule the standard rejects (``FREQ=FORTNIGHTLY``, a part no rule has) is refused
as every iCalendar-based service refuses it. A listing whose description says it shows occurrences
("expanding recurring series", "one entry per occurrence", "instances") lists one item per repeat
of a stored series inside the call's window, each with its own start and end.

python-dateutil reads and expands the rules where it is installed (it comes with the ``engines``
extra); without it, rules are checked against RFC 5545's grammar of parts and not expanded.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .intervals import Window, instant, window

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]

#: Argument and field names that hold a recurrence rule.
_RULE_NAMES = frozenset({"rrule", "recurrence", "recurrence_rule", "recurrenceRule", "rrules", "repeat_rule"})
_FREQS = frozenset({"SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"})
_PARTS = frozenset({"FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
                    "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST"})
#: A listing's description that says it lists occurrences, not series.
_OCCURRENCES = re.compile(r"\boccurrences?\b|\bexpand(?:s|ed|ing)?\b|\binstances\b", re.IGNORECASE)
#: At most this many occurrences of one series in one answer.
_MOST = 366


def _rules(value: Any) -> list[str]:
    """The RRULE bodies a value holds: ``FREQ=...``, ``RRULE:FREQ=...``, or a list of such lines."""
    lines = value if isinstance(value, list) else [value]
    found = []
    for line in lines:
        if not isinstance(line, str) or not line.strip():
            continue
        text = line.strip()
        if text.upper().startswith("RRULE:"):
            found.append(text[6:])
        elif "=" in text and not text.upper().startswith(("EXDATE", "RDATE", "EXRULE", "DTSTART")):
            found.append(text)
    return found


def _rule_fields(values: JSONDict) -> list[str]:
    return [k for k, v in values.items() if k in _RULE_NAMES and v not in (None, "", [])]


def invalid_rule(step: Step) -> Prediction | None:
    """A write whose recurrence rule RFC 5545 rejects: the service's refusal naming the problem."""
    from .common import error

    for name in _rule_fields(step.arguments):
        for body in _rules(step.arguments[name]):
            problem = _problem(body)
            if problem is not None:
                return error(f"Invalid recurrence rule {body!r}: {problem}")
    return None


def _problem(body: str) -> str | None:
    """What is wrong with one RRULE body, else None."""
    parts: dict[str, str] = {}
    for part in body.split(";"):
        name, sep, value = part.partition("=")
        if not sep or not value:
            return f"malformed part {part!r}"
        parts[name.strip().upper()] = value.strip()
    unknown = sorted(set(parts) - _PARTS)
    if unknown:
        return f"unknown part {unknown[0]}"
    if parts.get("FREQ", "").upper() not in _FREQS:
        return f"invalid FREQ {parts.get('FREQ')!r}" if "FREQ" in parts else "FREQ is required"
    if "COUNT" in parts and "UNTIL" in parts:
        return "COUNT and UNTIL cannot both be given"
    try:
        from dateutil.rrule import rrulestr  # type: ignore[import-untyped]
    except ImportError:  # the grammar above is the check
        return None
    try:
        rrulestr(body, dtstart=datetime(2000, 1, 1))
    except (ValueError, TypeError) as bad:
        return str(bad) or "invalid rule"
    return None


def expands(step: Step) -> Window | None:
    """The window of a listing that shows each occurrence of a series (its description says so)."""
    if not _OCCURRENCES.search(step.tool.description or ""):
        return None
    return window(step, step.arguments)


def occurrences(fields: JSONDict, within: Window | None) -> list[JSONDict]:
    """``fields`` once, or, for a stored series in an occurrence listing, one copy per repeat in the window."""
    names = _rule_fields(fields)
    if within is None or not names:
        return [fields]
    bodies = _rules(fields[names[0]])
    start_name = next((n for n in (within.names[0], "start", "start_time", "startTime") if instant(fields.get(n))), None)
    if not bodies or start_name is None:
        return [fields]
    first = instant(fields[start_name])
    end_name = next((n for n in (within.names[1], "end", "end_time", "endTime") if instant(fields.get(n))), None)
    last = instant(fields[end_name]) if end_name else None
    try:
        from dateutil.rrule import rrulestr
    except ImportError:
        return [fields]
    assert first is not None
    try:
        rule = rrulestr(bodies[0], dtstart=first[0])
    except (ValueError, TypeError):
        return [fields]
    span = last[0] - first[0] if last is not None and (last[0].tzinfo is None) == (first[0].tzinfo is None) else None
    shown = []
    for n, moment in enumerate(rule):
        if n >= _MOST or (within.upper is not None and _after(moment, within.upper)):
            break
        copy = dict(fields)
        copy[start_name] = _written(moment, first[1])
        if end_name and span is not None:
            copy[end_name] = _written(moment + span, first[1])
        shown.append(copy)
    return shown or [fields]


def _after(a: datetime, b: datetime) -> bool:
    from .intervals import before

    return before(b, a)


def _written(moment: datetime, day: bool) -> str:
    return moment.date().isoformat() if day else moment.isoformat()
