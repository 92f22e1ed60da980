"""What a tool does, inferred from its definition.

The deterministic world model and the ledger both need to know whether a call creates,
reads, lists, updates or deletes something, which collection it touches and which
arguments identify the entity. Real catalogs say so only implicitly: in the tool's name
(``create_issue``, ``getFileInfo``), its description, its annotations
(``readOnlyHint``, ``destructiveHint``) and the shape of its schemas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

JSONDict = dict[str, Any]
Kind = Literal["create", "read", "list", "search", "update", "delete", "move", "action"]

_VERBS: dict[Kind, tuple[str, ...]] = {
    "create": ("create", "add", "new", "insert", "post", "make", "register", "upload", "write", "put", "save"),
    "read": ("get", "read", "fetch", "show", "view", "describe", "retrieve", "open", "lookup", "load", "info", "inspect"),
    "list": ("list", "all", "browse", "enumerate", "tree", "index"),
    "search": ("search", "find", "query", "filter"),
    "update": ("update", "edit", "modify", "patch", "set", "change", "close", "reopen", "assign", "append", "replace",
               "upsert", "star", "label", "mark", "complete", "toggle"),
    "delete": ("delete", "remove", "destroy", "drop", "unlink", "erase", "purge", "clear", "cancel"),
    "move": ("move", "rename", "mv", "transfer", "relocate"),
}
#: Identifier-like argument names, most specific first.
ID_NAMES = ("id", "uuid", "key", "path", "slug", "number", "email", "name", "filename", "handle", "username")
_ID_SUFFIXES = ("_id", "Id", "_uuid", "_key", "_path", "Path", "_number", "_name", "Name")


def words(name: str) -> list[str]:
    """``getFileInfo`` / ``create-issue`` / ``list_issues`` -> lowercase words."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def plural(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    return word + "s"


def is_id_name(name: str) -> bool:
    low = name.lower()
    return low in ID_NAMES or name.endswith(_ID_SUFFIXES) or low.endswith(("_id", "id")) and len(low) > 2


@dataclass(frozen=True)
class ToolRole:
    """The inferred behaviour of one tool."""

    kind: Kind
    collection: str
    #: Arguments that identify the target entity (``issue_id``, ``path``...), in order.
    key_args: tuple[str, ...] = ()
    #: For list/search tools: the output property holding the items (``issues``, ``items``).
    items_field: str | None = None
    #: For tools that create or update several entities at once: the array argument.
    batch_arg: str | None = None
    extra: JSONDict = field(default_factory=dict)

    @property
    def is_write(self) -> bool:
        return self.kind in ("create", "update", "delete", "move")

    @property
    def is_read(self) -> bool:
        return self.kind in ("read", "list", "search")


def infer_role(tool: JSONDict) -> ToolRole:
    name = tool["name"]
    tokens = words(name)
    annotations = tool.get("annotations") or {}
    props: JSONDict = (tool.get("inputSchema") or {}).get("properties") or {}
    kind = _kind(tokens, tool.get("description") or "", annotations, props)
    nouns = [t for t in tokens if not any(t in v for v in _VERBS.values()) and t not in ("by", "to", "from", "a", "the")]
    key_args = tuple(p for p in props if is_id_name(p))
    items_field = _items_field(tool.get("outputSchema"))
    if "path" in props or any(p.endswith(("_path", "Path")) for p in props):
        collection = "files"
    elif nouns:
        collection = plural(singular(nouns[-1]))
    elif items_field:
        collection = items_field
    else:
        collection = plural(singular(tokens[-1])) if tokens else "items"
    batch_arg = next(
        (p for p, s in props.items() if isinstance(s, dict) and s.get("type") == "array"
         and isinstance(s.get("items"), dict) and s["items"].get("type") == "object"),
        None,
    )
    return ToolRole(kind, collection, key_args, items_field, batch_arg)


def _kind(tokens: list[str], description: str, annotations: JSONDict, props: JSONDict) -> Kind:
    first_match: Kind | None = None
    for token in tokens:
        for kind, verbs in _VERBS.items():
            if token in verbs:
                first_match = kind
                break
        if first_match:
            break
    if first_match in ("read", "list") and not any(is_id_name(p) for p in props) and first_match == "read":
        # "get_issues" / "read_graph": a read with no identifier is a listing.
        if tokens and tokens[-1].endswith("s") or "graph" in tokens:
            first_match = "list"
    if annotations.get("readOnlyHint") is True and first_match not in ("read", "list", "search"):
        if "query" in props or "q" in props:
            return "search"
        return "list" if not any(is_id_name(p) for p in props) else "read"
    if first_match is None:
        desc = description.lower()
        if annotations.get("destructiveHint") is True and "delet" in desc:
            return "delete"
        for kind in ("search", "list", "create", "update", "delete", "read"):
            if any(re.search(rf"\b{v}", desc) for v in _VERBS[kind][:3]):  # type: ignore[index]
                return kind  # type: ignore[return-value]
        return "action"
    return first_match


def _items_field(output_schema: JSONDict | None) -> str | None:
    if not output_schema:
        return None
    for prop, schema in (output_schema.get("properties") or {}).items():
        if isinstance(schema, dict) and schema.get("type") == "array":
            return prop
    return None
