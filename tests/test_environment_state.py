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


# A bike-share depot: state that is no collection of records (a map of lockers to a two-valued state,
# an account object holding a balance, bay charge levels), with typed and bare tools over it.
LOCK_STATES = "The state of the lockers. [Enum]: [\"locked\", \"unlocked\"]"
DEPOT: dict[str, Any] = {
    "name": "depot",
    "seed": {"depot": [{"lockerStatus": {"a1": "unlocked", "a2": "unlocked", "b1": "locked"},
                        "account": {"member_id": 77, "credit": 12.5},
                        "northBayCharge": 80, "southBayCharge": 64, "shelterState": "open"}]},
    "tools": [
        _tool("secureLockers", "Locks or unlocks lockers of the depot.",
              {"unlock": {"type": "boolean"}, "lockers": {"type": "array", "items": {"type": "string"}}},
              {"lockerStatus": {"type": "string", "description": LOCK_STATES},
               "remainingUnlockedLockers": {"type": "integer"}}),
        _tool("lock_lockers", "Locks the given lockers.",
              {"lockers": {"type": "array", "items": {"type": "string"}}}),
        _tool("showDepot", "Shows the depot's state.",
              {"option": {"type": "string", "description": "What to show. [Enum]: [\"charge\", \"lockers\", \"shelter\"]"}}),
        _tool("top_up_credit", "Top up the member's credit.", {"amount": {"type": "number"}}),
        _tool("spend_credit", "Spend credit on a ride.", {"amount": {"type": "number"}},
              {"new_credit": {"type": "number"}}),
        _tool("get_account", "Get the member's account.", {}),
        _tool("start_charging", "Starts charging a bay.", {"bay": {"type": "string"}},
              {"status": {"type": "string", "description": "The status of the charging."}}),
    ],
}


async def test_a_list_argument_sets_part_of_a_two_valued_map_and_counts_what_remains(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, DEPOT)) as session:
        locked = await session.call_tool("secureLockers", {"unlock": False, "lockers": ["a1"]})
        shown = await session.call_tool("showDepot", {"option": "lockers"})
        opened = await session.call_tool("secureLockers", {"unlock": True, "lockers": ["a1", "b1"]})
    assert locked.structuredContent == {"lockerStatus": "locked", "remainingUnlockedLockers": 1}
    assert json.loads(shown.content[0].text) == {  # type: ignore[union-attr]
        "lockerStatus": {"a1": "locked", "a2": "unlocked", "b1": "locked"}}
    assert opened.structuredContent == {"lockerStatus": "unlocked", "remainingUnlockedLockers": 3}


async def test_without_output_schema_a_map_change_answers_the_map_as_changed(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, DEPOT)) as session:
        locked = await session.call_tool("lock_lockers", {"lockers": ["a2"]})
        shown = await session.call_tool("showDepot", {"option": "lockers"})
    changed = {"lockerStatus": {"a1": "unlocked", "a2": "locked", "b1": "locked"}}
    assert json.loads(locked.content[0].text) == changed  # type: ignore[union-attr]
    assert json.loads(shown.content[0].text) == changed  # type: ignore[union-attr]


async def test_an_option_argument_shows_the_group_of_state_fields_it_names(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, DEPOT)) as session:
        charge = await session.call_tool("showDepot", {"option": "charge"})
        shelter = await session.call_tool("showDepot", {"option": "shelter"})
    assert json.loads(charge.content[0].text) == {"northBayCharge": 80, "southBayCharge": 64}  # type: ignore[union-attr]
    assert json.loads(shelter.content[0].text) == {"shelterState": "open"}  # type: ignore[union-attr]


async def test_an_amount_changes_a_balance_held_inside_an_object_of_the_state(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, DEPOT)) as session:
        topped = await session.call_tool("top_up_credit", {"amount": 5})
        spent = await session.call_tool("spend_credit", {"amount": 2.5})
        account = await session.call_tool("get_account", {})
    assert json.loads(topped.content[0].text) == {"credit": 17.5}  # type: ignore[union-attr]
    assert spent.structuredContent == {"new_credit": 15.0}
    # the member id is an identifier, never an amount; the account reads back as changed
    assert json.loads(account.content[0].text) == {"member_id": 77, "credit": 15.0}  # type: ignore[union-attr]


async def test_a_status_field_about_the_tools_own_operation_is_a_line_naming_the_call(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path, DEPOT)) as session:
        started = await session.call_tool("start_charging", {"bay": "north"})
    assert not started.isError
    body = started.structuredContent or {}
    assert list(body) == ["status"] and "north" in body["status"]
