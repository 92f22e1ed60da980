"""A record's key, answered under the name its family addresses it by.

When a tool answers one record flat (no outputSchema, no envelope that nests it), servers name its
key as their tools take it: ``add_entry`` answers ``{"entry_id": 4, ...}`` where
``get_entry``/``update_entry``/``delete_entry`` take ``entry_id``, and those answer
``{"entry_id": 5, ...}`` too (``create_note`` and ``get_note`` ``note_id``, ``open_presentation``
``presentation_id``, ``update_event`` ``uid``). The catalog states that name: the one key argument
every tool of the record's collection that addresses one record takes. The record keeps its own
key field as well (the name is added beside it, never instead); a family that takes no such
argument, or several, is left as it is, and so is an answer with no key field at its top.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...world.house_style import house_style
from ...world.roles import ToolRole
from ..base import Prediction, Step
from . import records

JSONDict = dict[str, Any]
#: Kinds of the tools that address one existing record.
_ADDRESSING = frozenset({"read", "update", "delete", "move", "action"})
#: Kinds whose answer is one record.
_RECORD_KINDS = _ADDRESSING | {"create"}


def keyed_by_family(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` with the flat record's key also under the family's argument name (see the module doc)."""
    shown = answer.observation
    if (answer.is_error or answer.text is not None or not isinstance(shown, dict) or step.tool.output_schema or step.effects_only
            or role.kind not in _RECORD_KINDS or role.key_field not in shown):
        return answer
    if step.derived("house style", lambda: house_style(step.world.tools)) is not None:
        return answer  # the envelope nests the record under its noun, where servers keep ``id``
    name = step.derived(("family key", role.collection), lambda: _family_argument(step, role))
    if name is None or name in shown:
        return answer
    given = step.arguments.get(name)
    value = given if given is not None and str(given) == str(shown[role.key_field]) else shown[role.key_field]
    out: JSONDict = {}
    for field, item in shown.items():  # beside the key field, where a reader looks for it
        out[field] = item
        if field == role.key_field:
            out[name] = value
    return dataclasses.replace(answer, observation=out)


def _family_argument(step: Step, role: ToolRole) -> str | None:
    """The one key argument name the collection's addressing tools all take, if it is not the key field."""
    names: set[str] = set()
    for other in records.model(step).roles.values():
        if other.collection != role.collection or other.kind not in _ADDRESSING:
            continue
        if other.key_args:
            names.update(other.key_args)
    if len(names) != 1:
        return None
    (name,) = names
    return None if name == role.key_field else name
