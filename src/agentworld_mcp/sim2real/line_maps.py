"""Where a changed file's lines were before the change, read from the unified diff its answer showed.

A read after an edit shows the new version; the learner wants the file as the session found it. When
every change to a file came with a diff (``@@ -13,7 +13,8 @@`` hunks), a line of the new version that is no
``+`` line of a hunk was a line of the old version, at a number the hunks give: inside a hunk by walking
it, between hunks shifted by the lines the hunks before it added or removed. So a read of lines 1-3 after
an edit of line 16 still shows the first three lines of the original file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class _Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    kept: dict[int, int] = field(default_factory=dict)  # a context line's new number -> its old one


@dataclass
class LineMap:
    """One change as its diff showed it: the old number of a line of the new version."""

    hunks: list[_Hunk]

    def old_of(self, number: int) -> int | None:
        """The line's number before the change, or None where the change wrote it."""
        shift = 0
        for hunk in self.hunks:
            if number < hunk.new_start:
                break
            if number < hunk.new_start + hunk.new_len:
                return hunk.kept.get(number)
            shift = hunk.new_start + hunk.new_len - hunk.old_start - hunk.old_len
        old = number - shift
        return old if old >= 1 else None

    @property
    def growth(self) -> int:
        """Lines the change added, less those it removed."""
        return sum(h.new_len - h.old_len for h in self.hunks)


def line_map(lines: list[str]) -> LineMap | None:
    """The map of a diff's lines (as ``difflib`` writes them), or None where they hold no hunk or do not add up
    (a diff cut short, counts that disagree with the lines): a map that may be wrong is worse than none."""
    hunks: list[_Hunk] = []
    old = new = 0
    for line in lines:
        header = _HEADER.match(line)
        if header is not None:
            if hunks and not _complete(hunks[-1], old, new):
                return None
            counts = [int(n) if n is not None else 1 for n in header.groups()]
            old_len, new_len = counts[1], counts[3]
            # an empty side names the line before it (``@@ -5,0 +6,2 @@`` inserts after line 5)
            old, new = counts[0] + (old_len == 0), counts[2] + (new_len == 0)
            hunks.append(_Hunk(old, old_len, new, new_len))
            continue
        if not hunks or line.startswith(("---", "+++", "\\")):
            continue
        hunk = hunks[-1]
        if _complete(hunk, old, new):
            continue  # past the hunk (a closing fence, a note)
        if line.startswith("+"):
            new += 1
        elif line.startswith("-"):
            old += 1
        else:
            hunk.kept[new] = old
            old, new = old + 1, new + 1
    if not hunks or not _complete(hunks[-1], old, new):
        return None
    return LineMap(sorted(hunks, key=lambda h: h.new_start))


def _complete(hunk: _Hunk, old: int, new: int) -> bool:
    return old == hunk.old_start + hunk.old_len and new == hunk.new_start + hunk.new_len


__all__ = ["LineMap", "line_map"]
