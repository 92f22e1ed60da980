"""Realistic, seeded values for a JSON Schema.

Used by the deterministic world model for fields it has to invent (a new issue's
``created_at``, a user's ``email``). Respects ``type``, ``format``, ``enum``/``const``,
``pattern`` (simple ones), min/max bounds and ``required``; field names steer the kind
of value (``email``, ``url``, ``*_at``, ``id``). Same generator state, same value.
"""

from __future__ import annotations

import copy
import datetime as dt
import random
import re
import string
import uuid
from typing import Any

JSONDict = dict[str, Any]

_EPOCH = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
_FIRST = ("Ada", "Grace", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger")
_LAST = ("Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie", "Allen", "Dijkstra")
_WORDS = ("alpha", "beacon", "cobalt", "delta", "ember", "falcon", "granite", "harbor", "indigo", "juniper",
          "kestrel", "lumen", "meridian", "nova", "orchid", "prism", "quartz", "ridge", "summit", "tundra")
_SENTENCES = (
    "Investigate the intermittent failure reported by the nightly job.",
    "Update the onboarding guide with the new setup steps.",
    "Customer reports that exports time out for large accounts.",
    "Refactor the billing module to use the shared client.",
    "Document the retry policy for the public API.",
)
_MAX_DEPTH = 6


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list,
    "null": type(None)}


def of_json_type(value: Any, kind: str) -> bool:
    """Whether ``value`` is a JSON ``kind`` (a bool is only a boolean); any value for a kind not named here."""
    expected = _JSON_TYPES.get(kind)
    if expected is None:
        return True
    if kind != "boolean" and isinstance(value, bool):
        return False
    return isinstance(value, expected)


def leaves(value: Any) -> list[Any]:
    """Every scalar of a JSON value, at any depth, in order."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in leaves(v)]
    return [value]


def same_value(a: Any, b: Any) -> bool:
    """Equal and of one type: ``1`` is not ``True``, ``"1"`` is not ``1``."""
    return type(a) is type(b) and a == b


def _of_declared_type(value: Any, schema: JSONDict) -> bool:
    """Whether ``value`` is of a type ``schema`` declares (any value where it declares none)."""
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
    if not names:
        return True
    if schema.get("nullable") is True and value is None:  # OpenAPI 3.0's way of allowing null
        return True
    return any(of_json_type(value, n) for n in names if isinstance(n, str))


def stated_default(schema: Any) -> tuple[bool, Any]:
    """``(True, value)`` where ``schema`` states a default of its own type, else ``(False, None)``: a field an
    answer lacks has the value its schema says it has when absent, not an invented one."""
    if isinstance(schema, dict) and "default" in schema and _of_declared_type(schema["default"], schema):
        return True, copy.deepcopy(schema["default"])
    return False, None


def timestamp(rng: random.Random) -> str:
    moment = _EPOCH + dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 300))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(schema: Any, rng: random.Random, name: str = "", *, root: JSONDict | None = None, depth: int = 0) -> Any:
    """A value that validates against ``schema`` (for the schema features listed above)."""
    if schema is True or not isinstance(schema, dict):
        return _by_name(name, rng) if name else "value"
    root = root if root is not None else schema
    if "$ref" in schema:
        target = _resolve(schema["$ref"], root)
        if target is not None and depth < _MAX_DEPTH:
            return generate(target, rng, name, root=root, depth=depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return rng.choice(schema["enum"])
    if "default" in schema and _of_declared_type(schema["default"], schema) and rng.random() < 0.5:
        return schema["default"]  # ``{"type": "string", "default": null}`` is common, and its null is no string
    for combo in ("oneOf", "anyOf"):
        if schema.get(combo):
            options = [s for s in schema[combo] if not (isinstance(s, dict) and s.get("type") == "null")]
            return generate((options or schema[combo])[0], rng, name, root=root, depth=depth + 1)
    if schema.get("allOf"):
        merged: JSONDict = {}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                merged = _merge(merged, part)
        return generate(merged, rng, name, root=root, depth=depth + 1)
    kind = _type_of(schema)
    if kind == "object":
        return _object(schema, rng, root, depth)
    if kind == "array":
        return _array(schema, rng, name, root, depth)
    if kind == "integer":
        return _number(schema, rng, name, integer=True)
    if kind == "number":
        return _number(schema, rng, name, integer=False)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string(schema, rng, name)


def _type_of(schema: JSONDict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind:
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def _object(schema: JSONDict, rng: random.Random, root: JSONDict, depth: int) -> JSONDict:
    props: JSONDict = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    out: JSONDict = {}
    for key, sub in props.items():
        # Deep optional structure is noise; keep what is required plus shallow optional fields.
        if key in required or depth < 2:
            out[key] = generate(sub, rng, key, root=root, depth=depth + 1)
    return out


def _array(schema: JSONDict, rng: random.Random, name: str, root: JSONDict, depth: int) -> list[Any]:
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", max(low, 3)))
    count = min(max(low, 1 if depth < _MAX_DEPTH else 0), high) if high >= low else low
    if depth < 3 and high > count:
        count = rng.randint(count, min(high, count + 2))
    item_name = name[:-1] if name.endswith("s") else name
    items = [generate(schema.get("items", {}), rng, item_name, root=root, depth=depth + 1) for _ in range(count)]
    if schema.get("uniqueItems"):
        unique: list[Any] = []
        for item in items:
            if item not in unique:
                unique.append(item)
        items = unique
    return items


#: Words of a number's name that make it a ratio near one (an exchange rate is not 604.48).
_RATIO_WORDS = frozenset({"rate", "ratio", "factor", "multiplier"})
#: Words of a number's name that make it a count of things, a whole number (``number`` of replacements).
_COUNT_WORDS = frozenset({"count", "num", "number", "occurrences", "replacements"})


def _number(schema: JSONDict, rng: random.Random, name: str, *, integer: bool) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum", None))
    high = schema.get("maximum", schema.get("exclusiveMaximum", None))
    lname = name.lower()
    if high is None and (low is None or low <= 0) and not integer and "multipleOf" not in schema:
        named = set(re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower()))
        if named & _RATIO_WORDS and not named & {"limit", "heart", "tax", "interest"}:
            return round(rng.uniform(0.5, 1.5), 4)
        if named & _COUNT_WORDS and not named & {"phone", "card", "account", "version", "serial"}:
            return rng.randint(0, 20)
    if low is None:
        low = 1 if any(k in lname for k in ("id", "count", "number", "size", "total", "page")) else 0
    if high is None:
        high = low + (100 if "count" in lname or "total" in lname else 1000)
    if "exclusiveMinimum" in schema and not isinstance(schema["exclusiveMinimum"], bool):
        low = schema["exclusiveMinimum"] + (1 if integer else 1e-6)
    if "exclusiveMaximum" in schema and not isinstance(schema["exclusiveMaximum"], bool):
        high = schema["exclusiveMaximum"] - (1 if integer else 1e-6)
    if integer:
        value = rng.randint(int(low), int(max(low, high)))
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            value = max(int(low), value - value % step)
            value = value if value >= low else value + step
        return value
    return round(rng.uniform(float(low), float(max(low, high))), 2)


def _string(schema: JSONDict, rng: random.Random, name: str) -> str:
    fmt = schema.get("format")
    value = _by_format(fmt, rng) if fmt else None
    if value is None and schema.get("pattern"):
        value = _from_pattern(schema["pattern"], rng) or _sampled(schema["pattern"], rng)
    if value is None and isinstance(schema.get("description"), str):
        from .stated_values import listed  # ``Type of IP ('ipv4' or 'ipv6')``: a word the service takes

        words = listed(schema["description"])
        value = rng.choice(words) if words else None
    if value is None:
        value = _by_name(name, rng)
    low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
    if len(value) < low:
        value = value + "x" * (low - len(value))
    if high is not None and len(value) > int(high):
        value = value[: int(high)]
    return value


def _by_format(fmt: str, rng: random.Random) -> str | None:
    if fmt == "date-time":
        return timestamp(rng)
    if fmt == "date":
        return timestamp(rng)[:10]
    if fmt == "time":
        return timestamp(rng)[11:19] + "Z"
    if fmt == "email":
        return f"{rng.choice(_FIRST).lower()}.{rng.choice(_LAST).lower()}@example.com"
    if fmt in ("uri", "url", "iri", "uri-reference"):
        return f"https://example.com/{rng.choice(_WORDS)}/{rng.randrange(1, 10_000)}"
    if fmt == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if fmt in ("hostname", "idn-hostname"):
        return f"{rng.choice(_WORDS)}.example.com"
    if fmt == "ipv4":
        return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    if fmt == "ipv6":
        return "2001:db8::" + format(rng.randrange(1, 0xFFFF), "x")
    if fmt == "duration":
        return f"PT{rng.randrange(1, 90)}M"
    return None


def _by_name(name: str, rng: random.Random) -> str:
    n = name.lower()
    if "email" in n:
        return _by_format("email", rng)  # type: ignore[return-value]
    if n.endswith(("_at", "at", "date", "time", "timestamp")) and n not in ("format", "stat", "chat"):
        return timestamp(rng)
    if "url" in n or "uri" in n or "link" in n or "href" in n:
        return _by_format("uri", rng)  # type: ignore[return-value]
    if n in ("uuid", "guid") or n.endswith("_uuid"):
        return _by_format("uuid", rng)  # type: ignore[return-value]
    if n == "id" or n.endswith(("_id", "id")):
        return f"{n.removesuffix('_id').removesuffix('id')[:3] or 'id'}_{rng.getrandbits(40):010x}"
    if n in ("path", "file", "filepath") or n.endswith("path"):
        return f"/workspace/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.txt"
    if n in ("author", "assignee", "owner", "user", "username", "login", "creator", "reporter"):
        return f"{rng.choice(_FIRST).lower()}{rng.randrange(10, 99)}"
    if n in ("name", "full_name", "fullname", "display_name"):
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    if n in ("title", "subject", "summary", "headline"):
        return f"{rng.choice(_WORDS).capitalize()} {rng.choice(_WORDS)} follow-up"
    if n in ("description", "body", "content", "text", "message", "comment", "note", "details"):
        return rng.choice(_SENTENCES)
    if n in ("status", "state"):
        return rng.choice(("open", "active", "pending"))
    if n in ("phone", "phone_number"):
        return f"+1-555-{rng.randrange(100, 999)}-{rng.randrange(1000, 9999)}"
    if n in ("city",):
        return rng.choice(("Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi"))
    if n in ("country",):
        return rng.choice(("PT", "NO", "JP", "US", "KE"))
    if n in ("currency",):
        return rng.choice(("USD", "EUR", "JPY"))
    if n in ("color", "colour"):
        return rng.choice(("red", "green", "blue"))
    if n in ("sha", "hash", "commit", "etag", "checksum"):
        return format(rng.getrandbits(160), "040x")
    return f"{rng.choice(_WORDS)}-{rng.randrange(100, 999)}"


_CLASSES = {"\\d": string.digits, "\\w": string.ascii_lowercase + string.digits, "[a-z]": string.ascii_lowercase,
            "[A-Z]": string.ascii_uppercase, "[0-9]": string.digits, "[a-zA-Z]": string.ascii_letters,
            "[a-z0-9]": string.ascii_lowercase + string.digits, "[A-Z0-9]": string.ascii_uppercase + string.digits,
            ".": string.ascii_lowercase}
_TOKEN = re.compile(r"(\\d|\\w|\[[^\]]+\]|\.|\\.|[^\\\[\]{}()*+?|^$])(\{(\d+)(?:,(\d*))?\}|\+|\*|\?)?")


def _sampled(pattern: str, rng: random.Random) -> str | None:
    """Patterns with groups and alternatives, from the regex parser's tree (:mod:`.pattern_sample`)."""
    from .pattern_sample import sample

    value = sample(pattern, rng)
    return value if value is not None and re.search(pattern, value) else None


def _from_pattern(pattern: str, rng: random.Random) -> str | None:
    """Strings for simple anchored patterns (``^[A-Z]{3}-\\d+$``); None for anything fancier."""
    body = pattern.removeprefix("^").removesuffix("$")
    if any(ch in body for ch in "()|"):
        return None
    out, pos = [], 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if not m:
            return None
        atom, quant, low, high = m.group(1), m.group(2), m.group(3), m.group(4)
        if atom in _CLASSES:
            alphabet = _CLASSES[atom]
        elif atom.startswith("["):
            alphabet = _expand_class(atom[1:-1])
            if not alphabet:
                return None
        else:
            alphabet = atom[-1]
        if quant is None:
            count = 1
        elif quant == "+":
            count = rng.randint(1, 4)
        elif quant == "*":
            count = rng.randint(0, 3)
        elif quant == "?":
            count = rng.randint(0, 1)
        else:
            lo = int(low)
            hi = int(high) if high else (lo if high is None else lo + 3)
            count = rng.randint(lo, hi)
        out.append("".join(rng.choice(alphabet) for _ in range(count)))
        pos = m.end()
    value = "".join(out)
    return value if re.search(pattern, value) else None


def _expand_class(spec: str) -> str:
    if spec.startswith("^"):
        return ""
    chars: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            chars.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        elif spec[i] == "\\" and i + 1 < len(spec):
            chars.extend(_CLASSES.get(spec[i : i + 2], spec[i + 1]))
            i += 2
        else:
            chars.append(spec[i])
            i += 1
    return "".join(chars)


def _resolve(ref: str, root: JSONDict) -> Any:
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _merge(a: JSONDict, b: JSONDict) -> JSONDict:
    out = {**a, **b}
    if "properties" in a and "properties" in b:
        out["properties"] = {**a["properties"], **b["properties"]}
    if "required" in a and "required" in b:
        out["required"] = sorted(set(a["required"]) | set(b["required"]))
    return out
