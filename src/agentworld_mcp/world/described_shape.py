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
and parenthesised asides (the LALR grammar ``data/described_literal.lark``). The first literal
that does not report a failure is the success shape (a description with no literal may state the shape
in words: :mod:`.described_prose`);
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
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from lark import Lark, Token
from lark.visitors import Transformer_NonRecursive
from lark.exceptions import LarkError, UnexpectedToken

from .roles import singular

JSONDict = dict[str, Any]

#: Where the description starts saying what comes back.
_RETURNS = re.compile(r"\breturns?\b", re.IGNORECASE)
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
#: Bounds on a description's tokens and on those read as literals in all (literals nested in a
#: literal that never closes are each read to the end): a huge description reads quickly.
_MAX_TOKENS = 20000
_MAX_READ = 20000


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
    found = _literal(description)
    if found is None:  # no literal: a statement in words (``Dict with success status and link_id``)
        from .described_prose import prose_returns

        prose = prose_returns(description)
        found = DescribedReturns(*prose) if prose is not None else None
    return found


def _literal(description: str) -> DescribedReturns | None:
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


def _tokens(text: str) -> list[Token] | None:
    try:
        tokens = list(itertools.islice(_grammar().lex(text), _MAX_TOKENS + 1))
    except LarkError:
        return None
    return tokens if len(tokens) <= _MAX_TOKENS else None


@functools.cache
def _grammar() -> Lark:
    text = resources.files(__package__).joinpath("data", "described_literal.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="basic")


def _literals(tokens: list[Token], region: str, names: JSONDict) -> list[JSONDict]:
    """The ``{...}`` / ``[...]`` literals a return statement states, as JSON Schemas: each follows a
    ``returns`` closely (``Returns: {...}``, ``returns [...]``) or the literal before it (``{...} on
    success, or {...} if ...``); a literal elsewhere (an argument's example, a path's ``{id}``) is not one."""
    found: list[JSONDict] = []
    anchors = [m.end() for m in _RETURNS.finditer(region) if _opens(region, m.start())]
    last = -1
    budget = _MAX_READ
    i = 0
    while i < len(tokens) and budget > 0:
        tok = tokens[i]
        if tok.type in ("_LBRACE", "_LSQB") and _stated(region, tok.start_pos or 0, anchors, last):
            schema, end = _read(tokens, i, names, budget)
            budget -= end - i
            if schema is None:  # not a literal after all: one may open inside it
                i += 1
                continue
            if _shapely(schema):
                found.append(schema)
                last = tokens[end - 1].end_pos or 0
            i = max(end, i + 1)
            continue
        i += 1
    return found


def _read(tokens: list[Token], start: int, names: JSONDict, budget: int) -> tuple[JSONDict | None, int]:
    """The literal opening at ``tokens[start]`` and the index just past it (what follows cannot continue
    it); None for a literal that does not read (it never closes, or nests too deeply) or reads past
    ``budget`` tokens, with how far it was read."""
    grammar = _grammar()
    cursor = grammar.parse_interactive()
    fed: list[Token] = []
    end = start
    try:
        while end < len(tokens):
            if end - start >= budget:
                return None, end
            tok = _typed(tokens, end, names)
            if tok.type not in cursor.choices():
                break
            try:
                cursor.feed_token(tok)
            except UnexpectedToken:  # an LALR parser may reduce before it refuses a token: read again
                cursor = grammar.parse_interactive()
                for done in fed:
                    cursor.feed_token(done)
                break
            fed.append(tok)
            end += 1
        tree = cursor.feed_eof(fed[-1])
        return _Reader(names).transform(tree), end
    except (LarkError, _Unparsable):
        return None, end


def _typed(tokens: list[Token], at: int, names: JSONDict) -> Token:
    """``tokens[at]``, as OR where it is an ``or`` that a value follows (``str or null``), not prose."""
    tok = tokens[at]
    if tok.type != "WORD" or tok.value.lower() != "or" or at + 1 >= len(tokens):
        return tok
    nxt = tokens[at + 1]
    if nxt.type in ("_LBRACE", "_LSQB", "STR", "SQ", "NUM") or nxt.type == "WORD" and (
            nxt.value.lower() in _WORDS or nxt.value in names or nxt.value.lower() in _TYPES):
        return Token.new_borrow_pos("OR", tok.value, tok)
    return tok


@dataclass
class _Shape:
    """A read object or list (or a word's known shape), and how deeply values nest in it."""

    schema: JSONDict
    height: int = 0


@dataclass
class _Value:
    """A value as read: its first part, then ``("either" | "plus", part)`` links. Read only where it
    stands, since a word nothing names is an object in a list (``[task, ...]``) and anything elsewhere."""

    first: Any
    links: list[tuple[str, Any]]
    height: int

    def schema(self, in_list: bool) -> JSONDict:
        schema = _part(self.first, in_list)
        for op, part in self.links:
            schema = (_either if op == "either" else _plus)(schema, _part(part, in_list))
        return schema


@dataclass
class _Field:
    key: str
    schema: JSONDict
    height: int


_UNKNOWN = object()  # a word naming nothing known
_ASIDE = object()  # ``( ... )``


def _part(part: Any, in_list: bool) -> JSONDict:
    if isinstance(part, _Shape):
        return part.schema
    if part is _UNKNOWN:
        return {"type": "object"} if in_list else {}
    if isinstance(part, Token) and part.type in ("STR", "SQ"):
        return _string(_unquoted(part))
    if isinstance(part, Token) and part.type == "NUM":
        return {"type": "number" if "." in part.value else "integer"}
    return {}  # ``...``, an aside


def _unquoted(tok: Token) -> str:
    return tok.value[1:-1].replace('"', '\\"') if tok.type == "SQ" else tok.value[1:-1]


class _Reader(Transformer_NonRecursive[Token, Any]):
    """Builds a literal's JSON Schema from its parse tree, left to right, learning the shapes its
    fields name (``"task": {id, title}``) as it goes, so that a later ``[task, ...]`` reads them."""

    def __init__(self, names: JSONDict) -> None:
        super().__init__()
        self.names = names

    def start(self, children: list[Any]) -> JSONDict:
        return children[0].schema(False)

    def value(self, children: list[Any]) -> _Value:
        links = [c for c in children[1:] if c is not _ASIDE]
        parts = [children[0], *(part for _, part in links)]
        height = max((p.height for p in parts if isinstance(p, _Shape)), default=0)
        if height > _MAX_DEPTH:
            raise _Unparsable("nested too deeply")
        return _Value(children[0], links, height)

    ivalue = value

    def word(self, children: list[Token]) -> Any:
        word = children[0].value
        lower = word.lower()
        if lower in _WORDS:
            return _Shape(copy.deepcopy(_WORDS[lower]))
        if lower in _TYPES:
            return _Shape({"type": _TYPES[lower]})
        if word in self.names:
            return _Shape(copy.deepcopy(self.names[word]))
        if _COUNT_WORD.fullmatch(word):
            return _Shape({"type": "integer", "minimum": 0, "$comment": COUNT})
        return _UNKNOWN

    def either(self, children: list[Any]) -> tuple[str, Any]:
        return ("either", children[-1])

    def plus(self, children: list[Any]) -> tuple[str, Any]:
        return ("plus", children[-1])

    def aside(self, children: list[Any]) -> object:
        return _ASIDE

    def key(self, children: list[Token]) -> str:
        return _unquoted(children[0]) if children[0].type in ("STR", "SQ") else children[0].value

    def pair(self, children: list[Any]) -> _Field:
        key, value = children[0], children[1]
        sub = value.schema(False)
        if sub.get("type") == "object" and sub.get("properties"):
            self.names.setdefault(key, sub)
        return _Field(key, sub, 1 + value.height)

    def bare(self, children: list[Any]) -> _Field:
        return _Field(children[0], {}, 0)

    def obj(self, children: list[Any]) -> _Shape:
        fields = [c for c in children if isinstance(c, _Field)]
        props: JSONDict = {}
        for f in fields:
            if f.key and not f.key.startswith("<"):
                props.setdefault(f.key, f.schema)
        height = max((f.height for f in fields), default=0)
        if not props:
            return _Shape({"type": "object"}, height)
        return _Shape({"type": "object", "properties": props, "required": _required(props)}, height)

    def arr(self, children: list[Any]) -> _Shape:
        if not children or not isinstance(children[0], _Value):  # ``[]``, ``[..., x]``
            return _Shape({"type": "array"})
        items = children[0].schema(True)
        return _Shape({"type": "array", "items": items} if items else {"type": "array"}, 1 + children[0].height)


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
