"""A real server's thrown refusals (JSON-RPC errors, not ``isError`` results) through `proxy --record`.

A tiny task server written with the MCP SDK's low-level server throws ``McpError`` (-32602) for a task it
does not hold and for completing a task twice. Through `agentworld-mcp proxy --record` a real MCP client sees
the same JSON-RPC errors as without the proxy; the recording holds those calls as turns (``isError`` with the
error's message, the error itself under ``jsonrpc_error``); `learn` turns them into refusal rules with the
server's wording, which the learned world serves (as ``isError`` results, see docs/sim-to-real.md) to calls
it never saw; `score` counts the recorded errors and the simulated ``isError`` answers as agreeing failures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from . import thirdparty
from .conftest import stdio_session
from .test_proxy import direct, play, recorded
from .test_score_learn import proxy_session, scores

#: The real server: tasks in memory; refusals are JSON-RPC errors it throws.
SERVER = '''
import json
import anyio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import McpError

server = Server("refusing-tasks")
tasks = {}

def _id(title_or_id):
    return {"type": "object", "properties": {title_or_id: {"type": "string"}}, "required": [title_or_id]}

TOOLS = [
    types.Tool(name="create_task", description="Create a task with a title.", inputSchema=_id("title")),
    types.Tool(name="get_task", description="Get a task by its id.", inputSchema=_id("task_id")),
    types.Tool(name="complete_task", description="Mark a task as completed.", inputSchema=_id("task_id")),
]

async def list_tools(request):
    return types.ServerResult(types.ListToolsResult(tools=TOOLS))

def refuse(message):
    raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=message))

async def call_tool(request):
    name, args = request.params.name, request.params.arguments or {}
    if name == "create_task":
        task = {"id": f"task-{len(tasks) + 1}", "title": args["title"], "status": "pending"}
        tasks[task["id"]] = task
    elif args.get("task_id") not in tasks:
        refuse(f"Task {args.get('task_id')} not found")
    else:
        task = tasks[args["task_id"]]
        if name == "complete_task":
            if task["status"] == "completed":
                refuse(f"Cannot complete task {task['id']}: it is already completed")
            task["status"] = "completed"
    text = json.dumps(task)
    return types.ServerResult(types.CallToolResult(content=[types.TextContent(type="text", text=text)]))

# raw handlers: the SDK's decorator would turn a raised McpError into an isError result
server.request_handlers[types.ListToolsRequest] = list_tools
server.request_handlers[types.CallToolRequest] = call_tool

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions()))

anyio.run(main)
'''

SESSION = [
    ("create_task", {"title": "Write the report"}),
    ("get_task", {"task_id": "task-1"}),
    ("get_task", {"task_id": "task-9"}),  # refused: not found
    ("complete_task", {"task_id": "task-1"}),
    ("create_task", {"title": "Book the room"}),
    ("complete_task", {"task_id": "task-2"}),
    ("complete_task", {"task_id": "task-1"}),  # refused: already completed
]


def _server(tmp_path: Path) -> list[str]:
    script = tmp_path / "refusing_server.py"
    script.write_text(SERVER)
    return [sys.executable, str(script)]


async def _record(tmp_path: Path) -> tuple[Path, list[dict[str, object]], list[dict[str, object]]]:
    """The session played straight against the server and through the recording proxy: both answers, and the file."""
    server = _server(tmp_path)
    expected = await direct(server, SESSION)
    recording = tmp_path / "tasks.jsonl"
    async with proxy_session("--record", str(recording), "--", *server) as session:
        got = await play(session, SESSION)
    return recording, expected, got


async def test_a_thrown_refusal_reaches_the_client_unchanged_and_is_recorded_as_a_failing_turn(tmp_path: Path) -> None:
    recording, expected, got = await _record(tmp_path)
    assert got == expected  # the same JSON-RPC errors, not results converted from them
    assert got[2] == {"rpc_error": {"code": -32602, "message": "Task task-9 not found"}}
    assert got[6] == {"rpc_error": {"code": -32602, "message": "Cannot complete task task-1: it is already completed"}}

    turns = recorded(recording)  # every line valid against the trajectory schema
    assert [(turn.tool, turn.arguments) for turn in turns] == SESSION
    assert turns[2].result == {"content": [{"type": "text", "text": "Task task-9 not found"}], "isError": True,
                               "jsonrpc_error": {"code": -32602, "message": "Task task-9 not found"}}
    assert turns[6].result["jsonrpc_error"] == got[6]["rpc_error"]
    assert [turn.result["isError"] for turn in turns] == [False, False, True, False, False, False, True]


async def test_learn_turns_thrown_refusals_into_rules_the_learned_world_serves_with_the_real_wording(
        tmp_path: Path) -> None:
    recording, _, _ = await _record(tmp_path)
    learned = tmp_path / "learned.yaml"
    done = thirdparty.run_cli("learn", str(recording), "-o", str(learned))
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in yaml.safe_load(learned.read_text())["tools"]}
    refusals = {name: [(rule["text"], rule["jsonrpc_error"]) for rule in tool["_meta"]["agentworld/learned"]["rules"]
                       if rule["isError"]] for name, tool in tools.items() if name != "create_task"}
    # the server's wording with the call's value as a slot; the JSON-RPC code kept beside (served as isError)
    assert refusals == {"get_task": [("Task {{args.task_id}} not found", {"code": -32602})],
                        "complete_task": [("Cannot complete task {{args.task_id}}: it is already completed",
                                           {"code": -32602})]}

    async with stdio_session(str(learned)) as session:
        same = await session.call_tool("get_task", {"task_id": "task-9"})  # the recorded call
        assert same.isError and same.content[0].text == "Task task-9 not found"  # type: ignore[union-attr]
        created = json.loads((await session.call_tool("create_task", {"title": "Water the plants"}))
                             .content[0].text)  # type: ignore[union-attr]
        other = await session.call_tool("get_task", {"task_id": "task-42"})  # a call the recording never made
        assert other.isError and other.content[0].text == "Task task-42 not found"  # type: ignore[union-attr]
        first = await session.call_tool("complete_task", {"task_id": created["id"]})
        assert not first.isError
        twice = await session.call_tool("complete_task", {"task_id": created["id"]})
        assert twice.isError
        assert twice.content[0].text == f"Cannot complete task {created['id']}: it is already completed"  # type: ignore[union-attr]

    bare, smart = scores(recording), scores(recording, "--world", str(learned))
    assert smart["is_error_agreement"] == 1.0, (bare, smart)  # each recorded JSON-RPC error met by an isError answer
    assert bare["is_error_agreement"] < 1.0  # the bare catalog answers the refused calls as successes


async def test_shadowing_records_the_simulators_prediction_of_a_refused_call_too(tmp_path: Path) -> None:
    recording = tmp_path / "tasks.jsonl"
    async with proxy_session("--shadow", "--record", str(recording), "--", *_server(tmp_path)) as session:
        got = await play(session, SESSION)
    assert got[2] == {"rpc_error": {"code": -32602, "message": "Task task-9 not found"}}  # the real answer, unchanged
    shadow = recorded(tmp_path / "tasks.shadow.jsonl")
    assert [turn.index for turn in shadow] == [turn.index for turn in recorded(recording)] == list(range(1, 8))
    assert shadow[2].result["isError"]  # the catalog's simulation also refuses a task it never saw
    done = thirdparty.run_cli("score", str(recording), "--against", str(tmp_path / "tasks.shadow.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tools"]["get_task"]["is_error_agreement"] == 1.0


def test_score_reads_a_bare_json_rpc_error_recorded_without_content_as_a_failure(tmp_path: Path) -> None:
    """The layout of hand-written recorders (``{"jsonrpc_error": {...}}`` as the result) is read as a refusal too."""
    catalog = tmp_path / "t.tools.json"
    catalog.write_text(json.dumps({"tools": [{"name": "get_task", "description": "Get a task by its id.",
                                              "inputSchema": {"type": "object", "properties": {
                                                  "task_id": {"type": "string"}}, "required": ["task_id"]}}]}))
    line = {"tool": "get_task", "arguments": {"task_id": "task-9"},
            "result": {"jsonrpc_error": {"code": -32602, "message": "Task task-9 not found"}}}
    (tmp_path / "t.jsonl").write_text(json.dumps(line) + "\n")
    done = thirdparty.run_cli("score", str(tmp_path / "t.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["calls"] == 1
    bare_answer_failed = report["turns"][0]["is_error_agreement"]
    # the bare catalog's record model answers a read of an unknown task as an isError "not found": both fail
    assert bare_answer_failed == 1.0, report["turns"]
