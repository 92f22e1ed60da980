"""A bare catalog's own words decide a record's key name, its states and how a workflow moves.

A docstring's ``Args:`` section names what a call takes, not fields of the answer, so ``item_id``
there does not make the item's own key ``item_id``; the states another tool's docstring lists for
``status`` (``Filter by status (backlog, todo, in_progress, done)``) are where a new item starts and
what "Move item to next status in its workflow" steps through. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

_STR = {"type": "string"}
_INT = {"type": "integer"}


BOARD = {
    "name": "board",
    "tools": [
        _tool("new_card", "Create a new card on the board.", {"title": _STR, "priority": _INT}, ["title"]),
        _tool("get_card", "Get full details of a card.", {"card_id": _INT}, ["card_id"]),
        _tool("list_cards", "List cards with an optional status filter.", {"status": _STR}),
        _tool("advance_status", "Move card to next status in its workflow.", {"card_id": _INT}, ["card_id"]),
        _tool("revert_status", "Move card to previous status in its workflow.", {"card_id": _INT}, ["card_id"]),
        _tool("set_status", "Set card to a specific status.", {"card_id": _INT, "status": _STR},
              ["card_id", "status"]),
        _tool("attach_file", "Attach a file to a card.\n\n    Args:\n        card_id: The card to attach to\n"
              "        file_path: Relative path to the file\n\n    Returns:\n        Dict with success and link_id",
              {"card_id": _INT, "file_path": _STR}, ["card_id", "file_path"]),
        _tool("export_board", "Export the board.\n\n    Args:\n        format: 'json' or 'markdown'\n"
              "        status: Filter by status (backlog, todo,\n            in_progress, review, done)\n",
              {"format": _STR, "status": _STR}),
    ],
}


def _body(result: Any) -> Any:
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _card(answer: Any) -> Any:
    """The card itself, whether the answer is the record or wraps it."""
    return answer.get("card", answer) if isinstance(answer, dict) else answer


async def test_an_argument_documented_under_args_does_not_become_the_records_key(tmp_path: Path) -> None:
    world = tmp_path / "board.json"
    world.write_text(json.dumps(BOARD), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _card(_body(await session.call_tool("new_card", {"title": "Fix login"})))
        assert "id" in created  # the record's own key; the family's argument name may echo it (test_bare_family_key)
        assert created.get("card_id", created["id"]) == created["id"]
        read = _card(_body(await session.call_tool("get_card", {"card_id": created["id"]})))
        assert read["id"] == created["id"] and read["title"] == "Fix login"


async def test_a_new_card_starts_in_the_first_state_another_tools_docstring_lists(tmp_path: Path) -> None:
    world = tmp_path / "board.json"
    world.write_text(json.dumps(BOARD), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        created = _card(_body(await session.call_tool("new_card", {"title": "Fix login"})))
        assert created["status"] == "backlog"


async def test_advancing_a_card_moves_it_to_the_next_listed_state_and_a_filter_finds_it(tmp_path: Path) -> None:
    world = tmp_path / "board.json"
    world.write_text(json.dumps(BOARD), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        first = _card(_body(await session.call_tool("new_card", {"title": "Fix login"})))
        second = _card(_body(await session.call_tool("new_card", {"title": "Write docs"})))
        await session.call_tool("advance_status", {"card_id": first["id"]})
        await session.call_tool("advance_status", {"card_id": first["id"]})
        assert _card(_body(await session.call_tool("get_card", {"card_id": first["id"]})))["status"] == "in_progress"

        await session.call_tool("revert_status", {"card_id": first["id"]})
        listed = _body(await session.call_tool("list_cards", {"status": "todo"}))
        cards = listed.get("cards", listed) if isinstance(listed, dict) else listed
        assert [c["title"] for c in cards] == ["Fix login"]

        await session.call_tool("revert_status", {"card_id": second["id"]})  # already at the start: stays
        assert _card(_body(await session.call_tool("get_card", {"card_id": second["id"]})))["status"] == "backlog"
