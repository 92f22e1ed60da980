"""The shape a tool's answers have when it declares no outputSchema: learned from a recording or stated.

Kept apart from :mod:`.shape` (which answers in that shape) so that modules computing answers from
state (``text_edits.py``) can read a tool's shape without importing the layer that wraps them.
"""

from __future__ import annotations

from typing import Any

from ...world.house_style import OUTPUT_SHAPE_META, stated_shape

JSONDict = dict[str, Any]


def output_shape(tool: JSONDict) -> JSONDict | None:
    """The inferred shape of ``tool``'s answers, when it has one and no outputSchema: learned, enriched or
    stated in its description (the house style reads it the same way)."""
    return stated_shape(tool)


__all__ = ["OUTPUT_SHAPE_META", "output_shape"]
