"""A catalog's house style: the answer envelope most of its stated answers share.

A server's tools are written by one hand, and answer alike. When several tools of a catalog say
they answer ``{"success": true, ...}`` (a literal or words, :mod:`.described_shape`), the tools
that state nothing (nor have a shape learned from a recording) answer that way too, and refuse in the
failure shape the catalog states (``{"success": false, "error": "..."}``) rather than with
``isError``. The rule is read from the catalog alone: a flag stated by three tools at least and by
at least half of the tools whose descriptions state an object answer: the catalog's words, not a
recording's answers, decide it. Pure functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .described_shape import described_returns

JSONDict = dict[str, Any]

#: ``_meta`` key of an inferred (learned or enriched) output shape.
OUTPUT_SHAPE_META = "agentworld/output_shape"
#: Flags that mark an answer's success, in order of preference when a catalog states several.
FLAG_NAMES = ("success", "ok", "succeeded")
_MIN_VOTES = 3


@dataclass(frozen=True)
class HouseStyle:
    """The envelope a catalog's stated answers share."""

    #: The success flag (``success``, ``ok``): ``true`` on success, ``false`` on a refusal.
    flag: str
    #: The failure answer's JSON Schema: the one the catalog states most often, else the flag and ``error``.
    failure: JSONDict
    #: How many tools state the flag.
    votes: int
    #: The failure codes the catalog states (``task_not_found``), for a failure to pick from.
    codes: tuple[str, ...] = ()


def stated_shape(tool: JSONDict) -> JSONDict | None:
    """The success shape a tool without an outputSchema states: learned or enriched, else its description's."""
    if tool.get("outputSchema") is not None:
        return None
    shape = (tool.get("_meta") or {}).get(OUTPUT_SHAPE_META)
    if isinstance(shape, dict) and shape:
        return shape
    described = described_returns(str(tool.get("description") or ""))
    return described.success if described is not None else None


def described_shape(tool: JSONDict) -> JSONDict | None:
    """The success shape a tool without an outputSchema states in its description (a literal or words)."""
    if tool.get("outputSchema") is not None:
        return None
    described = described_returns(str(tool.get("description") or ""))
    return described.success if described is not None else None


def flag_of(shape: JSONDict | None) -> str | None:
    """The success flag an object shape states (``"success": true``, or a flag that defaults to true)."""
    if not isinstance(shape, dict) or shape.get("type") != "object":
        return None
    props = shape.get("properties") or {}
    for name in FLAG_NAMES:
        sub = props.get(name)
        if isinstance(sub, dict) and sub.get("type") == "boolean" and (
                sub.get("const") is True or sub.get("default") is True):
            return name
    return None


def house_style(tools: Iterable[JSONDict]) -> HouseStyle | None:
    """The envelope ``tools`` (a catalog's definitions) share, when enough of them state one."""
    flags: Counter[str] = Counter()
    failures: Counter[tuple[str, ...]] = Counter()
    shown: dict[tuple[str, ...], JSONDict] = {}
    codes: list[str] = []
    stating = 0
    for tool in tools:
        shape = described_shape(tool)
        if not isinstance(shape, dict) or shape.get("type") != "object":
            continue
        stating += 1
        flag = flag_of(shape)
        if flag is None:
            continue
        flags[flag] += 1
        described = described_returns(str(tool.get("description") or ""))
        failure = described.failure if described is not None else None
        props = (failure or {}).get("properties") or {}
        if isinstance(props.get(flag), dict) and props[flag].get("const") is False:
            fields = tuple(sorted(props))
            failures[fields] += 1
            shown.setdefault(fields, _unconstant(failure or {}, flag))
            codes += [c for c in (described.codes if described is not None else ()) if c not in codes]
    if not flags:
        return None
    flag, votes = flags.most_common(1)[0]
    if votes < _MIN_VOTES or 2 * votes < stating:
        return None
    failure = shown[failures.most_common(1)[0][0]] if failures else {
        "type": "object", "properties": {flag: {"type": "boolean", "const": False}, "error": {"type": "string"}},
        "required": [flag, "error"]}
    return HouseStyle(flag, failure, votes, tuple(codes))


def _unconstant(failure: JSONDict, flag: str) -> JSONDict:
    """One tool's failure shape as the catalog's: the flag stays false, its own codes are left to the failure."""
    props = {name: ({k: v for k, v in sub.items() if k != "const"} if name != flag and isinstance(sub, dict) else sub)
             for name, sub in (failure.get("properties") or {}).items()}
    return {**failure, "properties": props}


__all__ = ["FLAG_NAMES", "HouseStyle", "OUTPUT_SHAPE_META", "described_shape", "flag_of", "house_style", "stated_shape"]
