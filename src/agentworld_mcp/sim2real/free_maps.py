"""Objects whose keys are the caller's data, not the server's schema: a learned shape keeps them open.

A note's ``metadata`` is whatever the create was given (``{"owner": "priya"}`` in the recording,
``{"mood": "mixed"}`` next time). Inferred from the answers alone, the shape would list ``owner`` as the
object's only property, and the served answer would keep only the keys the recording showed. Where the
catalog declares an argument of that name as a free-form object (``additionalProperties``, no
``properties``), the answer's object of that name is one too: its keys are the entity's.
"""

from __future__ import annotations

from typing import Any

from ..world.catalog import Catalog

JSONDict = dict[str, Any]


def free_form_arguments(catalog: Catalog) -> dict[str, JSONDict]:
    """Argument name -> the schema of its values, for every object argument of the catalog that lists no
    properties (``{"type": "object", "additionalProperties": {"type": "string"}}``)."""
    found: dict[str, JSONDict] = {}
    for spec in catalog:
        for name, schema in ((spec.input_schema or {}).get("properties") or {}).items():
            if not isinstance(schema, dict) or schema.get("type") != "object" or schema.get("properties"):
                continue
            values = schema.get("additionalProperties", True)
            if values is False:
                continue
            found.setdefault(name, values if isinstance(values, dict) else {})
    return found


def with_free_form_maps(shape: JSONDict, maps: dict[str, JSONDict]) -> JSONDict:
    """``shape`` with each object property named like a free-form argument opened to any key."""
    if not maps:
        return shape
    return _opened(shape, maps)


def _opened(node: Any, maps: dict[str, JSONDict], depth: int = 0) -> Any:
    if not isinstance(node, dict) or depth > 12:
        return node
    out = dict(node)
    props = node.get("properties")
    if isinstance(props, dict):
        out["properties"] = {name: ({"type": "object", "additionalProperties": maps[name]}
                                    if name in maps and isinstance(sub, dict) and sub.get("type") == "object"
                                    else _opened(sub, maps, depth + 1)) for name, sub in props.items()}
    if isinstance(node.get("items"), dict):
        out["items"] = _opened(node["items"], maps, depth + 1)
    return out


__all__ = ["free_form_arguments", "with_free_form_maps"]
