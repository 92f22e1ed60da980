"""How a server reports a refusal when it never sets ``isError``: learned once per catalog from a recording.

Many servers answer a call they refuse as an ordinary result, ``{"error": "No file path is set. Use
set_file first."}`` with ``isError: false``. Where every refusal the recording shows is such an answer
(an object whose one text field under an error-like key says what went wrong) and none is flagged,
``learn`` writes under every tool's ``_meta["agentworld/inband_refusal"]``::

    {"key": "error", "texts": ["No file path is set. Use set_file first.", ...]}

:mod:`..models.deterministic.learned_inband_refusal` then answers any refusal of the model in that form,
worded as the recorded refusal it resembles most. A recording with a flagged refusal learns no catalog-wide form;
a tool whose every recorded refusal is prose never flagged still gets its own (``{"prose": true, "texts": [...]}``):
its refusals are served unflagged, as that text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..models.deterministic.learned_inband_refusal import INBAND_REFUSAL_META
from ..models.deterministic.learned_state import answer_data, answer_text, failed
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: Keys under which an answer states its refusal.
_ERROR_KEY = re.compile(r"^(?:error|err|error_?message|errorMessage|failure)$", re.IGNORECASE)
#: A refusal of the call's arguments by a validator: the protocol layer's, flagged whatever the server does.
_INVALID_INPUT = re.compile(r"input validation error|invalid arguments? for tool|validation error", re.IGNORECASE)
#: Most recorded wordings kept (each is compared with every refusal the world makes).
_MOST = 40


def _refusal(result: JSONDict) -> tuple[str, str] | None:
    """(key, text) of an unflagged answer that is a refusal: an object with an error-like key holding text,
    and no success status beside it."""
    data = answer_data(result)
    if not isinstance(data, dict) or str(data.get("status", "")).lower() in ("success", "ok"):
        return None
    found = [(k, v) for k, v in data.items() if _ERROR_KEY.match(str(k)) and isinstance(v, str) and v.strip()]
    return found[0] if len(found) == 1 else None


def learn_inband_refusal(episodes: dict[str, list[RecordedTurn]]) -> JSONDict | None:
    """The catalog's in-band refusal form (see the module doc), or None."""
    keys: Counter[str] = Counter()
    texts: list[str] = []
    for turns in episodes.values():
        for turn in turns:
            if turn.result.get("isError"):
                text = " ".join(str(c.get("text", "")) for c in turn.result.get("content") or [] if isinstance(c, dict))
                if not _INVALID_INPUT.search(text):
                    return None  # the server flags refusals: its own envelope, not this form
                continue
            refusal = _refusal(turn.result)
            if refusal is not None:
                keys[refusal[0]] += 1
                if refusal[1] not in texts:
                    texts.append(refusal[1])
    if not keys:
        return None
    return {"key": keys.most_common(1)[0][0], "texts": texts[:_MOST]}


def learn_prose_refusals(episodes: dict[str, list[RecordedTurn]]) -> dict[str, JSONDict]:
    """Per tool, ``{"prose": true, "texts": [...]}`` where every refusal the recording shows of it is prose never
    flagged (``Search content not found in a.txt ...`` with ``isError: false``) though the server flags others."""
    found: dict[str, list[str]] = {}
    flagged: set[str] = set()
    for turns in episodes.values():
        for turn in turns:
            if turn.result.get("isError"):
                flagged.add(turn.tool)
            elif answer_data(turn.result) is None and failed(turn.result):
                text = answer_text(turn.result).strip()
                if text and text not in found.setdefault(turn.tool, []):
                    found[turn.tool].append(text)
    return {tool: {"prose": True, "texts": texts[:_MOST]} for tool, texts in found.items()
            if texts and tool not in flagged}


def add_inband_refusal_meta(data: JSONDict, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Writes the learned form under every tool of ``data`` (else each tool's own prose form); how many tools."""
    form = learn_inband_refusal(episodes)
    if form is None:
        return write_meta(data, INBAND_REFUSAL_META, learn_prose_refusals(episodes))
    return write_meta(data, INBAND_REFUSAL_META, {str(t.get("name", "")): form for t in data["tools"]})


__all__ = ["add_inband_refusal_meta", "learn_inband_refusal", "learn_prose_refusals"]
