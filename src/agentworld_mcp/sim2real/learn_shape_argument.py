"""Which values of a shape-choosing argument the recording showed (``learn``).

A tool may print its answer in one of several shapes chosen by an argument (``export(format="table")``
answers rows of text, ``export()`` its default ``json`` the raw records). A recording that only ever
chose one value teaches the shape of that value alone: a later call choosing another (the default
included) must not be answered in the recorded shape. Learned per tool, for each string argument that
names a shape (``format``, ``output_format``, ``fmt``, ``layout``, ``render``; not an action selector such
as ``mode``) and declares a default: the values its successful calls chose (the default where
the call left it out). Written as ``_meta["agentworld/shape_argument"]``
(``{"argument": "format", "recorded": ["table"]}``); served by
``models/deterministic/learned_shape_argument.py``, which answers other values without what was learned.
"""

from __future__ import annotations

import re
from typing import Any

from ..models.deterministic.learned_shape_argument import SHAPE_ARGUMENT_META
from ..models.deterministic.learned_state import failed
from ..world.catalog import Catalog
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: Argument names that choose how the answer is printed rather than what it holds.
_SHAPE_NAME = re.compile(r"(?i)^(?:fmt|layout|render|.*format)$")


def _shape_arguments(schema: JSONDict) -> dict[str, Any]:
    """Shape-choosing string arguments with their declared default."""
    properties: JSONDict = found if isinstance(found := schema.get("properties"), dict) else {}
    return {name: spec["default"] for name, spec in properties.items()
            if isinstance(spec, dict) and _SHAPE_NAME.match(name) and isinstance(spec.get("default"), str)}


def learn_shape_arguments(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, the shape argument and the values the recording chose (see the module doc)."""
    chosen: dict[str, dict[str, set[str]]] = {}
    for turns in episodes.values():
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None or failed(turn.result):
                continue
            for name, default in _shape_arguments(spec.input_schema).items():
                value = turn.arguments.get(name, default)
                if isinstance(value, str):
                    chosen.setdefault(turn.tool, {}).setdefault(name, set()).add(value)
    out: dict[str, JSONDict] = {}
    for tool, by_name in chosen.items():
        if len(by_name) == 1:  # one shape argument: which of two would pick the shape is not clear otherwise
            name, values = next(iter(by_name.items()))
            out[tool] = {"argument": name, "recorded": sorted(values)}
    return out


def add_shape_argument_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's shape-argument meta under its ``_meta``; the number of tools given one."""
    return write_meta(data, SHAPE_ARGUMENT_META, learn_shape_arguments(episodes, catalog))


__all__ = ["add_shape_argument_meta", "learn_shape_arguments"]
