"""Resources under load: memory per 1,000 episodes, trajectory bytes per turn.

    .venv/bin/python benchmarks/bench_load.py [--episodes 1000 2000 4000] [--turns 10 100 1000]

Memory: N episodes of the issue-tracker world, one create call each, in a MemoryStore
without a bound (the baseline, measured in this run) and with ``max_episodes=100``; the
Python heap held afterwards (tracemalloc, after gc) per 1,000 episodes, and the ratio to
the baseline. The locks left behind are counted too (they must be 0: locks live only while
a call holds them).

Trajectories: one episode of T calls recorded by ``--record`` (one line per turn) and, as
the baseline, by the full-history recorder that came before (tests/legacy_record.py): bytes
per turn, the mean time of the last tenth of the calls, and the ratios. Per-turn bytes must be
flat in T; the baseline's grow with T.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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
from agentworld_mcp.record import TrajectoryRecorder  # noqa: E402
from agentworld_mcp.store import MemoryStore  # noqa: E402
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--fsync", action="store_true", help="fsync each line, as --record does (slower)")
    args = parser.parse_args()
    asyncio.run(memory(args.episodes))
    asyncio.run(trajectories(args.turns, args.fsync))


if __name__ == "__main__":
    main()
