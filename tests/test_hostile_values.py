"""Hostile values over every tool of the realism catalogs: never a protocol error, a hang or a crash.

Each tool of the 16 real catalogs gets calls whose arguments are valid in shape but hostile in
value (tests/realism/hostile.py: 20,000-character and empty strings, control characters, emoji
and right-to-left marks, injection- and traversal-shaped text, 2**63 and 1e308, lists repeated
200 times). The simulated tool may refuse them; the simulator must answer every one, in time,
with schema-valid structuredContent and without a failure of its own.
"""

from __future__ import annotations

import asyncio

import pytest

from .realism.harness import CATALOGS
from .realism.hostile import hostile_arguments
from .realism.sweep import SweepReport, sweep

CALLS_PER_TOOL = 2


@pytest.mark.slow  # every tool of every catalog (the long tier; CI runs it)
async def test_every_tool_of_every_catalog_survives_hostile_values() -> None:
    names = sorted(p.stem for p in CATALOGS.glob("*.json"))
    reports: list[SweepReport] = await asyncio.gather(
        *(sweep(name, calls=CALLS_PER_TOOL, make=hostile_arguments) for name in names))
    calls = sum(r.calls for r in reports)
    problems = [str(p) for r in reports for p in r.problems]
    assert calls >= 900, f"only {calls} calls were made"
    assert problems == [], f"{len(problems)} problems in {calls} hostile calls:\n" + "\n".join(problems[:20])
