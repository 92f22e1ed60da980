"""An event store learned from one session: new events get ids in the server's own format (random groups and a
fixed host suffix), and what one call gave the session (an owner's name) is no vocabulary of the server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session
from .test_learned_journal import learned_world

JSONDict = dict[str, Any]
UID = {"type": "object", "properties": {"uid": {"type": "string"}}, "required": ["uid"]}
CATALOG: JSONDict = {"name": "events", "tools": [
    {"name": "create_event", "description": "Create a calendar event.", "inputSchema": {
        "type": "object", "properties": {"summary": {"type": "string"}, "owner": {"type": "string"}},
        "required": ["summary"]}},
    {"name": "get_event", "description": "Get an event by its uid.", "inputSchema": UID},
]}
HOST = "@cal-host"


def learned(tmp_path: Path) -> Path:
    made = [("3f2a9c1e-55b0-4d7e-a1c2-9e8f7d6c5b4a", "Standup", "maya"),
            ("b7e1d2c3-0a9f-4e8d-b6c5-1a2b3c4d5e6f", "Retro", "maya")]
    calls: list[tuple[str, JSONDict, JSONDict]] = []
    for uid, summary, owner in made:
        calls.append(("create_event", {"summary": summary, "owner": owner}, {"ok": True, "uid": uid + HOST}))
        calls.append(("get_event", {"uid": uid + HOST},
                      {"ok": True, "event": {"uid": uid + HOST, "summary": summary, "owner": owner}}))
    return learned_world(tmp_path, calls, CATALOG)


async def test_a_new_event_gets_an_id_in_the_format_the_servers_ids_had(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        first = json_answer(await session.call_tool("create_event", {"summary": "Planning", "owner": "ines"}))
        second = json_answer(await session.call_tool("create_event", {"summary": "Review", "owner": "ines"}))
        shape = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + re.escape(HOST))
        assert shape.fullmatch(first["uid"]) and shape.fullmatch(second["uid"])
        assert first["uid"] != second["uid"]
        read = json_answer(await session.call_tool("get_event", {"uid": second["uid"]}))
        assert read["event"]["summary"] == "Review"


async def test_a_word_the_session_passed_is_no_vocabulary_a_new_entity_is_given(tmp_path: Path) -> None:
    """The recording's events were all ``maya``'s because the calls said so: a new event without an owner is
    not hers."""
    async with stdio_session(str(learned(tmp_path))) as session:
        made = json_answer(await session.call_tool("create_event", {"summary": "Planning"}))
        read = json_answer(await session.call_tool("get_event", {"uid": made["uid"]}))
        assert read["event"].get("owner") != "maya"


async def test_an_id_the_server_answered_alike_in_every_session_is_its_fixed_id(tmp_path: Path) -> None:
    """A server whose id generator is seeded answers the same new id every time, session after session; the
    learned world answers that id rather than counting its own."""
    catalog: JSONDict = {"name": "chat", "tools": [{"name": "send_message", "description": "Send a message.",
                                                    "inputSchema": {"type": "object", "properties": {
                                                        "receiver_id": {"type": "string"}, "text": {"type": "string"}},
                                                        "required": ["receiver_id", "text"]}}]}
    lines = []
    for episode, receivers in (("a", ["USR2", "USR3"]), ("b", ["USR4"])):
        for turn, receiver in enumerate(receivers, 1):
            answer = {"sent_status": True, "message_id": {"new_id": 67410}}
            lines.append(json.dumps({"episode": episode, "turn": turn, "tool": "send_message",
                                     "arguments": {"receiver_id": receiver, "text": "hello"},
                                     "result": {"content": [{"type": "text", "text": json.dumps(answer)}],
                                                "isError": False}}))
    recording = tmp_path / "train.jsonl"
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    world = learn_cli(recording, catalog, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        sent = [json_answer(await session.call_tool("send_message", {"receiver_id": r, "text": "hi"}))
                for r in ("USR5", "USR6")]
        assert [s["message_id"]["new_id"] for s in sent] == [67410, 67410]
