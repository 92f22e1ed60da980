"""A verb whose act makes a record named after the act: ``book_flight`` makes a booking (not a flight), which
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

TRAVEL = {
    "name": "travel",
    "tools": [
        bare_tool("book_flight", "Book a flight.", {"travel_from": _STR, "travel_to": _STR, "travel_date": _STR},
                  ["travel_from", "travel_to", "travel_date"]),
        bare_tool("get_booking", "Get a booking by its id.", {"booking_id": _STR}, ["booking_id"]),
        bare_tool("cancel_booking", "Cancel a booking.", {"booking_id": _STR}, ["booking_id"]),
    ],
}


async def _answers(tmp_path: Path, *calls: tuple[str, Any]) -> list[Any]:
    return [json_answer(result) for result in await world_calls(tmp_path, TRAVEL, *calls)]


async def test_a_booking_is_made_read_and_cancelled_by_its_booking_id(tmp_path: Path) -> None:
    booked, cancelled, read = await _answers(
        tmp_path, ("book_flight", {"travel_from": "SFO", "travel_to": "LAX", "travel_date": "2026-12-15"}),
        ("cancel_booking", lambda done: {"booking_id": json_answer(done[0])["booking_id"]}),
        ("get_booking", lambda done: {"booking_id": json_answer(done[0])["booking_id"]}))
    assert (read["booking_id"], read["travel_to"]) == (booked["booking_id"], "LAX")
    assert read["status"] == cancelled["status"] == "cancelled"


def test_a_declared_answer_keeps_the_act_an_action() -> None:
    declared = {**TRAVEL["tools"][0], "outputSchema": {"type": "object", "properties": {
        "booking_id": _STR, "transaction_id": _STR}}}
    assert (infer_role(TRAVEL["tools"][0]).kind, infer_role(TRAVEL["tools"][0]).collection) == ("create", "bookings")
    assert infer_role(declared).kind == "action"
