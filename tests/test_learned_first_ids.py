"""A server that draws its ids from a seeded generator gives the first one again in every session (issue 22).

A booking service recorded five sessions; the first booking of four of them was ``3426812`` (the third's
generator was seeded otherwise), a later booking got another id. Learned with the ``agentworld-mcp learn``
CLI and served by ``agentworld-mcp serve`` to a real MCP client over stdio, a new episode's first booking
is ``3426812`` and reads back under it; its second booking gets an id of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, learn_cli, stdio_session, write_recording

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "bookings", "tools": [
    bare_tool("book_trip", "Book a trip.", {"destination": {"type": "string"}}, ["destination"]),
    bare_tool("get_booking", "Get a booking by its id.", {"booking_id": {"type": "string"}}, ["booking_id"]),
]}


def recording(path: Path) -> Path:
    lines: list[str] = []
    for session, first in enumerate(["3426812", "3426812", "4191922", "3426812", "3426812"]):
        calls: list[tuple[str, JSONDict, Any]] = [
            ("book_trip", {"destination": f"Lisbon {session}"}, {"booking_id": first, "status": "confirmed"})]
        if session == 1:
            calls.append(("book_trip", {"destination": "Porto"}, {"booking_id": "5550017", "status": "confirmed"}))
        lines += write_recording(path, calls, episode=f"s{session}").read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_the_first_booking_of_an_episode_has_the_servers_first_id_and_the_next_one_another(
        tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        first = json_answer(await session.call_tool("book_trip", {"destination": "Oslo"}))
        second = json_answer(await session.call_tool("book_trip", {"destination": "Bergen"}))
        read = json_answer(await session.call_tool("get_booking", {"booking_id": "3426812"}))
    assert first["booking_id"] == "3426812"
    assert second["booking_id"] != "3426812"
    assert read["destination"] == "Oslo"
