"""How key-value stores' MCP servers word their answers.

A catalog whose entity is nothing but a key and its value (``set(key, value,
expireSeconds)``, ``get(key)``, ``delete(key)``, ``list(pattern)``), with no outputSchema,
is a key-value store; where its descriptions name a key-value database (Redis, Valkey,
Memcached, etcd...), its MCP servers answer in prose, not JSON (recorded from the
Redis MCP server: ``tests/realism/ground_truth/redis.jsonl``): a write says ``Successfully
set key: K``, a read is the bare value, a delete ``Successfully deleted key: K``, a listing
``Found keys:`` and one key a line, and a missing key is an answer, ``Key not found: K``,
not a failure (a store's ``GET`` of a missing key returns nothing, it does not fail).
Only the text changes: the effects are those of the record answer underneath.

A keyspace of typed values (:mod:`.keyspace`) is worded by :func:`keyspace_sentence`: a
write is a sentence naming what it wrote and where (``Field 'email' set successfully in
hash 'user:1'.``), a read of nothing says what is not there, and a command on a key holding
another type carries the store's ``WRONGTYPE`` message (:data:`WRONGTYPE`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...world.roles import ToolRole
from . import records
from ..base import Prediction, Step

JSONDict = dict[str, Any]

_KEY_FIELDS = ("key", "name")
_VALUE_FIELDS = ("value", "val", "data")
_TTL_WORDS = ("expire", "ttl", "expiry", "expiration")
#: Key-value databases whose MCP servers answer in prose; a catalog naming none keeps JSON answers.
_PRODUCTS = re.compile(r"\b(redis|valkey|keydb|memcached?|dragonfly|etcd)\b", re.IGNORECASE)


def is_key_value_store(step: Step, role: ToolRole) -> bool:
    known = records.entity_type(step, role)
    if known is None or step.tool.output_schema or known.key_field not in _KEY_FIELDS:
        return False
    if not step.derived(("kv-product", known.collection), lambda: _names_a_store(step, known.tools)):
        return False
    values = [f for f in known.fields if f in _VALUE_FIELDS]
    others = [f for f in known.fields if f != known.key_field and f not in _VALUE_FIELDS and not any(
        w in f.lower() for w in _TTL_WORDS) and f not in ("created_at", "deleted")]
    return len(values) == 1 and not others


def _names_a_store(step: Step, tools: tuple[str, ...]) -> bool:
    """Whether the entity's tools say they stand for a key-value database (``Set a Redis key-value pair``)."""
    text = " ".join(str((step.world.tool(n) or {}).get("description") or "") for n in tools)
    return bool(_PRODUCTS.search(text))


def worded(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` (the record model's) in the store's words; unchanged when the tool is not such a store's."""
    if not is_key_value_store(step, role):
        return answer
    asked = step.arguments.get(role.key_args[0]) if role.key_args else None
    keys = asked if isinstance(asked, list) else [asked] if asked is not None else []
    shown = ", ".join(str(k) for k in keys)
    if answer.is_error:
        if role.kind == "read" and keys:
            return Prediction(f"Key not found: {shown}", effects=answer.effects)
        return answer
    body = answer.observation
    if role.kind in ("create", "update"):
        return _with(answer, f"Successfully set key: {shown}")
    if role.kind == "delete":
        return _with(answer, f"Successfully deleted key{'s' if len(keys) > 1 else ''}: {shown}")
    if role.kind == "read" and isinstance(body, dict):
        value = next((body[f] for f in _VALUE_FIELDS if f in body), None)
        return _with(answer, value if isinstance(value, str) else json.dumps(value))
    if role.kind in ("list", "search") and isinstance(body, list):
        known = records.entity_type(step, role)
        field = known.key_field if known else "key"
        found = [str(item.get(field)) for item in body if isinstance(item, dict)]
        return _with(answer, "Found keys:\n" + "\n".join(found) if found else "No keys found")
    return answer


#: The store's own message for a typed command on a key holding another type.
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
#: What each value type is called in a sentence.
TYPE_NOUNS = {"string": "key", "hash": "hash", "list": "list", "set": "set", "zset": "sorted set"}

#: Keyspace answers in prose, per command (``missing``: the answer when the key, field or member is not there).
_SENTENCES = {
    "set": "Successfully set {key}{expiry}",
    "get.missing": "Key {key} does not exist",
    "del": "Successfully deleted {key}",
    "del.missing": "Key {key} does not exist",
    "hset": "Field '{field}' set successfully in hash '{key}'.",
    "hget.missing": "Field '{field}' not found in hash '{key}'.",
    "hdel": "Field '{field}' deleted successfully from hash '{key}'.",
    "hdel.missing": "Field '{field}' not found in hash '{key}'.",
    "lpush": "Value '{value}' pushed to the left of list '{key}'.",
    "rpush": "Value '{value}' pushed to the right of list '{key}'.",
    "lpop.missing": "List '{key}' is empty or does not exist.",
    "rpop.missing": "List '{key}' is empty or does not exist.",
    "lrem": "Removed {count} occurrence(s) of '{value}' from list '{key}'.",
    "lset": "Element {index} of list '{key}' set to '{value}'.",
    "sadd": "Value '{value}' added successfully to set '{key}'.",
    "srem": "Value '{value}' removed from set '{key}'.",
    "srem.missing": "Value '{value}' not found in set '{key}'.",
    "zadd": "Successfully added {value} to {key} with score {score}",
    "zrem": "Successfully removed {value} from {key}",
    "zrem.missing": "Member {value} not found in {key}",
    "zscore.missing": "Member {value} not found in {key}",
    "expire": "Expiration set to {ttl} seconds for '{key}'.",
    "expire.missing": "Key {key} does not exist",
    "persist": "Expiration removed from '{key}'.",
    "rename": "Renamed key '{key}' to '{new}'",
    "rename.missing": "Key '{key}' does not exist.",
    "wrongtype": "Error on {noun} '{key}': " + WRONGTYPE,
}


def keyspace_sentence(command: str, *, missing: bool = False, **parts: Any) -> str | None:
    """A keyspace command's answer in prose, or None when the command answers with a value."""
    template = _SENTENCES.get(f"{command}.missing" if missing else command)
    if template is None:
        return None
    ttl = parts.get("ttl")
    values = {"expiry": f" with expiration {ttl} seconds" if ttl is not None else "", "noun": "key", **parts}
    return template.format_map(_Parts({k: "" if v is None else v for k, v in values.items()}))


class _Parts(dict[str, Any]):
    """A sentence's parts; one the call did not give reads as nothing."""

    def __missing__(self, name: str) -> str:
        return ""


def _with(answer: Prediction, text: str) -> Prediction:
    return Prediction(text, is_error=False, effects=answer.effects, info=answer.info)


__all__ = ["TYPE_NOUNS", "WRONGTYPE", "is_key_value_store", "keyspace_sentence", "worded"]
