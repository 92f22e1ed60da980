"""Answers made of what other tools and the seed hold: a read named for one thing returns the record
another tool made (by the id it returned) or the seed holds; a map grouped by a reference holds the
seed's pairs and what was sent since; the sentence and flag that report a call's outcome are written
from the call; a new record's actor is the session's user and its id continues the seed's counter;
tools naming an entity shorter than the seed does (``vans`` / ``delivery_vans``) act on the seeded
records; a map keyed by the records' ids lists them; an answer keeps to its declared fields.
An invented courier catalog, through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

OBJ: dict[str, Any] = {"type": "object"}
RESULT = {"type": "string", "description": "A message describing the result of the attempt."}


def _tool(name: str, description: str, props: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {**OBJ, "properties": props, "required": list(props)},
            "outputSchema": {**OBJ, "properties": out}}


PARCEL = {"parcel_id": {"type": "string"}, "destination": {"type": "string"}, "weight_kg": {"type": "number"}}
COURIER: dict[str, Any] = {
    "name": "courier",
    "seed": {
        "parcels": [{"id": "P-1", "destination": "Oslo", "weight_kg": 2.5},
                    {"id": "P-2", "destination": "Lima", "weight_kg": 0.4}],
        "outbox": [{"ZED01": "Left at the door"}, {"ZED02": "Signed by Ann"}, {"ZED01": "Back gate"}],
        "depot": [{"username": "dispatcher_kim", "label_counter": 0}],
        "delivery_vans": [{"id": "V1", "plate": "AB-123", "fuel_litres": 40.0, "depot": "north"}],
    },
    "tools": [
        _tool("ship_parcel", "Ship a parcel to a destination.",
              {"destination": {"type": "string"}, "weight_kg": {"type": "number"}}, PARCEL),
        _tool("get_receipt", "Get the receipt of a shipment.", {"parcel_id": {"type": "string"}},
              {"receipt": {**OBJ, "properties": PARCEL}}),
        _tool("send_note", "Send a note to a driver.", {"driver_id": {"type": "string"}, "note": {"type": "string"}},
              {"sent": {"type": "boolean", "description": "True if the note was sent successfully, False otherwise."},
               "result": RESULT}),
        _tool("view_notes", "View the notes left for drivers.", {},
              {"notes": {**OBJ, "description": 'Notes grouped by driver, e.g. {"ZED01": ["Hi"]}.'}}),
        _tool("add_label", "Add a shipping label.", {"text": {"type": "string"}},
              {"id": {"type": "integer"}, "text": {"type": "string"}, "username": {"type": "string"}}),
        _tool("register_delivery_van", "Register a delivery van.", {"plate": {"type": "string"}},
              {"van_id": {"type": "string", "description": "The ID of the registered van"}}),
        _tool("get_all_delivery_vans", "List the registered delivery vans.", {},
              {"van_list": {**OBJ, "description": "A dictionary containing all registered vans",
                            "properties": {"plate": {"type": "string"}, "fuel_litres": {"type": "number"}}}}),
        _tool("get_delivery_van_fuel", "Get the fuel of a van.", {"van_id": {"type": "string"}},
              {"van_fuel_litres": {"type": "number", "description": "The fuel left in the van"}}),
        _tool("cancel_parcel", "Cancel a parcel.", {"parcel_id": {"type": "string"}},
              {"cancel_status": {"type": "boolean", "description": "True if the cancellation succeeded, False otherwise"}}),
        _tool("check_driver", "Check a driver's licence.", {"driver_id": {"type": "string"}},
              {"checked": {"type": "boolean", "description": "True if the check succeeded, False otherwise."},
               "check_failure": {"type": "string", "description": "The reason for the check failure"}}),
    ],
}


def _write(tmp_path: Path) -> str:
    path = tmp_path / "courier.json"
    path.write_text(json.dumps(COURIER), encoding="utf-8")
    return str(path)


async def test_a_read_named_for_one_thing_returns_the_record_another_tool_made_by_the_id_it_returned(
        tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        shipped = (await session.call_tool("ship_parcel", {"destination": "Quito", "weight_kg": 1.2})).structuredContent
        assert shipped is not None
        made = await session.call_tool("get_receipt", {"parcel_id": shipped["parcel_id"]})
        seeded = await session.call_tool("get_receipt", {"parcel_id": "P-2"})
    assert made.structuredContent == {"receipt": {"parcel_id": shipped["parcel_id"], "destination": "Quito",
                                                  "weight_kg": 1.2}}
    assert seeded.structuredContent == {"receipt": {"parcel_id": "P-2", "destination": "Lima", "weight_kg": 0.4}}


async def test_a_map_grouped_by_a_reference_holds_the_seeded_pairs_and_what_was_sent_since(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        before = await session.call_tool("view_notes", {})
        await session.call_tool("send_note", {"driver_id": "ZED02", "note": "Ring twice"})
        await session.call_tool("send_note", {"driver_id": "ZED09", "note": "Dog in yard"})
        after = await session.call_tool("view_notes", {})
    assert before.structuredContent == {"notes": {"ZED01": ["Left at the door", "Back gate"],
                                                  "ZED02": ["Signed by Ann"]}}
    assert after.structuredContent == {"notes": {"ZED01": ["Left at the door", "Back gate"],
                                                 "ZED02": ["Signed by Ann", "Ring twice"], "ZED09": ["Dog in yard"]}}


async def test_the_outcome_sentence_names_the_calls_values_and_the_success_flag_is_true(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        left = (await session.call_tool("send_note", {"driver_id": "ZED01", "note": "Gate code 4411"})).structuredContent
    assert left is not None and left["sent"] is True
    assert "ZED01" in left["result"] and "sent" in left["result"].lower()


async def test_a_new_record_names_the_sessions_user_and_continues_the_seeds_counter_from_zero(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        first = await session.call_tool("add_label", {"text": "FRAGILE"})
        second = await session.call_tool("add_label", {"text": "THIS WAY UP"})
    assert first.structuredContent == {"id": 0, "text": "FRAGILE", "username": "dispatcher_kim"}
    assert second.structuredContent == {"id": 1, "text": "THIS WAY UP", "username": "dispatcher_kim"}


async def test_tools_naming_the_entity_shorter_than_the_seed_act_on_the_seeded_records(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        registered = (await session.call_tool("register_delivery_van", {"plate": "CD-456"})).structuredContent
        listed = (await session.call_tool("get_all_delivery_vans", {})).structuredContent
        fuel = (await session.call_tool("get_delivery_van_fuel", {"van_id": "V1"})).structuredContent
    assert registered is not None and set(registered) == {"van_id"}
    assert listed == {"van_list": {"V1": {"plate": "AB-123", "fuel_litres": 40.0, "depot": "north"},
                                   registered["van_id"]: {"plate": "CD-456"}}}
    assert fuel == {"van_fuel_litres": 40.0}


async def test_an_answer_keeps_to_its_declared_fields_and_a_success_has_no_failure_reason(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        cancelled = await session.call_tool("cancel_parcel", {"parcel_id": "P-1"})
        checked = await session.call_tool("check_driver", {"driver_id": "ZED01"})
    assert cancelled.structuredContent == {"cancel_status": True}
    assert checked.structuredContent == {"checked": True}
