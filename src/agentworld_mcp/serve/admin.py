"""HTTP admin routes: list, inspect, reset and delete episodes of a running server.

Off unless ``agentworld-mcp serve --transport http --admin`` (or ``admin_routes(sim)`` passed
to :func:`agentworld_mcp.serve.transport.http_app`): they can wipe a world, so they are opt-in,
and the server binds to loopback unless told otherwise.

    GET    /admin/episodes                  -> {"episodes": [{"id", "turns", "entities", ...}]}
    GET    /admin/episodes/{id}             -> {"id", "seed", "turns", "ledger": {collection: [...]}}
    GET    /admin/episodes/{id}/trajectory  -> {"id", "turns": [turn, ...]}  (?since=N: turns after N)
    GET    /admin/episodes/{id}/report      -> an HTML page: the calls, what each changed (agentworld-mcp report)
    POST   /admin/episodes/{id}/reset       -> {"id", "reset": true}  (back to the seed state)
    DELETE /admin/episodes/{id}             -> {"id", "deleted": true}

Every route goes through the simulator's store, holding the episode's lock, so it never
sees or leaves a half-finished call.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from ..pipeline.engine import Simulator
from ..errors import EpisodeNotFoundError

PREFIX = "/admin/episodes"


def admin_routes(sim: Simulator, *, prefix: str = PREFIX) -> list[Route]:
    """Starlette routes that inspect and reset ``sim``'s episodes."""

    async def list_episodes(request: Request) -> JSONResponse:
        return JSONResponse({"episodes": [i.to_dict() for i in await sim.store.info()]})

    async def show(request: Request) -> JSONResponse:
        episode_id = request.path_params["episode"]
        episode = await sim.store.get(episode_id)
        if episode is None:
            return _not_found(episode_id)
        return JSONResponse({"id": episode.id, "seed": episode.seed, "turns": len(episode.turns),
                             "ledger": episode.ledger.snapshot()})

    async def trajectory(request: Request) -> JSONResponse:
        episode_id = request.path_params["episode"]
        try:
            since = int(request.query_params.get("since", "0"))
        except ValueError:
            return JSONResponse({"error": "since must be a turn number, e.g. ?since=10"}, status_code=400)
        episode = await sim.store.get(episode_id)
        if episode is None:
            return _not_found(episode_id)
        turns = [t.to_dict() for t in episode.turns if t.index > since]
        return JSONResponse({"id": episode.id, "turns": turns})

    async def report(request: Request) -> HTMLResponse | JSONResponse:
        from ..trajectories.report import render, trail_of_episode

        episode_id = request.path_params["episode"]
        episode = await sim.store.get(episode_id)
        if episode is None:
            return _not_found(episode_id)
        trail = trail_of_episode(episode, sim.catalog, source="running server")
        return HTMLResponse(render([trail], title=f"agentworld-mcp: episode {episode_id} of {sim.world.name}"))

    async def reset(request: Request) -> JSONResponse:
        episode_id = request.path_params["episode"]
        if await sim.store.get(episode_id) is None:
            return _not_found(episode_id)
        await sim.reset(episode_id)
        return JSONResponse({"id": episode_id, "reset": True})

    async def delete(request: Request) -> JSONResponse:
        episode_id = request.path_params["episode"]
        try:
            await sim.store.delete(episode_id)
        except EpisodeNotFoundError:
            return _not_found(episode_id)
        return JSONResponse({"id": episode_id, "deleted": True})

    return [
        Route(prefix, list_episodes, methods=["GET"]),
        Route(prefix + "/{episode:str}/trajectory", trajectory, methods=["GET"]),
        Route(prefix + "/{episode:str}/report", report, methods=["GET"]),
        Route(prefix + "/{episode:str}/reset", reset, methods=["POST"]),
        Route(prefix + "/{episode:str}", show, methods=["GET"]),
        Route(prefix + "/{episode:str}", delete, methods=["DELETE"]),
    ]


def _not_found(episode_id: str) -> JSONResponse:
    body: dict[str, Any] = {"error": f"no episode {episode_id!r}", "hint": f"GET {PREFIX} lists the episodes"}
    return JSONResponse(body, status_code=404)


__all__ = ["PREFIX", "admin_routes"]
