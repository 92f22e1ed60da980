"""Answer instants a call's argument determines, in the server's own time zone (``sim2real/learn_instants.py``).

A server that resolves times answers the call's instant re-expressed in its zone
(``start: 2026-12-08T14:00`` -> ``start_resolved: 2026-12-08T14:00:00+01:00``) and, for an argument
left out, a fixed duration after another one (``end`` one hour after ``start``). ``learn`` writes per
tool, under ``_meta``, one rule per answer field::

    "agentworld/instants": {"start_resolved": {"argument": "start", "zone": "Europe/Berlin"},
                            "end_resolved": {"argument": "end", "zone": "Europe/Berlin",
                                             "after": "start", "seconds": 3600, "days": 1}}

A naive argument is the zone's wall time, an aware one the same instant; a date stays a date
(``days`` after it when defaulted). ``zone`` is a named zone whose offsets fit every recorded answer,
else a fixed offset (``+01:00``). The model's invented value is replaced wherever the answer repeats
it (a note quoting it), and the entity the call creates or changes stores the resolved instant, so a
later read shows it as the server does. ``only_with`` names the argument without which no answer
showed the field (``next_occurrence`` only for an ``rrule``): left out, the field is too. ``_stored``
lists a change's date-time arguments that its entity stores resolved (an update moving ``start``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...state.ledger import Effect
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned instant rules.
INSTANTS_META = "agentworld/instants"
#: Rule name (no answer field) of the date-time arguments a change stores resolved in the zone.
STORED_KEY = "_stored"


def parsed(value: Any) -> dt.datetime | dt.date | None:
    """An ISO date or date-time text as a value (a date-time with or without offset), else None."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40 or not value[:4].isdigit():
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    if len(text) == 10:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def zone_of(name: str) -> dt.tzinfo | None:
    """``Europe/Berlin`` or ``+01:00`` as a time zone; None for neither."""
    if name[:1] in "+-" and len(name) == 6:
        try:
            hours, minutes = int(name[1:3]), int(name[4:6])
        except ValueError:
            return None
        sign = -1 if name[0] == "-" else 1
        return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def in_zone(value: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """The instant ``value`` names, in ``zone``: a naive value is the zone's wall time."""
    return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)


def resolved(given: Any, zone: dt.tzinfo) -> dt.datetime | dt.date | None:
    """The argument's instant in ``zone`` (a date stays a date); None when it is no date or time."""
    value = parsed(given)
    if isinstance(value, dt.datetime):
        return in_zone(value, zone)
    return value


def _text(value: dt.datetime | dt.date) -> str:
    return value.isoformat()


def instant_value(arguments: JSONDict, rule: JSONDict) -> str | None:
    """The answer's value the rule gives for these arguments, or None when the call does not determine it."""
    zone = zone_of(str(rule.get("zone", "")))
    argument = rule.get("argument")
    if zone is None or not isinstance(argument, str):
        return None
    if argument in arguments:
        value = resolved(arguments[argument], zone)
        return None if value is None else _text(value)
    after = rule.get("after")
    base = resolved(arguments.get(after), zone) if isinstance(after, str) else None
    if isinstance(base, dt.datetime) and isinstance(rule.get("seconds"), int):
        return _text(base + dt.timedelta(seconds=rule["seconds"]))
    if isinstance(base, dt.date) and not isinstance(base, dt.datetime) and isinstance(rule.get("days"), int):
        return _text(base + dt.timedelta(days=rule["days"]))
    return None


def _replaced(value: Any, old: str, new: str) -> Any:
    """``value`` with every text quoting ``old`` quoting ``new`` (a note repeating the invented value)."""
    if isinstance(value, str):
        return value.replace(old, new) if old and old in value else value
    if isinstance(value, dict):
        return {k: _replaced(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v, old, new) for v in value]
    return value


def _stored(effect: Effect, step: Step, argument: str, value: str) -> Effect:
    """The call's entity storing the resolved instant where it holds the argument's (or the defaulted) value."""
    if effect.op not in ("create", "update") or effect.collection != step.role.collection:
        return effect
    held = effect.fields.get(argument)
    given = step.arguments.get(argument)
    if argument in step.arguments and not (isinstance(held, str) and parsed(held) is not None
                                           and isinstance(given, str) and held[:16] == given[:16]):
        return effect
    if argument not in step.arguments and effect.op != "create":
        return effect
    return dataclasses.replace(effect, fields={**effect.fields, argument: value})


def with_instants(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with each learned instant set from the call (see the module doc)."""
    rules = (step.tool.definition.get("_meta") or {}).get(INSTANTS_META)
    if not isinstance(rules, dict) or not rules or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    observation: JSONDict = answer.observation
    effects = list(answer.effects) if answer.effects is not None else None
    changed = False
    stored = rules.get(STORED_KEY)
    if isinstance(stored, dict) and effects is not None and (zone := zone_of(str(stored.get("zone", "")))) is not None:
        for argument in stored.get("arguments") or ():
            moment = resolved(step.arguments.get(argument), zone) if isinstance(argument, str) else None
            if isinstance(moment, dt.datetime) and isinstance(argument, str) and argument in step.arguments:
                effects = [_stored(e, step, argument, _text(moment)) for e in effects]
                changed = True
    for name, rule in rules.items():
        if name not in observation or not isinstance(rule, dict) or name == STORED_KEY:
            continue
        needed = rule.get("only_with")
        if isinstance(needed, str) and step.arguments.get(needed) in (None, ""):
            observation = {k: v for k, v in observation.items() if k != name}  # never shown without it
            changed = True
            continue
        value = instant_value(step.arguments, rule)
        current = observation[name]
        if value is None or value == current:
            continue
        observation = {**observation, name: value}
        if isinstance(current, str) and len(current) >= 4:
            observation = {k: (v if k == name else _replaced(v, current, value)) for k, v in observation.items()}
        if effects is not None:
            effects = [_stored(e, step, str(rule["argument"]), value) for e in effects]
        changed = True
    if not changed:
        return answer
    text = answer.text
    return dataclasses.replace(answer, observation=observation, effects=effects,
                               text=None if isinstance(text, str) and text.lstrip().startswith(("{", "[")) else text)


__all__ = ["INSTANTS_META", "STORED_KEY", "in_zone", "instant_value", "parsed", "resolved", "with_instants", "zone_of"]
