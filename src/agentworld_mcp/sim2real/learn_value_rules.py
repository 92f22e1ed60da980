"""Refusals of an argument's value, learned with the value condition the recording shows.

A refusal whose wording quotes one of the call's argument values (``'urgent' isn't a priority``) or names
the argument (``Complexity must be 1-5, got 9``) is about that argument's VALUE, not the episode's state:
it is learned as ``{"if": "value", "arg": ..., "refused": [...], "accepted": [...]}`` with, where the
recording shows one, the set of values the argument takes:

* ``allowed``: a closed vocabulary: the one the refusal's own words list (``low, med, or high``), the one the
  tool's schema (``enum``) or description lists, or, failing those, the enum-like words the recording
  accepted when they recur (a few words, each passed more than once);
* ``range``: ``[lo, hi]`` (either may be ``null``): the one the refusal states (``1-5``, ``between 1 and 5``,
  ``must be <= 10``), else the side of the accepted numbers (two at least) the refused one fell beyond.

A value the recording accepted for the argument, or one the schema or description lists, is never refused
(:func:`..models.deterministic.learned_rules.value_refused` applies the condition).
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.learned_state import failed
from ..world.catalog import Catalog
from ..world.stated_values import ABOVE, AT_LEAST, AT_MOST, BELOW, BETWEEN, LIST, WORD
from ..world.stated_values import items as listed_items
from ..world.stated_values import stated_values

JSONDict = dict[str, Any]
#: Words of something absent or already there: a refusal about the state (an entity the value names), not the value.
_PRESENCE = re.compile(r"not[ _]found|no such|does not exist|doesn't exist|already exists?|not configured|"
                       r"(?:could not|couldn't|cannot|can't|unable to) (?:find|locate|open)", re.IGNORECASE)


def value_argument(text: str, template: str, arguments: JSONDict, keys: tuple[str, ...],
                   order: list[str]) -> tuple[str, bool] | None:
    """The argument a refusal is about (not a key: a key's refusal is the state's; none where the words say
    something is missing or already there), and whether its value is quoted (else the refusal only names it):
    quoted and named first, then quoted, then named."""
    if _PRESENCE.search(text):
        return None
    scalars = [a for a, v in arguments.items() if a not in keys and _scalar(v)]
    quoted = [a for a in scalars if "{{args." + a + "}}" in template]
    named = [a for a in scalars if re.search(rf"(?<![\w]){re.escape(a).replace('_', '[ _]')}(?![\w])", text,
                                             re.IGNORECASE)]
    ranked = sorted(scalars, key=lambda a: (a not in quoted or a not in named, a not in quoted, a not in named,
                                            order.index(a) if a in order else len(order)))
    best = ranked[0] if ranked else None
    if best is None or (best not in quoted and best not in named):
        return None
    return best, best in quoted


def quotes_value(turn: Any, catalog: Catalog) -> bool:
    """Whether a recorded refusal quotes one of its call's (non-key) argument values: a refusal of that value,
    whatever the state the entity was in (a state's refusal learner passes it over)."""
    from ..models.deterministic.learned_envelope import template_text
    from ..models.deterministic.learned_state import answer_text

    spec = catalog.get(turn.tool)
    if spec is None or not failed(turn.result):
        return False
    text = answer_text(turn.result)
    found = value_argument(text, template_text(text, turn.arguments), turn.arguments, spec.role.key_args, [])
    return found is not None and found[1]


def value_condition(calls: list[Any], arg: str, catalog: Catalog, accepted_calls: list[Any]) -> JSONDict | None:
    """The ``value`` condition of refusals ``calls`` (recorded turns) of ``arg``; ``accepted_calls``: every
    recorded turn (those that did not fail passed values the server took). None where a refused value was
    taken by the same tool elsewhere (then the value is not why it refused)."""
    if not calls or not all(failed(t.result) for t in calls):
        return None
    tool = calls[0].tool
    refused = _unique([t.arguments.get(arg) for t in calls if _scalar(t.arguments.get(arg))])
    taken = [t for t in accepted_calls if arg in t.arguments and _scalar(t.arguments[arg]) and not failed(t.result)]
    if not refused or any(_same(v, t.arguments[arg]) for v in refused for t in taken if t.tool == tool):
        return None
    accepted = _unique([t.arguments[arg] for t in taken])
    listed = _listed(catalog, tool, arg)
    refused = [v for v in refused if not any(_same(v, a) for a in accepted + listed)]  # taken: never refused
    if not refused:
        return None
    condition: JSONDict = {"if": "value", "arg": arg, "refused": refused}
    text = " ".join(_text_of(t.result) for t in calls)
    if all(_number(v) for v in refused):
        bounds = _stated_range(text, refused, accepted) or _accepted_range(refused, accepted)
        if bounds is not None:
            condition.update(accepted=accepted, range=bounds)
        return condition
    words = _words_listed(text, refused, accepted + listed)
    if words:
        condition["allowed"] = _unique(words + listed + accepted)
    elif listed:
        condition["allowed"] = _unique(listed + accepted)
    elif accepted and all(isinstance(v, str) and WORD.fullmatch(v) for v in accepted + refused) and (
            len(accepted) <= 8 and len(taken) >= 2 * len(accepted)):
        condition["allowed"] = accepted  # a few words, each passed more than once: a closed vocabulary
    if "allowed" in condition:
        condition["accepted"] = _unique(accepted + listed)
    return condition


def _text_of(result: JSONDict) -> str:
    from ..models.deterministic.learned_state import answer_text

    return answer_text(result)


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or _number(a) and _number(b) and a == b


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if not any(_same(value, v) for v in out):
            out.append(value)
    return out


def _words_listed(text: str, refused: list[Any], known: list[Any]) -> list[str]:
    """The list in the refusal's words that holds a value known to be good and none refused (``low, med, or
    high``), or, where no good value is known, the one the words introduce as ``one of``."""
    bad = {str(v) for v in refused}
    good = {str(v) for v in known}
    for match in LIST.finditer(text):
        items = listed_items(match.group(0))
        if len(items) < 2 or bad & set(items) or not all(WORD.fullmatch(i) for i in items):
            continue
        if good & set(items) or not good and re.search(r"one of\W*$", text[:match.start()], re.IGNORECASE):
            return items
    return []


def _listed(catalog: Catalog, tool: str, arg: str) -> list[Any]:
    """The values the tool's schema (``enum``) or description lists for ``arg``."""
    found = _listed_by(catalog.get(tool), arg)
    for spec in catalog:  # else another tool's word on the same argument (``priority: one of "low", ...``)
        found = found or _listed_by(spec, arg)
    return found


def _listed_by(spec: Any, arg: str) -> list[Any]:
    """The values the schema's enum or the descriptions state for ``arg`` (examples are no vocabulary)."""
    properties = (spec.input_schema.get("properties") or {}) if spec is not None else {}
    prop = properties.get(arg)
    if not isinstance(prop, dict):
        return []
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return [v for v in enum if _scalar(v)]
    stated = stated_values(str(spec.description or ""), arg, prop, properties)
    return list(stated.allowed) if stated is not None and stated.allowed else []


def _stated_range(text: str, refused: list[Any], accepted: list[Any]) -> list[float | None] | None:
    """The range the refusal's words state, if every refused value falls outside it and every accepted one in."""
    options: list[list[float | None]] = []
    for m in BETWEEN.finditer(text):
        lo, hi = (float(g) for g in [g for g in m.groups() if g is not None][:2])
        if lo < hi:
            options.append([lo, hi])
    integral = all(isinstance(v, int) for v in refused)
    for pattern, strict, upper in ((AT_MOST, False, True), (BELOW, True, True),
                                   (AT_LEAST, False, False), (ABOVE, True, False)):
        for m in pattern.finditer(text):
            bound = float(m.group(1))
            if strict:
                bound = bound - 1 if upper and integral else bound + 1 if integral else bound
            options.append([None, bound] if upper else [bound, None])
    if re.search(r"\bnon-?negative\b", text, re.IGNORECASE):
        options.append([0.0, None])
    elif re.search(r"\bpositive\b", text, re.IGNORECASE):
        options.append([1.0 if integral else 0.0, None])
    for bounds in options:
        if all(not _inside(v, bounds) for v in refused) and all(_inside(v, bounds) for v in accepted
                                                                 if _number(v)):
            return [_plain(b) for b in bounds]
    return None


def _accepted_range(refused: list[Any], accepted: list[Any]) -> list[float | None] | None:
    """The side of the accepted numbers (two distinct at least) the refused ones fell beyond."""
    numbers = [float(v) for v in accepted if _number(v)]
    if len(set(numbers)) < 2:
        return None
    lo, hi = min(numbers), max(numbers)
    below, above = any(v < lo for v in refused), any(v > hi for v in refused)
    if not below and not above:
        return None
    return [_plain(lo) if below else None, _plain(hi) if above else None]


def _inside(value: Any, bounds: list[float | None]) -> bool:
    lo, hi = bounds
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _plain(bound: float | None) -> float | None:
    return int(bound) if isinstance(bound, float) and bound.is_integer() else bound


__all__ = ["quotes_value", "value_argument", "value_condition"]
