"""A catalog without outputSchemas: a tool whose name or description promises data answers that data,
under the name the promise gives it, and only a tool described as returning nothing acknowledges.
An invented parcel-station catalog, through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session


def _tool(name: str, description: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": list(props)}}


TEXT: dict[str, Any] = {"type": "string"}
NUMBER: dict[str, Any] = {"type": "number"}

STATION: dict[str, Any] = {
    "name": "station",
    "seed": {
        "parcels": [{"id": "P1", "weight": 2.5}, {"id": "P2", "weight": 0.8}],
        "station": [{"daily_limit": 20.0, "town": "Ashby"}],
    },
    "tools": [
        _tool("get_postcode_by_town", "Gets the postcode of a town.", {"town": TEXT}),
        _tool("estimate_distance", "Estimates the distance between two towns.", {"origin": TEXT, "target": TEXT}),
        _tool("get_nearest_depot_by_town", "Get the nearest depot to a town.", {"town": TEXT}),
        _tool("pint_to_liter", "Converts pints to liters.", {"pint": NUMBER}),
        _tool("set_daily_limit", "Set the daily parcel limit of the station.", {"daily_limit": NUMBER}),
        _tool("get_daily_limit", "Get the daily parcel limit.", {}),
        _tool("login", "Log a clerk in.", {"username": TEXT, "password": TEXT}),
        _tool("authenticate", "Authenticate the client with the station API.",
              {"client_id": TEXT, "client_secret": TEXT, "grant_type": TEXT}),
        _tool("check_slot_availability", "Check a delivery slot.\n\nArgs:\n    day (str): The day.\n\nReturns:\n"
              "    slot_id (str): The slot's id.\n    available (bool): Whether the slot is free.\n", {"day": TEXT}),
        _tool("quote_fare", "Quote the fare for a zone.\n:return: the fare in euros\n:rtype: float", {"zone": TEXT}),
        _tool("count_parcels", "How many parcels the station holds.", {}),
        _tool("ring_bell", "Rings the counter bell. Returns nothing.", {"times": NUMBER}),
        _tool("set_current_station", "Set the current station context.", {"station_dir": TEXT}),
    ],
}


def _write(tmp_path: Path) -> str:
    path = tmp_path / "station.json"
    path.write_text(json.dumps(STATION), encoding="utf-8")
    return str(path)


def _data(result: Any) -> Any:
    assert not result.isError, result.content[0].text
    return json.loads(result.content[0].text)


async def test_a_read_answers_the_value_its_name_promises_not_an_acknowledgement(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        postcode = _data(await session.call_tool("get_postcode_by_town", {"town": "Ashby"}))
        distance = _data(await session.call_tool("estimate_distance", {"origin": "Ashby", "target": "Brill"}))
        depot = _data(await session.call_tool("get_nearest_depot_by_town", {"town": "Ashby"}))
    assert list(postcode) == ["postcode"] and postcode["postcode"].isdigit()  # the qualifier ``by_town`` cut
    assert list(distance) == ["distance"] and isinstance(distance["distance"], (int, float))
    assert list(depot) == ["nearest_depot"] and isinstance(depot["nearest_depot"], str)


async def test_a_conversion_is_computed_under_the_target_unit(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        liters = _data(await session.call_tool("pint_to_liter", {"pint": 2}))
    assert list(liters) == ["liter"] and abs(liters["liter"] - 0.946352) < 1e-6


async def test_a_setter_answers_the_value_set_and_the_state_keeps_it(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        changed = _data(await session.call_tool("set_daily_limit", {"daily_limit": 35.0}))
        read = _data(await session.call_tool("get_daily_limit", {}))
    assert changed == {"daily_limit": 35.0}
    assert read == {"daily_limit": 35.0}


async def test_choosing_a_current_context_answers_the_context_chosen_not_an_acknowledgement(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        chosen = _data(await session.call_tool("set_current_station", {"station_dir": "/srv/stations/ashby"}))
        here = _data(await session.call_tool("set_current_station", {"station_dir": "."}))
    assert chosen["station_name"] == "ashby" and chosen["station_dir"] == "/srv/stations/ashby"
    assert len(chosen["station_id"]) == 16
    assert "station_name" not in here and here["station_dir"] == "."  # "." names no folder the call determines


async def test_a_sign_in_answers_its_status_or_an_oauth_token(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        login = _data(await session.call_tool("login", {"username": "kim", "password": "s3cret"}))
        token = _data(await session.call_tool("authenticate", {"client_id": "c1", "client_secret": "x",
                                                                "grant_type": "read_write"}))
    assert login == {"login_status": True}
    assert set(token) >= {"access_token", "token_type", "expires_in"} and token["token_type"] == "Bearer"


async def test_a_returns_section_in_the_description_gives_the_answer_its_fields_and_types(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        slot = _data(await session.call_tool("check_slot_availability", {"day": "Monday"}))
        fare = _data(await session.call_tool("quote_fare", {"zone": "B"}))
    assert set(slot) == {"slot_id", "available"}
    assert isinstance(slot["slot_id"], str) and isinstance(slot["available"], bool)
    assert list(fare) == ["fare"] and isinstance(fare["fare"], float)


async def test_a_count_is_the_number_of_records_the_state_holds(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        counted = _data(await session.call_tool("count_parcels", {}))
    assert counted == {"count": 2}


async def test_a_tool_described_as_returning_nothing_still_acknowledges(tmp_path: Path) -> None:
    async with stdio_session(_write(tmp_path)) as session:
        rung = await session.call_tool("ring_bell", {"times": 2})
    assert not rung.isError
    assert "completed successfully" in rung.content[0].text  # type: ignore[union-attr]


KILN: dict[str, Any] = {
    "name": "kiln",
    "seed": {"kiln": [{"doorState": "closed", "heaterState": "off", "heaterPower": 0.0, "chamberTemperature": 21.0}]},
    "tools": [
        _tool("startHeater", "Starts the kiln's heater.", {"heater_power": NUMBER}),
        _tool("openDoor", "Opens the kiln door.", {}),
        _tool("pressVentLever", "Presses the vent lever.", {"leverPosition": NUMBER}),
        _tool("ring_bell", "Rings the bell.", {}),
    ],
}


async def test_an_action_on_a_device_answers_the_state_its_name_names(tmp_path: Path) -> None:
    # no outputSchema, no Returns section: the heater's own fields of the standing state, as the call leaves them
    path = tmp_path / "kiln.json"
    path.write_text(json.dumps(KILN), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        started = json.loads((await session.call_tool("startHeater", {"heater_power": 2.5})).content[0].text)
        assert started == {"heaterState": "on", "heaterPower": 2.5}  # started, at the power the call set
        opened = json.loads((await session.call_tool("openDoor", {})).content[0].text)
        assert set(opened) == {"doorState"}
        # a part the state does not hold: its status as the verb leaves it, the call echoed
        pressed = json.loads((await session.call_tool("pressVentLever", {"leverPosition": 0.5})).content[0].text)
        assert pressed == {"ventLeverStatus": "pressed", "leverPosition": 0.5}
        # a name that names no state is still acknowledged
        rung = (await session.call_tool("ring_bell", {})).content[0].text
        assert "completed successfully" in rung


async def test_a_tool_named_by_its_noun_alone_reads_what_its_description_says_it_gets(tmp_path: Path) -> None:
    world = {"name": "board", "tools": [_tool("project_summary", "Get summary of items by status.", {})]}
    path = tmp_path / "board.json"
    path.write_text(json.dumps(world), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        text = (await session.call_tool("project_summary", {})).content[0].text
        assert "completed successfully" not in text
        assert "project_summary" in json.loads(text)


async def test_invented_numbers_are_plausible_for_what_their_names_say(tmp_path: Path) -> None:
    rates = {"name": "rates", "tools": [
        _tool("get_exchange_rate", "Get the exchange rate between two currencies.", {"base": TEXT, "target": TEXT}),
        _tool("replace_text", "Replace a string in a document. Returns the number of replacements made.",
              {"doc_id": TEXT, "find": TEXT, "replace": TEXT})]}
    path = tmp_path / "rates.json"
    path.write_text(json.dumps(rates), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        rate = _data(await session.call_tool("get_exchange_rate", {"base": "USD", "target": "EUR"}))
        replaced = _data(await session.call_tool("replace_text", {"doc_id": "d1", "find": "a", "replace": "b"}))
    assert 0.5 <= rate["exchange_rate"] <= 1.5  # a rate is near one, not 604.48
    assert isinstance(replaced["number"], int) and 0 <= replaced["number"] <= 20  # a number of things is whole
