"""Sentence templates learned from a real server's prose answers, filled for a new call.

Where a tool answers in sentences (``Switched to branch 'fix/typo'``, ``Changes committed
successfully with hash 3f2a...``), ``learn`` (``sim2real/learn_text.py``) writes under its ``_meta``::

    "agentworld/text_template": {"text": "Switched to branch '{{args.branch_name}}'", "over_errors": true}

Slots, each filled from this call and the episode, never from the recording:

* ``{{args.PATH}}``: the call's argument at ``PATH`` (``files[0]``);
* ``{{last.TOOL.ARG}}``: argument ``ARG`` of the latest successful call of ``TOOL`` in the episode
  (the branch a checkout switched to, shown by a later status line);
* ``{{fresh.hex.N}}``: a new lowercase hex string of ``N`` characters (a commit hash), from the
  episode's seed;
* ``{{lines.PATH}}`` / ``{{pieces.PATH}}``: how many lines the call's text argument at ``PATH`` holds (``pieces``:
  a final newline starts one more, as splitting on newlines counts: ``Successfully wrote to a.txt (3 lines)``).

A tool whose answers differ by the value of one argument (``mode: append`` -> ``Successfully appended to ...``)
has ``"cases": {"arg": "mode", "texts": {"append": ..., "rewrite": ...}}`` beside ``text``; a call that leaves
the argument out takes its declared default's case.

The deterministic model still answers the call first, so its effects (what the call changed) are
kept; only its text is replaced. Where the model failed on calls the real server answered (a tool
it reads as something it is not), ``over_errors`` says the template answers those too. A slot that
this episode cannot fill (no call of ``TOOL`` yet) leaves the model's answer as it was: the
recording is silent there.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from .learned_envelope import substituted, value_at

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned sentence template.
TEXT_META = "agentworld/text_template"
SLOT = re.compile(r"\{\{(args|last|fresh|lines|pieces)\.([^{}]+)\}\}")
_HEX = "0123456789abcdef"


def text_template(step: Step) -> JSONDict | None:
    """The tool's learned template, or None."""
    how = (step.tool.definition.get("_meta") or {}).get(TEXT_META)
    return how if isinstance(how, dict) and isinstance(how.get("text"), str) else None


def render_text(step: Step, template: str) -> str | None:
    """``template`` filled for this call; None when a slot has no value in this episode."""
    return substituted(SLOT, template, lambda match: slot_value_of(step, match.group(1), match.group(2)))


def slot_value_of(step: Step, source: str, path: str) -> Any:
    """The value of one slot (``args.<path>``, ``last.<tool>.<arg>``, ``fresh.hex.<size>``) for this call, or None."""
    if source == "args":
        return value_at(step.arguments, path)
    if source == "last":
        tool, _, arg = path.partition(".")
        return latest_argument(step, tool, arg)
    if source in ("lines", "pieces"):  # how many lines an argument's text holds, as the server counts them
        text = value_at(step.arguments, path)
        if not isinstance(text, str):
            return None
        return len(text.split("\n")) if source == "pieces" else len(text.replace("\r\n", "\n").splitlines())
    if source == "fresh":
        kind, _, size = path.partition(".")
        if kind == "hex" and size.isdigit():
            return "".join(step.rng.choice(_HEX) for _ in range(min(int(size), 128)))
    return None


def latest_argument(step: Step, tool: str, arg: str) -> Any:
    """Argument ``arg`` of the latest successful call of ``tool`` in the episode; where the episode made no such
    call, what the world's standing state holds as current for it (a seeded ``current_user`` for a login's
    ``username``: who logged in before the episode began), or None."""
    for turn in reversed(list(step.episode.turns)):
        if turn.tool == tool and not turn.result.get("isError") and arg in turn.arguments:
            return turn.arguments[arg]
    return standing_current(step, arg)


#: How a standing state names what a session chose before the episode (``current_user``, ``active_account``).
_CURRENT = ("current", "active", "logged_in", "selected")


def standing_current(step: Step, arg: str) -> Any:
    """The standing state's scalar that holds the current ``arg`` (``username`` -> ``current_user``), or None."""
    from .determined import name_key, standing

    noun = re.sub(r"(?<=[a-z])_?(?:id|name|key)$", "", arg, flags=re.IGNORECASE) or arg
    wanted = {name_key(f"{prefix}_{n}") for prefix in _CURRENT for n in {noun, arg}}
    for entity in standing(step):
        for field, value in entity.fields.items():
            if name_key(field) in wanted and isinstance(value, (str, int)) and not isinstance(value, bool):
                return value
    return None


def case_text(step: Step, how: JSONDict) -> str:
    """The template for this call: its argument's case where the tool's answers differ by one, else ``text``."""
    cases = how.get("cases")
    if isinstance(cases, dict) and isinstance(cases.get("texts"), dict):
        arg = str(cases.get("arg"))
        spec = ((step.tool.input_schema.get("properties") or {}).get(arg)) or {}
        value = step.arguments.get(arg, spec.get("default") if isinstance(spec, dict) else None)
        found = cases["texts"].get(str(value))
        if isinstance(found, str):
            return found
    return str(how["text"])


def templated(step: Step, answer: Prediction, how: JSONDict) -> Prediction:
    """The model's ``answer`` with the learned sentence in place of its text (its effects kept)."""
    from .common import structured_text

    if answer.is_error and not how.get("over_errors"):
        return answer
    text = render_text(step, case_text(step, how))
    if text is None:
        return answer
    served = structured_text(step, text)
    return dataclasses.replace(served, effects=[] if answer.is_error else answer.effects,
                               info={**answer.info, "learned_text": True})


__all__ = ["SLOT", "TEXT_META", "case_text", "latest_argument", "render_text", "slot_value_of", "templated",
           "text_template"]
