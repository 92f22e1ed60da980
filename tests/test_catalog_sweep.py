"""Every tool of every catalog in the realism set answers generated calls like a tool.

For each catalog of ``tests/realism/catalogs`` one ``agentworld-mcp serve`` process and a
real MCP client over stdio; each tool gets ten calls with valid arguments generated from
its ``inputSchema`` (seeded, so a failure replays). However odd the arguments, the answer
is a tool result: never a JSON-RPC error, never a hang, never the simulator's own error,
and ``structuredContent`` that validates against the tool's ``outputSchema``
(``tests/realism/sweep.py``).
"""

from __future__ import annotations

import asyncio

import pytest

from tests.realism.episodes import EPISODES
from tests.realism.sweep import CALLS, SweepReport, sweep, tools_of

#: The long tier (CI runs it: ``python -m pytest -m slow``): a server per catalog, ten calls per tool, half a minute.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sweeps() -> list[SweepReport]:
    """The sweep of every catalog, run once (catalogs concurrently, one server each)."""
    async def all_catalogs() -> list[SweepReport]:
        return list(await asyncio.gather(*(sweep(name) for name in sorted(EPISODES))))
    return asyncio.run(all_catalogs())


def _report(sweeps: list[SweepReport], kind: str) -> str:
    lines = [r.summary() for r in sweeps]
    lines += [f"  {p}" for r in sweeps for p in r.problems if p.kind == kind][:40]
    return "\n".join(lines)


def test_every_tool_of_every_catalog_is_called_ten_times(sweeps: list[SweepReport]) -> None:
    assert {r.catalog: r.calls for r in sweeps} == {name: CALLS * len(tools_of(name)) for name in sorted(EPISODES)}


def test_no_call_is_answered_with_a_protocol_error(sweeps: list[SweepReport]) -> None:
    assert sum(r.count("protocol") for r in sweeps) == 0, _report(sweeps, "protocol")


def test_no_call_hangs(sweeps: list[SweepReport]) -> None:
    assert sum(r.count("hang") for r in sweeps) == 0, _report(sweeps, "hang")


def test_no_call_hits_a_simulator_error(sweeps: list[SweepReport]) -> None:
    """A bug caught by the engine reaches the agent as a tool error: still a bug."""
    assert sum(r.count("simulator") for r in sweeps) == 0, _report(sweeps, "simulator")


def test_every_structured_answer_validates_against_the_output_schema(sweeps: list[SweepReport]) -> None:
    assert sum(r.count("schema") for r in sweeps) == 0, _report(sweeps, "schema")
