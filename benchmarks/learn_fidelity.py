"""How well a world learned from one recorded session answers a different one (issue 22).

For each real server with a held-out session (``tests/ground_truth/heldout/NAME.jsonl``, recorded by
``python -m tests.ground_truth.record_heldout NAME`` from the server's initial state, other entities
and values), a world is learned from the server's committed recording (the training session, the
one ``benchmarks/real_servers.json`` names) and scored with the honest ``score`` on the held-out
session, beside:

* ``bare``: the catalog alone;
* ``seeded``: the catalog with the seed state ``learn`` reads from the training session's answers
  (what a user giving the server's data as seed gets, no behaviour learned);
* ``learned``: ``agentworld-mcp learn TRAIN.jsonl``; ``no-seed``: ``learn --no-seed``.

Then, for the learned world, how its value checks went per provenance (``score``'s ``provenance``:
``argument`` copied from the call, ``lookup`` of an earlier answer or the seed, ``counter``, ``constant``,
``derived``): agreed/checked. Servers of the ``eval`` half are reported, never tuned on.

    python benchmarks/learn_fidelity.py [--json] [NAME ...]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp.sim2real.learn import learn_world  # noqa: E402
from agentworld_mcp.sim2real.score import score_files  # noqa: E402
from agentworld_mcp.world.world import load_world_data  # noqa: E402

HELDOUT = ROOT / "tests" / "ground_truth" / "heldout"
MANIFEST = ROOT / "benchmarks" / "real_servers.json"
#: Servers whose richer session of tests/ground_truth trains instead of the manifest's short one.
RICHER = {"filesystem": ("tests/ground_truth/filesystem.jsonl", "tests/catalogs/filesystem.json"),
          "memory": ("tests/ground_truth/memory.jsonl", "tests/catalogs/memory.json")}
KINDS = ("argument", "lookup", "counter", "constant", "derived")


def servers() -> list[dict[str, str]]:
    """Every server of the manifest that has a held-out session, with its training recording and catalog."""
    out = []
    for entry in json.loads(MANIFEST.read_text())["servers"]:
        heldout = HELDOUT / f"{entry['name']}.jsonl"
        if heldout.exists():
            recording, catalog = RICHER.get(entry["name"], (entry["recording"], entry["catalog"]))
            out.append({**entry, "recording": recording, "catalog": catalog, "heldout": str(heldout)})
    return out


def _catalog(path: str) -> dict[str, Any]:
    data = json.loads((ROOT / path).read_text())
    return {"tools": data} if isinstance(data, list) else data


async def measure(server: dict[str, str]) -> dict[str, Any]:
    train, catalog, test = str(ROOT / server["recording"]), str(ROOT / server["catalog"]), server["heldout"]
    learned, _ = learn_world([train], catalog=catalog, name=f"{server['name']}-learned")
    behaviour, _ = learn_world([train], catalog=catalog, name=f"{server['name']}-no-seed", seed=False)
    seeded = {**_catalog(server["catalog"]), "name": f"{server['name']}-seeded"}
    if learned.get("seed"):
        seeded["seed"] = learned["seed"]
    row: dict[str, Any] = {"server": server["name"], "half": server["half"]}
    with tempfile.TemporaryDirectory() as tmp:
        for column, data in (("bare", _catalog(server["catalog"])), ("seeded", seeded), ("learned", learned),
                             ("no-seed", behaviour)):
            world = load_world_data(data, source=str(Path(tmp) / f"{column}.json"))
            report = await score_files([test], world=world)
            row[column] = report["overall"]["score"]
            if column == "learned":
                row["provenance"] = report["overall"].get("provenance") or {}
                row["calls"] = report["calls"]
    return row


def main(argv: list[str]) -> None:
    as_json = "--json" in argv
    names = [a for a in argv if not a.startswith("--")]
    rows = [asyncio.run(measure(s)) for s in servers() if not names or s["name"] in names]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'server':<20} {'half':<5} {'calls':>5} {'bare':>6} {'seeded':>7} {'learned':>8} {'no-seed':>8}   "
          + " ".join(f"{k:>9}" for k in KINDS))
    for row in rows:
        prov = row["provenance"]
        cells = " ".join(f"{(str(prov[k]['agreed']) + '/' + str(prov[k]['checked'])) if k in prov else '-':>9}"
                         for k in KINDS)
        print(f"{row['server']:<20} {row['half']:<5} {row['calls']:>5} {row['bare']:>6.3f} {row['seeded']:>7.3f} "
              f"{row['learned']:>8.3f} {row['no-seed']:>8.3f}   {cells}")
    beats = [r for r in rows if r["learned"] > max(r["bare"], r["seeded"])]
    print(f"learned world >= 0.9 on {sum(r['learned'] >= 0.9 for r in rows)}/{len(rows)} held-out sessions; "
          f"beats bare and seeded on {len(beats)}/{len(rows)}")


if __name__ == "__main__":
    main(sys.argv[1:])
