"""The lean HTTP path: a single tools/call POST answered as application/json, everything else by the SDK.

Driven as clients drive it: the MCP SDK's streamable-HTTP client, and raw httpx POSTs (what an
RL rollout worker sends). The front door's checks still hold on that path (Host, body size),
a batch or a notification still gets the SDK's answer, and an unknown tool is still the
protocol's error with the request's id.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentworld_mcp.serve.screening import MAX_MESSAGE_BYTES

from .conftest import CLI, free_port, http_server, listening

JSON_ONLY = {"accept": "application/json", "content-type": "application/json", "mcp-protocol-version": "2025-06-18"}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


def tool_call(request_id: int, name: str, arguments: dict[str, Any], **meta: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.fixture
def server(tracker_world: Path) -> Iterator[str]:
    with http_server(str(tracker_world)) as url:
        yield url


@pytest.fixture
def client(server: str) -> Iterator[httpx.Client]:
    """A raw client inside an initialized session (the session id on every request)."""
    with httpx.Client(timeout=30, headers=JSON_ONLY) as http:
        opened = http.post(server, json=INIT)
        assert opened.status_code == 200, opened.text
        http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        assert http.post(server, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        yield http


def test_a_tool_call_accepting_only_json_is_answered_with_one_json_rpc_response(server: str,
                                                                                client: httpx.Client) -> None:
    response = client.post(server, json=tool_call(41, "create_issue", {"title": "Crash on start"}))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["mcp-session-id"] == client.headers["mcp-session-id"]
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == 41
    assert answer["result"]["isError"] is False
    assert answer["result"]["structuredContent"]["title"] == "Crash on start"


def test_calls_on_the_lean_path_share_the_episode_named_by_header_or_meta(server: str, client: httpx.Client) -> None:
    made = client.post(server, json=tool_call(1, "create_issue", {"title": "in episode a"}),
                       headers={"x-agentworld-episode": "a"}).json()["result"]["structuredContent"]
    same = client.post(server, json=tool_call(2, "get_issue", {"issue_id": made["id"]}, **{"agentworld/episode": "a"}))
    other = client.post(server, json=tool_call(3, "get_issue", {"issue_id": made["id"]},
                                                **{"agentworld/episode": "b"}))
    assert same.json()["result"]["structuredContent"]["title"] == "in episode a"
    assert other.json()["result"]["isError"] is True  # episode b never had it


def test_an_unknown_tool_is_the_protocols_error_with_the_requests_id(server: str, client: httpx.Client) -> None:
    answer = client.post(server, json=tool_call(7, "no_such_tool", {})).json()
    assert answer["id"] == 7 and answer["error"]["code"] == -32602 and "no_such_tool" in answer["error"]["message"]


def test_invalid_arguments_are_a_tool_error_result_not_a_protocol_error(server: str, client: httpx.Client) -> None:
    answer = client.post(server, json=tool_call(8, "create_issue", {"title": 42})).json()
    assert answer["id"] == 8 and answer["result"]["isError"] is True
    assert "Input validation error" in answer["result"]["content"][0]["text"]


def test_a_call_whose_params_the_sdk_refuses_gets_the_sdks_error(server: str, client: httpx.Client) -> None:
    answer = client.post(server, json={"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                       "params": {"arguments": {}}}).json()  # no tool name
    assert answer["id"] == 9 and answer["error"]["code"] == -32602


def test_a_notification_and_a_batch_are_answered_as_the_sdk_and_the_guard_answer_them(
        server: str, client: httpx.Client) -> None:
    note = client.post(server, json={"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": 99}})
    assert note.status_code == 202
    batch = client.post(server, json=[tool_call(1, "list_issues", {}), tool_call(2, "list_issues", {})])
    assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600


def test_a_tool_call_for_an_unknown_session_is_refused_404_so_the_client_starts_again(server: str) -> None:
    response = httpx.post(server, json=tool_call(1, "list_issues", {}),
                          headers={**JSON_ONLY, "mcp-session-id": "not-a-session"}, timeout=30)
    assert response.status_code == 404


def test_a_tool_call_with_a_foreign_host_is_refused_before_it_is_answered(server: str, client: httpx.Client) -> None:
    refused = client.post(server, json=tool_call(1, "create_issue", {"title": "rebound"}),
                          headers={"host": "evil.example"})
    assert refused.status_code == 421
    listed = client.post(server, json=tool_call(2, "list_issues", {})).json()["result"]["structuredContent"]
    assert "rebound" not in json.dumps(listed)


def test_a_tool_call_past_the_body_limit_is_refused_413(server: str, client: httpx.Client) -> None:
    body = json.dumps(tool_call(1, "create_issue", {"title": "x" * (MAX_MESSAGE_BYTES + 1)}))
    assert client.post(server, content=body).status_code == 413


def test_an_unsupported_protocol_version_gets_the_sdks_400(server: str, client: httpx.Client) -> None:
    response = client.post(server, json=tool_call(1, "list_issues", {}), headers={"mcp-protocol-version": "1999-01-01"})
    assert response.status_code == 400 and "protocol version" in response.text


def test_the_sdk_client_calls_tools_and_reads_answers_over_the_lean_path(server: str) -> None:
    kinds: list[str] = []

    async def noted(response: httpx.Response) -> None:
        if b'"tools/call"' in response.request.content:
            kinds.append(response.headers.get("content-type", ""))

    async def scenario() -> tuple[bool, str, bool]:
        async with httpx.AsyncClient(timeout=30, event_hooks={"response": [noted]}) as http, \
                streamable_http_client(server, http_client=http) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            made = await session.call_tool("create_issue", {"title": "from the SDK client"})
            issue = made.structuredContent or {}
            read_back = await session.call_tool("get_issue", {"issue_id": issue["id"]})
            wrong = await session.call_tool("create_issue", {"title": 5})
            return bool(made.isError), (read_back.structuredContent or {})["title"], bool(wrong.isError)

    made_failed, title, wrong_failed = asyncio.run(scenario())
    assert (made_failed, title, wrong_failed) == (False, "from the SDK client", True)
    assert kinds and all(kind.startswith("application/json") for kind in kinds)


def test_stateless_workers_answer_a_tool_call_without_a_session(tracker_world: Path, tmp_path: Path) -> None:
    port = free_port()
    command = [*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port), "--workers", "2",
               "--state", str(tmp_path / "state.db")]
    with listening(command, port) as url, httpx.Client(timeout=30, headers=JSON_ONLY) as http:
        made = http.post(url, json=tool_call(1, "create_issue", {"title": "stateless"}, **{"agentworld/episode": "s"}))
        assert made.status_code == 200 and "mcp-session-id" not in made.headers
        issue = made.json()["result"]["structuredContent"]
        for n in range(4):  # whichever worker answers, the shared state has it
            again = http.post(url, json=tool_call(2 + n, "get_issue", {"issue_id": issue["id"]},
                                                  **{"agentworld/episode": "s"}))
            assert again.json()["result"]["structuredContent"]["title"] == "stateless"
        unknown = http.post(url, json=tool_call(9, "nope", {})).json()
        assert unknown["id"] == 9 and unknown["error"]["code"] == -32602
