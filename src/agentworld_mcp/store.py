"""Where episodes live between calls.

A store hands out one episode at a time per id (``async with store.session(id)``):
calls to the same episode are serialised, calls to different episodes run
concurrently. What the block leaves in the episode is what the store keeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Protocol

from .episode import Episode
from .errors import EpisodeNotFoundError

EpisodeFactory = Callable[[str], Episode]


class EpisodeStore(Protocol):
    def session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIteratorContext: ...

    async def get(self, episode_id: str) -> Episode | None: ...

    async def ids(self) -> list[str]: ...

    async def delete(self, episode_id: str) -> None: ...


AsyncIteratorContext = "contextlib.AbstractAsyncContextManager[Episode]"


class MemoryStore:
    """Episodes in this process's memory (the default)."""

    def __init__(self) -> None:
        self._episodes: dict[str, Episode] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    @asynccontextmanager
    async def session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIterator[Episode]:
        lock = self._locks.setdefault(episode_id, asyncio.Lock())
        async with lock:
            episode = self._episodes.get(episode_id)
            if episode is None:
                episode = self._episodes[episode_id] = factory(episode_id)
            yield episode

    async def get(self, episode_id: str) -> Episode | None:
        return self._episodes.get(episode_id)

    async def ids(self) -> list[str]:
        return list(self._episodes)

    async def delete(self, episode_id: str) -> None:
        if self._episodes.pop(episode_id, None) is None:
            raise EpisodeNotFoundError(f"no episode {episode_id!r}; list them with `agentworld-mcp episodes`")
        self._locks.pop(episode_id, None)

    async def close(self) -> None:
        return None
