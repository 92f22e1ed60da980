"""Per-call cost against episode length, in memory and in a SQLite state file.

    .venv/bin/python benchmarks/bench_state.py [--calls 300]

For each store, an episode of the issue-tracker world is grown to 1, 100 and 1000 prior
turns (each a create, so the ledger grows with the history), then a fixed mix of calls
(read, update, create) is timed. Costs are printed as ratios to the 1-turn episode of the
same store, measured in the same run: a call must not get slower as the episode gets
longer (turns are appended, and a SQLite save writes only what the call changed).
Then memory per episode: Python heap per in-memory episode and file bytes per episode.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.state.store import MemoryStore, SqliteStore  # noqa: E402

WORLD = load_world(ROOT / "examples" / "worlds" / "issue-tracker.yaml")
LENGTHS = (1, 100, 1000)


async def grow(sim: Simulator, episode: str, turns: int) -> None:
    for i in range(turns):
        await sim.call("create_issue", {"title": f"prior {i}", "body": "history " * 20}, episode=episode)


async def per_call_us(sim: Simulator, episode: str, calls: int) -> float:
    mix = [("get_issue", {"issue_id": 1}), ("update_issue", {"issue_id": 1, "title": "renamed"}),
           ("create_issue", {"title": "new"})]
    for tool, args in mix * 5:  # warm caches
        await sim.call(tool, args, episode=episode)
    t0 = time.perf_counter()
    for i in range(calls):
        tool, args = mix[i % len(mix)]
        await sim.call(tool, args, episode=episode)
    return (time.perf_counter() - t0) / calls * 1e6


async def cost_table(calls: int, workdir: str) -> None:
    print(f"per-call cost ({calls} calls: get/update/create mix) against prior turns")
    print(f"{'store':8} {'prior turns':>11} {'us/call':>9} {'ratio to 1':>10}")
    for kind in ("memory", "sqlite"):
        base = None
        for length in LENGTHS:
            store = MemoryStore() if kind == "memory" else SqliteStore(os.path.join(workdir, f"cost-{length}.db"))
            async with Simulator(WORLD, store=store) as sim:
                await grow(sim, "bench", length)
                us = await per_call_us(sim, "bench", calls)
            base = base or us
            print(f"{kind:8} {length:>11} {us:>9.1f} {us / base:>10.2f}")
    # A fresh process per call (stdio clients that start one server per call) loads the
    # episode's ledger but never its turns: time the load + call + save, no process start.
    print("\nfresh store per call (what a process per call pays, without interpreter start-up)")
    print(f"{'prior turns':>11} {'us/call':>9} {'ratio to 1':>10}")
    base = None
    for length in LENGTHS:
        path = os.path.join(workdir, f"cost-{length}.db")
        t0 = time.perf_counter()
        n = 20
        for _ in range(n):
            async with Simulator(WORLD, store=SqliteStore(path)) as sim:
                await sim.call("get_issue", {"issue_id": 1}, episode="bench")
        us = (time.perf_counter() - t0) / n * 1e6
        base = base or us
        print(f"{length:>11} {us:>9.1f} {us / base:>10.2f}   (ledger has ~{length + 3} issues)")


async def memory_table(workdir: str) -> None:
    episodes, turns = 200, 10
    print(f"\nmemory per episode ({episodes} episodes x {turns} turns)")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    sim = Simulator(WORLD, store=MemoryStore())
    for e in range(episodes):
        await grow(sim, f"m{e}", turns)
    heap = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    await sim.aclose()
    path = os.path.join(workdir, "mem.db")
    async with Simulator(WORLD, store=SqliteStore(path)) as sim:
        for e in range(episodes):
            await grow(sim, f"m{e}", turns)
    size = sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    print(f"memory store: {heap / episodes / 1024:8.1f} KiB heap per episode")
    print(f"sqlite store: {size / episodes / 1024:8.1f} KiB file per episode (db + wal)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        asyncio.run(cost_table(args.calls, workdir))
        asyncio.run(memory_table(workdir))


if __name__ == "__main__":
    main()
