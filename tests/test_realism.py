"""The realism development set: real catalogs, episodes checked against the services' docs.

Sixteen catalogs mirrored from real MCP servers (``tests/realism/catalogs``, sources in
``SOURCES.md``) are each served by ``agentworld-mcp serve`` and driven through a scripted
create -> read -> update -> list -> delete episode by a real MCP client over stdio; every
check is what a client of the real service relies on (``tests/realism/episodes.py``).
Six catalogs also have answers recorded from the real servers (``ground_truth/``).

The share of checks that hold is the model's realism; it may only go up. ``REALISM_FLOOR``
is the ratio measured when it was last raised, rounded down to 0.01. Run
``python -m tests.realism`` for the table and the list of failing checks.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.realism.episodes import EPISODES
from tests.realism.ground_truth import load
from tests.realism.harness import CATALOGS, CatalogReport, ratio, run_all, score

REALISM_FLOOR = 0.96
GROUND_TRUTH = sorted(name for name in EPISODES if load(name))


@pytest.fixture(scope="module")
def reports() -> dict[str, CatalogReport]:
    """Every episode played once against the simulator (catalogs run concurrently)."""
    return {r.catalog: r for r in asyncio.run(run_all())}


def test_the_development_set_has_at_least_twelve_real_catalogs_each_with_a_recorded_source() -> None:
    sources = (CATALOGS / "SOURCES.md").read_text()
    catalogs = sorted(p.stem for p in CATALOGS.glob("*.json"))
    assert len(catalogs) >= 12
    assert sorted(EPISODES) == catalogs, "every catalog has exactly one episode"
    assert [c for c in catalogs if f"`{c}.json`" not in sources] == []
    uncited = [c.what for e in EPISODES.values() for st in e.steps for c in st.checks if not c.doc.startswith("https://")]
    assert uncited == [], "every check cites the public doc it comes from"


@pytest.mark.parametrize("name", sorted(EPISODES))
def test_the_catalog_loads_and_serves_every_tool(reports: dict[str, CatalogReport], name: str) -> None:
    report = reports[name]
    assert report.error is None, report.error
    expected = [tool["name"] for tool in json.loads((CATALOGS / f"{name}.json").read_text())["tools"]]
    assert report.listed == expected


@pytest.mark.parametrize("name", GROUND_TRUTH)
def test_the_documented_checks_hold_on_the_real_servers_answers(name: str) -> None:
    """The checks are right: what the real server answered passes every one of them."""
    failing = [f"step {o.step} {o.tool}: {o.what}: {o.reason}" for o in score(EPISODES[name], load(name))
               if not o.holds]
    assert failing == []


def test_there_is_ground_truth_from_real_servers() -> None:
    assert len(GROUND_TRUTH) >= 4


def test_realism_is_at_least_the_floor(reports: dict[str, CatalogReport]) -> None:
    passed, total = ratio(list(reports.values()))
    table = "\n".join(f"  {r.catalog}: {r.passed}/{r.total}" for r in reports.values())
    assert passed / total >= REALISM_FLOOR, (
        f"realism: {passed}/{total} checks hold ({passed / total:.2f}) < floor {REALISM_FLOOR}\n{table}\n"
        "run `python -m tests.realism` for the failing checks")


def test_the_command_prints_the_table_and_the_overall_ratio() -> None:
    """``python -m tests.realism CATALOG`` is how the figures in docs/realism.md are made."""
    out = subprocess.run([sys.executable, "-m", "tests.realism", "--quiet", "postgres"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert re.search(r"^postgres\s+\d+/6\b", out, re.MULTILINE), out
    assert re.search(r"^realism: \d+/6 checks hold \(\d\.\d\d\)$", out, re.MULTILINE), out
