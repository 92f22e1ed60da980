"""An interval created without its end gets the default end its description states.

``create_event(start, end=None)`` whose text says "With no `end`, the event defaults to 1 hour
after this `start` (1 day for all-day)" stores ``end = start + 1 hour`` (``start + 1 day`` for a
date-only or all-day start), so a later listing shows the end the real service would. Nothing is
invented where the catalog states no default: the end then stays absent.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime, timedelta
from typing import Any

from ..base import Step
from ...world.roles import words

JSONDict = dict[str, Any]

_NUMBERS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "half": 0}
_UNITS = {"minute": timedelta(minutes=1), "hour": timedelta(hours=1), "day": timedelta(days=1),
          "week": timedelta(weeks=1)}
_DURATION = re.compile(r"\b(\d+|one|an?|two|three)\s*-?\s*(minute|hour|day|week)s?\b", re.I)
_ALL_DAY = re.compile(r"all[-_ ]?day", re.I)
#: A sentence about what happens when the end is left out.
_DEFAULTING = re.compile(r"\b(default|omit|omitted|no\s+`?end|without\s+(?:an?\s+)?`?end)", re.I)


def with_stated_end(step: Step) -> Step:
    """``step`` with the end its catalog states filled in, when a create leaves it out."""
    if step.role.kind != "create":
        return step
    props: JSONDict = (step.tool.definition.get("inputSchema") or {}).get("properties") or {}
    start_arg = _named(props, "start")
    end_arg = _named(props, "end")
    if start_arg is None or end_arg is None or step.arguments.get(end_arg) is not None:
        return step
    start = step.arguments.get(start_arg)
    if not isinstance(start, str):
        return step
    timed, all_day = step.derived(("stated end", step.tool.name), lambda: stated_durations(step.tool.definition))
    whole_day = "T" not in start or any(step.arguments.get(p) is True for p in props if _ALL_DAY.fullmatch(p))
    duration = all_day if whole_day else timed
    end = _plus(start, duration) if duration is not None else None
    if end is None:
        return step
    return dataclasses.replace(step, arguments={**step.arguments, end_arg: end})


def stated_durations(tool: JSONDict) -> tuple[timedelta | None, timedelta | None]:
    """The default durations (timed, all-day) a tool's texts state for an end left out."""
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    end_arg = _named(props, "end")
    # (text, whether it is about the end already): the end argument's own description need not say "end"
    texts = [(tool.get("description") or "", False)] + [
        (str(s.get("description") or ""), p == end_arg) for p, s in props.items() if isinstance(s, dict)]
    timed: timedelta | None = None
    all_day: timedelta | None = None
    for text, of_end in texts:
        for sentence in re.split(r"(?<=[.;])\s+", text):
            if not _DEFAULTING.search(sentence) or not (of_end or "end" in words(sentence)):
                continue
            for clause in re.split(r"[,;(]", sentence):
                found = _DURATION.search(clause)
                if found is None:
                    continue
                amount = int(found[1]) if found[1].isdigit() else _NUMBERS[found[1].lower()]
                duration = amount * _UNITS[found[2].lower()]
                if _ALL_DAY.search(clause):
                    all_day = all_day or duration
                else:
                    timed = timed or duration
    return timed, all_day


def _named(props: JSONDict, word: str) -> str | None:
    """The one argument whose name starts with ``word`` (``start``, ``start_time``, ``endTime``)."""
    found = [p for p in props if (w := words(p)) and w[0] in (word, word + "s") and len(w) <= 2]
    return found[0] if len(found) == 1 else None


def _plus(start: str, duration: timedelta) -> str | None:
    """``start`` moved by ``duration``, written as ``start`` is (date, minutes or seconds, offset or ``Z``)."""
    text = start.strip()
    try:
        if "T" not in text and " " not in text:
            return (date.fromisoformat(text) + max(duration, timedelta(days=1))).isoformat()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    clock = re.search(r"[T ](\d{2}:\d{2}(:\d{2})?)", text)
    spec = "minutes" if clock and not clock[2] else "seconds"
    out = (moment + duration).isoformat(sep=text[10] if len(text) > 10 else "T", timespec=spec)
    return out.replace("+00:00", "Z") if text.endswith("Z") else out
