"""A key-value store's keyspace: typed values under keys, read back as written.

Which catalogs. A catalog is a keyspace when at least four of its tools are store commands
on keys and they touch at least two value types. A tool is a store command when its name is
one of the store's command words (``hset``, ``lrange``, ``zadd``: the command vocabulary the
Redis family of stores shares) or is spelled out in store vocabulary only, a value type and
a verb (``hash_get_all``, ``list_push_left``, ``sorted_set_add``, ``scan_keys``), and its
arguments hold what the command needs: the key (``key``, ``name``, ``key_name``...), the
hash field, the value, the score. A catalog with only ``set``/``get``/``delete``/``list``
stays with the record model and :mod:`.kv_text`'s wording.

What it answers. The keyspace is ledger entities of the collection ``keyspace`` (one per
key: its type, its value, its time to live), so the episode's stores persist and reset it;
:mod:`.keyspace_ops` runs the command on the key's value and :mod:`.kv_text` words the
answer. A read answers what was written (a hash as its fields, a list in order, a sorted
set by score), a typed command on a key of another type fails with the store's
``WRONGTYPE`` message, and a missing key answers the store's empty answer (nil, an empty
list, 0) rather than a not-found failure.
"""

from __future__ import annotations

import re
from typing import Any

from ...world.roles import words
from ..base import Prediction, Step
from .keyspace_ops import Command, answer

JSONDict = dict[str, Any]

#: Value types; ``key`` marks a command on the keyspace itself (``type``, ``expire``, ``scan``).
TYPES = ("string", "hash", "list", "set", "zset")

#: Command words of the store family -> (value type, command).
COMMANDS: dict[str, str] = {
    **{c: "string" for c in ("set", "get", "setex", "setnx", "getset", "getdel", "incr", "decr", "incrby", "decrby",
                             "append", "strlen", "mget", "mset")},
    **{c: "hash" for c in ("hset", "hget", "hgetall", "hdel", "hexists", "hkeys", "hvals", "hlen", "hmset", "hmget",
                           "hincrby", "hsetnx")},
    **{c: "list" for c in ("lpush", "rpush", "lpop", "rpop", "lrange", "llen", "lindex", "lrem", "lset", "ltrim")},
    **{c: "set" for c in ("sadd", "srem", "smembers", "sismember", "scard", "spop")},
    **{c: "zset" for c in ("zadd", "zrem", "zrange", "zrevrange", "zrangebyscore", "zscore", "zcard", "zincrby",
                           "zrank", "zrevrank", "zcount")},
    **{c: "key" for c in ("del", "unlink", "exists", "type", "expire", "pexpire", "ttl", "pttl", "persist", "rename",
                          "keys", "scan", "dbsize")},
}

_TYPE_WORDS = {"string": "string", "strings": "string", "str": "string", "hash": "hash", "hashes": "hash",
               "hashmap": "hash", "list": "list", "lists": "list", "zset": "zset", "sorted": "zset",
               "ordered": "zset"}
#: Verb words of spelled-out names -> the command, per value type (first match wins).
_VERBS: dict[str, tuple[tuple[set[str], str], ...]] = {
    "hash": (({"getall", "entries"}, "hgetall"), ({"exists", "has", "contains"}, "hexists"),
             ({"del", "delete", "remove", "rem"}, "hdel"), ({"incr", "increment", "incrby"}, "hincrby"),
             ({"len", "length", "size", "count"}, "hlen"), ({"keys", "fields"}, "hkeys"),
             ({"vals", "values"}, "hvals"), ({"set", "put", "write", "store"}, "hset"),
             ({"get", "read", "fetch"}, "hget")),
    "list": (({"len", "length", "size", "count"}, "llen"), ({"rem", "remove", "delete"}, "lrem"),
             ({"index", "at"}, "lindex"), ({"pop"}, "pop"), ({"push", "append", "prepend", "add", "insert"}, "push"),
             ({"range", "get", "read", "all", "elements", "items"}, "lrange")),
    "set": (({"ismember", "contains", "has", "exists", "is"}, "sismember"),
            ({"card", "size", "count", "len", "length", "cardinality"}, "scard"),
            ({"rem", "remove", "delete", "del"}, "srem"), ({"add", "insert", "put"}, "sadd"),
            ({"members", "get", "all", "read", "list"}, "smembers")),
    "zset": (({"card", "size", "count", "len", "length", "cardinality"}, "zcard"),
             ({"incr", "increment", "incrby"}, "zincrby"), ({"rank"}, "zrank"),
             ({"rem", "remove", "delete", "del"}, "zrem"), ({"add", "insert", "put"}, "zadd"),
             ({"range", "get", "members", "read", "list", "top"}, "zrange"), ({"score"}, "zscore")),
    "string": (({"incr", "increment", "incrby"}, "incr"), ({"decr", "decrement", "decrby"}, "decr"),
               ({"append"}, "append"), ({"strlen", "length", "len"}, "strlen"),
               ({"set", "put", "write", "store", "save"}, "set"), ({"get", "read", "fetch", "retrieve"}, "get")),
    "key": (({"ttl"}, "ttl"), ({"expire", "expiry", "expiration", "expires"}, "expire"), ({"persist"}, "persist"),
            ({"type"}, "type"), ({"rename"}, "rename"), ({"dbsize"}, "dbsize"),
            ({"keys", "scan"}, "keys"), ({"exists"}, "exists"), ({"del", "delete", "remove", "unlink"}, "del")),
}
_LEFT = {"left", "head", "front", "first", "start", "prepend", "l"}
_RIGHT = {"right", "tail", "back", "last", "end", "append", "r"}
_FILLER = {"key", "value", "values", "field", "fields", "all", "to", "from", "in", "of", "by", "at", "on", "element",
           "elements", "member", "members", "entry", "entries", "with", "multiple", "many", "the", "a", "new", "kv",
           "data", "set", "sets", "db", "size", "get", "reverse", "rev", "desc", "scores", "score"}
_VOCAB = set(_TYPE_WORDS) | _FILLER | _LEFT | _RIGHT | {w for rules in _VERBS.values() for ws, _ in rules for w in ws}

#: Argument names per part of a command, in order of preference.
_KEY_ARGS = ("key", "name", "key_name", "keyName", "hash_key", "hash_name", "list_key", "list_name", "set_key",
             "set_name", "zset_key", "hash", "list", "set", "zset")
_FIELD_ARGS = ("field", "field_name", "fieldName", "hash_field", "subkey")
_VALUE_ARGS = ("value", "val", "element", "member", "data", "values", "elements", "members", "mapping", "fields",
               "items")
_MEMBER_ARGS = ("member", "value", "element", "members", "mapping", "values")
_ARGS: dict[str, tuple[str, ...]] = {
    "score": ("score", "increment", "amount", "by"),
    "start": ("start", "begin", "from", "min", "min_score", "offset"),
    "stop": ("stop", "end", "to", "max", "max_score"),
    "index": ("index", "position", "idx"),
    "count": ("count", "limit", "num"),
    "scores": ("with_scores", "withscores", "withScores", "include_scores", "scores"),
    "new": ("new_key", "newkey", "newKey", "new_name", "newName", "destination", "dest", "target"),
    "old": ("old_key", "oldKey", "old_name", "source", "src", "key", "name"),
    "pattern": ("pattern", "match", "glob", "prefix", "filter"),
    "cursor": ("cursor",),
    "amount": ("amount", "increment", "by", "delta"),
}
_TTL = re.compile(r"expir|ttl|seconds|timeout|^ex$", re.IGNORECASE)


def _tokens(name: str, prefix: str | None) -> list[str]:
    found = words(name)
    return found[1:] if prefix and len(found) > 1 and found[0] == prefix else found


def _command_word(tokens: list[str]) -> str | None:
    """The command a name says: a command word, or type and verb words spelled out (``hash_get_all``)."""
    if len(tokens) == 1 and tokens[0] in COMMANDS:
        return tokens[0]
    if not tokens or not set(tokens) <= _VOCAB:
        return None
    said = set(tokens) | ({"getall"} if {"get", "all"} <= set(tokens) else set())
    kind = next((_TYPE_WORDS[t] for t in tokens if t in _TYPE_WORDS and _TYPE_WORDS[t] != "string"), None)
    if kind is None and "set" in said and said & {w for ws, _ in _VERBS["set"] for w in ws} - {"get"} - {"set"}:
        kind = "set"  # ``set_add``, ``set_members``: the set type, not the string ``set`` verb
    if said & {"keys", "scan"} and kind in (None, "list"):
        kind = "key"  # ``list_keys``: listing the keyspace, not a list value
    order = [kind] if kind else ["key", "string"]
    for within in order:
        for verbs, command in _VERBS[within]:
            if said & verbs:
                return _sided(command, said)
    return None


def _sided(command: str, said: set[str]) -> str:
    if command in ("push", "pop"):
        side = "r" if said & _RIGHT and not said & _LEFT else "l" if said & _LEFT else ("r" if command == "push" else "l")
        return side + command
    if command == "zrange" and said & {"reverse", "rev", "desc"}:
        return "zrevrange"
    return command


def _parts(command: str, kind: str, props: JSONDict) -> dict[str, str] | None:
    """Which argument is the key, the field, the value... for ``command``; None when one it needs is missing."""
    names = list(props)
    parts: dict[str, str] = {}
    field = next((a for a in _FIELD_ARGS if a in props), None)
    key = next((a for a in _KEY_ARGS if a in props), None)
    if kind == "hash" and field is None and "key" in props and "name" in props:
        key, field = "name", "key"  # ``hset(name, key, value)``: ``name`` is the hash, ``key`` its field
    if command == "rename":
        old = next((a for a in _ARGS["old"] if a in props), None)
        new = next((a for a in _ARGS["new"] if a in props and a != old), None)
        return {"old": old, "new": new} if old and new else None
    if command not in ("keys", "scan", "dbsize"):
        if key is None:
            return None
        parts["key"] = key
    if field is not None:
        parts["field"] = field
    members = _MEMBER_ARGS if kind == "zset" else _VALUE_ARGS
    value = next((a for a in members if a in props and a not in parts.values()), None)
    if value is not None:
        parts["value"] = value
    for part, candidates in _ARGS.items():
        if part in ("old", "new"):
            continue
        found = next((a for a in candidates if a in props and a not in parts.values()), None)
        if found is not None:
            parts[part] = found
    ttl = next((a for a in names if _TTL.search(a) and a not in parts.values()), None)
    if ttl is not None:
        parts["ttl"] = ttl
    needs = {"hset": ("value",), "hget": ("field",), "hdel": ("field",), "hexists": ("field",), "sadd": ("value",),
             "srem": ("value",), "zadd": ("value",), "zrem": ("value",), "set": ("value",), "expire": ("ttl",)}
    if command in ("lpush", "rpush", "sismember", "zscore", "lrem"):
        needs = {command: ("value",)}
    if any(p not in parts for p in needs.get(command, ())):
        return None
    return parts


def commands(tools: list[JSONDict]) -> dict[str, Command]:
    """The catalog's tools that are store commands, by tool name; empty when the catalog is no keyspace."""
    firsts = [words(t.get("name") or "")[:1] for t in tools]
    common = max({f[0] for f in firsts if f}, key=lambda w: sum(f == [w] for f in firsts), default=None)
    prefix = common if common and sum(f == [common] for f in firsts) * 2 >= len(tools) and common not in COMMANDS \
        and common not in _VOCAB else None
    found: dict[str, Command] = {}
    for tool in tools:
        command = _command_word(_tokens(str(tool.get("name") or ""), prefix))
        if command is None:
            continue
        kind = COMMANDS.get(command, "key")
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        if command == "hget" and not any(a in props for a in _FIELD_ARGS) and not {"key", "name"} <= set(props):
            command = "hgetall"  # ``hash_get(name)``: the whole hash
        parts = _parts(command, kind, props)
        if parts is not None:
            found[str(tool["name"])] = Command(command, kind, parts)
    kinds = {c.type for c in found.values()} - {"key"}
    return found if len(found) >= 4 and len(kinds) >= 2 else {}


def command_for(step: Step) -> Command | None:
    """The store command ``step``'s tool is, when its catalog is a keyspace (judged once per catalog)."""
    known = step.derived("keyspace", lambda: commands(list(step.world.tools)))
    return known.get(step.tool.name)


def predict_keyspace(step: Step) -> Prediction | None:
    """The keyspace's answer to ``step``, or None when the tool is no store command."""
    command = command_for(step)
    if command is None:
        return None
    return answer(step, command)


__all__ = ["COMMANDS", "Command", "TYPES", "command_for", "commands", "predict_keyspace"]
