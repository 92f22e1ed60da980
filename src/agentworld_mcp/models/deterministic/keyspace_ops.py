"""The store commands of a keyspace (:mod:`.keyspace`) run on the episode's keys, and their answers shaped.

Each key is one ledger entity of :data:`COLLECTION`: ``{key, type, value, ttl}``, where a
string is its text, a list and a set their members in order, a hash ``[field, value]`` pairs
and a sorted set ``[member, score]`` pairs (pairs, not objects, so that the ledger does not
take a hash's fields for records of their own). Values are kept as the store keeps them,
as text: ``hset(visits=4)`` reads back ``"4"``. An aggregate left empty is deleted, as the
store deletes it.

The reply is the store's (a value, a list, a count, nil) plus, for writes and reads of
nothing, the sentence :mod:`.kv_text` words it in. :func:`shaped` gives it the tool's
form: the type its result is declared as (a ``-> str`` tool gets a list as the JSON its
description promises, a ``-> bool`` whether it held), the fields an object answer lists,
else prose for writes and the value itself for reads.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...state.ledger import Effect
from ..base import Prediction, Step
from .common import conform
from .kv_text import TYPE_NOUNS, keyspace_sentence
from .wrapping import wrapped_schema

JSONDict = dict[str, Any]
COLLECTION = "keyspace"
#: A write's description saying it answers a number (``Returns the new length``), not a sentence.
_COUNTED = re.compile(r"\breturns? the (?:new |resulting )?(?:length|count|number|size|cardinality)\b", re.IGNORECASE)
#: A description showing that failures come back as an object's ``error`` field.
_ERROR_SHAPE = re.compile(r"""\{\s*["']error["']\s*:""")


@dataclass(frozen=True)
class Command:
    """One tool as a store command: its command word and which argument plays which part."""

    name: str
    type: str
    args: dict[str, str]

    def arg(self, part: str, arguments: JSONDict, default: Any = None) -> Any:
        name = self.args.get(part)
        value = arguments.get(name) if name else None
        return default if value is None else value


@dataclass
class Outcome:
    """What a command did: the store's reply, its sentence when it answers in words, the changes."""

    reply: Any = None
    sentence: str | None = None
    effects: list[Effect] = field(default_factory=list)
    error: str | None = None


class _Call:
    """One call of a command: its arguments by part, the key's current entity, and how to change it."""

    def __init__(self, step: Step, command: Command) -> None:
        self.step, self.command = step, command
        self.key = str(command.arg("key", step.arguments, ""))
        self.held = step.episode.ledger.get(COLLECTION, self.key) if self.key else None

    def part(self, name: str, default: Any = None) -> Any:
        return self.command.arg(name, self.step.arguments, default)

    def ttl(self) -> int | None:
        given = self.part("ttl")
        return int(given) if isinstance(given, (int, float)) and not isinstance(given, bool) else None

    def value(self, kind: str, empty: Any) -> Any:
        """The key's value, ``empty`` when the key is missing; None when it holds another type."""
        if self.held is None:
            return empty
        return self.held.fields.get("value") if self.held.fields.get("type") == kind else None

    def store(self, kind: str, value: Any, *, keep_ttl: bool = True) -> list[Effect]:
        """Effects writing ``value`` under the key (an empty aggregate deletes it, as the store does)."""
        if kind != "string" and not value:
            return [Effect("delete", COLLECTION, self.key)] if self.held is not None else []
        ttl = self.ttl()
        if ttl is None and keep_ttl and self.held is not None:
            ttl = self.held.fields.get("ttl")
        fields = {"key": self.key, "type": kind, "value": value, "ttl": ttl}
        if self.held is not None and self.held.fields.get("type") == kind:
            return [Effect("update", COLLECTION, self.key, {"value": value, "ttl": ttl})]
        return [Effect("create", COLLECTION, self.key, fields)]

    def said(self, command: str, *, missing: bool = False, **parts: Any) -> str | None:
        given = {"key": self.key, "field": self.part("field"), "value": _shown(self.part("value")),
                 "ttl": self.ttl(), "count": self.part("count"), "index": self.part("index"), **parts}
        return keyspace_sentence(command, missing=missing, **given)


def _text(value: Any) -> str:
    """A value as the store keeps it: text (numbers printed, structures as JSON)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _shown(value: Any) -> Any:
    return ", ".join(_text(v) for v in value) if isinstance(value, list) else value


def _many(value: Any) -> list[str]:
    return [_text(v) for v in value] if isinstance(value, list) else [] if value is None else [_text(value)]


def _span(items: list[Any], start: Any, stop: Any) -> list[Any]:
    """``items[start..stop]`` with the store's inclusive, negative-from-the-end indexes."""
    size = len(items)
    first = int(start) if isinstance(start, (int, float)) else 0
    last = int(stop) if isinstance(stop, (int, float)) else -1
    first = max(first + size if first < 0 else first, 0)
    last = last + size if last < 0 else min(last, size - 1)
    return items[first:last + 1] if first <= last else []


def _wrong(call: _Call) -> Outcome:
    noun = TYPE_NOUNS.get(call.command.type, "key")
    return Outcome(error=call.said("wrongtype", noun=noun))


# -- commands, by value type -------------------------------------------------------------------------


def _string(call: _Call, name: str) -> Outcome:
    if name == "set":
        text = _text(call.part("value"))
        return Outcome("OK", call.said("set"), call.store("string", text, keep_ttl=False))
    current = call.value("string", None)
    if call.held is not None and current is None:
        return _wrong(call)
    if name == "get":
        return Outcome(current, call.said("get", missing=True) if current is None else None)
    if name == "strlen":
        return Outcome(len(current or ""))
    if name == "append":
        text = (current or "") + _text(call.part("value", ""))
        return Outcome(len(text), None, call.store("string", text))
    step = call.part("amount", call.part("value", 1))
    try:
        number = int(current or 0) + (int(step) if name == "incr" else -int(step))
    except (TypeError, ValueError):
        return Outcome(error="ERR value is not an integer or out of range")
    return Outcome(number, None, call.store("string", str(number)))


def _hash(call: _Call, name: str) -> Outcome:
    pairs = call.value("hash", [])
    if pairs is None:
        return _wrong(call)
    fields = {str(f): v for f, v in pairs}
    wanted = call.part("field")
    if name in ("hset", "hmset", "hsetnx"):
        given = call.part("value")
        new = {str(k): _text(v) for k, v in given.items()} if isinstance(given, dict) and wanted is None else {
            str(wanted): _text(given)}
        added = sum(k not in fields for k in new)
        if name == "hsetnx" and not added:
            return Outcome(0, call.said("hset"))
        return Outcome(added, call.said("hset"), call.store("hash", [[k, v] for k, v in {**fields, **new}.items()]))
    if name == "hget":
        found = fields.get(str(wanted))
        return Outcome(found, call.said("hget", missing=True) if found is None else None)
    if name == "hdel":
        if str(wanted) not in fields:
            return Outcome(0, call.said("hdel", missing=True))
        rest = [[k, v] for k, v in fields.items() if k != str(wanted)]
        return Outcome(1, call.said("hdel"), call.store("hash", rest))
    if name == "hincrby":
        try:
            number = int(fields.get(str(wanted), 0)) + int(call.part("amount", call.part("value", 1)))
        except (TypeError, ValueError):
            return Outcome(error="ERR hash value is not an integer")
        return Outcome(number, None, call.store("hash", [[k, v] for k, v in {**fields, str(wanted): str(number)}.items()]))
    reads: dict[str, Callable[[], Any]] = {
        "hgetall": lambda: fields, "hexists": lambda: str(wanted) in fields, "hkeys": lambda: list(fields),
        "hvals": lambda: list(fields.values()), "hlen": lambda: len(fields),
        "hmget": lambda: [fields.get(str(f)) for f in _many(wanted)]}
    return Outcome(reads[name]())


def _list(call: _Call, name: str) -> Outcome:
    items = call.value("list", [])
    if items is None:
        return _wrong(call)
    items = list(items)
    if name in ("lpush", "rpush"):
        pushed = _many(call.part("value"))
        items = [*reversed(pushed), *items] if name == "lpush" else [*items, *pushed]
        return Outcome(len(items), call.said(name), call.store("list", items))
    if name in ("lpop", "rpop"):
        if not items:
            return Outcome(None, call.said(name, missing=True))
        popped = items.pop(0 if name == "lpop" else -1)
        return Outcome(popped, None, call.store("list", items))
    if name == "lrange":
        return Outcome(_span(items, call.part("start", 0), call.part("stop", -1)))
    if name == "llen":
        return Outcome(len(items))
    if name == "lindex":
        at = call.part("index", 0)
        index = int(at) if isinstance(at, (int, float)) else 0
        return Outcome(items[index] if -len(items) <= index < len(items) else None)
    if name == "lset":
        at = int(call.part("index", 0))
        if not -len(items) <= at < len(items):
            return Outcome(error="ERR index out of range" if items else "ERR no such key")
        items[at] = _text(call.part("value"))
        return Outcome("OK", call.said("lset"), call.store("list", items))
    if name == "ltrim":
        kept = _span(items, call.part("start", 0), call.part("stop", -1))
        return Outcome("OK", None, call.store("list", kept))
    return _list_remove(call, items)


def _list_remove(call: _Call, items: list[Any]) -> Outcome:
    """``LREM``: ``count`` > 0 from the head, < 0 from the tail, 0 every occurrence."""
    element, count = _text(call.part("value")), int(call.part("count", 0) or 0)
    order = list(range(len(items))) if count >= 0 else list(reversed(range(len(items))))
    gone = [i for i in order if items[i] == element][:abs(count) or None]
    kept = [v for i, v in enumerate(items) if i not in set(gone)]
    effects = call.store("list", kept) if gone else []
    return Outcome(len(gone), call.said("lrem", count=len(gone)), effects)


def _set(call: _Call, name: str) -> Outcome:
    members = call.value("set", [])
    if members is None:
        return _wrong(call)
    given = _many(call.part("value"))
    if name == "sadd":
        new = [m for m in dict.fromkeys(given) if m not in members]
        return Outcome(len(new), call.said("sadd"), call.store("set", [*members, *new]) if new else [])
    if name == "srem":
        kept = [m for m in members if m not in given]
        gone = len(members) - len(kept)
        return Outcome(gone, call.said("srem", missing=not gone), call.store("set", kept) if gone else [])
    if name == "sismember":
        return Outcome(bool(given) and given[0] in members)
    if name == "scard":
        return Outcome(len(members))
    if name == "spop":
        if not members:
            return Outcome(None)
        return Outcome(members[-1], None, call.store("set", members[:-1]))
    return Outcome(sorted(members))  # a set has no order: shown sorted, the same every time


def _zset(call: _Call, name: str) -> Outcome:
    pairs = call.value("zset", [])
    if pairs is None:
        return _wrong(call)
    scores = {str(m): float(s) for m, s in pairs}
    given = call.part("value")
    if name in ("zadd", "zincrby"):
        if isinstance(given, dict):
            new = {str(m): float(s) for m, s in given.items()}
        else:
            score = call.part("score", call.part("amount", 1 if name == "zincrby" else 0))
            try:
                new = {m: float(score) for m in _many(given)}
            except (TypeError, ValueError):
                return Outcome(error="ERR value is not a valid float")
        if name == "zincrby":
            new = {m: scores.get(m, 0.0) + s for m, s in new.items()}
        added = sum(m not in scores for m in new)
        merged = {**scores, **new}
        shown = ", ".join(new)
        score_shown = next(iter(new.values()), None)
        reply = added if name == "zadd" else score_shown
        return Outcome(reply, call.said("zadd", value=shown, score=score_shown),
                       call.store("zset", [[m, s] for m, s in merged.items()]))
    ranked = sorted(scores.items(), key=lambda pair: (pair[1], pair[0]))
    member = _text(given) if given is not None else None
    if name == "zrem":
        gone = [m for m in _many(given) if m in scores]
        kept = [[m, s] for m, s in scores.items() if m not in gone]
        return Outcome(len(gone), call.said("zrem", missing=not gone), call.store("zset", kept) if gone else [])
    if name == "zscore":
        found = scores.get(str(member))
        return Outcome(found, call.said("zscore", missing=True) if found is None else None)
    if name == "zcard":
        return Outcome(len(scores))
    if name in ("zrank", "zrevrank"):
        order = [m for m, _ in (ranked if name == "zrank" else list(reversed(ranked)))]
        return Outcome(order.index(str(member)) if member in order else None)
    if name in ("zrangebyscore", "zcount"):
        low, high = _bound(call.part("start"), float("-inf")), _bound(call.part("stop"), float("inf"))
        within = [(m, s) for m, s in ranked if low <= s <= high]
        return Outcome(len(within)) if name == "zcount" else _ranked(call, within)
    by_rank = ranked if name == "zrange" else list(reversed(ranked))
    return _ranked(call, _span(by_rank, call.part("start", 0), call.part("stop", -1)))


def _bound(value: Any, default: float) -> float:
    try:
        return float(str(value).lstrip("(")) if value not in (None, "") else default
    except ValueError:
        return default


def _ranked(call: _Call, pairs: list[tuple[str, float]]) -> Outcome:
    return Outcome([[m, s] for m, s in pairs] if call.part("scores") is True else [m for m, _ in pairs])


def _keyspace(call: _Call, name: str) -> Outcome:
    ledger = call.step.episode.ledger
    held = call.held
    ttl = held.fields.get("ttl") if held is not None else None
    if name in ("del", "unlink"):
        keys = [k for k in _many(call.part("key")) if ledger.get(COLLECTION, k) is not None]
        effects = [Effect("delete", COLLECTION, k) for k in keys]
        return Outcome(len(keys), call.said("del", missing=not keys), effects)
    if name == "exists":
        return Outcome(sum(ledger.get(COLLECTION, k) is not None for k in _many(call.part("key"))))
    if name == "type":
        return Outcome(held.fields.get("type") if held is not None else "none")
    if name in ("ttl", "pttl"):
        return Outcome(-2 if held is None else -1 if ttl is None else int(ttl) * (1000 if name == "pttl" else 1))
    if name in ("expire", "pexpire", "persist"):
        if held is None:
            return Outcome(0, call.said("expire", missing=True))
        seconds = None if name == "persist" else call.ttl()
        return Outcome(1, call.said(name if name != "pexpire" else "expire"),
                       [Effect("update", COLLECTION, call.key, {"ttl": seconds})])
    if name == "rename":
        old, new = str(call.part("old", "")), str(call.part("new", ""))
        source = ledger.get(COLLECTION, old)
        if source is None:
            return Outcome(error=call.said("rename", missing=True, key=old))
        moved = {**source.fields, "key": new}
        effects = [Effect("delete", COLLECTION, new)] if ledger.get(COLLECTION, new) is not None else []
        return Outcome("OK", call.said("rename", key=old, new=new),
                       [*effects, Effect("move", COLLECTION, old, moved, new_key=new)])
    keys = [e.key for e in ledger.items(COLLECTION)]
    if name == "dbsize":
        return Outcome(len(keys))
    pattern = str(call.part("pattern", "*") or "*")
    if call.command.args.get("pattern") == "prefix" and not any(c in pattern for c in "*?["):
        pattern += "*"
    return Outcome([k for k in keys if fnmatch.fnmatchcase(k, pattern)])


_FAMILIES: dict[str, Callable[[_Call, str], Outcome]] = {
    "string": _string, "hash": _hash, "list": _list, "set": _set, "zset": _zset, "key": _keyspace}


def run(step: Step, command: Command) -> Outcome:
    return _FAMILIES[command.type](_Call(step, command), command.name)


# -- answers in the tool's form ----------------------------------------------------------------------


def answer(step: Step, command: Command) -> Prediction:
    """The store's answer to ``step``, shaped as the tool answers, with the effects of the command."""
    outcome = run(step, command)
    if outcome.error is not None:
        original = step.world.tool(step.tool.name) or step.tool.definition
        if "object" in _kinds(wrapped_schema(original) or {}) and _ERROR_SHAPE.search(str(original.get("description"))):
            return Prediction({"error": outcome.error}, effects=[])  # 'On error: {"error": "..."}'
        return Prediction(outcome.error, is_error=True, effects=[])
    return Prediction(shaped(step, command, outcome), effects=outcome.effects)


def shaped(step: Step, command: Command, outcome: Outcome) -> Any:
    original = step.world.tool(step.tool.name) or step.tool.definition
    result = wrapped_schema(original)
    if step.tool.output_schema and result is None:
        return _structured(step, command, outcome, step.tool.output_schema)
    kinds = _kinds(result) if result is not None else set()
    reply = outcome.reply
    if "object" in kinds and command.name in ("type", "rename", "keys", "scan", "dbsize"):
        return _record(step, command, outcome, original)
    if isinstance(reply, (list, dict)):
        as_json = re.search(r"\bJSON\b", str(original.get("description") or "")) is not None
        if "string" in kinds and (as_json or not kinds & {"array" if isinstance(reply, list) else "object"}):
            # "Returns: str: A JSON string containing the list"; else a Python server's ``str(reply)``
            return json.dumps(reply) if as_json else repr(_python(reply, pairs=command.type == "zset"))
        return reply
    if "boolean" in kinds and not ({"string"} & kinds and outcome.sentence):
        return bool(reply) if isinstance(reply, (bool, int)) else outcome.sentence is not None
    if kinds & {"integer", "number"} and isinstance(reply, (int, float)) and not isinstance(reply, bool):
        return reply
    if outcome.sentence is not None and not (isinstance(reply, int) and _COUNTED.search(str(original.get("description")))):
        return outcome.sentence
    if isinstance(reply, bool):
        return reply if kinds & {"boolean"} else str(reply).lower()
    if isinstance(reply, float):
        return reply if kinds & {"number"} else repr(reply)
    return reply if reply is None or kinds & {"integer", "number"} else str(reply)


def _python(reply: Any, *, pairs: bool) -> Any:
    """The reply as the Python client holds it: a sorted set's ``(member, score)`` pairs are tuples."""
    if pairs and isinstance(reply, list):
        return [tuple(item) if isinstance(item, list) else item for item in reply]
    return reply


def _kinds(schema: JSONDict) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    found: set[str] = set()
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(branch, dict):
            found |= _kinds(branch)
    return found


def _record(step: Step, command: Command, outcome: Outcome, original: JSONDict) -> JSONDict:
    """An object answer of a keyspace command: the key's type record, the rename's status, the scan's batch."""
    reply = outcome.reply
    if command.name == "type":
        held = step.episode.ledger.get(COLLECTION, str(command.arg("key", step.arguments, "")))
        ttl = (held.fields.get("ttl") if held is not None else None)
        return {"key": command.arg("key", step.arguments), "type": reply,
                "ttl": -2 if held is None else -1 if ttl is None else ttl}
    if command.name == "rename":
        return {"status": "success", "message": outcome.sentence}
    if command.name == "dbsize":
        return {"size": reply}
    return _batch(reply if isinstance(reply, list) else [], str(original.get("description") or ""))


#: ``- 'cursor': Next cursor position``: a field a description lists for an answer.
_LISTED = re.compile(r"^\s*[-*]\s*['\"`]?([A-Za-z_][A-Za-z0-9_]*)['\"`]?\s*:", re.MULTILINE)


def _batch(keys: list[str], description: str) -> JSONDict:
    """One scan's answer: the fields its description lists (``cursor``, ``keys``, counts, done), else the
    store's own two (the next cursor, 0 when complete, and the keys)."""
    listed = _LISTED.findall(description) or ["cursor", "keys"]
    body: JSONDict = {}
    for name in listed:
        lowered = name.lower()
        if "cursor" in lowered:
            body[name] = 0  # everything in one batch: the scan is complete
        elif "key" in lowered or "item" in lowered:
            body[name] = keys
        elif any(w in lowered for w in ("total", "count", "scanned", "size")):
            body[name] = len(keys)
        elif any(w in lowered for w in ("complete", "done", "finished")):
            body[name] = True
    return body


def _structured(step: Step, command: Command, outcome: Outcome, schema: JSONDict) -> Any:
    """A typed answer: each declared field from what the command determines, the rest generated."""
    reply = outcome.reply
    body: JSONDict = {}
    for name, sub in (schema.get("properties") or {}).items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        lowered = name.lower()
        if name in command.args.values():
            body[name] = step.arguments.get(name)
        elif lowered in ("success", "ok") and kind == "boolean":
            body[name] = True
        elif lowered in ("message", "status") and outcome.sentence is not None:
            body[name] = outcome.sentence
        elif kind == "array" and isinstance(reply, list) or kind == "object" and isinstance(reply, dict):
            body[name] = reply
        elif lowered in ("value", "result", "data", "type") and not isinstance(reply, (list, dict)):
            body[name] = reply
        elif kind in ("integer", "number") and isinstance(reply, (int, float)) and not isinstance(reply, bool):
            body[name] = reply
        elif kind == "boolean" and isinstance(reply, (bool, int)):
            body[name] = bool(reply)
    return conform(body, schema, step.rng)


__all__ = ["COLLECTION", "Command", "Outcome", "answer", "run", "shaped"]
