"""What every style of the deterministic world model shares: the simulated clock, errors worded
as the service words them, output schemas filled and conformed, entities and lists rendered.

Below the style modules (records in :mod:`.schema`, files, graph, SQL, wrapping...), which import
from here and never from each other's handlers; :mod:`.schema` dispatches to them.
"""

from __future__ import annotations

import copy
import datetime as dt
import random
import re
from typing import Any

from ...world import values
from ...world.entities import EntityModel, build
from ...state.ledger import Effect
from ...world.roles import ToolRole, not_found_message
from ..base import Prediction, Step

JSONDict = dict[str, Any]

#: The simulated clock: turn N happens N minutes after this moment (seed state is at turn 0).
CLOCK_START = dt.datetime(2026, 3, 9, 9, 0, tzinfo=dt.UTC)
CREATED_FIELDS = ("created_at", "createdAt", "created", "creation_date", "date_created")
UPDATED_FIELDS = ("updated_at", "updatedAt", "modified_at", "modifiedAt", "last_modified")


# -- helpers --------------------------------------------------------------------------------


def clock(turn: int) -> dt.datetime:
    return CLOCK_START + dt.timedelta(minutes=turn)


def now_iso(turn: int) -> str:
    return clock(turn).strftime("%Y-%m-%dT%H:%M:%SZ")


def error(text: str) -> Prediction:
    return Prediction(text, is_error=True, effects=[])


def not_found(step: Step, role: ToolRole, key: str, **kwargs: Any) -> Prediction:
    """The tool's not-found error: worded as the world's demonstrations word it, else as the service style."""
    template = _demonstrated_not_found(step, role) if role.style == "record" else None
    if template is not None:
        return error(template.replace("{key}", key))
    return error(not_found_message(role, key, **kwargs))


def _demonstrated_not_found(step: Step, role: ToolRole) -> str | None:
    """A not-found wording shown by an ``isError`` demonstration of a tool on the same collection.

    ``get_issue(issue_id: 99) -> "Issue not found: 99"`` makes every issue not-found read
    ``Issue not found: {key}``. Derived once per catalog: demonstrations do not change.
    """
    return step.derived(("not_found_wording", role.collection), lambda: _find_not_found(step, role))


def _find_not_found(step: Step, role: ToolRole) -> str | None:
    from ...world.roles import infer_role

    for demo in step.world.demonstrations:
        tool = step.world.tool(demo.tool)
        if not demo.is_error or tool is None or not isinstance(demo.response, str):
            continue
        demo_role = entity_model(step).roles.get(demo.tool) or infer_role(tool)  # as the catalog sees it
        key = demo_role.key_of(demo.arguments)
        if demo_role.collection == role.collection and key is not None and key in demo.response:
            return demo.response.replace(key, "{key}")
    return None


def item_schema(step: Step, role: ToolRole, *, many: bool | None = None) -> JSONDict | None:
    """The JSON Schema of one entity in the tool's output (unwrapped from lists and wrappers).

    The items of ``items_field`` only where the output lists entities (a list or search, a
    batch): a created note's ``tags: [string]`` is a field of the note, not the note.
    """
    out = step.tool.output_schema
    if not out:
        return None
    props = out.get("properties") or {}
    if role.wrapper and isinstance(props.get(role.wrapper), dict):
        return props[role.wrapper]
    if many is None:
        many = role.kind in ("list", "search") or (
            role.batch_arg is not None and isinstance(step.arguments.get(role.batch_arg), list))
    if many and role.items_field and isinstance(props.get(role.items_field), dict):
        items = props[role.items_field].get("items")
        if isinstance(items, dict):
            return items
        return None
    return out


def fill(fields: JSONDict, schema: JSONDict | None, rng: random.Random, turn: int) -> JSONDict:
    """``fields`` plus whatever ``schema`` requires and they lack, in a new entity's initial state."""
    if not schema:
        return fields
    props: JSONDict = schema.get("properties") or {}
    out = dict(fields)
    for prop in schema.get("required") or ():
        if prop not in out:
            out[prop] = initial_value(props.get(prop, {}), rng, prop, turn)
    return conform(out, schema, rng)


def initial_value(schema: Any, rng: random.Random, name: str, turn: int) -> Any:
    """A new entity starts in its schema's default state (``status: open``), now, not a random one."""
    if isinstance(schema, dict):
        if "default" in schema:
            return copy.deepcopy(schema["default"])
        if schema.get("enum"):
            return _resting_value(schema, name)
        kinds: list[Any] = schema["type"] if isinstance(schema.get("type"), list) else [schema.get("type")]
        if name in CREATED_FIELDS + UPDATED_FIELDS and "string" in kinds:
            return now_iso(turn)
    return values.generate(schema, rng, name)


_NEUTRAL = ("none", "normal", "medium", "default", "no_priority", "unset")


def _resting_value(schema: JSONDict, name: str) -> Any:
    """The value an entity has before anyone sets it: a state's first value (``open``), but a priority's
    neutral one (``normal``, the value its description calls lowest or default: Todoist's ``p4``)."""
    enum = schema["enum"]
    if "priority" not in name.lower():
        return enum[0]
    neutral = next((v for v in enum if str(v).casefold() in _NEUTRAL), None)
    if neutral is not None:
        return neutral
    text = str(schema.get("description", ""))
    for value in enum:
        if re.search(re.escape(str(value)) + r"\s*\((lowest|default|normal|none)\)", text, re.IGNORECASE):
            return value
    return enum[-1] if str(enum[0]).casefold() in ("urgent", "highest", "critical", "p1", "1") else enum[0]


def conform(value: Any, schema: Any, rng: random.Random, name: str = "") -> Any:
    """``value`` reshaped to validate against ``schema``: known fields kept, missing required ones invented."""
    if not isinstance(schema, dict) or schema is True:
        return value
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(alternatives, list) and alternatives and schema.get("type") in (None, "object") and (
            "properties" not in schema):
        return conform(value, _closest(value, alternatives), rng, name)  # Todoist's ``object: task | project``
    kind = schema.get("type")
    if isinstance(kind, list):
        if value is None and "null" in kind:
            return None
        kind = next((k for k in kind if k != "null" and values.of_json_type(value, k)), None) or next(
            (k for k in kind if k != "null"), None)
    if kind == "object" or (kind is None and "properties" in schema):
        if not isinstance(value, dict):
            return values.generate(schema, rng, name)
        props: JSONDict = schema.get("properties") or {}
        out: JSONDict = {}
        for prop, sub in props.items():
            if prop in value:
                out[prop] = conform(value[prop], sub, rng, prop)
            elif prop in (schema.get("required") or ()):
                stated, default = values.stated_default(sub)
                out[prop] = default if stated else values.generate(sub, rng, prop)
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
    if kind and not values.of_json_type(value, kind):
        return values.generate(schema, rng, name)
    return value


def _closest(value: Any, alternatives: list[Any]) -> Any:
    """The alternative ``value`` fits best: an object schema sharing most of its fields, else one of its type."""
    options = [a for a in alternatives if isinstance(a, dict)]
    if isinstance(value, dict):
        objects = [a for a in options if a.get("type") == "object" or "properties" in a]
        if objects:
            return max(objects, key=lambda a: (len(set(a.get("properties") or {}) & set(value)), not _failure(a)))
    for option in options:
        kind = option.get("type")
        if isinstance(kind, str) and values.of_json_type(value, kind):
            return option
    return options[0] if options else {}


def _failure(schema: JSONDict) -> bool:
    """An alternative that reports a failure: ``{ok: false, error: {...}}`` beside ``{ok: true, data: {...}}``."""
    props = schema.get("properties") or {}
    flags = [p for p in props.values() if isinstance(p, dict) and p.get("const") is False]
    return bool(flags) or ("error" in props and "error" in (schema.get("required") or ()))


def structured_text(step: Step, text: str, *, is_error: bool = False, effects: list[Effect] | None = None) -> Prediction:
    """A text answer printed as it is; for a tool whose outputSchema is ``{content: string}`` (filesystem
    style) also structured, the text block staying the bare text as the real server prints it."""
    out = step.tool.output_schema
    if is_error or not out:
        return Prediction(text, is_error=is_error, effects=effects if effects is not None else [])
    props = out.get("properties") or {}
    text_prop = next((p for p in ("content", "text", "result", "message", "output") if
                      isinstance(props.get(p), dict) and props[p].get("type") == "string"), None)
    body: JSONDict = {text_prop: text} if text_prop else {}
    if "success" in props:
        body["success"] = True
    from .determined import known_values, settle  # what the call named (its path) is echoed, never invented

    known = known_values(step)
    if text_prop is None and step.role.kind == "read":  # what was read sits deeper: ``data.content``
        known = {**known, "content": text, "text": text}
    shaped = settle(conform(body, out, step.rng), out, known)
    if text_prop and isinstance(shaped, dict):
        shaped[text_prop] = text  # the answer's own text, not the argument of that name
    return Prediction(shaped, effects=effects or [], text=text)


# -- rendering ------------------------------------------------------


def render_entity(step: Step, role: ToolRole, entity: JSONDict) -> Any:
    """The entity as the tool returns it: the JSON itself without an outputSchema, else shaped by it."""
    out = step.tool.output_schema
    if not out or step.effects_only:
        return entity
    base: JSONDict = {role.wrapper: entity} if role.wrapper else dict(entity)
    if role.wrapper:  # beside the entity the answer names what was asked (``{type, id, object}``)
        for name in out.get("properties") or {}:
            if name != role.wrapper and is_scalar(step.arguments.get(name)):
                base[name] = step.arguments[name]
    if "success" in (out.get("properties") or {}):
        base.setdefault("success", True)
    return conform(base, out, step.rng)


def render_list(step: Step, role: ToolRole, items: list[JSONDict]) -> Any:
    out = step.tool.output_schema
    if not out or step.effects_only:
        return items
    arrays = [n for n, sub in (out.get("properties") or {}).items() if isinstance(sub, dict) and sub.get("type") == "array"]
    field = role.items_field or (arrays[0] if len(arrays) == 1 else "items")
    kind = (((out.get("properties") or {}).get(field) or {}).get("items") or {}).get("type")
    # ``{"calendars": [name, ...]}``: each item by its name (``{"ids": [...]}``: by its key)
    by = (role.key_field,) if field.lower().endswith(("ids", "keys")) else ("name", "title", role.key_field)
    shown = next((f for f in by if items and all(isinstance(i, dict) and is_scalar(i.get(f)) for i in items)), None)
    if kind in ("string", "integer") and shown is not None:
        items = [i[shown] for i in items]
    base: JSONDict = {field: items}
    for count in role.count_fields:
        base[count] = len(items)
    for name, sub in (out.get("properties") or {}).items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if name in ("failures", "errors", "failed") and kind == "array":
            base.setdefault(name, [])  # nothing failed: a deterministic success lists no failures
        elif kind in ("integer", "number") and (name.lower().endswith("count") or name.lower().startswith("total")):
            base.setdefault(name, 0 if "fail" in name.lower() or "error" in name.lower() else len(items))
    return conform(base, out, step.rng)


def is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def entity_model(step: Step) -> EntityModel:
    """The catalog's entity model (a hand-built step without a catalog gets one built for it)."""
    if step.catalog is not None:
        return step.catalog.model
    return build(step.world.tools, seed=step.world.seed)
