"""What a catalog's entities look like, which of their fields name other entities, and whether
a world's seed state keeps those promises.

``populate`` fills a world's ``seed:`` in these shapes; ``validate`` reports a seed entity
whose reference names an entity the seed does not have. Both read the catalog entity model
(:mod:`agentworld_mcp.world.entities`): a collection's key field, scope and conventions, plus the
JSON Schema of each field as the catalog's tools return it (output item schemas first, then
what creates and updates take).

A field refers to another collection when its name says so, whatever the service:
``crew_id``/``crewId``/``habitat`` -> the collection named by the stem (``crew_members``,
``habitats``); ``labelIds`` -> a list of labels; ``assignee``/``reporter``/``owner`` ->
the catalog's collection of people (users, members, crew...) when no collection has that name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..world.entities import SELECTOR_ARGS, EntityType
from .described import described_fields
from ..state.ledger import identity
from ..world.roles import ID_NAMES, PAGINATION_ARGS, ToolRole, id_stem, singular, words

if TYPE_CHECKING:
    from ..world.catalog import Catalog

JSONDict = dict[str, Any]

#: Nouns of collections whose entities are people (the targets of ``assignee``, ``owner``...).
PERSON_NOUNS = ("user", "member", "crew", "person", "people", "employee", "staff", "agent", "colonist",
                "astronaut", "resident", "contact", "customer", "account", "worker", "engineer", "patient")
#: Fields that name a person without saying which collection people live in.
PERSON_FIELDS = frozenset({
    "assignee", "assignees", "reporter", "owner", "author", "creator", "lead", "user", "member", "members",
    "reported_by", "reportedby", "created_by", "createdby", "assigned_to", "assignedto", "submitted_by",
    "requested_by", "manager", "commander", "captain", "pilot", "supervisor", "approver", "reviewer",
    "responsible", "contact", "participants", "watchers", "subscriber",
})
#: Properties of answers that describe the call, not the entity.
CALL_FIELDS = frozenset({"success", "ok", "error", "errors", "result", "results", "include", "expand",
                         "validate_only", "dry_run", "dryRun", "force", "notify", "return_fields", "fields",
                         "confirm", "idempotencyKey", "idempotency_key", "query", "items", "nodes", "edges",
                         "data", "pageInfo", "page_info", "next_cursor", "nextCursor", "cursor", "has_more",
                         "hasMore", "total", "total_count", "totalCount"})
#: Attribute words that are never a reference by themselves (``webhook.label`` is text, ``url`` a link).
_ATTRIBUTE_WORDS = frozenset({"url", "urls", "link", "links", "label", "title", "name", "type", "status", "state",
                              "description", "content", "text", "body", "message", "note", "notes", "value",
                              "version", "tag", "kind", "key", "id", "uuid", "path", "email", "icon", "color"})
_OUTPUT_KINDS = ("read", "create", "update", "list", "search")
#: Key fields that hold a name, never a number.
_NAMED_KEYS = ("name", "username", "login", "handle", "slug", "email", "title", "path")


@dataclass(frozen=True)
class Reference:
    """A field naming an entity of ``target`` by its key (``many``: a list of them)."""

    target: str
    many: bool = False
    #: The field holds the entity itself in brief (``team: {id, name}``), not only its key.
    embed: bool = False


@dataclass(frozen=True)
class Shape:
    """One collection's entities: key, scope, the schema of each field, references, conventions."""

    entity: EntityType
    #: Field -> JSON Schema, in a stable order (output fields first: the shape tools return).
    fields: dict[str, JSONDict]
    required: frozenset[str]
    references: dict[str, Reference] = field(default_factory=dict)

    @property
    def collection(self) -> str:
        return self.entity.collection

    @property
    def key_field(self) -> str:
        return self.entity.key_field

    @property
    def noun(self) -> str:
        return singular(self.collection).replace("_", " ")

    @property
    def is_people(self) -> bool:
        return is_people(self.collection, self.fields)

    def json_schema(self) -> JSONDict:
        """The entity as one JSON Schema (what a language model is asked to write, and checked against).

        A reference is checked against the entities that exist, not a pattern: a ``project_key`` holds the
        key of a project the seed has, whatever pattern an input schema gave it."""
        props = {name: _loose(schema) if name not in self.references else {}
                 for name, schema in self.fields.items()}
        return {"type": "object", "properties": props, "required": sorted(self.required | {self.key_field})}


def is_people(collection: str, fields: Iterable[str] = ()) -> bool:
    noun = singular(collection)
    return any(w in PERSON_NOUNS for w in words(noun)) or ("email" in fields and "name" in set(fields))


def _loose(schema: JSONDict) -> JSONDict:
    """A field's schema without what would reject a realistic value for a reason that is not the shape."""
    return {k: v for k, v in schema.items() if k not in ("readOnly", "writeOnly", "deprecated", "default")}


def _local(schema: Any, depth: int = 0) -> Any:
    """A field's schema cut from its tool: ``$ref``s into the tool's ``$defs`` no longer resolve, so they
    become ``{}`` (anything) rather than an error."""
    if depth > 12:
        return {}
    if isinstance(schema, dict):
        if "$ref" in schema:
            return {}
        return {k: _local(v, depth + 1) for k, v in schema.items() if k not in ("$defs", "definitions")}
    if isinstance(schema, list):
        return [_local(v, depth + 1) for v in schema]
    return schema


# -- shapes from the catalog ---------------------------------------------------------------------


def shapes(catalog: Catalog) -> dict[str, Shape]:
    """The record collections the catalog's tools let an agent see (read, list or search), by name."""
    model = catalog.model
    out: dict[str, Shape] = {}
    for collection, entity in model.entities.items():
        roles = [(name, model.roles[name]) for name in entity.tools if name in model.roles]
        roles += [(f"{name}#{value}", role) for name, sel in model.selectors.items()
                  for value, role in sel.roles.items() if role.collection == collection and role.style == "record"]
        if not any(r.kind in ("read", "list", "search") and r.collection == collection for _, r in roles):
            continue
        fields, required = _field_schemas(catalog, entity, roles)
        if not fields:
            continue
        out[collection] = Shape(entity, fields, frozenset(required))
    return {name: _with_references(shape, out) for name, shape in out.items()}


def _field_schemas(catalog: Catalog, entity: EntityType, roles: list[tuple[str, ToolRole]]
                   ) -> tuple[dict[str, JSONDict], set[str]]:
    outputs: dict[str, JSONDict] = {}
    inputs: dict[str, JSONDict] = {}
    required: set[str] = set()
    for name, role in sorted(roles, key=lambda r: _OUTPUT_KINDS.index(r[1].kind) if r[1].kind in _OUTPUT_KINDS else 9):
        if role.collection != entity.collection:
            continue
        spec = catalog.get(name.split("#")[0])
        if spec is None:
            continue
        item = _item_schema(spec.output_schema or _output_shape(spec.definition), role)
        if item is not None and role.kind in _OUTPUT_KINDS:
            for prop, schema in (item.get("properties") or {}).items():
                if isinstance(schema, dict):
                    outputs.setdefault(prop, schema)
            if role.kind in ("read", "create"):
                required |= {r for r in item.get("required") or () if isinstance(r, str)}
        if role.kind in ("create", "update"):
            skip = {role.batch_arg, *(SELECTOR_ARGS if spec.selector else ()), *PAGINATION_ARGS}
            for prop, schema in (spec.input_schema.get("properties") or {}).items():
                if prop not in skip and isinstance(schema, dict) and (prop == entity.key_field or not (
                        prop in role.key_args or _names_own(prop, entity.collection))):
                    inputs.setdefault(prop, schema)
    fields = {**outputs, **{k: v for k, v in inputs.items() if k not in outputs}}
    if not outputs:  # no tool shows the entity: the fields its descriptions name (described.py)
        texts = [spec.description for name, _ in roles if (spec := catalog.get(name.split("#")[0])) is not None]
        for prop, schema in described_fields(texts, entity.collection).items():
            fields.setdefault(prop, schema)
    for scope in entity.scope:  # a scoped entity carries its parent's names (lookups check them)
        fields.setdefault(scope, inputs.get(scope) or {"type": "string"})
    numbered = entity.key_type == "integer" and entity.key_field not in _NAMED_KEYS  # a label's ``name`` is text
    fields.setdefault(entity.key_field, {"type": "integer"} if numbered else {"type": "string"})
    fields = {k: _local(v) for k, v in fields.items() if k not in CALL_FIELDS and not k.startswith("_")}
    key_first = {entity.key_field: fields.pop(entity.key_field), **fields}
    return key_first, required & set(key_first)


def _names_own(prop: str, collection: str) -> bool:
    """``issue_key``/``issue_keys``/``issues`` on an issue: the call's target or a batch, not a field."""
    stem = id_stem(prop[:-1] if prop.endswith("s") else prop) or prop
    return singular(stem) == singular(collection) or prop == collection


def _output_shape(tool: JSONDict) -> JSONDict | None:
    meta = tool.get("_meta") if isinstance(tool.get("_meta"), dict) else {}
    shape = (meta or {}).get("agentworld/output_shape")
    return shape if isinstance(shape, dict) else None


def _item_schema(output: JSONDict | None, role: ToolRole) -> JSONDict | None:
    if not isinstance(output, dict):
        return None
    props = output.get("properties") or {}
    if role.wrapper and isinstance(props.get(role.wrapper), dict):
        wrapped: JSONDict = props[role.wrapper]
        return wrapped
    if role.kind in ("list", "search"):
        holder = props.get(role.items_field) if role.items_field else None
        items = holder.get("items") if isinstance(holder, dict) else None
        return items if isinstance(items, dict) else None
    return output if props else None


def _with_references(shape: Shape, every: Mapping[str, Shape]) -> Shape:
    found = {}
    for name, schema in shape.fields.items():
        if name == shape.key_field:
            continue
        ref = reference_of(name, schema, shape.collection, every)
        if ref is not None:
            found[name] = ref
    return Shape(shape.entity, shape.fields, shape.required, found)


def reference_of(name: str, schema: JSONDict, own: str, every: Mapping[str, Any]) -> Reference | None:
    """The collection ``name`` refers to, if its name says so and the catalog has it."""
    kind = schema.get("type")
    many = kind == "array" or (isinstance(kind, list) and "array" in kind)
    embed = kind == "object" or (kind is None and "properties" in schema)
    if many:
        items = schema.get("items")
        item_kind = items.get("type") if isinstance(items, dict) else None
        if item_kind not in ("string", "integer", None) or (isinstance(items, dict) and "properties" in items):
            return None
    elif not embed and kind not in ("string", "integer", "number", None) and not (isinstance(kind, list) and (
            {"string", "integer"} & set(kind))):
        return None
    if embed and id_stem(name):  # ``team_id: {...}`` is not a brief of the team
        return None
    base = name
    if many:  # ``labelIds``/``member_ids`` -> ``labelId``; ``assignees`` -> ``assignee``
        base = name[:-1] if name.endswith("s") else name
    stem = id_stem(base)
    candidates = [stem] if stem else []
    if not stem and base not in ID_NAMES and base.lower() not in _ATTRIBUTE_WORDS and not base.endswith(("Url", "_url")):
        candidates.append("_".join(words(base)))
    for candidate in candidates:
        if candidate.split("_")[0] == "parent" and stem:
            # ``parentId``: another entity of the same collection; ``parentProjectId``: a project
            named = _collection_named(candidate.removeprefix("parent").strip("_"), every)
            return Reference(named if named else own, many)
        target = _collection_named(candidate, every)
        if target is not None and target != own:
            return Reference(target, many, embed)
    if base.lower() in PERSON_FIELDS or (stem and stem.replace("_", "") in PERSON_FIELDS):
        people = next((c for c in every if is_people(c, getattr(every[c], "fields", ()))), None)
        if people is not None and people != own:
            return Reference(people, many, embed)
    return None


def _collection_named(stem: str, every: Mapping[str, Any]) -> str | None:
    """``crew`` -> ``crew_members`` or ``crews``; ``habitat`` -> ``habitats``; none for a field word."""
    noun = singular(stem.lower())
    if not noun or noun in ("id", "key", "uuid"):
        return None
    exact = [c for c in every if singular(c) == noun]
    if exact:
        return exact[0]
    starts = [c for c in every if c.startswith(noun + "_") or c.endswith("_" + noun) or singular(c).endswith("_" + noun)]
    return starts[0] if len(starts) == 1 else None


# -- checking a seed -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dangling:
    """A seed entity whose reference names an entity the seed does not have."""

    collection: str
    key: str
    field: str
    value: Any
    target: str
    known: tuple[str, ...]

    def __str__(self) -> str:
        shown = ", ".join(self.known[:8]) + (f" and {len(self.known) - 8} more" if len(self.known) > 8 else "")
        return (f"seed.{self.collection}[{self.key}].{self.field} = {self.value!r} names no entity of "
                f"{self.target!r} (the seed has: {shown})")


def keys_of(entity: JSONDict, key_field: str) -> set[str]:
    """Every value an entity may be named by: its key and identifier-like fields (``name``, ``email``)."""
    out = {str(entity[key_field])} if isinstance(entity.get(key_field), (str, int)) else set()
    for name in (*ID_NAMES, "identifier", "display_name", "displayName", "full_name"):
        value = entity.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            out.add(str(value))
    ident = identity(entity)
    if ident is not None:
        out.add(ident[1])
    return out


def entity_key(entity: JSONDict, shape: Shape | None, index: int) -> str:
    if shape is not None and isinstance(entity.get(shape.key_field), (str, int)):
        return str(entity[shape.key_field])
    ident = identity(entity)
    return ident[1] if ident else str(index + 1)


def dangling(seed: Mapping[str, list[JSONDict]], every: Mapping[str, Shape]) -> list[Dangling]:
    """References in ``seed`` that resolve to nothing.

    Only collections the seed lists count as promises: a world that seeds issues but no users
    may name any assignee; once it seeds users, an assignee must be one of them.
    """
    known = {c: set().union(*(keys_of(e, every[c].key_field) for e in seed.get(c) or [] if isinstance(e, dict)))
             for c in every if seed.get(c)}
    out: list[Dangling] = []
    for collection, entities in seed.items():
        shape = every.get(collection)
        if shape is None:
            continue
        for index, entity in enumerate(entities):
            if not isinstance(entity, dict):
                continue
            for name, ref in shape.references.items():
                if ref.target not in known or entity.get(name) is None:
                    continue
                for value in _named(entity[name]):
                    if str(value) not in known[ref.target]:
                        shown = tuple(entity_key(e, every[ref.target], i)
                                      for i, e in enumerate(seed[ref.target]) if isinstance(e, dict))
                        out.append(Dangling(collection, entity_key(entity, shape, index), name, value,
                                            ref.target, shown))
    return out


def _named(value: Any) -> list[str | int]:
    """The keys a reference value holds: a scalar, a list of them, or objects with an identity."""
    values = value if isinstance(value, list) else [value]
    out: list[str | int] = []
    for item in values:
        if isinstance(item, dict):
            ident = identity(item)
            if ident is not None:
                out.append(ident[1])
        elif isinstance(item, (str, int)) and not isinstance(item, bool) and item != "":
            out.append(item)
    return out


__all__ = ["CALL_FIELDS", "PERSON_FIELDS", "PERSON_NOUNS", "Dangling", "Reference", "Shape", "dangling",
           "entity_key", "is_people", "keys_of", "reference_of", "shapes"]
