"""What a realism check looks at, and the small predicates episodes are written with.

An :class:`Answer` is one ``tools/call`` result as a client sees it: the text block, the
``structuredContent``, and ``data``, the JSON a client would parse out of it (the structured
content, the JSON inside a FastMCP ``{"result": "..."}`` wrapper, or the text block when it
is JSON). Predicates take the answer and the episode so far (:class:`Context`) and return
``None`` when the expectation holds, or the reason it does not.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]
#: Wrapper keys FastMCP and similar SDKs put a whole answer under.
_WRAP_KEYS = ("result",)
_GONE = re.compile(r"not[ _-]?found|no such|does not exist|doesn't exist|404|deleted|archived|unknown|invalid",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """One tool result as a client reads it."""

    is_error: bool
    text: str
    structured: Any = None

    @property
    def data(self) -> Any:
        """The JSON a client parses from the answer (``None`` when there is none)."""
        if isinstance(self.structured, dict):
            inner = _unwrap(self.structured)
            if inner is not None:
                return inner
            return self.structured
        return parse_json(self.text)

    @classmethod
    def of(cls, raw: JSONDict) -> Answer:
        """From a ``CallToolResult`` as JSON (what the recorder stores, what the SDK dumps)."""
        texts = [c.get("text", "") for c in raw.get("content", []) if c.get("type") == "text"]
        return cls(bool(raw.get("isError")), "\n".join(texts), raw.get("structuredContent"))


def _unwrap(structured: JSONDict) -> Any:
    """The answer inside a one-key ``{"result": "<json>"}`` wrapper, parsed; else ``None``."""
    if len(structured) == 1 and next(iter(structured)) in _WRAP_KEYS:
        value = next(iter(structured.values()))
        parsed = parse_json(value) if isinstance(value, str) else value
        return parsed if parsed is not None else value
    return None


def parse_json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# -- looking into JSON ------------------------------------------------------------------------


def walk(data: Any) -> Iterator[JSONDict]:
    """Every object in ``data``, outermost first (breadth first)."""
    queue = [data]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict):
            yield node
            queue.extend(node.values())
        elif isinstance(node, list):
            queue.extend(node)


def find(data: Any, key: str) -> Any:
    """The outermost value of ``key`` anywhere in ``data`` (``None`` when absent)."""
    for node in walk(data):
        if key in node and node[key] is not None:
            return node[key]
    return None


def lookup(data: Any, key: str) -> Any:
    """``key`` as a dotted path when it has dots, else found anywhere (:func:`find`)."""
    return at(data, key) if "." in key else find(data, key)


def at(data: Any, path: str) -> Any:
    """The value at a dotted ``path`` ("tasks.1.id"), or ``None``."""
    node = data
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def items(data: Any) -> list[JSONDict]:
    """The list of objects an answer carries: the answer itself, or its first list of objects."""
    if isinstance(data, list):
        return [d for d in data if isinstance(d, dict)]
    for node in walk(data):
        for value in node.values():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                return value
    return []


# -- references to earlier answers --------------------------------------------------------------


@dataclass
class Context:
    """The episode so far: answers saved by name, and the arguments actually sent."""

    saved: dict[str, Answer] = field(default_factory=dict)

    def value(self, name: str, key: str) -> Any:
        answer = self.saved.get(name)
        if answer is None:
            return None
        if key == "$text":
            return answer.text
        if "." in key:  # a path: "tasks.1.id"
            return at(answer.data, key)
        return find(answer.data, key)


@dataclass(frozen=True)
class Ref:
    """A value taken from an earlier answer (``default`` when that answer lacks it).

    ``template`` formats it (``"{}"`` by default), e.g. ``Ref("msg", "ts")`` or
    ``Ref("issue", "number", template="#{}")``.
    """

    name: str
    key: str
    default: Any = None
    template: str = "{}"
    pattern: str = ""  # a regex whose first group is the value, e.g. r"/issues/(\d+)$"

    def resolve(self, ctx: Context) -> Any:
        value = ctx.value(self.name, self.key)
        if value is not None and self.pattern:
            match = re.search(self.pattern, str(value))
            value = int(match.group(1)) if match and match.group(1).isdigit() else match.group(1) if match else None
        if value is None:
            value = self.default
        if self.template != "{}" and value is not None:
            return self.template.format(value)
        return value


def resolve(value: Any, ctx: Context) -> Any:
    """``value`` with every :class:`Ref` in it replaced by what it refers to."""
    if isinstance(value, Ref):
        return value.resolve(ctx)
    if isinstance(value, dict):
        return {k: resolve(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, ctx) for v in value]
    return value


# -- predicates -------------------------------------------------------------------------------

Predicate = Callable[[Answer, Context], "str | None"]


def _show(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def succeeds() -> Predicate:
    """The call is answered, not refused (``isError`` false)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        return f"isError: {_show(answer.text)}" if answer.is_error else None
    return check


def fails() -> Predicate:
    """The call is refused (``isError`` true), as the service refuses it."""
    def check(answer: Answer, ctx: Context) -> str | None:
        return None if answer.is_error else f"answered instead of refusing: {_show(answer.text)}"
    return check


def fails_or_says_gone() -> Predicate:
    """Reading what was deleted is an error, or says it is not found / deleted / archived."""
    def check(answer: Answer, ctx: Context) -> str | None:
        if answer.is_error or _GONE.search(answer.text):
            return None
        return f"answered as if it still existed: {_show(answer.text)}"
    return check


def is_json() -> Predicate:
    """The answer carries JSON data a client can parse (structured, wrapped or in the text)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        return None if answer.data is not None else f"no JSON in the answer: {_show(answer.text)}"
    return check


def field_matches(key: str, pattern: str) -> Predicate:
    """The answer has ``key`` whose value (as text) matches ``pattern`` from its start."""
    regex = re.compile(pattern)

    def check(answer: Answer, ctx: Context) -> str | None:
        value = lookup(answer.data, key)
        if value is None:
            return f"no {key!r} in {_show(answer.data if answer.data is not None else answer.text)}"
        return None if regex.match(str(value)) else f"{key}={_show(value)} does not match {pattern!r}"
    return check


def field_equals(key: str, expected: Any) -> Predicate:
    """The answer's ``key`` equals ``expected`` (a literal or a :class:`Ref`)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(expected, ctx)
        value = lookup(answer.data, key)
        if value is None:
            return f"no {key!r} in {_show(answer.data if answer.data is not None else answer.text)}"
        return None if _same(value, want) else f"{key}={_show(value)}, expected {_show(want)}"
    return check


def field_differs(key: str, other: Any) -> Predicate:
    """The answer's ``key`` exists and differs from ``other`` (a :class:`Ref` to another entity)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        value, theirs = lookup(answer.data, key), resolve(other, ctx)
        if value is None:
            return f"no {key!r} in {_show(answer.data if answer.data is not None else answer.text)}"
        return f"{key}={_show(value)} is the other entity's" if _same(value, theirs) else None
    return check


def mentions(expected: Any) -> Predicate:
    """The answer (text or data) contains ``expected`` (a literal or a :class:`Ref`)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(expected, ctx)
        if want is None:
            return "nothing to look for: the value it refers to was never returned"
        haystack = answer.text + json.dumps(answer.structured, default=str)
        return None if str(want) in haystack else f"{_show(want)} not in {_show(answer.text)}"
    return check


def lacks(expected: Any) -> Predicate:
    """The answer does not contain ``expected`` (what was deleted, or filtered out)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(expected, ctx)
        if want is None:
            return "nothing to look for: the value it refers to was never returned"
        haystack = answer.text + json.dumps(answer.structured, default=str)
        return f"{_show(want)} is still in the answer" if str(want) in haystack else None
    return check


def lists(key: str, expected: Any) -> Predicate:
    """The answer lists an item whose ``key`` equals ``expected``."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(expected, ctx)
        found = [item.get(key) for item in items(answer.data)]
        if any(_same(v, want) for v in found):
            return None
        return f"no item with {key}={_show(want)} among {len(found)} items {_show(found)}"
    return check


def omits(key: str, unwanted: Any) -> Predicate:
    """No listed item has ``key`` equal to ``unwanted`` (a filter left it out, or it is gone)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(unwanted, ctx)
        found = [item.get(key) for item in items(answer.data)]
        return f"an item with {key}={_show(want)} is listed" if any(_same(v, want) for v in found) else None
    return check


def every_item(key: str, expected: Any) -> Predicate:
    """At least one item is listed and every one has ``key`` equal to ``expected`` (a filter)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        want = resolve(expected, ctx)
        listed = items(answer.data)
        if not listed:
            return f"no items in {_show(answer.data if answer.data is not None else answer.text)}"
        wrong = [item.get(key) for item in listed if not _same(find(item, key), want)]
        return f"items with {key} other than {_show(want)}: {_show(wrong)}" if wrong else None
    return check


def count_at_least(n: int) -> Predicate:
    """The answer lists at least ``n`` items."""
    def check(answer: Answer, ctx: Context) -> str | None:
        got = len(items(answer.data))
        return None if got >= n else f"{got} items listed, expected at least {n}"
    return check


def content_is(expected: str) -> Predicate:
    """A file's ``content`` is ``expected``, decoded first when ``encoding`` is base64 (GitHub)."""
    def check(answer: Answer, ctx: Context) -> str | None:
        content = find(answer.data, "content")
        if not isinstance(content, str):
            return f"no file content in {_show(answer.data if answer.data is not None else answer.text)}"
        if find(answer.data, "encoding") == "base64":
            try:
                content = base64.b64decode(content).decode()
            except ValueError:
                return f"content is not base64 as its encoding says: {_show(content)}"
        return None if content == expected else f"content {_show(content)}, expected {_show(expected)}"
    return check


def text_matches(pattern: str) -> Predicate:
    """The text block matches ``pattern`` (searched, multi-line)."""
    regex = re.compile(pattern, re.MULTILINE)

    def check(answer: Answer, ctx: Context) -> str | None:
        return None if regex.search(answer.text) else f"text {_show(answer.text)} does not match {pattern!r}"
    return check


def _same(value: Any, want: Any) -> bool:
    if isinstance(value, (int, float)) and isinstance(want, (int, float)):
        return value == want
    return str(value) == str(want) if not isinstance(value, (dict, list)) else value == want
