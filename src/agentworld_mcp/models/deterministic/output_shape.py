"""The shape a tool's answers have when it declares no outputSchema: learned from a recording or stated.

Kept apart from :mod:`.shape` (which answers in that shape) so that modules computing answers from
state (``text_edits.py``) can read a tool's shape without importing the layer that wraps them.
"""

from __future__ import annotations

from typing import Any

from ...world.described_shape import described_returns

JSONDict = dict[str, Any]

#: ``_meta`` key of a tool definition holding its inferred output shape (a JSON Schema).
OUTPUT_SHAPE_META = "agentworld/output_shape"


def output_shape(tool: JSONDict) -> JSONDict | None:
    """The inferred shape of ``tool``'s answers, when it has one and no outputSchema."""
    if tool.get("outputSchema") is not None:
        return None
    shape = (tool.get("_meta") or {}).get(OUTPUT_SHAPE_META)
    if isinstance(shape, dict) and shape:
        return shape
    described = described_returns(str(tool.get("description") or ""))  # ``Returns: {"ok": true, ...}``
    return described.success if described is not None else None


__all__ = ["OUTPUT_SHAPE_META", "output_shape"]
