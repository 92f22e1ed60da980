"""A learned world fills a field from the session it serves, not from the recording (issue 22, item 4): a
create whose answers named the user of the session's latest login answers the new session's login, with one
training user or several; a sentence field with the call's id in it (``Case 7 has been closed.``) names the
new call's id; a status word every session showed stays. Learned with the ``agentworld-mcp learn`` CLI,
served by ``agentworld-mcp serve`` and driven by a real MCP client over stdio with renamed values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "helpdesk", "tools": [
    {"name": "desk_login", "description": "Log in to the help desk.",
     "inputSchema": {"type": "object", "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                     "required": ["username", "password"]}},
    {"name": "open_case", "description": "Open a new support case.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "get_case", "description": "Get a support case by its id.",
     "inputSchema": {"type": "object", "properties": {"case_id": {"type": "integer"}}, "required": ["case_id"]}},
    {"name": "close_case", "description": "Close a support case.",
     "inputSchema": {"type": "object", "properties": {"case_id": {"type": "integer"}}, "required": ["case_id"]}},
]}
TRAINING_USERS = ("alice_w", "bob_k")


def line(episode: str, turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": episode, "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path, sessions: list[tuple[str, str, list[str]]]) -> Path:
    """Sessions of a desk that logs a user in, opens cases (numbered from 1) by them, reads and closes them."""
    lines = []
    for episode, user, titles in sessions:
        turn = 1
        lines.append(line(episode, turn, "desk_login", {"username": user, "password": "hunter22"}, {"success": True}))
        for number, title in enumerate(titles, 1):
            case = {"id": number, "title": title, "status": "Open", "opened_by": user}
            lines.append(line(episode, turn := turn + 1, "open_case", {"title": title}, case))
            lines.append(line(episode, turn := turn + 1, "get_case", {"case_id": number}, case))
            lines.append(line(episode, turn := turn + 1, "close_case", {"case_id": number},
                              {"status": f"Case {number} has been closed."}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path, sessions: list[tuple[str, str, list[str]]]) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl", sessions), CATALOG, tmp_path / "learned.yaml", "--no-seed")


async def new_session(world: Path) -> list[JSONDict]:
    """A session the recording never saw: another user, other titles; every answer parsed."""
    async with stdio_session(str(world)) as session:
        answers = [await session.call_tool("desk_login", {"username": "carol_q", "password": "s3cret-pass"})]
        made = await session.call_tool("open_case", {"title": "Replace the router"})
        case_id = json.loads(made.content[0].text)["id"]
        answers += [made, await session.call_tool("get_case", {"case_id": case_id}),
                    await session.call_tool("close_case", {"case_id": case_id})]
    assert not any(a.isError for a in answers), [a.content for a in answers]
    return [json.loads(a.content[0].text) for a in answers]


async def test_a_field_learned_from_the_session_login_names_the_new_sessions_user(tmp_path: Path) -> None:
    world = learned(tmp_path, [("a", TRAINING_USERS[0], ["Printer jam", "Broken chair"]),
                               ("b", TRAINING_USERS[1], ["Lost badge"])])
    _, made, read, closed = await new_session(world)
    assert made["opened_by"] == "carol_q" and read["opened_by"] == "carol_q"
    assert made["title"] == "Replace the router" and read["title"] == "Replace the router"
    assert made["status"] == "Open"
    assert closed["status"] == f"Case {made['id']} has been closed."
    assert not any(user in json.dumps([made, read, closed]) for user in TRAINING_USERS)


async def test_one_training_user_is_learned_as_the_login_not_as_a_constant(tmp_path: Path) -> None:
    world = learned(tmp_path, [("a", TRAINING_USERS[0], ["Printer jam", "Broken chair"])])
    _, made, read, closed = await new_session(world)
    assert made["opened_by"] == "carol_q" and read["opened_by"] == "carol_q"
    assert TRAINING_USERS[0] not in json.dumps([made, read, closed])
    assert closed["status"] == f"Case {made['id']} has been closed."
