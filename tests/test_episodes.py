"""Episodes: every way of naming one isolates its world, under concurrency too.

An episode comes from the tool call's ``_meta`` ("agentworld/episode"), the HTTP header
``x-agentworld-episode``, the URL query ``?episode=``, ``--episode`` on the command line, or
the Python API. Inspection and reset go through ``agentworld-mcp episodes`` and, on the HTTP
transport with ``--admin``, through ``/admin/episodes``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess

import httpx

from agentworld_mcp import Simulator, load_world

from .conftest import CLI, WORLDS, http_server, http_session, stdio_session

TRACKER = WORLDS / "issue-tracker.yaml"
SEEDED = 3  # issues in the tracker world's seed


def titles(result) -> set[str]:
    return {i["title"] for i in result.structuredContent["issues"]}


async def test_meta_episode_over_stdio_isolates_worlds(tracker_world):
    async with stdio_session(str(tracker_world)) as session:
        await session.call_tool("create_issue", {"title": "only in A"}, meta={"agentworld/episode": "A"})
        a = await session.call_tool("list_issues", {}, meta={"agentworld/episode": "A"})
        b = await session.call_tool("list_issues", {}, meta={"agentworld/episode": "B"})
        shared = await session.call_tool("list_issues", {})
    assert "only in A" in titles(a)
    assert "only in A" not in titles(b) and "only in A" not in titles(shared)
    assert len(titles(b)) == SEEDED


async def test_header_and_query_select_episodes_over_http(tracker_world):
    with http_server(str(tracker_world)) as url:
        async with http_session(url, headers={"x-agentworld-episode": "by-header"}) as session:
            await session.call_tool("create_issue", {"title": "header issue"})
        async with http_session(url + "?episode=by-query") as session:
            await session.call_tool("create_issue", {"title": "query issue"})
        async with http_session(url + "?episode=by-header") as session:  # same episode, other door
            seen_by_header = titles(await session.call_tool("list_issues", {}))
        async with http_session(url, headers={"x-agentworld-episode": "by-query"}) as session:
            seen_by_query = titles(await session.call_tool("list_issues", {}))
            # _meta wins over the header: a client can address any episode per call
            meta_default = titles(await session.call_tool("list_issues", {}, meta={"agentworld/episode": "fresh"}))
        async with http_session(url) as session:
            shared = titles(await session.call_tool("list_issues", {}))
    assert "header issue" in seen_by_header and "query issue" not in seen_by_header
    assert "query issue" in seen_by_query and "header issue" not in seen_by_query
    assert len(meta_default) == SEEDED and len(shared) == SEEDED


async def test_cli_episode_flag_on_serve_and_call(tmp_path, tracker_world):
    state = tmp_path / "state.db"
    async with stdio_session(str(tracker_world), "--state", str(state), "--episode", "cli-ep") as session:
        await session.call_tool("create_issue", {"title": "from serve"})
    out = subprocess.run([*CLI, "call", str(tracker_world), "list_issues", "--state", str(state), "--episode", "cli-ep"],
                         capture_output=True, text=True, check=True)
    assert "from serve" in {i["title"] for i in json.loads(out.stdout)["structuredContent"]["issues"]}
    default = subprocess.run([*CLI, "call", str(tracker_world), "list_issues", "--state", str(state)],
                             capture_output=True, text=True, check=True)
    assert "from serve" not in default.stdout


async def run_episode(session, name: str) -> set[str]:
    """A short scripted episode; returns what its final list shows."""
    for i in range(3):
        created = await session.call_tool("create_issue", {"title": f"{name}-{i}"})
        assert created.structuredContent["title"] == f"{name}-{i}"
    await session.call_tool("update_issue", {"issue_id": 1, "title": f"{name}-renamed"})
    await session.call_tool("delete_issue", {"issue_id": 2})
    return titles(await session.call_tool("list_issues", {}))


async def test_twenty_episodes_in_parallel_show_no_cross_talk(tracker_world):
    with http_server(str(tracker_world)) as url:

        async def one(n: int) -> tuple[str, set[str]]:
            name = f"ep{n:02d}"
            async with http_session(url, headers={"x-agentworld-episode": name}) as session:
                return name, await run_episode(session, name)

        results = await asyncio.gather(*(one(n) for n in range(20)))
    for name, seen in results:
        mine = {f"{name}-0", f"{name}-1", f"{name}-2", f"{name}-renamed"}
        assert mine <= seen
        foreign = {t for t in seen if t.startswith("ep") and not t.startswith(name)}
        assert not foreign, f"{name} saw {foreign}"
        assert len(seen) == SEEDED - 1 + 3  # seed - deleted + created


async def test_twenty_episodes_in_parallel_on_a_state_file(tmp_path):
    """The same through the Python API on a SQLite store, then read back by a fresh simulator."""
    world = load_world(TRACKER)
    state = tmp_path / "state.db"
    async with Simulator(world, store=state) as sim:

        async def one(n: int) -> None:
            for i in range(5):
                await sim.call("create_issue", {"title": f"ep{n}-{i}"}, episode=f"ep{n}")

        await asyncio.gather(*(one(n) for n in range(20)))
    async with Simulator(world, store=state) as again:
        for n in range(20):
            seen = {i["title"] for i in (await again.state(f"ep{n}"))["issues"]}
            assert {f"ep{n}-{i}" for i in range(5)} <= seen and len(seen) == SEEDED + 5
            assert [t.index for t in await again.trajectory(f"ep{n}")] == [1, 2, 3, 4, 5]


def test_episodes_cli_lists_shows_resets_and_deletes(tmp_path, tracker_world):
    state = str(tmp_path / "state.db")
    for episode in ("alpha", "beta"):
        subprocess.run([*CLI, "call", str(tracker_world), "create_issue", "--args", '{"title": "x"}',
                        "--state", state, "--episode", episode], check=True, capture_output=True)

    def episodes(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, "episodes", *args], capture_output=True, text=True)

    listed = json.loads(episodes("list", "--state", state, "--json").stdout)
    assert [(e["id"], e["turns"], e["entities"]) for e in listed] == [("alpha", 1, SEEDED + 1), ("beta", 1, SEEDED + 1)]
    table = episodes("list", "--state", state, str(tracker_world)).stdout
    assert "world 'issue-tracker', 2 episode(s)" in table and "alpha" in table

    shown = json.loads(episodes("show", "--state", state, "alpha", "--turns", "--json").stdout)
    assert shown["turns"] == 1 and shown["trajectory"][0]["tool"] == "create_issue"
    assert "x" in {i["title"] for i in shown["ledger"]["issues"]}

    assert episodes("reset", "--state", state, "alpha").returncode == 0  # the file remembers its world
    shown = json.loads(episodes("show", "--state", state, "alpha").stdout)
    assert shown["turns"] == 0 and len(shown["ledger"]["issues"]) == SEEDED

    assert episodes("delete", "--state", state, str(tracker_world), "beta").returncode == 0
    assert [e["id"] for e in json.loads(episodes("list", "--state", state, "--json").stdout)] == ["alpha"]
    missing = episodes("delete", "--state", state, "beta")
    assert missing.returncode == 1 and "no episode 'beta'" in missing.stderr
    nofile = episodes("list", "--state", str(tmp_path / "nope.db"))
    assert nofile.returncode != 0 and "no state file" in nofile.stderr


async def test_admin_routes_only_with_admin(tmp_path, tracker_world):
    with http_server(str(tracker_world)) as url:
        base = url.rsplit("/mcp", 1)[0]
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"{base}/admin/episodes")).status_code == 404

    with http_server(str(tracker_world), "--admin", "--state", str(tmp_path / "s.db")) as url:
        base = url.rsplit("/mcp", 1)[0]
        async with http_session(url, headers={"x-agentworld-episode": "adm"}) as session:
            await session.call_tool("create_issue", {"title": "admin sees me"})
        async with httpx.AsyncClient(base_url=base) as client:
            listed = (await client.get("/admin/episodes")).json()["episodes"]
            assert [(e["id"], e["turns"]) for e in listed] == [("adm", 1)]
            shown = (await client.get("/admin/episodes/adm")).json()
            assert "admin sees me" in {i["title"] for i in shown["ledger"]["issues"]}
            turns = (await client.get("/admin/episodes/adm/trajectory")).json()["turns"]
            assert [t["tool"] for t in turns] == ["create_issue"]
            assert (await client.post("/admin/episodes/adm/reset")).json() == {"id": "adm", "reset": True}
            assert (await client.get("/admin/episodes/adm")).json()["turns"] == 0
            assert (await client.delete("/admin/episodes/adm")).json() == {"id": "adm", "deleted": True}
            missing = await client.get("/admin/episodes/adm")
            assert missing.status_code == 404 and "no episode 'adm'" in missing.json()["error"]
            assert (await client.post("/admin/episodes/nope/reset")).status_code == 404


def test_admin_needs_http(tracker_world):
    out = subprocess.run([*CLI, "serve", str(tracker_world), "--admin"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--transport http" in out.stderr
