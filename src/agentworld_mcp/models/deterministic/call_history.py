"""Values an action's answer derives from the tool's own earlier calls in the episode.

A tool that keeps no records still has a history: a reasoning log answers
``thoughtHistoryLength: 4`` on its fourth call, and ``branches: ["bus"]`` once a call named
``branchId: "bus"``. So a generated count or length field counts this tool's calls so far
(this one included), and a list of scalars named like the plural of an argument
(``branches`` for ``branchId``, ``tags`` for ``tag``) gathers the distinct values that
argument took, in the order first seen. Fields the call or the state determined are left as
they are (:mod:`.determined` runs first).
"""

from __future__ import annotations

import re
from typing import Any

from ...world.roles import singular
from ..base import Step
from .determined import name_key

JSONDict = dict[str, Any]

#: ``thoughtHistoryLength``, ``call_count``, ``numEntries``: a number of things, here of calls.
_COUNT_NAME = re.compile(r"(?:count|length|size)$|^(?:num|number)(?:of)?[a-z]")
#: What an argument's name adds to the thing it names: ``branchId`` is a branch, ``tagName`` a tag.
_ARG_SUFFIX = re.compile(r"(?:id|ids|name|names|key|keys)$")


def from_history(step: Step, body: Any, schema: JSONDict | None, determined: set[str]) -> Any:
    """``body`` with its count fields and argument-named lists derived from this tool's calls so far."""
    props = (schema or {}).get("properties") or {}
    if not isinstance(body, dict) or not props:
        return body
    calls: list[JSONDict] | None = None  # the episode's turns are read only for a field that needs them
    for name, sub in props.items():
        if name not in body or name_key(name) in determined or not isinstance(sub, dict):
            continue
        kind = sub.get("type")
        counts = kind in ("integer", "number") and _COUNT_NAME.search(name_key(name)) is not None
        source = _argument_for(name, step) if kind == "array" else None
        if not counts and source is None:
            continue
        if calls is None:
            calls = [*(t.arguments for t in step.episode.turns if t.tool == step.tool.name and not _failed(t.result)),
                     step.arguments]
        body[name] = _distinct(call.get(source) for call in calls) if source is not None else len(calls)
    return body


def _argument_for(list_name: str, step: Step) -> str | None:
    """The argument whose values a list of ``list_name`` gathers (``branches`` <- ``branchId``)."""
    wanted = singular(name_key(list_name))
    schema_props = (step.tool.input_schema.get("properties") or {}) if step.tool.input_schema else {}
    for arg, sub in schema_props.items():
        stem = _ARG_SUFFIX.sub("", name_key(arg)) or name_key(arg)
        if stem == wanted and isinstance(sub, dict) and sub.get("type") in ("string", "integer"):
            return str(arg)
    return None


def _distinct(values: Any) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "" and value not in out:
            out.append(value)
    return out


def _failed(result: Any) -> bool:
    return isinstance(result, dict) and bool(result.get("isError"))


__all__ = ["from_history"]
