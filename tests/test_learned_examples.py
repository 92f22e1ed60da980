"""A word one recorded answer showed stands where the model would make one up (issue 22).

A help desk's ``create_ticket`` was recorded once: the new ticket's ``status`` was ``Open``, a word no call
passed. Learned with the ``agentworld-mcp learn`` CLI and served by ``agentworld-mcp serve`` to a real MCP
client over stdio, a new ticket says ``Open`` too and reads back so; a status the call gives still wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, learn_cli, stdio_session, write_recording

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "helpdesk", "tools": [
    bare_tool("create_ticket", "Create a support ticket.", {
        "title": {"type": "string"}, "priority": {"type": "integer"}, "status": {"type": "string"}}, ["title"]),
    bare_tool("get_ticket", "Get a ticket by its id.", {"ticket_id": {"type": "integer"}}, ["ticket_id"]),
]}


def recording(path: Path) -> Path:
    calls = [("create_ticket", {"title": "Printer jammed", "priority": 2},
              {"id": 1, "title": "Printer jammed", "status": "Open", "priority": 2})]
    return write_recording(path, calls)


async def test_a_new_ticket_has_the_status_word_the_one_recorded_create_showed(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("create_ticket", {"title": "VPN drops", "priority": 4}))
        read = json_answer(await session.call_tool("get_ticket", {"ticket_id": made["id"]}))
        given = json_answer(await session.call_tool("create_ticket", {"title": "Badge", "status": "Waiting"}))
    assert made["status"] == "Open" and made["title"] == "VPN drops"
    assert read["status"] == "Open"
    assert given["status"] == "Waiting"

