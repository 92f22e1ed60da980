"""The workbook engine's answer in the form the catalog asks for.

The engine's own answers are objects (``{"sheets": [...]}``, ``{"range", "values"}``). A tool
that returns a plain value says so: FastMCP wraps it in ``{"result": ...}`` typed by the
function's return (``list[str]`` for a listing of sheets, ``str`` for a new sheet's name,
``list[list]`` for rows), and a tool without an outputSchema may state its answer in its
description (``Returns {"rows": N, "columns": M}``, "Read the value of a single cell").
:func:`served` gives such a tool the value it returns: the principal value of the operation
(the listing, the rows, the name, the matches) where the wrapper's type wants one, the keys the
description names where all are known, the cell's value for a one-cell read. Anything else
keeps the engine's object.
"""

from __future__ import annotations

import re
from typing import Any

from ...base import Step
from ..wrapping import wrapped_schema

JSONDict = dict[str, Any]
#: ``{"rows": N, "columns": M}`` or ``[{"cell": "B3", "value": "hello"}]`` in a description.
_KEYS_SHOWN = re.compile(r"\{\s*\"(\w+)\"\s*:[^{}]*\}")
_KEY = re.compile(r"\"(\w+)\"\s*:")
#: The value an operation is about, per JSON type a wrapped tool returns.
_LISTS = {"list_sheets": "sheets", "read_range": "values", "find_cells": "matches", "list_workbooks": None}
_NAMES = {"create_workbook": "path", "copy_workbook": "path", "create_sheet": "sheet", "rename_sheet": "sheet",
          "copy_sheet": "sheet"}


def _definition(step: Step) -> JSONDict:
    """The tool as the catalog lists it (the engine may be asked with its wrapper taken off)."""
    return next((t for t in step.world.tools if t.get("name") == step.tool.name), step.tool.definition)


def wraps(step: Step) -> bool:
    """Whether the catalog wraps the tool's answer in FastMCP's ``{"result": ...}``."""
    return wrapped_schema(_definition(step)) is not None


def _types(schema: JSONDict) -> set[str]:
    kind = schema.get("type")
    found = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(branch, dict):
            found |= _types(branch)
    return found


def served(step: Step, op: str, result: Any, facts: JSONDict) -> Any:
    """``result`` (the engine's answer to ``op``) as the value the catalog says the tool returns."""
    if not isinstance(result, dict):
        return result
    definition = _definition(step)
    inner = wrapped_schema(definition)
    if inner is not None:
        return _wrapped(op, result, facts, _types(inner), str(definition.get("description") or ""))
    if definition.get("outputSchema") is None:
        return _described(op, result, facts, str(definition.get("description") or ""), step)
    return result


def _wrapped(op: str, result: JSONDict, facts: JSONDict, types: set[str], description: str) -> Any:
    if "array" in types:
        if op == "list_workbooks":
            return list(result)
        if op == "find_cells":
            return _items(facts.get("matches") or [], description)
        key = _LISTS.get(op)
        if key is not None and isinstance(facts.get(key, result.get(key)), list):
            return facts.get(key, result.get(key))
    if "string" in types and op in _NAMES and isinstance(result.get(_NAMES[op]), str):
        return result[_NAMES[op]]
    if types & {"integer", "number"} and op == "describe_sheet":
        return facts.get("rows", result)
    return result


def _items(matches: list[JSONDict], description: str) -> list[JSONDict]:
    """Matches with the keys the description's example shows (``{"cell": ..., "value": ...}``), else all."""
    shown = _shown_keys(description)
    keys = [k for k in shown if matches and all(k in m for m in matches)] if shown else []
    return [{k: m[k] for k in keys} for m in matches] if keys else matches


def _shown_keys(description: str) -> list[str]:
    found = _KEYS_SHOWN.search(description)
    return _KEY.findall(found.group(0)) if found else []


def _described(op: str, result: JSONDict, facts: JSONDict, description: str, step: Step) -> Any:
    """A tool with no outputSchema: the keys its description shows, or a single cell's value."""
    known = {**result, **facts}
    shown = _shown_keys(description)
    if shown and all(k in known for k in shown):
        return {k: known[k] for k in shown}
    words = set(re.split(r"[^a-z]+", step.tool.name.lower()))
    if op == "read_range" and "value" in facts and "cell" in words and not words & {"cells", "range", "ranges"}:
        return facts["value"]
    return result


__all__ = ["served", "wraps"]
