"""The server's clock as a recording shows it (``learn``): how its instants are written, and whether it moved.

A write's answer stamps the moment it happened (``created_at``, ``updated_at``, ``changed_at``). Two things
about those stamps are the server's, not the call's, and the recording shows both:

* the **format**: ``2026-11-24T14:32:17`` (seconds, no zone), ``...Z``, ``...+00:00``, with a fraction;
* whether the clock **stood still** within a session: every instant the session's writes stamped anew
  was the same one (a server that stamps to the second, driven faster than that). A world learned from
  such a session stamps every write of an episode with one instant too, so an answer read back later
  shows the same instant the create showed, as the real server's does.

Only instants with a time of day count (a date is an entity's data, not a stamp); an instant an
earlier answer or argument of the episode showed is no new stamp (a read showing an old one).
Written under each tool whose answers showed an instant as ``_meta["agentworld/clock"]``
(``{"format": "%Y-%m-%dT%H:%M:%S", "still": true}``). Where every session's clock stood at one and the
same instant (a server pinned to a fixed clock, as test fixtures and replays are), that instant is kept as
``"at"``: a new episode's writes are stamped with it. Served by ``models/deterministic/learned_clock.py``.
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_clock import CLOCK_META, INSTANT, instant_format
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from ..world.values import leaves
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
#: Kinds of tool whose answers show state without stamping it.
_READING = ("read", "list", "search")


def _instants(value: Any) -> list[str]:
    return [v for v in leaves(value) if isinstance(v, str) and INSTANT.fullmatch(v)]


def learn_clock(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> tuple[JSONDict, set[str]]:
    """The clock meta (format, still) and the tools whose answers showed an instant; ``({}, set())`` when
    the recording shows none."""
    formats: list[str] = []
    stamped: list[set[str]] = []  # per episode, the new instants its writes stamped
    writes = 0  # the most writes one episode answered with an instant
    showing: set[str] = set()
    shown: list[str] = []  # every instant any successful answer showed, as often as it showed it
    for turns in episodes.values():
        seen: set[str] = set()
        fresh: set[str] = set()
        count = 0
        for turn in turns:
            seen.update(_instants(turn.arguments))
            if failed(turn.result):
                continue
            found = _instants(answer_data(turn.result))
            if not found:
                continue
            showing.add(turn.tool)
            shown += found
            formats += [f for v in found if (f := instant_format(v)) is not None]
            spec = catalog.get(turn.tool)
            if spec is not None and spec.role.kind not in _READING:
                fresh.update(v for v in found if v not in seen)
                count += 1
            seen.update(found)
        stamped.append(fresh)
        writes = max(writes, count)
    if not formats:
        return {}, set()
    meta: JSONDict = {"format": max(set(formats), key=formats.count)}
    moving = [s for s in stamped if s]
    # still: no episode ever stamped two instants, and the one it stamped came back twice or more (two
    # writes, or one write whose answer repeats it: a revert stamping both the old and the new backup)
    if moving and all(len(s) == 1 for s in moving) and (
            writes >= 2 or all(shown.count(next(iter(s))) >= 2 for s in moving)):
        meta["still"] = True
        instants = {v for s in moving for v in s}
        if len(instants) == 1:  # every session stood at one instant: the server's own clock, not the hour of the run
            meta["at"] = next(iter(instants))
    return meta, showing


def add_clock_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write the clock under the ``_meta`` of every tool that showed an instant; how many tools got it."""
    meta, showing = learn_clock(episodes, catalog)
    if not meta:
        return 0
    return write_meta(data, CLOCK_META, {name: dict(meta) for name in showing})


__all__ = ["add_clock_meta", "learn_clock"]
