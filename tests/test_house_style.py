"""A catalog's own conventions, read from its docstrings, hold for all its tools.

Where most tools of a catalog that say what they return say it in words (``Dict with success status
and link_id``), those words are their answer's shape; the tools that say nothing answer in the same
envelope (``{"success": true, "card": {...}}``, ``{"success": true, "cards": [...]}``) and refuse in
band (``{"success": false, "error": ...}``); a value outside the range or vocabulary a description
states is refused in the words real servers use. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.world.described_shape import described_returns

from .conftest import stdio_session

_STR = {"type": "string"}
_INT = {"type": "integer"}


def _tool(name: str, description: str, **props: Any) -> dict[str, Any]:
    required = [p for p in props if p in ("card_id", "title", "query", "url", "lane")]
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": required}}


BOARD = {
    "name": "board",
    "tools": [
        _tool("create_card", "Create a card.\n\n    Args:\n        title: The card's title\n"
                             "        points: Story points 1-8\n", title=_STR, points=_INT),
        _tool("get_card", "Get a card by id.", card_id=_STR),
        _tool("list_cards", "List the cards on the board.", limit=_INT),
        _tool("move_card", "Move a card to a lane.\n\n    Args:\n        card_id: The card\n"
                           "        lane: One of 'todo', 'doing', 'done'\n", card_id=_STR, lane=_STR),
        _tool("attach_link", "Attach a link to a card.\n\n    Returns:\n"
                             "        Dict with success status and link_id if successful\n", card_id=_STR, url=_STR),
        _tool("detach_link", "Detach a link from a card.\n\n    Returns:\n        Dict with success status\n",
              card_id=_STR, url=_STR),
        _tool("card_files", "Files attached to a card.\n\n    Returns:\n"
                            "        Dict with success status and list of files\n", card_id=_STR),
        _tool("find_cards", "Search the cards.\n\n    Returns:\n        Dict with success, results list\n"
                            "        (each with card_id, score), and total_count\n", query=_STR),
    ],
}


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


def _world(tmp_path: Path, catalog: dict[str, Any]) -> str:
    path = tmp_path / f"{catalog['name']}.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return str(path)


def _key(record: dict[str, Any]) -> str:
    return str(next(v for k, v in record.items() if k == "id" or k.endswith("_id")))


async def test_tools_that_state_nothing_answer_in_the_envelope_the_catalog_states(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, BOARD)) as session:
        created = _body(await session.call_tool("create_card", {"title": "Write the release notes", "points": 3}))
        assert created["success"] is True and created["card"]["title"] == "Write the release notes"
        card_id = _key(created["card"])

        read = _body(await session.call_tool("get_card", {"card_id": card_id}))
        assert read["success"] is True and read["card"]["title"] == "Write the release notes"

        listed = _body(await session.call_tool("list_cards", {}))
        assert listed["success"] is True
        assert [c["title"] for c in listed["cards"]] == ["Write the release notes"]


async def test_a_prose_return_statement_is_the_answers_shape(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, BOARD)) as session:
        card_id = _key(_body(await session.call_tool("create_card", {"title": "Fix login"}))["card"])
        files = _body(await session.call_tool("card_files", {"card_id": card_id}))
        assert files["success"] is True and set(files) == {"success", "files"} and isinstance(files["files"], list)

        found = _body(await session.call_tool("find_cards", {"query": "login"}))
        assert found["success"] is True and set(found) == {"success", "results", "total_count"}
        assert isinstance(found["results"], list) and isinstance(found["total_count"], int)

        linked = _body(await session.call_tool("attach_link", {"card_id": card_id, "url": "https://example.com/a"}))
        assert linked["success"] is True and "link_id" in linked


async def test_a_failure_is_answered_in_band_in_the_catalogs_failure_shape(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, BOARD)) as session:
        missing = await session.call_tool("get_card", {"card_id": "card-404"})
        assert not missing.isError
        body = json.loads(missing.content[0].text)
        assert body == {"success": False, "error": body["error"]} and "not found" in body["error"].lower()


async def test_a_value_outside_the_stated_range_or_vocabulary_is_refused_in_its_words(tmp_path: Path) -> None:
    async with stdio_session(_world(tmp_path, BOARD)) as session:
        too_big = await session.call_tool("create_card", {"title": "Huge", "points": 13})
        assert not too_big.isError
        assert json.loads(too_big.content[0].text) == {"success": False, "error": "Points must be 1-8, got 13"}

        card_id = _key(_body(await session.call_tool("create_card", {"title": "Small", "points": 2}))["card"])
        wrong_lane = json.loads((await session.call_tool("move_card", {"card_id": card_id, "lane": "someday"}))
                                .content[0].text)
        assert wrong_lane["success"] is False and "'someday'" in wrong_lane["error"]
        assert "todo, doing, done" in wrong_lane["error"]

        moved = _body(await session.call_tool("move_card", {"card_id": card_id, "lane": "doing"}))
        assert moved["success"] is True


async def test_a_catalog_where_few_tools_state_a_flag_keeps_its_own_answers(tmp_path: Path) -> None:
    plain = {"name": "plain", "tools": [t for t in BOARD["tools"] if t["name"] in  # type: ignore[attr-defined]
                                        ("create_card", "get_card", "list_cards", "detach_link")]}
    async with stdio_session(_world(tmp_path, plain)) as session:
        created = _body(await session.call_tool("create_card", {"title": "Plain"}))
        assert "success" not in created and created["title"] == "Plain"
        missing = await session.call_tool("get_card", {"card_id": "card-404"})
        assert missing.isError


def test_prose_states_a_shape_only_where_every_part_names_a_key() -> None:
    listed = described_returns("List schemas.\n\n    Returns:\n        JSON array of objects with keys: schema_name, owner.\n")
    assert listed is not None and listed.success == {
        "type": "array", "items": {"type": "object", "properties": {"schema_name": {}, "owner": {}}, "required": []}}
    flagged = described_returns("Returns:\n    Dict with success status and link_id if successful")
    assert flagged is not None and flagged.failure is not None
    assert set(flagged.success["properties"]) == {"success", "link_id"}  # type: ignore[index]
    assert described_returns("Returns:\n    Dictionary with operation results") is None
    assert described_returns("Returns:\n    A dictionary containing the subscription ID or an error message.") is None


async def test_keys_a_response_includes_sentence_names_are_answered_instead_of_an_acknowledgement(
        tmp_path: Path) -> None:
    shelves = {"name": "shelves", "tools": [
        _tool("create_shelf", "Create a shelf.", title=_STR),
        _tool("archive_shelf", "Archive a shelf.\n\n    The response includes `archived_count` (books moved to the\n"
                               "    archive) and `labels` so the move is observable.\n", card_id=_STR),
    ]}
    async with stdio_session(_world(tmp_path, shelves)) as session:
        made = _body(await session.call_tool("create_shelf", {"title": "Poetry"}))
        archived = _body(await session.call_tool("archive_shelf", {"card_id": str(made.get("id", "1"))}))
    assert isinstance(archived, dict) and {"archived_count", "labels"} <= set(archived), archived
    assert isinstance(archived["labels"], list) and isinstance(archived["archived_count"], int)


async def test_a_vocabulary_beside_a_sentence_about_leaving_the_argument_out_is_still_refused_outside(
        tmp_path: Path) -> None:
    jobs = {"name": "jobs", "tools": [
        _tool("add_job", "Add a job.\n\n    Args:\n        title: The job's title\n"
                         "        urgency: Optional, one of \"low\", \"high\". Omit for no urgency.\n",
              title=_STR, urgency=_STR)]}
    async with stdio_session(_world(tmp_path, jobs)) as session:
        refused = await session.call_tool("add_job", {"title": "Fix the latch", "urgency": "critical"})
        taken = await session.call_tool("add_job", {"title": "Oil the hinge", "urgency": "high"})
        plain = await session.call_tool("add_job", {"title": "Sweep the yard"})
    assert refused.isError and "'critical'" in refused.content[0].text and "low, high" in refused.content[0].text
    assert not taken.isError and not plain.isError  # omitting it is allowed: only an unlisted value is refused
