"""Lines of a file the recording never showed: where a search/replace on unknown text lands.

A file learned from a recording may be known only in part (``sim2real/learn_files.py`` seeds the lines it saw
at their numbers and blank lines elsewhere, and names the others as ``unknown_lines``: ``[[first, last], ...]``).
A change whose search text is not among the known lines may well be in a line nobody saw, so it is not refused
as absent: the text is taken to be the first unknown lines it fits, which become known.
"""

from __future__ import annotations

from typing import Any

Ranges = list[list[int]]
#: The entity field that names the unknown lines.
UNKNOWN = "unknown_lines"


def unknown_ranges(value: Any) -> Ranges:
    """``[[first, last], ...]`` from an entity field, dropping anything malformed."""
    if not isinstance(value, list):
        return []
    return [[int(r[0]), int(r[1])] for r in value
            if isinstance(r, list) and len(r) == 2 and all(isinstance(n, int) for n in r) and 1 <= r[0] <= r[1]]


def fill_unknown(text: str, ranges: Ranges, old: str) -> tuple[str, Ranges, int] | None:
    """``text`` with ``old`` written over the first run of unknown lines long enough to hold it, the ranges
    left unknown, and the offset where ``old`` now is; None when no run fits."""
    needed = len(old.split("\n"))
    lines = text.split("\n")
    for i, (first, last) in enumerate(ranges):
        if last - first + 1 < needed or last > len(lines):
            continue
        lines[first - 1:first - 1 + needed] = old.split("\n")
        rest = [[first + needed, last]] if first + needed <= last else []
        filled = "\n".join(lines)
        at = sum(len(line) + 1 for line in lines[:first - 1])
        return filled, ranges[:i] + rest + ranges[i + 1:], at
    return None


def shift_unknown(ranges: Ranges, after_line: int, delta: int) -> Ranges:
    """The ranges once ``delta`` lines were added (or removed) after line ``after_line``."""
    if delta == 0:
        return ranges
    return [[a + delta, b + delta] if a > after_line else [a, b] for a, b in ranges]


__all__ = ["UNKNOWN", "fill_unknown", "shift_unknown", "unknown_ranges"]
