"""The lines a paged read of a text file shows, read from the call's arguments by their names' roles.

Readers page a file in many ways: ``offset`` (and ``length``/``limit``/``count``), a negative ``offset`` for the last
lines, ``start_line``/``end_line``. Whether a plain ``offset`` counts from 0 or 1 is the tool's own schema's word (its
declared default or minimum); line-named arguments count from 1, as editors number lines. :class:`Page` carries the
quantities an answer may state about it (lines shown, first line, total, lines remaining), so a learned frame
(``learned_frames.py``) can state them as the server did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .text_roles import tokens

JSONDict = dict[str, Any]
_OFFSET = ({"offset"}, {"skip"}, {"line", "offset"})
_FIRST = ({"start", "line"}, {"from", "line"}, {"first", "line"}, {"line", "start"}, {"begin", "line"})
_LAST = ({"end", "line"}, {"to", "line"}, {"last", "line"}, {"line", "end"})
_COUNT = ({"length"}, {"limit"}, {"count"}, {"max", "lines"}, {"num", "lines"}, {"line", "count"}, {"lines"},
          {"n", "lines"})


@dataclass(frozen=True)
class Page:
    """``lines`` of a file of ``total`` lines, from index ``start`` (0-based); ``from_end``: the call asked for its
    last lines."""

    lines: list[str]
    start: int
    total: int
    from_end: bool = False

    @property
    def end(self) -> int:
        """Index after the last line shown."""
        return self.start + len(self.lines)

    @property
    def remaining(self) -> int:
        """Lines after the page."""
        return max(0, self.total - self.end)

    def quantities(self) -> dict[str, int]:
        """What an answer may state about the page, by name (``start``/``end`` as 0-based indexes and 1-based lines)."""
        return {"shown": len(self.lines), "total": self.total, "remaining": self.remaining, "start": self.start,
                "first": self.start + 1, "last": self.end, "offset": self.start}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _named(args: JSONDict, kinds: tuple[set[str], ...]) -> tuple[str, int] | None:
    for name, value in args.items():
        if tokens(name) in kinds and _int(value) is not None:
            return name, int(value)
    return None


def _counts_from_one(schema: JSONDict, name: str) -> bool:
    spec = ((schema.get("properties") or {}).get(name)) or {}
    return isinstance(spec, dict) and (spec.get("default") == 1 or spec.get("minimum") == 1)


def _declared_count(schema: JSONDict) -> int | None:
    for name, spec in (schema.get("properties") or {}).items():
        if tokens(name) in _COUNT and isinstance(spec, dict) and _int(spec.get("default")):
            return int(spec["default"])
    return None


def lines_of(text: str) -> list[str]:
    """A file's lines as readers count them: a final newline ends the last line, it starts none."""
    return text.replace("\r\n", "\n").splitlines()


def window(total: int, args: JSONDict, schema: JSONDict) -> tuple[int, int, bool] | None:
    """(first index, index after the last, from the end) of the page ``args`` ask of a file of ``total`` lines;
    None: the call names no page."""
    offset, first, last, count = (_named(args, kinds) for kinds in (_OFFSET, _FIRST, _LAST, _COUNT))
    if offset is None and first is None and last is None and count is None:
        return None
    size = count[1] if count is not None else _declared_count(schema)
    if offset is not None and offset[1] < 0:
        return max(0, total + offset[1]), total, True
    if offset is not None:
        start = offset[1] - 1 if _counts_from_one(schema, offset[0]) else offset[1]
    else:
        start = first[1] - 1 if first is not None else 0
    start = min(max(0, start), total)
    stop = total
    if last is not None:
        stop = min(stop, max(start, last[1]))
    elif size is not None and size >= 0:
        stop = min(stop, start + size)
    return start, stop, False


def page_of(text: str, args: JSONDict, schema: JSONDict) -> Page | None:
    """The page ``args`` ask of ``text`` (a tool with input ``schema``); None: the call names no page."""
    lines = lines_of(text)
    found = window(len(lines), args, schema)
    if found is None:
        return None
    start, stop, from_end = found
    return Page(lines[start:stop], start, len(lines), from_end)


__all__ = ["Page", "lines_of", "page_of", "window"]
