"""The built-in deterministic world model: no GPU, no API key, byte-reproducible.

It infers what each tool does (:mod:`agentworld_mcp.roles`), answers from the episode's
ledger (creations are readable, deletions are gone) and invents whatever else the
output needs from the tool's schemas, with the step's seeded generator.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from .. import values
from ..ledger import Effect, Entity
from ..roles import ToolRole, singular
from .base import Prediction, Step

JSONDict = dict[str, Any]


class SchemaWorldModel:
    name = "schema"

    async def predict(self, step: Step) -> Prediction:
        return predict(step)

    async def aclose(self) -> None:
        return None


def predict(step: Step) -> Prediction:
    role = step.tool.role
    handler = _HANDLERS.get(role.kind, _action)
    return handler(step, role)


# -- helpers ---------------------------------------------------------------------


def _key_arg(step: Step, role: ToolRole) -> tuple[str, str] | None:
    for name in role.key_args:
        value = step.arguments.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return name, str(value)
    return None


def _not_found(step: Step, role: ToolRole, key: str) -> Prediction:
    noun = singular(role.collection).replace("_", " ")
    if role.collection == "files":
        text = f"Error: ENOENT: no such file or directory, '{key}'"
    else:
        text = f"{noun.capitalize()} not found: {key}"
    return Prediction(text, is_error=True)


def _entity_fields(step: Step, role: ToolRole, key_name: str | None) -> JSONDict:
    """The stored fields of a new entity: its arguments plus what the service would add."""
    fields = {k: copy.deepcopy(v) for k, v in step.arguments.items() if k != role.batch_arg}
    for prop, sub in (step.tool.input_schema.get("properties") or {}).items():
        if prop not in fields and isinstance(sub, dict) and "default" in sub:
            fields[prop] = copy.deepcopy(sub["default"])
    item_schema = _item_schema(step, role)
    rng = step.rng
    if key_name is None and not any(k in fields for k in ("id", "path", "name", "key")):
        number = step.episode.ledger.next_number(role.collection)
        fields = {"id": _new_id(role, number, item_schema), **fields}
    if item_schema:
        for prop, sub in (item_schema.get("properties") or {}).items():
            if prop not in fields and prop in (item_schema.get("required") or ()):
                fields[prop] = _initial_value(sub, rng, prop)
    return fields


def _initial_value(schema: Any, rng: random.Random, name: str) -> Any:
    """A new entity starts in its schema's default state (``status: open``), not a random one."""
    if isinstance(schema, dict):
        if "default" in schema:
            return copy.deepcopy(schema["default"])
        if schema.get("enum"):
            return schema["enum"][0]
    return values.generate(schema, rng, name)


def _new_id(role: ToolRole, number: int, item_schema: JSONDict | None) -> Any:
    id_schema = ((item_schema or {}).get("properties") or {}).get("id") or {}
    if id_schema.get("type") == "integer":
        return number
    if id_schema.get("format") == "uuid":
        return str(values.generate(id_schema, random.Random(f"{role.collection}:{number}"), "id"))
    return f"{singular(role.collection)[:3]}_{number}"


def _item_schema(step: Step, role: ToolRole) -> JSONDict | None:
    out = step.tool.output_schema
    if not out:
        return None
    props = out.get("properties") or {}
    if role.items_field and isinstance(props.get(role.items_field), dict):
        items = props[role.items_field].get("items")
        if isinstance(items, dict):
            return items
    wrapped = props.get(singular(role.collection))
    if isinstance(wrapped, dict) and wrapped.get("type") == "object":
        return wrapped
    return out


def conform(value: Any, schema: Any, rng: random.Random, name: str = "") -> Any:
    """``value`` reshaped to validate against ``schema``: known fields kept, missing required ones invented."""
    if not isinstance(schema, dict) or schema is True:
        return value
    kind = schema.get("type")
    if isinstance(kind, list):
        if value is None and "null" in kind:
            return None
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or (kind is None and "properties" in schema):
        if not isinstance(value, dict):
            return values.generate(schema, rng, name)
        props: JSONDict = schema.get("properties") or {}
        out: JSONDict = {}
        for prop, sub in props.items():
            if prop in value:
                out[prop] = conform(value[prop], sub, rng, prop)
            elif prop in (schema.get("required") or ()):
                out[prop] = values.generate(sub, rng, prop)
        if schema.get("additionalProperties", True) is not False:
            for prop, item in value.items():
                out.setdefault(prop, item)
        return out
    if kind == "array":
        if not isinstance(value, list):
            return values.generate(schema, rng, name)
        return [conform(v, schema.get("items", {}), rng, name) for v in value]
    if schema.get("enum") and value not in schema["enum"]:
        return values.generate(schema, rng, name)
    expected = {"string": str, "integer": int, "number": (int, float), "boolean": bool}.get(kind or "")
    if expected and (not isinstance(value, expected) or (kind != "boolean" and isinstance(value, bool))):
        return values.generate(schema, rng, name)
    return value


def _render(step: Step, role: ToolRole, body: Any, *, single: JSONDict | None = None) -> Any:
    """Shape the answer like the tool's outputSchema (or keep it as JSON for text tools)."""
    out = step.tool.output_schema
    if not out:
        if single is not None and role.collection == "files" and role.kind == "read" and "content" in single:
            return str(single["content"])
        return body
    props = out.get("properties") or {}
    if isinstance(body, list):
        base: JSONDict = {role.items_field or "items": body}
    elif isinstance(body, dict):
        wrapper = singular(role.collection)
        base = {wrapper: body} if wrapper in props and wrapper not in body else dict(body)
    else:
        base = {"result": body}
    for count in ("total", "total_count", "count", "totalCount"):
        if count in props and isinstance(body, list):
            base[count] = len(body)
    if "success" in props:
        base.setdefault("success", True)
    return conform(base, out, step.rng)


# -- roles -----------------------------------------------------------------------


def _create(step: Step, role: ToolRole) -> Prediction:
    ledger = step.episode.ledger
    if role.batch_arg and isinstance(step.arguments.get(role.batch_arg), list):
        created, effects = [], []
        for item in step.arguments[role.batch_arg]:
            if not isinstance(item, dict):
                continue
            ident = _identity(item)
            if ident and ledger.get(role.collection, ident):
                continue  # already there: batch creates skip existing names, as upserts do
            fields = copy.deepcopy(item)
            if ident is None:
                fields = {"id": _new_id(role, ledger.next_number(role.collection), None), **fields}
                ident = str(fields["id"])
            effects.append(Effect("create", role.collection, ident, fields))
            created.append(fields)
        return Prediction(_render(step, role, created), effects=effects)
    key = _key_arg(step, role)
    fields = _entity_fields(step, role, key[0] if key else None)
    ident = key[1] if key else _identity(fields) or str(len(ledger.items(role.collection)) + 1)
    return Prediction(_render(step, role, fields, single=fields), effects=[Effect("create", role.collection, ident, fields)])


def _identity(fields: JSONDict) -> str | None:
    from ..ledger import identity

    found = identity(fields)
    return found[1] if found else None


def _target(step: Step, role: ToolRole) -> tuple[str | None, Entity | None]:
    key = _key_arg(step, role)
    if key is None:
        return None, None
    return key[1], step.episode.ledger.get(role.collection, key[1])


def _read(step: Step, role: ToolRole) -> Prediction:
    key, entity = _target(step, role)
    if key is None:
        return _list(step, role)
    if entity is None:
        return _not_found(step, role, key)
    return Prediction(_render(step, role, copy.deepcopy(entity.fields), single=entity.fields), effects=[])


def _update(step: Step, role: ToolRole) -> Prediction:
    key, entity = _target(step, role)
    if key is None:
        return _action(step, role)
    if entity is None:
        return _not_found(step, role, key)
    changes = {k: copy.deepcopy(v) for k, v in step.arguments.items() if k not in role.key_args}
    merged = {**entity.fields, **changes}
    return Prediction(_render(step, role, merged, single=merged), effects=[Effect("update", role.collection, key, changes)])


def _delete(step: Step, role: ToolRole) -> Prediction:
    key, entity = _target(step, role)
    if key is None:
        return _action(step, role)
    if entity is None:
        return _not_found(step, role, key)
    body = {"success": True, "deleted": True, "id": entity.fields.get("id", key)}
    text_body: Any = body if step.tool.output_schema else f"Successfully deleted {key}"
    rendered = _render(step, role, text_body)
    return Prediction(rendered, effects=[Effect("delete", role.collection, key)])


def _move(step: Step, role: ToolRole) -> Prediction:
    args = step.arguments
    source = next((str(args[k]) for k in ("source", "from", "src", "old_path", "path") if k in args), None)
    dest = next((str(args[k]) for k in ("destination", "to", "dest", "new_path", "target") if k in args), None)
    if source is None or dest is None:
        return _action(step, role)
    entity = step.episode.ledger.get(role.collection, source)
    if entity is None:
        return _not_found(step, role, source)
    moved = {**entity.fields}
    for field in ("path", "name", "id"):
        if moved.get(field) == source:
            moved[field] = dest
    body = f"Successfully moved {source} to {dest}" if not step.tool.output_schema else moved
    return Prediction(_render(step, role, body), effects=[Effect("move", role.collection, source, moved, new_key=dest)])


def _list(step: Step, role: ToolRole) -> Prediction:
    items = [copy.deepcopy(e.fields) for e in step.episode.ledger.items(role.collection)]
    items = [item for item in items if _matches(item, step.arguments, role)]
    return Prediction(_render(step, role, items), effects=[])


def _matches(item: JSONDict, arguments: JSONDict, role: ToolRole) -> bool:
    for name, wanted in arguments.items():
        if name in ("query", "q", "search", "text", "keyword"):
            haystack = " ".join(str(v) for v in item.values()).lower()
            if str(wanted).lower() not in haystack:
                return False
        elif name in item and not isinstance(wanted, (dict, list)) and item[name] != wanted:
            return False
    return True


def _action(step: Step, role: ToolRole) -> Prediction:
    out = step.tool.output_schema
    if out:
        return Prediction(values.generate(out, step.rng), effects=[])
    args = ", ".join(f"{k}={v!r}" for k, v in step.arguments.items())
    return Prediction(f"{step.tool.name} completed successfully" + (f" ({args})" if args else "") + ".", effects=[])


_HANDLERS = {
    "create": _create, "read": _read, "list": _list, "search": _list,
    "update": _update, "delete": _delete, "move": _move, "action": _action,
}
