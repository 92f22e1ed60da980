"""A verb whose act makes a record named after the act: ``book_room`` makes a booking (not a room), which
``get_booking`` reads and ``cancel_booking`` cancels (it stays readable, cancelled), by the ``booking_id`` the
booking answered. A tool whose outputSchema declares its answer keeps that answer. Through a real MCP client
over stdio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentworld_mcp.world.roles import infer_role

from .conftest import bare_tool, json_answer, world_calls

_STR = {"type": "string"}

STAYS = {
    "name": "stays",
    "tools": [
        bare_tool("book_room", "Book a hotel room.", {"hotel": _STR, "room_type": _STR, "check_in": _STR},
                  ["hotel", "room_type", "check_in"]),
        bare_tool("get_booking", "Get a booking by its id.", {"booking_id": _STR}, ["booking_id"]),
        bare_tool("cancel_booking", "Cancel a booking.", {"booking_id": _STR}, ["booking_id"]),
    ],
}


async def _answers(tmp_path: Path, *calls: tuple[str, Any]) -> list[Any]:
    return [json_answer(result) for result in await world_calls(tmp_path, STAYS, *calls)]


async def test_a_booking_is_made_read_and_cancelled_by_its_booking_id(tmp_path: Path) -> None:
    booked, cancelled, read = await _answers(
        tmp_path, ("book_room", {"hotel": "Harbor Inn", "room_type": "double", "check_in": "2026-12-15"}),
        ("cancel_booking", lambda done: {"booking_id": json_answer(done[0])["booking_id"]}),
        ("get_booking", lambda done: {"booking_id": json_answer(done[0])["booking_id"]}))
    assert (read["booking_id"], read["room_type"]) == (booked["booking_id"], "double")
    assert read["status"] == cancelled["status"] == "cancelled"


def test_a_declared_answer_keeps_the_act_an_action() -> None:
    declared = {**STAYS["tools"][0], "outputSchema": {"type": "object", "properties": {
        "booking_id": _STR, "transaction_id": _STR}}}
    assert (infer_role(STAYS["tools"][0]).kind, infer_role(STAYS["tools"][0]).collection) == ("create", "bookings")
    assert infer_role(declared).kind == "action"
