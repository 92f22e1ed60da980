"""Every request gets the answer the spec gives it, and the HTTP server is safe to expose.

Over stdio (raw JSON-RPC lines, no MCP library in between) and streamable HTTP (httpx):
unknown methods are -32601, bytes that are not UTF-8 and nesting past the documented limit
are -32700 (with the request's id when it can still be read, so no client waits forever),
bad selectors are -32602 with a message, and integer episode ids are the same episode as
their string. Over HTTP: a bearer token when configured, Host and Origin checks, admin routes
closed to cross-site requests, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import McpError
from mcp.types import TextContent

from agentworld_mcp.serve.screening import MAX_DEPTH

from .conftest import CLI, free_port, http_server, http_session, listening, stdio_session
from .fault_endpoints import FaultEndpoint, FaultyUpstream

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawStdio:
    """``agentworld-mcp serve`` driven with raw lines; answers collected by id."""

    def __init__(self, world: Path) -> None:
        self.proc = subprocess.Popen([*CLI, "serve", str(world)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.send(INIT, INITIALIZED)
        assert self.reply(0)["result"]["serverInfo"]

    def send(self, *messages: dict | bytes) -> None:
        assert self.proc.stdin is not None
        for m in messages:
            self.proc.stdin.write((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n")
        self.proc.stdin.flush()

    def reply(self, request_id: object) -> dict:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout"
            data = json.loads(line)
            if data.get("id") == request_id:
                return data

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def raw(tracker_world: Path) -> Iterator[RawStdio]:
    server = RawStdio(tracker_world)
    yield server
    server.close()


def call(request_id: int, tool: str, arguments: dict, meta: dict | None = None) -> dict:
    params: dict = {"name": tool, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"x": value}
    return value


# -- stdio ------------------------------------------------------------------------------------


def test_an_unknown_method_is_method_not_found(raw: RawStdio) -> None:
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/explode", "params": {}})
    assert raw.reply(1)["error"] == {"code": -32601, "message": "Method not found: tools/explode"}


def test_bytes_that_are_not_utf8_are_a_parse_error_and_the_server_keeps_serving(raw: RawStdio) -> None:
    raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "\xff\xfe"}}')
    error = raw.reply(None)["error"]
    assert error["code"] == -32700 and "UTF-8" in error["message"]
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert raw.reply(2)["result"]["tools"]


def test_nesting_past_the_limit_is_a_parse_error_that_names_the_limit_and_the_request(raw: RawStdio) -> None:
    raw.send(call(1, "create_issue", {"title": "deep", "body": nested(MAX_DEPTH)}))
    error = raw.reply(1)["error"]
    assert error["code"] == -32700 and str(MAX_DEPTH) in error["message"]


def test_an_episode_given_as_an_object_is_invalid_params_with_a_message(raw: RawStdio) -> None:
    raw.send(call(1, "create_issue", {"title": "x"}, {"agentworld/episode": {"id": "e1"}}))
    error = raw.reply(1)["error"]
    assert error["code"] == -32602 and "episode id must be a string" in error["message"]


def test_an_unknown_preset_in_a_calls_meta_is_invalid_params_naming_the_presets(raw: RawStdio) -> None:
    raw.send(call(1, "create_issue", {"title": "x"}, {"agentworld/perturb": "gremlins"}))
    error = raw.reply(1)["error"]
    assert error["code"] == -32602 and "gremlins" in error["message"] and "flaky-network" in error["message"]


def test_an_integer_episode_id_is_the_same_episode_as_its_string(raw: RawStdio) -> None:
    raw.send(call(1, "create_issue", {"title": "in 12345"}, {"agentworld/episode": 12345}))
    created = raw.reply(1)["result"]["structuredContent"]
    raw.send(call(2, "get_issue", {"issue_id": created["id"]}, {"agentworld/episode": "12345"}))
    assert raw.reply(2)["result"]["structuredContent"]["title"] == "in 12345"
    raw.send(call(3, "list_issues", {}, {"agentworld/episode": "other"}))
    assert "in 12345" not in json.dumps(raw.reply(3)["result"])


# -- streamable HTTP --------------------------------------------------------------------------


@pytest.fixture
def guarded(tracker_world: Path) -> Iterator[str]:
    port = free_port()
    command = [*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port), "--admin",
               "--auth-token", "s3cret"]
    with listening(command, port) as url:
        yield url


def post(url: str, body: bytes | dict, *, token: str | None = "s3cret", **headers: str) -> httpx.Response:
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream", **headers}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(url, content=data, headers=sent, timeout=30)


def test_http_requires_the_bearer_token(guarded: str) -> None:
    assert post(guarded, INIT, token=None).status_code == 401
    assert post(guarded, INIT, token="wrong").status_code == 401
    assert post(guarded, INIT).status_code == 200


def test_http_refuses_a_foreign_host_and_origin(guarded: str) -> None:
    refused = post(guarded, INIT, host="evil.example")
    assert refused.status_code == 421 and "--allow-host" in refused.json()["error"]
    assert post(guarded, INIT, origin="https://evil.example").status_code == 403
    assert post(guarded, INIT, origin="http://localhost:3000").status_code == 200


def test_http_answers_bad_messages_with_json_rpc_errors_never_a_500(guarded: str) -> None:
    not_utf8 = post(guarded, b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff"}')
    assert not_utf8.status_code == 400 and not_utf8.json()["error"]["code"] == -32700
    deep = post(guarded, call(2, "create_issue", {"title": "t", "body": nested(MAX_DEPTH + 50)}))
    assert deep.status_code == 400 and deep.json()["error"]["code"] == -32700 and deep.json()["id"] == 2
    unknown = post(guarded, {"jsonrpc": "2.0", "id": 3, "method": "nope/never", "params": {}})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == -32601


def test_admin_routes_refuse_what_a_cross_site_page_can_send(guarded: str) -> None:
    base = guarded.rsplit("/mcp", 1)[0]
    auth = {"authorization": "Bearer s3cret"}
    form = httpx.post(f"{base}/admin/episodes/default/reset", content=b"x", timeout=30,
                      headers={**auth, "content-type": "text/plain"})
    assert form.status_code == 415
    cross = httpx.post(f"{base}/admin/episodes/default/reset", timeout=30, headers={**auth, "sec-fetch-site": "cross-site"})
    assert cross.status_code == 403
    assert httpx.get(f"{base}/admin/episodes", timeout=30).status_code == 401
    assert httpx.get(f"{base}/admin/episodes", headers=auth, timeout=30).status_code == 200


def test_binding_beyond_loopback_without_a_token_warns(tracker_world: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([*CLI, "serve", str(tracker_world), "--transport", "http", "--host", "0.0.0.0",
                             "--port", str(port)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait()
    assert "without --auth-token" in first


def test_an_idle_http_session_is_closed_and_its_episode_kept(tracker_world: Path) -> None:
    port = free_port()
    command = [*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port),
               "--session-idle-timeout", "1"]
    with listening(command, port) as url:
        opened = post(url, INIT, token=None)
        session = opened.headers["mcp-session-id"]
        headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        post(url, INITIALIZED, token=None, **headers)
        made = post(url, call(1, "create_issue", {"title": "kept"}, {"agentworld/episode": "idle"}), token=None,
                    **headers)
        assert made.status_code == 200
        time.sleep(2.5)
        gone = post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, token=None, **headers)
        assert gone.status_code == 404  # the session was closed for idling
        again = post(url, INIT, token=None)
        fresh = {"mcp-session-id": again.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        post(url, INITIALIZED, token=None, **fresh)
        listed = post(url, call(3, "list_issues", {}, {"agentworld/episode": "idle"}), token=None, **fresh)
        assert "kept" in listed.text  # the world outlives the session


# -- endpoints that fail at the HTTP level, through real MCP clients -----------------------------

FAULTS = ("hang", "drip", "500", "non_json", "reset")  # tests/fault_endpoints.py
DEADLINE = 2.0
ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}


async def _llm_faults_over(session: ClientSession, endpoint: FaultEndpoint) -> None:
    assert not (await session.call_tool("get_issue", {"issue_id": 4})).isError  # warm: the model client is loaded
    for mode in FAULTS:
        endpoint.mode = mode
        started = time.monotonic()
        failed = await session.call_tool("get_issue", {"issue_id": 4})
        elapsed = time.monotonic() - started
        text = failed.content[0].text if isinstance(failed.content[0], TextContent) else ""
        assert failed.isError and "simulator error: endpoint_error" in text, (mode, text)
        assert elapsed < 2 * DEADLINE, f"{mode}: {elapsed:.1f} s with a {DEADLINE} s deadline"
        endpoint.mode = "ok"  # recovered: the same server answers the next call
        again = await session.call_tool("get_issue", {"issue_id": 4})
        assert not again.isError and again.structuredContent == ISSUE, mode


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
async def test_the_llm_backend_answers_each_failing_endpoint_in_band_over_stdio_and_http(tracker_world: Path) -> None:
    """Hang, drip, 500, an HTML page, a reset: a named simulator error by the deadline, then service."""
    llm = ["--backend", "llm", "--model", "fake", "--timeout", str(DEADLINE)]
    port = free_port()
    with FaultEndpoint(content=json.dumps(ISSUE)) as over_stdio, FaultEndpoint(content=json.dumps(ISSUE)) as over_http:
        http = [*CLI, "serve", str(tracker_world), *llm, "--base-url", over_http.url, "--transport", "http",
                "--port", str(port)]
        with listening(http, port, env={"AGENTWORLD_BASE_URL": ""}) as url:
            async with stdio_session(str(tracker_world), *llm, "--base-url", over_stdio.url,
                                     env={"AGENTWORLD_BASE_URL": ""}) as stdio, http_session(url) as session:
                await asyncio.gather(_llm_faults_over(stdio, over_stdio), _llm_faults_over(session, over_http))


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
async def test_the_proxy_answers_each_failure_of_its_upstream_with_an_error_and_serves_the_next_call(
        tracker_world: Path) -> None:
    """The real server behind the proxy hangs, drips, answers 500 or HTML, resets: the client gets a
    JSON-RPC error (the SDK's client alone would end the session, and the proxy with it)."""
    with http_server(str(tracker_world)) as real, FaultyUpstream(real) as upstream:
        async with proxy_session(upstream.url) as session:
            real_answer = (await session.call_tool("get_issue", {"issue_id": 1})).structuredContent
            assert real_answer and real_answer["id"] == 1
            for mode in FAULTS:
                upstream.mode = mode
                started = time.monotonic()
                with pytest.raises(McpError) as failed:
                    await session.call_tool("get_issue", {"issue_id": 1})
                elapsed = time.monotonic() - started
                assert elapsed < 2 * DEADLINE, f"{mode}: {elapsed:.1f} s with --timeout {DEADLINE}"
                says = "Timed out" if mode in ("hang", "drip") else "the upstream MCP server failed at the HTTP level"
                assert says in failed.value.error.message, (mode, failed.value.error.message)
                upstream.mode = "ok"
                again = await session.call_tool("get_issue", {"issue_id": 1})
                assert not again.isError and again.structuredContent == real_answer, mode
    assert upstream.calls == 1 + 2 * len(FAULTS)


@contextlib.asynccontextmanager
async def proxy_session(url: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "proxy", "--url", url, "--timeout", str(DEADLINE)],
                                   env=dict(os.environ))
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
