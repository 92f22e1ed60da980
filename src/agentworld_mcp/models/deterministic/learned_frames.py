"""Text frames learned from a file server's answers: a header line that states the page, then the file's lines.

Some file servers answer a read as ``[Reading 3 lines from line 2 (total: 9 lines, 4 remaining)]``, a blank line,
then the lines, and an edit with the same header above the file's new text. ``learn``
(``sim2real/learn_frames.py``) writes under the tool's ``_meta``::

    "agentworld/text_frame": {"sep": "\\n\\n", "count": "lines", "body": "page",
                              "variants": [{"when": {"paged": true, "from_end": false, "at_start": false},
                                            "text": "[Reading {{page.shown}} lines from line {{page.start}} ..."}]}

``body`` says what follows the header: the page the model read (``page``) or the file's text after the call
(``file``); ``trail`` whether the server ends the lines it shows with a newline; ``count`` how the server counts a
text's lines (``lines``: a final newline ends a line; ``pieces``: it starts an empty one). Each variant's header is
filled from the episode's own file (lines shown, first line, total, lines remaining: ``text_pages.Page``) and the
call's own text arguments (``{{args.path}}``); the variant whose call was most like this one (paged or whole, from
the end, from the start) is chosen. Nothing of the recording's files is replayed.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from .text_pages import Page, lines_of, page_of

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned frame.
FRAME_META = "agentworld/text_frame"
PAGE_SLOT = re.compile(r"\{\{page\.(\w+)\}\}")
ARG_SLOT = re.compile(r"\{\{args\.(\w+)\}\}")
FEATURES = ("paged", "from_end", "at_start")


def count_lines(text: str, how: str) -> int:
    """``text``'s lines as a server counts them (``pieces``: what splitting on newlines gives)."""
    return len(text.split("\n")) if how == "pieces" else len(lines_of(text))


def page_features(page: Page, paged: bool) -> dict[str, bool]:
    """What a call asked of its file, as the variants are told apart."""
    return {"paged": paged, "from_end": page.from_end, "at_start": page.start == 0}


def choose_variant(variants: list[JSONDict], features: dict[str, bool]) -> JSONDict | None:
    """The variant learned from the calls most like this one (then the one most calls showed)."""
    scored = [(sum(v.get("when", {}).get(f) == features[f] for f in FEATURES), v.get("seen", 1), -i, v)
              for i, v in enumerate(variants) if isinstance(v, dict) and isinstance(v.get("text"), str)]
    return max(scored, key=lambda s: s[:3])[3] if scored else None


def fill_header(template: str, quantities: dict[str, int], arguments: JSONDict) -> str | None:
    """``template`` with each page slot and each argument slot filled; None when one has no value here."""
    missing = [m.group(1) for m in PAGE_SLOT.finditer(template) if m.group(1) not in quantities]
    if missing or any(not isinstance(arguments.get(m.group(1)), str) for m in ARG_SLOT.finditer(template)):
        return None
    filled = PAGE_SLOT.sub(lambda m: str(quantities[m.group(1)]), template)
    return ARG_SLOT.sub(lambda m: str(arguments[m.group(1)]), filled)


def _frame(step: Step) -> JSONDict | None:
    how = (step.tool.definition.get("_meta") or {}).get(FRAME_META)
    return how if isinstance(how, dict) and isinstance(how.get("variants"), list) else None


def _new_text(answer: Prediction) -> str | None:
    for effect in answer.effects or ():
        if effect.collection == "files" and isinstance(effect.fields.get("content"), str):
            return str(effect.fields["content"])
    return None


def framed(step: Step, answer: Prediction, file_text: str | None) -> Prediction:
    """The model's ``answer`` in the tool's learned frame (``file_text``: the file the call read, as it was)."""
    from .common import structured_text

    how = _frame(step)
    if how is None or answer.is_error:
        return answer
    counting = str(how.get("count") or "lines")
    if how.get("body") == "file":
        body = _new_text(answer)
        if body is None:
            return answer
        body = body.removesuffix("\n") + ("\n" if how.get("trail") else "")
        shown = count_lines(body, counting)
        page, paged = Page([""] * shown, 0, shown), False
    else:
        if file_text is None or not isinstance(answer.observation, str):
            return answer
        body = "\n".join(lines_of(answer.observation)) + ("\n" if how.get("trail") else "")
        asked = page_of(file_text, step.arguments, step.tool.input_schema)
        paged = asked is not None
        page = asked if asked is not None else Page([""] * count_lines(body, counting), 0,
                                                    count_lines(body, counting))
    variant = choose_variant(how["variants"], page_features(page, paged))
    header = fill_header(str(variant["text"]), page.quantities(), step.arguments) if variant is not None else None
    if header is None:
        return answer
    served = structured_text(step, header + str(how.get("sep", "\n\n")) + body)
    return dataclasses.replace(served, effects=answer.effects, info={**answer.info, "learned_frame": True})


__all__ = ["FEATURES", "FRAME_META", "PAGE_SLOT", "choose_variant", "count_lines", "fill_header", "framed",
           "page_features"]
