"""One isolated episode per rollout, the way RL frameworks talk to an MCP server (docs/rl.md).

Start a server with the admin routes (to read the final state and release the episode)::

    agentworld-mcp serve examples/worlds/issue-tracker.yaml --transport http --port 8765 --admin

then run a group of rollouts against it::

    python examples/rl/rollouts.py http://127.0.0.1:8765/mcp --rollouts 8

Two ways of naming the episode, both plain MCP:

* ``url`` (verifiers' MCP toolsets, ART's rollout functions: a client per rollout from a URL):
  the rollout's URL carries ``?episode=ROLLOUT_ID``;
* ``meta`` (verl's MCP tools: one shared client, an ``instance_id`` per rollout): every call
  carries ``_meta={"agentworld/episode": instance_id}`` on one connection shared by all rollouts.

The "policy" is scripted (no model): each rollout closes one issue and files one. The reward is
read from the episode's final state (GET /admin/episodes/ID), then the episode is released
(DELETE), as verl's ``release(instance_id)`` would. Prints one JSON line per rollout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


@contextlib.asynccontextmanager
async def mcp_session(url: str) -> AsyncIterator[ClientSession]:
    async with httpx.AsyncClient(timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def policy(call: Any, index: int) -> None:
    """A stand-in for the model: close one of the seed's issues, file a new one."""
    await call("update_issue", {"issue_id": index % 3 + 1, "status": "closed"})
    await call("create_issue", {"title": f"found by rollout {index}"})


async def final_reward(admin: str, episode: str) -> dict[str, Any]:
    """The reward of the episode's final state (share of issues closed), then release the episode."""
    async with httpx.AsyncClient(timeout=30) as http:
        shown = (await http.get(f"{admin}/{episode}")).raise_for_status().json()
        (await http.delete(f"{admin}/{episode}")).raise_for_status()
    issues = shown["ledger"].get("issues", [])
    closed = sum(1 for issue in issues if issue.get("status") == "closed")
    return {"reward": closed / len(issues) if issues else 0.0, "titles": [i["title"] for i in issues]}


async def rollout_by_url(url: str, admin: str, index: int) -> dict[str, Any]:
    episode = f"rollout-{index}-{uuid.uuid4().hex[:8]}"
    async with mcp_session(f"{url}?episode={episode}") as session:
        await policy(session.call_tool, index)
    return {"rollout": index, "style": "url", "episode": episode, **await final_reward(admin, episode)}


async def rollouts_by_meta(url: str, admin: str, indices: list[int]) -> list[dict[str, Any]]:
    async with mcp_session(url) as shared:  # one connection for the whole group, as verl's client manager

        async def one(index: int) -> dict[str, Any]:
            instance_id = str(uuid.uuid4())  # what verl's tool.create() returns

            async def call(name: str, arguments: dict[str, Any]) -> Any:
                return await shared.call_tool(name, arguments, meta={"agentworld/episode": instance_id})

            await policy(call, index)
            return {"rollout": index, "style": "meta", "episode": instance_id,
                    **await final_reward(admin, instance_id)}

        return list(await asyncio.gather(*(one(i) for i in indices)))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="the server's MCP endpoint, e.g. http://127.0.0.1:8765/mcp")
    parser.add_argument("--rollouts", type=int, default=4, help="rollouts per style (default: 4)")
    args = parser.parse_args()
    parts = urlsplit(args.url)
    admin = f"{parts.scheme}://{parts.netloc}/admin/episodes"
    indices = list(range(args.rollouts))
    by_url = await asyncio.gather(*(rollout_by_url(args.url, admin, i) for i in indices))
    by_meta = await rollouts_by_meta(args.url, admin, indices)
    for line in [*by_url, *by_meta]:
        print(json.dumps(line))


if __name__ == "__main__":
    asyncio.run(main())
