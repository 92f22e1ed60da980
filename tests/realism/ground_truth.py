"""Answers recorded from real servers, and how ours are compared with them.

``ground_truth/NAME.jsonl`` holds one line per episode step, written by
``record_ground_truth.py``: the tool, the arguments the real server got, and its raw
``CallToolResult``. Ours is compared on what a client depends on, never on values that
differ run to run (timestamps, generated ids are masked):

* the same outcome (``isError``);
* JSON answers: the same structure (the real answer's keys are all there, with values of
  the same JSON type) and ids in the same format (``req-1``, ``task-1``);
* prose answers: the same wording, digits and quoted values masked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .checks import Answer, walk

GROUND_TRUTH = Path(__file__).resolve().parent / "ground_truth"
_ID_KEY = re.compile(r"(^id$|Id$|_id$|^key$)")


def path_of(name: str) -> Path:
    return GROUND_TRUTH / f"{name}.jsonl"


def load(name: str) -> list[Answer]:
    path = path_of(name)
    if not path.exists():
        return []
    return [Answer.of(json.loads(line)["result"]) for line in path.read_text().splitlines() if line.strip()]


def compare(ours: Answer, real: Answer) -> list[tuple[str, str | None]]:
    """``(what, reason or None)`` for each way ``ours`` should match ``real``."""
    results: list[tuple[str, str | None]] = [("same outcome (isError)", _same_outcome(ours, real))]
    if real.is_error:
        return results
    if real.data is not None:
        results.append(("same JSON structure", _same_shape(ours.data, real.data, "")))
        if _ids(real.data):
            results.append(("ids in the same format", _same_ids(ours.data, real.data)))
    else:
        results.append(("same wording", _same_wording(ours.text, real.text)))
    return results


def _same_outcome(ours: Answer, real: Answer) -> str | None:
    if ours.is_error == real.is_error:
        return None
    return f"isError {ours.is_error}, the real server's {real.is_error}: {_short(ours.text)}"


def _same_shape(ours: Any, real: Any, where: str) -> str | None:
    if ours is None:
        return "no JSON in our answer"
    if _kind(ours) != _kind(real):
        return f"{where or 'answer'} is {_kind(ours)}, the real server's is {_kind(real)}"
    if isinstance(real, dict):
        for key, value in real.items():
            if key not in ours:
                return f"{where + '.' if where else ''}{key} missing (the real server has it)"
            reason = _same_shape(ours[key], value, f"{where + '.' if where else ''}{key}") if value is not None else None
            if reason:
                return reason
    if isinstance(real, list) and real and isinstance(real[0], (dict, list)):
        if not ours:
            return f"{where or 'answer'} is empty, the real server's has {len(real)} items"
        return _same_shape(ours[0], real[0], f"{where}[0]")
    return None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string", type(None): "null"}.get(type(value), "other")


def _ids(data: Any) -> dict[str, str]:
    """The first value of each id-like key, masked (digits to #)."""
    found: dict[str, str] = {}
    for node in walk(data):
        for key, value in node.items():
            if _ID_KEY.search(key) and isinstance(value, (str, int)) and key not in found:
                found[key] = re.sub(r"\d+", "#", str(value))
    return found


def _same_ids(ours: Any, real: Any) -> str | None:
    theirs, mine = _ids(real), _ids(ours)
    wrong = {k: (mine.get(k), v) for k, v in theirs.items() if mine.get(k) != v}
    return None if not wrong else "; ".join(f"{k}: ours {a!r}, real {b!r}" for k, (a, b) in wrong.items())


_MASKS = [
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\d+(\.\d+)?"), "#"),
    (re.compile(r"\s+"), " "),
]


def wording(text: str) -> str:
    """``text`` with what differs run to run masked: times, uuids, numbers, spacing."""
    for regex, mask in _MASKS:
        text = regex.sub(mask, text)
    return text.strip()


def _same_wording(ours: str, real: str) -> str | None:
    a, b = wording(ours), wording(real)
    return None if a == b else f"ours {_short(a)}, real {_short(b)}"


def _short(text: str) -> str:
    return repr(text if len(text) <= 100 else text[:97] + "...")
