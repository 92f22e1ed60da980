"""--state PATH: episodes in a SQLite file survive restarts and are shared by processes.

The scenarios run through real MCP clients against ``agentworld-mcp serve --state``
processes, including one process per call (what a stdio client that opens a session per
tool call does), and a server killed with SIGKILL in the middle of a run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
from typing import Any

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.errors import StateFileError
from agentworld_mcp.state.ledger import Effect
from agentworld_mcp.state.store import SqliteStore

from .conftest import CLI, WORLDS, stdio_session
from .scenarios import SCENARIOS, failures, process_per_call_params, run_scenario

TRACKER = WORLDS / "issue-tracker.yaml"


async def test_a_world_survives_a_server_restart(tmp_path):
    state = tmp_path / "state.db"
    async with stdio_session(str(TRACKER), "--state", str(state), "--episode", "run-1") as session:
        created = (await session.call_tool("create_issue", {"title": "Persisted"})).structuredContent
    async with stdio_session(str(TRACKER), "--state", str(state), "--episode", "run-1") as session:
        read = await session.call_tool("get_issue", {"issue_id": created["id"]})
        assert read.structuredContent == created
        other = await session.call_tool("get_issue", {"issue_id": created["id"]}, meta={"agentworld/episode": "run-2"})
        assert other.isError  # another episode never saw it


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
def test_concurrent_processes_on_one_episode_serialise(tmp_path):
    """Six `agentworld-mcp call` processes at once: six distinct issues, six turns, none lost."""
    state = tmp_path / "state.db"
    subprocess.run([*CLI, "call", str(TRACKER), "list_issues", "--state", str(state)], check=True,
                   capture_output=True)
    procs = [
        subprocess.Popen([*CLI, "call", str(TRACKER), "create_issue", "--args", json.dumps({"title": f"t{i}"}),
                          "--state", str(state)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(6)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outputs]
    ids = [json.loads(out)["structuredContent"]["id"] for out, _ in outputs]
    assert len(set(ids)) == 6
    listed = subprocess.run([*CLI, "call", str(TRACKER), "list_issues", "--state", str(state)],
                            capture_output=True, text=True, check=True)
    titles = {i["title"] for i in json.loads(listed.stdout)["structuredContent"]["issues"]}
    assert {f"t{i}" for i in range(6)} <= titles
    with sqlite3.connect(state) as db:
        assert db.execute("SELECT turn_count FROM episodes WHERE id='default'").fetchone() == (8,)
        assert [r[0] for r in db.execute("SELECT idx FROM turns ORDER BY idx")] == list(range(1, 9))


def test_sigkill_mid_run_leaves_valid_state_and_trajectory(tmp_path):
    """Requests are pipelined; the server is killed while some are still in flight."""
    state, record = tmp_path / "state.db", tmp_path / "trajectory.jsonl"
    proc = subprocess.Popen([*CLI, "serve", str(TRACKER), "--state", str(state), "--record", str(record)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    completed: list[dict[str, Any]] = []
    try:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}) + "\n")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for i in range(1, 61):
            call = {"name": "create_issue", "arguments": {"title": f"issue {i}", "body": "x" * 2000}}
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        while len(completed) < 25:
            completed.append(json.loads(proc.stdout.readline()))
        os.kill(proc.pid, signal.SIGKILL)  # mid-run: more requests are queued and in flight
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with sqlite3.connect(state) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        turns = {idx: json.loads(data) for idx, data in db.execute("SELECT idx, data FROM turns WHERE episode='default'")}
        count = db.execute("SELECT turn_count FROM episodes WHERE id='default'").fetchone()[0]
    assert sorted(turns) == list(range(1, count + 1))  # no gap, no half-written turn
    lines = record.read_bytes()
    assert lines.endswith(b"\n")  # no partial line
    recorded = [line for line in map(json.loads, lines.decode().splitlines()) if "trajectory" not in line]
    assert [t["turn"] for t in recorded] == list(range(1, len(recorded) + 1))  # one line per turn, no header
    for reply in completed:  # every completed turn is in both files
        sent = reply["result"]["structuredContent"]
        turn = next(t for t in turns.values() if t["result"].get("structuredContent") == sent)
        assert recorded[turn["index"] - 1]["result"]["structuredContent"] == sent
    # and the world goes on from the file
    sim = Simulator(load_world(TRACKER), store=state)
    assert len(await_(sim.trajectory())) == count
    await_(sim.aclose())


def await_(coro: Any) -> Any:
    return asyncio.new_event_loop().run_until_complete(coro)


# -- the store through the Python API --------------------------------------------------------


async def test_reloaded_episode_equals_the_one_in_memory(tmp_path):
    """Incremental saves (only what a call changed) rebuild exactly the ledger and trajectory."""
    world = load_world(TRACKER)
    state = tmp_path / "state.db"
    sim = Simulator(world, store=state)
    first = await sim.call("create_issue", {"title": "A", "priority": "high"}, episode="e")
    await sim.call("create_issue", {"title": "B"}, episode="e")
    await sim.call("update_issue", {"issue_id": first.structured["id"], "title": "A2"}, episode="e")
    await sim.call("delete_issue", {"issue_id": 2}, episode="e")
    await sim.call("add_comment", {"issue_id": 1, "body": "hi"}, episode="e")
    ep = await sim.episode("e")
    # effects applied outside a tool call (a re-created key moves to the end, a move re-keys)
    async with sim.store.session("e", sim._new_episode) as live:
        live.ledger.apply([Effect("create", "issues", "2", {"id": 2, "title": "again"}),
                    Effect("create", "issues", "9", {"id": 9, "title": "n", "labels": [{"name": "bug"}]}),
                    Effect("move", "issues", "3", {}, new_key="30")], 6)
    assert ep.ledger.get("labels", "bug") is not None  # a nested entity, stored by the ledger itself
    before = (ep.ledger.to_dict(), [t.to_dict() for t in ep.turns], ep.state)
    await sim.aclose()

    again = Simulator(world, store=state)
    ep2 = await again.episode("e")
    assert (ep2.ledger.to_dict(), [t.to_dict() for t in ep2.turns], ep2.state) == before
    assert [e.key for e in ep2.ledger.items("issues")] == [e.key for e in ep.ledger.items("issues")]
    assert await again.state("e") == ep.ledger.snapshot()
    await again.aclose()


async def test_python_api_store_path_and_object(tmp_path):
    world = load_world(TRACKER)
    store = SqliteStore(tmp_path / "s.db")
    async with Simulator(world, store=store) as sim:
        await sim.call("create_issue", {"title": "via object"}, episode="x")
        assert [t.tool for t in await sim.trajectory("x")] == ["create_issue"]
        assert [i.id for i in await sim.store.info()] == ["x"]
        await sim.reset("x")
        assert await sim.trajectory("x") == []
        assert {i["title"] for i in (await sim.state("x"))["issues"]} == {i["title"] for i in world.seed["issues"]}


def test_a_state_file_of_another_world_is_refused(tmp_path):
    state = tmp_path / "s.db"
    subprocess.run([*CLI, "call", str(TRACKER), "list_issues", "--state", str(state)], check=True, capture_output=True)
    other = subprocess.run([*CLI, "call", str(WORLDS / "file-store.yaml"), "list_directory", "--args", '{"path": "/"}',
                            "--state", str(state)], capture_output=True, text=True)
    assert other.returncode == 2  # a configuration problem exits like a bad world file
    assert "holds episodes of world 'issue-tracker'" in other.stderr and "another --state file" in other.stderr

    changed = load_world(TRACKER).model_copy(update={"scenario": "something else"})
    with pytest.raises(StateFileError, match="different version of world 'issue-tracker'"):
        SqliteStore(state, changed)


def test_a_file_that_is_not_a_state_file_is_refused(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("hello, not a database\n" * 100)
    with pytest.raises(StateFileError, match="not a usable agentworld-mcp state file"):
        SqliteStore(junk)


@pytest.mark.parametrize("name", process_per_call_params(default=()))  # a process per call: the long tier
async def test_consistency_scenarios_with_a_process_per_call(tmp_path, name):
    """The consistency suite (tests/scenarios.py), each call in a fresh `serve --state` process."""
    world, _ = SCENARIOS[name]
    state = tmp_path / "state.db"
    calls = 0

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        async with stdio_session(str(world), "--state", str(state)) as session:
            return await session.call_tool(tool, arguments)

    checks = await run_scenario(name, call)
    assert checks and all(c.ok for c in checks), failures(checks)
    with sqlite3.connect(state) as db:  # every call is one turn in the shared file
        assert db.execute("SELECT turn_count FROM episodes WHERE id='default'").fetchone() == (calls,)
        assert db.execute("SELECT count(*) FROM turns WHERE episode='default'").fetchone() == (calls,)
