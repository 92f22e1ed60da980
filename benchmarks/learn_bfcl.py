"""BFCL's executable classes as recorded sessions: learn a world per class from development-half entries,
score it on evaluation-half entries of the same class (issue 22).

For each of BFCL's eight classes (``bfcl_worlds.CLASSES``), every multi_turn_base entry that involves it
is a session of that class: the entry's ground-truth calls to the class's tools, executed on the real
class loaded with the entry's initial state (``bfcl_worlds.real_trajectory``). The entries are split as
the fidelity benchmark splits them (``benchmarks/bfcl_split.json``):

* the class's **development** sessions are recorded into one file and ``learn --no-seed`` reads them
  (their states are other entries' states: only behaviour is learned);
* each **evaluation** session is replayed with the honest ``score`` against

  - ``bare``: the class's catalog alone;
  - ``seeded``: the catalog with the entry's initial state as seed (what the fidelity benchmark does);
  - ``learned``: the learned world;
  - ``learned+seed``: the learned world with the entry's initial state as seed.

Every column is judged with the same determined values (the entry's initial state counts as determined),
and the per-call figures are summed up per class with ``score``'s own summary.

    python benchmarks/learn_bfcl.py [--variant bare|typed] [--half eval|dev] [--json] [CLASS ...]

``--half dev`` learns from half the development entries and scores on the other half: develop the
learner against that, and report the default (evaluation entries), never looked at while developing.

Needs BFCL's classes: ``pip install --no-deps bfcl-eval mpmath``.
"""

from __future__ import annotations

import argparse
import asyncio
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
from agentworld_mcp.sim2real import score  # noqa: E402
from agentworld_mcp.sim2real.learn import learn_world  # noqa: E402
from agentworld_mcp.sim2real.score import evaluate, read_episodes, simulate  # noqa: E402
from agentworld_mcp.world.world import load_world_data  # noqa: E402

JSONDict = dict[str, Any]
SPLIT = HERE / "bfcl_split.json"
COLUMNS = ("bare", "seeded", "learned", "learned+seed")


def sessions(cls: str, entries: list[JSONDict], typed: bool) -> list[tuple[JSONDict, list[JSONDict]]]:
    """Each entry involving ``cls`` with its real calls to ``cls``'s tools (entries with none left out)."""
    owner = bfcl_worlds.tool_class()
    out = []
    for entry in entries:
        if cls not in entry["involved_classes"]:
            continue
        lines = [line for line in bfcl_worlds.real_trajectory(entry, typed) if owner.get(line["tool"]) == cls]
        for number, line in enumerate(lines, 1):
            line["turn"] = number
        if lines:
            out.append((entry, lines))
    return out


def catalog_of(cls: str, typed: bool) -> JSONDict:
    return {"name": f"bfcl-{cls}", "tools": [bfcl_worlds.tool_of(d, typed) for d in bfcl_worlds.function_docs()[cls]]}


def seed_of(cls: str, entry: JSONDict) -> dict[str, list[JSONDict]]:
    if cls in bfcl_worlds.STATELESS:
        return {}
    return bfcl_worlds.seed_of({cls: entry["initial_config"].get(cls, {})})


def _write_jsonl(path: Path, lines: list[JSONDict]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


async def measure(cls: str, dev: list[JSONDict], evaluation: list[JSONDict], typed: bool) -> JSONDict:
    train, test = sessions(cls, dev, typed), sessions(cls, evaluation, typed)
    catalog = catalog_of(cls, typed)
    rows: dict[str, list[JSONDict]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="learn-bfcl-") as tmp:
        folder = Path(tmp)
        catalog_path = folder / "catalog.json"
        catalog_path.write_text(json.dumps(catalog), encoding="utf-8")
        recording = _write_jsonl(folder / "train.jsonl", [line for _, lines in train for line in lines])
        learned, summary = learn_world([str(recording)], catalog=str(catalog_path), name=f"bfcl-{cls}-learned",
                                       seed=False)
        for entry, lines in test:
            seed = seed_of(cls, entry)
            episodes = read_episodes([_write_jsonl(folder / f"{entry['id']}.jsonl", lines)])
            worlds = {"bare": catalog, "seeded": {**catalog, "seed": seed}, "learned": learned,
                      "learned+seed": {**learned, "seed": seed}}
            determined = load_world_data({**catalog, "seed": seed}, source="seeded.json").seed
            for column, data in worlds.items():
                world = load_world_data(data, source=str(folder / f"{column}.json"))
                answers = await simulate(world, episodes)
                rows[column] += evaluate(world.name, episodes, answers, world_seed=determined)["turns"]
    out: JSONDict = {"class": cls, "dev_sessions": len(train), "eval_sessions": len(test),
                     "calls": len(rows["bare"]), "learned_from": summary}
    for column in COLUMNS:
        out[column] = summary_of(rows[column])["score"] if rows[column] else None
    return out


def summary_of(rows: list[JSONDict]) -> JSONDict:
    """score's summary of per-call rows."""
    figs: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for name, value in row.items():
            if name not in ("episode", "turn", "tool") and isinstance(value, (int, float)):
                figs[name].append(value)
    return score._summary(figs)


def halves(half: str) -> tuple[list[JSONDict], list[JSONDict]]:
    """The entries learned from and the entries scored on.

    ``eval`` (the figure to report): learn from the development half, score on the evaluation half.
    ``dev`` (the one to develop against): the development half alone, its even positions learned from and
    its odd positions scored on, so the learner can be improved without looking at evaluation entries."""
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    by_id = {entry["id"]: entry for entry in bfcl_worlds.entries()}
    dev = [by_id[i] for i in split["dev"]]
    if half == "dev":
        return dev[0::2], dev[1::2]
    return dev, [by_id[i] for i in split["eval"]]


async def run(classes: list[str], typed: bool, half: str = "eval") -> list[JSONDict]:
    learn_from, score_on = halves(half)
    return [await measure(cls, learn_from, score_on, typed) for cls in classes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/learn_bfcl.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("classes", nargs="*", metavar="CLASS", help="BFCL classes (default: all eight)")
    parser.add_argument("--variant", choices=["bare", "typed"], default="bare",
                        help="bare: tools without outputSchema (what learn reads shapes for); typed: with")
    parser.add_argument("--half", choices=["dev", "eval"], default="eval",
                        help="eval: learn from dev entries, score on eval entries (report this); "
                             "dev: learn from half the dev entries, score on the other half (develop on this)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    unknown = [c for c in args.classes if c not in bfcl_worlds.CLASSES]
    if unknown:
        parser.error(f"unknown class {', '.join(unknown)}; one of {', '.join(bfcl_worlds.CLASSES)}")
    try:
        rows = asyncio.run(run(args.classes or list(bfcl_worlds.CLASSES), args.variant == "typed", args.half))
    except bfcl_worlds.BenchmarkMissing as exc:
        print(f"learn_bfcl.py: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    where = "half the dev entries, scored on the other half" if args.half == "dev" else "dev entries, scored on eval entries"
    print(f"BFCL classes as sessions ({args.variant} variant): learned from {where}")
    print(f"{'class':<20} {'dev':>4} {'eval':>5} {'calls':>6} " + " ".join(f"{c:>12}" for c in COLUMNS))
    for row in rows:
        cells = " ".join(f"{'-' if row[c] is None else format(row[c], '.3f'):>12}" for c in COLUMNS)
        print(f"{row['class']:<20} {row['dev_sessions']:>4} {row['eval_sessions']:>5} {row['calls']:>6} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
