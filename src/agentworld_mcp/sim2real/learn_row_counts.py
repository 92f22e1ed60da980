"""Row counts learned from a recording (``learn``): answer fields counting the entities a call changed.

Walking each episode, the keys of the entities its answers showed are kept per collection (a delete
takes one out). A delete or update tool addressed by a key whose successful answers hold a top-level
integer field that was 1 each time the key named a known entity and 0 each time it did not, both seen,
counts the rows the call changed (``rows_affected``, ``deleted_count``, ``updated``). The tool then answers
it from the episode's own state (``models/deterministic/learned_row_counts.py``): a second delete of the
same key changes nothing and says so.
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_row_counts import ROW_COUNTS_META
from ..models.deterministic.learned_state import answer_data, failed, key_of, keyed_objects
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
_SHOWING = ("create", "read", "update", "list", "search")


def learn_row_counts(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its count fields with the collection and key argument (see the module doc)."""
    seen: dict[tuple[str, str], dict[str, set[tuple[bool, int]]]] = {}  # (tool, key arg) -> field -> outcomes
    for turns in episodes.values():
        known: dict[str, set[str]] = {}
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None or failed(turn.result):
                continue
            role = spec.role
            data = answer_data(turn.result)
            key_arg = next((a for a in role.key_args if isinstance(turn.arguments.get(a), (str, int))), None)
            if role.kind in ("delete", "update") and role.collection and key_arg is not None and isinstance(data, dict):
                existed = str(turn.arguments[key_arg]) in known.get(role.collection, set())
                fields = seen.setdefault((turn.tool, key_arg), {})
                for name, value in data.items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        fields.setdefault(name, set()).add((existed, value))
            if role.kind == "delete" and key_arg is not None and role.collection:
                known.get(role.collection, set()).discard(str(turn.arguments[key_arg]))
            elif role.collection and role.kind in _SHOWING:
                known.setdefault(role.collection, set()).update(
                    k for obj in keyed_objects(data) if (k := key_of(obj)) is not None)
    found: dict[str, JSONDict] = {}
    for (tool, key_arg), fields in seen.items():
        counting = sorted(name for name, outcomes in fields.items() if outcomes == {(True, 1), (False, 0)})
        spec = catalog.get(tool)
        if counting and spec is not None:
            found[tool] = {"fields": counting, "collection": spec.role.collection, "key_arg": key_arg}
    return found


def add_row_count_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each counting tool's fields under its ``_meta``; how many tools got some."""
    return write_meta(data, ROW_COUNTS_META, learn_row_counts(episodes, catalog))


__all__ = ["add_row_count_meta", "learn_row_counts"]
