"""The world as an OpenEnv environment, driven by OpenEnv's own ``MCPToolClient`` over loopback.

Every OpenEnv session is one episode: ``reset`` starts it from the world's seed state, tool
calls go through the simulator's pipeline, and a reward function reads the episode's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from agentworld_mcp import Simulator
from agentworld_mcp.errors import ConfigError
from agentworld_mcp.integrations.openenv import EpisodeView, load_reward, openenv_app
from agentworld_mcp.world.world import World, load_world
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.mcp_client import MCPToolClient

from .conftest import CLI, ROOT, WORLDS, free_port, listening

TRACKER = WORLDS / "issue-tracker.yaml"
EXAMPLES = ROOT / "examples" / "openenv"
sys.path.insert(0, str(EXAMPLES))
from rewards import issues_closed  # noqa: E402  (examples/openenv/rewards.py, as a user's module)


@contextlib.contextmanager
def openenv_server(source: Simulator | World, **options: Any) -> Iterator[str]:
    """``openenv_app(source)`` under uvicorn on a free loopback port, in a thread; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(openenv_app(source, **options), host="127.0.0.1", port=port,
                                           log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the OpenEnv server did not start within 30 s"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def tracker() -> Simulator:
    return Simulator.from_world(load_world(TRACKER))


def titles(data: object) -> list[str]:
    items = data.get("issues", data) if isinstance(data, dict) else data
    assert isinstance(items, list), data
    return [item["title"] for item in items]


async def test_cli_serves_the_catalog_and_the_pipeline_to_openenvs_client():
    port = free_port()
    env = {"PYTHONPATH": os.pathsep.join([str(EXAMPLES), os.environ.get("PYTHONPATH", "")])}
    command = [*CLI, "openenv", str(TRACKER), "--port", str(port), "--reward", "rewards:issues_closed"]
    with listening(command, port, env=env, path=""):
        async with MCPToolClient(base_url=f"http://127.0.0.1:{port}", message_timeout_s=30) as client:
            await client.reset(seed=7)
            tools = await client.list_tools()
            assert [t.name for t in tools] == [t["name"] for t in load_world(TRACKER).tools]
            assert tools[0].input_schema == load_world(TRACKER).tools[0]["inputSchema"]

            issue = await client.call_tool("get_issue", issue_id=1)
            assert issue["title"] == "Rocket fails to launch on Mondays" and issue["status"] == "open"
            missing = await client.step(CallToolAction(tool_name="get_issue", arguments={"issue_id": 99}))
            assert isinstance(missing.observation, CallToolObservation)
            assert missing.observation.result["is_error"] and "99" in missing.observation.result["data"]

            closed = await client.step(CallToolAction(tool_name="update_issue",
                                                      arguments={"issue_id": 1, "status": "closed"}))
            assert closed.observation.result["structured_content"]["status"] == "closed"
            assert closed.reward == pytest.approx(2 / 3)  # the seed has 1 of 3 closed; now 2 of 3

            state = await client.state()
            assert state.step_count == 3 and state.episode_id.startswith("openenv-")


async def test_two_sessions_are_two_isolated_episodes_dropped_when_they_close():
    sim = tracker()
    with openenv_server(sim) as url:
        async with MCPToolClient(base_url=url) as first, MCPToolClient(base_url=url) as second:
            await asyncio.gather(first.reset(), second.reset())
            await first.call_tool("create_issue", title="only in the first session")
            await second.call_tool("delete_issue", issue_id=2)
            seen_first = titles(await first.call_tool("list_issues"))
            seen_second = titles(await second.call_tool("list_issues"))
            first_state, second_state = await first.state(), await second.state()
            assert {first_state.episode_id, second_state.episode_id} <= set(await sim.store.ids())
        deadline = time.monotonic() + 10  # the server drops a session's made-up episode after it closes
        while set(await sim.store.ids()) & {first_state.episode_id, second_state.episode_id}:
            assert time.monotonic() < deadline, await sim.store.ids()
            await asyncio.sleep(0.05)
    assert "only in the first session" in seen_first and "only in the first session" not in seen_second
    assert "Update the launch checklist" in seen_first and "Update the launch checklist" not in seen_second
    assert first_state.episode_id != second_state.episode_id


async def rollout(url: str, seed: int, episode_id: str) -> list[object]:
    async with MCPToolClient(base_url=url) as client:
        await client.reset(seed=seed, episode_id=episode_id)
        return [await client.call_tool("create_issue", title="flaky test", body="seen twice"),
                await client.call_tool("add_comment", issue_id=4, body="still failing"),
                await client.call_tool("list_issues", status="open")]


async def test_same_seed_and_episode_give_the_same_answers_and_reset_starts_afresh():
    with openenv_server(tracker()) as url:
        first = await rollout(url, seed=11, episode_id="task-1")
        again = await rollout(url, seed=11, episode_id="task-1")  # a second rollout of the same task
        async with MCPToolClient(base_url=url) as client:
            await client.reset(seed=11, episode_id="task-1")
            await client.call_tool("create_issue", title="left behind")
            await client.reset(seed=11, episode_id="task-1")
            after_reset = titles(await client.call_tool("list_issues"))
    assert first == again
    assert first[0]["id"] == 4  # the next id after the seed's three issues: the seed state, not the last run's
    assert "left behind" not in after_reset and len(after_reset) == 3


async def test_reward_is_computed_from_the_final_state_after_every_call():
    seen: list[EpisodeView] = []

    def reward(view: EpisodeView) -> float:
        seen.append(view)
        return issues_closed(view)

    with openenv_server(load_world(TRACKER), reward=reward) as url:  # a World: the app makes its simulator
        async with MCPToolClient(base_url=url) as client:
            await client.reset()
            rewards = []
            for arguments in ({"issue_id": 1, "status": "closed"}, {"issue_id": 2, "status": "closed"}):
                step = await client.step(CallToolAction(tool_name="update_issue", arguments=arguments))
                rewards.append(step.reward)
            created = await client.step(CallToolAction(tool_name="create_issue", arguments={"title": "new"}))
    assert rewards == [pytest.approx(2 / 3), pytest.approx(1.0)]
    assert created.reward == pytest.approx(3 / 4)  # a new open issue: three of four closed
    assert [len(v.turns) for v in seen] == [1, 2, 3] and seen[-1].turns[-1].tool == "create_issue"
    assert {i["status"] for i in seen[-1].state["issues"]} == {"open", "closed"}


def test_reward_references_are_checked_when_loaded():
    assert load_reward("rewards:issues_closed") is issues_closed
    for bad in ("rewards", "no_such_module_here:f", "rewards:no_such_function"):
        with pytest.raises(ConfigError, match="--reward"):
            load_reward(bad)


def test_without_the_extra_the_command_says_what_to_install():
    # openenv-core hidden from this interpreter, as in an install without the extra
    code = ("import sys; sys.modules['openenv'] = None; from agentworld_mcp.cli.main import main; "
            f"raise SystemExit(main(['openenv', {str(TRACKER)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "pip install -e '.[openenv]'" in done.stderr and "openenv-core" in done.stderr


async def test_openenvs_http_mcp_route_serves_the_same_catalog_and_episodes():
    with openenv_server(tracker()) as url:
        async with MCPToolClient(base_url=url) as client:
            client.use_production_mode = True  # OpenEnv's JSON-RPC /mcp route, one server-side session
            names = [t.name for t in await client.list_tools()]
            created = await client.call_tool("create_issue", title="over /mcp")
            listed = await client.call_tool("list_issues")
    assert names == [t["name"] for t in load_world(TRACKER).tools]
    assert created["title"] == "over /mcp" and "over /mcp" in titles(listed)
