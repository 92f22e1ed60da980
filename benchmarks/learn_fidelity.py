"""How well a world learned from one recorded session answers a different one (issue 22).

For each real-server recording under tests/ground_truth (and the task manager's), the first episode
is learned with `agentworld-mcp learn` and the next one scored with `agentworld-mcp score`; a
recording with a single episode is split in half by turns (said so in the output: the second half
then starts from state the first half made). Prints the bare catalog's score, the learned world's,
and the learned world's without seed state (`learn --no-seed`).

    python benchmarks/learn_fidelity.py [RECORDING.jsonl ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = sorted((ROOT / "tests" / "ground_truth").glob("*.jsonl"))
CLI = [sys.executable, "-m", "agentworld_mcp"]


def _split(path: Path, out: Path) -> tuple[Path, Path, str]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    calls = [line for line in lines if "tool" in line or "agentworld" in line]
    episodes: dict[str, list[dict]] = {}
    for line in calls:
        episodes.setdefault(str(line.get("episode") or (line.get("agentworld") or {}).get("episode")), []).append(line)
    groups = list(episodes.values())
    how = "episodes"
    if len(groups) < 2:
        half = len(calls) // 2
        groups, how = [calls[:half], calls[half:]], "halves"
    catalog = path.with_name(path.stem + ".tools.json")
    for name in (path.stem, path.stem.removesuffix("_server")):
        if not catalog.exists():
            catalog = ROOT / "tests" / "catalogs" / f"{name}.json"
    files = []
    for tag, group in (("train", groups[0]), ("test", groups[1])):
        target = out / f"{path.stem}.{tag}.jsonl"
        target.write_text("".join(json.dumps(line) + "\n" for line in group))
        if catalog.exists():
            (out / f"{path.stem}.{tag}.tools.json").write_text(catalog.read_text())
        files.append(target)
    return files[0], files[1], how


def _score(test: Path, *world: str) -> float | None:
    done = subprocess.run([*CLI, "score", str(test), *world, "--json"], capture_output=True, text=True)
    return json.loads(done.stdout)["overall"]["score"] if done.returncode == 0 else None


def main(paths: list[Path]) -> None:
    print(f"{'recording':<24} {'split':<9} {'bare':>6} {'learned':>8} {'no-seed':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            train, test, how = _split(path, Path(tmp))
            row = []
            for flags in ((), ("--no-seed",)):
                world = Path(tmp) / f"{path.stem}{len(flags)}.yaml"
                done = subprocess.run([*CLI, "learn", str(train), "-o", str(world), *flags], capture_output=True, text=True)
                row.append(_score(test, "--world", str(world)) if done.returncode == 0 else None)
            cells = [_score(test), *row]
            print(f"{path.stem:<24} {how:<9} " + " ".join(f"{'-' if c is None else format(c, '.3f'):>8}" for c in cells))


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]] or DEFAULT)
