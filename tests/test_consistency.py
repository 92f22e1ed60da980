"""The consistency suite: scripted episodes through a real MCP client, 100% of checks passing.

Worlds: the example worlds (an id-keyed REST tracker, a file store keyed by path, a
knowledge graph keyed by entity name) and the official memory and filesystem servers'
own catalogs as bare worlds. Each episode creates, reads back, updates, lists, deletes
and reads what it deleted (see tests/scenarios.py). Then 20 episodes run at once on one
server, selected by ``_meta`` over stdio and by header over HTTP, and none sees another's
entities, nor the shared default world theirs.
"""

from __future__ import annotations

import asyncio

import pytest

from agentworld_mcp import Simulator, load_world

from .conftest import http_server, http_session, stdio_session
from .scenarios import SCENARIOS, TAG_MARK, Check, failures, run_scenario, structured, text

NAMES = list(SCENARIOS)
PARALLEL = 20
META_EPISODE = "agentworld/episode"


def _summary(checks: list[Check]) -> str:
    return f"{sum(c.ok for c in checks)}/{len(checks)} checks passed\n{failures(checks)}"


@pytest.mark.parametrize("name", NAMES)
async def test_scenario_over_stdio(name):
    world, _ = SCENARIOS[name]
    async with stdio_session(str(world)) as session:
        checks = await run_scenario(name, session.call_tool)
    assert len(checks) > 30
    assert all(c.ok for c in checks), _summary(checks)


async def _default_world_untouched(session) -> list[str]:
    """What the shared default episode lists, by each world's listing tool."""
    seen: list[str] = []
    tools = {t.name for t in (await session.list_tools()).tools}
    for tool, args in (("list_issues", {}), ("read_graph", {}), ("list_directory", {"path": "/workspace"}),
                       ("search_files", {"path": "/", "pattern": "**"})):
        if tool not in tools:
            continue
        result = await session.call_tool(tool, args)
        if result.isError:
            continue
        data = structured(result)
        items = (data or {}).get("issues") or (data or {}).get("entities") or []
        seen += [str(i.get("title") or i.get("name")) for i in items] + text(result).splitlines()
    return seen


@pytest.mark.parametrize("name", NAMES)
async def test_twenty_parallel_episodes_over_stdio_meta(name):
    world, _ = SCENARIOS[name]
    async with stdio_session(str(world)) as session:

        async def episode(i: int) -> list[Check]:
            tag = f"{TAG_MARK}{i:02d}"

            async def call(tool, args):
                return await session.call_tool(tool, args, meta={META_EPISODE: tag})

            return await run_scenario(name, call, tag)

        results = await asyncio.gather(*(episode(i) for i in range(PARALLEL)))
        default_view = await _default_world_untouched(session)
    checks = [c for episode_checks in results for c in episode_checks]
    assert all(c.ok for c in checks), _summary(checks)
    assert any(c.name.startswith("no cross-talk") for c in checks)
    assert not [v for v in default_view if TAG_MARK in v], "the default world saw episode entities"


@pytest.mark.parametrize("name", ["issue-tracker"])  # the header path is world-independent; stdio covers all
async def test_twenty_parallel_episodes_over_http_header(name):
    world, _ = SCENARIOS[name]
    with http_server(str(world)) as url:

        async def episode(i: int) -> list[Check]:
            tag = f"{TAG_MARK}{i:02d}"
            async with http_session(url, headers={"x-agentworld-episode": tag}) as session:
                return await run_scenario(name, session.call_tool, tag)

        results = await asyncio.gather(*(episode(i) for i in range(PARALLEL)))
        async with http_session(url) as session:
            default_view = await _default_world_untouched(session)
    checks = [c for episode_checks in results for c in episode_checks]
    assert all(c.ok for c in checks), _summary(checks)
    assert not [v for v in default_view if TAG_MARK in v], "the default world saw episode entities"


async def test_the_default_world_is_shared_between_connections(tracker_world):
    """Without an episode id every connection sees one world, as with a real backend."""
    with http_server(str(tracker_world)) as url:
        async with http_session(url) as first:
            created = (await first.call_tool("create_issue", {"title": "Shared"})).structuredContent
        async with http_session(url) as second:
            read = await second.call_tool("get_issue", {"issue_id": created["id"]})
    assert not read.isError and read.structuredContent == created


@pytest.mark.parametrize("name", NAMES)
async def test_same_seed_same_calls_same_bytes(name):
    """Two fresh simulators, same seed, same calls: every result byte-identical."""
    world = load_world(SCENARIOS[name][0])
    transcripts = []
    for _ in range(2):
        sim = Simulator(world, seed=11)
        transcript: list[str] = []

        async def call(tool, args, sim=sim, transcript=transcript):
            result = await sim.call(tool, args, episode="replay")
            transcript.append(repr(result.to_dict()))
            return result

        checks = await run_scenario(name, call, f"{TAG_MARK}01")
        assert all(c.ok for c in checks), _summary(checks)
        transcripts.append(transcript)
    assert transcripts[0] == transcripts[1]
