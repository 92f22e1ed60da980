"""Learn which answer fields are a call argument's instant in the server's own zone (served by
``models/deterministic/learned_instants.py``, whose doc shows the rules).

For every successful answer's top-level field holding a date or date-time, the argument whose
instant it is (same instant at another offset; a naive argument read as the zone's wall time; a
date kept) is found; every recorded call that passed that argument must agree. Where the argument
was left out, the value is a fixed duration after another argument's instant (one figure for
date-times, one for dates). The zone is one the recording's texts name whose offsets fit every
recorded answer at its instant, else the one fixed offset they all show; offsets that fit neither
teach nothing. A field no answer showed without some argument (``next_occurrence`` only with an
``rrule``) is left out when that argument is; a create or update tool's own date-time arguments are
stored on its entity resolved in the zone (``_stored``).
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import Any

from ..models.deterministic.learned_instants import INSTANTS_META, STORED_KEY, in_zone, parsed, zone_of
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: A zone name as texts write it (``Europe/Berlin``, ``America/Argentina/Buenos_Aires``).
_ZONE_NAME = re.compile(r"\b[A-Z][A-Za-z_]+(?:/[A-Za-z_\-]+){1,2}\b|\bUTC\b")


def _matches(given: Any, shown: dt.datetime | dt.date) -> bool:
    """Whether ``shown`` is ``given``'s instant (a naive argument: the same wall time) or the same date."""
    value = parsed(given)
    if isinstance(shown, dt.datetime):
        if not isinstance(value, dt.datetime) or shown.tzinfo is None:
            return False
        return value.replace(tzinfo=None) == shown.replace(tzinfo=None) if value.tzinfo is None else value == shown
    return isinstance(value, dt.date) and not isinstance(value, dt.datetime) and value == shown


def _successes(turns: list[RecordedTurn]) -> list[tuple[JSONDict, JSONDict]]:
    found = []
    for turn in turns:
        data = None if failed(turn.result) else answer_data(turn.result)
        if isinstance(data, dict):
            found.append((turn.arguments, data))
    return found


def _zone(turns: list[RecordedTurn], shown: list[dt.datetime]) -> str | None:
    """A zone the recording names whose offsets fit every shown instant, else their one fixed offset."""
    if not shown:
        return None
    names: set[str] = set()
    for turn in turns:
        for item in turn.result.get("content") or []:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                names.update(_ZONE_NAME.findall(item["text"]))
    for name in sorted(names):
        try:
            zone = zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            continue
        if all(value.astimezone(zone).utcoffset() == value.utcoffset() for value in shown):
            return name
    offsets = {value.strftime("%z") for value in shown}
    if len(offsets) != 1:
        return None
    offset = offsets.pop()
    return f"{offset[:3]}:{offset[3:]}"


def _argument(successes: list[tuple[JSONDict, JSONDict]], name: str) -> str | None:
    """The argument whose instant every answer's ``name`` shows (it matched once at least, never failed,
    and was re-expressed once at least)."""
    candidates: dict[str, int] = {}
    rewritten: set[str] = set()  # an argument only ever echoed verbatim is a copy, not a re-expression
    for arguments, data in successes:
        shown = parsed(data.get(name))
        if shown is None:
            continue
        for argument, given in arguments.items():
            if parsed(given) is not None:
                candidates[argument] = candidates.get(argument, 0) + (1 if _matches(given, shown) else -1000)
                if given != data.get(name):
                    rewritten.add(argument)
    best = sorted((n, a) for a, n in candidates.items() if n > 0 and a in rewritten)
    return best[-1][1] if best else None


def _default(successes: list[tuple[JSONDict, JSONDict]], name: str, argument: str, zone: str,
             rules: dict[str, str]) -> JSONDict:
    """``after``/``seconds``/``days``: the one duration after another argument's instant where ``argument``
    was left out (date-times and dates apart)."""
    tz = zone_of(zone)
    if tz is None:
        return {}
    seconds: dict[str, set[int]] = {}
    days: dict[str, set[int]] = {}
    for arguments, data in successes:
        shown = parsed(data.get(name))
        if argument in arguments or shown is None:
            continue
        for other in rules.values():
            base = parsed(arguments.get(other))
            if isinstance(shown, dt.datetime) and isinstance(base, dt.datetime) and shown.tzinfo is not None:
                seconds.setdefault(other, set()).add(int((shown - in_zone(base, tz)).total_seconds()))
            elif type(shown) is dt.date and type(base) is dt.date:
                days.setdefault(other, set()).add((shown - base).days)
    for other in sorted({*seconds, *days}):
        spans, dates = seconds.get(other, set()), days.get(other, set())
        if len(spans) <= 1 and len(dates) <= 1 and all(s > 0 for s in spans) and all(d > 0 for d in dates):
            rule: JSONDict = {"after": other}
            if spans:
                rule["seconds"] = spans.pop()
            if dates:
                rule["days"] = dates.pop()
            return rule
    return {}


def _only_with(successes: list[tuple[JSONDict, JSONDict]], name: str, argument: str) -> str | None:
    """The argument without which no answer showed ``name`` (``next_occurrence`` only with an ``rrule``):
    given in every answer showing it and left out in every other; the rule's own argument when every
    answer showed it."""
    given = [{a for a, v in args.items() if v not in (None, "")} for args, data in successes if name in data]
    others = [{a for a, v in args.items() if v not in (None, "")} for args, data in successes if name not in data]
    if not given:
        return None
    always = set.intersection(*given)
    if not others:
        return argument if argument in always else None
    found = sorted(a for a in always if not any(a in o for o in others))
    return found[0] if len(found) == 1 else None


def learn_instants(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its answer fields' instant rules (see the module doc)."""
    turns = [t for ts in episodes.values() for t in ts if catalog.get(t.tool) is not None]
    by_tool: dict[str, list[tuple[JSONDict, JSONDict]]] = {}
    for turn in turns:
        by_tool.setdefault(turn.tool, [])
    for tool in by_tool:
        by_tool[tool] = _successes([t for t in turns if t.tool == tool])
    arguments: dict[str, dict[str, str]] = {}
    shown: list[dt.datetime] = []
    for tool, successes in by_tool.items():
        names = {n for _, data in successes for n, v in data.items() if parsed(v) is not None}
        for name in sorted(names):
            argument = _argument(successes, name)
            if argument is None:
                continue
            arguments.setdefault(tool, {})[name] = argument
            shown += [v for args, data in successes if argument in args
                      and isinstance(v := parsed(data.get(name)), dt.datetime) and v.tzinfo is not None]
    zone = _zone(turns, shown)
    if zone is None:
        return {}
    out: dict[str, JSONDict] = {}
    timed = {a for ok in by_tool.values() for args, _ in ok for a, v in args.items() if isinstance(parsed(v), dt.datetime)}
    for tool in by_tool:  # a change's own date-times are stored as the server resolves them
        spec = catalog.get(tool)
        props = (spec.definition.get("inputSchema") or {}).get("properties") or {} if spec is not None else {}
        given = sorted(timed & set(props))
        if given and spec is not None and spec.role.kind in ("create", "update"):
            out.setdefault(tool, {})[STORED_KEY] = {"arguments": given, "zone": zone}
    for tool, rules in arguments.items():
        found: JSONDict = {}
        for name, argument in rules.items():
            found[name] = {"argument": argument, "zone": zone,
                           **_default(by_tool[tool], name, argument, zone, {k: v for k, v in rules.items()
                                                                            if v != argument})}
            if (needed := _only_with(by_tool[tool], name, argument)) is not None:
                found[name]["only_with"] = needed
        out[tool] = {**out.get(tool, {}), **found}
    return out


def add_instant_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's instant rules under its ``_meta``; the number of tools written."""
    return write_meta(data, INSTANTS_META, learn_instants(episodes, catalog))


__all__ = ["add_instant_meta", "learn_instants"]
