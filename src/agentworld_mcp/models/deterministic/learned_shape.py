"""A domain engine's values in the answer shape a recording showed.

An engine (:mod:`.engines`) computes what a call returns from the episode's state: a listing's
names, a file's text, a count. Without an outputSchema it answers as the command prints
(``report.txt``, ``5 summary.txt``), while the recorded server wrapped every answer of the tool in
a JSON object with fixed keys (``{"current_directory_content": [...]}``, ``{"count": 5, "type":
"characters"}``). ``learn`` keeps per engine-claimed tool the shape the recording showed
(``sim2real/learn_shape.py``)::

    "agentworld/answer_shape": {
      "slots": {"count": {"type": "integer", "samples": [2, 7]},
                "type": {"type": "string", "samples": ["words"], "constant": "words"}},
      "error": {"key": "error", "is_error": false}}

and :func:`answer_in_shape` pours the engine's answer into it: the *payload* (what the engine
printed) into the slot whose recorded values look like it (a list for a listing, a number for a
count, a text for a read), the engine's other values (a count's unit) into the slots it fills
itself, then what the call's arguments or the recording's constants give; a slot nothing gives is
left out, never invented. A slot the recording left out whenever an argument had a given value
(``cd ..`` answered ``{}``) is left out then too. A failure keeps the engine's wording, under the
key the recorded failures used. A tool whose recording shows no object keeps the engine's answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from ...world.catalog import ToolSpec
from ..base import Prediction, Step
from .learned_envelope import substituted  # the learned templates' one slot filler

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the answer shape its recording showed.
SHAPE_META = "agentworld/answer_shape"
#: JSON types an engine's printed payload can be poured into.
_POURABLE = ("array", "string", "integer", "number")
#: A printed count: a number leading the text (``5 summary.txt``), not the start of a date or a name.
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)(?:\s|$)")
#: A slot of a learned sentence: the call's argument (or its schema default), a list argument's length.
SENTENCE_SLOT = re.compile(r"\{\{(args|len)\.([A-Za-z_][\w-]*)\}\}")


def sentence_of(step: Step) -> str | None:
    """The tool's answer as the learned sentence filled for this call; None without one, or where a slot has
    no value in this call."""
    shape = (step.tool.definition.get("_meta") or {}).get(SHAPE_META)
    template = shape.get("text") if isinstance(shape, dict) else None
    if not isinstance(template, str):
        return None
    props = (step.tool.input_schema or {}).get("properties") or {}

    def value(match: re.Match[str]) -> Any:
        source, name = match.group(1), match.group(2)
        spec = props.get(name) if isinstance(props, dict) else None
        given = step.arguments.get(name, spec.get("default") if isinstance(spec, dict) else None)
        if source == "len":
            return len(given) if isinstance(given, list) else None
        return given

    return substituted(SENTENCE_SLOT, template, value)


def answer_shape(tool: ToolSpec) -> JSONDict | None:
    """The learned shape of ``tool``'s answers, when the recording showed one and it declares no outputSchema."""
    if tool.output_schema is not None:
        return None
    shape = (tool.definition.get("_meta") or {}).get(SHAPE_META)
    slots = shape.get("slots") if isinstance(shape, dict) else None
    return shape if isinstance(slots, dict) and all(isinstance(s, dict) for s in slots.values()) else None


def answer_in_shape(step: Step, ask: Callable[[Step], Any]) -> Any:
    """The engine's answer to ``step`` (``ask``), in the tool's learned shape when it has one."""
    answer = ask(step)
    if isinstance(answer, Prediction) and answer.info.get("failure"):  # a refusal worded as the server words it
        worded = answer_shape(step.tool)  # no payload: under the key the recorded failures used, if any
        flagged = dataclasses.replace(answer, is_error=True)
        keyed = _failure(worded, flagged) if worded is not None else flagged
        return answer if keyed is flagged else keyed
    if isinstance(answer, Prediction) and not answer.is_error and not step.effects_only:
        told = sentence_of(step)
        if told is not None:  # the recorded sentence, told of this call; the engine's effects kept
            return dataclasses.replace(answer, observation=told, text=told)
    shape = answer_shape(step.tool)
    if shape is None or not isinstance(answer, Prediction) or step.effects_only:
        return answer
    if answer.is_error:
        return _failure(shape, answer)
    slots: dict[str, JSONDict] = shape["slots"]
    observation = answer.observation
    if isinstance(observation, str) and answer.text is None and step.role.style == "sql":
        from .wrapping import printed_value  # rows the database printed as a Python server does are rows

        observation = printed_value(observation)
        if isinstance(observation, list) and len(observation) == 1 and isinstance(observation[0], dict) \
                and set(observation[0]) & set(slots):
            observation = observation[0]  # ``[{'affected_rows': 1}]``: the one record is the answer object
    if isinstance(observation, dict):
        if not set(observation) & set(slots):
            return answer  # the engine's own object, of keys the recording never showed: no guess at a mapping
        body = _poured(step, slots, None, observation)
        # what the engine says beyond the recorded keys stays (nothing in it is invented)
        body.update({k: v for k, v in observation.items() if k not in body and not _absent(slots.get(k, {}),
                                                                                         step.arguments)})
        unchanged = body == observation and observation is answer.observation  # not read from a printed value
        return answer if unchanged else dataclasses.replace(answer, observation=body, text=None)
    printed = observation if isinstance(observation, str) else None
    if printed is None and not isinstance(observation, list):
        return answer
    structured = _structured(step, ask, slots) if printed is not None else {}
    body = _poured(step, slots, printed if printed is not None else observation, structured)
    return dataclasses.replace(answer, observation=body, text=None)


def _failure(shape: JSONDict, answer: Prediction) -> Prediction:
    """A failure worded by the engine, under the key (and with the flag) the recorded failures had."""
    style = shape.get("error")
    if not isinstance(style, dict) or not isinstance(style.get("key"), str) or isinstance(answer.observation, dict):
        return answer
    message = answer.text if answer.text is not None else str(answer.observation)
    return dataclasses.replace(answer, observation={style["key"]: message}, text=None,
                               is_error=bool(style.get("is_error", True)))


def _structured(step: Step, ask: Callable[[Step], Any], slots: dict[str, JSONDict]) -> JSONDict:
    """The engine's own values per slot: asked again with the learned slots as its outputSchema (nothing
    required, so nothing is invented); {} when the engine does not answer in a schema."""
    schema = {"type": "object", "properties": {k: {"type": s["type"]} for k, s in slots.items()
                                               if s.get("type") in _POURABLE}}
    if not schema["properties"]:
        return {}
    spec = dataclasses.replace(step.tool, definition={**step.tool.definition, "outputSchema": schema})
    answer = ask(dataclasses.replace(step, tool=spec))
    if not isinstance(answer, Prediction) or answer.is_error or not isinstance(answer.observation, dict):
        return {}
    return {k: v for k, v in answer.observation.items() if k in slots}


def _poured(step: Step, slots: dict[str, JSONDict], payload: Any, structured: JSONDict) -> JSONDict:
    """The answer object: the payload in its slot, then the engine's, the call's and the constant values."""
    chosen = _payload_slot(slots, payload, structured) if payload is not None else None
    body: JSONDict = {}
    for key, slot in slots.items():
        if _absent(slot, step.arguments):
            continue
        if key == chosen:
            engine_s = key in structured and _fits(slot, structured[key]) and _is_payload(structured[key], payload)
            body[key] = structured[key] if engine_s else _as(slot, payload)
        elif key in structured and _fits(slot, structured[key]) and not _is_payload(structured[key], payload):
            body[key] = structured[key]  # what the engine knows besides the payload (a count's unit)
        elif isinstance(argument := slot.get("argument"), str) and argument in step.arguments:
            body[key] = step.arguments[argument]
        elif "constant" in slot:
            body[key] = slot["constant"]
    return body


def _payload_slot(slots: dict[str, JSONDict], payload: Any, structured: JSONDict) -> str | None:
    """The slot whose recorded values look like the engine's payload, best first: one whose values varied (a
    constant is no payload), one the engine put the payload in itself, one no argument fills."""
    best: tuple[int, int, int, int] | None = None
    chosen = None
    for index, (key, slot) in enumerate(slots.items()):
        filled = key in structured and _fits(slot, structured[key]) and _is_payload(structured[key], payload)
        if not filled and _as(slot, payload) is None:
            continue  # (an empty file's text is the payload only where the engine put it)
        rank = (int("constant" not in slot), int(filled), int("argument" not in slot), -index)
        if best is None or rank > best:
            best, chosen = rank, key
    return chosen


def _as(slot: JSONDict, payload: Any) -> Any:
    """``payload`` as a value of the slot's type, or None when it is none: a printed listing is a list of
    its lines, a printed count its leading number; nothing printed fills only a list (an empty one)."""
    kind = slot.get("type")
    if isinstance(payload, list):
        return payload if kind == "array" else None
    if not isinstance(payload, str):
        return None
    if kind == "array":
        samples = slot.get("samples") or []
        if any(isinstance(item, (dict, list)) for sample in samples if isinstance(sample, list) for item in sample):
            return None  # a list of objects is no printed listing
        return payload.splitlines()
    if not payload.strip():
        return None
    if kind in ("integer", "number"):
        match = _NUMBER.match(payload)
        if match is None:
            return None
        number = float(match.group(1))
        return int(number) if kind == "integer" or number.is_integer() else number
    return payload if kind == "string" else None


def _fits(slot: JSONDict, value: Any) -> bool:
    kind = slot.get("type")
    checks: dict[str, Callable[[Any], bool]] = {
        "array": lambda v: isinstance(v, list), "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool), "object": lambda v: isinstance(v, dict),
        "null": lambda v: v is None,
    }
    check = checks.get(str(kind))
    return check(value) if check is not None else True


def _is_payload(value: Any, payload: Any) -> bool:
    """Whether the engine's value for a slot is the payload itself (a text it put in the first string field)."""
    if payload is None:
        return False
    if isinstance(payload, str) and isinstance(value, str):
        return value.strip() == payload.strip()
    if isinstance(payload, str) and isinstance(value, (int, float)) and not isinstance(value, bool):
        match = _NUMBER.match(payload)
        return match is not None and float(match.group(1)) == value
    if isinstance(payload, str) and isinstance(value, list):
        return value == payload.splitlines()
    return bool(value == payload)


def _absent(slot: JSONDict, arguments: JSONDict) -> bool:
    """Whether the recording left the slot out whenever an argument had the value this call gives it."""
    when = slot.get("absent_when")
    if not isinstance(when, dict):
        return False
    return any(isinstance(values, list) and str(arguments.get(name)) in values for name, values in when.items()
               if name in arguments)


__all__ = ["SENTENCE_SLOT", "SHAPE_META", "answer_in_shape", "answer_shape", "sentence_of"]
