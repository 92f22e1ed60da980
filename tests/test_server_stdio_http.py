"""The server through real MCP clients: the SDK's client over stdio and streamable HTTP."""

from __future__ import annotations

import json

import jsonschema
import pytest
from mcp.shared.exceptions import McpError

from agentworld_mcp import load_world

from .conftest import http_server, http_session, stdio_session


async def test_stdio_lists_the_catalog_exactly_and_answers_calls(tracker_world):
    world = load_world(tracker_world)
    async with stdio_session(str(tracker_world)) as session:
        listed = await session.list_tools()
        assert [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools] == world.tools

        result = await session.call_tool("create_issue", {"title": "Crash on start"})
        assert not result.isError
        jsonschema.validate(result.structuredContent, world.tool("create_issue")["outputSchema"])
        assert json.loads(result.content[0].text) == result.structuredContent
        assert result.structuredContent["title"] == "Crash on start"


async def test_invalid_arguments_name_the_field(tracker_world):
    async with stdio_session(str(tracker_world)) as session:
        result = await session.call_tool("update_issue", {"issue_id": 1, "priority": "urgent"})
        assert result.isError
        assert "priority" in result.content[0].text and "urgent" in result.content[0].text
        missing = await session.call_tool("get_issue", {})
        assert missing.isError and "issue_id" in missing.content[0].text


async def test_unknown_tool_is_a_protocol_error(tracker_world):
    async with stdio_session(str(tracker_world)) as session:
        with pytest.raises(McpError, match="Unknown tool: launch_rocket"):
            await session.call_tool("launch_rocket", {})


def test_deeply_nested_arguments_still_get_an_answer(tracker_world):
    """The SDK's parser drops messages nested ~200 deep; a client would wait forever. Not here."""
    import subprocess

    from .conftest import CLI

    nested: dict = {}
    for _ in range(250):
        nested = {"x": nested}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "create_issue", "arguments": {"title": "deep", "body": nested}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_issue", "arguments": {"issue_id": 1}}},
    ]
    proc = subprocess.Popen([*CLI, "serve", str(tracker_world)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        replies = {}
        while len(replies) < 3:
            reply = json.loads(proc.stdout.readline())
            replies[reply["id"]] = reply
    finally:
        proc.kill()
        proc.wait()
    assert replies[2]["result"]["isError"] is True
    assert "body" in replies[2]["result"]["content"][0]["text"]
    assert replies[3]["result"]["structuredContent"]["id"] == 1  # and the server keeps serving


async def test_http_transport_on_loopback(tracker_world):
    world = load_world(tracker_world)
    with http_server(str(tracker_world)) as url:
        assert url.startswith("http://127.0.0.1:")
        async with http_session(url) as session:
            listed = await session.list_tools()
            assert [t.name for t in listed.tools] == world.tool_names
            result = await session.call_tool("get_issue", {"issue_id": 1})
            assert not result.isError
            assert result.structuredContent["title"] == "Rocket fails to launch on Mondays"


async def test_same_seed_same_bytes(tracker_world):
    outputs = []
    for _ in range(2):
        async with stdio_session(str(tracker_world), "--seed", "42") as session:
            r = await session.call_tool("create_issue", {"title": "A"})
            c = await session.call_tool("add_comment", {"issue_id": 1, "body": "hi"})
            outputs.append((r.content[0].text, c.content[0].text))
    assert outputs[0] == outputs[1]
