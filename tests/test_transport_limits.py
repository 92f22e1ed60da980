"""Limits of the serving layer, reproduced through real clients.

Over stdio (raw JSON-RPC lines): every malformed message is answered (-32600/-32700, id null
when the id cannot be read) and the server keeps serving; a line past the 4 MiB message
limit is refused without being read into memory whole; a tool answer past the limit is a
simulator error. Over HTTP: malformed bodies and batches get JSON-RPC errors (never 202);
with the session table full, the idlest session makes room for a new client; slow clients
are disconnected and cannot lock a normal client out. ``serve`` keeps at most 1000 episodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentworld_mcp.serve.screening import MAX_MESSAGE_BYTES
from agentworld_mcp.serve.transport import MAX_RESULT_BYTES

from .conftest import CLI, free_port, http_server, http_session, stop_group
from .test_hardening import RawStdio, call

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}

#: Messages that are JSON but not one JSON-RPC message MCP accepts: each is -32600, id null.
MALFORMED = [b"null", b"42", b'"str"', b"true", b"[]",
             b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 6, "method": "ping"}]',
             b'{"jsonrpc": "2.0", "id": {}, "method": "ping"}', b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
             b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
             b'{"jsonrpc": "2.0", "method": 1, "params": "bar"}']


@pytest.fixture
def raw(tracker_world: Path) -> Iterator[RawStdio]:
    server = RawStdio(tracker_world)
    yield server
    server.close()


def next_answer(raw: RawStdio) -> dict:
    assert raw.proc.stdout is not None
    line = raw.proc.stdout.readline()
    assert line, "the server closed stdout"
    return json.loads(line)


def peak_memory_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


# -- stdio -----------------------------------------------------------------------------


def test_every_malformed_message_over_stdio_is_answered_with_invalid_request_and_the_server_keeps_serving(
        raw: RawStdio) -> None:
    for number, message in enumerate(MALFORMED):
        raw.send(message)
        answer = next_answer(raw)
        assert answer["id"] is None and answer["error"]["code"] == -32600, message
        raw.send({"jsonrpc": "2.0", "id": 100 + number, "method": "ping"})
        assert raw.reply(100 + number)["result"] == {}, f"no longer serving after {message!r}"


def test_a_batch_over_stdio_is_refused_as_one_error_naming_the_protocol_rule(raw: RawStdio) -> None:
    raw.send(b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]')
    answer = next_answer(raw)
    assert answer["id"] is None and "batch" in answer["error"]["message"]


def test_text_that_is_not_json_over_stdio_is_a_parse_error(raw: RawStdio) -> None:
    raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert next_answer(raw)["error"]["code"] == -32700
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert raw.reply(2)["result"] == {}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc")
def test_an_argument_past_the_message_limit_over_stdio_is_refused_with_its_id_and_bounded_memory(
        raw: RawStdio) -> None:
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    raw.reply(1)
    before = peak_memory_kib(raw.proc.pid)
    argument = "x" * (20 * 1024 * 1024)  # 20 MB: five times the limit
    # the id last, where the SDK's clients put it
    raw.send(json.dumps({"method": "tools/call", "params": {"name": "create_issue", "arguments": {"title": argument}},
                         "jsonrpc": "2.0", "id": 7}).encode())
    error = raw.reply(7)["error"]
    assert error["code"] == -32600 and str(MAX_MESSAGE_BYTES) in error["message"]
    grown_mib = (peak_memory_kib(raw.proc.pid) - before) / 1024
    assert grown_mib < 15, f"peak memory grew {grown_mib:.0f} MiB for a 20 MiB line"  # it is skipped in 1 MiB pieces
    raw.send(call(8, "list_issues", {}))
    assert "result" in raw.reply(8)


def test_a_tool_answer_past_the_limit_is_a_simulator_error_that_says_so(raw: RawStdio) -> None:
    title = "t" * (MAX_MESSAGE_BYTES // 5)  # each answer carries it twice (text and structured content)
    for n in range(MAX_RESULT_BYTES // (2 * len(title)) + 1):  # a listing of them all is past the result limit
        raw.send(call(n + 1, "create_issue", {"title": title}))
        assert raw.reply(n + 1)["result"]["isError"] is False
    raw.send(call(10, "list_issues", {}))
    result = raw.reply(10)["result"]
    assert result["isError"] is True
    assert "result_too_large" in result["content"][0]["text"] and str(MAX_RESULT_BYTES) in result["content"][0]["text"]
    assert result["_meta"]["agentworld/simulator_error"] == "result_too_large"


def test_serve_keeps_at_most_1000_episodes_by_default_evicting_the_least_recently_used(raw: RawStdio) -> None:
    raw.send(call(1, "create_issue", {"title": "remembered?"}, {"agentworld/episode": "first"}))
    assert raw.reply(1)["result"]["isError"] is False
    raw.send(*(call(10 + n, "list_issues", {}, {"agentworld/episode": f"other-{n}"}) for n in range(1000)))
    raw.reply(1009)
    raw.send(call(2, "search_issues", {"query": "remembered?"}, {"agentworld/episode": "first"}))
    found = json.dumps(raw.reply(2)["result"])
    assert "remembered?" not in found  # "first" was the least recently used: evicted, it starts afresh


# -- HTTP ------------------------------------------------------------------------------


@pytest.mark.parametrize("body", MALFORMED)
def test_a_malformed_http_body_gets_a_json_rpc_error_not_202(tracker_world: Path, body: bytes) -> None:
    with http_server(str(tracker_world)) as url:
        response = httpx.post(url, content=body, headers=HEADERS, timeout=30)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] is None and answer["error"]["code"] == -32600


@contextlib.contextmanager
def serving(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``serve --transport http ARGS`` on a free port: its URL and process (for its open files)."""
    port = free_port()
    proc = subprocess.Popen([*CLI, "serve", *args, "--transport", "http", "--port", str(port)],
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        stop_group(proc)


def open_session(client: httpx.Client, url: str) -> str:
    response = client.post(url, json=INIT, headers=HEADERS)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def test_with_the_session_table_full_a_new_client_is_served_and_the_idlest_session_is_closed(
        tracker_world: Path) -> None:
    with serving(str(tracker_world), "--max-sessions", "3") as (url, _), httpx.Client(timeout=30) as client:
        sessions = [open_session(client, url) for _ in range(3)]
        for session in sessions[1:]:  # the first is now the idlest
            ping = client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                               headers={**HEADERS, "mcp-session-id": session})
            assert ping.status_code == 200

        async def newest() -> list[str]:
            async with http_session(url) as session:
                return [t.name for t in (await session.list_tools()).tools]

        assert "create_issue" in asyncio.run(newest())
        gone = client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                           headers={**HEADERS, "mcp-session-id": sessions[0]})
        assert gone.status_code == 404  # MCP clients start a new session on 404


def slow_clients(port: int, count: int) -> list[socket.socket]:
    """Connections that send half a request head and then nothing."""
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sockets.append(s)
    return sockets


def closed_by_server(s: socket.socket) -> bytes:
    """What the server sent before closing (b'' for a plain close); fails if it never closes."""
    received = b""
    while chunk := s.recv(4096):
        received += chunk
    return received


def open_files(proc: subprocess.Popen[str]) -> int:
    return len(os.listdir(f"/proc/{proc.pid}/fd"))


@pytest.mark.skipif(sys.platform != "linux", reason="open files are counted in /proc")
def test_slow_header_clients_are_disconnected_after_the_read_timeout_while_a_normal_client_is_served(
        tracker_world: Path) -> None:
    with serving(str(tracker_world), "--read-timeout", "2") as (url, proc):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        baseline = open_files(proc)
        slow = slow_clients(port, 50)
        try:
            async def normal() -> bool:
                async with http_session(url) as session:
                    result = await session.call_tool("create_issue", {"title": "served meanwhile"})
                    return result.isError

            assert asyncio.run(normal()) is False
            answers = [closed_by_server(s) for s in slow]  # each recv ends when the server closes it
        finally:
            for s in slow:
                s.close()
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers)
        deadline = time.monotonic() + 30
        while open_files(proc) > baseline + 5 and time.monotonic() < deadline:  # hang guard only
            time.sleep(0.1)
        assert open_files(proc) <= baseline + 5


def test_with_every_connection_held_by_slow_clients_a_normal_client_is_still_served(tracker_world: Path) -> None:
    with serving(str(tracker_world), "--max-connections", "20", "--read-timeout", "120") as (url, _):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        slow = slow_clients(port, 30)  # more than the cap; they would hold it for two minutes
        try:
            async def normal() -> list[str]:
                async with http_session(url) as session:
                    return [t.name for t in (await session.list_tools()).tools]

            assert "list_issues" in asyncio.run(normal())
            closed, _, _ = select.select(slow, [], [], 10)  # readable: closed to make room (or refused)
            assert len(closed) >= 10
        finally:
            for s in slow:
                s.close()
