"""A learned answer that names who logged in names the seed's current user where the episode logged no one in.

A help desk recorded two sessions' logins and tickets: ``created_by`` was the ``username`` of the latest
``desk_login``. Learned with the ``agentworld-mcp learn`` CLI, given a seed whose standing state says who is
logged in (``current_user``, as an environment that starts mid-session has it), and served by
``agentworld-mcp serve`` to a real MCP client over stdio, a ticket made before any login is that user's; one
made after a login, the new user's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, learn_cli, stdio_session, write_recording
from .test_learned_examples import CATALOG

JSONDict = dict[str, Any]
LOGIN_CATALOG: JSONDict = {"name": "desk", "tools": [
    bare_tool("desk_login", "Log in to the help desk.", {"username": {"type": "string"}, "password": {"type": "string"}},
              ["username", "password"]),
    *CATALOG["tools"],
]}


def login_recording(path: Path) -> Path:
    return write_recording(path, [
        ("desk_login", {"username": "ana", "password": "pw-1"}, {"success": True}),
        ("create_ticket", {"title": "Printer jammed"}, {"id": 1, "title": "Printer jammed", "created_by": "ana"}),
        ("desk_login", {"username": "ravi", "password": "pw-2"}, {"success": True}),
        ("create_ticket", {"title": "VPN drops"}, {"id": 2, "title": "VPN drops", "created_by": "ravi"}),
    ])


async def test_who_logged_in_before_the_episode_is_the_seeds_current_user(tmp_path: Path) -> None:
    learned = learn_cli(login_recording(tmp_path / "train.jsonl"), LOGIN_CATALOG, tmp_path / "learned.json")
    world = json.loads(learned.read_text(encoding="utf-8"))
    seeded = tmp_path / "seeded.json"
    seeded.write_text(json.dumps({**world, "seed": {"desk_session": [{"current_user": "mthompson"}]}}),
                      encoding="utf-8")
    async with stdio_session(str(seeded)) as session:
        before = json_answer(await session.call_tool("create_ticket", {"title": "Badge reader"}))
        await session.call_tool("desk_login", {"username": "lee", "password": "pw-3"})
        after = json_answer(await session.call_tool("create_ticket", {"title": "Monitor"}))
    assert before["created_by"] == "mthompson"
    assert after["created_by"] == "lee"
