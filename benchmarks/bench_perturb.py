"""Overhead of the perturbation stage per call when no rule fires.

    .venv/bin/python benchmarks/bench_perturb.py [--calls 150] [--rounds 40]

The baseline is the same step pipeline with a perturbation stage that does nothing (what
the engine used before perturbations existed), measured in the same run. Three set-ups are
timed against it on a mix of reads, updates and listings of the issue-tracker world:

* ``empty policy``   - the default: a world without ``perturbations:``;
* ``rules, no match`` - six rules (one of each family) that select other tools;
* ``rules, no fire``  - the same rules selecting every tool, scheduled never to fire here
  (counters and seeded draws are made on every call).

Rounds are interleaved (shuffled, garbage collection off while timing, as timeit does) and the
best round is kept (noise only ever adds time), so machine
noise hits every set-up alike. A second table times the stage alone (``before`` + ``after``
on a prepared step, no world model) as a share of the baseline pipeline's per-call time,
which is steadier on a busy machine. Target: every ratio under 1.05.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.perturb import perturber_for  # noqa: E402

WORLD = load_world(ROOT / "examples" / "worlds" / "issue-tracker.yaml")
MIX = [("get_issue", {"issue_id": 1}), ("update_issue", {"issue_id": 2, "title": "renamed"}),
       ("list_issues", {"status": "open"}), ("get_issue", {"issue_id": 3})]
FAMILIES = ["timeout", "rate_limit", "latency", "paginate", "not_found", "instruct"]


class NoPerturbations:
    """The baseline: a stage that never does anything."""

    async def before(self, step: Any, fired: Any, overrides: Any = None) -> None:
        return None

    def after(self, step: Any, result: Any, fired: Any) -> Any:
        return result


def rules(tools: str, **schedule: Any) -> list[dict]:
    out = []
    for kind in FAMILIES:
        rule: dict[str, Any] = {"kind": kind, "tools": tools, **schedule}
        if kind == "instruct":
            rule["text"] = "nothing happens"
        out.append(rule)
    return out


SETUPS = {
    "baseline (no stage)": lambda: NoPerturbations(),
    "empty policy": lambda: perturber_for(WORLD),
    "rules, no match": lambda: perturber_for(WORLD, rules("deploy_*")),
    "rules, no fire": lambda: perturber_for(WORLD, rules("*", calls=[10**9])),
}


async def per_call_us(sim: Simulator, episode: str, calls: int) -> float:
    for tool, args in MIX * 10:  # warm caches
        await sim.call(tool, args, episode=episode)
    gc.collect()
    gc.disable()  # as timeit does: a collection landing in one set-up's round is noise
    try:
        t0 = time.perf_counter()
        for i in range(calls):
            tool, args = MIX[i % len(MIX)]
            await sim.call(tool, args, episode=episode)
        return (time.perf_counter() - t0) / calls * 1e6
    finally:
        gc.enable()


async def main(calls: int, rounds: int) -> None:
    sims = {name: Simulator(WORLD, perturber=make()) for name, make in SETUPS.items()}
    samples: dict[str, list[float]] = {name: [] for name in SETUPS}
    order = list(sims)
    shuffle = random.Random(0).shuffle
    for r in range(rounds):
        shuffle(order)  # interleaved, in a different order each round: noise and warm-up are shared
        for name in order:
            samples[name].append(await per_call_us(sims[name], f"round-{r}", calls))
    base = min(samples["baseline (no stage)"])
    print(f"whole pipeline, {calls} calls x {rounds} rounds (best round, per call)")
    for name, values in samples.items():
        print(f"  {name:<22} {min(values):8.1f} us/call   ratio {min(values) / base:5.3f}")
    worst = max(min(v) for v in samples.values()) / base
    print(f"worst ratio {worst:.3f} (target < 1.05): {'OK' if worst < 1.05 else 'OVER TARGET'}")
    print(f"\nthe stage alone (before + after, no world model), as a share of the {base:.1f} us pipeline")
    stage = {name: await stage_us(make(), calls * 5) for name, make in SETUPS.items()}
    for name, us in stage.items():
        extra = max(us - stage["baseline (no stage)"], 0.0)
        print(f"  {name:<22} {extra:8.2f} us/call   ratio {(base + extra) / base:5.3f}")


async def stage_us(perturber: Any, calls: int) -> float:
    """Building a step and running ``before`` + ``after`` on it (best of 5 rounds)."""
    from agentworld_mcp.models.base import Step
    from agentworld_mcp.world.catalog import Catalog
    from agentworld_mcp.state.episode import Episode
    from agentworld_mcp.state.result import ToolResult

    catalog = Catalog(WORLD).warm()
    result = ToolResult.from_json({"issues": [], "total": 0}, structured=True)
    best = float("inf")
    for r in range(5):
        episode = Episode.new(WORLD, f"stage-{r}", 0)
        t0 = time.perf_counter()
        for i in range(calls):
            tool, args = MIX[i % len(MIX)]
            step = Step(WORLD, catalog[tool], args, episode, i + 1, episode.rng(i, tool))
            fired: list = []
            if await perturber.before(step, fired) is None:
                perturber.after(step, result, fired)
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds))
