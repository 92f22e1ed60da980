"""A learned world of a device whose state is a set of named quantities answers its status reads in the
recorded keys, with the quantities as earlier calls left them (issue 22).

A greenhouse controller records two sessions: ``show_status(option)`` answers only the quantities the
option names (``vents`` -> ``{"ventStatus": {...}}``), flat, though its outputSchema declares them inside a
``status`` object; ``start_heater`` always answers ``heaterState: running``; ``refill_tank`` adds its
amount to the tank. Learned with the ``agentworld-mcp learn`` CLI (no seed), given the device's starting
state as seed, served by ``agentworld-mcp serve`` and driven by a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
VENTS = {"type": "object", "properties": {"north": {"type": "string"}, "south": {"type": "string"}}}
CATALOG: JSONDict = {"name": "greenhouse", "tools": [
    {"name": "show_status", "description": "Displays the status of the greenhouse for the option given.",
     "inputSchema": {"type": "object", "required": ["option"], "properties": {"option": {
         "type": "string", "description": 'What to show. [Enum]: ["tank", "vents", "heater"]'}}},
     "outputSchema": {"type": "object", "properties": {"status": {"type": "object", "properties": {
         "tankLevel": {"type": "number"}, "ventStatus": VENTS, "heaterState": {"type": "string"}}}}}},
    {"name": "refill_tank", "description": "Refills the water tank by an amount of liters.",
     "inputSchema": {"type": "object", "required": ["waterAmount"], "properties": {"waterAmount": {"type": "number"}}},
     "outputSchema": {"type": "object", "properties": {"tankLevel": {"type": "number"}}}},
    {"name": "start_heater", "description": "Starts the heater.",
     "inputSchema": {"type": "object", "required": ["mode"], "properties": {"mode": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"heaterState": {"type": "string"},
                                                       "tankLevel": {"type": "number"}}}},
]}
SEED: JSONDict = {"greenhouse": [{"tankLevel": 7.0, "heaterState": "stopped",
                                  "ventStatus": {"north": "closed", "south": "open"}}]}


def line(episode: str, turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "structuredContent": answer, "isError": False}
    return json.dumps({"episode": episode, "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def learned(tmp_path: Path) -> Path:
    sessions = {
        "monday": [("show_status", {"option": "vents"}, {"ventStatus": {"north": "open", "south": "closed"}}),
                   ("start_heater", {"mode": "ON"}, {"heaterState": "running", "tankLevel": 10.0}),
                   ("refill_tank", {"waterAmount": 5}, {"tankLevel": 15.0})],
        "tuesday": [("show_status", {"option": "vents"}, {"ventStatus": {"north": "open", "south": "open"}}),
                    ("start_heater", {"mode": "ON"}, {"heaterState": "running", "tankLevel": 20.0})],
    }
    lines = [line(name, turn, *call) for name, calls in sessions.items() for turn, call in enumerate(calls, 1)]
    recording = tmp_path / "greenhouse.jsonl"
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    world = learn_cli(recording, CATALOG, tmp_path / "learned.json", "--no-seed")
    data = json.loads(world.read_text(encoding="utf-8"))
    world.write_text(json.dumps({**data, "seed": SEED}), encoding="utf-8")  # the device as this session finds it
    return world


def answer(result: Any) -> Any:
    assert not result.isError, result.content
    return result.structuredContent


async def test_a_status_read_answers_only_the_recorded_keys_of_its_option_from_the_state(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        vents = answer(await session.call_tool("show_status", {"option": "vents"}))
    assert vents == {"ventStatus": {"north": "closed", "south": "open"}}


async def test_a_status_read_after_a_refill_answers_the_changed_quantity_under_its_own_name(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        before = answer(await session.call_tool("show_status", {"option": "tank"}))
        refilled = answer(await session.call_tool("refill_tank", {"waterAmount": 4}))
        after = answer(await session.call_tool("show_status", {"option": "tank"}))
    assert before == {"tankLevel": 7.0}  # an option the recording never showed: the quantity it names
    assert refilled == {"tankLevel": 11.0}
    assert after == {"tankLevel": 11.0}


async def test_an_action_that_always_answered_one_state_sets_it_for_later_reads(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        before = answer(await session.call_tool("show_status", {"option": "heater"}))
        started = answer(await session.call_tool("start_heater", {"mode": "ON"}))
        after = answer(await session.call_tool("show_status", {"option": "heater"}))
    assert before == {"heaterState": "stopped"}
    assert started == {"heaterState": "running", "tankLevel": 7.0}
    assert after == {"heaterState": "running"}
