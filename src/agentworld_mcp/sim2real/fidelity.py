"""What one answer says, and how far a simulated answer agrees with the real one (for ``score``).

* **data**: ``structuredContent``, else the text content. FastMCP's ``{"result": ...}`` wrapper is
  taken off (its string parsed when it is JSON), and text that is JSON, or a Python literal as
  servers that print ``str(rows)`` answer, is parsed. An answer whose data is a string is prose.
* **outcome**: ``ok``, ``error`` (``isError``) or ``in-band``: an ordinary answer that says it
  failed (see :func:`outcome`).
* **leaves**: ``(path, value)`` for every scalar and empty container; list items share ``a[]``.
* **determined values**: what the episode so far makes certain, :class:`Known`: every leaf of the
  calls' arguments up to this one, of the real answers before it and of the world's seed; and a
  value (a string of 3 characters or more, a number) that those texts mention as a whole token
  (``'Ada Lovelace'`` inside an ``INSERT`` statement). Fresh ids and timestamps are not determined.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]
#: Longest text parsed as a Python literal (``ast.literal_eval`` is recursive) or kept per answer as context.
PARSE_LIMIT = 200_000
CONTEXT_LIMIT = 20_000
#: A ``status`` value that says the call failed (``task_not_found``, ``error``).
_FAILED_STATUS = re.compile(r"error|fail|not[ _-]?found|invalid|denied|unknown|missing", re.IGNORECASE)
#: The first line of prose that says the call failed (``Error: ...``, ``Database error: ...``, ``Note 9 not found``).
_FAILED_PROSE = re.compile(r"^\W*(?:[\w-]+ ){0,2}(?:error|errors|failed|failure)\b|\bnot found\b|\bno such\b|"
                           r"\bdoes not exist\b|\balready exists\b|\bnot allowed\b|\bpermission denied\b",
                           re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """An answer's data (``is_json``) or its prose (``text``)."""

    is_json: bool
    data: Any
    text: str


def text_blocks(result: JSONDict) -> list[str]:
    return [str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]


def parse_text(text: str) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text (or a Python literal of lists, dicts, strings, numbers), else ``(False, text)``."""
    stripped = text.strip()
    if not stripped:
        return False, text
    try:
        return True, json.loads(stripped)
    except ValueError:
        pass
    if stripped[0] in "[{(" and len(stripped) <= PARSE_LIMIT:
        try:  # servers that answer str(rows): "[{'id': 1, 'name': 'Ada'}]"
            return True, ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return False, text


def unwrap(value: Any) -> tuple[bool, Any]:
    """FastMCP's ``{"result": X}`` wrapper taken off, a JSON string ``X`` parsed."""
    while isinstance(value, dict) and len(value) == 1 and "result" in value:
        value = value["result"]
        if isinstance(value, str):
            parsed, inner = parse_text(value)
            if not parsed:
                return False, value
            value = inner
    if isinstance(value, str):
        return False, value
    return True, value


def answer_of(result: JSONDict) -> Answer:
    """The answer's data: see the module doc."""
    blocks = text_blocks(result)
    text = "\n".join(blocks)
    structured = result.get("structuredContent")
    if structured is not None:
        is_json, data = unwrap(structured)
        return Answer(True, data, text) if is_json else Answer(False, None, str(data))
    parsed = [parse_text(block) for block in blocks]
    if not parsed or not all(ok for ok, _ in parsed):
        return Answer(False, None, text)
    is_json, data = unwrap(parsed[0][1] if len(parsed) == 1 else [value for _, value in parsed])
    return Answer(True, data, text) if is_json else Answer(False, None, str(data))


def outcome(result: JSONDict) -> str:
    """``error`` (``isError``), ``in-band`` or ``ok``. In band: data with a truthy ``error``/``errors``,
    ``success``/``ok`` false, a ``status`` naming a failure, a bare ``false``; or prose whose first line
    starts ``Error``/``X error``/``Failed``, or says ``not found``, ``no such``, ``already exists``..."""
    if result.get("isError"):
        return "error"
    answer = answer_of(result)
    if answer.is_json:
        data = answer.data
        failed = data is False or isinstance(data, dict) and bool(
            data.get("error") or data.get("errors") or data.get("success") is False or data.get("ok") is False
            or isinstance(data.get("status"), str) and _FAILED_STATUS.search(data["status"]))
    else:
        lines = answer.text.strip().splitlines()
        failed = bool(lines) and _FAILED_PROSE.search(lines[0][:300]) is not None
    return "in-band" if failed else "ok"


def leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """``{"a": [{"b": 1}, {"b": 2}]}`` -> ``[("a[].b", 1), ("a[].b", 2)]``."""
    if isinstance(value, dict) and value:
        return [leaf for key, sub in value.items() for leaf in leaves(sub, f"{path}.{key}" if path else str(key))]
    if isinstance(value, list) and value:
        return [leaf for item in value for leaf in leaves(item, path + "[]")]
    return [(path, value)]


def canonical(value: Any) -> str | None:
    """The value as compared: numbers by value (``8.0`` is ``8``, ``"8"`` too), strings as they are;
    None for what never counts as determined (booleans, null, blank strings, containers)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if math.isfinite(value) and value.is_integer() else repr(value)
    if isinstance(value, str):
        return value if value.strip() else None
    return None


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, (list, tuple)) else "object"


def mentions(text: str, value: str) -> bool:
    """``value`` appears in ``text`` as a whole token (``4`` is not in ``42`` nor in ``task-4``)."""
    return value in text and re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-])", text) is not None


def _tokenish(value: Any, form: str) -> bool:
    """Whether a value is specific enough to count when a text mentions it (not ``a``, not ``true``)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, str) and len(form) >= 3


@dataclass
class Known:
    """The values an episode has determined so far (see the module doc)."""

    values: set[str] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)
    _text: str | None = None

    def add_data(self, data: Any) -> None:
        for _, value in leaves(data):
            form = canonical(value)
            if form is not None:
                self.values.add(form)
                if _tokenish(value, form):
                    self.tokens.add(form)
                if isinstance(value, str):
                    self._add_text(value)

    def add_answer(self, result: JSONDict) -> None:
        answer = answer_of(result)
        if answer.is_json:
            self.add_data(answer.data)
        else:
            self._add_text(answer.text)

    def _add_text(self, text: str) -> None:
        self.texts.append(text[:CONTEXT_LIMIT])
        self._text = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "\n".join(self.texts)
        return self._text

    def determines(self, value: Any) -> bool:
        form = canonical(value)
        return form is not None and (form in self.values or _tokenish(value, form) and mentions(self.text, form))

    def mentioned_in(self, text: str) -> list[str]:
        """The determined tokens ``text`` mentions (``task-2`` in ``Task task-2 has been updated.``)."""
        return sorted(t for t in self.tokens if mentions(text, t))


def value_marks(real: Answer, sim: Answer, known: Known) -> list[float]:
    """One mark (0..1) per determined value the real answer shows: a JSON leaf whose whole value is
    determined must be at the same path of the simulated answer (a list's items in any order); a string
    leaf that mentions determined values, and prose, must have them mentioned at the same place."""
    marks: list[float] = []
    if not real.is_json:
        sim_text = sim.text if not sim.is_json else "\n".join(str(v) for _, v in leaves(sim.data))
        return [float(mentions(sim_text, token)) for token in known.mentioned_in(real.text)]
    pools: dict[str, Counter[str]] = defaultdict(Counter)
    strings: dict[str, list[str]] = defaultdict(list)
    if sim.is_json:
        for path, value in leaves(sim.data):
            form = canonical(value)
            if form is not None:
                pools[path][form] += 1
            if isinstance(value, str):
                strings[path].append(value)
    for path, value in leaves(real.data):
        if known.determines(value):
            form = canonical(value)
            assert form is not None
            found = pools[path][form] > 0
            pools[path][form] -= found
            marks.append(float(found))
        elif isinstance(value, str):
            tokens = known.mentioned_in(value)
            if tokens:
                there = "\n".join(strings.get(path, []))
                marks.append(sum(mentions(there, t) for t in tokens) / len(tokens))
    return marks


def type_agreement(real: Answer, sim: Answer) -> float | None:
    """Of the real answer's leaves, the share the simulated answer has at the same path with the same JSON type."""
    if not real.is_json:
        return None
    want = Counter((path, json_type(v)) for path, v in leaves(real.data))
    have = Counter((path, json_type(v)) for path, v in leaves(sim.data)) if sim.is_json else Counter()
    return sum((want & have).values()) / sum(want.values())


#: The generic acknowledgement a world model gives a tool it knows nothing to answer with.
_ACKNOWLEDGED = re.compile(r"^\S+ completed successfully\b")


def acknowledged_data(real: JSONDict, simulated: JSONDict) -> bool:
    """A call the real server answered with data (JSON holding values) that the simulation only acknowledged."""
    if real.get("isError") or simulated.get("isError") or simulated.get("structuredContent") is not None:
        return False
    answer = answer_of(real)
    has_data = answer.is_json and isinstance(answer.data, (dict, list)) and bool(answer.data)
    return has_data and bool(_ACKNOWLEDGED.search(" ".join(text_blocks(simulated))))


__all__ = ["Answer", "Known", "acknowledged_data", "answer_of", "canonical", "json_type", "leaves", "mentions", "outcome", "parse_text",
           "text_blocks", "type_agreement", "unwrap", "value_marks"]
