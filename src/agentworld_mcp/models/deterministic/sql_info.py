"""The answer of a tool that reports on the database as a whole (``db_info()``: path, size, table count).

Its counts are the episode's database's: an integer field named for tables (``tableCount``, ``tables``)
is the number of tables now. What the database file alone decides (its size in bytes, its modification
time) the episode cannot know; the server's latest recorded report of them is the honest answer, in the
shape the server gave it. Without a demonstration, the answer names what the database shows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...world.world import World

JSONDict = dict[str, Any]
_TABLE_COUNT = re.compile(r"tables?(?:_?count|_?number|_?total)?$|(?:num|number|count|n)_?tables?$", re.IGNORECASE)


def latest_report(world: World, tool: str) -> JSONDict | None:
    """The tool's latest successful recorded answer, as an object (None: never recorded)."""
    report = None
    for demo in world.demonstrations:
        if demo.tool != tool or demo.is_error:
            continue
        answer = demo.response
        if isinstance(answer, str):
            try:
                answer = json.loads(answer)
            except ValueError:
                continue
        if isinstance(answer, dict):
            report = answer
    return report


def database_report(template: JSONDict | None, tables: list[str]) -> JSONDict:
    """The report with the table count the database has now."""
    if template is None:
        return {"tableCount": len(tables), "tables": tables}
    return {k: len(tables) if _counts_tables(k, v) else v for k, v in template.items()}


def _counts_tables(key: str, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and bool(_TABLE_COUNT.search(key))


__all__ = ["database_report", "latest_report"]
