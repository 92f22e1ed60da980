"""Which episode store a :class:`~agentworld_mcp.Simulator` gets from what it was given.

``None``: in memory; a path: a SQLite state file; a ``redis://`` (``rediss://``, ``unix://``)
URL: Redis; a store object: itself, bound to the world.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .store import EpisodeStore, MemoryStore, SqliteStore

if TYPE_CHECKING:
    from ..world.world import World


def open_store(store: EpisodeStore | str | os.PathLike[str] | None, world: World) -> EpisodeStore:
    """The store for ``store`` (see the module docstring)."""
    if store is None:
        return MemoryStore()
    if isinstance(store, str) and store.startswith(("redis://", "rediss://", "unix://")):
        from .store_redis import RedisStore  # several processes or machines share one Redis

        return RedisStore(store, world)
    if isinstance(store, (str, os.PathLike)):
        return SqliteStore(store, world)
    bind = getattr(store, "bind", None)
    if bind is not None:
        bind(world)
    return store


__all__ = ["open_store"]
