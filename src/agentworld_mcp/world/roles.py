"""What a tool does, inferred from its definition.

The deterministic world model and the ledger both need to know whether a call creates,
reads, lists, updates or deletes something, which collection it touches and which
arguments identify the entity. Real catalogs say so only implicitly: in the tool's name
(``create_issue``, ``getFileInfo``), its description, its annotations
(``readOnlyHint``, ``destructiveHint``) and the shape of its schemas.

Three *styles* of resource are recognised, because real servers answer them differently:

* ``record``: REST-like entities with an id (``create_issue`` / ``get_issue(issue_id)``);
* ``file``: a file store keyed by path (the official filesystem server's shapes);
* ``graph``: named entities with observations and relations (the official memory server).

When inference is wrong, a tool can say what it is in its ``_meta``::

    _meta: {"agentworld/role": {"kind": "update", "collection": "issues", "key_args": ["number"]}}

(any :class:`ToolRole` field may be given; the rest is still inferred).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import WorldFileError
from .sql_roles import DB_COLLECTION, KIND_OF_OP, sql_operation

JSONDict = dict[str, Any]
Kind = Literal["create", "read", "list", "search", "update", "delete", "move", "action"]
Style = Literal["record", "file", "graph", "sql"]
KINDS: tuple[str, ...] = ("create", "read", "list", "search", "update", "delete", "move", "action")
#: ``_meta`` key of a tool definition that overrides inference.
ROLE_META = "agentworld/role"

_VERBS: dict[Kind, tuple[str, ...]] = {
    "create": ("create", "add", "new", "insert", "post", "make", "register", "upload", "write", "put", "save", "mkdir",
               "send", "reply", "place"),
    "read": ("get", "read", "fetch", "show", "view", "describe", "retrieve", "open", "lookup", "load", "info",
             "inspect", "cat", "stat"),
    "list": ("list", "all", "browse", "enumerate", "tree", "index", "ls"),
    "search": ("search", "find", "query", "filter", "grep"),
    "update": ("update", "edit", "modify", "patch", "set", "change", "close", "reopen", "assign", "append", "replace",
               "upsert", "star", "label", "mark", "complete", "toggle", "rename_field"),
    # ``cancel`` is not here: a cancelled order, booking or subscription stays readable (_STATE_VERBS)
    "delete": ("delete", "remove", "destroy", "drop", "unlink", "erase", "purge", "clear", "rm", "rmdir"),
    "move": ("move", "rename", "mv", "transfer", "relocate"),
}
_PREPOSITIONS = ("by", "to", "from", "a", "an", "the", "for", "in", "of", "with", "on", "into")
#: Identifier-like argument names, most specific first.
ID_NAMES = ("id", "uid", "uuid", "key", "path", "slug", "number", "email", "name", "filename", "handle", "username", "login")
_ID_SUFFIXES = ("_id", "Id", "_uuid", "_key", "_path", "Path", "_number", "_name", "Name")
#: Names the service itself assigns to a new entity (so create generates them).
_GENERATED_IDS = ("id", "uid", "uuid", "number", "key", "slug")
#: Arguments of list/search tools that shape the page, not the selection.
PAGINATION_ARGS = frozenset({
    "page", "per_page", "perPage", "page_size", "pageSize", "limit", "offset", "cursor", "after", "before",
    "sort", "sort_by", "sortBy", "order", "order_by", "orderBy", "direction", "max_results", "maxResults",
    "count", "first", "last", "excludePatterns", "exclude_patterns",
})
#: Arguments of list/search tools holding free text to look for.
QUERY_ARGS = ("query", "q", "search", "text", "keyword", "keywords", "term", "terms")
_COUNT_FIELDS = ("total", "total_count", "totalCount", "count", "num_results", "total_results")
#: Verbs that set a field on update (``close_issue`` sets ``status: closed``).
_STATE_VERBS = {"close": "closed", "reopen": "open", "complete": "completed", "archive": "archived",
                "unarchive": "active", "resolve": "resolved", "cancel": "cancelled", "finalize": "open",
                "void": "void", "pay": "paid", "publish": "published", "unpublish": "draft", "approve": "approved",
                "reject": "rejected", "merge": "merged", "lock": "locked", "unlock": "unlocked",
                "activate": "active", "deactivate": "inactive", "suspend": "suspended", "restore": "active",
                "uncomplete": "open", "finish": "completed"}
#: Verbs whose act makes a record named after the act, not after its object: ``book_room`` makes a booking
#: (``booking_id``, which a cancel of the booking cancels), ``reserve_table`` a reservation.
_NOMINAL_CREATES = {"book": "booking", "reserve": "reservation", "subscribe": "subscription", "enroll": "enrollment"}
#: A state a tool name ends with, and the state it leaves the entity in (``mark_task_done``).
_ENDING_STATES = {"done": "done", "completed": "completed", "complete": "completed", "closed": "closed",
                  "resolved": "resolved", "archived": "archived", "finished": "completed"}
#: States a tool name may end with (``mark_task_done``, ``set_issue_closed``).
_STATE_WORDS = frozenset({"done", "completed", "complete", "closed", "open", "read", "unread", "resolved",
                          "archived", "active", "inactive", "finished", "pending"})
#: Leading words that are an HTTP method in front of the real verb (``API-post-search``, ``get_list_items``).
_HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def words(name: str) -> list[str]:
    """``getFileInfo`` / ``create-issue`` / ``list_issues`` -> lowercase words."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def plural(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    return word + "s"


def collection_name(noun: str) -> str:
    """The canonical collection for a noun: ``issue`` / ``Issues`` -> ``issues``."""
    return plural(singular(noun.lower()))


def is_id_name(name: str) -> bool:
    low = name.lower()
    return low in ID_NAMES or name.endswith(_ID_SUFFIXES) or (low.endswith(("_id", "id")) and len(low) > 2)


def id_stem(name: str) -> str | None:
    """``issue_id`` / ``issueId`` / ``IssueID`` / ``issue_number`` -> ``issue``; ``id``, ``UUID`` -> None."""
    if name.endswith("ID") and len(name) > 2 and name[-3].islower():  # APIs that keep their capitals: ``RecordID``
        return "_".join(words(name[:-2]))
    for suffix in ("_gid", "Gid", "_id", "Id", "_uuid", "_key", "_number", "_name", "Name", "Number", "Key", "Uuid"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return "_".join(words(name[: -len(suffix)]))
    return None


@dataclass(frozen=True)
class ToolRole:
    """The inferred behaviour of one tool."""

    kind: Kind
    collection: str
    #: Arguments that identify the target entity (``issue_id``, ``path``...), in order.
    key_args: tuple[str, ...] = ()
    #: For list/search tools: the output property holding the items (``issues``, ``items``).
    items_field: str | None = None
    #: For tools that create, update or delete several entities at once: the array argument.
    batch_arg: str | None = None
    extra: JSONDict = field(default_factory=dict)
    #: How the resource behaves and how the real service words its answers.
    style: Style = "record"
    #: A style-specific operation (``write``, ``edit``, ``list_dir``, ``add_observations``...).
    op: str | None = None
    #: The entity field holding its key (``id``, ``name``, ``path``).
    key_field: str = "id"
    #: Arguments naming *other* entities (``issue_id`` on ``add_comment``): stored, never the key.
    foreign_keys: tuple[str, ...] = ()
    #: List/search arguments compared with item fields (``status``, ``assignee``).
    filters: tuple[str, ...] = ()
    #: List/search argument holding free text matched as a substring.
    query_arg: str | None = None
    #: Output property wrapping a single entity (``{"issue": {...}}``).
    wrapper: str | None = None
    #: Output properties that count the items of a list (``total``, ``total_count``).
    count_fields: tuple[str, ...] = ()
    #: Fields an update sets by its verb alone (``close_issue`` -> ``{"status": "closed"}``).
    sets: JSONDict = field(default_factory=dict)
    #: Arguments naming the parent the entity lives in (``owner``, ``repo``): part of its ledger key.
    scope_args: tuple[str, ...] = ()

    @property
    def is_write(self) -> bool:
        return self.kind in ("create", "update", "delete", "move")

    @property
    def is_read(self) -> bool:
        return self.kind in ("read", "list", "search")

    @property
    def noun(self) -> str:
        """The entity's name in messages: ``issues`` -> ``Issue``."""
        return singular(self.collection).replace("_", " ").capitalize()

    def key_of(self, arguments: JSONDict) -> str | None:
        """The target entity's key from the arguments (None when they do not name one)."""
        for name in self.key_args:
            value = arguments.get(name)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return self.scoped(arguments, normalise_key(self.style, value))
        return None

    def scope_of(self, arguments: JSONDict) -> tuple[str, ...]:
        """The parent the call names (``("acme", "rocket")``); empty for unscoped entities."""
        return tuple(str(arguments.get(name, "")) for name in self.scope_args)

    def scoped(self, arguments: JSONDict, key: str) -> str:
        """``key`` within the call's scope: issue 3 of acme/rocket is not issue 3 of acme/webapp."""
        if not self.scope_args:
            return key
        return compound_key(*self.scope_of(arguments), key)


def compound_key(*parts: Any) -> str:
    """One string for a key made of several values (stable, unambiguous, readable)."""
    return json.dumps([str(p) for p in parts], ensure_ascii=False, separators=(",", ":"))


def normalise_key(style: str, value: Any) -> str:
    """Keys compare as strings; paths compare normalised (``/a/./b/`` is ``/a/b``)."""
    text = str(value)
    return normalise_path(text) if style == "file" else text


def normalise_path(path: str) -> str:
    import posixpath

    if not path:
        return path
    out = posixpath.normpath(path)
    return "/" + out.lstrip("/") if out.startswith("//") else out


def not_found_message(role: ToolRole, key: str, *, syscall: str = "open") -> str:
    """A not-found error in the wording real services of this style use."""
    if role.style == "file":
        return f"ENOENT: no such file or directory, {syscall} '{key}'"
    if role.style == "graph":
        return f"Entity with name {key} not found"
    return f"{role.noun} {key} not found"


# -- inference ------------------------------------------------------------------------------------


def infer_role(tool: JSONDict) -> ToolRole:
    """The role of ``tool`` (an MCP Tool dict) on its own, with its ``_meta`` override applied.

    A catalog refines these with the whole catalog in view (:mod:`agentworld_mcp.world.entities`).
    """
    return apply_override(tool, _infer(tool))


def infer_alone(tool: JSONDict) -> ToolRole:
    """The role inferred from ``tool`` alone, before any ``_meta`` override."""
    return _infer(tool)


def apply_override(tool: JSONDict, role: ToolRole) -> ToolRole:
    """``role`` with the tool's ``_meta`` override (if any) applied."""
    override = (tool.get("_meta") or {}).get(ROLE_META)
    return _apply_override(tool["name"], role, override) if override else role


def _apply_override(name: str, role: ToolRole, override: Any) -> ToolRole:
    fields = {f.name for f in dataclasses.fields(ToolRole)}
    problems = []
    if not isinstance(override, dict):
        problems.append(f"_meta.{ROLE_META} of tool {name!r} must be a mapping of ToolRole fields")
        override = {}
    unknown = sorted(set(override) - fields)
    if unknown:
        problems.append(f"_meta.{ROLE_META} of tool {name!r}: unknown field(s) {unknown}; known: {sorted(fields)}")
    if "kind" in override and override["kind"] not in KINDS:
        problems.append(f"_meta.{ROLE_META} of tool {name!r}: kind {override['kind']!r} is not one of {list(KINDS)}")
    if problems:
        raise WorldFileError(f"tool {name}", problems)
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in override.items()}
    if "collection" in values and "key_field" not in values and role.style == "record":
        values.setdefault("key_field", role.key_field)
    return dataclasses.replace(role, **values)


def _infer(tool: JSONDict) -> ToolRole:
    found = sql_operation(tool, words(tool["name"]))  # query-language tools answer from a database
    if found is not None:
        op, statement_arg = found
        return ToolRole(KIND_OF_OP[op], DB_COLLECTION, style="sql", op=op, key_field="name",  # type: ignore[arg-type]
                        query_arg=statement_arg)
    name = tool["name"]
    tokens = words(name)
    annotations = tool.get("annotations") or {}
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    output = tool.get("outputSchema") or None
    kind = _kind(tokens, tool.get("description") or "", annotations, props)
    if kind == "create" and output is not None and _nominal_act(tokens) is not None and not _verbs_in(tokens):
        kind = "action"  # a declared answer (``booking_id``, ``transaction_id``) says what the act returns
    style = _style(tokens, props, output)
    if style == "graph":
        return _graph_role(tokens, kind, props, output)
    if style == "file":
        return _file_role(tokens, kind, props, output)
    return _record_role(tokens, kind, props, output)


def _nominal_act(tokens: list[str]) -> str | None:
    """The verb of a name that makes a record named after the act (``book`` of ``book_room``), if any."""
    return next((t for t in tokens[:2] if t in _NOMINAL_CREATES), None)


def _verbs_in(tokens: list[str]) -> bool:
    """Whether one of the name's first two words is a verb of a kind (``create_booking``: its own noun)."""
    return any(t in verbs for t in tokens[:2] for verbs in _VERBS.values())


def _style(tokens: list[str], props: JSONDict, output: JSONDict | None) -> Style:
    out_props = (output or {}).get("properties") or {}
    shapes = set(props) | {k for s in props.values() for k in _item_props(s)}
    if {"entityName", "entityNames"} & shapes or {"entityType", "relationType"} & shapes:
        return "graph"
    if "entities" in out_props and "relations" in out_props:
        return "graph"
    if any(p in props for p in ("path", "source", "paths")) or any(p.endswith(("_path", "Path")) for p in props):
        return "file"
    if {"file", "files", "directory", "directories", "dir", "folder", "folders"} & set(tokens) and not any(is_id_name(p) for p in props):
        return "file"
    return "record"


def _item_props(schema: Any) -> JSONDict:
    if not isinstance(schema, dict):
        return {}
    items = schema.get("items") if schema.get("type") == "array" else schema
    return (items or {}).get("properties") or {} if isinstance(items, dict) else {}


def _kind(tokens: list[str], description: str, annotations: JSONDict, props: JSONDict) -> Kind:
    found: Kind | None = None
    for i, token in enumerate(tokens[:2]):  # ``github_create_issue`` yes; ``simulate_research_query`` no
        found = next((k for k, verbs in _VERBS.items() if token in verbs), None)
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if found and token in _HTTP_METHODS and any(after in verbs for verbs in _VERBS.values()):
            found = next(k for k, verbs in _VERBS.items() if after in verbs)  # ``API-post-search`` searches
        if found is None and token in _STATE_VERBS and len(tokens) > i + 1:
            found = "update"  # ``finalize_invoice``, ``archive_project``
        if found is None and token in _NOMINAL_CREATES and len(tokens) > i + 1:
            found = "create"  # ``book_room`` makes a booking
        if found:
            break
    said = described_change(description)
    if said is not None and found in ("update", "delete"):
        found = said  # what the description says the tool does wins over what its verb usually means
    if annotations.get("readOnlyHint") is True and found not in ("read", "list", "search"):
        if any(q in props for q in QUERY_ARGS) or "pattern" in props:
            return "search"
        if any(is_id_name(p) for p in props):
            return "read"
        last = tokens[-1] if tokens else ""
        return "list" if last.endswith("s") and not last.endswith("ss") else "action"
    if found is None:
        desc = description.lower()
        if annotations.get("destructiveHint") is True and re.search(r"\bdelet", desc):
            return "delete"
        first_word = words(desc.split(".")[0])[:1]
        for kind, verbs in _VERBS.items():
            if first_word and first_word[0] in verbs[:4]:
                return kind
        return "action"
    return found


#: A description's own word on whether the record goes or stays: ``Close (delete) an account``,
#: ``Permanently removes the project``; ``Marks the order as cancelled``, ``it can be restored``.
_SAYS_DELETE = re.compile(r"^\W*\w+\s*\((?:and\s+|i\.e\.\s*|=\s*)?(?:delete|remove|destroy|erase|purge)s?\b"
                          r"|\bpermanently\s+(?:delete|remove|destroy|erase)|\b(?:delete|remove)s?\s+it\s+permanently")
_SAYS_KEEP = re.compile(r"^\W*\w+\s*\((?:soft[- ]delete|archive|mark as \w+)\)|\bsoft[- ]delet"
                        r"|\bcan (?:later )?be (?:restored|undone|reopened)\b|\bremains? (?:readable|visible)\b")


def described_change(description: str) -> Kind | None:
    """``delete`` or ``update`` where the description's first sentence says plainly which."""
    first = description.strip().split(". ")[0].lower()
    if _SAYS_DELETE.search(first):
        return "delete"
    if _SAYS_KEEP.search(first):
        return "update"
    return None


def _nouns(tokens: list[str]) -> list[str]:
    """The words naming the resource: after the verb, before any preposition."""
    all_verbs = {v for verbs in _VERBS.values() for v in verbs} | set(_STATE_VERBS)
    start = next((i + 1 for i, t in enumerate(tokens[:2]) if t in all_verbs), 0)
    out: list[str] = []
    for token in tokens[start:]:
        if token in _PREPOSITIONS:
            break
        if token not in all_verbs:
            out.append(token)
    while len(out) > 1 and out[-1] in _STATE_WORDS | _MANY_WORDS:  # ``mark_task_done``: the task, not a "done";
        out.pop()  # ``get_work_items_batch``: the work items, read many at once
    return out


#: Words after a noun that say how many are handled, not what: ``get_items_batch``, ``update_tasks_bulk``.
_MANY_WORDS = frozenset({"batch", "bulk"})


def _array_of_objects(schema: Any) -> bool:
    return (isinstance(schema, dict) and schema.get("type") == "array" and isinstance(schema.get("items"), dict)
            and (schema["items"].get("type") == "object" or "properties" in schema["items"]))


def _array_of_scalars(schema: Any) -> bool:
    return (isinstance(schema, dict) and schema.get("type") == "array" and isinstance(schema.get("items"), dict)
            and schema["items"].get("type") in ("string", "integer", "number"))


def _items_field(output: JSONDict | None, kind: str = "list") -> str | None:
    """The output property holding a list's items: an array of objects (``tags: [string]`` on a
    created note is a field, not the items); a list tool may also list scalars."""
    if not output:
        return None
    arrays = [(p, s) for p, s in (output.get("properties") or {}).items()
              if isinstance(s, dict) and s.get("type") == "array"]
    for prop, schema in arrays:
        items = schema.get("items")
        if not isinstance(items, dict) or items.get("type") == "object" or "properties" in items or "$ref" in items:
            return prop
    return arrays[0][0] if arrays and kind in ("list", "search") else None


def count_fields(output: JSONDict | None) -> tuple[str, ...]:
    props = (output or {}).get("properties") or {}
    return tuple(c for c in _COUNT_FIELDS if isinstance(props.get(c), dict)
                 and props[c].get("type") in ("integer", "number"))


# -- record style ---------------------------------------------------------------------------------


def _record_role(tokens: list[str], kind: Kind, props: JSONDict, output: JSONDict | None) -> ToolRole:
    items_field = _items_field(output, kind)
    nouns = _nouns(tokens)
    act = _nominal_act(tokens)
    if kind == "create" and act is not None and not _verbs_in(tokens):
        nouns = [_NOMINAL_CREATES[act]]  # the record the act makes, whatever it is of
    out_props = (output or {}).get("properties") or {}
    if nouns:
        collection = collection_name(nouns[-1])
    elif items_field:
        collection = collection_name(items_field)
    else:
        collection = collection_name(tokens[-1]) if tokens else "items"
    if items_field and kind in ("list", "search") and collection_name(items_field) != collection and items_field not in (
            "items", "results", "data", "records", "nodes", "edges", "values"):
        collection = collection_name(items_field)
    own = singular(collection)
    wrapper = own if isinstance(out_props.get(own), dict) and out_props[own].get("type") == "object" else None
    item_schema = _record_item_schema(output, items_field, wrapper)
    item_props = (item_schema or {}).get("properties") or {}
    key_field = _key_field(own, item_props)

    id_args = [p for p in props if is_id_name(p)]
    compound = nouns[-2] if len(nouns) == 2 and kind != "create" else None  # ``get_pull_request(pull_number)``
    own_keys = [p for p in id_args if _refers_to(p, own, key_field) or (compound and id_stem(p) == compound)]
    foreign = tuple(p for p in id_args if p not in own_keys and id_stem(p) is not None)
    # An array of objects is a batch of new entities only if it is named like them
    # (``issues``, ``items``); ``labels: [{name}]`` on ``create_issue`` is a field.
    batch_arg = next((p for p, s in props.items() if _array_of_objects(s) and (
        collection_name(p) == collection or p in ("items", "records", "entries", "data", "objects"))), None)
    keys_arg = next((p for p, s in props.items() if _array_of_scalars(s) and (
        is_id_name(singular(p)) or (p.endswith("s") and is_id_name(p[:-1])))), None)  # ``ids``, ``task_ids``

    if kind == "create":
        # an entity the service names by ``id`` takes a ``key``/``slug`` as a field (Linear's team key ``ROC``)
        human = ("key", "slug") if key_field == "id" and "id" in item_props else ()
        key_args = tuple(p for p in own_keys if p not in ("name", "username", "email", "login", "handle") + human
                         or key_field == p)
        if not key_args and key_field not in _GENERATED_IDS and key_field in props:
            key_args = (key_field,)
        return ToolRole(kind, collection, key_args, items_field, batch_arg, style="record", key_field=key_field,
                        foreign_keys=foreign, wrapper=wrapper)
    if kind in ("read", "update", "delete", "move"):
        key_args = tuple(own_keys)
        if not key_args and kind != "read" and len(id_args) == 1 and not foreign:
            key_args = tuple(id_args)
        if not key_args and kind == "update" and keys_arg and not batch_arg:  # ``complete_tasks(ids)``
            verb = next((t for t in tokens[:2] if t in _STATE_VERBS), None)
            sets = {"status": _STATE_VERBS[verb]} if verb else {}
            return ToolRole(kind, collection, (), items_field, keys_arg, style="record", key_field=key_field,
                            wrapper=wrapper, sets=sets)
        if not key_args and kind == "delete" and keys_arg:
            return ToolRole(kind, collection, (), items_field, keys_arg, style="record", key_field=key_field,
                            wrapper=wrapper)
        if not key_args and kind == "read" and keys_arg and not batch_arg:  # ``get_items_batch(ids)``
            return ToolRole(kind, collection, (), items_field, keys_arg, style="record", key_field=key_field,
                            wrapper=wrapper)
        if not key_args and kind == "read":
            kind = "list" if (foreign or items_field or (tokens and tokens[-1].endswith("s"))) else "action"
        else:
            sets = {}
            if kind == "update":
                verb = next((t for t in tokens[:2] if t in _STATE_VERBS), None)
                verb = verb or next((t for t in tokens[:3] if t in _STATE_VERBS), None)
                state = "state" if "state" in item_props else "status"
                if verb:
                    sets = {state: _STATE_VERBS[verb]}
                elif len(tokens) > 2 and tokens[-1] in _ENDING_STATES:  # ``mark_task_done``: the task is done
                    sets = {state: _ENDING_STATES[tokens[-1]]}
            return ToolRole(kind, collection, key_args, items_field, batch_arg if kind == "update" else None,
                            style="record", key_field=key_field, foreign_keys=foreign, wrapper=wrapper, sets=sets)
    if kind in ("list", "search"):
        query_arg = next((q for q in QUERY_ARGS if q in props), None) or next(
            (p for p, s in props.items() if isinstance(s, dict) and s.get("type") == "string"
             and {"search", "query", "keyword", "keywords"} & set(words(p))), None)  # ``searchText``
        filters = tuple(p for p, s in props.items() if p not in PAGINATION_ARGS and p != query_arg
                        and isinstance(s, dict) and s.get("type") in ("string", "integer", "number", "boolean", None))
        if kind == "list" and query_arg:
            kind = "search"
        return ToolRole(kind, collection, (), items_field, None, style="record", key_field=key_field,
                        foreign_keys=foreign, filters=filters, query_arg=query_arg, wrapper=wrapper,
                        count_fields=count_fields(output))
    return ToolRole(kind, collection, tuple(own_keys), items_field, batch_arg, style="record", key_field=key_field,
                    foreign_keys=foreign, wrapper=wrapper)


def _record_item_schema(output: JSONDict | None, items_field: str | None, wrapper: str | None) -> JSONDict | None:
    if not output:
        return None
    props = output.get("properties") or {}
    if wrapper:
        return props[wrapper]
    if items_field and isinstance(props.get(items_field), dict) and isinstance(props[items_field].get("items"), dict):
        return props[items_field]["items"]
    return output


def _key_field(own: str, item_props: JSONDict) -> str:
    for candidate in ("id", f"{own}_id", f"{own}Id", "uuid", "key", "number", "slug", "name", "path", "email",
                      "username", "login"):
        if candidate in item_props:
            return candidate
    return "id"


def _refers_to(arg: str, own: str, key_field: str) -> bool:
    """Whether the id-like argument ``arg`` names the tool's own entity (not another one)."""
    if arg in ("id", "uuid", "key", "slug", "number", key_field) or arg in ("ID", "UUID", "Id", "Uuid"):
        return True  # ``ID``/``UUID``: generated servers keep the API's capitals
    stem = id_stem(arg)
    if stem is None:
        return arg in ID_NAMES
    return singular(stem) == own or stem.endswith("_" + own) or own.endswith("_" + singular(stem))


def infer_as_record(tool: JSONDict) -> ToolRole:
    """The role ``tool`` would have as a REST-like record tool, whatever its arguments suggest."""
    tokens = words(tool["name"])
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    kind = _kind(tokens, tool.get("description") or "", tool.get("annotations") or {}, props)
    return _record_role(tokens, kind, props, tool.get("outputSchema") or None)


#: First words of an act on a record that leaves its fields as they were (``send_invoice(id, email)``,
#: ``run_job(id, env)``): such an action is never read as setting the fields its arguments name.
_ACTS_ONLY = frozenset({
    "send", "notify", "run", "execute", "trigger", "invoke", "call", "start", "stop", "test", "validate",
    "check", "ping", "sync", "export", "import", "share", "deploy", "build", "preview", "render", "generate",
    "compute", "calculate", "analyze", "analyse", "summarize", "summarise", "translate", "convert", "email",
    "remind", "print", "download", "copy", "clone", "duplicate", "fork", "forward", "reply", "post", "invite",
    "subscribe", "watch", "follow", "estimate", "simulate", "explain", "count", "compare", "diff", "verify",
    "lint", "format", "evaluate", "predict", "recommend", "suggest", "why", "undo", "redo", "decompose", "split",
    "book", "buy", "sell", "order", "pay", "refund", "charge", "transfer", "message", "ask", "search", "find",
})


def actions_that_set_fields(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``reprioritise_task(id, priority)``, ``schedule_task(id, due)``: an action that addresses one
    record by its key and whose other arguments are fields of that record (the catalog's create tool
    takes them) changes that record. Read as an update, the new value is stored and reads back."""
    for name, role in list(roles.items()):
        if role.style != "record" or role.kind != "action" or len(role.key_args) != 1:
            continue
        tokens = words(tools[name]["name"])
        if not tokens or tokens[0] in _ACTS_ONLY:
            continue
        created = {p for n, r in roles.items() if r.style == "record" and r.kind == "create"
                   and r.collection == role.collection for p in _input_props(tools[n])}
        schema = tools[name].get("inputSchema") or {}
        rest = [p for p in _input_props(tools[name]) if p not in role.key_args and p not in role.scope_args]
        required = [p for p in rest if p in (schema.get("required") or [])]
        named = [p for p in rest if p in created and not is_id_name(p)]
        if named and all(p in created for p in required):
            said = tuple(p for p in rest if p not in created)
            roles[name] = dataclasses.replace(role, kind="update", extra={**role.extra, "not_fields": said})
    marks_on_their_entity(roles, tools)


def marks_on_their_entity(roles: dict[str, ToolRole], tools: dict[str, JSONDict]) -> None:
    """``mark_done(uid)``: a verb and a state, no noun. The state is not a collection of "dones": the
    call marks the entity its key names, the one the catalog's other tools taking that key address
    (``update_event(uid)``, ``delete_event(uid)``) and a create makes, and the state is a flag set on it."""
    for name, role in list(roles.items()):
        tokens = words(tools[name]["name"])
        if (role.style != "record" or role.kind != "update" or len(role.key_args) != 1 or len(tokens) != 2
                or tokens[-1] not in _STATE_WORDS or role.sets):
            continue
        created = {r.collection for r in roles.values() if r.style == "record" and r.kind == "create"}
        owners = {r.collection for n, r in roles.items() if n != name and r.style == "record" and r.collection in created
                  and r.kind in ("read", "update", "delete") and role.key_args[0] in r.key_args}
        if len(owners) == 1:
            roles[name] = dataclasses.replace(role, collection=owners.pop(), sets={tokens[-1]: True})


def _input_props(tool: JSONDict) -> JSONDict:
    return (tool.get("inputSchema") or {}).get("properties") or {}


def verb_kind(word: str) -> Kind | None:
    """The kind a verb names (``create`` -> create, ``get`` -> read), or None."""
    if word in _STATE_VERBS and not any(word in verbs for verbs in _VERBS.values()):
        return "update"
    return next((k for k, verbs in _VERBS.items() if word in verbs), None)


def state_after(verb: str) -> str | None:
    """The state a lifecycle verb leaves an entity in (``close`` -> ``closed``)."""
    return _STATE_VERBS.get(verb)


def nouns_of(name: str) -> list[str]:
    """The resource words of a tool name (``create_pull_request`` -> ``[pull, request]``)."""
    return _nouns(words(name))


ALL_VERBS: frozenset[str] = frozenset({v for verbs in _VERBS.values() for v in verbs} | set(_STATE_VERBS))


# -- file style -----------------------------------------------------------------------------------


def _file_role(tokens: list[str], kind: Kind, props: JSONDict, output: JSONDict | None) -> ToolRole:
    words_ = set(tokens)
    path_arg = "path" if "path" in props else next((p for p in props if p.endswith(("_path", "Path"))), "path")
    base: JSONDict = {"style": "file", "key_field": "path", "key_args": (path_arg,)}
    if "source" in props and "destination" in props:
        op, kind = "move", "move"
        base["key_args"] = ("source",)
        base["extra"] = {"source": "source", "destination": "destination"}
    elif "paths" in props:
        op, kind = "read_many", "read"
        base["key_args"] = ()
        base["batch_arg"] = "paths"
    elif "tree" in words_:
        op, kind = "tree", "list"
    elif "allowed" in words_:
        op, kind = "allowed", "list"
    elif kind in ("search",) or ("pattern" in props and kind in ("list", "read", "search")):
        op, kind = "search", "search"
    elif kind == "list" or (kind == "read" and {"directory", "dir", "folder"} & words_):
        op, kind = ("list_dir_sizes" if {"size", "sizes"} & words_ else "list_dir"), "list"
    elif {"info", "stat", "metadata", "stats"} & words_:
        op, kind = "info", "read"
    elif kind == "update" and ("edits" in props or "edit" in words_):
        op = "edit"
    elif kind == "create" and ({"directory", "dir", "folder", "mkdir"} & words_):
        op = "mkdir"
    elif kind in ("create", "update") or ("content" in props and kind == "action"):
        op, kind = "write", "create"
    elif kind == "delete":
        op = "delete"
    elif kind == "read" and "media" in words_:
        op = "read_media"
    elif kind == "read":
        op = "read"
    else:
        op = None
    return ToolRole(kind, "files", items_field=None, op=op, **base)


# -- graph style ----------------------------------------------------------------------------------


def _graph_role(tokens: list[str], kind: Kind, props: JSONDict, output: JSONDict | None) -> ToolRole:
    words_ = set(tokens)
    base: JSONDict = {"style": "graph", "key_field": "name"}
    relations = "relations" in props or "relation" in words_ or "relations" in words_
    observations = "observations" in words_ or "observation" in words_ or "deletions" in props
    batch = next((p for p, s in props.items() if _array_of_objects(s)), None)
    keys = next((p for p, s in props.items() if _array_of_scalars(s)), None)
    if observations:
        op = "delete_observations" if kind == "delete" else "add_observations"
        return ToolRole("update", "entities", ("entityName",), None, batch, op=op, **base)
    collection = "relations" if relations else "entities"
    if kind == "create":
        return ToolRole("create", collection, (), collection, batch, op=f"create_{collection}", **base)
    if kind == "delete":
        return ToolRole("delete", collection, (), None, batch if relations else keys, op=f"delete_{collection}", **base)
    if kind == "search" or "query" in props:
        return ToolRole("search", "entities", (), "entities", None, op="search", query_arg="query", **base)
    if keys:  # open_nodes(names)
        return ToolRole("read", "entities", (), "entities", keys, op="open", **base)
    return ToolRole("list", "entities", (), "entities", None, op="read_graph", **base)
