"""Answer fields that show a field of the entity the call names, under another name (``learn``).

A delete answers ``{"entry_id": 3, "day_file": ".../2026-11-20.txt"}`` where entry 3, as the session
showed it before the call, had ``source: .../2026-11-20.txt``; an update answers ``owner_email`` that
its ticket showed as ``requester``. Such a field is a lookup: per tool, ``lookups`` maps the answer
field to the entity's fields that held its value in every recorded usual call whose key named an
entity the session had shown (``{"day_file": ["source"]}``). Served by
``models/deterministic/learned_rules.py`` from the entity the episode holds under the call's key,
never from the recording, so a renamed or new entity shows its own value.

A value an argument of the call gave is the argument's copy, not a lookup; values too plain to tell
a coincidence apart (booleans, ``0``, ``1``, one- or two-letter texts) are not traced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models.deterministic.learned_state import answer_data
from ..world.values import same_value

if TYPE_CHECKING:
    from .learn_rules import Walk

JSONDict = dict[str, Any]


def _distinctive(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    return len(value) >= 3 if isinstance(value, str) else abs(value) >= 2


def learn_lookups(walk: Walk, tool: str) -> dict[str, list[str]]:
    """``{answer field: [entity fields]}`` for ``tool`` (see the module doc); empty when none held every time."""
    spec = walk.catalog.get(tool)
    keys = spec.role.key_args if spec is not None else ()
    found: dict[str, set[str]] = {}
    for turn, before, _ in walk.by_tool.get(tool, []):
        data = answer_data(turn.result)
        if not keys or not walk.is_main(turn) or not isinstance(data, dict):
            continue
        named = (turn.arguments.get(a) for a in keys)
        key = next((str(v) for v in named if isinstance(v, (str, int)) and not isinstance(v, bool)), None)
        entity = before.entities.get(key) if key is not None else None
        if not entity:
            continue
        given = [v for v in turn.arguments.values() if not isinstance(v, (dict, list))]
        for name, value in data.items():
            if not _distinctive(value) or any(same_value(value, g) for g in given):
                continue
            sources = {f for f, v in entity.items() if f != name and same_value(v, value)}
            found[name] = found[name] & sources if name in found else sources
    return {name: sorted(sources) for name, sources in found.items() if sources}


__all__ = ["learn_lookups"]
