"""The answer shape a tool's description states, read as a JSON Schema.

Servers generated from Python functions often write what a tool returns as a JSON-like literal
in the docstring, and answer exactly that (as JSON text) though they declare no outputSchema::

    Returns:
        {"ok": true, "task": {id, title, status}, "recovered": [task, ...]} on success,
        or {"ok": false, "error": "task_not_found", "message", "hint"} if the id does not exist.

This module reads such literals, tolerantly: quoted or bare keys, keys with no value, ``true`` /
``false`` / ``null``, numbers, quoted strings (``"<path>"`` is a placeholder), placeholder words
(``N`` a count, ``str`` / ``bool`` a type, ``task`` a shape named elsewhere in the description),
nested ``{...}`` and ``[x, ...]``, alternatives (``str or null``, ``"a"|"b"``), ``task + "extra"``
and parenthesised asides. The first literal that does not report a failure is the success shape;
one with a ``false`` flag (or only error fields) is the failure shape, and the codes it states
(``task_not_found``) are kept. A literal counts only where a sentence or line of the description's
own says it is returned (``Returns: {...}``), or right after such a literal (``... on success, or
{...} if ...``): an argument's example or a bulleted action's ``returns { success }`` is not the tool's.
:func:`named_shapes` unites the shapes a catalog names (``task: {id, title}``), and
:func:`fill_unstated` answers what a shape states but the state does not hold. Pure functions.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any

from .roles import singular

JSONDict = dict[str, Any]

#: Where the description starts saying what comes back.
_RETURNS = re.compile(r"\breturns?\b", re.IGNORECASE)
_TOKEN = re.compile(r"""\s*(?:(?P<ell>\.\.\.|\u2026)|(?P<str>"(?:[^"\\]|\\.){0,160}")|(?P<sq>'[^'\n]*')(?=\s*[:,}\]|])"""
                    r"""|(?P<num>-?\d+(?:\.\d+)?)\b|(?P<word>[A-Za-z_][\w\-]*)|(?P<punct>[{}\[\],:|()+])|(?P<other>\S))""")
_TYPES = {"str": "string", "string": "string", "text": "string", "int": "integer", "integer": "integer",
          "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean", "list": "array",
          "array": "array", "dict": "object", "object": "object"}
#: A placeholder for a number: ``N``, ``M``, ``COUNT``.
_COUNT_WORD = re.compile(r"[A-Z]{1,5}")
#: A stated code (``task_not_found``): a constant worth answering as stated.
_CODE = re.compile(r"[A-Za-z][\w.\-]*")
_ERROR_KEYS = {"error", "errors", "message", "hint", "code", "detail", "details", "error_code", "reason", "msg"}
_MAX_DEPTH = 24
#: How far a stated literal may start from its ``returns`` (``Returns (when x=1): {``).
_GAP = 80
_BULLET = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s")
_SENTENCE = re.compile(r"[.!?;]\s+[A-Za-z]")
#: Marks a count placeholder (``"count": N``) in a described shape.
COUNT = "count placeholder"
_MAX_TOKENS = 20000


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class DescribedReturns:
    """What a description says comes back."""

    #: The success answer's JSON Schema (an object or array schema), when stated.
    success: JSONDict | None
    #: The failure answer's JSON Schema (answered in band, not ``isError``), when stated.
    failure: JSONDict | None
    #: Codes the failures state (``task_not_found``), in order.
    codes: tuple[str, ...] = ()
    #: The shapes the description names (``"task": {id, title}``): what a word like ``task`` stands for.
    names: JSONDict = field(default_factory=dict)


class _Unparsable(Exception):
    pass


def described_returns(description: str) -> DescribedReturns | None:
    """The shapes ``description`` states its answers have; None when it states none."""
    found = _described(description or "")
    return copy.deepcopy(found) if found is not None else None


def failure_answer(returns: DescribedReturns, message: str, noun: str) -> JSONDict | None:
    """A failure ``message`` answered in the stated failure shape: its constants as stated, the code
    the description states for such a failure (else one built from ``noun``), the message; no field
    is invented that the failure does not know (a ``hint``)."""
    schema = returns.failure
    if schema is None:
        return None
    props: JSONDict = schema.get("properties") or {}
    out: JSONDict = {}
    for name, sub in props.items():
        if isinstance(sub, dict) and "const" in sub:
            out[name] = sub["const"]
    message_field = next((f for f in ("message", "detail", "msg", "error_message", "reason") if f in props), None)
    code_field = next((f for f in ("error", "code", "error_code", "status") if f in props and f not in out), None)
    if code_field is not None:
        out[code_field] = _code(returns.codes, message, noun) if message_field is not None else message
    if message_field is not None:
        out[message_field] = message
    if code_field is None and message_field is None:
        return None
    return out


def _code(codes: tuple[str, ...], message: str, noun: str) -> str:
    """The stated code for this failure: one naming its kind (``not_found``), else the only one stated."""
    words = re.sub(r"[^a-z]+", "_", message.lower())
    kind = next((k for k in ("not_found", "already_exists", "exists", "invalid") if k in words), None)
    if kind is not None:
        matching = [c for c in codes if kind in c.lower()]
        if matching:
            return matching[0]
    if len(codes) == 1 or (codes and kind is None):
        return codes[0]
    stem = re.sub(r"\W+", "_", noun.strip().lower()).strip("_") or "item"
    if kind in ("not_found", "already_exists"):
        return f"{stem}_{kind}"
    if kind == "exists":
        return f"{stem}_already_exists"
    return f"invalid_{stem}"


def named_shapes(descriptions: Iterable[str]) -> JSONDict:
    """The shapes a catalog's descriptions name, each the union of the fields any of them states."""
    out: JSONDict = {}
    for description in descriptions:
        found = _described(description or "")
        for name, schema in (found.names if found is not None else {}).items():
            props = out.setdefault(name, {"type": "object", "properties": {}})["properties"]
            for prop, sub in (schema.get("properties") or {}).items():
                props.setdefault(prop, copy.deepcopy(sub))
    return out


def with_names(shape: Any, names: JSONDict) -> Any:
    """``shape`` with each object it holds under a named key (``task``, or the items of ``tasks``)
    stating every field the catalog states for that name."""
    if not isinstance(shape, dict) or not names:
        return shape
    props = shape.get("properties")
    if not isinstance(props, dict):
        return shape
    out = dict(props)
    for name, sub in props.items():
        if not isinstance(sub, dict):
            continue
        if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            named = names.get(singular(name))
            out[name] = {**sub, "items": _merged(with_names(sub["items"], names), named)}
        elif sub.get("type") in ("object", ["object", "null"]):
            out[name] = _merged(with_names(sub, names), names.get(name))
    return {**shape, "properties": out}


def _merged(schema: JSONDict, named: JSONDict | None) -> JSONDict:
    if named is None or schema.get("type") not in ("object", ["object", "null"]):
        return schema
    props = dict(schema.get("properties") or {})
    for prop, sub in named["properties"].items():
        props.setdefault(prop, sub)
    return {**schema, "properties": props}


def fill_unstated(value: Any, shape: Any) -> Any:
    """``value`` with what the described ``shape`` names but the state does not hold: a stated list
    the state does not fill is empty, a field of unknown or nullable type is ``null``, and a count
    placeholder counts its one sibling list. Constants and typed fields are left to conform."""
    if not isinstance(shape, dict):
        return value
    if isinstance(value, list):
        items = shape.get("items")
        return [fill_unstated(v, items) for v in value] if isinstance(items, dict) else value
    props = shape.get("properties")
    if not isinstance(value, dict) or not isinstance(props, dict):
        return value
    out = {k: fill_unstated(v, props.get(k)) for k, v in value.items()}
    for name, sub in props.items():
        if name in out or not isinstance(sub, dict):
            continue
        kind = sub.get("type")
        if kind == "array":
            out[name] = []
        elif not sub or (isinstance(kind, list) and "null" in kind):
            out[name] = None
    lists = [k for k, s in props.items() if isinstance(s, dict) and s.get("type") == "array" and isinstance(out.get(k), list)]
    for name, sub in props.items():
        if isinstance(sub, dict) and sub.get("$comment") == COUNT and len(lists) == 1:
            out[name] = len(out[lists[0]])
    return out


@functools.lru_cache(maxsize=512)
def _described(description: str) -> DescribedReturns | None:
    start = _RETURNS.search(description)
    if start is None or "{" not in description[start.start():] and "[" not in description[start.start():]:
        return None
    region = description[description.rfind("\n", 0, start.start()) + 1:]  # from its line: is it a bullet's?
    tokens = _tokens(region)
    if tokens is None:
        return None
    names: JSONDict = {}
    for _ in range(2):  # the first pass learns the shapes named in the description (``task: {id, ...}``)
        literals = _literals(tokens, region, names)
    success = failure = None
    codes: list[str] = []
    for schema in literals:
        if _is_failure(schema):
            failure = failure or schema
            codes += [c for c in _codes(schema) if c not in codes]
        elif success is None:
            success = schema
    if success is None and failure is None:
        return None
    return DescribedReturns(success, failure, tuple(codes), names)


def _tokens(text: str) -> list[Tok] | None:
    out: list[Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup or "other"
        value = m.group(kind)
        if kind == "sq":
            kind, value = "str", '"' + value[1:-1].replace('"', '\\"') + '"'
        out.append(Tok(kind, value, m.start(kind), m.end()))
        pos = m.end()
        if len(out) > _MAX_TOKENS:
            return None
    return out


def _literals(tokens: list[Tok], region: str, names: JSONDict) -> list[JSONDict]:
    """The ``{...}`` / ``[...]`` literals a return statement states, as JSON Schemas: each follows a
    ``returns`` closely (``Returns: {...}``, ``returns [...]``) or the literal before it (``{...} on
    success, or {...} if ...``); a literal elsewhere (an argument's example, a path's ``{id}``) is not one."""
    found: list[JSONDict] = []
    anchors = [m.end() for m in _RETURNS.finditer(region) if _opens(region, m.start())]
    last = -1
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.text in ("{", "[") and _stated(region, tok.start, anchors, last):
            parser = _Parser(tokens, i, names)
            try:
                schema = parser.value(0)
            except _Unparsable:
                i += 1
                continue
            if _shapely(schema):
                found.append(schema)
                last = tokens[parser.pos - 1].end if parser.pos > 0 else tok.end
            i = max(parser.pos, i + 1)
            continue
        i += 1
    return found


def _opens(region: str, at: int) -> bool:
    """Whether the ``returns`` at ``at`` opens a sentence of the description's own, not of a bulleted
    item (``- add: ... returns only { success }`` says what one action returns, not the tool)."""
    line_start = region.rfind("\n", 0, at) + 1
    if _BULLET.match(region, line_start):
        return False
    before = region[line_start:at].rstrip()
    return not before or before[-1] in ".!?:"


def _stated(region: str, start: int, anchors: list[int], last: int) -> bool:
    """Whether a literal at ``start`` is what a return statement (or the literal before it) says."""
    if start and (region[start - 1].isalnum() or region[start - 1] in "/$_"):  # ``/items/{id}``, ``${x}``
        return False
    since = max([a for a in anchors if a <= start] + [last])
    if since < 0:
        return False
    gap = region[since:start]
    return len(gap) <= _GAP and not _SENTENCE.search(gap)


def _shapely(schema: JSONDict) -> bool:
    if schema.get("type") == "object":
        return bool(schema.get("properties"))
    return schema.get("type") == "array" and _shapely(schema.get("items") or {})


def _is_failure(schema: JSONDict) -> bool:
    props: JSONDict = schema.get("properties") or {}
    if schema.get("type") != "object" or not props:
        return False
    if any(isinstance(p, dict) and p.get("const") is False for p in props.values()):
        return True
    flags = [p for p in props.values() if isinstance(p, dict) and p.get("const") is True]
    return not flags and ("error" in props or "code" in props) and set(props) <= _ERROR_KEYS


def _codes(schema: JSONDict) -> list[str]:
    props: JSONDict = schema.get("properties") or {}
    out: list[str] = []
    for name in ("error", "code", "error_code", "status"):
        sub = props.get(name)
        if isinstance(sub, dict):
            for value in [sub.get("const"), *(sub.get("enum") or [])]:
                if isinstance(value, str) and _CODE.fullmatch(value) and value not in out:
                    out.append(value)
    return out


class _Parser:
    """A forgiving reader of one literal: what it cannot read it skips to the next ``,`` or closer."""

    def __init__(self, tokens: list[Tok], pos: int, names: JSONDict) -> None:
        self.tokens = tokens
        self.pos = pos
        self.names = names

    def peek(self) -> Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Tok:
        tok = self.peek()
        if tok is None:
            raise _Unparsable("the literal does not close")
        self.pos += 1
        return tok

    def value(self, depth: int, in_list: bool = False) -> JSONDict:
        if depth > _MAX_DEPTH:
            raise _Unparsable("nested too deeply")
        schema = self.primary(depth, in_list)
        while True:
            tok = self.peek()
            if tok is None:
                return schema
            if tok.text == "(":
                self.skip_group()
            elif tok.text == "|" or (tok.kind == "word" and tok.text.lower() == "or" and self._value_follows()):
                self.take()
                schema = _either(schema, self.primary(depth, in_list))
            elif tok.text == "+":
                self.take()
                schema = _plus(schema, self.primary(depth, in_list))
            else:
                return schema

    def _value_follows(self) -> bool:
        nxt = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
        return nxt is not None and (nxt.text in ("{", "[") or nxt.kind in ("str", "num")
                                    or (nxt.kind == "word" and (nxt.text.lower() in _WORDS or nxt.text in self.names
                                                                or nxt.text.lower() in _TYPES)))

    def primary(self, depth: int, in_list: bool) -> JSONDict:
        tok = self.take()
        if tok.text == "{":
            return self.obj(depth)
        if tok.text == "[":
            return self.array(depth)
        if tok.kind == "str":
            return _string(tok.text[1:-1])
        if tok.kind == "num":
            return {"type": "number" if "." in tok.text else "integer"}
        if tok.kind == "word":
            return self.word(tok.text, in_list)
        if tok.kind == "ell":
            return {}
        if tok.text == "(":
            self.pos -= 1
            self.skip_group()
            return {}
        raise _Unparsable(f"unexpected {tok.text!r}")

    def word(self, word: str, in_list: bool) -> JSONDict:
        lower = word.lower()
        if lower in _WORDS:
            return copy.deepcopy(_WORDS[lower])
        if lower in _TYPES:
            return {"type": _TYPES[lower]}
        if word in self.names:
            return copy.deepcopy(self.names[word])
        if _COUNT_WORD.fullmatch(word):
            return {"type": "integer", "minimum": 0, "$comment": COUNT}
        return {"type": "object"} if in_list else {}  # ``[task, ...]`` lists things; ``"project": name`` a value

    def obj(self, depth: int) -> JSONDict:
        props: JSONDict = {}
        while True:
            tok = self.take()
            if tok.text == "}":
                break
            if tok.text == ",":
                continue
            if tok.text in ("{", "[", "("):  # a nested literal where a key should be: not a field
                self.pos -= 1
                self.skip_group()
            elif tok.kind in ("str", "word"):
                key = tok.text[1:-1] if tok.kind == "str" else tok.text
                nxt = self.peek()
                if nxt is not None and nxt.text == ":":
                    self.take()
                    sub = self.value(depth + 1)
                    if tok.kind == "word" and sub.get("type") == "object" and sub.get("properties"):
                        self.names.setdefault(key, sub)
                    if tok.kind == "str" and sub.get("type") == "object" and sub.get("properties"):
                        self.names.setdefault(key, sub)
                else:
                    sub = {}
                if key and not key.startswith("<"):
                    props.setdefault(key, sub)
            if self.skip_to((",", "}")) == "}":
                break
        if not props:
            return {"type": "object"}
        return {"type": "object", "properties": props, "required": _required(props)}

    def array(self, depth: int) -> JSONDict:
        tok = self.peek()
        if tok is None:
            raise _Unparsable("the list does not close")
        if tok.text == "]":
            self.take()
            return {"type": "array"}
        if tok.kind == "ell":
            self.take()
            self.skip_to(("]",))
            return {"type": "array"}
        items = self.value(depth + 1, in_list=True)
        self.skip_to(("]",))
        return {"type": "array", "items": items} if items else {"type": "array"}

    def skip_group(self) -> None:
        opener = self.take().text
        closer = {"(": ")", "{": "}", "[": "]"}[opener]
        level = 1
        while level:
            tok = self.take()
            if tok.text == opener:
                level += 1
            elif tok.text == closer:
                level -= 1

    def skip_to(self, stops: tuple[str, ...]) -> str:
        """Skip what cannot be read (asides, prose) to the next of ``stops`` at this level; take it."""
        while True:
            tok = self.take()
            if tok.text in stops:
                return tok.text
            if tok.text in ("(", "{", "["):
                self.pos -= 1
                self.skip_group()
            elif tok.text in (")", "}", "]"):
                raise _Unparsable(f"unbalanced {tok.text!r}")


_WORDS: dict[str, JSONDict] = {"true": {"type": "boolean", "const": True}, "false": {"type": "boolean", "const": False},
                               "null": {"type": "null"}, "none": {"type": "null"}}


def _string(text: str) -> JSONDict:
    if not text or "<" in text or " " in text.strip() or not _CODE.fullmatch(text):
        return {"type": "string"}
    return {"type": "string", "const": text}


def _either(first: JSONDict, second: JSONDict) -> JSONDict:
    """``first or second``: literal strings make an enum; ``null`` makes the other nullable."""
    options = [s for s in _options(first) + _options(second)]
    nullable = any(s.get("type") == "null" for s in options)
    rest = [s for s in options if s.get("type") != "null"]
    if rest and all("const" in s and isinstance(s["const"], str) for s in rest):
        enum: list[Any] = [s["const"] for s in rest] + ([None] if nullable else [])
        return {"type": ["string", "null"] if nullable else "string", "enum": enum}
    if not rest:
        return {"type": "null"}
    base = {k: v for k, v in rest[0].items() if k != "const"} if len(rest) > 1 else dict(rest[0])
    if nullable and isinstance(base.get("type"), str):
        base["type"] = [base["type"], "null"]
    return base


def _options(schema: JSONDict) -> list[JSONDict]:
    if "enum" in schema:
        return [{"type": "null"} if v is None else {"type": "string", "const": v} for v in schema["enum"]]
    return [schema]


def _plus(base: JSONDict, extra: JSONDict) -> JSONDict:
    """``task + "overdue_days"``: the shape with the named field added."""
    out: JSONDict = copy.deepcopy(base) if base.get("type") == "object" else {"type": "object"}
    props: JSONDict = out.setdefault("properties", {})
    added = [extra["const"]] if isinstance(extra.get("const"), str) else list(extra.get("properties") or {})
    for name in added:
        props.setdefault(name, {})
    out["required"] = _required(props)
    return out


def _required(props: JSONDict) -> list[str]:
    """The fields an answer must invent when the state lacks them: constants and typed values. A list,
    a nullable or an untyped field is left out (:func:`fill_unstated` answers it empty or null)."""
    return [k for k, s in props.items() if s and s.get("type") != "array" and not (
        isinstance(s.get("type"), list) and "null" in s["type"])]
