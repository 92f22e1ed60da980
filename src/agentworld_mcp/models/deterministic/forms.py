"""Values a service keeps as objects where the argument takes a string.

Google Calendar's ``start`` argument is described as "String format: '2025-01-01T10:00:00'
... For per-field timezone, use JSON: '{"dateTime": "2025-01-01T10:00:00", "timeZone":
"America/Los_Angeles"}'". The object form the description shows is how the service holds
the value, so the event it returns has ``start: {"dateTime": ..., "timeZone": ...}``. A
string given in the format of one of the example's values goes under that key; the
example's other keys come from same-named arguments of the call (``timeZone``); a JSON
string of an object is parsed. Only for tools without an outputSchema (a schema decides).
"""

from __future__ import annotations

import json
import re
from typing import Any

JSONDict = dict[str, Any]

_OBJECT = re.compile(r"\{[^{}]*\}")


def object_forms(input_schema: JSONDict) -> dict[str, JSONDict]:
    """Argument -> the JSON object example its description shows (string arguments only)."""
    forms: dict[str, JSONDict] = {}
    for name, spec in (input_schema.get("properties") or {}).items():
        if not isinstance(spec, dict) or spec.get("type") != "string":
            continue
        for text in _OBJECT.findall(str(spec.get("description", ""))):
            try:
                example = json.loads(text)
            except ValueError:
                continue
            if isinstance(example, dict) and example and all(isinstance(v, (str, int, float)) for v in example.values()):
                forms[name] = example
                break
    return forms


def _shape(value: Any) -> str:
    return re.sub(r"[A-Za-z]+", "a", re.sub(r"\d+", "#", str(value)))


def shaped(value: Any, example: JSONDict, arguments: JSONDict) -> Any:
    """``value`` in the example's object form, or ``value`` itself when it fits none of its keys."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    key = next((k for k, v in example.items() if _shape(v) == _shape(value)), None)
    if key is None:
        return value
    out: JSONDict = {key: value}
    for other in example:
        if other != key and isinstance(arguments.get(other), (str, int, float)):
            out[other] = arguments[other]
    return out


def in_object_forms(input_schema: JSONDict, fields: JSONDict, arguments: JSONDict) -> JSONDict:
    """``fields`` with each value of an argument that shows an object form put in that form."""
    forms = object_forms(input_schema)
    return {name: shaped(value, forms[name], arguments) if name in forms else value for name, value in fields.items()}


__all__ = ["in_object_forms", "object_forms", "shaped"]
