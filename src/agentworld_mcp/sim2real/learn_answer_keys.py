"""Learn the places where a tool's recorded objects always had the same keys (``learned_answer_keys.py``).

For every tool, every object its successful recorded answers show (the answer itself, each item of a
list, each nested record) is filed under its place (``""``, ``"[]"``, ``"tasks[]"``, ``"task"``). A
place seen in at least two calls whose objects all had the same keys is the server's fixed form there;
a place one call showed proves nothing about keys a different call adds (a query's columns), and a
place whose keys varied is keyed by values (a metadata map, counts per status), so neither is kept;
but a place one call showed whose keys are a form proved elsewhere (the note ``get_note`` showed once
has the keys every note of ``list_notes`` had) is that form.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..models.deterministic.learned_answer_keys import ANSWER_KEYS_META, child, item
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]


def add_answer_keys_meta(data: JSONDict, compiled: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's fixed-key places under its ``_meta``; how many tools got some."""
    seen: dict[str, dict[str, list[tuple[int, frozenset[str]]]]] = defaultdict(lambda: defaultdict(list))
    calls = 0
    for turns in episodes.values():
        for turn in turns:
            calls += 1
            if compiled.get(turn.tool) is None or failed(turn.result):
                continue
            found = answer_data(turn.result)
            if found is not None:
                _file(found, "", seen[turn.tool], calls)
    proved = {keys for places in seen.values() for seen_at in places.values() if _proved(seen_at)
              for keys in {k for _, k in seen_at}}
    learned: dict[str, JSONDict] = {}
    for tool, places in seen.items():
        fixed = {path: sorted(seen_at[0][1]) for path, seen_at in places.items()
                 if len({keys for _, keys in seen_at}) == 1 and (_proved(seen_at) or seen_at[0][1] in proved)}
        if fixed:
            learned[tool] = fixed
    return write_meta(data, ANSWER_KEYS_META, learned)


def _proved(seen_at: list[tuple[int, frozenset[str]]]) -> bool:
    """Objects of one place that two calls or more showed, all with the same (non-empty) keys."""
    return len({call for call, _ in seen_at}) >= 2 and len({keys for _, keys in seen_at}) == 1 and bool(seen_at[0][1])


def _file(value: Any, path: str, places: dict[str, list[tuple[int, frozenset[str]]]], call: int) -> None:
    if isinstance(value, list):
        for sub in value:
            _file(sub, item(path), places, call)
    elif isinstance(value, dict):
        places[path].append((call, frozenset(str(k) for k in value)))
        for key, sub in value.items():
            _file(sub, child(path, str(key)), places, call)


__all__ = ["add_answer_keys_meta"]
