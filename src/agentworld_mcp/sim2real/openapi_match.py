"""Which of a spec's operations an MCP tool wraps: scored by method, resource and arguments.

A hosted-service MCP server names its tools in its own words (``create_issue``,
``slack_post_message``, ``API-retrieve-a-page``) and wraps one REST operation each. The
operation is found by what a REST call is made of, each part scored in [0, 1]:

- **method**: the tool's verb against the HTTP method and what the path says the call does:
  a create is a POST on a collection, a read a GET on an item, a list a GET on a collection,
  an update a PATCH/PUT (or POST) on an item, a delete a DELETE; an action verb (``merge``,
  ``finalize``) wants its word in the path; an RPC-style path (``/chat.postMessage``) says
  its verb itself;
- **resource**: the tool's nouns against the path's last resource segment (singular or
  plural, camel/kebab/snake, prefixes: ``repo`` is ``repository``), and the path's other
  words explained by the tool's name, arguments or description (``/branches/{branch}/
  protection/...`` is not ``get_pull_request``);
- **arguments**: the operation's path parameters each named by an argument (``pull_number``,
  ``block_id`` for ``/blocks/{id}``), and the tool's arguments found among the parameters
  and body properties;
- **words**: the tool's name and description against the operation id and summary.

The confidence is their weighted sum, cut when the method is wrong or a path parameter
has no argument. Pure functions over tool dicts; :mod:`.openapi_enrich` uses them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Set
from dataclasses import dataclass, field
from typing import Any

from ..world.roles import QUERY_ARGS, infer_role, is_id_name, singular, verb_kind, words

JSONDict = dict[str, Any]

#: Weights of the four parts (they sum to 1).
WEIGHTS = {"method": 0.3, "resource": 0.3, "arguments": 0.25, "words": 0.15}
#: Words that name no resource: filler, versions, the HTTP methods.
_FILLER = frozenset({"api", "the", "a", "an", "of", "for", "by", "to", "in", "on", "with", "from", "and", "or", "all",
                     "new", "specific", "given", "details", "detail", "info", "information", "one",
                     "this", "that", "it", "its", "your", "using", "via", "single", "multiple", "many", "object"})
_VERSION = re.compile(r"^v\d+$|^\d+(\.\d+)*$")
_METHODS = ("get", "post", "put", "patch", "delete")
#: Arguments every call may carry that name nothing of the operation (pagination, auth).
_NEUTRAL_ARGS = frozenset({"token", "limit", "cursor", "page", "per_page", "page_size", "start_cursor", "offset",
                           "starting_after", "ending_before", "expand", "fields", "format"})


def norm(word: str) -> str:
    return singular(word.lower())


def bag(*texts: str) -> list[str]:
    """Resource words of ``texts``: split camel/kebab/snake/dots, singular, no filler or versions."""
    return [norm(w) for t in texts for w in words(t) if w not in _FILLER and not _VERSION.match(w) and len(w) > 1]


def same(a: str, b: str) -> bool:
    """One word for the same thing: equal, or one a prefix of the other (``repo``/``repository``)."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    # an abbreviation, not a compound: ``invoice`` is not ``invoiceitem``, ``issue`` not ``issuesecurityscheme``
    return len(short) >= 3 and 2 * len(short) - 1 <= len(long_) <= 3 * len(short) and long_.startswith(short)


def _found(word: str, among: Set[str]) -> bool:
    return word in among or any(same(word, w) for w in among)


def _arg_words(name: str) -> list[str]:
    return [w for w in bag(name) if w not in ("id", "ids", "key", "number", "uuid", "gid", "name")] or bag(name)


@dataclass(frozen=True)
class Operation:
    """What an imported operation's tool says of its REST call."""

    tool: JSONDict
    method: str
    path: str
    operation_id: str
    kind: str  # create / read / list / search / update / delete / action
    segments: tuple[tuple[str, ...], ...]  # the static segments' words, in order
    resource: tuple[str, ...]  # the words of the last static segment
    verbs: tuple[str, ...]  # verbs the path itself says (RPC style: /chat.postMessage)
    path_params: tuple[tuple[str, str], ...]  # (name, the noun of the segment before it)
    params: frozenset[str]  # every parameter and body property, normalised
    words: frozenset[str]  # operation id and summary


def operation(op_tool: JSONDict) -> Operation:
    meta = op_tool["_meta"]
    where = meta["agentworld/openapi"]
    role = meta.get("agentworld/role") or {}
    path = str(where["path"])
    method = str(where["method"]).lower()
    static: list[tuple[str, ...]] = []
    path_params: list[tuple[str, str]] = []
    for part in re.split(r"[/.]", path):
        if not part:
            continue
        names = re.findall(r"\{([^}]+)\}", part)
        if names:
            before = static[-1][-1] if static and static[-1] else ""
            path_params += [(n, before) for n in names]
            continue
        ws = tuple(bag(part))
        if ws:
            static.append(ws)
    # RPC style (``/chat.postMessage``, ``/conversations.list``): the path says its verb itself
    said = tuple(w for w in (words(path.rsplit("/", 1)[-1]) if not path.endswith("}") else []) if verb_kind(w))
    nouns_only = [tuple(w for w in seg if w not in said) for seg in static]
    last = next((seg for seg in reversed(nouns_only) if seg), ())
    kind = str(role.get("kind") or "action")
    if kind == "action" and said:
        kind = "list" if said[-1] in ("list", "history", "replies") else str(verb_kind(said[-1]))
    elif kind == "action" and path.endswith("}"):  # on an item: what its method does to it
        kind = {"get": "read", "put": "update", "patch": "update", "delete": "delete"}.get(method, "action")
    elif kind == "action" and static and all(verb_kind(w) is None for w in static[-1]):  # on a collection
        kind = {"get": "list", "post": "create"}.get(method, "action")
    props = set((op_tool.get("inputSchema") or {}).get("properties") or {})
    params = frozenset(norm(p.removeprefix("body_")) for p in props)
    summary = str(op_tool.get("title") or op_tool.get("description") or "").split(". ")[0][:120]  # its first sentence
    text = f"{where.get('operationId') or ''} {summary}"
    return Operation(op_tool, method, path, str(where.get("operationId") or ""), kind,
                     tuple(static), last, said, tuple(path_params), params, frozenset(bag(text)))


@dataclass(frozen=True)
class Tool:
    """What an MCP tool says of the call it wraps."""

    name: str
    kind: str
    verb: str  # the verb word itself (``merge``), or ""
    http: str | None  # an HTTP method its name says (``API-post-page``)
    nouns: tuple[str, ...]
    tokens: tuple[str, ...]  # every word of its name but the catalog's common ones
    args: tuple[str, ...]
    text: frozenset[str]  # name, description and argument words: what may explain a path's words
    keyed: bool = False  # it names one entity by a key argument (``issue_number``)


def tool_of(tool: JSONDict, common: set[str]) -> Tool:
    """``tool``'s verb, nouns and arguments; ``common`` are words most of the catalog's names share (``slack``)."""
    tokens = [w for w in words(tool["name"]) if w not in common]
    # ``API-post-page``, ``API-patch-page``: the method itself (``get``/``delete`` read as plain verbs)
    http = next((w for w in tokens[:1] if w in ("post", "put", "patch")), None)
    role = infer_role(tool)
    kind = str(role.kind)
    if kind == "action" and tokens and verb_kind(tokens[0]) is not None:
        kind = str(verb_kind(tokens[0]))  # ``retrieve_balance`` reads, though it names no key
    if kind == "read" and tokens and tokens[-1].endswith("s") and norm(tokens[-1]) != tokens[-1] and not any(
            is_id_name(p) for p in (tool.get("inputSchema") or {}).get("properties") or {}):
        kind = "list"  # ``get_users`` lists
    verb = next((w for w in tokens[:2] if verb_kind(w) is not None and w not in _METHODS), "")
    if kind == "list" and verb_kind(verb) == "read" and any(
            is_id_name(p) or p in role.key_args for p in (tool.get("inputSchema") or {}).get("required") or ()):
        kind = "read"  # ``issue_read(owner, repo, issue_number)`` reads one issue
    nouns = tuple(dict.fromkeys(n for n in bag(*[t for t in tokens if t != verb and t not in _METHODS])))
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    args = tuple(p for p in props if p not in _NEUTRAL_ARGS)
    description = str(tool.get("description") or "")[:400]
    text = frozenset(nouns) | {w for a in args for w in bag(a)} | set(bag(description))
    keyed = any(a in role.key_args for a in args) and role.kind not in ("create", "list", "search")
    return Tool(tool["name"], kind, verb, http, nouns, tuple(bag(*tokens)), args, text, keyed)


@dataclass
class Scored:
    """One candidate operation of one tool, with the parts of its confidence."""

    operation: Operation
    confidence: float
    parts: dict[str, float] = field(default_factory=dict)


def _method(t: Tool, op: Operation) -> float:
    m, k = op.method, op.kind
    if t.http is not None:  # the name says the method: it is that method or nothing
        return 1.0 if m == t.http else 0.0
    if t.verb and op.verbs and t.verb not in op.verbs and verb_kind(op.verbs[-1]) not in (t.kind, None):
        return 0.2  # ``create_branch`` is not POST .../branches/{branch}/rename
    if t.verb and t.verb in {w for seg in op.segments for w in seg} | set(op.verbs):
        writes = t.kind in ("action", "update", "create", "delete", "move")
        return 1.0 if writes != (m == "get") else 0.3  # ``merge`` on PUT .../merge; a write is never a GET
    table: dict[str, dict[str, float]] = {
        "create": {"post:create": 1.0, "put:create": 0.8, "post:action": 0.6, "put:update": 0.5, "post:update": 0.4},
        "read": {"get:read": 1.0, "get:action": 0.7, "get:list": 0.5, "get:search": 0.3, "post:search": 0.2},
        "list": {"get:list": 1.0, "get:search": 0.8, "get:action": 0.6, "post:search": 0.6, "get:read": 0.3},
        "search": {"get:search": 1.0, "post:search": 1.0, "get:list": 0.8, "get:action": 0.6},
        "update": {"patch:update": 1.0, "put:update": 1.0, "post:update": 0.8, "patch:action": 0.6,
                   "post:action": 0.5, "put:action": 0.5},
        "delete": {"delete:delete": 1.0, "delete:action": 0.8, "post:delete": 0.5},
        "move": {"post:action": 0.6, "patch:update": 0.6, "post:update": 0.5},
        "action": {"post:action": 0.6, "post:create": 0.4, "post:update": 0.4, "put:update": 0.4, "get:action": 0.4,
                   "patch:update": 0.4, "get:read": 0.3},
    }
    return table.get(t.kind, {}).get(f"{m}:{k}", 0.0)


def _resource(t: Tool, op: Operation) -> float:
    if not t.nouns:
        return 0.5
    resource = set(op.resource)
    everywhere = {w for seg in op.segments for w in seg}
    if "".join(t.nouns) == "".join(op.resource) or t.nouns[-1] in resource:
        hit = 1.0  # ``invoice_item`` is /invoiceitems; ``pull_request`` is /pulls
    elif any(_found(n, resource) for n in t.nouns):
        hit = 0.8
    else:
        hit = 0.3 if any(n in op.words for n in t.nouns) else 0.0  # the summary names it (``Lists all channels``)
    share = sum(_found(n, everywhere | op.words) for n in t.nouns) / len(t.nouns)
    # the path's own words the tool says nothing of: another resource under the same parent, an admin variant
    unexplained = [w for w in everywhere if not _found(w, t.text | op.params) and w not in op.verbs]
    return max(0.0, 0.55 * hit + 0.45 * share - 0.2 * min(4, len(unexplained)))


def _names(arg: str, param: str, before: str) -> bool:
    """Does the tool's argument ``arg`` give the path parameter ``param`` (after the segment noun ``before``)?"""
    a, p = norm(arg), norm(param)
    if a == p or same(a, p):
        return True
    aw, pw = _arg_words(arg), _arg_words(param)
    if aw and aw == pw:
        return True
    stem = aw[-1] if aw else ""
    return bool(before) and param.lower() in ("id", "key", "gid", "uuid", "number") and same(stem, before)


def _arguments(t: Tool, op: Operation) -> tuple[float, float]:
    """(score, share of the operation's path parameters the tool's arguments give)."""
    if op.path_params:
        covered = sum(any(_names(a, p, before) for a in t.args) for p, before in op.path_params) / len(op.path_params)
    else:
        covered = 1.0
    if t.args:
        params = op.params | {norm(p) for p, _ in op.path_params}
        known = sum(any(_names(a, p, "") for p in params) or norm(a) in QUERY_ARGS and "query" in op.params
                    for a in t.args) / len(t.args)
    else:
        known = 0.5
    return 0.5 * covered + 0.5 * known, covered


def _words(t: Tool, op: Operation) -> float:
    said = set(t.tokens)
    if not said:
        return 0.0
    return sum(_found(w, op.words) for w in said) / len(said)


def score(t: Tool, op: Operation) -> Scored:
    method = _method(t, op)
    resource = _resource(t, op)
    arguments, covered = _arguments(t, op)
    text = _words(t, op)
    parts = {"method": method, "resource": resource, "arguments": arguments, "words": text}
    total = sum(WEIGHTS[k] * v for k, v in parts.items())
    if method == 0.0:
        total *= 0.4  # a read never wraps a POST
    elif method <= 0.2:
        total *= 0.8  # the path says another verb (``create_branch`` is not .../rename)
    if resource < 0.3:
        total *= 0.6  # a tool of another resource
    total *= 0.5 + 0.5 * covered  # a path parameter no argument gives: another operation
    if t.keyed and not op.path_params and op.kind in ("list", "create", "search"):
        total *= 0.75  # a tool of one issue is not the listing of all of them
    total -= 0.002 * len(op.segments)  # ties: the shorter path, the more general operation
    return Scored(op, round(max(0.0, total), 3), {k: round(v, 2) for k, v in parts.items()})


def common_words(tools: list[JSONDict]) -> set[str]:
    """Words half or more of the catalog's tool names share (``slack``, ``api``, ``jira``): no resource."""
    counts = Counter(w for tool in tools for w in set(words(tool["name"])))
    return {w for w, c in counts.items() if c >= max(2, len(tools) / 2) and verb_kind(w) is None}


def ranked(tool: JSONDict, operations: list[Operation], common: set[str]) -> list[Scored]:
    """Every operation scored for ``tool``, best first; the best's confidence lowered when another
    operation of another path scores as well (an ambiguous match is not a confident one)."""
    t = tool_of(tool, common)
    out = sorted((score(t, op) for op in operations), key=lambda s: -s.confidence)
    if len(out) > 1:
        rival = next((s for s in out[1:] if s.operation.path != out[0].operation.path), None)
        margin = out[0].confidence - rival.confidence if rival else 1.0
        out[0].confidence = round(max(0.0, out[0].confidence - max(0.0, 0.1 - margin)), 3)
    return out


__all__ = ["Operation", "Scored", "Tool", "WEIGHTS", "bag", "common_words", "operation", "ranked", "same", "score",
           "tool_of"]
