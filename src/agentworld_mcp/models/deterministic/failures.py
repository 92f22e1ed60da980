"""Domain failures as the service reports them: ``isError``, or an ordinary answer.

Real servers disagree on how to say "there is no task 99". The reference servers, and
anything that raises inside FastMCP, answer ``isError: true``; others answer normally
with the failure in the data: ``Database error: no such table``, ``{"status":
"task_not_found"}``, ``Note 9 not found`` returned by a ``-> str`` tool, ``false`` from a
``-> bool`` delete. A catalog shows its convention in two places:

- its demonstrations: an example whose response reads as a failure but is not ``isError``
  (its own tool's first, else the whole world's when they agree);
- a tool's description: "returns an error message if ...", "returns whether it existed".

The convention is read once per tool. Where the deterministic model produces a domain
failure (not found, already exists, a missing reference) for a tool that answers in band,
the failure becomes that tool's ordinary answer: shaped like the demonstrated failure
when there is one, else its message; in a structured result, in the field meant for it.
Where the schema has no room for a failure, it stays ``isError``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from ...state.result import dump_json
from ...world.world import World
from ..base import Prediction, Step
from .learned_inband_refusal import aligned
from .wrapping import wrapped_schema

JSONDict = dict[str, Any]

#: Words of a failure, in a demonstrated response that is not ``isError``.
_FAILURE = re.compile(r"not[ _]found|no such|does not exist|doesn't exist|already exists|\berror\b|\bfailed\b|"
                      r"\binvalid\b|\bunknown\b|\bexpected\b[^.\n]{0,80}\bbut (?:found|got|received|was)\b",
                      re.IGNORECASE)
#: A description that says failures come back as the answer.
_IN_BAND = re.compile(r"\breturns? (?:an? |the )?(?:error|failure) (?:message|string|text|object|status)|"
                      r"\bor an? error (?:message|string|object)|\breturns? whether\b|"
                      r"\breturns? (?:false|none|null|an empty \w+) (?:if|when)\b", re.IGNORECASE)
#: Structured fields a failure message goes in, in order of preference.
_MESSAGE_FIELDS = ("error", "message", "detail", "status", "result", "output", "text", "content")


@dataclass(frozen=True)
class Convention:
    """How one tool reports a domain failure."""

    in_band: bool
    #: A demonstrated failure (``{"status": "task_not_found"}``, ``Key not found: a``) to answer like.
    shape: Any = None
    #: The demonstration's argument values, to find where the failure names what it failed on.
    shown_keys: tuple[str, ...] = ()


def convention_for(world: World, tool: JSONDict) -> Convention:
    """The tool's convention: its description, its demonstrations, the world's demonstrations."""
    own = _demonstrated(world, tool["name"])
    if own is not None:
        return own
    if _IN_BAND.search(tool.get("description") or ""):
        return Convention(True)
    shown = _demonstrated(world, None)
    return shown if shown is not None else Convention(False)


def _demonstrated(world: World, tool: str | None) -> Convention | None:
    """What demonstrations of ``tool`` (of any tool when None) show, when they show one convention."""
    in_band: list[Any] = []
    flagged = 0
    for demo in world.demonstrations:
        if tool is not None and demo.tool != tool:
            continue
        if demo.is_error:
            flagged += 1
        elif reads_as_failure(demo.response):
            in_band.append(demo)
    if in_band and not flagged:
        first = in_band[0]
        keys = tuple(str(v) for v in first.arguments.values() if isinstance(v, (str, int)) and not isinstance(v, bool)
                     and (len(str(v)) > 1 or isinstance(v, int)))  # ``Note 9 not found`` names note 9
        return Convention(True, first.response, keys)
    if flagged and not in_band:
        return Convention(False)
    return None


def reads_as_failure(response: Any) -> bool:
    """Whether a demonstrated answer reports a failure in band (``Note 9 not found``, ``{"status": "task_not_found"}``)."""
    if isinstance(response, str):
        return bool(_FAILURE.search(response))
    if isinstance(response, dict):
        if response.get("error") or response.get("errors") or response.get("success") is False:
            return True
        return any(isinstance(v, str) and _FAILURE.search(v) for v in response.values())
    return False


def in_band(step: Step, failure: Prediction, convention: Convention, noun: str, key: str | None) -> Prediction:
    """``failure`` (an ``isError`` prediction) as the tool's ordinary answer, where its convention says so;
    ``noun`` names what the tool acts on (``note``), ``key`` which one (``42``) when the call names one."""
    if not convention.in_band or not failure.is_error:
        return failure
    message = failure.text if failure.text is not None else str(failure.observation)
    body: Any = message
    if isinstance(convention.shape, dict):
        body = {name: _like(value, message, noun, key, convention, step.tool.name)
                for name, value in convention.shape.items()}
    elif isinstance(convention.shape, str) and _names_key(convention.shape, convention) and key is not None:
        like = _like(convention.shape, message, noun, key, convention, step.tool.name)
        # the demonstration's words, this refusal's numbers and names (``found 2``, not the demonstration's ``1``)
        body = aligned(message, [like], numbers_only=True) or like
    out = step.tool.output_schema
    if not out:
        return dataclasses.replace(failure, observation=body, is_error=False, effects=[], text=None, checked=False)
    structured = _structured(out, body, message)
    if structured is None:
        return failure  # the schema has no room for a failure: isError is the only way to say it
    text = body if isinstance(body, str) else dump_json(body)
    if isinstance(structured.get("result"), bool):
        text = "false"
    return dataclasses.replace(failure, observation=structured, is_error=False, effects=[], text=text, checked=False)


def _like(value: Any, message: str, noun: str, key: str | None, convention: Convention, tool: str) -> Any:
    """A demonstrated failure value for this failure: ``task_not_found`` stays for a task tool and reads
    ``note_not_found`` for a note tool; what names the demonstration's key names this call's; constant
    wording (``No such task found``) is kept as the service words it."""
    if not isinstance(value, str):
        return value
    code = re.fullmatch(r"([a-z0-9]+(?:_[a-z0-9]+)*)_not_found", value)
    if code:
        if code.group(1) in tool.lower() or "not found" not in message.lower():
            return value
        return re.sub(r"\W+", "_", noun.strip().lower()).strip("_") + "_not_found"
    shown = next((k for k in convention.shown_keys if _token(k, value)), None)
    if shown is not None and key is not None:
        return re.sub(rf"(?<![\w.-]){re.escape(shown)}(?![\w-])", lambda _: key, value)
    return value


def _names_key(value: str, convention: Convention) -> bool:
    return any(_token(k, value) for k in convention.shown_keys)


def _token(shown: str, value: str) -> bool:
    """``shown`` is in ``value`` as a whole token (note ``9`` is in ``Note 9 not found``, not in ``19``)."""
    return re.search(rf"(?<![\w.-]){re.escape(shown)}(?![\w-])", value) is not None


def _structured(out: JSONDict, body: Any, message: str) -> JSONDict | None:
    """A structured failure valid for ``out``, or None when it has no field for one."""
    inner = wrapped_schema({"outputSchema": out})
    if inner is not None:
        kind = inner.get("type")
        if kind == "boolean":
            return {"result": False}
        if kind == "string":
            return {"result": body if isinstance(body, str) else dump_json(body)}
        if kind == "object" and isinstance(body, dict):
            return {"result": body}
        return None
    props: JSONDict = out.get("properties") or {}
    if isinstance(body, dict) and set(body) <= set(props):
        shaped = {**body, **({"success": False} if _typed(props, "success", "boolean") else {})}
        return None if any(r not in shaped for r in out.get("required") or ()) else shaped
    field = next((f for f in _MESSAGE_FIELDS if _typed(props, f, "string")), None)
    if field is None:
        return None
    structured: JSONDict = {field: message}
    for flag in ("success", "ok"):
        if _typed(props, flag, "boolean"):
            structured[flag] = False
    missing = [r for r in out.get("required") or () if r not in structured]
    return None if missing else structured


def _typed(props: JSONDict, name: str, kind: str) -> bool:
    schema = props.get(name)
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    return declared == kind or (isinstance(declared, list) and kind in declared)


__all__ = ["Convention", "convention_for", "in_band"]
