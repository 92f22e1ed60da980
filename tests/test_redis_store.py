"""Episodes in Redis: several server processes share one world (``--state redis://...``).

A real ``redis-server`` (Debian's package) runs on a loopback port for these tests. The
consistency suite runs with a fresh ``serve`` process per call, all sharing the Redis
episode; two HTTP servers serve one episode; TTLs expire idle episodes; another world's
database is refused.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.errors import StateFileError
from agentworld_mcp.state.store_redis import RedisStore

from .conftest import CLI, WORLDS, free_port, http_session, listening, stdio_session
from .scenarios import SCENARIOS, failures, process_per_call_params, run_scenario

TRACKER = WORLDS / "issue-tracker.yaml"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed: apt-get install redis-server (.ci/run installs it)")
    port = free_port()
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


_db = iter(range(1, 16))


@pytest.fixture
def url(redis_url: str) -> str:
    """A database of its own per test (Redis has 16)."""
    return f"{redis_url}/{next(_db)}"


@pytest.mark.parametrize("name", process_per_call_params(default=()))  # the file store keeps one in the default tier
async def test_consistency_scenarios_with_a_process_per_call(url: str, name: str) -> None:
    world, _ = SCENARIOS[name]
    calls = 0

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        async with stdio_session(str(world), "--state", url) as session:
            return await session.call_tool(tool, arguments)

    checks = await run_scenario(name, call)
    assert checks and all(c.ok for c in checks), failures(checks)
    store = RedisStore(url, load_world(world))
    try:
        episode = await store.get("default")
        assert episode is not None and len(episode.turns) == calls  # every call is one turn in Redis
    finally:
        await store.close()


async def test_two_http_servers_share_one_episode(url: str) -> None:
    ports = free_port(), free_port()
    commands = [[*CLI, "serve", str(TRACKER), "--transport", "http", "--port", str(p), "--state", url] for p in ports]
    with listening(commands[0], ports[0]) as first, listening(commands[1], ports[1]) as second:
        async with http_session(first) as a, http_session(second) as b:
            created = await a.call_tool("create_issue", {"title": "seen by both"})
            issue = created.structuredContent
            assert issue is not None
            read = await b.call_tool("get_issue", {"issue_id": issue["id"]})
            assert read.structuredContent is not None and read.structuredContent["title"] == "seen by both"
            # Concurrent creates from both servers: the per-episode lock gives each its own id.
            results = await asyncio.gather(*(s.call_tool("create_issue", {"title": f"t{i}"})
                                             for i, s in enumerate([a, b] * 5)))
    ids = [r.structuredContent["id"] for r in results if r.structuredContent]
    assert len(ids) == 10 and len(set(ids)) == 10


async def test_an_idle_episode_expires_after_its_ttl(url: str) -> None:
    world = load_world(TRACKER)
    async with Simulator.from_world(world, store=RedisStore(url, world, episode_ttl=0.3)) as sim:
        await sim.call("create_issue", {"title": "short-lived"}, episode="scratch")
        assert "scratch" in await sim.store.ids()
        await asyncio.sleep(0.6)
        assert "scratch" not in await sim.store.ids()
    async with Simulator.from_world(world, store=RedisStore(url, world)) as fresh:
        titles = {i["title"] for i in (await fresh.state("scratch"))["issues"]}
        assert "short-lived" not in titles  # it starts again from the seed state


async def test_a_database_of_another_world_is_refused(url: str) -> None:
    tracker = load_world(TRACKER)
    async with Simulator.from_world(tracker, store=url) as sim:
        await sim.call("list_issues", {})
    other = load_world(WORLDS / "file-store.yaml")
    with pytest.raises(StateFileError, match="holds episodes of world 'issue-tracker'"):
        async with Simulator.from_world(other, store=url) as sim:
            await sim.call("list_directory", {"path": "/"})


async def test_an_unreachable_redis_is_a_clear_error() -> None:
    world = load_world(TRACKER)
    async with Simulator.from_world(world, store=f"redis://127.0.0.1:{free_port()}") as sim:
        result = await sim.call("list_issues", {})
    assert result.is_simulator_error and result.meta["agentworld/simulator_error"] == "store_error"
    assert "cannot reach Redis" in result.text and "start redis-server" in result.text
