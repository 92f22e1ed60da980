"""Domain engines: a real library holds the episode's state of one common domain.

Records invented from schemas cannot answer a spreadsheet's ``read_range`` after its
``write_data``, a document's word count or a shell's ``cd``. For those domains a real
engine keeps the state (a workbook in openpyxl, a document in python-docx, a file tree
with a current directory, Python's arithmetic) and the answer is rendered in the shape
the catalog shows.

How a catalog selects an engine. Each engine module exposes ``claims(world, tool) ->
bool``, judged from the catalog alone (tool names, arguments, descriptions; never a
product name), and ``predict(step) -> Prediction``. :func:`predict_by_engine` asks the
engines in :data:`ENGINES` order, once per tool per catalog, and the first that claims a
tool answers it. An engine whose library is missing is skipped with one warning naming
the extra to install; the record model still answers.

Where the state lives. Like the SQL database (:mod:`..sql`), an engine's state is ledger
entities of its own collection (``workbooks``, ``documents``...), so every store persists,
resets and seeds it with no code of its own; ``predict`` never changes the episode, it
returns effects.

May import what :mod:`agentworld_mcp.models.deterministic` may import.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from ....errors import MissingExtraError
from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step

log = logging.getLogger(__name__)

#: Engine modules of this package, asked in order (the first that claims a tool answers it).
ENGINES: tuple[str, ...] = ("workbook", "document", "presentation", "git", "shell", "arithmetic")

_warned: set[str] = set()


def _engine(name: str) -> ModuleType | None:
    try:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a library an engine module imports before it checks for it
            if (exc.name or "").split(".")[0] == __name__.split(".")[0]:
                raise  # one of ours: a packaging bug, not a missing extra
            raise MissingExtraError(f"The {name} engine", "engines", exc.name or "?") from exc
    except MissingExtraError as exc:  # the engine's library is an optional extra
        if name not in _warned:
            _warned.add(name)
            log.warning("%s; answering with the record model instead", exc)
        return None


def engine_for(step: Step) -> ModuleType | None:
    """The engine that answers ``step.tool`` in this catalog, if any (decided once per tool)."""

    def choose() -> str | None:
        for name in ENGINES:
            module = _engine(name)
            if module is not None and module.claims(step.world, step.tool):
                return name
        return None

    chosen = step.derived(("engine", step.tool.name), choose)
    return _engine(chosen) if chosen is not None else None


def claimed(world: World, tool: ToolSpec) -> bool:
    """Whether an engine answers ``tool`` of this catalog (``learn`` keeps such a tool's answer shape)."""
    return any((module := _engine(name)) is not None and module.claims(world, tool) for name in ENGINES)


def prepare(world: World, tools: Iterable[ToolSpec]) -> None:
    """Let the engines this catalog needs load their libraries now, when the server starts, so that no
    call pays for it within its deadline (an engine opts in with a ``prepare()`` function)."""
    specs = list(tools)
    for name in ENGINES:
        module = _engine(name)
        if module is not None and hasattr(module, "prepare") and any(module.claims(world, t) for t in specs):
            module.prepare()


def predict_by_engine(step: Step) -> Prediction | None:
    """The engine's answer to ``step``, or None when no engine claims the tool."""
    module = engine_for(step)
    if module is None:
        return None
    from ..learned_shape import answer_in_shape  # the engine's values in the keys a recording showed

    answer: Any = answer_in_shape(step, module.predict)
    return answer if isinstance(answer, Prediction) else None
