"""Tools that tell or convert times between IANA timezones, answered by computing them.

A tool qualifies when an argument names a timezone (``timezone``, ``source_timezone``,
or a description saying "IANA timezone") and its outputSchema has a time result: an
object with a ``datetime``-like field next to a ``timezone`` field (flat, or nested
under ``source``/``target``...). Such answers are computation, not records, so they are
computed with :mod:`zoneinfo` at the episode's simulated clock: the current time in the
zone, or a given ``HH:MM`` in the source zone converted to the target zone; day of week,
daylight saving and the offset difference follow. An unknown zone is refused, as real
time servers refuse it. Deterministic: the clock is the episode's, never the wall clock.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..base import Prediction, Step

JSONDict = dict[str, Any]

_TZ_NAME = re.compile(r"(^|_)(time_?zone|tz)$", re.IGNORECASE)
_TZ_DESCRIBED = re.compile(r"\bIANA\b.*\btime ?zone\b|\btz database\b", re.IGNORECASE)
_MOMENT_FIELDS = ("datetime", "date_time", "dateTime", "time", "local_time")
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_DIFFERENCE = re.compile(r"(difference|offset_diff|delta)", re.IGNORECASE)


def timezone_args(tool_schema: JSONDict) -> list[str]:
    """The arguments of an inputSchema that name an IANA timezone, in declaration order."""
    props = tool_schema.get("properties") or {}
    found = []
    for name, spec in props.items():
        if not isinstance(spec, dict) or spec.get("type") not in (None, "string"):
            continue
        if _TZ_NAME.search(name) or _TZ_DESCRIBED.search(str(spec.get("description", ""))):
            found.append(name)
    return found


def _resolve(schema: Any, root: JSONDict) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/"):
        node: Any = root
        for part in schema["$ref"][2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node
    return schema


def _is_time_result(schema: Any) -> bool:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return isinstance(props, dict) and any(_TZ_NAME.search(p) for p in props) and any(
        f in props for f in _MOMENT_FIELDS)


def applies(step: Step) -> bool:
    out = step.tool.output_schema
    if not out or not timezone_args(step.tool.input_schema):
        return False
    if _is_time_result(out):
        return True
    return any(_is_time_result(_resolve(s, out)) for s in (out.get("properties") or {}).values())


def predict_time(step: Step, now: dt.datetime) -> Prediction | None:
    """The computed answer of a timezone tool, or ``None`` when ``step``'s tool is not one."""
    if not applies(step):
        return None
    zones: dict[str, ZoneInfo] = {}
    for arg in timezone_args(step.tool.input_schema):
        name = step.arguments.get(arg)
        if not isinstance(name, str) or not name:
            continue
        try:
            zones[arg] = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return Prediction(f"Error executing tool {step.tool.name}: Invalid timezone: "
                              f"'No time zone found with key {name}'", is_error=True, effects=[])
    if not zones:
        return None
    first = next(iter(zones.values()))
    moment = _given_moment(step.arguments, first, now)
    if moment is None:
        return Prediction(f"Error executing tool {step.tool.name}: Invalid time format. Expected HH:MM [24-hour "
                          f"format]", is_error=True, effects=[])
    out = step.tool.output_schema or {}
    if _is_time_result(out):
        return Prediction(_time_result(out, moment.astimezone(first), next(iter(zones))), effects=[])
    answer: JSONDict = {}
    offsets: list[dt.timedelta] = []
    for name, spec in (out.get("properties") or {}).items():
        spec = _resolve(spec, out)
        if not _is_time_result(spec):
            continue
        arg = _arg_for(name, zones)
        local = moment.astimezone(zones[arg])
        answer[name] = _time_result(spec, local, arg)
        offsets.append(local.utcoffset() or dt.timedelta())
    for name, spec in (out.get("properties") or {}).items():
        if name not in answer and _DIFFERENCE.search(name) and len(offsets) == 2:
            hours = (offsets[1] - offsets[0]).total_seconds() / 3600
            answer[name] = f"{hours:+.1f}h" if _resolve(spec, out).get("type") == "string" else hours
    return Prediction(answer, effects=[])


def _arg_for(output_field: str, zones: dict[str, ZoneInfo]) -> str:
    """``source`` -> ``source_timezone``; else the first zone."""
    return next((arg for arg in zones if arg.lower().startswith(output_field.lower())), next(iter(zones)))


def _given_moment(arguments: JSONDict, zone: ZoneInfo, now: dt.datetime) -> dt.datetime | None:
    """A ``time`` argument (``HH:MM``) on today's date in the first zone; else now."""
    given = arguments.get("time")
    if not isinstance(given, str):
        return now
    match = _HHMM.match(given.strip())
    if match is None:
        return None
    hour, minute, second = int(match[1]), int(match[2]), int(match[3] or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    today = now.astimezone(zone).date()
    return dt.datetime(today.year, today.month, today.day, hour, minute, second, tzinfo=zone)


def _time_result(schema: JSONDict, local: dt.datetime, arg: str) -> JSONDict:
    """The fields of one time result object the schema declares, computed for ``local``."""
    zone = local.tzinfo
    values: JSONDict = {}
    for name, spec in (schema.get("properties") or {}).items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if _TZ_NAME.search(name):
            values[name] = str(zone)
        elif name in _MOMENT_FIELDS:
            values[name] = local.replace(microsecond=0).isoformat()
        elif "day" in name.lower() and "week" in name.lower():
            values[name] = local.strftime("%A")
        elif "dst" in name.lower() and kind == "boolean":
            values[name] = bool(local.dst())
        elif "offset" in name.lower():
            values[name] = local.strftime("%z")[:3] + ":" + local.strftime("%z")[3:]
        elif name == "date":
            values[name] = local.date().isoformat()
    return values


__all__ = ["applies", "predict_time", "timezone_args"]


# -- times written in the zone a catalog names ------------------------------------------------------

#: An IANA zone name as descriptions write it (``Europe/Berlin``, ``America/Argentina/Buenos_Aires``).
_ZONE_NAME = re.compile(r"\b([A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_+-]+){1,2})\b")
#: A sentence saying a bare (offset-less) time is read in a zone: "interpreted as wall time in ...".
_LOCAL_READ = re.compile(r"\b(interpreted|assumed|treated|read|taken|resolved|stored)\b", re.IGNORECASE)
_WRITES = ("create", "update")


def stated_zone(tool: JSONDict) -> ZoneInfo | None:
    """The one IANA zone a tool's texts say its times are read in; None when they name none or several."""
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    texts = [str(tool.get("description") or "")] + [
        str(s.get("description") or "") for s in props.values() if isinstance(s, dict)]
    found: set[str] = set()
    for text in texts:
        for sentence in re.split(r"(?<=[.;])\s+", text):
            if _LOCAL_READ.search(sentence):
                found.update(m for m in _ZONE_NAME.findall(sentence) if _zone(m) is not None)
    if len(found) != 1:
        return None
    return _zone(found.pop())


def _zone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def in_stated_zone(step: Step) -> Step:
    """``step`` with the times a create or update stores written in the zone its catalog names.

    "A bare local time is interpreted as wall time in the configured zone (`Europe/Berlin`)":
    ``2026-12-08T14:00`` is stored as ``2026-12-08T14:00:00+01:00`` and ``10:00:00-05:00`` as the
    same instant in that zone, so a later listing shows what the server would. Dates (all-day)
    stay dates; a catalog naming no zone, or several, is left alone.
    """
    if step.role.kind not in _WRITES or step.tool.output_schema:
        return step
    zone = step.derived(("stated zone", step.tool.name), lambda: stated_zone(step.tool.definition))
    if zone is None:
        return step
    changed = {k: zoned for k, v in step.arguments.items() if (zoned := _in_zone(v, zone)) is not None}
    if not changed:
        return step
    import dataclasses

    return dataclasses.replace(step, arguments={**step.arguments, **changed})


def _in_zone(value: Any, zone: ZoneInfo) -> str | None:
    """An ISO 8601 date-time ``value`` written in ``zone`` with seconds and offset; None for anything else."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
                                                      value.strip()):
        return None
    try:
        moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    # a wall time is read in the zone (fold 0: the earlier of a repeated hour); an instant is converted
    local = moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)
    return local.isoformat(timespec="seconds")
