"""A changed file's lines placed at their numbers before the change, from the diff the change showed."""

from __future__ import annotations

import difflib

from agentworld_mcp.sim2real.line_maps import line_map

OLD = [f"line {n}" for n in range(1, 21)]


def _map(new: list[str], context: int = 3):  # type: ignore[no-untyped-def]
    return line_map(list(difflib.unified_diff(OLD, new, lineterm="", n=context))[2:])


def test_every_line_of_the_new_version_maps_to_its_old_number_or_to_none_where_the_change_wrote_it() -> None:
    new = [*OLD[:2], "inserted", *OLD[2:9], *OLD[11:17], "changed 18", *OLD[18:]]  # +1 at 3, -2 at 10-11, 18 changed
    change = _map(new, context=1)
    assert change is not None
    for number, text in enumerate(new, 1):
        old = change.old_of(number)
        assert (OLD[old - 1] if old is not None else None) == (text if text in OLD else None)
    assert change.growth == len(new) - len(OLD)


def test_a_pure_insertion_and_a_pure_deletion_shift_only_the_lines_after_them() -> None:
    inserted = _map([*OLD[:5], "a", "b", *OLD[5:]], context=0)  # ``@@ -5,0 +6,2 @@``
    removed = _map([*OLD[:5], *OLD[7:]], context=0)  # ``@@ -6,2 +5,0 @@``
    assert inserted is not None and removed is not None
    assert [inserted.old_of(n) for n in (5, 6, 7, 8)] == [5, None, None, 6]
    assert [removed.old_of(n) for n in (5, 6)] == [5, 8]


def test_a_diff_cut_short_gives_no_map() -> None:
    lines = list(difflib.unified_diff(OLD, [*OLD[:3], "x", *OLD[4:]], lineterm=""))[2:]
    assert line_map(lines[:-1]) is None
    assert line_map(["no hunk here"]) is None
