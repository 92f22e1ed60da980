"""An action's answer carries what the call and the world already determine, never invented values.

A thermostat world whose seed is its standing state (one record, not a collection of many):
reading the status answers from it, setting the target changes it for the next read, and a
field named like an argument echoes the argument. Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import stdio_session

THERMOSTAT = {
    "name": "thermostat",
    "seed": {"thermostat": [{"targetTemperature": 20, "mode": "heat", "owner": "ada"}]},
    "tools": [
        {"name": "set_target_temperature", "description": "Set the temperature the thermostat aims for.",
         "inputSchema": {"type": "object", "properties": {"target_temperature": {"type": "number"}},
                         "required": ["target_temperature"]},
         "outputSchema": {"type": "object", "properties": {
             "targetTemperature": {"type": "number"}, "mode": {"type": "string"}}}},
        {"name": "display_status", "description": "Display the thermostat's status.",
         "inputSchema": {"type": "object", "properties": {}},
         "outputSchema": {"type": "object", "properties": {
             "targetTemperature": {"type": "number"}, "mode": {"type": "string"}, "owner": {"type": "string"}}}},
        {"name": "log_reading", "description": "Log a sensor reading.",
         "inputSchema": {"type": "object", "properties": {"sensor": {"type": "string"}, "value": {"type": "number"}},
                         "required": ["sensor", "value"]},
         "outputSchema": {"type": "object", "properties": {
             "sensor": {"type": "string"}, "value": {"type": "number"}, "reading": {
                 "type": "object", "properties": {"sensor": {"type": "string"}, "unit": {"type": "string"}}}}}},
    ],
}


async def test_reads_come_from_the_standing_state_and_actions_change_it(tmp_path: Path) -> None:
    world = tmp_path / "thermostat.json"
    world.write_text(json.dumps(THERMOSTAT), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        before = await session.call_tool("display_status", {})
        assert before.structuredContent == {"targetTemperature": 20, "mode": "heat", "owner": "ada"}

        changed = await session.call_tool("set_target_temperature", {"target_temperature": 23.5})
        assert changed.structuredContent == {"targetTemperature": 23.5, "mode": "heat"}
        after = await session.call_tool("display_status", {})
        assert after.structuredContent is not None and after.structuredContent["targetTemperature"] == 23.5


async def test_fields_named_like_the_arguments_echo_them_at_any_depth(tmp_path: Path) -> None:
    world = tmp_path / "thermostat.json"
    world.write_text(json.dumps(THERMOSTAT), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        logged = await session.call_tool("log_reading", {"sensor": "hall", "value": 3})
        body = logged.structuredContent or {}
        assert body["sensor"] == "hall" and body["value"] == 3
        assert body["reading"]["sensor"] == "hall"
        # a field nothing determines is still generated, in its schema's type
        assert isinstance(body["reading"]["unit"], str)


async def test_a_log_tool_that_keeps_no_records_counts_its_calls_and_gathers_the_branches_named() -> None:
    # The reasoning-log server as it listed itself: one read-only tool, no records to list. Its answer
    # echoes the call, counts the thoughts so far and gathers the branch ids the calls named.
    catalog = Path(__file__).parent / "catalogs" / "sequential_thinking_server.json"
    thought = {"thought": "first list the constraints", "totalThoughts": 3, "nextThoughtNeeded": True}
    async with stdio_session(str(catalog)) as session:
        first = await session.call_tool("sequentialthinking", {**thought, "thoughtNumber": 1})
        assert first.structuredContent == {"thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True,
                                           "branches": [], "thoughtHistoryLength": 1}
        await session.call_tool("sequentialthinking", {**thought, "thoughtNumber": 2, "branchFromThought": 1,
                                                       "branchId": "bus"})
        third = await session.call_tool("sequentialthinking", {**thought, "thoughtNumber": 3,
                                                               "nextThoughtNeeded": False})
        assert third.structuredContent == {"thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": False,
                                           "branches": ["bus"], "thoughtHistoryLength": 3}


ORDERS = {
    "name": "orders",
    "seed": {"orders": [{"id": 100, "order_type": "Sell", "symbol": "ACME", "price": 10.0, "amount": 5,
                         "status": "Completed"}]},
    "tools": [
        {"name": "place_order", "description": "Place an order.",
         "inputSchema": {"type": "object", "properties": {"symbol": {"type": "string"}, "amount": {"type": "integer"}},
                         "required": ["symbol", "amount"]},
         "outputSchema": {"type": "object", "properties": {
             "order_id": {"type": "integer"}, "status": {"type": "string", "description": "Initial status of the order."},
             "amount": {"type": "integer"}}}},
        {"name": "get_order_details", "description": "Get the details of an order.",
         "inputSchema": {"type": "object", "properties": {"order_id": {"type": "integer"}}, "required": ["order_id"]},
         "outputSchema": {"type": "object", "properties": {
             "id": {"type": "integer"}, "symbol": {"type": "string"}, "amount": {"type": "integer"},
             "status": {"type": "string", "description": 'Current status. [Enum]: ["Open", "Pending", "Completed"]'}}}},
    ],
}


async def test_a_new_record_starts_in_the_earliest_state_the_catalog_lists_in_its_own_casing(tmp_path: Path) -> None:
    # The status values are listed only in another tool's description; "Pending" is where an order starts
    # even though "Open" is listed first, and the answer's status is the order's state, not a sentence.
    world = tmp_path / "orders.json"
    world.write_text(json.dumps(ORDERS), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        placed = (await session.call_tool("place_order", {"symbol": "ACME", "amount": 3})).structuredContent or {}
        assert placed["status"] == "Pending" and placed["amount"] == 3
        read = await session.call_tool("get_order_details", {"order_id": placed["order_id"]})
        assert (read.structuredContent or {})["status"] == "Pending"


def _envelope(data: dict) -> dict:
    """A success-or-failure union, as servers generated from typed code list it."""
    return {"type": "object", "oneOf": [
        {"type": "object", "properties": {"ok": {"type": "boolean", "const": True}, "data": {
            "type": "object", "properties": data, "required": list(data), "additionalProperties": False}},
         "required": ["ok", "data"], "additionalProperties": False},
        {"type": "object", "properties": {"ok": {"type": "boolean", "const": False}, "error": {
            "type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"]}}, "required": ["ok", "error"], "additionalProperties": False}]}


NOTES_VAULT = {
    "name": "vault",
    "tools": [
        {"name": "create_note", "description": "Create a note.",
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                         "required": ["path"]},
         "outputSchema": _envelope({"path": {"type": "string"}, "etag": {"type": "string"}})},
        {"name": "read_note", "description": "Read a note.",
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
         "outputSchema": _envelope({"path": {"type": "string"}, "content": {"type": "string"}})},
    ],
}


async def test_a_success_envelope_carries_the_path_the_call_named_and_the_content_that_was_read(tmp_path: Path) -> None:
    world = tmp_path / "vault.json"
    world.write_text(json.dumps(NOTES_VAULT), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = await session.call_tool("create_note", {"path": "Meetings/Standup.md", "content": "# Standup\n"})
        assert made.structuredContent is not None and made.structuredContent["ok"] is True
        assert made.structuredContent["data"]["path"] == "Meetings/Standup.md"
        read = await session.call_tool("read_note", {"path": "Meetings/Standup.md"})
        assert read.structuredContent == {"ok": True, "data": {"path": "Meetings/Standup.md", "content": "# Standup\n"}}
