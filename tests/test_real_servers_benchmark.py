"""benchmarks/real_servers.py scores the world model on recorded real servers, and the score can fail.

The empty-answer floor is measured by the same command: a world model that answers nothing
scores 0 on every server, so the deterministic model's figures are not an artefact of the
instrument.
"""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import ROOT


def _report(*args: str) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "real_servers.py"), "--json", *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_recorded_server_is_scored_and_the_empty_floor_scores_nothing() -> None:
    ours, floor = _report(), _report("--backend", "empty")
    manifest = json.loads((ROOT / "benchmarks" / "real_servers.json").read_text(encoding="utf-8"))["servers"]
    assert [r["name"] for r in ours["servers"]] == [s["name"] for s in manifest]
    assert {"dev", "eval"} <= set(ours["halves"])
    assert all(r["score"] == 0 for r in floor["servers"])
    assert ours["halves"]["dev"]["mean_score"] > floor["halves"]["dev"]["mean_score"]
