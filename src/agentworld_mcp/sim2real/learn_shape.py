"""The answer shape of each engine-claimed tool, as its recording shows it.

A domain engine computes a tool's values from the episode's state, but prints them its own way;
the recorded server may have wrapped them in a JSON object with fixed keys. For each tool an
engine claims and that declares no outputSchema, when every successful recorded answer is a JSON
object, this keeps per key (``models/deterministic/learned_shape.py`` pours the engine's values
into it): its JSON type, up to :data:`MAX_SAMPLES` recorded values,
the value every answer gave (a constant), the argument every answer copied, and the argument
values with which the key was always left out. Recorded failures that were objects of one text
key give the key (and the flag) a failure is answered under.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from ..models.deterministic.failures import reads_as_failure
from ..models.deterministic.engines import claimed
from ..models.deterministic.learned_shape import SENTENCE_SLOT, SHAPE_META
from ..models.deterministic.wrapping import wrapped_schema
from ..world.catalog import Catalog
from .score import RecordedTurn, json_of, listed_items, text_of

JSONDict = dict[str, Any]
#: Recorded values kept per key (what the payload is compared with, not a replay source).
MAX_SAMPLES = 3
#: A kept text sample is cut to this many characters; a list to this many items.
_SAMPLE_CHARS = 120
_SAMPLE_ITEMS = 3
_LABEL = re.compile(r"[A-Za-z][A-Za-z_-]{0,23}")
#: A one-line answer of a few words: what a sentence template is learned from.
_SENTENCE = re.compile(r"[^\n]{1,200}")


def add_shape_meta(data: JSONDict, compiled: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Put each engine-claimed tool's recorded answer shape under its ``_meta``; how many tools got one."""
    turns_of: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            turns_of.setdefault(turn.tool, []).append(turn)
    added = 0
    for tool in data["tools"]:
        spec = compiled.get(tool["name"])
        # a database's tools too, but not its report, which keeps the recorded report itself (sql.py)
        answered = claimed(compiled.world, spec) if spec is not None else False
        if spec is not None and spec.role.style == "sql" and spec.role.op != "database_info":
            answered = True
        if spec is None or not turns_of.get(spec.name) or not answered:
            continue
        sentence = text_shape(turns_of[spec.name], spec.input_schema)
        if sentence is not None:  # a sentence the engine's answer is told in (with or without an outputSchema)
            tool["_meta"] = {**(tool.get("_meta") or {}), SHAPE_META: {"text": sentence}}
            added += 1
            continue
        if spec.output_schema is not None and not _says_nothing(spec.definition):
            continue
        shape = answer_shape(turns_of[spec.name])
        if shape is not None:
            tool["_meta"] = {**(tool.get("_meta") or {}), SHAPE_META: shape}
            added += 1
    return added


def _says_nothing(tool: JSONDict) -> bool:
    """An outputSchema that names no field of the answer: FastMCP's wrapper of a ``dict`` or ``list[dict]``
    (``{"result": {"type": "object", "additionalProperties": true}}``); the recording shows the fields."""
    inner = wrapped_schema(tool)
    if inner is None:
        return False
    item = inner.get("items") if inner.get("type") == "array" else inner
    return isinstance(item, dict) and item.get("type") == "object" and not item.get("properties")


def answer_shape(turns: list[RecordedTurn]) -> JSONDict | None:
    """The shape the tool's recorded answers show (see the module doc), or None when they show no object."""
    answers: list[tuple[JSONDict, JSONDict]] = []
    failures: list[tuple[Any, bool]] = []
    for turn in turns:
        data = _answer_of(turn.result)
        is_error = bool(turn.result.get("isError"))
        if is_error or reads_as_failure(data):
            failures.append((data, is_error))
        elif isinstance(data, dict):
            answers.append((dict(turn.arguments), data))
        else:
            return None  # some answers are no object: the tool's printed form is the recording's too
    if not answers:
        return None
    keys = list(dict.fromkeys(k for _, answer in answers for k in answer))
    if not keys:
        return None
    shape: JSONDict = {"slots": {key: _slot(key, answers) for key in keys}}
    style = _failure_style(failures)
    if style is not None:
        shape["error"] = style
    return shape


def text_shape(turns: list[RecordedTurn], input_schema: JSONDict) -> str | None:
    """The sentence every successful recorded answer of the tool is, with the call's values as slots
    (``Wrote {{len.data}} rows starting at {{args.start_cell}}``); None unless all answers are one sentence."""
    found: set[str] = set()
    for turn in turns:
        if turn.result.get("isError"):
            continue
        text = text_of(turn.result)
        if not isinstance(text, str) or not _SENTENCE.fullmatch(text.strip()) or text.strip()[:1] in "[{":
            return None
        found.add(sentence_template(text.strip(), dict(turn.arguments), input_schema))
    if len(found) != 1:
        return None
    template = found.pop()
    return template if SENTENCE_SLOT.search(template) else None  # a constant text: the record model's already


def sentence_template(text: str, arguments: JSONDict, input_schema: JSONDict) -> str:
    """``text`` with each of the call's values in it as a slot: a text argument, a number argument (or its
    schema default), a list argument's length."""
    props = input_schema.get("properties") or {}
    numbers: dict[str, str] = {}
    for name, spec in (props.items() if isinstance(props, dict) else ()):
        value = arguments.get(name, spec.get("default") if isinstance(spec, dict) else None)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, list):
            numbers.setdefault(str(len(value)), f"{{{{len.{name}}}}}")
        elif isinstance(value, int):
            numbers.setdefault(str(value), f"{{{{args.{name}}}}}")
        elif isinstance(value, str) and len(value) >= 2 and not value.isdigit() and value in text:
            text = text.replace(value, f"{{{{args.{name}}}}}")
    return re.sub(r"(?<![\w{.])\d+(?![\w}])", lambda m: numbers.get(m.group(), m.group()), text)


def _answer_of(result: JSONDict) -> Any:
    """The answer as JSON; FastMCP's ``{"result": ...}`` wrapper of a plain return is what the server printed."""
    structured = result.get("structuredContent")
    if (items := listed_items(result)) is not None:  # one block per item: the list the tool returned
        return items
    if isinstance(structured, dict) and list(structured) == ["result"] and text_of(result):
        return json_of({"content": result.get("content")})
    return json_of(result)


def _slot(key: str, answers: list[tuple[JSONDict, JSONDict]]) -> JSONDict:
    values = [answer[key] for _, answer in answers if key in answer]
    slot: JSONDict = {"type": _type_of(values)}
    distinct = list({_canonical(v): v for v in values}.values())
    slot["samples"] = [_sample(v) for v in distinct[:MAX_SAMPLES]]
    copied = [name for name in answers[0][0] if all(
        key not in answer or _scalar(arguments.get(name)) and str(arguments.get(name)) == str(answer[key])
        for arguments, answer in answers)]
    # one answer's number equal to an argument may be chance; a text copied is not
    if copied and values and (len(values) > 1 or isinstance(values[0], str)):
        slot["argument"] = copied[0]
    if len(distinct) == 1 and (len(values) > 1 or _label(distinct[0]) and not copied):
        slot["constant"] = distinct[0]
    if len(values) < len(answers):
        slot["absent_when"] = _absent_when(key, answers)
        if not slot["absent_when"]:
            del slot["absent_when"]
    return slot


def _absent_when(key: str, answers: list[tuple[JSONDict, JSONDict]]) -> JSONDict:
    """Per argument, the values it had whenever ``key`` was left out and never when it was there."""
    without = [arguments for arguments, answer in answers if key not in answer]
    within = [arguments for arguments, answer in answers if key in answer]
    found: JSONDict = {}
    for name in without[0]:
        left = {str(a.get(name)) for a in without if _scalar(a.get(name))}
        if len(left) != 1 or any(not _scalar(a.get(name)) for a in without):
            continue
        if not left & {str(a.get(name)) for a in within if name in a}:
            found[name] = sorted(left)
    return found


def _failure_style(failures: list[tuple[Any, bool]]) -> JSONDict | None:
    """``{"key": "error", "is_error": false}`` when every recorded failure was an object of one text key."""
    styles = Counter((next(iter(data)), flag) for data, flag in failures
                     if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), str))
    if not styles or sum(styles.values()) != len(failures) or len(styles) != 1:
        return None
    (key, flag), _ = styles.most_common(1)[0]
    return {"key": key, "is_error": flag}


def _type_of(values: list[Any]) -> str:
    names = Counter(_json_type(v) for v in values if v is not None)
    if {"integer", "number"} <= set(names):
        return "number"
    return names.most_common(1)[0][0] if names else "null"


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _sample(value: Any) -> Any:
    if isinstance(value, str):
        return value[:_SAMPLE_CHARS]
    if isinstance(value, list):
        return [_sample(v) for v in value[:_SAMPLE_ITEMS]]
    if isinstance(value, dict):
        return {k: _sample(v) for k, v in list(value.items())[:_SAMPLE_ITEMS * 4]}
    return value


def _label(value: Any) -> bool:
    """A value one answer shows that reads as the tool's constant: null, a flag, one short word (``words``,
    ``success``); a number or a phrase of one answer is that call's value, not the tool's."""
    return value is None or isinstance(value, bool) or isinstance(value, str) and _LABEL.fullmatch(value) is not None


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


__all__ = ["MAX_SAMPLES", "add_shape_meta", "answer_shape", "sentence_template", "text_shape"]
