"""A listing named after a kind of record lists the records of that kind (``get_todos`` on a board whose items
carry ``item_type: todo``), and a listing of entities nobody can create invents names that fit its noun (a label
is "Label 1", a channel "general"). Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, stdio_session

_STR = {"type": "string"}
_KIND = {"type": "string", "enum": ["issue", "todo", "feature"]}

BOARD = {
    "name": "board",
    "tools": [
        bare_tool("new_item", "Create an item on the board.", {"item_type": _KIND, "title": _STR}, ["item_type", "title"]),
        bare_tool("get_todos", "List the todos.", {}),
        bare_tool("list_labels", "List the workspace's labels.", {}),
        bare_tool("list_channels", "List the workspace's channels.", {}),
    ],
}


async def _answers(tmp_path: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    world = tmp_path / "board.json"
    world.write_text(json.dumps(BOARD), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        return [json_answer(await session.call_tool(tool, args)) for tool, args in calls]


def _listed(answer: Any) -> list[Any]:
    return answer if isinstance(answer, list) else next(v for v in answer.values() if isinstance(v, list))


async def test_a_listing_named_after_a_kind_lists_the_records_of_that_kind(tmp_path: Path) -> None:
    *_, todos = await _answers(tmp_path, ("new_item", {"item_type": "todo", "title": "Update the checklist"}),
                               ("new_item", {"item_type": "feature", "title": "Export to CSV"}),
                               ("get_todos", {}))
    assert [item["title"] for item in _listed(todos)] == ["Update the checklist"]


async def test_invented_entities_are_named_after_their_noun_and_groups_like_teams(tmp_path: Path) -> None:
    labels, channels = await _answers(tmp_path, ("list_labels", {}), ("list_channels", {}))
    assert [label["name"] for label in _listed(labels)] == ["Label 1", "Label 2", "Label 3"]
    assert "general" in [channel["name"] for channel in _listed(channels)]
