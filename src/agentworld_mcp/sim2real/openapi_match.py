"""Which of a spec's operations an MCP tool wraps: scored by method, resource and arguments.

A hosted-service MCP server names its tools in its own words (``create_issue``,
``slack_post_message``, ``API-retrieve-a-page``) and wraps one REST operation each. The
operation is found by what a REST call is made of, each part scored in [0, 1]:

- **method**: the tool's verb against the HTTP method and what the path says the call does:
  a create is a POST on a collection, a read a GET on an item, a list a GET on a collection,
  an update a PATCH/PUT (or POST) on an item, a delete a DELETE; an action verb (``merge``,
  ``finalize``) wants its word in the path; an RPC-style path (``/chat.postMessage``) says
  its verb itself; the verb is read wherever the name says it (``droplet-get``) and a path
  ending in a parent's key (``/flags/{projectKey}``) is that parent's collection;
- **resource**: the tool's nouns against the path's last resource segment (singular or
  plural, camel/kebab/snake, prefixes: ``repo`` is ``repository``), and the path's other
  words explained by the tool's name, arguments or description (``/branches/{branch}/
  protection/...`` is not ``get_pull_request``);
- **arguments**: the operation's path parameters each named by its own argument (``pull_number``,
  ``block_id`` for ``/blocks/{id}``, a bare ``ID`` for ``{droplet_id}``), and the tool's
  arguments found among the parameters and body properties, one level down on both sides
  (a tool's one ``request`` object, a body wrapped in ``data``);
- **words**: the tool's name and description against the operation id and summary.

The confidence is their weighted sum, cut when the method is wrong or a path parameter
(or a required parameter) has no argument. Pure functions over tool dicts; :mod:`.openapi_enrich` uses them.
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
                     "this", "that", "it", "its", "your", "using", "via", "single", "multiple", "many", "object",
                     "across", "within", "under", "into", "per"})
_VERSION = re.compile(r"^v\d+$|^\d+(\.\d+)*$")
_METHODS = ("get", "post", "put", "patch", "delete")
#: Arguments every call may carry that name nothing of the operation (pagination, auth).
_NEUTRAL_ARGS = frozenset({"token", "limit", "cursor", "page", "per_page", "page_size", "start_cursor", "offset",
                           "starting_after", "ending_before", "expand", "fields", "format"})


def norm(word: str) -> str:
    low = word.lower()
    if low.endswith("uses") and len(low) > 5 and low[-5] not in "aeiou":
        return low[:-2]  # ``statuses`` is ``status`` (``causes`` keeps its ``e``)
    return singular(low)


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


def initials(ws: tuple[str, ...] | list[str]) -> str:
    """``lb`` of ``load balancer``: a short name for a resource of two or three words ("" for one)."""
    return "".join(w[0] for w in ws) if 2 <= len(ws) <= 3 else ""


#: Words of an argument that say it is a key, not which entity it keys.
_KEY_WORDS = frozenset({"id", "ids", "key", "number", "uuid", "gid", "name", "identifier", "slug"})


def _arg_words(name: str) -> list[str]:
    return [w for w in bag(name) if w not in _KEY_WORDS] or bag(name)


def _bare_key(name: str) -> bool:
    """``ID``, ``uuid``, ``Name``: a key that does not say of which entity."""
    return all(w in _KEY_WORDS for w in words(name))


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
    required: frozenset[str] = frozenset()  # the query parameters and body properties it requires
    names: frozenset[str] = frozenset()  # every parameter and body property as the spec spells it


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
    # RPC style (``/chat.postMessage``, ``/conversations.list``): the path says its verb itself; a
    # plain segment does not (``/load_balancers`` is not a ``load``)
    tail = path.rsplit("/", 1)[-1]
    rpc = not path.endswith("}") and ("." in tail or re.search(r"[a-z][A-Z]", tail) is not None
                                      or all(verb_kind(w) for w in words(tail)))
    said = tuple(w for w in (words(tail) if rpc else []) if verb_kind(w))
    nouns_only = [tuple(w for w in seg if w not in said) for seg in static]
    last = next((seg for seg in reversed(nouns_only) if seg), ())
    kind = str(role.get("kind") or "action")
    if kind == "action" and said:
        kind = "list" if said[-1] in ("list", "history", "replies") else str(verb_kind(said[-1]))
    elif kind == "action" and path.endswith("}"):  # on an item: what its method does to it
        kind = {"get": "read", "put": "update", "patch": "update", "delete": "delete"}.get(method, "action")
    elif kind == "action" and static and all(verb_kind(w) is None for w in static[-1]):  # on a collection
        kind = {"get": "list", "post": "create"}.get(method, "action")
    summary = str(op_tool.get("title") or op_tool.get("description") or "").split(". ")[0][:120]  # its first sentence
    on_collection = {"get": "list", "post": "create"}.get(method)
    if (kind in ("read", "update") and on_collection and path.endswith("}") and static
            and _scopes(path_params[-1][0], static[-1]) and _said_kind(str(where.get("operationId") or ""), summary)
            == on_collection):
        kind = on_collection  # ``GET /flags/{projectKey}``, "Get a list of all features": a project's flags
    schema = op_tool.get("inputSchema") or {}
    props = dict(schema.get("properties") or {})
    given = set(props) | {n for sub in props.values() for n in _inner(sub)}  # ``{"data": {"name": ...}}``
    params = frozenset(norm(p.removeprefix("body_")) for p in given)
    in_path = {n for n, _ in path_params}
    required = frozenset(p.removeprefix("body_") for p in schema.get("required") or ()
                         if p not in in_path and p in props and not _inner(props[p]))
    raw = frozenset(p.removeprefix("body_") for p in given)
    text = f"{where.get('operationId') or ''} {summary}"
    return Operation(op_tool, method, path, str(where.get("operationId") or ""), kind,
                     tuple(static), last, said, tuple(path_params), params, frozenset(bag(text)), required, raw)


def _inner(schema: Any) -> dict[str, Any]:
    """The properties of an object ``schema`` (a body wrapped in ``data``, a tool's one ``request`` argument)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _said_kind(operation_id: str, summary: str) -> str | None:
    """What the operation id or summary says the call does: ``getFeatureFlags`` and "Get a list of"
    list, ``postFeatureFlag`` creates."""
    ws = words(operation_id)
    said = verb_kind(ws[0]) if ws else None
    if said == "read" and (norm(ws[-1]) != ws[-1] or "list" in words(summary)):
        return "list"
    return said


def _scopes(param: str, segment: tuple[str, ...]) -> bool:
    """Does the last path parameter scope a collection rather than key an item of it? ``{projectKey}``
    after ``/flags`` keys a project (its flags are listed); ``{flag_key}``, ``{lb_id}`` after
    ``/load_balancers``, ``{id}``, ``{path}`` key the item."""
    ws = words(param)
    head = [norm(w) for w in ws if w not in _KEY_WORDS and w not in _FILLER]
    if not segment or not head or ws[-1] not in _KEY_WORDS:
        return False
    said = set(segment) | {initials(segment), "".join(segment)}
    return not any(_found(w, said) for w in head) and "".join(head) not in said


@dataclass(frozen=True)
class Tool:
    """What an MCP tool says of the call it wraps."""

    name: str
    kind: str
    verb: str  # the verb word itself (``merge``), or "" (``get``/``delete`` are kinds, not path words)
    http: str | None  # an HTTP method its name says (``API-post-page``)
    nouns: tuple[str, ...]
    tokens: tuple[str, ...]  # every word of its name but the catalog's common ones
    args: tuple[str, ...]
    text: frozenset[str]  # name, description and argument words: what may explain a path's words
    keyed: bool = False  # it names one entity by a key argument (``issue_number``)
    head: str = ""  # the noun it acts on: ``story`` of ``get_task_stories``, ``tag`` of ``get_tags_for_task``
    either: bool = False  # a read of a plural (``get_task_stories(task_id)``): one entity or a list


#: Argument names that wrap the real arguments one level down (``FeatureFlagBody``, ``data``).
_WRAPPERS = frozenset({"body", "data", "request", "input", "payload", "params", "parameters", "attributes"})
#: Words that end the noun a tool acts on: ``tags`` of ``get_tags_for_task``.
_PREPOSITIONS = frozenset({"for", "of", "in", "on", "to", "from", "by", "across", "within", "under", "into", "per", "with"})


def arguments_of(schema: JSONDict) -> tuple[dict[str, Any], list[str]]:
    """A tool's arguments and the required ones: those of its one object argument when it has no
    other (``request: {projectKey, ...}``), and a wrapper argument's (``FeatureFlagBody``) in its place."""
    props = dict(schema.get("properties") or {})
    required = [str(r) for r in schema.get("required") or ()]
    if len(props) == 1:
        (sub,) = props.values()
        if _inner(sub):
            props, required = dict(_inner(sub)), [str(r) for r in sub.get("required") or ()]
    out: dict[str, Any] = {}
    for name, sub in props.items():
        ws = words(name)
        if ws and ws[-1] in _WRAPPERS and _inner(sub):
            out.update(_inner(sub))
        else:
            out[name] = sub
    return out, required


def _said_verb(tokens: list[str]) -> int | None:
    """Where the name says its verb: first (``get_task``), after a prefix, last (``droplet-get``), or between."""
    n = len(tokens)
    order = [0, 1, n - 1, *range(2, n - 1)] if n > 2 else list(range(n))
    return next((i for i in order if verb_kind(tokens[i]) is not None), None)


def tool_of(tool: JSONDict, common: set[str]) -> Tool:
    """``tool``'s verb, nouns and arguments; ``common`` are words most of the catalog's names share (``slack``)."""
    tokens = [w for w in words(tool["name"]) if w not in common]
    # ``API-post-page``, ``API-patch-page``: the method itself (``get``/``delete`` read as plain verbs)
    http = next((w for w in tokens[:1] if w in ("post", "put", "patch")), None)
    props, required = arguments_of(tool.get("inputSchema") or {})
    flat = {**tool, "inputSchema": {"type": "object", "properties": props, "required": required}}
    role = infer_role(flat)
    at = _said_verb(tokens)
    said = tokens[at] if at is not None else ""
    kind = str(role.kind)
    if said and (kind == "action" or verb_kind(said) in ("create", "read", "list", "search", "update", "delete")):
        kind = str(verb_kind(said))  # the name's verb is what it does: ``domain-get`` reads, whatever its arguments
    rest = [w for i, w in enumerate(tokens) if i != at and w not in _METHODS]
    cut = next((i for i, w in enumerate(rest) if w in _PREPOSITIONS and i > 0), len(rest))
    acted = [w for w in rest[:cut] if bag(w)]
    head_word = acted[-1] if acted else ""
    head = norm(head_word) if head_word else ""
    nouns = tuple(dict.fromkeys(n for n in bag(*rest)))
    keys = [p for p in props if is_id_name(p) or p in role.key_args]
    # ``get_task_stories(task_id)``: many stories and no story's key; but ``get_file_contents(path)`` reads
    # one file, ``balance-get()`` the one balance: a read with no key of what it reads lists or reads, the
    # path decides
    acted_nouns = [norm(w) for w in acted]
    plural = bool(head_word) and norm(head_word) != head_word

    def keys_head(key: str) -> bool:
        kw = (_arg_words(key) or [""])[-1]
        if _bare_key(key) or same(head, kw):
            return True
        if not plural and len(acted_nouns) > 1 and acted_nouns[-2] == kw:
            return True  # ``pull_request_read(pullNumber)``: the key of a two-word noun
        # ``get_commit(sha)``, ``get_file_contents(path)``: a key of nothing else the name says keys what it reads
        return not _found(kw, set(nouns)) and not head.endswith(kw)

    # no key at all: ``balance-get()`` reads a singleton or lists; ``get_commit(sha)`` names its key otherwise
    asked = [r for r in required if r not in _NEUTRAL_ARGS]
    either = kind == "read" and bool(head_word) and (
        not any(keys_head(k) for k in keys) if keys else not asked or plural)
    if either and not keys and plural:
        kind, either = "list", False  # ``get_users``
    verb = said if said not in _METHODS else ""
    args = tuple(p for p in props if p not in _NEUTRAL_ARGS)
    description = str(tool.get("description") or "")[:400]
    text = frozenset(nouns) | {w for a in args for w in bag(a)} | set(bag(description))
    keyed = any(a in role.key_args for a in args) and role.kind not in ("create", "list", "search")
    return Tool(tool["name"], kind, verb, http, nouns, tuple(bag(*tokens)), args, text, keyed, head, either)


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
    if t.either:
        return max(table["read"].get(f"{m}:{k}", 0.0), table["list"].get(f"{m}:{k}", 0.0))
    return table.get(t.kind, {}).get(f"{m}:{k}", 0.0)


def _resource(t: Tool, op: Operation) -> float:
    if not t.nouns:
        return 0.5
    resource = set(op.resource) | {initials(op.resource)} - {""}  # ``lb`` is ``/load_balancers``
    everywhere = {w for seg in op.segments for w in seg} | {initials(seg) for seg in op.segments} - {""}
    if "".join(t.nouns) == "".join(op.resource) or (t.head or t.nouns[-1]) in resource:
        hit = 1.0  # ``invoice_item`` is /invoiceitems; ``pull_request`` is /pulls
    elif any(_found(n, resource) for n in t.nouns):
        # ``get_tags_for_task`` on ``/tasks/{id}``: the parent, not what it acts on, unless the summary says it
        hit = 0.8 if not t.head or _found(t.head, everywhere | op.words) else 0.5
    else:
        hit = 0.3 if any(n in op.words for n in t.nouns) else 0.0  # the summary names it (``Lists all channels``)
    share = sum(_found(n, everywhere | op.words) for n in t.nouns) / len(t.nouns)
    # the path's own words the tool says nothing of: another resource under the same parent, an admin variant
    unexplained = [w for w in everywhere if not _found(w, t.text | op.params) and w not in op.verbs]
    return max(0.0, 0.55 * hit + 0.45 * share - 0.2 * min(4, len(unexplained)))


def _names(arg: str, param: str, before: str, nouns: Set[str] = frozenset()) -> bool:
    """Does the tool's argument ``arg`` give the path parameter ``param`` (after the segment noun ``before``)?
    ``nouns`` are the tool's own: a bare ``ID`` of ``droplet-get`` gives ``{droplet_id}``."""
    a, p = norm(arg), norm(param)
    if a == p or same(a, p):
        return True
    aw, pw = _arg_words(arg), _arg_words(param)
    if aw and aw == pw:
        return True
    # ``parent_task_id`` gives ``{task_gid}``, ``RecordID`` gives ``{domain_record_id}``; ``LoadBalancerID`` ``{lb_id}``
    if is_id_name(arg) and aw and pw and (aw[-len(pw):] == pw or pw[-len(aw):] == aw or initials(aw) == "".join(pw)):
        return True
    if _bare_key(arg) and words(param) and words(param)[-1] in _KEY_WORDS:
        return _bare_key(param) or any(_found(w, nouns) for w in bag(param)[:-1])
    stem = aw[-1] if aw else ""
    return bool(before) and param.lower() in ("id", "key", "gid", "uuid", "number") and same(stem, before)


def _arguments(t: Tool, op: Operation) -> tuple[float, float]:
    """(score, share of the operation's path parameters the tool's arguments give, each argument once)."""
    nouns = set(t.nouns) | {initials(t.nouns)} - {""}
    if op.path_params:
        free = list(t.args)
        given = 0
        for i, (p, before) in enumerate(op.path_params):
            # a create's bare ``Name`` names what it makes, not the parent on a path that goes on past it
            last = i == len(op.path_params) - 1 and op.path.endswith("}")
            arg = next((a for a in free if _names(a, p, before, nouns if t.kind != "create" or last else set())), None)
            if arg is not None:
                free.remove(arg)
                given += 1
        covered = given / len(op.path_params)
    else:
        covered = 1.0
    if t.args:
        params = op.names | {p for p, _ in op.path_params}
        known = sum(any(_names(a, p, "", nouns) for p in params) or norm(a) in QUERY_ARGS and "query" in op.params
                    for a in t.args) / len(t.args)
    else:
        known = 0.5
    return 0.5 * covered + 0.5 * known, covered


def _unfilled(t: Tool, op: Operation) -> int:
    """How many of the parameters the operation requires no argument of the tool gives (``tag_name`` of a
    delete-by-tag, for ``droplet-delete(ID)``)."""
    query = any(norm(a) in QUERY_ARGS for a in t.args)
    return sum(not any(_names(a, r, "") for a in t.args) and not (query and r in QUERY_ARGS)
               for r in op.required if norm(r) not in _NEUTRAL_ARGS and r not in _NEUTRAL_ARGS)


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
    total *= 1.0 - 0.15 * min(2, _unfilled(t, op))  # a required parameter no argument gives: likewise
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


__all__ = ["Operation", "Scored", "Tool", "WEIGHTS", "arguments_of", "bag", "common_words", "initials", "operation",
           "ranked", "same", "score", "tool_of"]
