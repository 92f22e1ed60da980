"""The CLI's persistence options (``--state``, ``--record``) and ``agentworld-mcp episodes``.

    agentworld-mcp episodes list   --state PATH [WORLD] [--json]
    agentworld-mcp episodes show   --state PATH [WORLD] ID [--turns] [--json]
    agentworld-mcp episodes reset  --state PATH [WORLD] ID
    agentworld-mcp episodes delete --state PATH [WORLD] ID

The state file remembers its world, so WORLD is optional: given, it is checked against the
file (a state file of another world is refused); reset uses it, else the stored world.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import ConfigError, EpisodeNotFoundError, StateFileError


def add_sim_args(p: argparse.ArgumentParser) -> None:
    """``--state`` and ``--record``, for commands that make calls (serve, call)."""
    p.add_argument("--state", default=None, metavar="PATH",
                   help="keep episodes in this SQLite file: the world survives restarts and is shared by "
                   "processes (default: in memory)")
    p.add_argument("--record", default=None, metavar="PATH",
                   help="append every turn to this JSONL file, one line per turn "
                   "(`agentworld-mcp export` makes AgentWorldBench lines of it)")
    p.add_argument("--max-episodes", type=int, default=None, metavar="N",
                   help="keep at most N episodes in memory, evicting the least recently used idle one (in memory "
                   "it is gone and starts afresh; with --state it stays in the file) (default: 1000 for serve, "
                   "else no limit; 0: no limit)")
    p.add_argument("--episode-ttl", type=float, default=None, metavar="SECONDS",
                   help="evict an episode from memory after SECONDS without a call (same rules as --max-episodes)")


def simulator_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :class:`~agentworld_mcp.Simulator` from ``--state``/``--record``/bounds."""
    options: dict[str, Any] = {}
    max_episodes, ttl = getattr(args, "max_episodes", None) or None, getattr(args, "episode_ttl", None)  # 0: none
    bounded = max_episodes is not None or ttl is not None
    if getattr(args, "state", None):
        from ..state.store_redis import is_redis_url

        if bounded and not is_redis_url(args.state):  # Redis bounds its own local cache
            from ..state.store import SqliteStore

            options["store"] = SqliteStore(args.state, max_episodes=max_episodes, episode_ttl=ttl)
        else:
            options["store"] = args.state
    elif bounded:
        from ..state.store import MemoryStore

        options["store"] = MemoryStore(max_episodes=max_episodes, episode_ttl=ttl)
    if getattr(args, "record", None):
        from ..trajectories.record import TrajectoryRecorder

        options["recorders"] = [TrajectoryRecorder(args.record)]
    return options


def add_parser(sub: Any) -> None:
    from ..trajectories import export

    export.add_parser(sub)  # agentworld-mcp export: the trajectory files --record writes
    episodes = sub.add_parser(
        "episodes", help="list, show, reset or delete the episodes in a --state file",
        description="Inspect and reset the episodes kept in a state file (agentworld-mcp serve --state PATH).",
    )
    actions = episodes.add_subparsers(dest="action", metavar="ACTION")
    for name, text in (("list", "list the episodes"), ("show", "print an episode's ledger (and turns)"),
                       ("reset", "put an episode back to the world's seed state"),
                       ("delete", "remove an episode")):
        p = actions.add_parser(name, help=text, description=text)
        p.add_argument("--state", required=True, metavar="PATH", help="the SQLite state file")
        p.add_argument("world", nargs="?", default=None, help="world file (optional: checked against the state file)")
        if name != "list":
            p.add_argument("episode", help="episode id ('default' is the shared world)")
        if name in ("list", "show"):
            p.add_argument("--json", action="store_true", help="print JSON")
        if name == "show":
            p.add_argument("--turns", action="store_true", help="include the trajectory")


def run_export(args: argparse.Namespace) -> int:
    from ..trajectories.export import run as export

    return export(args)


def run(args: argparse.Namespace) -> int:
    if not getattr(args, "action", None):
        print("agentworld-mcp episodes: give an action: list, show, reset or delete "
              "(e.g. agentworld-mcp episodes list --state state.db)", file=sys.stderr)
        return 2
    if not Path(args.state).is_file():
        raise StateFileError(f"no state file at {args.state}; it is created by `agentworld-mcp serve --state PATH`")
    try:
        return asyncio.run(_run(args))
    except EpisodeNotFoundError as exc:
        print(f"agentworld-mcp: {exc}", file=sys.stderr)
        return 1


async def _run(args: argparse.Namespace) -> int:
    from ..state.store import SqliteStore
    from ..world.world import load_world

    world = load_world(args.world) if args.world else None
    store = SqliteStore(args.state, world)
    try:
        if args.action == "list":
            return _print_list(await store.info(), store, args)
        if args.action == "show":
            episode = await store.get(args.episode)
            if episode is None:
                raise EpisodeNotFoundError(f"no episode {args.episode!r} in {args.state}; "
                                           f"list them with `agentworld-mcp episodes list --state {args.state}`")
            if args.turns:
                return _print_turns(episode, store, world, args)
            data: dict[str, Any] = {"id": episode.id, "seed": episode.seed, "turns": len(episode.turns),
                                    "ledger": episode.ledger.snapshot()}
            print(json.dumps(data, indent=2, ensure_ascii=False))
            return 0
        if args.action == "delete":
            await store.delete(args.episode)
            print(f"agentworld-mcp: deleted episode {args.episode!r}", file=sys.stderr)
            return 0
        return await _reset(store, world, args)
    finally:
        await store.close()


async def _reset(store: Any, world: Any, args: argparse.Namespace) -> int:
    from ..pipeline.engine import Simulator
    from ..world.world import load_world_data

    if await store.get(args.episode) is None:
        raise EpisodeNotFoundError(f"no episode {args.episode!r} in {args.state}")
    if world is None:
        document = store.stored_world()
        if document is None:
            raise ConfigError(f"{args.state} does not record its world; pass the world file: "
                              f"agentworld-mcp episodes reset --state {args.state} WORLD {args.episode}")
        world = load_world_data(document, source=f"{args.state} (stored world)")
    sim = Simulator.from_world(world, store=store)
    await sim.reset(args.episode)
    print(f"agentworld-mcp: reset episode {args.episode!r} to the seed state of {world.name!r}", file=sys.stderr)
    return 0


def _print_turns(episode: Any, store: Any, world: Any, args: argparse.Namespace) -> int:
    """``show --turns``: the timeline, one line per call (``--json``: the trajectory with each turn's changes)."""
    from ..world.catalog import Catalog
    from ..trajectories.trail import timeline, trail_of_episode
    from ..world.world import load_world_data

    if world is None and store.stored_world() is not None:  # the world replays what each call changed
        world = load_world_data(store.stored_world(), source=f"{args.state} (stored world)")
    trail = trail_of_episode(episode, Catalog(world) if world is not None else None)
    if args.json:
        changes = trail.changes or [[] for _ in trail.turns]
        data = {"id": episode.id, "seed": episode.seed, "turns": len(episode.turns), "ledger": episode.ledger.snapshot(),
                "trajectory": [{**t.to_dict(), "changes": [vars(c) for c in changed]}
                               for t, changed in zip(trail.turns, changes)]}
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"episode {episode.id!r} of {trail.world or 'world'}: {len(trail.turns)} call(s), {trail.errors} error(s), "
          f"{trail.perturbations} perturbation(s)")
    for line in timeline(trail):
        print(line)
    return 0


def _print_list(infos: list[Any], store: Any, args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([i.to_dict() for i in infos], indent=2))
        return 0
    print(f"{args.state}: world {store.stored_world_name()!r}, {len(infos)} episode(s)")
    if not infos:
        return 0
    rows = [("EPISODE", "TURNS", "ENTITIES", "UPDATED")]
    for i in infos:
        when = datetime.datetime.fromtimestamp(i.updated_at).isoformat(timespec="seconds") if i.updated_at else "-"
        rows.append((i.id, str(i.turns), str(i.entities), when))
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0
