"""Text frames ``learn`` reads from a file tool's recorded answers (served by
``models/deterministic/learned_frames.py``).

A file server may answer a read with a header that states the page (``[Reading 2 lines from line 2 (total: 5
lines, 1 remaining)]``, or ``File: a.txt`` over ``Lines 2-3 of 5``), a blank line, then the lines; an edit with the
same header over the file's new text. For a file tool whose successful answers are mostly framed so (a header of up
to three lines that states the body's count of lines, or the first and last line spanning it), this module finds:

* how the server counts lines: a final newline ends a line, or starts one more (the pieces between newlines);
* what the body is: the page read, or, for a tool that changes the file, its new text (the body holds the call's
  new text);
* the header's numbers as the page's quantities (lines shown, total, remaining, first line, offset), read from the
  call's paging arguments (``text_pages.page_of``) and the body; a number that equals two quantities takes the one
  the tool's other answers agree on, else one no other number of the header took;
* one header per kind of call (paged or whole, from the end, from the start), so a new call gets the header of the
  call most like it.

The call's text arguments the header names (its path) are slots too. A number no quantity explains stays as
recorded; nothing of the recording's files is kept in the frame.
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.learned_frames import FRAME_META, count_lines, page_features
from ..models.deterministic.learned_state import answer_data, answer_text, failed
from ..models.deterministic.text_pages import Page, window
from ..world.catalog import Catalog, ToolSpec
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.]|\.\d)")
#: Quantities a header's number may be, in the order a tie is broken.
_ORDER = ("shown", "total", "remaining", "first", "start", "last")
_SEP = "\n\n"
_MAX_HEADER = 300
#: A header is this many lines at most (``File: a.txt`` over ``Lines 3-5 of 120``).
_HEADER_LINES = 3
#: Shorter text arguments are not looked for in a header (``a``, ``md``).
_MIN_ARG = 3
#: A header's number above this is not believed as a file's length.
_MAX_TOTAL = 100_000
_CHANGES = {"edit", "write"}
_NEW = re.compile(r"(?:^|_)(?:new|replace|replacement|content|text)(?:_|$)|^new[A-Z]", re.IGNORECASE)


def _split(text: str) -> tuple[str, str] | None:
    head, sep, body = text.partition(_SEP)
    if not sep or head.count("\n") >= _HEADER_LINES or len(head) > _MAX_HEADER or not _NUMBER.search(head) \
            or not body.strip():
        return None
    return head, body


def _states(head: str, count: int) -> bool:
    """Whether ``head`` states a page of ``count`` lines: the count itself, or a first and a last line that span it
    (``lines 3-5 of 120``)."""
    numbers = [int(n) for n in _NUMBER.findall(head)]
    return count in numbers or any(0 <= b - a == count - 1 for a, b in zip(numbers, numbers[1:]))


def _named_args(template: str, args: JSONDict) -> str:
    """The call's text arguments the header names (``File: /w/a.txt``) as ``{{args.NAME}}`` slots, outside the page
    slots (the longest first: a path before the folder it starts with)."""
    for name, value in sorted(args.items(), key=lambda kv: -len(str(kv[1]))):
        if not isinstance(value, str) or len(value) < _MIN_ARG or value.isdigit():
            continue
        parts = re.split(r"(\{\{[^{}]*\}\})", template)
        template = "".join(p if p.startswith("{{") else p.replace(value, "{{args." + name + "}}") for p in parts)
    return template


def _new_texts(args: JSONDict) -> list[str]:
    return [v for k, v in args.items() if isinstance(v, str) and v.strip() and _NEW.search(k)]


def _page(turn: RecordedTurn, spec: ToolSpec, shown: int, numbers: list[int]) -> tuple[Page, bool]:
    """The page the call asked for; its total the header's number that makes it show ``shown`` lines and explains
    most of the header's numbers."""
    if window(0, turn.arguments, spec.input_schema) is None:
        return Page([""] * shown, 0, shown), False
    best: tuple[int, Page] | None = None
    for total in sorted({shown, *(n for n in numbers if n <= _MAX_TOTAL)}):  # a stated length past it: not believed
        found = window(total, turn.arguments, spec.input_schema)
        if found is not None and found[1] - found[0] == shown:
            page = Page([""] * shown, found[0], total, found[2])
            explained = sum(any(v == n for v in page.quantities().values()) for n in numbers)
            if best is None or explained > best[0]:
                best = (explained, page)
    return (best[1], True) if best is not None else (Page([""] * shown, 0, shown), True)


def _candidates(head: str, quantities: dict[str, int]) -> list[list[str]]:
    return [[name for name in _ORDER if quantities.get(name) == int(m.group(0))] for m in _NUMBER.finditer(head)]


def _template(head: str, chosen: list[str | None]) -> str:
    parts, last = [], 0
    for match, name in zip(_NUMBER.finditer(head), chosen):
        parts.append(head[last:match.start()])
        parts.append(match.group(0) if name is None else "{{page." + name + "}}")
        last = match.end()
    return "".join(parts) + head[last:]


def _assign(candidates: list[list[str]], agreed: list[set[str]] | None) -> list[str | None]:
    """One quantity per number: the one every answer of this header allows, else one no other number took."""
    chosen: list[str | None] = [None] * len(candidates)
    taken: set[str] = set()
    pool = [[c for c in cands if agreed is None or c in agreed[i]] or cands for i, cands in enumerate(candidates)]
    for i in sorted(range(len(pool)), key=lambda i: len(pool[i])):
        free = [c for c in pool[i] if c not in taken] or pool[i]
        if free:
            chosen[i] = free[0]
            taken.add(free[0])
    return chosen


def framed_text(text: str) -> tuple[str, str] | None:
    """(header, body) of a text whose header states the page of the body's lines (either count), or None.
    Such an answer is a file's page however its lines read (a log's ``ERROR`` lines are no refusal)."""
    split = _split(text)
    if split is None:
        return None
    return split if _states(split[0], count_lines(split[1], "lines")) or \
        _states(split[0], count_lines(split[1], "pieces")) else None


def framed_page(turn: RecordedTurn, spec: ToolSpec) -> Page | None:
    """The page a framed prose read showed (its lines, first index and the file's total where the header states
    it), or None where the answer is no framed page: what the initial file tree learns from such a read."""
    if answer_data(turn.result) is not None or turn.result.get("isError"):
        return None
    split = framed_text(answer_text(turn.result))
    if split is None:
        return None
    head, body = split
    numbers = [int(n) for n in _NUMBER.findall(head)]
    shown = count_lines(body, "lines")
    if not _states(head, shown):
        return None
    page, _ = _page(turn, spec, shown, numbers)
    return Page(body.replace("\r\n", "\n").splitlines(), page.start, page.total, page.from_end)


def learn_frame(turns: list[RecordedTurn], spec: ToolSpec) -> JSONDict | None:
    """The frame of one tool's answers (see the module doc), or None."""
    framed, plain = [], 0
    for turn in turns:
        if turn.result.get("isError") or answer_data(turn.result) is not None:
            continue
        split = framed_text(answer_text(turn.result))
        if split is None:
            plain += 0 if failed(turn.result) else 1
            continue
        framed.append((turn, *split))
    if not framed or plain * 2 > len(framed):
        return None
    counting = next((how for how in ("lines", "pieces")
                     if all(_states(head, count_lines(body, how)) for _, head, body in framed)),
                    None)
    if counting is None:
        return None
    changes = spec.role.op in _CHANGES or spec.role.kind in ("update", "action")
    if changes and not all(any(t in body for t in _new_texts(turn.arguments)) for turn, _, body in framed):
        return None
    groups: dict[str, list[tuple[list[list[str]], str, dict[str, bool], JSONDict]]] = {}
    for turn, head, body in framed:
        numbers = [int(n) for n in _NUMBER.findall(head)]
        page, paged = _page(turn, spec, count_lines(body, counting), numbers)
        shape = _NUMBER.sub("#", head)
        groups.setdefault(shape, []).append((_candidates(head, page.quantities()), head,
                                             page_features(page, paged and not changes), turn.arguments))
    variants: dict[tuple[str, tuple[bool, ...]], JSONDict] = {}
    for examples in groups.values():
        agreed = [set.intersection(*(set(e[0][i]) for e in examples)) for i in range(len(examples[0][0]))] \
            if all(len(e[0]) == len(examples[0][0]) for e in examples) else None
        for cands, head, features, arguments in examples:
            text = _named_args(_template(head, _assign(cands, agreed)), arguments)
            key = (text, tuple(features.values()))
            variants.setdefault(key, {"when": features, "text": text, "seen": 0})["seen"] += 1
    kept = _one_per_kind(list(variants.values()))
    trail = all(body.endswith("\n") for _, _, body in framed)  # whether the server ends the shown lines with one
    return {"sep": _SEP, "count": counting, "body": "file" if changes else "page", "trail": trail, "variants": kept}


def _one_per_kind(variants: list[JSONDict]) -> list[JSONDict]:
    """The most seen header per kind of call (a kind two headers disagree on keeps its commoner)."""
    best: dict[tuple[bool, ...], JSONDict] = {}
    for variant in variants:
        kind = tuple(variant["when"].values())
        if kind not in best or variant["seen"] > best[kind]["seen"]:
            best[kind] = variant
    return list(best.values())


def add_frame_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Under each framed file tool's ``_meta``, its learned frame; how many tools."""
    by_tool: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            by_tool.setdefault(turn.tool, []).append(turn)
    found: dict[str, JSONDict] = {}
    for tool, turns in by_tool.items():
        spec = catalog.get(tool)
        if spec is None or spec.role.style != "file":
            continue
        frame = learn_frame(turns, spec)
        if frame is not None:
            found[tool] = frame
    return write_meta(data, FRAME_META, found)


__all__ = ["add_frame_meta", "framed_page", "framed_text", "learn_frame"]
