"""A learned world's refusals in the recorded server's error envelope (``sim2real/learn_error_envelope.py``).

Whatever refuses a call in a learned world (a domain engine in its library's words, the record model's
``not found``, a stated precondition) says the specific message; the real server wraps every such
message the same way. For a tool whose ``_meta["agentworld/error_envelope"]`` holds the learned frame,
a refusal's message goes into the frame's ``{{message}}`` slot (a frame without one drops it, as the
server did), ``{{tool}}`` and ``{{verb}}`` become the tool's name and its name past the catalog's
prefix, a keyed slot (an exit code) takes the value the recording showed for the message's kind (its
first word: ``fatal``, ``error``), and the flag is the recorded one. A refusal already in the frame (a learned rule's recorded
wording) is left as it is.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the catalog's learned error envelope.
ERROR_ENVELOPE_META = "agentworld/error_envelope"
MESSAGE, TOOL, VERB = "{{message}}", "{{tool}}", "{{verb}}"


def error_envelope(step: Step) -> JSONDict | None:
    """The learned envelope of ``step``'s tool, or None."""
    found = (step.tool.definition.get("_meta") or {}).get(ERROR_ENVELOPE_META)
    pieces = found.get("pieces") if isinstance(found, dict) else None
    if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
        return None
    return found


def with_error_envelope(step: Step, answer: Prediction) -> Prediction:
    """``answer`` in the learned error envelope where it is a refusal; unchanged otherwise."""
    envelope = error_envelope(step)
    if envelope is None or not answer.is_error:
        return answer
    message = _message(answer)
    found = envelope.get("keyed")
    keyed: JSONDict = found if isinstance(found, dict) else {}
    inside = _inside(envelope["pieces"], message, {int(i) for i in keyed if str(i).isdigit()})
    if inside is None and answer.info.get("learned_rule"):
        return answer  # a learned rule's recorded wording, in no frame: as the server said it
    pieces = [_named(p, step.tool.name, str(envelope.get("prefix") or "")) for p in envelope["pieces"]]
    said = message if inside is None else inside
    pieces = _keyed(pieces, keyed, said)
    # a text in the frame already (a rule learned on another tool of the catalog) names this tool instead
    text = "".join(said if p == MESSAGE else p for p in pieces)
    if text == message and answer.is_error == bool(envelope.get("isError", True)):
        return answer
    return dataclasses.replace(answer, observation=text, text=text, is_error=bool(envelope.get("isError", True)),
                               effects=[], checked=False)


def _lead(message: str) -> str:
    match = re.match(r"\W*(\w+)", message)
    return match.group(1).lower() if match else ""


def _keyed(pieces: list[str], keyed: Any, message: str) -> list[str]:
    """``pieces`` with each keyed slot at the value the recording showed for this kind of failure (the
    message's first word), or at the value other kinds showed."""
    if not isinstance(keyed, dict):
        return pieces
    out = list(pieces)
    for index, rule in keyed.items():
        table = rule.get("by_lead") if isinstance(rule, dict) else None
        if not (str(index).isdigit() and int(index) < len(out) and isinstance(table, dict)):
            continue
        value = table.get(_lead(message), rule.get("default"))
        if isinstance(value, str):
            out[int(index)] = value
    return out


def _message(answer: Prediction) -> str:
    if answer.text is not None:
        return answer.text
    seen = answer.observation
    if isinstance(seen, str):
        return seen
    if isinstance(seen, dict) and isinstance(seen.get("error"), str):
        return str(seen["error"])
    return json.dumps(seen)


def _named(piece: str, tool: str, prefix: str) -> str:
    if piece == MESSAGE:
        return piece
    verb = tool[len(prefix):] if prefix and tool.startswith(prefix) else tool
    return piece.replace(TOOL, tool).replace(VERB, verb)


def _inside(pieces: list[str], text: str, keyed: set[int]) -> str | None:
    """The message of ``text`` where it is in the frame already, for whichever tool (a keyed slot at any
    value); None where it is not."""
    pattern = ""
    for index, piece in enumerate(pieces):
        if index in keyed:
            pattern += r"\w+"
            continue
        if piece == MESSAGE:
            pattern += "(?P<message>.*?)"
            continue
        for part in re.split(r"(\{\{(?:tool|verb)\}\})", piece):
            pattern += r"[\w.-]+" if part in (TOOL, VERB) else re.escape(part)
    match = re.fullmatch(pattern, text, re.DOTALL)
    if match is None:
        return None
    return match.group("message") if MESSAGE in pieces else ""


__all__ = ["ERROR_ENVELOPE_META", "MESSAGE", "TOOL", "VERB", "error_envelope", "with_error_envelope"]
