"""A learned world's refusals in the form the recorded server gives them: in band, never flagged.

``sim2real/learn_inband_refusal.py`` writes ``_meta["agentworld/inband_refusal"] = {"key": "error", "texts":
[...]}`` where the recording's server answers every refusal as an ordinary result ``{"error": "..."}``.
Whatever refuses a call in such a world (the editor's "no file is set", a file model's "not a
directory", a record's "not found") is answered the same way: ``{key: message}`` with ``isError: false``.

The message is worded as the recorded refusal it resembles most, where one resembles it closely (the
model's "No file is set. Set the current file first." reads as the server's "No file path is set. Use
set_file first."): the two are aligned word by word (a tool learned with ``{"prose": true}`` answers the worded
text itself, unflagged); the server's words stand, except where a single
lower-case word of each differs (the call's own specific: ``apply`` where the recording said it of a ``confirm``,
``discard`` of a ``cancel``), which keeps the model's.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from typing import Any

from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding the catalog's learned in-band refusal form.
INBAND_REFUSAL_META = "agentworld/inband_refusal"
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
#: A recorded wording replaces the model's only when this alike (word tokens, difflib's ratio).
_ALIKE = 0.55


def inband_form(step: Step) -> JSONDict | None:
    found = (step.tool.definition.get("_meta") or {}).get(INBAND_REFUSAL_META)
    return found if isinstance(found, dict) and (isinstance(found.get("key"), str) or found.get("prose") is True) \
        else None


def with_inband_refusal(step: Step, answer: Prediction) -> Prediction:
    """``answer`` as the server's in-band refusal where it is a refusal and the world learned the form."""
    form = inband_form(step)
    if form is None or not answer.is_error:
        return answer
    message = _message(answer)
    texts = [t for t in form.get("texts") or [] if isinstance(t, str)]
    worded = reworded(message, texts)
    if form.get("prose") is True:  # this tool's refusals are its prose, unflagged
        return dataclasses.replace(answer, observation=worded, text=worded, is_error=False, effects=[], checked=False)
    body = {form["key"]: worded}
    validator = step.tool.output_validator
    if validator is not None and not validator.is_valid(body):  # a declared shape the form breaks: stay flagged
        return answer
    return dataclasses.replace(answer, observation=body, text=json.dumps(body), is_error=False, effects=[],
                               checked=False)


def _message(answer: Prediction) -> str:
    seen = answer.observation
    if isinstance(seen, dict):
        found = next((v for v in seen.values() if isinstance(v, str)), None)
        if found is not None:
            return found
    if isinstance(seen, str):
        return seen
    return answer.text if answer.text is not None else json.dumps(seen)


def _words(tokens: list[str]) -> list[str]:
    return [t for t in tokens if not t.isspace()]


def _specific(tokens: list[str]) -> bool:
    """One lower-case word or a number (``apply``, ``discard``, ``3``): a call's specific, not a sentence's start or a
    mark."""
    words = _words(tokens)
    return len(words) == 1 and words[0].isalnum() and not words[0][:1].isupper()


def reworded(message: str, recorded: list[str]) -> str:
    """``message`` in the words of the recorded refusal most like it (see the module doc), else as it is."""
    found = aligned(message, recorded)
    return message if found is None else found


def aligned(message: str, recorded: list[str], numbers_only: bool = False) -> str | None:
    """``message`` in the words of the recorded refusal most like it, the call's specifics (a number, a name: one
    token for one; only numbers with ``numbers_only``) kept as the model said them; None where none is alike."""
    mine = _TOKEN.findall(message)
    best, score = None, _ALIKE
    for text in recorded:
        theirs = _TOKEN.findall(text)
        ratio = difflib.SequenceMatcher(None, _words(mine), _words(theirs), autojunk=False).ratio()
        if ratio >= score:
            best, score = theirs, ratio
    if best is None:
        return None
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, best, autojunk=False).get_opcodes():
        ours, theirs = mine[i1:i2], best[j1:j2]
        if op == "replace" and _specific(ours) and _specific(theirs) and (
                not numbers_only or all(w.isdigit() for w in _words(ours) + _words(theirs))):
            out += ours  # one word for one word: the call's own specific
        elif op != "delete":
            out += theirs
    return "".join(out)


__all__ = ["INBAND_REFUSAL_META", "aligned", "inband_form", "reworded", "with_inband_refusal"]
