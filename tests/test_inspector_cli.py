"""The official MCP Inspector CLI as an independent client (not Python, not our SDK).

``mcp-inspector --cli COMMAND... --method tools/list|tools/call`` prints the JSON result;
installed by ``npm install --prefix tests/node``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from agentworld_mcp import load_world

from .conftest import WORLDS, http_server
from .thirdparty import node_bin

TRACKER = WORLDS / "issue-tracker.yaml"


def inspector(*target: str, method: str, tool: str | None = None, **tool_args: Any) -> subprocess.CompletedProcess[str]:
    cmd = [node_bin("mcp-inspector"), "--cli", *target, "--method", method]
    if tool is not None:
        cmd += ["--tool-name", tool]
    if tool_args:
        cmd += ["--tool-arg", *(f"{k}={v}" for k, v in tool_args.items())]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def serve(world: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "agentworld_mcp", "serve", str(world), *flags]


def test_tools_list_is_the_catalog() -> None:
    done = inspector(*serve(TRACKER), method="tools/list")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tools"] == load_world(TRACKER).tools


def test_tools_call_returns_a_schema_valid_result() -> None:
    world = load_world(TRACKER)
    done = inspector(*serve(TRACKER), method="tools/call", tool="create_issue", title="Crash on start", priority="high")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["isError"] is False
    jsonschema.validate(result["structuredContent"], world.tool("create_issue")["outputSchema"])
    assert (result["structuredContent"]["title"], result["structuredContent"]["priority"]) == ("Crash on start", "high")
    assert result["content"][0]["type"] == "text" and result["content"][0]["text"]


def test_seeded_entity_is_read_back_with_typed_arguments() -> None:
    """The inspector turns ``issue_id=1`` into a number from the schema; issue 1 is seeded."""
    world = load_world(TRACKER)
    seeded = world.seed["issues"][0]
    done = inspector(*serve(TRACKER), method="tools/call", tool="get_issue", issue_id=seeded["id"])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result["isError"]
    assert result["structuredContent"]["title"] == seeded["title"]


def test_invalid_arguments_are_an_error_result_naming_the_field() -> None:
    done = inspector(*serve(TRACKER), method="tools/call", tool="update_issue", issue_id=1, priority="urgent")
    assert done.returncode == 0, done.stderr  # a tool error is a result, not a failed request
    result = json.loads(done.stdout)
    assert result["isError"] is True
    assert "priority" in result["content"][0]["text"] and "urgent" in result["content"][0]["text"]


def test_unknown_tool_is_a_protocol_error() -> None:
    done = inspector(*serve(TRACKER), method="tools/call", tool="launch_rocket")
    assert done.returncode == 1
    assert "-32602" in done.stderr and "Unknown tool: launch_rocket" in done.stderr


def test_streamable_http_too() -> None:
    with http_server(str(TRACKER)) as url:
        listed = inspector(url, "--transport", "http", method="tools/list")
        assert listed.returncode == 0, listed.stderr
        assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == load_world(TRACKER).tool_names
        called = inspector(url, "--transport", "http", method="tools/call", tool="list_issues")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["isError"] is False

