"""Resources under load: memory per 1,000 episodes, trajectory bytes per turn.

    .venv/bin/python benchmarks/bench_load.py [--episodes 1000 2000 4000] [--turns 10 100 1000]
    .venv/bin/python benchmarks/bench_load.py --http [--http-episodes 200] [--workers 2] [--state redis://...]

Memory: N episodes of the issue-tracker world, one create call each, in a MemoryStore
without a bound (the baseline, measured in this run) and with ``max_episodes=100``; the
Python heap held afterwards (tracemalloc, after gc) per 1,000 episodes, and the ratio to
the baseline. The locks left behind are counted too (they must be 0: locks live only while
a call holds them).

Trajectories: one episode of T calls recorded by ``--record`` (one line per turn) and, as
the baseline, by the full-history recorder that came before (tests/legacy_record.py): bytes
per turn, the mean time of the last tenth of the calls, and the ratios. Per-turn bytes must be
flat in T; the baseline's grow with T.

``--http``: load over streamable HTTP across worker processes. ``agentworld-mcp serve
--transport http --workers N`` with a shared state (a SQLite file, or ``--state redis://...``);
rounds of E episodes x 20 calls (create, read back, update, comment, list, search, delete),
32 in flight, each call one plain POST naming its episode in ``_meta``. Reports calls/s, p50
and p99 latency, errors (JSON-RPC errors, HTTP errors, ``isError`` results: all must be 0, every
call here succeeds on a consistent store) and each worker's resident memory after each round
(``--max-episodes 100`` keeps at most 100 episodes in a worker's memory, the rest stay in the
shared state: flat from round to round). The baseline, measured in the same run: the same
calls through one in-process ``Simulator`` with no HTTP in front.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.trajectories.record import TrajectoryRecorder  # noqa: E402
from agentworld_mcp.state.store import MemoryStore  # noqa: E402
from tests.legacy_record import LegacyRecorder  # noqa: E402

WORLD = load_world(ROOT / "examples" / "worlds" / "issue-tracker.yaml")
BOUND = 100


async def heap_after(episodes: int, store: MemoryStore) -> tuple[float, int]:
    """Heap bytes held by ``episodes`` one-call episodes in ``store``; the store's live locks."""
    sim = Simulator(WORLD, store=store)
    await sim.call("create_issue", {"title": "warm"}, episode="warm")  # caches, compiled validators
    await store.delete("warm")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(episodes):
        await sim.call("create_issue", {"title": f"issue {n}", "body": "text " * 20}, episode=f"ep-{n}")
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held, store.locks_held


async def memory(counts: list[int]) -> None:
    print(f"memory held by N one-call episodes (tracemalloc), per 1,000 episodes; bound = {BOUND}")
    print(f"{'episodes':>9} {'no bound KB/1k':>15} {'max 100 KB/1k':>14} {'ratio':>7} {'kept':>6} {'locks':>6}")
    for count in counts:
        free, free_locks = await heap_after(count, MemoryStore())
        store = MemoryStore(max_episodes=BOUND)
        bounded, locks = await heap_after(count, store)
        kept = len(await store.ids())
        print(f"{count:>9} {free / count:>15.1f} {bounded / count:>14.1f} {bounded / free:>7.3f} {kept:>6} "
              f"{max(locks, free_locks):>6}")


async def record(turns: int, recorder: Any) -> float:
    """Seconds per call over the last tenth of an episode of ``turns`` calls; the recorder is closed."""
    sim = Simulator(WORLD, recorders=[recorder])
    tail = max(1, turns // 10)
    t0 = 0.0
    for i in range(turns):
        if i == turns - tail:
            t0 = time.perf_counter()
        await sim.call("get_issue", {"issue_id": 1 + i % 3}, episode="long")
    per_call = (time.perf_counter() - t0) / tail
    await sim.aclose()
    return per_call


async def trajectories(lengths: list[int], fsync: bool) -> None:
    print(f"\ntrajectory file per turn (fsync={'on' if fsync else 'off'}); baseline: the full-history recorder")
    print(f"{'turns':>6} {'per-turn B/turn':>16} {'baseline B/turn':>16} {'size ratio':>11} "
          f"{'per-turn ms/call':>17} {'baseline ms/call':>17} {'time ratio':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for turns in lengths:
            new, old = Path(tmp) / f"turns-{turns}.jsonl", Path(tmp) / f"legacy-{turns}.jsonl"
            new_s = await record(turns, TrajectoryRecorder(new, fsync=fsync))
            old_s = await record(turns, LegacyRecorder(old, fsync=fsync))
            new_b, old_b = new.stat().st_size / turns, old.stat().st_size / turns
            print(f"{turns:>6} {new_b:>16.0f} {old_b:>16.0f} {old_b / new_b:>11.1f} "
                  f"{new_s * 1e3:>17.3f} {old_s * 1e3:>17.3f} {old_s / new_s:>11.1f}")
            old.unlink()


def episode_calls(i: int) -> list[tuple[str, dict[str, Any]]]:
    """20 calls of one episode: the seed has issues 1-3, so this episode's creates are 4-8."""
    created = range(4, 9)
    return ([("create_issue", {"title": f"load {i}.{n}", "priority": "high"}) for n in created]
            + [("get_issue", {"issue_id": n}) for n in created]
            + [("update_issue", {"issue_id": n, "status": "closed"}) for n in (4, 5, 6)]
            + [("add_comment", {"issue_id": 4, "body": f"seen {k}"}) for k in (1, 2)]
            + [("list_issues", {}), ("list_issues", {"status": "closed"})]
            + [("search_issues", {"query": "load"})] * 2 + [("delete_issue", {"issue_id": 8})])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _drive(episodes: range, call: Any, in_flight: int = 32) -> tuple[float, list[float], int]:
    """Run the episodes (each one's calls in order), ``in_flight`` at a time: seconds, latencies, errors."""
    latencies: list[float] = []
    errors = 0
    gate = asyncio.Semaphore(in_flight)

    async def episode(i: int) -> None:
        nonlocal errors
        async with gate:
            for tool, arguments in episode_calls(i):
                start = time.perf_counter()
                errors += not await call(f"load-{i}", tool, arguments)
                latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(episode(i) for i in episodes))
    return time.perf_counter() - start, latencies, errors


def _row(label: str, seconds: float, latencies: list[float], errors: int, base_rate: float | None) -> float:
    rate = len(latencies) / seconds
    cuts = statistics.quantiles(latencies, n=100)
    ratio = f"{rate / base_rate:>8.2f}x" if base_rate else f"{'1.00x':>9}"
    print(f"{label:<34} {len(latencies):>6} {rate:>8.0f} {ratio} {cuts[49] * 1e3:>8.1f} {cuts[98] * 1e3:>8.1f} {errors:>6}")
    return rate


async def http_load(episodes: int, rounds: int, workers: int, state: str | None) -> None:
    import aiohttp  # the llm extra's HTTP client (pip install -e ".[llm]")

    print(f"\nLoad over streamable HTTP: {rounds} rounds of {episodes} episodes x 20 calls, 32 in flight, "
          f"serve --workers {workers} --max-episodes {BOUND} (state: {state or 'a SQLite file'}); "
          "baseline: one in-process Simulator")
    print(f"{'run':<34} {'calls':>6} {'calls/s':>8} {'ratio':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    sim = Simulator(WORLD)

    async def in_process(episode: str, tool: str, arguments: dict[str, Any]) -> bool:
        return not (await sim.call(tool, arguments, episode=episode)).is_error

    seconds, latencies, errors = await _drive(range(episodes), in_process)
    base = _row("baseline: in-process Simulator", seconds, latencies, errors, None)
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        server = subprocess.Popen(
            [sys.executable, "-m", "agentworld_mcp", "serve", str(ROOT / "examples" / "worlds" / "issue-tracker.yaml"),
             "--transport", "http", "--port", str(port), "--workers", str(workers),
             "--state", state or str(Path(tmp) / "state.db"), "--max-episodes", str(BOUND), "-q"],
            stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        mcp = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18"}
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
                for _ in range(300):  # until it listens
                    try:
                        async with http.get(f"http://127.0.0.1:{port}/"):
                            break
                    except aiohttp.ClientError:
                        await asyncio.sleep(0.1)

                async def over_http(episode: str, tool: str, arguments: dict[str, Any]) -> bool:
                    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": tool, "arguments": arguments, "_meta": {"agentworld/episode": episode}}}
                    async with http.post(mcp, json=body, headers=headers) as response:
                        text = await response.text()
                    if response.status != 200:
                        return False
                    data = [line[5:] for line in text.splitlines() if line.startswith("data:")] or [text]
                    answer = json.loads(data[-1])
                    return "result" in answer and not answer["result"].get("isError")

                found = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True)
                pids = [int(p) for p in found.stdout.split()] or [server.pid]
                for n in range(rounds):
                    seconds, latencies, errors = await _drive(range(n * episodes, (n + 1) * episodes), over_http)
                    _row(f"HTTP, {workers} workers, round {n + 1}", seconds, latencies, errors, base)
                    print(f"{'':<34} worker memory (RSS MB): {', '.join(f'{rss_mb(p):.0f}' for p in pids)}")
        finally:
            server.terminate()
            server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--fsync", action="store_true", help="fsync each line, as --record does (slower)")
    parser.add_argument("--http", action="store_true", help="only the load over streamable HTTP across workers")
    parser.add_argument("--http-episodes", type=int, default=200, help="episodes per round (default: 200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of new episodes (default: 3)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default: 2)")
    parser.add_argument("--state", default=None, help="shared state: redis://... (default: a SQLite file)")
    args = parser.parse_args()
    if args.http:
        asyncio.run(http_load(args.http_episodes, args.rounds, args.workers, args.state))
        return
    asyncio.run(memory(args.episodes))
    asyncio.run(trajectories(args.turns, args.fsync))


if __name__ == "__main__":
    main()
