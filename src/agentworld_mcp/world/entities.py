"""The catalog's entity model: which tools touch which entity, its key, fields, scope, conventions.

A tool read on its own says little: ``save(key, value)``, ``get(key)`` and
``batch_delete(keys)`` look like three collections named after verbs; ``open_account``
looks like a read; ``create-event(path)`` looks like a file write. Read together, the
catalog says more: they share one store, ``get_account(account_id)`` names the account's
key, a calendar's events are records. This module reads the whole catalog once per world
(:class:`agentworld_mcp.world.catalog.Catalog` builds it at load) and refines each tool's role
(:func:`agentworld_mcp.world.roles.infer_role` per tool) with what its siblings say:

* **collections**: tools whose collection is named after a verb join the catalog's one
  real collection (or one shared store when there is none);
* **style**: a path-like argument does not make a tool a file tool when its siblings keep
  the same entity as records;
* **key**: the identifying argument of sibling reads, updates and deletes
  (``get_account(account_id)`` -> key field ``account_id``), unless an outputSchema says;
* **creates**: a tool that returns a new entity "with its account_id" creates it;
* **scope**: arguments every keyed tool of the entity needs besides its key
  (``owner`` and ``repo`` of ``get_issue``): part of the ledger key, numbers per scope;
* **fields**: arguments of creates and updates, output properties, fields the
  descriptions name; and the entity's conventions (:mod:`agentworld_mcp.world.conventions`);
* **action selectors**: one tool whose ``method``/``action``/``operation`` argument names
  the operation gets one role per value (``method: create`` creates, ``get`` reads).

``_meta`` overrides (``agentworld/role``) still have the last word.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import conventions as conv
from . import service_profiles as profiles
from .name_order import verb_first
from .sql_roles import DB_COLLECTION, KIND_OF_OP, database_ops
from .roles import (
    ALL_VERBS,
    PAGINATION_ARGS,
    ToolRole,
    actions_that_set_fields,
    apply_override,
    infer_alone,
    infer_as_record,
    is_id_name,
    nouns_of,
    singular,
    state_after,
    verb_kind,
    words,
)

JSONDict = dict[str, Any]

#: Argument names that select the operation of a consolidated tool.
SELECTOR_ARGS = ("method", "action", "operation", "op", "mode", "command", "verb", "type")
_FILE_WORDS = frozenset({"file", "files", "directory", "directories", "dir", "folder", "folders", "mkdir", "path"})
#: The collection of a store whose tools are all named after verbs (``save``, ``get``).
SHARED_STORE = "items"
_KEYED = ("read", "update", "delete", "move")
#: Id-like arguments that stand for the entity's number rather than an ``id`` field.
_NUMBER_SUFFIXES = ("_number", "Number")
#: Entities of chat services keyed by a ``ts`` timestamp where the catalog uses ``ts`` arguments.
_MESSAGE_NOUNS = ("message", "reply", "post", "thread")


@dataclass(frozen=True)
class EntityType:
    """One kind of entity in the catalog."""

    collection: str
    key_field: str
    scope: tuple[str, ...]
    fields: frozenset[str]
    tools: tuple[str, ...]
    conventions: conv.Conventions = field(default_factory=conv.Conventions)
    #: JSON type of the key when no outputSchema says (``integer`` for ``issue_number: number``).
    key_type: str = "string"
    #: The arguments sibling tools name the entity by (``account_id``, ``issue_number``).
    key_args: frozenset[str] = frozenset()

    @property
    def noun(self) -> str:
        return singular(self.collection)


@dataclass(frozen=True)
class Selector:
    """A consolidated tool: the argument naming the operation, and the role of each value."""

    arg: str
    roles: dict[str, ToolRole]

    def role_for(self, arguments: JSONDict, default: ToolRole) -> ToolRole:
        value = arguments.get(self.arg)
        return self.roles.get(str(value).casefold(), default) if isinstance(value, str) else default


@dataclass
class EntityModel:
    """Roles refined with the whole catalog in view, the entities and the selectors."""

    roles: dict[str, ToolRole]
    entities: dict[str, EntityType]
    selectors: dict[str, Selector]
    #: The service the catalog is for, when it is a profiled one (:mod:`agentworld_mcp.world.service_profiles`).
    service: str | None = None

    def role(self, tool: str) -> ToolRole:
        return self.roles[tool]

    def entity(self, collection: str) -> EntityType | None:
        return self.entities.get(collection)


# -- building ------------------------------------------------------------------------------------


def build(tools: list[JSONDict], *, seed: dict[str, list[JSONDict]] | None = None,
          examples: Iterable[str] = (), hint: str = "") -> EntityModel:
    """The entity model of a catalog (``examples``: demonstration responses, seen as catalog text;
    ``hint``: the world's name, which may name the service)."""
    examples = list(examples)
    by_name = {t["name"]: t for t in tools}
    texts = conv.catalog_text(tools)
    namespace = _namespace(list(by_name))
    # ``key-create`` is read as ``create_key``; a consolidated ``issue_write(method)`` names no operation
    by_name = {name: t if _selector(t) else verb_first(t, namespace) for name, t in by_name.items()}
    roles = {name: infer_alone(_unprefixed(tool, namespace)) for name, tool in by_name.items()}
    _database_tools(roles, {name: _unprefixed(tool, namespace) for name, tool in by_name.items()})
    pseudo: dict[str, JSONDict] = {}  # "tool#value" -> the tool a selector value stands for
    selector_args: dict[str, str] = {}
    for name, tool in by_name.items():
        found = _selector(tool)
        if found is None:
            continue
        arg, values = found
        selector_args[name] = arg
        for value, synthetic in values.items():
            pseudo[f"{name}#{value}"] = synthetic
            roles[f"{name}#{value}"] = infer_alone(synthetic)
    every = {**by_name, **pseudo}
    _records_over_paths(roles, every)
    _hosted_files(roles, every)
    _merge_verb_collections(roles, every)
    _keys_named_by_noun(roles, every)
    _merge_messages(roles, every)
    _reads_of_children(roles, every)
    _aspects_join_their_entity(roles, every)
    _fields_set_on_their_entity(roles, every)
    actions_that_set_fields(roles, every)
    _creates_by_description(roles, every)
    _creates_by_noun(roles, every)
    _next_items(roles, every)
    service = profiles.detect(tools, hint)
    entities = _entities(roles, every, texts, seed or {}, examples, service)
    _nested_children(roles, every, entities)
    creatable = {r.collection for r in roles.values() if r.kind == "create"}
    for name, role in list(roles.items()):
        entity = entities.get(role.collection) if role.style == "record" else None
        if entity is not None:
            roles[name] = _with_entity(role, every[name], entity)
            if roles[name].kind == "update" and role.collection not in creatable and roles[name].key_args:
                # ``set(key, value)`` of a store nothing else creates in: writing a new key makes it
                roles[name] = dataclasses.replace(roles[name], extra={**roles[name].extra, "upsert": True})
    for key in pseudo:  # what a selected role stores or changes never includes the action argument
        arg = selector_args[key.split("#", 1)[0]]
        roles[key] = dataclasses.replace(roles[key], extra={**roles[key].extra, "selector": arg})
    for name, arg in selector_args.items():
        roles[name] = dataclasses.replace(roles[name], extra={**roles[name].extra, "selector": arg})
    out_roles = {name: apply_override(by_name[name], roles[name]) for name in by_name}
    selectors = {
        name: Selector(arg, {key.split("#", 1)[1]: apply_override(by_name[name], roles[key])
                             for key in pseudo if key.split("#", 1)[0] == name})
        for name, arg in selector_args.items()
    }
    for name, tool in by_name.items():
        typed = _type_selector(tool, out_roles[name], entities) if name not in selectors else None
        if typed is not None:
            selectors[name] = typed
    return EntityModel(out_roles, entities, selectors, service.name if service else None)


def _database_tools(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """A catalog with a SQL statement tool is a database: its table tools answer from it (sql_roles)."""
    statement_tools = {name for name, role in roles.items() if role.style == "sql" and role.query_arg}
    tokens = {name: words(tool["name"]) for name, tool in tools.items()}
    for name, (op, statement) in database_ops(tools, tokens, statement_tools).items():
        if roles[name].style != "sql":
            roles[name] = ToolRole(KIND_OF_OP[op], DB_COLLECTION, style="sql", op=op,  # type: ignore[arg-type]
                                   key_field="name", query_arg=statement)


def _namespace(names: list[str]) -> int:
    """How many leading words every tool's name shares that are a namespace, not a verb or noun
    (``notebook_store_search_by_tags``, ``acme_read_note``: the server's name before each tool)."""
    if len(names) < 3:
        return 0
    split = [words(n) for n in names]
    shared = 0
    while all(len(w) > shared + 1 for w in split) and len({w[shared] for w in split}) == 1:
        if split[0][shared] in ALL_VERBS:  # ``get_a``, ``get_b``: a verb, whatever its place
            break
        if all(len(w) == shared + 2 and w[-1] in ALL_VERBS for w in split):  # ``probe_create``, ``probe_get``:
            break  # the one entity's noun, not a namespace, where only verbs would be left
        shared += 1
    return shared


def _unprefixed(tool: JSONDict, namespace: int) -> JSONDict:
    """``tool`` named without its catalog's namespace words, for inferring what it does."""
    if not namespace:
        return tool
    return {**tool, "name": "_".join(words(tool["name"])[namespace:])}


def _props(tool: JSONDict) -> JSONDict:
    return (tool.get("inputSchema") or {}).get("properties") or {}


def _selector(tool: JSONDict) -> tuple[str, dict[str, JSONDict]] | None:
    """``manage_issue(method: create|update|get)`` -> ("method", {value: a tool doing just that})."""
    props = _props(tool)
    for arg in SELECTOR_ARGS:
        schema = props.get(arg)
        enum = schema.get("enum") if isinstance(schema, dict) else None
        if not enum or not all(isinstance(v, str) for v in enum):
            continue
        kinds = {v: verb_kind(words(v)[0]) if words(v) else None for v in enum}
        verbs = sum(1 for k in kinds.values() if k)
        # ``type: task|label|filter`` names entities; ``method: create|update|get`` names operations.
        if verbs < 2 or verbs * 2 < len(enum) or (arg in TYPE_ARGS and verbs < len(enum)):
            continue
        nouns = [w for w in words(tool["name"]) if w not in ALL_VERBS and w not in ("manage", "handle", "tool")]
        noun = nouns[-1] if nouns else "item"
        rest = {k: v for k, v in props.items() if k != arg}
        required = [r for r in (tool.get("inputSchema") or {}).get("required") or () if r != arg]
        values: dict[str, JSONDict] = {}
        for value, kind in kinds.items():
            if kind is None:
                continue
            extra_nouns = [w for w in words(value)[1:] if w != noun and w not in ALL_VERBS]
            # ``get_comments`` of ``issue_read`` reads the comments, not the issue
            synthetic_name = f"{words(value)[0]}_{noun}_{'_'.join(extra_nouns)}" if extra_nouns else f"{value}_{noun}"
            synthetic = {"name": synthetic_name, "description": tool.get("description") or "",
                         "inputSchema": {"type": "object", "properties": rest, "required": required}}
            if tool.get("outputSchema"):
                synthetic["outputSchema"] = tool["outputSchema"]
            values[value.casefold()] = synthetic
        return arg, values
    return None


#: Boolean fields that say an entity reached a state (``complete_task`` sets ``checked: true``).
_FLAGS = {"completed": ("completed", "is_completed", "checked", "done"), "archived": ("archived", "is_archived")}
#: Arguments naming which kind of entity a generic tool acts on (``fetch_object(type: task, id)``).
TYPE_ARGS = ("type", "object_type", "objectType", "entity", "entity_type", "entityType", "resource",
             "resource_type", "resourceType", "kind", "object")


def _type_selector(tool: JSONDict, role: ToolRole, entities: dict[str, EntityType]) -> Selector | None:
    """``fetch-object(type: task|project, id)``: the type argument picks the collection per call."""
    if role.style != "record" or role.kind == "action":
        return None
    props = _props(tool)
    for arg in TYPE_ARGS:
        schema = props.get(arg)
        enum = schema.get("enum") if isinstance(schema, dict) else None
        if not enum or not all(isinstance(v, str) for v in enum):
            continue
        picked = {v.casefold(): entities[c] for v in enum if (c := _collection_of(v)) in entities}
        if not picked:
            continue
        out_props = (tool.get("outputSchema") or {}).get("properties") or {}
        wrapper = role.wrapper or next((p for p in ("object", "entity", "item", "data", "record") if p in out_props), None)
        return Selector(arg, {value: dataclasses.replace(
            role, collection=entity.collection, key_field=entity.key_field, wrapper=wrapper,
            scope_args=entity.scope if all(a in props for a in entity.scope) else (),
            extra={**role.extra, "selector": arg}) for value, entity in picked.items()})
    return None


def _collection_of(value: str) -> str:
    from .roles import collection_name

    return collection_name("_".join(words(value)))


def _records_over_paths(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """A ``path`` argument makes a file tool only when nothing else keeps that entity as records."""
    record_collections = {r.collection for r in roles.values() if r.style == "record" and r.kind != "action"}
    for name, role in list(roles.items()):
        if role.style != "file" or _FILE_WORDS & set(words(tools[name]["name"])):
            continue
        as_record = infer_as_record(tools[name])
        if as_record.collection in record_collections and as_record.collection != "files":
            roles[name] = as_record


#: Optional arguments that place a file in a version of its scope (a git branch).
_VERSION_SCOPES = ("branch", "ref")


def _hosted_files(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """Files of a hosted service (``get_file_contents(owner, repo, path, branch)``) are records of one
    ``files`` collection keyed by path within their repository: the service answers with JSON about the
    file (its path, sha, content), not with the file as a local filesystem server prints it."""
    hosted = [n for n, r in roles.items() if r.style == "file" and not tools[n].get("outputSchema") and any(
        a != "path" and _scope_like(a, _props(tools[n]).get(a)) and not is_id_name(a)
        for a in (tools[n].get("inputSchema") or {}).get("required") or ())]
    for name in hosted:
        role = dataclasses.replace(infer_as_record(tools[name]), collection="files")
        words_ = set(words(tools[name]["name"]))
        if role.kind == "create" and words_ & {"update", "upsert", "put", "replace"}:
            role = dataclasses.replace(role, extra={**role.extra, "upsert": True})  # ``create_or_update_file``
        if role.kind == "action" and role.batch_arg:
            role = dataclasses.replace(role, kind="create")  # ``push_files(files: [{path, content}])``
        roles[name] = role


def _verb_named(tool: JSONDict, role: ToolRole) -> bool:
    return not nouns_of(tool["name"]) or singular(role.collection) in ALL_VERBS or singular(role.collection) == "batch"


def _merge_verb_collections(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``save``/``get``/``batch_delete`` of one store are one collection, not three named after verbs."""
    verb_named = [n for n, r in roles.items() if r.style == "record" and r.kind != "action" and _verb_named(tools[n], r)]
    if not verb_named:
        return
    real = {r.collection for n, r in roles.items() if r.style == "record" and r.kind != "action" and n not in verb_named}
    target = real.pop() if len(real) == 1 else SHARED_STORE if not real else None
    if target is None:  # ``API-post-search`` of a catalog of many entities searches them all
        for name in verb_named:
            if roles[name].kind == "search":
                roles[name] = dataclasses.replace(roles[name], extra={**roles[name].extra, "everywhere": True})
        return
    for name in verb_named:
        roles[name] = dataclasses.replace(roles[name], collection=target)


def _merge_messages(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """A chat catalog that names messages by ``ts`` keeps posts, replies, threads and a channel's
    history in one collection of messages: a reply is a message, a history lists messages."""
    if not any(a in conv.TS_ARGS[:3] or a.endswith("_ts") for t in tools.values() for a in _props(t)):
        return
    for name, role in list(roles.items()):
        if role.style != "record" or singular(role.collection).split("_")[-1] not in _MESSAGE_NOUNS + ("history",):
            continue
        changes: JSONDict = {"collection": "messages"}
        props = _props(tools[name])
        if role.kind == "read" and not any(a.endswith("ts") for a in role.key_args):
            changes.update(kind="list", key_args=(), filters=tuple(
                p for p, sch in props.items() if p not in PAGINATION_ARGS and isinstance(sch, dict)
                and sch.get("type") in ("string", "integer")))
        roles[name] = dataclasses.replace(role, **changes)


def _keys_named_by_noun(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``retrieve_customer(customer)``, ``finalize_invoice(invoice)``: an argument named after the entity is its key."""
    for name, role in list(roles.items()):
        tool = tools[name]
        if role.style != "record" or role.key_args:
            continue
        verb = next((k for k in (verb_kind(w) for w in words(tool["name"])[:2]) if k), None)
        noun = singular(role.collection)
        schema = _props(tool).get(noun)
        if verb in _KEYED and isinstance(schema, dict) and schema.get("type") in ("string", "integer"):
            states = [state_after(w) for w in words(tool["name"])[:2] if state_after(w)]
            sets = {"status": states[0]} if verb == "update" and states else {}
            roles[name] = dataclasses.replace(role, kind=verb, key_args=(noun,), filters=(), query_arg=None,
                                              count_fields=(), sets=sets or role.sets)


def _creates_by_description(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``open_account(owner_name)`` "Returns the account with its account_id": a create, not a read."""
    keys = _key_args_by_collection(roles)
    for name, role in list(roles.items()):
        tool = tools[name]
        if role.style != "record" or role.kind not in ("read", "list", "action") or role.key_args:
            continue
        if (tool.get("annotations") or {}).get("readOnlyHint") is True:
            continue
        first = words(tool["name"])[:1]
        if first and verb_kind(first[0]) in ("list", "search"):
            continue
        described = conv.described_fields(tool.get("description") or "")
        own_keys = keys.get(role.collection, set())
        if own_keys & described and not own_keys & set(_props(tool)):
            roles[name] = dataclasses.replace(role, kind="create", filters=(), query_arg=None, count_fields=(),
                                              items_field=None)


def _has_kind(roles: dict[str, ToolRole], collection: str, kinds: tuple[str, ...]) -> bool:
    return any(r.collection == collection and r.style == "record" and r.kind in kinds for r in roles.values())


def _aspects_join_their_entity(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``open_task_details(taskId)``, ``get_user_profile(user_id)``, ``approve_task_completion(taskId)``:
    a keyed tool whose key names an entity of its own name, and whose own collection (``details``,
    ``profiles``) nothing creates or lists, reads or changes that entity."""
    from .roles import id_stem, collection_name

    for name, role in list(roles.items()):
        if role.style != "record" or role.kind not in ("read", "update", "delete") or not role.key_args:
            continue
        arg = role.key_args[-1]
        stem = id_stem(arg) if arg.endswith(("_id", "Id")) else None
        target = collection_name(stem) if stem else None
        if not stem or target is None or target == role.collection or stem not in words(tools[name]["name"]):
            continue
        if _has_kind(roles, role.collection, ("create", "list", "search")):
            continue
        roles[name] = dataclasses.replace(role, collection=target, key_args=(arg,))


def _fields_set_on_their_entity(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``set_status(item_id, status)``, ``advance_status(item_id)``: a change named after a field (its own
    "collection" nothing creates, lists or searches) whose only id argument names an entity another tool
    creates changes that entity."""
    from .roles import id_stem, collection_name

    for name, role in list(roles.items()):
        if role.style != "record" or role.kind not in ("update", "move") or role.key_args:
            continue
        ids = [p for p in _props(tools[name]) if is_id_name(p) and p.endswith(("_id", "Id"))]
        target = collection_name(id_stem(ids[0]) or "") if len(ids) == 1 else None
        if not target or target == role.collection or not _has_kind(roles, target, ("create",)):
            continue
        if _has_kind(roles, role.collection, ("create", "list", "search")):
            continue
        like = next(r for r in roles.values() if r.collection == target and r.kind == "create")
        roles[name] = dataclasses.replace(role, kind="update", collection=target, key_args=(ids[0],), op=None,
                                          key_field=like.key_field)


def _reads_of_children(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``get_issue_comments(issue_number)`` where ``add_issue_comment(issue_number)`` makes comments:
    the key names the parent, so the read lists the parent's comments."""
    from .roles import id_stem, collection_name

    for name, role in list(roles.items()):
        if role.style != "record" or role.kind != "read" or len(role.key_args) != 1:
            continue
        arg = role.key_args[0]
        stem = id_stem(arg)
        if not stem or collection_name(stem) == role.collection:
            continue
        if not any(r.collection == role.collection and r.kind == "create" and arg in (r.foreign_keys + r.key_args)
                   for n, r in roles.items() if n != name):
            continue
        props = _props(tools[name])
        filters = tuple(p for p, sch in props.items() if p not in PAGINATION_ARGS and isinstance(sch, dict)
                        and sch.get("type") in ("string", "integer", "number"))
        roles[name] = dataclasses.replace(role, kind="list", key_args=(), filters=filters)


def _creates_by_noun(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``request_planning`` "Register a new user request...": a tool named after an entity other tools
    keep (``requestId``), that nothing else creates, and whose description starts with a create verb."""
    from .roles import collection_name

    keys = _key_args_by_collection(roles)
    for name, role in list(roles.items()):
        tool = tools[name]
        if role.style != "record" or role.kind != "action":
            continue
        first = words(tool.get("description") or "")[:1]
        if not first or verb_kind(first[0]) != "create":
            continue
        target = next((collection_name(n) for n in words(tool["name"]) if collection_name(n) in keys), None)
        if target is None or _has_kind(roles, target, ("create",)) or keys[target] & set(_props(tool)):
            continue
        roles[name] = dataclasses.replace(role, kind="create", collection=target, key_args=(), filters=(),
                                          query_arg=None, count_fields=(), items_field=None)


def _nested_children(roles: dict[str, ToolRole], tools: dict[str, JSONDict], entities: dict[str, EntityType]) -> None:
    """``request_planning(tasks: [{title, ...}])`` where tasks name their request by ``requestId``: the
    create makes each task too, in the new request (``extra["children"]``: argument -> [collection,
    the argument children name the parent by])."""
    for name, role in list(roles.items()):
        parent = entities.get(role.collection)
        if role.kind != "create" or role.style != "record" or parent is None:
            continue
        children: dict[str, list[str]] = {}
        for arg, schema in _props(tools[name]).items():
            child = entities.get(arg)
            items = schema.get("items") if isinstance(schema, dict) and schema.get("type") == "array" else None
            if child is None or arg == role.collection or not isinstance(items, dict) or items.get("type") != "object":
                continue
            link = sorted(a for a in parent.key_args if a in child.scope or a in child.fields)
            if link and arg != role.batch_arg:
                children[arg] = [child.collection, link[0]]
        if children:
            roles[name] = dataclasses.replace(role, extra={**role.extra, "children": children})


#: Nouns after "next" that name a page of results, not an item (``get_next_page(cursor)``).
_PAGING_NOUNS = frozenset({"page", "cursor", "token", "batch", "result", "chunk"})


def _next_items(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``get_next_task(requestId)``, "return the next pending task": a read of one item, the first one
    still pending, not a listing (``extra["first"]``). A plural noun (``get_next_tasks``) stays a list."""
    kept = {r.collection for r in roles.values() if r.style == "record" and r.kind in ("create", "update")}
    for name, role in list(roles.items()):
        tokens = words(tools[name]["name"])
        if role.style != "record" or role.kind not in ("list", "search", "action") or "next" not in tokens:
            continue
        noun = tokens[-1]
        if noun in ("next", "item") or singular(noun) != noun or noun in _PAGING_NOUNS:
            continue
        if role.kind == "action" and role.collection not in kept:
            continue  # ``get_next_id()`` of nothing the catalog keeps
        kind = "list" if role.kind == "action" else role.kind  # ``get_next_chore()``: no argument to list by
        roles[name] = dataclasses.replace(role, kind=kind, extra={**role.extra, "first": True})


def _profiled(conventions: conv.Conventions, collection: str, tools: list[JSONDict],
              service: profiles.ServiceProfile | None) -> conv.Conventions:
    """The service's published conventions where the catalog's text shows none: ids, a new object's
    state, creation time and fields (urls, ``object``). A tool naming a service in its own name
    (``slack_post_message``) decides for its entity, so a catalog of several services gets each right."""
    named = [p for t in tools if (p := profiles.named_in_name(t)) is not None]
    if named and (service is None or service not in named):
        service = named[0]
    if service is None:
        return conventions
    said = {w for t in tools for w in words(t["name"])}
    entity = service.entity(singular(collection), said)
    changes: JSONDict = {"service": service.name}
    if entity is not None:
        if entity.id_format and not (conventions.id_prefix or conventions.uuid_ids or conventions.ts_key):
            if entity.id_format == "uuid":
                changes["uuid_ids"] = True
            elif entity.id_format.startswith("prefix:"):
                changes["id_prefix"] = entity.id_format.partition(":")[2]
            else:
                changes["id_format"] = entity.id_format
        if entity.status and conventions.initial_status is None:
            changes["status_field"] = conventions.status_field or entity.status[0]
            changes["initial_status"] = entity.status[1]
        if entity.identifier and conventions.identifier is None:
            changes["identifier"] = entity.identifier
        changes.update(starting=dict(entity.fields), created=entity.created, list_key=entity.list_key)
    return dataclasses.replace(conventions, **changes)


def _key_args_by_collection(roles: dict[str, ToolRole]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for role in roles.values():
        if role.style == "record" and role.kind in _KEYED:
            out.setdefault(role.collection, set()).update(role.key_args)
    return out


# -- entities ------------------------------------------------------------------------------------


def _entities(roles: dict[str, ToolRole], tools: dict[str, JSONDict], texts: dict[str, str],
              seed: dict[str, list[JSONDict]], examples: list[str],
              service: profiles.ServiceProfile | None = None) -> dict[str, EntityType]:
    groups: dict[str, list[str]] = {}
    for name, role in roles.items():
        if role.style == "record":
            groups.setdefault(role.collection, []).append(name)
    out = {}
    texts_use_ts = any(a in conv.TS_ARGS[:3] or a.endswith("_ts") for t in tools.values() for a in _props(t))
    scans: dict[str, conv.TextScan] = {}  # every collection reads the demonstrations: scanned once
    demonstrated = conv.joined(conv.scan_text(text, scans) for text in examples)
    for collection, names in groups.items():
        members = [(n, roles[n], tools[n]) for n in names]
        if all(r.kind == "action" for _, r, _ in members):
            continue
        key_field = _key_field(members)
        scope = _scope(members)
        fields, statuses, lifecycle = _fields(members, seed.get(collection, []))
        if not statuses:
            statuses = _catalog_states(tools, fields)
        fields.add(key_field)
        conventions = conv.infer(collection, [t for _, _, t in members],
                                 {n.split("#")[0]: texts.get(n.split("#")[0], "") for n, _, _ in members},
                                 fields, statuses, lifecycle, scope, key_field,
                                 [demonstrated, _seed_text(seed.get(collection, []))], scans)
        if not conventions.ts_key and texts_use_ts and singular(collection).split("_")[-1] in _MESSAGE_NOUNS:
            conventions = dataclasses.replace(conventions, ts_key=True)
            key_field = "ts"
        conventions = _profiled(conventions, collection, [tools[n] for n in names], service)
        if conventions.url is None and scope and not set(conventions.starting) & set(conv.URL_FIELDS):
            conventions = dataclasses.replace(conventions, url=_brand_url(collection, members, texts, scope))
        out[collection] = EntityType(collection, key_field, scope, frozenset(fields),
                                     tuple(n for n in names if "#" not in n), conventions, _key_type(members),
                                     frozenset(a for _, r, _ in members if r.kind in _KEYED for a in r.key_args))
    return out


def _catalog_states(tools: dict[str, JSONDict], fields: set[str]) -> dict[str, list[str]]:
    """States another tool's docstring lists for the entity's status field (an export's ``status: Filter
    by status (backlog, todo, done)``), where none of the entity's own tools list them."""
    for name in ("status", "state"):
        if name not in fields:
            continue
        for tool in tools.values():
            listed = conv.listed_argument_values(tool, name)
            if len(listed) >= 2:
                return {name: listed}
    return {}


def _key_type(members: list[tuple[str, ToolRole, JSONDict]]) -> str:
    """``integer`` where a tool takes the key as a number, one (``item_id: integer``) or a batch of them
    (``ids: [integer]``); else ``string``."""
    for _, role, tool in members:
        if role.kind in _KEYED and role.key_args:
            schema = _props(tool).get(role.key_args[0])
            if isinstance(schema, dict) and schema.get("type") in ("integer", "number"):
                return "integer"
        elif role.kind in _KEYED and role.batch_arg:
            schema = _props(tool).get(role.batch_arg)
            items = schema.get("items") if isinstance(schema, dict) and schema.get("type") == "array" else None
            if isinstance(items, dict) and items.get("type") in ("integer", "number"):
                return "integer"
    return "string"


def _seed_text(items: list[JSONDict]) -> str:
    return " ".join(str(v) for item in items for v in item.values() if isinstance(v, (str, int)))


def _key_field(members: list[tuple[str, ToolRole, JSONDict]]) -> str:
    """An outputSchema's key wins; else what the keyed siblings call the entity (``account_id``)."""
    order = {"create": 0, "read": 1, "update": 2}
    own = sorted((m for m in members if m[1].kind in order and _informative(m[2].get("outputSchema"))),
                 key=lambda m: order[m[1].kind])
    for _, role, _ in own:  # what the entity's own create, read or update returns names its key
        return role.key_field

    described: set[str] = set()
    for _, _, tool in members:
        described |= conv.described_fields(tool.get("description") or "")
    votes: Counter[str] = Counter()
    for _, role, _ in members:
        if role.kind in _KEYED:
            for arg in role.key_args[:1]:
                votes[_field_for(arg, singular(role.collection), described)] += 1
    return votes.most_common(1)[0][0] if votes else "id"


def _informative(output: JSONDict | None) -> bool:
    """Whether an outputSchema describes the entity: FastMCP's ``{result: string}`` wrapper does not."""
    props = (output or {}).get("properties") or {}
    if not props or (output or {}).get("x-fastmcp-wrap-result"):
        return False
    return not (len(props) == 1 and all(isinstance(s, dict) and s.get("type") == "string" for s in props.values()))


def _field_for(arg: str, noun: str, described: set[str]) -> str:
    """The entity field an identifying argument stands for: ``issue_number`` -> ``number``; ``page_id`` ->
    ``id`` (what REST services return), unless a description says the entity has ``account_id``."""
    if arg == noun:  # Stripe's ``retrieve_customer(customer)`` names the customer's ``id``
        return "id"
    if arg.endswith(("_id", "Id")) and arg not in described:
        return "id"
    if arg.endswith(_NUMBER_SUFFIXES):
        return "number"
    if arg.endswith(("_key", "Key")):  # ``issue_key`` names the issue's ``key`` (``ROC-1``)
        return "key"
    if arg.endswith(conv.TS_ARGS[1:3]) or arg == "ts":
        return "ts"
    return arg


def _scope(members: list[tuple[str, ToolRole, JSONDict]]) -> tuple[str, ...]:
    """Arguments every keyed tool needs besides the key, that the creates take too (``owner``, ``repo``)."""
    keyed = [(r, t) for _, r, t in members if r.kind in _KEYED and r.key_args]
    creates = [t for _, r, t in members if r.kind == "create"]
    if not keyed:
        return ()
    common: list[str] | None = None
    for role, tool in keyed:
        required = [a for a in (tool.get("inputSchema") or {}).get("required") or ()
                    if a not in role.key_args and _scope_like(a, _props(tool).get(a))]
        common = required if common is None else [a for a in common if a in required]
    scope = tuple(common or ())
    if not scope or any(not all(a in _props(t) for a in scope) for t in creates):
        return ()
    versions = tuple(a for a in _VERSION_SCOPES if all(a in _props(t) for _, t in keyed) and all(
        a in _props(t) for t in creates))
    return scope + versions  # a file on branch ``launch-docs`` is not on ``main``


def _scope_like(arg: str, schema: Any) -> bool:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind in ("string", "integer", "number") and (is_id_name(arg) or arg in (
        "owner", "repo", "repository", "org", "organization", "workspace", "channel", "project", "team", "space",
        "board", "branch", "database", "base", "account", "group", "namespace", "site", "tenant", "calendar"))


def _fields(members: list[tuple[str, ToolRole, JSONDict]], seed: list[JSONDict]
            ) -> tuple[set[str], dict[str, list[str]], dict[str, str]]:
    """Field names; enum values of status-like fields; lifecycle verbs (``close`` -> ``closed``)."""
    fields: set[str] = set()
    statuses: dict[str, list[str]] = {}
    lifecycle: dict[str, str] = {}
    for _, role, tool in members:
        props = _props(tool)
        if role.kind in ("create", "update"):
            fields |= {p for p in props if p != role.batch_arg}
        out_props = (tool.get("outputSchema") or {}).get("properties") or {}
        for name in ("status", "state"):
            schema = props.get(name)
            if isinstance(schema, dict) and schema.get("enum"):
                statuses.setdefault(name, [v for v in schema["enum"] if isinstance(v, str)])
            elif isinstance(schema, dict) and isinstance(schema.get("items"), dict) and schema["items"].get("enum"):
                statuses.setdefault(name, [v for v in schema["items"]["enum"] if isinstance(v, str)])
            # an answer's ``[Enum]: ["Open", ...]``, or the argument's entry in a docstring's ``Args:``
            elif listed := conv.described_enum(out_props.get(name)) or conv.argument_enum(tool, name):
                statuses.setdefault(name, listed)
        fields |= _output_fields(tool, role)
        fields |= {w for w in conv.described_fields(tool.get("description") or "") if len(w) > 2}
        verb = next((w for w in words(tool["name"])[:3] if state_after(w)), None)
        if verb and role.kind == "update":
            lifecycle[verb] = state_after(verb) or ""
    for item in seed:
        fields |= set(item)
    return fields, statuses, lifecycle


def _output_fields(tool: JSONDict, role: ToolRole) -> set[str]:
    out = tool.get("outputSchema") or {}
    props = out.get("properties") or {}
    if role.wrapper and isinstance(props.get(role.wrapper), dict):
        return set(props[role.wrapper].get("properties") or {})
    if role.items_field and isinstance(props.get(role.items_field), dict):
        items = props[role.items_field].get("items")
        return set((items or {}).get("properties") or {}) if isinstance(items, dict) else set()
    return set(props) if role.kind in ("create", "read", "update") else set()


def _brand_url(collection: str, members: list[tuple[str, ToolRole, JSONDict]], texts: dict[str, str],
               scope: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    """A service named in every description of a path-scoped entity (``... in a GitHub repository``)
    has its web pages at ``https://<name>.com/<scope>/<collection>/<key>``."""
    if len(scope) < 2:
        return None
    brands: Counter[str] = Counter()
    described = [tool.get("description") or "" for _, _, tool in members]
    for text in described:
        brands.update({w for w in text.split() if w[:1].isupper() and any(c.isupper() for c in w[1:]) and w.isalpha()})
    brand = next((b for b, n in brands.most_common(1) if n >= max(2, len(described) // 2)), None)
    if brand is None:
        return None
    path = "/".join("{" + s + "}" for s in scope)
    return ("html_url", "url"), f"https://{brand.lower()}.com/{path}/{collection}/{{key}}"


def _with_entity(role: ToolRole, tool: JSONDict, entity: EntityType) -> ToolRole:
    """A record role with the entity's key field and scope, and its key arguments found by them."""
    props = _props(tool)
    changes: JSONDict = {"key_field": entity.key_field}
    if all(a in props for a in entity.scope):
        changes["scope_args"] = entity.scope
        changes["foreign_keys"] = tuple(f for f in role.foreign_keys if f not in entity.scope)
    if role.kind == "create" and entity.key_field in props and not role.key_args:
        changes["key_args"] = (entity.key_field,)  # ``save(key, value)``: the caller names it
    elif role.kind == "create" and role.key_args and entity.key_field not in role.key_args and not (
            set(role.key_args) & entity.key_args):
        changes["key_args"] = ()  # ``create-event(path)``: a field, the service gives the event its id
    elif role.kind in _KEYED and not role.key_args and entity.key_field in props:
        changes["key_args"] = (entity.key_field,)
    if role.kind in ("list", "search"):
        changes["filters"] = tuple(role.filters) + tuple(a for a in entity.scope if a in props and a not in role.filters)
    if role.kind == "update" and not role.sets:
        verb = next((w for w in words(tool["name"])[:3] if state_after(w)), None)
        if verb and entity.conventions.status_field:
            changes["sets"] = {entity.conventions.status_field: state_after(verb)}
    elif role.sets and entity.conventions.status_field and entity.conventions.status_field not in role.sets:
        changes["sets"] = {entity.conventions.status_field: next(iter(role.sets.values()))}
    status = entity.conventions.status_field
    step = _workflow_step(tool) if role.kind == "update" and not role.sets else 0
    if status and step and len(entity.conventions.states) >= 2:  # ``advance_status``: the next listed state
        changes["extra"] = {**role.extra, "workflow": {"field": status, "states": list(entity.conventions.states),
                                                       "step": step}}
    if status and isinstance((changes.get("sets") or role.sets).get(status), str):  # ``done``, as the catalog lists it
        sets = dict(changes.get("sets") or role.sets)
        changes["sets"] = {**sets, status: conv.listed_state(sets[status], entity.conventions.states)}
    state = next(iter((changes.get("sets") or role.sets).values()), None)
    flag = next((f for f in _FLAGS.get(state or "", ()) if f in entity.conventions.inactive_flags), None)
    if flag:  # Todoist's ``checked: true``, ``archived: true``: the entity says it with a flag
        sets = dict(changes.get("sets") or role.sets)
        if not entity.conventions.status_field:
            sets.pop("status", None)
        changes["sets"] = {**sets, flag: True}
    return dataclasses.replace(role, **changes)


#: A description that moves an entity along its listed states: "Move item to next status in its workflow".
_NEXT_STATE = re.compile(r"\b(?:next|following)\s+(?:status|state|stage|step)\b", re.IGNORECASE)
_PREVIOUS_STATE = re.compile(r"\b(?:previous|prior)\s+(?:status|state|stage|step)\b", re.IGNORECASE)


def _workflow_step(tool: JSONDict) -> int:
    text = str(tool.get("description") or "")
    return 1 if _NEXT_STATE.search(text) else -1 if _PREVIOUS_STATE.search(text) else 0


__all__ = ["SELECTOR_ARGS", "SHARED_STORE", "EntityModel", "EntityType", "Selector", "build"]
