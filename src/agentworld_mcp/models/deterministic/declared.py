"""An answer keeps to the fields its outputSchema declares.

A typed server (a FastMCP tool with a return type, an OpenAPI operation's response model)
returns the object its schema declares and nothing else: ``cancel_reservation`` declared as
``{cancel_status}`` answers ``{"cancel_status": true}``, not the cancelled record with the call's
arguments echoed beside it. The record handlers answer with the stored record, which is right
where the schema describes the record, and too much where it describes a status.

So, where an outputSchema lists its ``properties`` (and does not allow others explicitly), for
tools that change or act (a read answers the record as stored: a seeded ticket's ``resolution``
comes back though the read's schema does not list it):

* the record's key, stored as ``id``, is named as the schema names it where the schema has
  exactly one undeclared-so-far id field (``van_id``: the new van's id);
* the answer's top-level fields the schema does not declare are dropped, provided at least one
  declared field remains (an answer of another shape entirely is left to the handlers).

Every real typed server recorded in the ground truth answers this way (no undeclared top-level
keys beside declared properties).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...world.roles import ToolRole, is_id_name
from ..base import Prediction, Step

JSONDict = dict[str, Any]


#: Role kinds whose answer is the stored record itself.
_READS = ("read", "list", "search")


def declared_only(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` with only the top-level fields the tool's outputSchema declares (see the module doc)."""
    out = step.tool.output_schema or {}
    props = out.get("properties")
    body = answer.observation
    if (role.kind in _READS or answer.is_error or answer.text is not None or not isinstance(props, dict) or not props
            or not isinstance(body, dict) or out.get("additionalProperties") not in (None, False)
            or out.get("patternProperties")):
        return answer
    shaped = dict(body)
    absent_ids = [name for name in props if is_id_name(name) and name not in shaped]
    if "id" in shaped and "id" not in props and len(absent_ids) == 1:
        shaped[absent_ids[0]] = shaped.pop("id")  # the new record's key, under the name the schema gives it
    kept = {name: value for name, value in shaped.items() if name in props}
    if not kept or kept == body:
        return answer
    return dataclasses.replace(answer, observation=kept)


__all__ = ["declared_only"]
