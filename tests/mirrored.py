"""Tool catalogs mirrored from real third-party MCP servers, and those servers' own listings.

``mirrored_catalogs`` (session scope) runs ``agentworld-mcp mirror`` the way a user does
against three reference servers (server-memory and server-filesystem over stdio,
server-everything over streamable HTTP) and keeps, next to each written world file, the
``tools/list`` result that server sent, read off the wire as raw JSON-RPC with no MCP
library in between: that is the byte-for-byte reference.

Test modules use it with ``from .mirrored import mirrored_catalogs  # noqa: F401``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from . import thirdparty

JSONDict = dict[str, Any]
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-json-rpc", "version": "0"}}


@dataclass
class Mirrored:
    """One mirrored catalog: the world file ``mirror`` wrote and how to reach the real server."""

    name: str
    world: Path
    raw_tools: list[JSONDict]
    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)


def raw_tools_stdio(command: list[str], env: dict[str, str] | None = None) -> list[JSONDict]:
    """tools/list of a stdio server, every page, as the JSON the server wrote on its stdout."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    next_id = 0

    def request(method: str, params: JSONDict | None = None) -> JSONDict:
        nonlocal next_id
        next_id += 1
        stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params or {}}) + "\n")
        stdin.flush()
        while True:  # skip the server's notifications and requests
            line = stdout.readline()
            if not line:
                raise RuntimeError(f"{command[0]} closed stdout before answering {method}")
            message = json.loads(line)
            if message.get("id") == next_id and "method" not in message:
                return message["result"]

    try:
        request("initialize", _INIT)
        stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        stdin.flush()
        return _all_pages(request)
    finally:
        proc.kill()
        proc.wait(10)


def raw_tools_http(url: str) -> list[JSONDict]:
    """tools/list of a streamable HTTP server, every page, parsed from its HTTP responses."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=30, headers=headers) as client:
        next_id = 0

        def request(method: str, params: JSONDict | None = None) -> JSONDict:
            nonlocal next_id
            next_id += 1
            response = client.post(url, json={"jsonrpc": "2.0", "id": next_id, "method": method, "params": params or {}})
            response.raise_for_status()
            if "mcp-session-id" in response.headers:  # later requests belong to this session
                client.headers["mcp-session-id"] = response.headers["mcp-session-id"]
            for message in _messages(response):
                if message.get("id") == next_id and "method" not in message:
                    return message["result"]
            raise RuntimeError(f"no answer to {method} from {url}")

        request("initialize", _INIT)
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).raise_for_status()
        return _all_pages(request)


def _messages(response: httpx.Response) -> list[JSONDict]:
    """JSON-RPC messages in a response: a JSON body, or the data lines of an SSE stream."""
    if response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
        return body if isinstance(body, list) else [body]
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]


def _all_pages(request: Any) -> list[JSONDict]:
    tools: list[JSONDict] = []
    cursor = None
    while True:
        page = request("tools/list", {"cursor": cursor} if cursor else {})
        tools.extend(page["tools"])
        cursor = page.get("nextCursor")
        if not cursor:
            return tools


def _mirror(out: Path, *target: str, env: dict[str, str] | None = None) -> Path:
    done = thirdparty.run_cli("mirror", "-o", str(out), *target, env=env, timeout=120)
    assert done.returncode == 0, f"agentworld-mcp mirror failed:\n{done.stderr}"
    assert "wrote " in done.stderr and str(out) in done.stderr
    return out


@pytest.fixture(scope="session")
def mirrored_catalogs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Mirrored]]:
    """Three catalogs mirrored from live reference servers (see the module docstring).

    server-everything keeps running for the session, so tests can ask it again.
    """
    base = tmp_path_factory.mktemp("mirrored")
    sandbox = base / "sandbox"
    sandbox.mkdir()
    memory_env = thirdparty.memory_env(base)
    memory, filesystem = thirdparty.memory_server(), thirdparty.filesystem_server(sandbox)
    catalogs = {
        "memory": Mirrored(
            "memory", _mirror(base / "memory.yaml", "--", *memory, env=memory_env),
            raw_tools_stdio(memory, memory_env), command=memory, env=memory_env),
        "filesystem": Mirrored(
            "filesystem", _mirror(base / "filesystem.json", "--", *filesystem),
            raw_tools_stdio(filesystem), command=filesystem),
    }
    with thirdparty.everything_http() as url:
        catalogs["everything"] = Mirrored(
            "everything", _mirror(base / "everything.yaml", "--url", url), raw_tools_http(url), url=url)
        yield catalogs
