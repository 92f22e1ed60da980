"""Wrapped results: FastMCP's ``{"result": ...}`` carrying the tool's whole answer.

MCP requires an outputSchema to be an object, so FastMCP wraps every other return type
(``str``, ``int``, ``bool``, ``list[...]``, ``Optional[...]``) in one ``result`` field:

- jlowin/fastmcp (``src/fastmcp/tools/tool.py``): ``ParsedFunction.from_function`` builds
  ``{"type": "object", "properties": {"result": <type>}, "required": ["result"],
  "x-fastmcp-wrap-result": true}``; ``Tool.convert_result`` answers ``{"result": value}``;
  ``_convert_to_content`` prints a ``str`` as it is and anything else as compact JSON
  (``pydantic_core.to_json``), a list as one block.
- The MCP Python SDK's FastMCP (``mcp/server/fastmcp/utilities/func_metadata.py``):
  ``_try_create_model_and_schema`` wraps the same types in a model ``<fn>Output`` with
  the one field ``result`` (no marker); ``convert_result`` answers ``{"result": value}``;
  ``_convert_to_content`` prints a ``str`` as it is, anything else as JSON indented by 2,
  a list as one block per item.

Such servers very often return ``json.dumps(record)`` from a ``-> str`` tool, so the
record is the string. The deterministic model answers a wrapped tool as the bare tool it
wraps (a record, a list, a confirmation), then puts that answer in ``result`` typed as
the schema says and prints the text block the way the server's flavour does.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from typing import Any

from ...world import values
from ...state.result import dump_json
from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: jlowin/fastmcp's marker on a wrapped outputSchema.
WRAP_MARKER = "x-fastmcp-wrap-result"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: A tool whose number is how many of its things there are.
_COUNTS = re.compile(r"\b(?:count|how many|number of)\b", re.IGNORECASE)


def wrapped_schema(tool: JSONDict) -> JSONDict | None:
    """The schema of ``result`` when ``tool``'s outputSchema wraps its answer (either FastMCP), else None."""
    out = tool.get("outputSchema")
    if not isinstance(out, dict):
        return None
    props = out.get("properties") or {}
    inner = props.get("result")
    if not isinstance(inner, dict):
        return None
    if out.get(WRAP_MARKER) is True or (set(props) == {"result"} and list(out.get("required") or ()) == ["result"]):
        return inner
    return None


def wrap(step: Step, bare_step: Step, answer: Prediction) -> Prediction:
    """``answer`` (the bare tool's, to ``bare_step``) put in ``result`` and printed as FastMCP prints it."""
    inner = wrapped_schema(step.tool.definition) or {}
    said = answer.text if answer.text is not None else answer.observation
    if isinstance(said, str) and "string" not in _kinds(inner):
        said = printed_value(said)  # the bare tool printed what the wrapped one returns: ``[{'id': 1}]``
        if isinstance(said, str) and answer.info.get("failure"):  # served.py marks a failure it reads
            said = _caught(said, inner)  # ``except Exception as e: return {"error": str(e)}``
    result = as_result(said, inner, bare_step)
    marker = (step.tool.output_schema or {}).get(WRAP_MARKER) is True
    return dataclasses.replace(answer, observation={"result": result}, text=printed(result, fastmcp=marker),
                               checked=False)  # a new observation: the engine validates it


def as_result(answer: Any, schema: JSONDict, step: Step) -> Any:
    """The bare answer (to the bare tool's ``step``) as a value of ``schema``: a record becomes its JSON
    where a string is wanted, a list its length where a number is (or the tool's collection its size),
    and so on; whatever can't be carried over is generated."""
    from .common import conform

    kind = _kind(schema, answer)
    if kind == "string":  # as ``json.dumps(record)`` writes it, the habit of Python servers' ``-> str`` tools
        value: Any = answer if isinstance(answer, str) else json.dumps(answer)
    elif kind in ("integer", "number"):
        value = _number(answer, integer=kind == "integer")
        if value is None and _COUNTS.search(f"{step.tool.name.replace('_', ' ')} {step.tool.description}"):
            value = len(step.episode.ledger.items(step.tool.role.collection))  # ``count_notes() -> int``
    elif kind == "boolean":
        value = answer if isinstance(answer, bool) else True  # the call succeeded
    elif kind == "array":
        value = _items(answer)
        wanted = _kinds(schema.get("items") or {}) if isinstance(schema.get("items"), dict) else []
        if value and wanted and "object" not in wanted and all(isinstance(i, dict) and len(i) == 1 for i in value):
            value = [next(iter(i.values())) for i in value]  # ``[{'name': 'notes'}]`` where names are wanted
    elif kind == "null":
        value = None
    else:
        value = answer
    target = _branch(schema, kind)
    if value is None and kind != "null":
        return values.generate(target, step.rng, "result")
    return conform(value, target, step.rng, "result")


#: A printed value longer than this is left as text (parsing it is no use to an answer).
_MAX_PRINTED = 1_000_000


def _caught(message: str, schema: JSONDict) -> Any:
    """A failure the tool caught, returned as Python servers return one where a record or a list of records is
    typed: ``{"error": message}``, in a list where a list is."""
    kinds = _kinds(schema)
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    if "object" in kinds:
        return {"error": message}
    if "array" in kinds and "object" in _kinds(items or {}):
        return [{"error": message}]
    return message


def printed_value(text: str) -> Any:
    """The list or record ``text`` prints, as JSON or as Python prints it (``str(rows)``); else ``text``."""
    stripped = text.strip()
    if stripped[:1] not in ("[", "{") or len(stripped) > _MAX_PRINTED:
        return text
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    try:
        value = ast.literal_eval(stripped)  # literals only: nothing is run
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, (list, dict)) else text


def printed(result: Any, *, fastmcp: bool) -> str:
    """The text block FastMCP prints for ``result`` (see the module docstring for both flavours)."""
    if isinstance(result, str):
        return result
    if fastmcp:
        return json.dumps(result, separators=(",", ":"), ensure_ascii=False)
    if isinstance(result, list):  # one block per item; the engine carries one, so they are joined as clients do
        return "\n".join(item if isinstance(item, str) else dump_json(item) for item in result)
    return dump_json(result)


def _kind(schema: JSONDict, answer: Any) -> str:
    """The JSON type ``result`` takes: the schema's, or for unions the branch the answer fits, else the first."""
    kinds = _kinds(schema)
    have = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}.get(
        type(answer), "string")
    if not kinds:  # ``Any``: the answer as it is
        return have
    if have == "integer" and "integer" not in kinds and "number" in kinds:
        return "number"
    if have in kinds:
        return have
    real = [k for k in kinds if k != "null"]
    return real[0] if real else "null"


def _kinds(schema: JSONDict) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    out: list[str] = []
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(branch, dict):
            out += [k for k in _kinds(branch) if k not in out]
    if not out and "properties" in schema:
        out = ["object"]
    return out


def _branch(schema: JSONDict, kind: str) -> JSONDict:
    """The part of a union schema that describes ``kind`` (the schema itself when it is no union)."""
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(branch, dict) and kind in _kinds(branch):
            return branch
    return schema


def _number(answer: Any, *, integer: bool) -> int | float | None:
    """A count for a list, the numeric id of a record, the number a message states."""
    found: Any = None
    if isinstance(answer, bool):
        found = int(answer)
    elif isinstance(answer, (int, float)):
        found = answer
    elif isinstance(answer, list):
        found = len(answer)
    elif isinstance(answer, dict):
        found = next((v for k, v in answer.items() if _number_field(k) and _plain_number(v)), None)
        if found is None:
            found = next((len(v) for v in answer.values() if isinstance(v, list)), None)
    elif isinstance(answer, str):
        match = _NUMBER.search(answer)
        found = float(match.group()) if match else None
    if found is None:
        return None
    return int(found) if integer else found


def _number_field(name: str) -> bool:
    lowered = name.lower()
    return lowered in ("id", "count", "total", "number", "value", "result") or lowered.endswith(("_id", "count"))


def _plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _items(answer: Any) -> list[Any] | None:
    """A list answer as it is; a record holding one list (``{"items": [...]}``) as that list; a record as itself."""
    if isinstance(answer, list):
        return answer
    if isinstance(answer, dict):
        lists = [v for v in answer.values() if isinstance(v, list)]
        return lists[0] if len(lists) == 1 else [answer]
    return None


__all__ = ["WRAP_MARKER", "as_result", "printed", "printed_value", "wrap", "wrapped_schema"]
