"""Episodes in Redis: shared by every server process, on one machine or many (``--state redis://...``).

The same semantics as :class:`~agentworld_mcp.state.store.SqliteStore`:

* one call at a time per episode, across processes: a Redis lock per episode (``SET NX PX``
  with a token, released only by its holder; it expires if a holder dies);
* one transaction per turn (``MULTI``/``EXEC``) writing the new turns, only the ledger
  entities the turn changed and the episode's bookkeeping; a version number tells another
  process its cached copy is stale;
* ``episode_ttl`` makes every key of an idle episode expire in Redis (RL scratch episodes
  clean themselves up); the local cache of episodes is bounded by ``cache_size``.

Layout under ``{prefix}:``: ``world`` (the world this database serves), ``episodes`` (a set
of ids), ``ep:{id}`` (hash: seed, version, turn_count, next_seq, state, counters, times),
``ents:{id}`` (hash: collection+key -> ``{"seq", "data"}``), ``turns:{id}`` (list of turns).
Needs the ``redis`` extra: ``pip install 'agentworld-mcp[redis]'``.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .episode import Episode, Turn
from ..errors import ConfigError, EpisodeConflictError, MissingExtraError, StateFileError, StateStoreError
from .ledger import Ledger
from .store import EpisodeFactory, EpisodeInfo, episode_not_found, world_fingerprint

if TYPE_CHECKING:
    from ..world.world import World

JSONDict = dict[str, Any]
_SEP = "\x1f"  # between collection and key in an entity field name


@dataclass
class _Slot:
    episode: Episode
    version: str | None
    ledger: Ledger
    saved_turns: int
    state_json: str | None
    counters_json: str | None
    next_seq: int
    #: The stored order of each entity (field -> seq): an entity changed in place keeps its place.
    seqs: dict[str, int]


def is_redis_url(value: object) -> bool:
    return isinstance(value, str) and value.startswith(("redis://", "rediss://", "unix://"))


class RedisStore:
    """Episodes in Redis (see the module docstring)."""

    def __init__(
        self,
        url: str,
        world: World | None = None,
        *,
        prefix: str = "agentworld",
        episode_ttl: float | None = None,
        cache_size: int = 1024,
        lock_timeout: float = 120.0,
        lock_wait: float = 60.0,
        socket_timeout: float = 10.0,
    ) -> None:
        try:
            import redis.asyncio as aioredis
        except ImportError:
            raise MissingExtraError("the Redis episode store", "redis", "redis") from None
        if episode_ttl is not None and episode_ttl <= 0:
            raise ConfigError(f"episode_ttl must be positive, got {episode_ttl}")
        self.url = url
        self.prefix = prefix
        self.episode_ttl = episode_ttl
        self.cache_size = cache_size
        self.lock_timeout = lock_timeout
        self.lock_wait = lock_wait
        # A Redis that stops answering fails the call after socket_timeout instead of hanging it.
        self._redis = aioredis.Redis.from_url(url, decode_responses=True, socket_timeout=socket_timeout,
                                              socket_connect_timeout=socket_timeout)
        self._cache: OrderedDict[str, _Slot] = OrderedDict()
        self._world: World | None = world
        self._bound = False

    def bind(self, world: World) -> None:
        """The world this store serves; checked against the database on first use."""
        self._world = world
        self._bound = False

    # -- keys -------------------------------------------------------------------------------

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    async def _check_world(self) -> None:
        if self._bound or self._world is None:
            return
        from redis.exceptions import ConnectionError as RedisConnectionError

        key = self._key("world")
        fingerprint = world_fingerprint(self._world)
        try:
            await self._redis.hsetnx(key, "fingerprint", fingerprint)
            await self._redis.hsetnx(key, "name", self._world.name)
            stored = await self._redis.hgetall(key)
        except RedisConnectionError as exc:  # at call time: the call's failure, not a protocol error
            raise StateStoreError(f"state store (Redis at {self.url}) failed: cannot reach Redis at {self.url}: {exc}",
                                  hint="start redis-server or fix --state, then call again") from exc
        if stored.get("fingerprint") != fingerprint:
            raise StateFileError(
                f"{self.url} (prefix {self.prefix!r}) holds episodes of world {stored.get('name')!r} "
                f"(a different catalog, seed state or scenario than {self._world.name!r}); use another prefix "
                "or database number in the URL, or delete those keys"
            )
        self._bound = True

    # -- the call path ---------------------------------------------------------------------

    @asynccontextmanager
    async def session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIterator[Episode]:
        from redis.exceptions import RedisError

        try:
            async with self._session(episode_id, factory) as episode:
                yield episode
        except RedisError as exc:  # refused, timed out, out of memory: the store's failure, named
            raise StateStoreError(f"state store (Redis at {self.url}) failed for episode {episode_id!r}: "
                                  f"{type(exc).__name__}: {exc}",
                                  hint="check the Redis server is up and reachable, then call again; "
                                  "this call changed nothing") from exc

    async def committed_turns(self, episode_id: str) -> int:
        """How many turns of the episode Redis holds (what a crash left committed)."""
        count = await self._redis.hget(self._key("ep", episode_id), "turn_count")
        return int(count) if count else 0

    @asynccontextmanager
    async def _session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIterator[Episode]:
        await self._check_world()
        lock = self._redis.lock(self._key("lock", episode_id), timeout=self.lock_timeout,
                                blocking_timeout=self.lock_wait)
        if not await lock.acquire():
            raise EpisodeConflictError(
                f"episode {episode_id!r} stayed locked for {self.lock_wait}s by another call; retry it"
            )
        try:
            slot = await self._load(episode_id, factory)
            assert slot is not None
            try:
                yield slot.episode
            except BaseException:
                self._cache.pop(episode_id, None)  # half-changed in memory: read it back next time
                raise
            try:
                await self._save(slot)
            except BaseException:
                self._cache.pop(episode_id, None)
                raise
        finally:
            with contextlib.suppress(Exception):  # expired under a very long call: nothing to release
                await lock.release()

    async def _load(self, episode_id: str, factory: EpisodeFactory | None) -> _Slot | None:
        version: str | None = await self._redis.hget(self._key("ep", episode_id), "version")  # type: ignore[assignment]
        cached = self._cache.get(episode_id)
        if version is None:
            if factory is None:
                return None
            episode = factory(episode_id)
            slot = _Slot(episode, None, episode.ledger, 0, None, None, 0, {})
        elif cached is not None and cached.version == version:
            self._cache.move_to_end(episode_id)
            return cached
        else:
            row, stored, turns = await self._read(episode_id)
            entities = [e["data"] for e in stored]
            ledger = Ledger.from_dict({"entities": entities, "counters": json.loads(row["counters"])})
            episode = Episode(episode_id, int(row["seed"]), ledger, [Turn.from_dict(t) for t in turns],
                              json.loads(row["state"]))
            seqs = {_field(e["data"]["collection"], e["data"]["key"]): e["seq"] for e in stored}
            slot = _Slot(episode, version, ledger, len(turns), row["state"], row["counters"], int(row["next_seq"]),
                         seqs)
        self._cache[episode_id] = slot
        self._cache.move_to_end(episode_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return slot

    async def _read(self, episode_id: str) -> tuple[dict[str, str], list[JSONDict], list[JSONDict]]:
        """The episode's row, its entities as stored (``{"seq", "data"}``, in order) and its turns."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(self._key("ep", episode_id))
            pipe.hvals(self._key("ents", episode_id))
            pipe.lrange(self._key("turns", episode_id), 0, -1)
            row, raw_entities, raw_turns = await pipe.execute()
        stored = sorted((json.loads(e) for e in raw_entities), key=lambda e: e["seq"])
        return row, stored, [json.loads(t) for t in raw_turns]

    async def _save(self, slot: _Slot) -> None:
        episode = slot.episode
        full = slot.version is None or episode.ledger is not slot.ledger or len(episode.turns) < slot.saved_turns
        new_turns = list(episode.turns) if full else list(episode.turns)[slot.saved_turns:]
        state_json = json.dumps(episode.state, ensure_ascii=False, default=str)
        counters_json = json.dumps(episode.ledger.counters())
        changes = dict(episode.ledger.changes)
        if not (full or new_turns or changes or state_json != slot.state_json or counters_json != slot.counters_json):
            return
        ep_key, ents_key, turns_key = (self._key(k, episode.id) for k in ("ep", "ents", "turns"))
        version = secrets.token_hex(8)
        next_seq = slot.next_seq
        seqs = {} if full else dict(slot.seqs)
        now = time.time()
        async with self._redis.pipeline(transaction=True) as pipe:
            if full:
                pipe.delete(ents_key, turns_key)
                entities = episode.ledger.to_dict()["entities"]
                for seq, data in enumerate(entities):
                    seqs_field = _field(data["collection"], data["key"])
                    seqs[seqs_field] = seq
                    pipe.hset(ents_key, seqs_field, json.dumps({"seq": seq, "data": data}))
                next_seq = len(entities)
            else:
                for (collection, key), moved in changes.items():
                    field = _field(collection, key)
                    entity = episode.ledger.get(collection, key, include_deleted=True)
                    if entity is None:
                        pipe.hdel(ents_key, field)
                        seqs.pop(field, None)
                        continue
                    # A (re)stored entity moves to the end of the order; one changed in place keeps its place.
                    if moved or field not in seqs:
                        seqs[field] = next_seq
                        next_seq += 1
                    pipe.hset(ents_key, field, json.dumps({"seq": seqs[field], "data": entity.to_dict()}))
            if new_turns:
                pipe.rpush(turns_key, *(json.dumps(t.to_dict(), ensure_ascii=False, default=str) for t in new_turns))
            pipe.hset(ep_key, mapping={
                "seed": episode.seed, "version": version, "turn_count": len(episode.turns), "next_seq": next_seq,
                "state": state_json, "counters": counters_json, "updated_at": now,
            })
            pipe.hsetnx(ep_key, "created_at", now)
            pipe.sadd(self._key("episodes"), episode.id)
            if self.episode_ttl is not None:
                ttl = max(1, int(self.episode_ttl * 1000))
                for key in (ep_key, ents_key, turns_key):
                    pipe.pexpire(key, ttl)
            await pipe.execute()
        slot.version, slot.ledger, slot.saved_turns = version, episode.ledger, len(episode.turns)
        slot.state_json, slot.counters_json, slot.next_seq, slot.seqs = state_json, counters_json, next_seq, seqs
        episode.ledger.changes.clear()

    # -- inspection ---------------------------------------------------------------------------

    async def get(self, episode_id: str) -> Episode | None:
        await self._check_world()
        slot = await self._load(episode_id, None)
        return slot.episode if slot is not None else None

    async def ids(self) -> list[str]:
        await self._check_world()
        members: set[str] = await self._redis.smembers(self._key("episodes"))  # type: ignore[assignment]
        alive: list[str] = []
        for episode_id in sorted(members):
            if await self._redis.exists(self._key("ep", episode_id)):
                alive.append(episode_id)
            else:  # expired by its TTL
                await self._redis.srem(self._key("episodes"), episode_id)
        return alive

    async def info(self) -> list[EpisodeInfo]:
        out = []
        for episode_id in await self.ids():
            row = await self._redis.hgetall(self._key("ep", episode_id))
            entities = await self._redis.hvals(self._key("ents", episode_id))
            live = sum(1 for e in entities if json.loads(e)["data"].get("status") != "deleted")
            out.append(EpisodeInfo(episode_id, int(row.get("turn_count", 0)), live,
                                   float(row["created_at"]) if "created_at" in row else None,
                                   float(row["updated_at"]) if "updated_at" in row else None))
        return out

    async def delete(self, episode_id: str) -> None:
        await self._check_world()
        removed = await self._redis.delete(*(self._key(k, episode_id) for k in ("ep", "ents", "turns")))
        await self._redis.srem(self._key("episodes"), episode_id)
        self._cache.pop(episode_id, None)
        if not removed:
            raise episode_not_found(episode_id)

    async def close(self) -> None:
        await self._redis.aclose()


def _field(collection: str, key: str) -> str:
    return f"{collection}{_SEP}{key}"


__all__ = ["RedisStore", "is_redis_url"]
