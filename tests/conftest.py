"""Shared fixtures: paths, real MCP clients over stdio and streamable HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import httpx
from mcp.client.streamable_http import streamable_http_client

from agentworld_mcp.sim2real.carry import replay_turns
from agentworld_mcp.sim2real.score import RecordedTurn, read_episodes
from agentworld_mcp.world.world import load_world

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "examples" / "worlds"
CLI = [sys.executable, "-m", "agentworld_mcp"]


def learn_cli(recording: Path, catalog: Any, out: Path, *flags: str) -> Path:
    """``agentworld-mcp learn RECORDING --catalog CATALOG -o OUT FLAGS``, run as a user runs it; ``out``."""
    catalog_path = out.with_name(out.stem + ".catalog.json")
    catalog_path.write_text(json.dumps(catalog), encoding="utf-8")
    done = subprocess.run([*CLI, "learn", str(recording), "--catalog", str(catalog_path), "-o", str(out), *flags],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def write_recording(path: Path, calls: list[tuple[str, dict[str, Any], Any]], episode: str = "train") -> Path:
    """``calls`` (tool, arguments, JSON answer) as the JSONL recording ``proxy --record`` writes: one successful
    turn per call, the answer as its text."""
    lines = [json.dumps({"episode": episode, "turn": turn, "tool": tool, "arguments": args,
                         "result": {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}})
             for turn, (tool, args, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def bare_tool(name: str, description: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A catalog tool as a bare MCP server lists it: an inputSchema, no outputSchema."""
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": required or []}}


async def world_calls(tmp_path: Path, world: dict[str, Any], *calls: tuple[str, Any]) -> list[Any]:
    """The results of ``calls`` (tool, arguments, or a function of the results so far giving them) in one episode
    of ``world``, served over stdio to a real MCP client."""
    path = tmp_path / f"{world.get('name', 'world')}.json"
    path.write_text(json.dumps(world), encoding="utf-8")
    out: list[Any] = []
    async with stdio_session(str(path)) as session:
        for tool, args in calls:
            out.append(await session.call_tool(tool, args(out) if callable(args) else args))
    return out


def json_answer(result: Any) -> Any:
    """A successful tool result's JSON text, parsed (the failure's content when it is an error)."""
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.asynccontextmanager
async def stdio_session(*args: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A real MCP client talking to ``agentworld-mcp serve ARGS`` in a subprocess over stdio."""
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "serve", *args], env={**os.environ, **(env or {})})
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def replayed(world: str | Path, recordings: list[Path]
                   ) -> tuple[dict[str, list[RecordedTurn]], dict[str, list[dict[str, Any]]]]:
    """The calls recorded in ``recordings`` replayed through a real MCP client serving ``world``: the recorded
    episodes and, for each, our answers as CallToolResult JSON (what ``score``'s ``evaluate`` compares)."""
    episodes = read_episodes(list(recordings))
    answers: dict[str, list[dict[str, Any]]] = {}
    seed = load_world(world).seed
    async with stdio_session(str(world)) as session:

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return (await session.call_tool(tool, arguments)).model_dump(by_alias=True, exclude_none=True, mode="json")

        for key, turns in episodes.items():  # server-made ids carried as the simulator's own, as score does
            answers[key] = await replay_turns(turns, call, seed=seed)
    return episodes, answers


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=300)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@contextlib.contextmanager
def listening(command: list[str], port: int, *, env: dict[str, str] | None = None, path: str = "/mcp") -> Iterator[str]:
    """Start ``command`` (an HTTP server that will listen on ``port``); yield its URL; stop it.

    The command runs in a process group of its own, and the whole group is stopped: a wrapper
    (``sh -c ...``) never leaves the server under it running after the test."""
    proc = subprocess.Popen(command, env={**os.environ, **(env or {})}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{command[0]} exited: {proc.stderr.read() if proc.stderr else ''}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{command[0]} did not listen on port {port} within 30 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen[str], timeout: float = 10) -> None:
    """SIGTERM to ``proc``'s whole process group, SIGKILL if it lingers, and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout)
    with contextlib.suppress(ProcessLookupError):  # children that outlived the leader
        os.killpg(proc.pid, signal.SIGKILL)


@contextlib.contextmanager
def http_server(*args: str) -> Iterator[str]:
    """``agentworld-mcp serve ARGS --transport http`` on a free loopback port; yields the MCP URL."""
    port = free_port()
    with listening([*CLI, "serve", *args, "--transport", "http", "--port", str(port)], port) as url:
        yield url


@pytest.fixture
def tracker_world() -> Path:
    return WORLDS / "issue-tracker.yaml"
