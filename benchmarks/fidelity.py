"""The fidelity benchmark: how closely a world model answers like real executable environments.

    python benchmarks/fidelity.py [--half dev|eval|both] [--variant typed|bare|both]
                                  [--backend schema|llm|empty] [--base-url URL --model NAME]
                                  [--limit N] [--json]

Ground truth is BFCL's multi-turn category (PyPI ``bfcl-eval``): eight executable API classes
and 200 ``multi_turn_base`` entries. Each entry becomes a world (its classes' function docs as
MCP tools, its initial state as seed and scenario) and a recording of the real answers (its
ground-truth calls executed on the real classes); every recording is then replayed against
the world model chosen and compared with ``agentworld_mcp.sim2real.score`` (docs/sim-to-real.md).

Install the classes without bfcl-eval's heavy dependencies (they need only mpmath):

    pip install --no-deps bfcl-eval mpmath      # or: pip install --no-deps bfcl-eval 'agentworld-mcp[fidelity]'

``--half``: the entries are split once, by a seeded hash, into a development half and an
evaluation half (benchmarks/bfcl_split.json); tune on dev, report eval. ``--variant``: typed
worlds list the docs' response schemas as outputSchema, bare ones do not. ``--backend empty``
answers every call with an empty object: the floor a real world model must beat.
See docs/fidelity-benchmark.md.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

import bfcl_worlds  # noqa: E402
from agentworld_mcp import Simulator  # noqa: E402
from agentworld_mcp.sim2real import score  # noqa: E402
from agentworld_mcp.sim2real.carry import replay_turns  # noqa: E402
from agentworld_mcp.sim2real.fidelity import acknowledged_data  # noqa: E402
from agentworld_mcp.sim2real.score import RecordedTurn, evaluate, read_episodes, simulator_call  # noqa: E402
from agentworld_mcp.world.world import World, load_world  # noqa: E402

JSONDict = dict[str, Any]
SPLIT = HERE / "bfcl_split.json"
EMPTY = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {}, "isError": False}
WORST = 10


def selected(half: str, limit: int | None) -> dict[str, list[JSONDict]]:
    """The entries of each half asked for (the first ``limit`` of each, in id order)."""
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    by_id = {entry["id"]: entry for entry in bfcl_worlds.entries()}
    halves = ["dev", "eval"] if half == "both" else [half]
    return {h: [by_id[i] for i in split[h][:limit]] for h in halves}


async def answers_of(world: World, turns: list[RecordedTurn], args: argparse.Namespace) -> list[JSONDict]:
    """The world model's answers to one recorded episode's calls, replayed in a fresh episode as ``score`` does."""
    if args.backend == "empty":
        return [dict(EMPTY) for _ in turns]
    async with Simulator.from_world(world, backend=args.backend, seed=args.seed, base_url=args.base_url,
                                    model=args.model) as sim:
        # ids the real classes made up are carried as the simulator's own (agentworld_mcp.sim2real.carry)
        return await replay_turns(turns, simulator_call(sim, "fidelity"), seed=world.seed)


async def run_variant(entries: list[JSONDict], typed: bool, args: argparse.Namespace) -> JSONDict:
    """Score one half in one variant: overall, per class and per tool.

    Each entry is evaluated with its own world's seed (what the initial state determines);
    the per-call figures are then summed up by tool, by class and overall with score's own summary."""
    rows: list[JSONDict] = []
    acknowledged = 0  # calls only acknowledged where the real class returned data
    takes_seed = "world_seed" in inspect.signature(evaluate).parameters
    with tempfile.TemporaryDirectory(prefix="fidelity-") as folder:
        for entry in entries:
            world_path, trajectory = bfcl_worlds.write_entry(entry, typed, Path(folder))
            episodes = read_episodes([trajectory])
            world = load_world(world_path)
            answers = {key: await answers_of(world, turns, args) for key, turns in episodes.items()}
            acknowledged += sum(acknowledged_data(turn.result, answer) for key, turns in episodes.items()
                                for turn, answer in zip(turns, answers[key]))
            extra = {"world_seed": world.seed} if takes_seed else {}
            rows += evaluate(world.name, episodes, answers, **extra)["turns"]
    owner = bfcl_worlds.tool_class()
    tools = summaries(rows, lambda row: row["tool"])
    worst = sorted(tools.items(), key=lambda kv: (kv[1]["score"], _mean_figure(kv[1]), -kv[1]["calls"], kv[0]))
    return {"entries": len(entries), "calls": len(rows), "acknowledged_data": acknowledged,
            "overall": summaries(rows, lambda row: "all")["all"],
            "classes": summaries(rows, lambda row: owner[row["tool"]]), "tools": tools,
            "worst_tools": [{"tool": name, "class": owner[name], **s} for name, s in worst[:WORST]]}


def summaries(rows: list[JSONDict], group: Any) -> dict[str, JSONDict]:
    """score's per-tool summary of the rows in each group."""
    figs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for name, value in row.items():
            if name not in ("episode", "turn", "tool") and isinstance(value, (int, float)):
                figs[group(row)][name].append(value)
    return {name: score._summary(f) for name, f in sorted(figs.items())}


def _mean_figure(summary: JSONDict) -> float:
    """The mean of the ratio figures: orders tools of equal score (0 when values disagree) by how near they came."""
    values = [summary[m] for m in score.METRICS if summary.get(m) is not None]
    return sum(values) / len(values) if values else 0.0


async def run(args: argparse.Namespace) -> JSONDict:
    halves = selected(args.half, args.limit)
    variants = ["typed", "bare"] if args.variant == "both" else [args.variant]
    results = {h: {v: await run_variant(entries, v == "typed", args) for v in variants} for h, entries in halves.items()}
    return {"benchmark": "bfcl multi_turn_base", "backend": args.backend, "model": args.model, "results": results}


def text_report(report: JSONDict) -> str:
    lines = [f"fidelity benchmark ({report['benchmark']}), backend {report['backend']}"
             + (f", model {report['model']}" if report["model"] else "")]
    for half, variants in report["results"].items():
        for variant, r in variants.items():
            o = r["overall"]
            lines += ["", f"== {half} / {variant}: {r['entries']} entries, {r['calls']} calls: "
                          f"score {o['score']:.3f}", "  " + _figures(o),
                      f"  calls only acknowledged where the real class returned data: {r['acknowledged_data']}"]
            lines.append("  per class:")
            lines += [f"    {name:<22} {s['calls']:>5} calls  score {s['score']:.3f}  {_figures(s)}"
                      for name, s in r["classes"].items()]
            lines.append(f"  {len(r['worst_tools'])} worst tools:")
            lines += [f"    {w['tool']:<28} {w['class']:<20} {w['calls']:>4} calls  score {w['score']:.3f}"
                      for w in r["worst_tools"]]
    return "\n".join(lines)


def _figures(summary: JSONDict) -> str:
    return "  ".join(f"{k} {'-' if v is None else v if isinstance(v, int) else f'{v:.2f}'}"
                     for k, v in summary.items()
                     if k not in ("calls", "score") and (v is None or isinstance(v, (int, float))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/fidelity.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=["dev", "eval", "both"], default="both")
    parser.add_argument("--variant", choices=["typed", "bare", "both"], default="both")
    parser.add_argument("--backend", choices=["schema", "llm", "empty"], default="schema",
                        help="the world model: the deterministic one, a language model, or the empty-answer floor")
    parser.add_argument("--base-url", default=None, help="llm: the OpenAI-compatible API root (else $AGENTWORLD_BASE_URL)")
    parser.add_argument("--model", default=None, help="llm: the model name (else $AGENTWORLD_MODEL)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="the first N entries of each half")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    try:
        report = asyncio.run(run(args))
    except bfcl_worlds.BenchmarkMissing as exc:
        print(f"fidelity.py: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1) if args.json else text_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
