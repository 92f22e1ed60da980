"""``serve --transport http --workers N``: several processes on one port, one shared world.

Episodes live in the ``--state`` store, so whichever worker takes a request answers from the
same episode; MCP sessions are stateless, so no request depends on the process that saw the
one before it.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from pathlib import Path

from .conftest import CLI, free_port, http_session, listening


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def worker_pids(parent: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


async def test_workers_share_episodes_through_the_state_file(tmp_path: Path, tracker_world: Path) -> None:
    port = free_port()
    command = [*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port), "--workers", "2",
               "--state", str(tmp_path / "state.db")]
    with listening(command, port) as url:

        async def create(i: int) -> dict:
            async with http_session(url, headers={"x-agentworld-episode": "shared"}) as session:
                result = await session.call_tool("create_issue", {"title": f"from client {i}"})
                assert result.structuredContent is not None, result
                return result.structuredContent

        created = await asyncio.gather(*(create(i) for i in range(12)))
        async with http_session(url, headers={"x-agentworld-episode": "shared"}) as session:
            listing = await session.call_tool("list_issues", {})
    ids = [c["id"] for c in created]
    assert len(set(ids)) == 12  # one per call, whichever process made it
    titles = {i["title"] for i in (listing.structuredContent or {}).get("issues", [])}
    assert {f"from client {i}" for i in range(12)} <= titles


def test_workers_without_a_shared_store_are_refused(tracker_world: Path) -> None:
    done = subprocess.run([*CLI, "serve", str(tracker_world), "--transport", "http", "--workers", "2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--workers N needs --state" in done.stderr


def test_two_worker_processes_run(tmp_path: Path, tracker_world: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port),
                             "--workers", "2", "--state", str(tmp_path / "s.db")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _listening(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _listening(port), "the workers never listened"
        assert len(worker_pids(proc.pid)) >= 2
    finally:
        proc.terminate()
        proc.wait(20)
