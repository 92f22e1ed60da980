"""Domain failures are reported the way the catalog shows its service reports them.

Most servers answer ``isError: true`` to "there is no task 99"; some answer normally with
the failure in the data. A demonstration whose response reads as a failure without
``isError``, or a description saying the tool "returns an error message if ...", makes
the deterministic model answer its not-found and already-exists failures in band.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.pipeline.engine import Simulator
from agentworld_mcp.world.world import World, load_world

from .conftest import stdio_session

CATALOGS = Path(__file__).resolve().parent / "catalogs"
REALISM = Path(__file__).resolve().parent / "realism"
JSONDict = dict[str, Any]


def _tool(name: str, description: str, properties: JSONDict, required: list[str], **extra: Any) -> JSONDict:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "description": description, "inputSchema": schema, **extra}


def tasks_world(demonstrations: list[JSONDict] | None = None, get_description: str = "Get a task by id.",
                **get_extra: Any) -> World:
    tools = [
        _tool("create_task", "Create a task.", {"title": {"type": "string"}}, ["title"]),
        _tool("get_task", get_description, {"task_id": {"type": "integer"}}, ["task_id"], **get_extra),
        _tool("delete_task", "Delete a task.", {"task_id": {"type": "integer"}}, ["task_id"]),
        _tool("list_tasks", "List tasks.", {}, []),
    ]
    return World.from_tools(tools, demonstrations=demonstrations or [])


_NOT_FOUND_DEMO = {"tool": "get_task", "arguments": {"task_id": 99}, "response": {"status": "task_not_found"}}


async def test_without_a_convention_a_missing_record_is_an_error() -> None:
    async with Simulator(tasks_world()) as sim:
        result = await sim.call("get_task", {"task_id": 42})
    assert result.is_error and "42" in result.text


async def test_a_demonstrated_in_band_failure_shapes_every_not_found_of_the_world() -> None:
    async with Simulator(tasks_world([_NOT_FOUND_DEMO])) as sim:
        read = await sim.call("get_task", {"task_id": 42})
        deleted = await sim.call("delete_task", {"task_id": 42})
        created = await sim.call("create_task", {"title": "Ship"})
    assert not read.is_error and json.loads(read.text) == {"status": "task_not_found"}
    assert not deleted.is_error and json.loads(deleted.text) == {"status": "task_not_found"}
    assert not created.is_error and "Ship" in created.text


async def test_a_demonstrated_message_is_worded_as_shown_for_the_key_asked() -> None:
    shown = {"tool": "get_task", "arguments": {"task_id": 99}, "response": "Task 99 does not exist"}
    async with Simulator(tasks_world([shown])) as sim:
        result = await sim.call("get_task", {"task_id": 42})
    assert (result.is_error, result.text) == (False, "Task 42 does not exist")


async def test_a_failure_recorded_from_a_real_task_manager_is_followed_for_other_tasks() -> None:
    """mcp-taskmanager answers a missing task in band (tests/realism/ground_truth/taskmanager.jsonl);
    one such recorded call as a demonstration makes every missing task answer alike."""
    recorded = [json.loads(line) for line in (REALISM / "ground_truth" / "taskmanager.jsonl").read_text().splitlines()]
    missing = next(r for r in recorded if r["tool"] == "open_task_details" and "task_not_found" in json.dumps(r))
    demo = {"tool": missing["tool"], "arguments": missing["arguments"],
            "response": json.loads(missing["result"]["content"][0]["text"])}
    catalog = json.loads((REALISM / "catalogs" / "taskmanager.json").read_text())
    async with Simulator(World.from_tools(catalog["tools"], demonstrations=[demo])) as sim:
        result = await sim.call("open_task_details", {"taskId": "task-77"})
    assert not result.is_error
    assert json.loads(result.text) == {"status": "task_not_found", "message": "No such task found"}


async def test_an_in_band_failure_changes_nothing() -> None:
    async with Simulator(tasks_world([_NOT_FOUND_DEMO])) as sim:
        await sim.call("create_task", {"title": "Ship"})
        before = await sim.state()
        await sim.call("delete_task", {"task_id": 42})
        assert await sim.state() == before


async def test_demonstrations_flagged_is_error_keep_failures_errors() -> None:
    flagged = {"tool": "get_task", "arguments": {"task_id": 99}, "response": "Task 99 not found", "isError": True}
    async with Simulator(tasks_world([flagged])) as sim:
        result = await sim.call("get_task", {"task_id": 42})
    assert result.is_error and result.text == "Task 42 not found"


async def test_a_description_that_returns_an_error_message_answers_with_the_message() -> None:
    world = tasks_world(get_description="Get a task by id. Returns an error message if the task does not exist.")
    async with Simulator(world) as sim:
        read = await sim.call("get_task", {"task_id": 7})
        deleted = await sim.call("delete_task", {"task_id": 7})
    assert not read.is_error and "7" in read.text and "not found" in read.text.lower()
    assert deleted.is_error  # the convention is the described tool's, not the catalog's


async def test_a_structured_failure_goes_in_the_field_meant_for_it() -> None:
    out = {"type": "object", "properties": {"success": {"type": "boolean"}, "error": {"type": "string"},
                                            "task": {"type": "object"}}, "required": ["success"]}
    world = tasks_world(get_description="Get a task. Returns an error message if there is no such task.",
                        outputSchema=out)
    async with Simulator(world) as sim:
        result = await sim.call("get_task", {"task_id": 5})
    assert not result.is_error
    assert result.structured["success"] is False and "5" in result.structured["error"]
    assert result.text == result.structured["error"]


async def test_a_structured_failure_with_no_field_for_it_stays_an_error() -> None:
    out = {"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
           "required": ["id", "title"]}
    world = tasks_world(get_description="Get a task. Returns an error message if there is no such task.",
                        outputSchema=out)
    async with Simulator(world) as sim:
        result = await sim.call("get_task", {"task_id": 5})
    assert result.is_error


async def test_a_fastmcp_bool_delete_of_a_missing_note_answers_false_over_stdio() -> None:
    """``delete_note(note_id) -> bool`` "Returns whether it existed": a missing note is ``false``, as the real one."""
    async with stdio_session(str(CATALOGS / "fastmcp_notes.json")) as session:
        missing = await session.call_tool("delete_note", {"note_id": 404})
        unsaid = await session.call_tool("get_note", {"note_id": 404})
    assert (missing.isError, missing.structuredContent, missing.content[0].text) == (False, {"result": False}, "false")
    assert unsaid.isError  # get_note's description says nothing of failures: isError, as most servers


def test_the_recorded_fastmcp_servers_report_a_missing_note_in_band() -> None:
    """What the convention stands for, seen in the recordings of both FastMCP servers."""
    for name in ("fastmcp_notes", "fastmcp2_notes"):
        lines = [json.loads(line) for line in (CATALOGS.parent / "ground_truth" / f"{name}.jsonl").read_text().splitlines()]
        deletes = [line["result"] for line in lines[1:] if line["tool"] == "delete_note"]
        assert [(r["isError"], r["structuredContent"]) for r in deletes] == [(False, {"result": True}),
                                                                              (False, {"result": False})], name
    assert load_world(str(CATALOGS / "fastmcp2_notes.json")).tool("delete_note") is not None
