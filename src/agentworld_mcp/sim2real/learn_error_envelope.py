"""The error envelope a server wraps all its refusals in, learned once per catalog from a recording.

A server reports every failure the same way, whichever tool failed and whatever failed under it:
``Error: Tool X failed: Exit Code: 1\\nStderr: <the message>\\n\\nStdout: `` around a library's own
words, or ``Error executing tool X`` instead of them. ``learn`` aligns the recorded ``isError``
texts of the whole catalog, token by token, into one frame: the literal text they share, with slots
where they differ. The slot whose values are longest is the specific message (``{{message}}``);
another slot keeps the value it showed most often, or the tool's name where it showed that. A frame
without a slot replaces the message altogether. The learned frame goes under every tool's
``_meta["agentworld/error_envelope"]`` (:mod:`..models.deterministic.learned_error_envelope` serves it)::

    {"pieces": ["Error: Git ", "{{verb}}", " failed: Exit Code: ", "1", "\\nStderr: ", "{{message}}",
                "\\n\\nStdout: "], "prefix": "git_", "isError": true}

A slot that is no message but whose value differs between refusals (git's exit code: 128 after
``fatal:``, 1 after ``error:`` or a command's own words) is also kept as ``"keyed"``: a table from the
message's first word to the value it showed, and for any other word the value the rarely seen kinds
showed (``{"3": {"by_lead": {"fatal": "128", "error": "1"}, "default": "1"}}``).

A frame needs two refusals at least, and the most that agree on it: a server whose refusals share
nothing learns none.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from typing import Any

from ..models.deterministic.learned_error_envelope import ERROR_ENVELOPE_META, MESSAGE, TOOL, VERB
from ..models.deterministic.learned_state import answer_text
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .proxy import JSONRPC_ERROR
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: Tokens: a placeholder, a run of spaces, a word, one other character.
_TOKEN = re.compile(r"\{\{\w+\}\}|\s+|\w+|[^\w\s]")
#: A refusal of the call's arguments by a validator: the protocol layer's words, not the server's envelope.
_INVALID_INPUT = re.compile(r"input validation error|invalid arguments? for tool|validation error", re.IGNORECASE)
#: Shared text shorter than this (a colon, a space) is no part of a frame.
_MIN_SHARED = 3
#: A refusal joins a frame only where the frame keeps this share of its literal text.
_KEEP = 0.6
#: Most refusals aligned (the alignment is quadratic in them).
_MOST = 40
_SLOT = None


def learn_error_envelope(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> JSONDict | None:
    """The catalog's error envelope (see the module doc), or None where the recording shows none."""
    names = [s.name for s in catalog]
    prefix = _common_prefix(names)
    texts: list[list[str]] = []  # each refusal's tokens, the tool's name as a placeholder
    for turns in episodes.values():
        for turn in turns:
            text = answer_text(turn.result)
            thrown = isinstance(turn.result.get(JSONRPC_ERROR), dict)
            if not (turn.result.get("isError") or thrown) or not text.strip() or _INVALID_INPUT.search(text):
                continue
            texts.append(_tokens(_named(text, turn.tool, prefix)))
    texts = texts[:_MOST]
    if len(texts) < 2:
        return None
    need = max(2, (len(texts) + 1) // 2)  # most refusals agree on the frame
    best: tuple[int, list[str | None], list[int]] | None = None
    for seed in range(len(texts)):
        frame: list[str | None] = list(texts[seed])
        members = [seed]
        for other in range(len(texts)):
            if other == seed:
                continue
            merged = _merge(frame, texts[other])
            if _framed(merged) and (len(members) == 1 or _literal(merged) >= _KEEP * _literal(frame)):
                frame, members = merged, members + [other]
        if len(members) >= need and (best is None or len(members) * _literal(frame) > best[0]):
            best = (len(members) * _literal(frame), frame, members)
    if best is None:
        return None
    _, frame, members = best
    pieces = _pieces(frame)
    values = [v for m in members if (v := _slot_values(pieces, "".join(texts[m]))) is not None]
    filled = _filled_pieces(pieces, values)
    if filled is None:
        return None
    envelope: JSONDict = {"pieces": filled[0], "prefix": prefix, "isError": True}
    if filled[1]:
        envelope["keyed"] = filled[1]
    return envelope


def add_error_envelope_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """The learned envelope under every tool's ``_meta`` (one server, one envelope); how many tools."""
    envelope = learn_error_envelope(episodes, catalog)
    if envelope is None:
        return 0
    return write_meta(data, ERROR_ENVELOPE_META, {t.get("name", ""): envelope for t in data["tools"]})


def _common_prefix(names: list[str]) -> str:
    """The prefix every tool name shares, up to its last ``_`` (``git_``): what a tool's verb follows."""
    if len(names) < 2:
        return ""
    shared = os.path.commonprefix(names)
    return shared[: shared.rfind("_") + 1] if "_" in shared else ""


def _named(text: str, tool: str, prefix: str) -> str:
    """``text`` with the tool's name (and its verb, the name past the catalog's prefix) as placeholders."""
    text = re.sub(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", TOOL, text)
    verb = tool[len(prefix):] if prefix and tool.startswith(prefix) else ""
    if verb:
        text = re.sub(rf"(?<![\w-]){re.escape(verb)}(?![\w-])", VERB, text, count=1)
    return text


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _framed(frame: list[str | None]) -> bool:
    """Whether a frame wraps something: shared text at its start or its end, enough of it."""
    return bool(frame) and (frame[0] is not None or frame[-1] is not None) and _literal(frame) >= _MIN_SHARED


def _literal(frame: list[str | None]) -> int:
    return sum(len(t) for t in frame if t is not None)


def _merge(frame: list[str | None], tokens: list[str]) -> list[str | None]:
    """The frame's literal tokens that ``tokens`` shares, in order, runs of shared text long enough only;
    everything else a slot."""
    marked = [t if t is not None else "\0" for t in frame]
    matcher = difflib.SequenceMatcher(None, marked, tokens, autojunk=False)
    out: list[str | None] = []
    i = j = 0
    for a, b, size in matcher.get_matching_blocks():
        block = marked[a:a + size]
        if size and ("\0" in block or len("".join(block)) < _MIN_SHARED) and (a, b) != (0, 0):
            continue  # a chance match inside a message: part of the slot around it
        if a > i or b > j:
            out.append(_SLOT)
        out.extend(block)
        i, j = a + size, b + size
    if i < len(marked) or j < len(tokens):
        out.append(_SLOT)
    collapsed: list[str | None] = []
    for token in out:
        if not (token is _SLOT and collapsed and collapsed[-1] is _SLOT):
            collapsed.append(token)
    return collapsed


def _pieces(frame: list[str | None]) -> list[str | None]:
    """Runs of literal tokens joined into one text; slots as None."""
    pieces: list[str | None] = []
    for token in frame:
        if token is not None and pieces and pieces[-1] is not None:
            pieces[-1] += token
        else:
            pieces.append(token)
    return pieces


def _slot_values(pieces: list[str | None], text: str) -> list[str] | None:
    """What each slot of ``pieces`` holds in ``text``; None where ``text`` does not fit the frame."""
    pattern = "".join("(.*?)" if p is None else re.escape(p) for p in pieces)
    match = re.fullmatch(pattern, text, re.DOTALL)
    return list(match.groups()) if match else None


def _filled_pieces(pieces: list[str | None], values: list[list[str]]) -> tuple[list[str], dict[str, JSONDict]] | None:
    """The frame with its message slot named and every other slot at the value it shows most; a slot whose
    value followed the kind of failure also as a table (piece index -> :func:`_by_lead`)."""
    slots = [i for i, p in enumerate(pieces) if p is None]
    if not slots:
        return [p for p in pieces if p is not None], {}
    if not values:
        return None
    lengths = [sum(len(v[n]) for v in values) for n in range(len(slots))]
    message = slots[lengths.index(max(lengths))]
    keyed: dict[str, JSONDict] = {}
    for n, index in enumerate(slots):
        seen = [v[n] for v in values]
        if index == message:
            pieces[index] = MESSAGE
        elif VERB in seen or TOOL in seen:
            pieces[index] = VERB if VERB in seen else TOOL
        else:
            pieces[index] = Counter(seen).most_common(1)[0][0]
            by_lead = _by_lead(seen, [v[slots.index(message)] for v in values])
            if by_lead is not None:
                keyed[str(index)] = by_lead
    out: list[str] = [p for p in pieces if p is not None]
    return out, keyed


def _lead(message: str) -> str:
    """The first word of a refusal's message (``fatal``, ``error``, ``usage``): what kind of failure it is."""
    match = re.match(r"\W*(\w+)", message)
    return match.group(1).lower() if match else ""


def _by_lead(seen: list[str], messages: list[str]) -> JSONDict | None:
    """A slot whose value followed the kind of failure (an exit code: ``fatal:`` 128, ``error:`` 1) as a table
    from the message's first word to the value, with the value of the other messages as the default; None
    where the slot showed one value only."""
    if len(set(seen)) < 2:
        return None
    by_word: dict[str, list[str]] = {}
    for value, message in zip(seen, messages):
        by_word.setdefault(_lead(message), []).append(value)
    table = {word: Counter(vals).most_common(1)[0][0] for word, vals in by_word.items() if word}
    # a word seen once marks nothing yet: what such messages showed is what an unseen kind shows
    rare = [v for word, vals in by_word.items() if len(vals) == 1 or not word for v in vals]
    default = Counter(rare or seen).most_common(1)[0][0]
    return {"by_lead": table, "default": default}


__all__ = ["add_error_envelope_meta", "learn_error_envelope"]
