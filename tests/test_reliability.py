"""Reliability under hostile calls, crashes and failing stores (issue 24, items 4, 9 and 10).

* A call whose prediction runs long is cut off at the deadline with a named simulator error,
  while other sessions keep being answered (predictions run off the event loop).
* ``kill -9`` mid-load never leaves a trajectory line for a turn the state lacks, and a
  restarted server never writes a turn number twice.
* A store that fails (a read-only state file, a Redis nobody listens on) gives an ``isError``
  result tagged ``store_error`` that names the store, never a protocol error.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from agentworld_mcp import Simulator
from agentworld_mcp.state.step import Prediction, Step
from agentworld_mcp.world.world import load_world

from .conftest import CLI, WORLDS, free_port, http_server, http_session, stdio_session
from .scenarios import CATALOGS

TRACKER = WORLDS / "issue-tracker.yaml"
SQLITE = CATALOGS / "sqlite.json"
#: A query SQLite works on for many seconds: a hostile call.
HEAVY = "SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT x FROM c)"
SIM_ERROR = "agentworld/simulator_error"


def _kind(result) -> str | None:
    meta = result.meta or {}
    return meta.get(SIM_ERROR)


# -- deadlines -----------------------------------------------------------------------------


async def test_a_heavy_query_gets_a_deadline_error_while_another_session_is_answered():
    """Two clients of one HTTP server: the hostile one is cut off, the other is served meanwhile."""
    # Below the SQL engine's own time limit, so the general guard is what answers.
    with http_server(str(SQLITE), "--deadline", "0.8") as url:
        async with http_session(url, {"x-agentworld-episode": "hostile"}) as hostile, \
                http_session(url, {"x-agentworld-episode": "polite"}) as polite:
            await polite.call_tool("list_tables", {})  # the server is warm
            heavy = asyncio.create_task(hostile.call_tool("read_query", {"query": HEAVY}))
            answered = []
            while not heavy.done():  # the other session keeps being answered while the heavy call runs
                answered.append(await polite.call_tool("read_query", {"query": "SELECT 1 AS one"}))
            cut_off = await heavy
    assert answered, "no call of the other session was answered while the heavy one ran"
    assert all(not r.isError and "one" in r.content[0].text for r in answered)
    assert cut_off.isError and _kind(cut_off) == "deadline"
    assert "deadline" in cut_off.content[0].text and "--deadline" in cut_off.content[0].text


class _SlowModel:
    """A CPU-bound world model that takes ``seconds`` per call (sleeping stands for the work)."""

    name = "slow"
    cpu_bound = True

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.finished = 0

    async def predict(self, step: Step) -> Prediction:
        time.sleep(self.seconds if step.arguments.get("title") == "slow" else 0)
        self.finished += 1
        from agentworld_mcp.models.deterministic.schema import predict

        return predict(step)

    async def aclose(self) -> None:
        return None


async def test_a_prediction_past_its_deadline_commits_nothing_and_its_late_answer_is_dropped():
    world = load_world(TRACKER)
    model = _SlowModel(1.0)
    sim = Simulator.from_world(world, backend=model, deadline=0.2)
    slow = asyncio.create_task(sim.call("create_issue", {"title": "slow"}, episode="a"))
    other = await sim.call("create_issue", {"title": "quick"}, episode="b")  # answered while "slow" runs
    assert not other.is_error and not slow.done()
    late = await slow
    assert late.is_simulator_error and late.meta[SIM_ERROR] == "deadline"
    while model.finished < 2:  # the thread ends in the background
        await asyncio.sleep(0.05)
    after = await sim.call("create_issue", {"title": "next"}, episode="a")
    assert [i["title"] for i in (await sim.state("a"))["issues"] if i["title"] in ("slow", "next")] == ["next"]
    assert after.structured["id"] == [i["title"] for i in (await sim.state("a"))["issues"]].index("next") + 1
    await sim.aclose()


def test_a_deadline_that_is_not_a_positive_number_is_refused_with_the_setting_named():
    from agentworld_mcp.errors import ConfigError

    with pytest.raises(ConfigError, match="deadline must be a positive number of seconds.*AGENTWORLD_DEADLINE"):
        Simulator.from_world(load_world(TRACKER), env={"AGENTWORLD_DEADLINE": "soon"})


# -- crash consistency ---------------------------------------------------------------------


def _committed(state: Path) -> dict[str, int]:
    with sqlite3.connect(state) as conn:
        return dict(conn.execute("SELECT id, turn_count FROM episodes").fetchall())


def _turn_lines(record: Path) -> list[dict]:
    lines = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    return [line for line in lines if "turn" in line]


async def _load(url: str, episode: str, stop: asyncio.Event) -> None:
    try:
        async with http_session(url, {"x-agentworld-episode": episode}) as session:
            n = 0
            while not stop.is_set():
                n += 1
                await asyncio.wait_for(session.call_tool("create_issue", {"title": f"{episode} #{n}"}), 10)
    except BaseException:  # noqa: BLE001 - the server was killed under this client: expected
        return


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
async def test_kill_9_mid_load_never_leaves_a_line_for_an_uncommitted_turn_nor_reuses_a_turn_number(tmp_path):
    state, record = tmp_path / "state.db", tmp_path / "traj.jsonl"
    for round_ in range(5):
        port = free_port()
        proc = subprocess.Popen([*CLI, "serve", str(TRACKER), "--state", str(state), "--record", str(record),
                                 "--transport", "http", "--port", str(port)], start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            for _ in range(300):
                await asyncio.sleep(0.05)
                try:
                    async with http_session(url):
                        break
                except Exception:  # noqa: BLE001 - not listening yet
                    continue
            stop = asyncio.Event()
            clients = [asyncio.create_task(_load(url, f"ep{i}", stop)) for i in range(3)]
            await asyncio.sleep(0.7 + 0.13 * round_)  # a different moment of the load each round
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            stop.set()
            for client in clients:  # a client whose server died may wait on its answer: stop it
                client.cancel()
            await asyncio.wait(clients, timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
    # a last server settles what the last kill left pending, with one call
    async with stdio_session(str(TRACKER), "--state", str(state), "--record", str(record), "--episode", "ep0") as s:
        await s.call_tool("list_issues", {})
    committed = _committed(state)
    lines = _turn_lines(record)
    assert lines, "the load made turns"
    seen = Counter((line["episode"], line["turn"]) for line in lines)
    assert [key for key, n in seen.items() if n > 1] == []
    assert [(line["episode"], line["turn"]) for line in lines if line["turn"] > committed.get(line["episode"], 0)] == []


# -- store failures ------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
async def test_a_state_file_that_turns_read_only_gives_a_named_store_error_not_a_protocol_error(tmp_path):
    state = tmp_path / "state.db"
    async with stdio_session(str(TRACKER), "--state", str(state), "--episode", "e") as session:
        assert not (await session.call_tool("create_issue", {"title": "before"})).isError
        for path in tmp_path.iterdir():
            path.chmod(0o444)
        tmp_path.chmod(0o555)
        try:
            failed = await session.call_tool("create_issue", {"title": "refused"})
        finally:
            tmp_path.chmod(0o755)
            for path in tmp_path.iterdir():
                path.chmod(0o644)
    assert failed.isError and _kind(failed) == "store_error"
    assert f"state store (SQLite file {state})" in failed.content[0].text


async def test_a_state_file_replaced_by_a_non_database_gives_a_named_store_error(tmp_path):
    """Works as root too: the file under the server stops being a database."""
    state = tmp_path / "state.db"
    async with stdio_session(str(TRACKER), "--state", str(state), "--episode", "e") as session:
        assert not (await session.call_tool("create_issue", {"title": "before"})).isError
        for name in ("state.db", "state.db-wal", "state.db-shm"):
            path = tmp_path / name
            if path.exists():
                with open(path, "r+b") as f:  # the same inode the server holds open, overwritten
                    f.write(b"this is not a database" * 512)
        failed = await session.call_tool("create_issue", {"title": "refused"})
        again = await session.call_tool("list_issues", {})
    assert failed.isError and _kind(failed) == "store_error", failed
    assert f"state store (SQLite file {state}) failed" in failed.content[0].text
    assert again.isError and _kind(again) == "store_error"  # every call says so; the server keeps serving


async def test_a_redis_nobody_listens_on_gives_a_named_store_error_over_stdio():
    pytest.importorskip("redis")
    url = f"redis://127.0.0.1:{free_port()}"
    async with stdio_session(str(TRACKER), "--state", url) as session:
        failed = await session.call_tool("list_issues", {})
    assert failed.isError and _kind(failed) == "store_error"
    assert f"state store (Redis at {url})" in failed.content[0].text and "redis-server" in failed.content[0].text
