"""Bounded episode stores: ``--max-episodes`` and ``--episode-ttl``.

In memory, the least recently used idle episode is evicted past the bound (or after its TTL)
and its next call starts afresh from the seed state; with ``--state`` only the in-memory
cache is bounded and an evicted episode is read back from the file intact. An episode in use
is never evicted, and the per-episode locks live only as long as a call holds them.
"""

from __future__ import annotations

import asyncio

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.state.episode import Episode
from agentworld_mcp.errors import ConfigError
from agentworld_mcp.state.store import MemoryStore, SqliteStore

from .conftest import WORLDS, stdio_session

TRACKER = WORLDS / "issue-tracker.yaml"
SEEDED = 3  # issues in the tracker world's seed


class Clock:
    """An injected clock: time moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def world():
    return load_world(TRACKER)


async def issue_titles(sim: Simulator, episode: str) -> set[str]:
    result = await sim.call("list_issues", {}, episode=episode)
    return {i["title"] for i in result.structured["issues"]}


async def test_a_thousand_episodes_with_max_100_keep_100_in_memory_and_no_idle_locks(world):
    bounded, unbounded = MemoryStore(max_episodes=100), MemoryStore()
    for store in (bounded, unbounded):
        sim = Simulator(world, store=store)
        for n in range(1000):
            await sim.call("create_issue", {"title": f"issue {n}"}, episode=f"ep-{n}")
    assert len(await unbounded.ids()) == 1000  # the default keeps every episode
    assert len(await bounded.ids()) == 100
    assert await bounded.ids() == [f"ep-{n}" for n in range(900, 1000)]  # the most recently used
    assert bounded.evicted == 900
    assert bounded.locks_held == unbounded.locks_held == 0  # locks are freed with the call


async def test_an_evicted_memory_episode_starts_afresh_from_the_seed_state(world):
    sim = Simulator(world, store=MemoryStore(max_episodes=2))
    await sim.call("create_issue", {"title": "only in A"}, episode="A")
    assert "only in A" in await issue_titles(sim, "A")
    await sim.call("list_issues", {}, episode="B")
    await sim.call("list_issues", {}, episode="C")  # A is now the least recently used: evicted
    fresh = await issue_titles(sim, "A")
    assert "only in A" not in fresh and len(fresh) == SEEDED
    assert [t.index for t in await sim.trajectory("A")] == [1]


async def test_the_least_recently_used_goes_first_not_the_oldest(world):
    sim = Simulator(world, store=MemoryStore(max_episodes=2))
    await sim.call("create_issue", {"title": "in A"}, episode="A")
    await sim.call("create_issue", {"title": "in B"}, episode="B")
    await sim.call("list_issues", {}, episode="A")  # A used again: B is now the least recent
    await sim.call("list_issues", {}, episode="C")
    assert set(await sim.store.ids()) == {"A", "C"}
    assert "in A" in await issue_titles(sim, "A")


async def test_an_episode_in_use_is_never_evicted(world):
    store = MemoryStore(max_episodes=1)
    sim = Simulator(world, store=store)
    entered, release = asyncio.Event(), asyncio.Event()

    async def hold_a() -> None:
        async with store.session("A", lambda eid: Episode.new(world, eid, 0)) as episode:
            episode.state["marker"] = "kept"
            entered.set()
            await release.wait()

    holder = asyncio.create_task(hold_a())
    await entered.wait()
    for name in ("B", "C", "D"):  # each pushes past the bound while A is held
        await sim.call("list_issues", {}, episode=name)
    assert "A" in await store.ids() and store.locks_held == 1
    release.set()
    await holder
    assert await store.ids() == ["A"]  # the idle ones went, the held one kept what its call did
    assert (await store.get("A")).state["marker"] == "kept" and store.locks_held == 0


async def test_ttl_evicts_idle_episodes_by_the_injected_clock(world):
    clock = Clock()
    store = MemoryStore(episode_ttl=60, clock=clock)
    sim = Simulator(world, store=store)
    await sim.call("create_issue", {"title": "in A"}, episode="A")
    clock.now += 30
    await sim.call("create_issue", {"title": "in B"}, episode="B")
    clock.now += 40  # A idle 70 s (past the TTL), B idle 40 s
    assert await store.ids() == ["B"]
    assert "in B" in await issue_titles(sim, "B")
    clock.now += 61
    assert "in B" not in await issue_titles(sim, "B")  # B expired before this call: afresh


async def test_an_evicted_sqlite_episode_is_read_back_from_the_file_intact(tmp_path, world):
    store = SqliteStore(tmp_path / "state.db", world, max_episodes=2)
    sim = Simulator(world, store=store)
    created = await sim.call("create_issue", {"title": "kept in the file"}, episode="A")
    await sim.call("update_issue", {"issue_id": created.structured["id"], "status": "closed"}, episode="A")
    before = await sim.state("A")
    for name in ("B", "C", "D"):
        await sim.call("list_issues", {}, episode=name)
    assert store.cached_episodes == 2 and store.evicted >= 2
    assert set(await store.ids()) == {"A", "B", "C", "D"}  # the file keeps every episode
    assert await sim.state("A") == before
    assert [t.tool for t in await sim.trajectory("A")] == ["create_issue", "update_issue"]
    assert "kept in the file" in await issue_titles(sim, "A")
    assert store.locks_held == 0
    await sim.aclose()


async def test_sqlite_cache_ttl_by_the_injected_clock(tmp_path, world):
    clock = Clock()
    store = SqliteStore(tmp_path / "state.db", world, episode_ttl=10, clock=clock)
    sim = Simulator(world, store=store)
    await sim.call("create_issue", {"title": "in A"}, episode="A")
    clock.now += 11
    await sim.call("list_issues", {}, episode="B")
    assert store.cached_episodes == 1  # A left the cache, not the file
    assert "in A" in await issue_titles(sim, "A")
    await sim.aclose()


def test_bounds_must_be_positive():
    with pytest.raises(ConfigError, match="max_episodes"):
        MemoryStore(max_episodes=0)
    with pytest.raises(ConfigError, match="episode_ttl"):
        MemoryStore(episode_ttl=-1)


async def test_serve_max_episodes_over_stdio(tmp_path, tracker_world):
    async def titles_in(session, episode: str) -> set[str]:
        result = await session.call_tool("list_issues", {}, meta={"agentworld/episode": episode})
        return {i["title"] for i in result.structuredContent["issues"]}

    async with stdio_session(str(tracker_world), "--max-episodes", "2") as session:
        await session.call_tool("create_issue", {"title": "in A"}, meta={"agentworld/episode": "A"})
        await titles_in(session, "B")
        await titles_in(session, "C")
        assert "in A" not in await titles_in(session, "A")  # evicted from memory: afresh

    state = tmp_path / "state.db"
    async with stdio_session(str(tracker_world), "--state", str(state), "--max-episodes", "1",
                             "--episode-ttl", "3600") as session:
        await session.call_tool("create_issue", {"title": "in A"}, meta={"agentworld/episode": "A"})
        await titles_in(session, "B")
        assert "in A" in await titles_in(session, "A")  # evicted from the cache, read back from the file
