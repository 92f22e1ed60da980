"""A learned world answers every valid call without a crash (issue 22, item 6), fuzzed as the catalog fuzz test
fuzzes the catalogs (tests/test_fuzz_catalogs.py).

For each recorded real server of the development half (benchmarks/real_servers.json) and a few BFCL classes
recorded as sessions (benchmarks/learn_bfcl.py), a world is learned from the recording with ``learn``'s own
library call (what ``agentworld-mcp learn`` runs), written as the CLI writes it, and served with
``agentworld-mcp serve``. A real MCP client over stdio then calls every tool with valid arguments: the
recording's own ones (they reach the learned rules, templates and seeded entities) and hypothesis-jsonschema's
(derandomized; the project's generator where it cannot draw), with invalid ones beside them. The checks are the
catalog fuzz test's: no JSON-RPC error, no hang, no simulator error (the ``[agentworld-mcp simulator error``
marker), invalid arguments refused as invalid, and every ``structuredContent`` valid for the ``outputSchema``.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentworld_mcp.sim2real.learn import learn_world, write_learned

from .conftest import stdio_session
from .realism.sweep import arguments_for
from .test_fuzz_catalogs import FuzzReport, ToolPlan, _validator, draw_examples, fire, invalid_variants

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "real_servers.json"
#: Drawn valid calls per tool, beside the recording's own (a few seconds per server in all).
DRAWN_PER_TOOL = 4
#: BFCL classes fuzzed (learned from their development-half sessions); stateful ones with creates and refusals.
BFCL_CLASSES = ("TicketAPI", "MathAPI", "TradingBot")
INSTALL = "pip install --no-deps bfcl-eval mpmath"
JSONDict = dict[str, Any]


def dev_servers() -> list[JSONDict]:
    return [s for s in json.loads(MANIFEST.read_text(encoding="utf-8"))["servers"] if s["half"] == "dev"]


def recorded_arguments(recording: Path) -> dict[str, list[JSONDict]]:
    """Each tool's recorded arguments, in order, once each."""
    out: dict[str, list[JSONDict]] = {}
    for line in recording.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        data = json.loads(line)
        turn = data.get("agentworld", data)
        tool, arguments = turn.get("tool"), turn.get("arguments")
        if isinstance(tool, str) and isinstance(arguments, dict) and arguments not in out.setdefault(tool, []):
            out[tool].append(arguments)
    return out


def plans_for(name: str, world: JSONDict, recorded: dict[str, list[JSONDict]]) -> list[ToolPlan]:
    """Every tool's valid calls (recorded, then drawn) and two invalid ones."""
    plans = []
    for tool in world["tools"]:
        schema = tool.get("inputSchema") or {"type": "object"}
        try:
            drawn = draw_examples(schema, DRAWN_PER_TOOL)
        except Exception:  # noqa: BLE001 - a format or regex hypothesis-jsonschema cannot draw: our generator
            drawn = [arguments_for(name, tool, index) for index in range(DRAWN_PER_TOOL)]
        checker = _validator(schema)
        valid = [a for a in [*recorded.get(tool["name"], []), *drawn] if checker.is_valid(a)] or [{}]
        plans.append(ToolPlan(tool, valid, invalid_variants(schema, valid[0])))
    return plans


async def fuzzed(name: str, world: JSONDict, recorded: dict[str, list[JSONDict]], folder: Path) -> FuzzReport:
    path = write_learned(folder / f"{name}.learned.json", world)
    plans = plans_for(name, world, recorded)
    async with stdio_session(str(path)) as session:
        report = await fire(session, "stdio", plans)
    report.calls and print(f"  {name}: {len(plans)} tools, {report.calls} calls, {report.refused} refused as "
                           f"invalid, {report.tool_errors} tool errors, {len(report.problems)} problems")
    assert report.refused == sum(len(p.invalid) for p in plans), name
    return report


def assert_no_problems(reports: list[FuzzReport]) -> None:
    problems = [f"{r.transport}: {p}" for r in reports for p in r.problems]
    kinds = Counter(p.kind for r in reports for p in r.problems)
    assert problems == [], f"{len(problems)} problems {dict(kinds)}:\n" + "\n".join(problems[:25])


@pytest.mark.slow  # minutes: every recorded server learned and fuzzed (the long tier; CI runs it)
async def test_worlds_learned_from_the_recorded_real_servers_answer_fuzzed_calls_without_a_crash(
        tmp_path: Path) -> None:
    servers = dev_servers()
    assert len(servers) >= 8, "the manifest lost its development servers"
    reports = []
    for server in servers:
        recording = ROOT / server["recording"]
        world, _ = learn_world([str(recording)], catalog=str(ROOT / server["catalog"]), name=f"{server['name']}-learned")
        reports.append(await fuzzed(server["name"], world, recorded_arguments(recording), tmp_path))
    assert_no_problems(reports)
    assert sum(r.calls for r in reports) >= 500  # a manifest or catalog that lost its tools would pass vacuously


@pytest.mark.slow  # every BFCL class learned and fuzzed (the long tier; CI runs it)
async def test_worlds_learned_from_bfcl_classes_as_sessions_answer_fuzzed_calls_without_a_crash(
        tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval", reason=f"bfcl-eval is not installed; install it with: {INSTALL}")
    pytest.importorskip("mpmath", reason=f"mpmath is not installed; install it with: {INSTALL}")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        bench = importlib.import_module("learn_bfcl")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    split = json.loads(bench.SPLIT.read_text(encoding="utf-8"))
    by_id = {entry["id"]: entry for entry in bench.bfcl_worlds.entries()}
    dev = [by_id[i] for i in split["dev"]]
    reports = []
    for cls in BFCL_CLASSES:
        for typed in (False, True):
            name = f"{cls}-{'typed' if typed else 'bare'}"
            catalog = tmp_path / f"{name}.catalog.json"
            catalog.write_text(json.dumps(bench.catalog_of(cls, typed)), encoding="utf-8")
            recording = tmp_path / f"{name}.jsonl"
            bench._write_jsonl(recording, [line for _, lines in bench.sessions(cls, dev, typed) for line in lines])
            world, _ = learn_world([str(recording)], catalog=str(catalog), name=name, seed=False)
            reports.append(await fuzzed(name, world, recorded_arguments(recording), tmp_path))
    assert_no_problems(reports)
    assert sum(r.calls for r in reports) >= 300
