"""State that is not a collection, held to what the catalog says of it.

A seeded account's balance cannot go below zero ("Fails if the balance is insufficient"): a
withdrawal of more than it holds is refused and takes nothing; a seeded thermostat is the one record
an unkeyed ``set_thermostat(temperature)`` changes, read back by ``get_thermostat``, and the range its
description puts beside the argument ("in Celsius (10-30)") refuses 45. Through a real MCP client
over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import bare_tool, json_answer, stdio_session, world_calls

_NUM = {"type": "number"}

HOME = {
    "name": "home",
    "tools": [
        bare_tool("get_balance", "Get the current account balance.", {}),
        bare_tool("withdraw", "Withdraw money from the account. Fails if the balance is insufficient.",
                  {"amount": _NUM}, ["amount"]),
        bare_tool("set_thermostat", "Set the target temperature of the thermostat in Celsius (10-30).",
                  {"temperature": _NUM}, ["temperature"]),
        bare_tool("get_thermostat", "Get the thermostat's target temperature and mode.", {}),
    ],
    "seed": {"account": [{"id": "acc-1", "balance": 150.0}],
             "thermostat": [{"id": "main", "temperature": 20, "mode": "heat"}]},
}


async def _calls(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    world = tmp_path / "home.json"
    world.write_text(json.dumps(HOME), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        return [await session.call_tool(tool, args) for tool, args in calls]


def _body(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_a_withdrawal_past_the_balance_is_refused_and_takes_nothing(tmp_path: Path) -> None:
    refused, taken, balance = await _calls(tmp_path, [
        ("withdraw", {"amount": 500}), ("withdraw", {"amount": 30}), ("get_balance", {})])
    assert refused.isError and "Insufficient balance" in refused.content[0].text
    assert not taken.isError and _body(taken)["balance"] == 120.0
    assert _body(balance)["balance"] == 120.0


async def test_setting_the_one_thermostat_reads_back_and_its_stated_range_holds(tmp_path: Path) -> None:
    set_to, read, too_hot, still = await _calls(tmp_path, [
        ("set_thermostat", {"temperature": 23}), ("get_thermostat", {}),
        ("set_thermostat", {"temperature": 45}), ("get_thermostat", {})])
    assert not set_to.isError and _body(set_to)["temperature"] == 23
    assert _body(read) == {"id": "main", "temperature": 23, "mode": "heat"}
    assert too_hot.isError and "10-30" in too_hot.content[0].text
    assert _body(still)["temperature"] == 23


async def test_a_verb_that_switches_a_thing_sets_its_state_in_the_state_s_own_casing(tmp_path: Path) -> None:
    """``startGenerator`` leaves ``generatorState`` running (``mode: STOP`` says the other way), and
    ``stop_pump`` leaves ``pump_status`` STOPPED beside a seed that writes it in capitals."""
    plant = {"name": "plant", "tools": [
        bare_tool("startGenerator", "Starts the generator.", {"mode": {"type": "string", "enum": ["START", "STOP"]}},
                  ["mode"]),
        bare_tool("stop_pump", "Stops the pump.", {}),
    ], "seed": {"plant": [{"generatorState": "stopped", "pump_status": "RUNNING", "fuelLevel": 40.0}]}}
    started, stopped, pump = (json_answer(r) for r in await world_calls(
        tmp_path, plant, ("startGenerator", {"mode": "START"}), ("startGenerator", {"mode": "STOP"}),
        ("stop_pump", {})))
    assert (started["generatorState"], stopped["generatorState"], pump["pump_status"]) == (
        "running", "stopped", "STOPPED")


async def test_an_action_whose_argument_names_a_field_of_the_state_sets_it_and_says_so(tmp_path: Path) -> None:
    """``set_route(destination)`` on a car whose state holds a ``destination``: the answer is the field as the call
    leaves it (not "set_route completed successfully"), and a later read sees it."""
    car = {"name": "car", "tools": [
        bare_tool("set_route", "Navigates to the destination.", {"destination": {"type": "string"}}, ["destination"]),
        bare_tool("get_destination", "Get the current destination.", {}),
    ], "seed": {"car": [{"destination": "None", "fuelLevel": 12.0}]}}
    routed, read = (json_answer(r) for r in await world_calls(
        tmp_path, car, ("set_route", {"destination": "2107 Channing Way, Berkeley"}), ("get_destination", {})))
    assert routed == {"destination": "2107 Channing Way, Berkeley"}
    assert read["destination"] == "2107 Channing Way, Berkeley"


async def test_a_logout_clears_the_session_flag_the_state_holds(tmp_path: Path) -> None:
    shop = {"name": "shop", "tools": [
        bare_tool("shop_logout", "Log out of the shop.", {}),
        bare_tool("get_session", "Get the current session.", {}),
    ], "seed": {"session": [{"authenticated": True, "username": "ana"}]}}
    out, session = (json_answer(r) for r in await world_calls(tmp_path, shop, ("shop_logout", {}), ("get_session", {})))
    assert out == {"authenticated": False}
    assert (session["authenticated"], session["username"]) == (False, "ana")
