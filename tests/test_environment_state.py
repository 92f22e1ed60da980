"""A world's state answers the tools that return data: records the arguments address, scalar state with
the arithmetic the descriptions state, lists the state holds, ids that continue the seed's sequence, and
lifecycle verbs that keep the record. Invented catalogs, through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

OBJ: dict[str, Any] = {"type": "object"}


def _tool(name: str, description: str, props: dict[str, Any], out: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "description": description,
                            "inputSchema": {**OBJ, "properties": props, "required": list(props)}}
    if out is not None:
        tool["outputSchema"] = {**OBJ, "properties": out}
    return tool


# A small greenhouse controller: plants keyed by code, a water tank, a favourites list, an order counter.
GREENHOUSE: dict[str, Any] = {
    "name": "greenhouse",
    "seed": {
        "plants": [{"id": "FERN", "height": 31.5, "water_ml": 200}, {"id": "MINT", "height": 12.0, "water_ml": 80}],
        "favourite_list": [{"name": "FERN"}],
        "controller": [{"tankLevel": 10.0, "doorStatus": "open", "order_counter": 501}],
        "orders": [{"id": 1, "species": "basil", "status": "pending"}, {"id": 2, "species": "thyme", "status": "sent"}],
    },
    "tools": [
        _tool("get_plant_report", "Get the report of a plant.", {"code": {"type": "string"}},
              {"height": {"type": "number"}, "water_ml": {"type": "integer"}}),
        _tool("fillTank", "Fills the water tank. The tank can hold up to 40 liters.",
              {"waterAmount": {"type": "number"}}, {"tankLevel": {"type": "number"}}),
        _tool("closeDoor", "Closes or opens the greenhouse door.", {"open": {"type": "boolean"}},
              {"doorStatus": {"type": "string", "description": "The door. [Enum]: [\"open\", \"closed\"]"}}),
        _tool("add_to_favouritelist", "Add a plant to the favourites.", {"plant": {"type": "string"}},
              {"favouritelist": {"type": "array", "items": {"type": "string"}}}),
        _tool("place_order", "Place an order for seedlings.", {"species": {"type": "string"}},
              {"id": {"type": "integer"}, "species": {"type": "string"}}),
        _tool("get_order", "Get a seedling order.", {"order_id": {"type": "integer"}},
              {"id": {"type": "integer"}, "species": {"type": "string"}, "status": {"type": "string"}}),
        _tool("cancel_order", "Cancel a seedling order.", {"order_id": {"type": "integer"}},
              {"id": {"type": "integer"}, "status": {"type": "string"}}),
    ],
}

# The same kind of program without outputSchemas: a data-returning tool answers data, not an acknowledgement.
LIBRARY: dict[str, Any] = {
    "name": "library",
    "seed": {
        "books": [{"id": "B-7", "title": "Dune", "copies": 2}, {"id": "B-8", "title": "Emma", "copies": 1}],
        "desk": [{"credit_balance": 3.5, "member": "ada"}],
    },
    "tools": [
        _tool("get_book_info", "Get the details of a book.", {"isbn_code": {"type": "string"}}),
        _tool("deposit_credit", "Deposit an amount of credit for the member.", {"credit_amount": {"type": "number"}}),
        _tool("log_visit", "Log a visit to the library.", {"note": {"type": "string"}}),
    ],
}


def _write(tmp_path: Path, world: dict[str, Any]) -> str:
    path = tmp_path / f"{world['name']}.json"
    path.write_text(json.dumps(world), encoding="utf-8")
    return str(path)


async def test_a_read_the_arguments_address_answers_the_seeded_record_as_stored(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, GREENHOUSE)) as session:
        fern = await session.call_tool("get_plant_report", {"code": "FERN"})
        mint = await session.call_tool("get_plant_report", {"code": "MINT"})
    assert fern.structuredContent == {"height": 31.5, "water_ml": 200}
    assert mint.structuredContent == {"height": 12.0, "water_ml": 80}


async def test_arithmetic_the_description_states_changes_the_state_up_to_its_capacity(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, GREENHOUSE)) as session:
        first = await session.call_tool("fillTank", {"waterAmount": 25})
        second = await session.call_tool("fillTank", {"waterAmount": 25})
    assert first.structuredContent == {"tankLevel": 35.0}
    assert second.structuredContent == {"tankLevel": 40.0}  # "can hold up to 40 liters"


async def test_a_boolean_argument_named_after_a_listed_state_picks_that_state(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, GREENHOUSE)) as session:
        closed = await session.call_tool("closeDoor", {"open": False})
        opened = await session.call_tool("closeDoor", {"open": True})
    assert (closed.structuredContent or {})["doorStatus"] == "closed"
    assert (opened.structuredContent or {})["doorStatus"] == "open"


async def test_adding_to_a_list_the_state_holds_answers_the_whole_list(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, GREENHOUSE)) as session:
        added = await session.call_tool("add_to_favouritelist", {"plant": "MINT"})
        fern = await session.call_tool("get_plant_report", {"code": "FERN"})
    assert added.structuredContent == {"favouritelist": ["FERN", "MINT"]}
    assert fern.structuredContent == {"height": 31.5, "water_ml": 200}  # the plant is untouched


async def test_new_ids_continue_the_seed_counter_and_cancel_keeps_the_record(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, GREENHOUSE)) as session:
        placed = await session.call_tool("place_order", {"species": "sage"})
        again = await session.call_tool("place_order", {"species": "dill"})
        cancelled = await session.call_tool("cancel_order", {"order_id": 1})
        read = await session.call_tool("get_order", {"order_id": 1})
    assert placed.structuredContent == {"id": 501, "species": "sage"}  # ``order_counter: 501``
    assert (again.structuredContent or {})["id"] == 502
    assert (cancelled.structuredContent or {})["status"] == "cancelled"
    assert not read.isError and read.structuredContent == {"id": 1, "species": "basil", "status": "cancelled"}


async def test_without_output_schemas_data_returning_tools_answer_data(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, LIBRARY)) as session:
        book = await session.call_tool("get_book_info", {"isbn_code": "B-7"})
        paid = await session.call_tool("deposit_credit", {"credit_amount": 2})
        logged = await session.call_tool("log_visit", {"note": "morning"})
    assert json.loads(book.content[0].text) == {"id": "B-7", "title": "Dune", "copies": 2}  # type: ignore[union-attr]
    assert json.loads(paid.content[0].text) == {"credit_balance": 5.5}  # type: ignore[union-attr]
    # a tool that returns nothing may still acknowledge
    assert "completed successfully" in logged.content[0].text  # type: ignore[union-attr]
