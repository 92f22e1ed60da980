"""Cell styles of an index-addressed workbook: what a style tool set on a cell, read back.

A style is state of the cell. The set tool's own argument names say which properties it sets
(``bold``, ``font_size``...; coordinates and ``None`` values are not properties); each cell of the
range keeps them, a later set changing only the properties it names. The read tool answers them
in the shape the recording showed (``learn`` writes ``_meta["agentworld/workbook_style"]`` on it:
the answer's properties that no set named, and where each set argument appeared, e.g. ``bold`` at
``font.bold``); without a recording, the properties read back flat, under the set tool's names.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from .workbook_meta import STYLE_META

if TYPE_CHECKING:  # only annotations: ``learn`` reads styles without the engines extra (openpyxl)
    from .workbook_grid import GridSheet

JSONDict = dict[str, Any]
#: Arguments of a style tool that place it rather than style the cell.
PLACING = frozenset({"sheet", "sheet_index", "row", "column", "col", "row_start", "col_start", "row_end", "col_end",
                     "end_row", "end_column", "column_end", "start_row", "start_column", "range", "cell"})


def properties(arguments: JSONDict) -> JSONDict:
    """The style properties a set call names (its arguments that are neither a place nor left out)."""
    return {k: v for k, v in arguments.items() if k not in PLACING and v is not None}


def set_style(sheet: GridSheet, rows: range, cols: range, props: JSONDict) -> None:
    for row in rows:
        for col in cols:
            sheet.styles[(row, col)] = {**sheet.styles.get((row, col), {}), **props}


def read_style(sheet: GridSheet, row: int, col: int, learned: Any) -> JSONDict:
    """The cell's style in the learned shape (flat under the set tool's names when none was learned)."""
    props = sheet.styles.get((row, col), {})
    if not isinstance(learned, dict) or not isinstance(learned.get("base"), dict):
        return dict(props)
    answer: JSONDict = copy.deepcopy(learned["base"])
    found = learned.get("paths")
    paths: JSONDict = found if isinstance(found, dict) else {}
    for name, value in props.items():
        path = paths.get(name)
        if not isinstance(path, list) or not path:
            answer[name] = value
            continue
        node = answer
        for key in path[:-1]:
            node = node.setdefault(str(key), {}) if isinstance(node.get(str(key), {}), dict) else node
        node[str(path[-1])] = value
    return answer


def find_path(answer: Any, name: str, value: Any, trail: tuple[str, ...] = ()) -> list[str] | None:
    """Where a set argument shows in a style answer: a key named like it (``bold``; ``font.size`` for
    ``font_size``) holding the value it set."""
    if not isinstance(answer, dict):
        return None
    for key, inner in answer.items():
        here = (*trail, str(key))
        joined = "_".join(here[-2:])
        if (key == name or joined == name) and (inner == value or not isinstance(inner, (dict, list))):
            return list(here)
        found = find_path(inner, name, value, here)
        if found is not None:
            return found
    return None


def without(answer: JSONDict, paths: list[list[str]]) -> JSONDict:
    """A style answer with the set properties taken out: what every cell shows unset."""
    base = copy.deepcopy(answer)
    for path in paths:
        node: Any = base
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(path[-1], None)
    return base


__all__ = ["PLACING", "STYLE_META", "find_path", "properties", "read_style", "set_style", "without"]
