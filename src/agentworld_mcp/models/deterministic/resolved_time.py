"""A tool that shows how a date-time text will be read, answered by reading it.

``resolve_datetime(value)`` "shows how a datetime string will be interpreted, without writing
anything": the catalog's other tools say which zone a time is read in ("a bare local time is
interpreted as wall time in the configured zone (`Europe/Berlin`)"), so the answer is computed, not
invented: the text is parsed (python-dateutil where installed, else ISO 8601), a wall time is read in
that zone and an instant converted to it. The answer echoes the text as ``input`` and gives the result
under the tool's verb as a participle (``resolve`` -> ``resolved``). Text that cannot be read as a time
is refused, as the service refuses it. Nothing is stored.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from zoneinfo import ZoneInfo

from ..base import Prediction, Step
from ...world.roles import words

JSONDict = dict[str, Any]

#: Verbs of a tool that reads a time without storing it, and the participle naming its result.
_READ_VERBS = {"resolve": "resolved", "parse": "parsed", "interpret": "interpreted", "normalize": "normalized",
               "normalise": "normalised", "convert": "converted"}
_TIME_NOUNS = frozenset({"datetime", "date", "time", "timestamp", "moment", "when"})


def _reader(tool: JSONDict) -> tuple[str, str] | None:
    """``(argument, participle)`` for a tool that reads one time text, else None."""
    if tool.get("outputSchema"):
        return None
    tokens = words(str(tool.get("name") or ""))
    verb = next((t for t in tokens if t in _READ_VERBS), None)
    if verb is None or not any(t in _TIME_NOUNS for t in tokens):
        return None
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    required = (tool.get("inputSchema") or {}).get("required") or []
    texts = [p for p in required if isinstance(props.get(p), dict) and props[p].get("type") in (None, "string")]
    if len(texts) != 1:
        return None
    return texts[0], _READ_VERBS[verb]


def catalog_zone(step: Step) -> ZoneInfo | None:
    """The one zone the catalog's tools say times are read in; None when they name none or several."""
    from .timezones import stated_zone

    def build() -> ZoneInfo | None:
        zones = {str(z): z for t in step.world.tools if (z := stated_zone(t)) is not None}
        return next(iter(zones.values())) if len(zones) == 1 else None

    return step.derived("catalog zone", build)


def _parsed(text: str) -> dt.datetime | None:
    """``text`` as a date-time, or None when it is not one."""
    text = text.strip()
    if not text or not re.search(r"\d", text):
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        pass
    try:
        from dateutil import parser  # type: ignore[import-untyped]
    except ImportError:  # without the ``engines`` extra only ISO 8601 is read
        return None
    try:
        parsed: dt.datetime = parser.parse(text)
    except (ValueError, OverflowError):
        return None
    return parsed


def predict_resolved_time(step: Step) -> Prediction | None:
    """The computed answer of a time-reading tool, or None when ``step``'s tool is not one."""
    found = step.derived(("time reader", step.tool.name), lambda: _reader(step.tool.definition))
    if found is None:
        return None
    arg, participle = found
    zone = catalog_zone(step)
    text = step.arguments.get(arg)
    if zone is None or not isinstance(text, str):
        return None
    moment = _parsed(text)
    if moment is None:
        return Prediction(f"Error executing tool {step.tool.name}: could not read {text!r} as a date-time; "
                          f"give an ISO 8601 value such as 2026-12-01T09:00", is_error=True, effects=[])
    local = moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)
    return Prediction({"input": text, participle: local.isoformat(timespec="seconds")}, effects=[])


__all__ = ["catalog_zone", "predict_resolved_time"]
