"""The learned clock served: the model's instants written as the recorded server writes them, held still
within an episode where the recording's clock stood still (``sim2real/learn_clock.py`` learns it).

The deterministic model stamps a write at turn ``t`` with ``common.now_iso(t)``
(``2026-03-09T09:0t:00Z``, one minute a turn). For a tool whose ``_meta["agentworld/clock"]`` says
``{"format": "%Y-%m-%dT%H:%M:%S", "still": true}``, every such instant in its answer, its text and its
effects becomes the episode's one instant (``still``: the recorded ``at`` where every session stood at
one, else the model's clock start) in the recorded format; without ``still`` only
the format changes. An instant the model did not make (a seeded ``2025-11-02T08:00:00Z``, an argument)
is left as it is: it is outside the window of the model's clock.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import re
from typing import TYPE_CHECKING, Any

from .common import CLOCK_START

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the learned clock.
CLOCK_META = "agentworld/clock"
#: An instant with a time of day: ``2026-11-24T14:32:17``, ``2026-11-24 14:32``, ``...17.123Z``, ``...+01:00``.
INSTANT = re.compile(r"(\d{4}-\d{2}-\d{2})([T ])(\d{2}:\d{2})(:\d{2})?(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?")
#: What ``common.now_iso`` writes.
_MODEL_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def instant_format(text: str) -> str | None:
    """The strftime format ``text`` is written in (a fraction as ``.%f`` cut to its digits: ``.%3f``)."""
    match = INSTANT.fullmatch(text)
    if match is None:
        return None
    _, sep, _, seconds, fraction, zone = match.groups()
    out = f"%Y-%m-%d{sep}%H:%M" + (":%S" if seconds else "")
    if fraction:
        out += f".%{len(fraction) - 1}f"
    return out + (zone or "").replace("%", "")


def _written(moment: dt.datetime, form: str) -> str:
    digits = re.search(r"\.%(\d)f", form)
    if digits:  # strftime has no width for %f: cut the microseconds to the recorded digits
        fraction = moment.strftime("%f")[: int(digits.group(1))]
        form = form.replace(digits.group(0), "." + fraction)
    return moment.strftime(form)


def _model_moment(value: Any, turn: int) -> dt.datetime | None:
    """The moment ``value`` stands for when the model's clock wrote it by this turn; else None."""
    if not isinstance(value, str) or _MODEL_INSTANT.fullmatch(value) is None:
        return None
    try:
        moment = dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return moment if CLOCK_START <= moment <= CLOCK_START + dt.timedelta(minutes=turn + 1) else None


def pinned(meta: JSONDict) -> dt.datetime | None:
    """The instant the recorded clock stood at (``"at"``), where the recording showed one; else None."""
    at = meta.get("at")
    if not isinstance(at, str) or INSTANT.fullmatch(at) is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def _mapped(value: Any, turn: int, meta: JSONDict, seen: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _mapped(v, turn, meta, seen) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(v, turn, meta, seen) for v in value]
    moment = _model_moment(value, turn)
    if moment is None:
        return value
    if meta.get("still") is True:
        moment = pinned(meta) or CLOCK_START
    form = meta.get("format")
    written = _written(moment, form) if isinstance(form, str) else moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    seen[value] = written
    return written


def with_clock(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with the model's instants on the learned clock (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(CLOCK_META)
    if not isinstance(meta, dict) or not meta:
        return answer
    seen: dict[str, str] = {}
    observation = _mapped(copy.deepcopy(answer.observation), step.turn, meta, seen)
    effects = [dataclasses.replace(e, fields=_mapped(e.fields, step.turn, meta, seen)) for e in answer.effects or ()]
    text = answer.text
    if isinstance(text, str):
        for old, new in seen.items():
            text = text.replace(old, new)
    if not seen:
        return answer
    return dataclasses.replace(answer, observation=observation, text=text,
                               effects=effects if answer.effects is not None else None)


__all__ = ["CLOCK_META", "INSTANT", "instant_format", "pinned", "with_clock"]
