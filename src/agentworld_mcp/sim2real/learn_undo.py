"""An ``undo`` tool learned from a recording: it reverses the episode's own last change.

A tool named for undoing (``undo``, ``revert_last``, ``rollback``) that takes no entity to act on
answers with what it reversed: the entity the last write of the session touched (``Undid: Done #1 ->
reopened "Book the hall"``). Replaying that answer in another session names the training session's
entity; the recording shows which parts of it are that entity's: the strings of the answer that carry
the key or a field of the object the last successful write before the undo answered with. ``learn``
writes them as templates with slots named for the fields (``Undid: Done #{{id}} -> reopened
"{{title}}"``) under ``_meta["agentworld/undo"]``::

    {"templates": {"summary": "Undid: Done #{{id}} \u2192 reopened \\"{{title}}\\""}}

``models/deterministic/learned_undo.py`` serves it: the episode's last change is reversed (a create
deleted, a delete restored, an update set back to what an earlier answer showed) and the templates
are filled from that entity.
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.learned_state import answer_data, failed, key_of, keyed_objects
from ..models.deterministic.learned_undo import UNDO_META, is_undo_tool
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: A field value shorter than this is no evidence of the entity in a text (``1`` of ``#1`` is the key's job).
_MIN_VALUE = 3
_READING = ("read", "list", "search")


def learn_undo(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per undo tool of the recording, its answer's templates (see the module doc)."""
    out: dict[str, JSONDict] = {}
    for turns in episodes.values():
        for index, turn in enumerate(turns):
            spec = catalog.get(turn.tool)
            if spec is None or not is_undo_tool(spec.definition) or failed(turn.result) or turn.tool in out:
                continue
            undone = _last_written(turns[:index], catalog, turn.tool)
            data = answer_data(turn.result)
            if undone is None or not isinstance(data, dict):
                continue
            templates = {k: t for k, v in data.items() if isinstance(v, str) and (t := _template(v, undone)) != v}
            if templates:
                out[turn.tool] = {"templates": templates}
    return out


def _last_written(turns: list[RecordedTurn], catalog: Catalog, undo: str) -> JSONDict | None:
    """The first keyed object of the last successful write's answer before an undo."""
    for turn in reversed(turns):
        spec = catalog.get(turn.tool)
        if turn.tool == undo or spec is None or spec.role.kind in _READING or failed(turn.result):
            continue
        return next(keyed_objects(answer_data(turn.result)), None)
    return None


def _template(text: str, entity: JSONDict) -> str:
    """``text`` with the entity's longer string fields, then its key after a ``#``/``id``, as slots."""
    out = text
    for name, value in sorted(entity.items(), key=lambda kv: -len(str(kv[1]))):
        if isinstance(value, str) and len(value) >= _MIN_VALUE and value in out:
            out = out.replace(value, "{{" + name + "}}")
    key = key_of(entity)
    if key is not None:
        field = next((k for k, v in entity.items() if str(v) == key and not isinstance(v, bool)), "id")
        out = re.sub(rf"(#|\bid\s*)({re.escape(key)})\b", lambda m: m.group(1) + "{{" + field + "}}", out)
    return out


def add_undo_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """The learned undo templates under each undo tool's ``_meta``; how many tools got them."""
    return write_meta(data, UNDO_META, learn_undo(episodes, catalog))


__all__ = ["add_undo_meta", "learn_undo"]
