"""Where every learner writes: one block per tool under the tool's ``_meta``, beside what is there.

A learned world is a catalog whose tools carry what a recording taught under ``_meta`` keys of their
own (``agentworld/lifecycle``, ``agentworld/values``, ...); the deterministic model's ``learned_*``
modules read them back. Writing them the same way everywhere keeps a tool's other ``_meta`` intact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

JSONDict = dict[str, Any]


def write_meta(data: JSONDict, key: str, learned: Mapping[str, Any]) -> int:
    """Under ``_meta[key]`` of each tool named in ``learned`` (a value of None is skipped); how many tools."""
    written = 0
    for tool in data["tools"]:
        found = learned.get(tool.get("name", ""))
        if found is not None:
            tool["_meta"] = {**(tool.get("_meta") or {}), key: found}
            written += 1
    return written


__all__ = ["write_meta"]
