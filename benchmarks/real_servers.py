"""Fidelity on recorded real MCP servers: the honest ``score`` of the world model, server by server.

    python benchmarks/real_servers.py [--half dev|eval|both] [--server NAME ...] [--manifest FILE]
                                      [--backend schema|llm|empty] [--base-url URL --model NAME] [--json]

Each server in ``benchmarks/real_servers.json`` is a real MCP server that runs offline, a
catalog it listed and a session it answered (recorded with ``tests/ground_truth/record_session.py``
or the realism recorder; the commands are in ``tests/realism/catalogs/SOURCES.md``). Its calls
are replayed against the bare catalog with the chosen world model and scored with
``agentworld_mcp.sim2real.score``, which compares values the episode determined, keys at
every depth, types and outcomes (docs/sim-to-real.md).

``dev`` servers are those the built-in model was developed against; ``eval`` servers were
recorded and never tuned on: report both. ``ACKED`` counts the calls the simulator only acknowledged
("X completed successfully") where the real server answered with data: the issue's "never acknowledge a
data-returning tool", measured. ``--backend empty`` answers every call with an empty
object, the floor any world model must beat, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp.sim2real.fidelity import acknowledged_data  # noqa: E402
from agentworld_mcp.sim2real.score import combined, evaluate, read_episodes  # noqa: E402
from agentworld_mcp.world.world import load_world  # noqa: E402

JSONDict = dict[str, Any]
MANIFEST = HERE / "real_servers.json"
EMPTY: JSONDict = {"content": [{"type": "text", "text": "{}"}], "isError": False}


async def score_server(server: JSONDict, args: argparse.Namespace) -> JSONDict:
    from agentworld_mcp import Simulator
    from agentworld_mcp.sim2real.carry import replay_turns
    from agentworld_mcp.sim2real.score import simulator_call

    world = load_world(ROOT / server["catalog"])
    episodes = read_episodes([ROOT / server["recording"]])
    answers: dict[str, list[JSONDict]] = {}
    for key, turns in episodes.items():
        out: list[JSONDict] = []
        if args.backend == "empty":
            out = [dict(EMPTY) for _ in turns]
        else:
            async with Simulator.from_world(world, backend=args.backend, seed=0, base_url=args.base_url,
                                            model=args.model) as sim:  # server-made ids carried as score does
                out = await replay_turns(turns, simulator_call(sim, "real"), seed=world.seed)
        answers[key] = out
    report = evaluate(world.name, episodes, answers, world_seed=world.seed)
    overall = report["overall"]
    acknowledged = sum(acknowledged_data(turn.result, answer) for key, turns in episodes.items()
                       for turn, answer in zip(turns, answers[key]))
    return {"name": server["name"], "kind": server["kind"], "half": server["half"], "calls": overall["calls"],
            "score": combined(overall), **{k: overall.get(k) for k in (
                "is_error_agreement", "value_agreement", "key_recall", "type_agreement", "text_similarity")},
            "acknowledged_data": acknowledged}


async def run(args: argparse.Namespace) -> JSONDict:
    servers = json.loads(Path(args.manifest).read_text(encoding="utf-8"))["servers"]
    chosen = [s for s in servers if args.half in ("both", s["half"]) and (not args.server or s["name"] in args.server)]
    rows = [await score_server(server, args) for server in chosen]
    halves = {}
    for half in ("dev", "eval"):
        mine = [r for r in rows if r["half"] == half]
        if mine:  # each server counts once, whatever its number of calls
            halves[half] = {"servers": len(mine), "mean_score": round(sum(r["score"] for r in mine) / len(mine), 3),
                            "acknowledged_data": sum(r["acknowledged_data"] for r in mine)}
    return {"benchmark": "recorded real servers", "backend": args.backend, "servers": rows, "halves": halves}


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def text_report(report: JSONDict) -> str:
    lines = [f"{'SERVER':22} {'KIND':34} {'HALF':5} {'CALLS':>5} {'ISERROR':>7} {'VALUES':>6} {'KEYS':>5} "
             f"{'TYPES':>5} {'TEXT':>5} {'SCORE':>6} {'ACKED':>5}"]
    for r in report["servers"]:
        lines.append(f"{r['name']:22} {r['kind']:34} {r['half']:5} {r['calls']:>5} {_cell(r['is_error_agreement']):>7} "
                     f"{_cell(r['value_agreement']):>6} {_cell(r['key_recall']):>5} {_cell(r['type_agreement']):>5} "
                     f"{_cell(r['text_similarity']):>5} {r['score']:>6.3f} {r['acknowledged_data']:>5}")
    for half, h in report["halves"].items():
        lines.append(f"{half}: {h['servers']} servers, mean score {h['mean_score']:.3f}; "
                     f"{h['acknowledged_data']} calls acknowledged where the real answer carried data")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("dev", "eval", "both"), default="both")
    parser.add_argument("--server", nargs="+", metavar="NAME", help="score only these servers (names in the manifest)")
    parser.add_argument("--manifest", default=str(MANIFEST), help="the servers to score (default: %(default)s)")
    parser.add_argument("--backend", choices=("schema", "llm", "empty"), default="schema",
                        help="the world model: the deterministic one, a language model, or the empty-answer floor")
    parser.add_argument("--base-url", help="llm: the OpenAI-compatible API root (else $AGENTWORLD_BASE_URL)")
    parser.add_argument("--model", help="llm: the model name (else $AGENTWORLD_MODEL)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args))
    print(json.dumps(report, indent=2) if args.json else text_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
