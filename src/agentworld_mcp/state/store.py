"""Where episodes live between calls.

A store hands out one episode at a time per id (``async with store.session(id, factory)``):
calls to the same episode are serialised, calls to different episodes run concurrently.
What the block leaves in the episode is what the store keeps.

* :class:`MemoryStore` (the default) keeps episodes in this process.
* :class:`SqliteStore` keeps them in a SQLite file (``--state PATH``), so a world survives
  a restart and several processes (a stdio client that starts one server per call, or a
  fleet of HTTP servers on one machine) share one consistent world. Each call is one
  transaction that writes only what the call changed: the new turn (turns are append-only),
  the ledger entities it touched and the episode's small bookkeeping row. A process killed
  at any moment leaves every completed turn in the file and no half-written one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import hashlib
import json
import logging
import os
import secrets
import sqlite3
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, MutableSequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, overload

from .episode import Episode, Turn
from ..errors import ConfigError, EpisodeConflictError, EpisodeNotFoundError, StateFileError, StateStoreError
from .ledger import Ledger

if TYPE_CHECKING:
    from ..world.world import World

try:  # POSIX: per-episode locks across processes
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("agentworld_mcp.state.store")
JSONDict = dict[str, Any]
EpisodeFactory = Callable[[str], Episode]

#: Bumped when the state file layout changes incompatibly.
STATE_FORMAT = 1


@dataclass(frozen=True)
class EpisodeInfo:
    """One line of an episode listing."""

    id: str
    turns: int
    entities: int  # live (not deleted) ledger entities
    created_at: float | None = None
    updated_at: float | None = None

    def to_dict(self) -> JSONDict:
        return {"id": self.id, "turns": self.turns, "entities": self.entities,
                "created_at": self.created_at, "updated_at": self.updated_at}


class EpisodeStore(Protocol):
    def session(self, episode_id: str, factory: EpisodeFactory) -> contextlib.AbstractAsyncContextManager[Episode]: ...

    async def get(self, episode_id: str) -> Episode | None: ...

    async def ids(self) -> list[str]: ...

    async def info(self) -> list[EpisodeInfo]: ...

    async def delete(self, episode_id: str) -> None: ...

    async def close(self) -> None: ...


def episode_not_found(episode_id: str) -> EpisodeNotFoundError:
    return EpisodeNotFoundError(f"no episode {episode_id!r}; list them with `agentworld-mcp episodes list`")


# -- memory ---------------------------------------------------------------------------


class _Holders:
    """An asyncio lock per episode that exists only while some call holds or awaits it.

    A lock is made when the first call arrives and dropped when the last one leaves, so the
    number of locks is the number of episodes in use, never the number ever seen.
    """

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def in_use(self, episode_id: str) -> bool:
        return episode_id in self._locks

    def __len__(self) -> int:
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, episode_id: str) -> AsyncIterator[None]:
        entry = self._locks.get(episode_id)
        if entry is None:
            entry = self._locks[episode_id] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[episode_id]


class MemoryStore:
    """Episodes in this process's memory (the default).

    ``max_episodes`` and ``episode_ttl`` (seconds since last use) bound it: the least recently
    used idle episode goes first; an episode in use is never evicted. An evicted episode is
    gone: its next call starts it afresh from the world's seed state (use a
    :class:`SqliteStore` to keep evicted episodes). ``clock`` is injectable for tests.
    """

    def __init__(self, *, max_episodes: int | None = None, episode_ttl: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        _check_bounds(max_episodes, episode_ttl)
        self.max_episodes = max_episodes
        self.episode_ttl = episode_ttl
        self.evicted = 0
        self._clock = clock
        self._episodes: OrderedDict[str, Episode] = OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}  # clock() at the end of the last call
        self._times: dict[str, tuple[float, float]] = {}
        self._holders = _Holders()

    @asynccontextmanager
    async def session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIterator[Episode]:
        self._evict()  # before this call holds its episode: one idle past its TTL starts afresh
        try:
            async with self._holders.hold(episode_id):
                episode = self._episodes.get(episode_id)
                if episode is None:
                    episode = self._episodes[episode_id] = factory(episode_id)
                yield episode
                episode.ledger.changes.clear()  # nothing to write: memory is the store
                now = time.time()
                self._times[episode_id] = (self._times.get(episode_id, (now, now))[0], now)
        finally:
            if episode_id in self._episodes:
                self._used[episode_id] = self._clock()
                self._episodes.move_to_end(episode_id)  # kept in order of last use
            self._evict()

    def _evict(self) -> None:
        """Drop idle episodes past the TTL, then the least recently used past ``max_episodes``."""
        if self.max_episodes is None and self.episode_ttl is None:
            return
        now = self._clock()
        excess = len(self._episodes) - self.max_episodes if self.max_episodes is not None else 0
        victims: list[str] = []
        for episode_id in self._episodes:  # least recently used first
            if self._holders.in_use(episode_id):
                continue  # never evicted while a call holds or awaits it
            expired = self.episode_ttl is not None and now - self._used.get(episode_id, now) > self.episode_ttl
            if not expired and excess <= 0:
                break  # every later idle episode was used more recently
            victims.append(episode_id)
            excess -= 1
        for episode_id in victims:
            self._drop(episode_id)
            log.debug("evicted idle episode %r from memory", episode_id)
        self.evicted += len(victims)

    @property
    def locks_held(self) -> int:
        """Per-episode locks alive now: one per episode in use, none for idle ones."""
        return len(self._holders)

    def _drop(self, episode_id: str) -> bool:
        self._used.pop(episode_id, None)
        self._times.pop(episode_id, None)
        return self._episodes.pop(episode_id, None) is not None

    async def get(self, episode_id: str) -> Episode | None:
        self._evict()
        return self._episodes.get(episode_id)

    async def ids(self) -> list[str]:
        self._evict()
        return list(self._episodes)

    async def info(self) -> list[EpisodeInfo]:
        self._evict()
        return [
            EpisodeInfo(ep.id, len(ep.turns), len(ep.ledger), *self._times.get(ep.id, (None, None)))
            for ep in self._episodes.values()
        ]

    async def delete(self, episode_id: str) -> None:
        async with self._holders.hold(episode_id):
            if not self._drop(episode_id):
                raise episode_not_found(episode_id)

    async def close(self) -> None:
        return None


def _check_bounds(max_episodes: int | None, episode_ttl: float | None) -> None:
    if max_episodes is not None and max_episodes < 1:
        raise ConfigError(f"max_episodes must be at least 1, not {max_episodes}")
    if episode_ttl is not None and episode_ttl <= 0:
        raise ConfigError(f"episode_ttl must be a positive number of seconds, not {episode_ttl}")


# -- lazy turns -------------------------------------------------------------------------


class TurnLog(MutableSequence[Turn]):
    """An episode's turns, read from the state file only when somebody looks at them.

    The deterministic world model never reads the history, so a call in a long episode
    costs the same as one in a short episode; appending never loads anything.
    """

    def __init__(self, count: int, loader: Callable[[int], list[Turn]]) -> None:
        self._count = count
        self._loader = loader
        self._items: list[Turn] | None = None
        self._pending: list[Turn] = []

    def _all(self) -> list[Turn]:
        if self._items is None:
            self._items = self._loader(self._count) + self._pending
            self._pending = []
        return self._items

    @property
    def loaded(self) -> bool:
        return self._items is not None

    def tail(self, start: int) -> list[Turn]:
        """Turns from position ``start`` on, without loading the older ones."""
        if self._items is None and start >= self._count:
            return self._pending[start - self._count :]
        return self._all()[start:]

    def __len__(self) -> int:
        return len(self._items) if self._items is not None else self._count + len(self._pending)

    @overload
    def __getitem__(self, index: int) -> Turn: ...

    @overload
    def __getitem__(self, index: slice) -> list[Turn]: ...

    def __getitem__(self, index: int | slice) -> Turn | list[Turn]:
        return self._all()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._all()[index] = value

    def __delitem__(self, index: int | slice) -> None:
        del self._all()[index]

    def insert(self, index: int, value: Turn) -> None:
        self._all().insert(index, value)

    def append(self, value: Turn) -> None:
        (self._items if self._items is not None else self._pending).append(value)

    def __iter__(self) -> Iterator[Turn]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, TurnLog)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"TurnLog({len(self)} turns{'' if self.loaded else ', not loaded'})"


def _tail(turns: Iterable[Turn], start: int) -> list[Turn]:
    if isinstance(turns, TurnLog):
        return turns.tail(start)
    return list(turns)[start:] if not isinstance(turns, list) else turns[start:]


# -- cross-process locks -------------------------------------------------------------


class _FileLocks:
    """Per-episode locks on one state file, shared by every store of this process.

    Inside a process an asyncio lock per episode serialises calls; across processes a POSIX
    record lock on one byte of ``PATH.lock`` (chosen by the episode id) does. The kernel drops
    record locks when a process dies, so a killed server never leaves an episode locked.
    Record locks belong to the process, which is why all stores of a process share this object.
    """

    _registry: dict[str, _FileLocks] = {}

    def __init__(self, lock_path: str) -> None:
        self.lock_path = lock_path
        self.refs = 0
        self.holders = _Holders()
        self.fd: int | None = None
        if fcntl is not None:
            self.fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        else:  # pragma: no cover - Windows
            log.warning("no POSIX record locks on this platform: processes sharing %s are not serialised", lock_path)

    @classmethod
    def acquire_for(cls, db_path: str) -> _FileLocks:
        key = os.path.realpath(db_path)
        locks = cls._registry.get(key)
        if locks is None:
            locks = cls._registry[key] = cls(key + ".lock")
        locks.refs += 1
        return locks

    def release(self) -> None:
        self.refs -= 1
        if self.refs <= 0:
            self._registry.pop(self.lock_path[: -len(".lock")], None)
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None

    @asynccontextmanager
    async def hold(self, episode_id: str) -> AsyncIterator[None]:
        async with self.holders.hold(episode_id):
            offset = int.from_bytes(hashlib.sha1(episode_id.encode()).digest()[:4], "big") >> 1
            await self._lock(offset)
            try:
                yield
            finally:
                if self.fd is not None:
                    fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, offset)

    async def _lock(self, offset: int) -> None:
        if self.fd is None:  # pragma: no cover - Windows
            return
        delay = 0.0005
        while True:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                return
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
            await asyncio.sleep(delay)  # another process is in this episode: poll, never block the loop
            delay = min(delay * 2, 0.05)


# -- SQLite -----------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    id TEXT PRIMARY KEY,
    seed INTEGER NOT NULL,
    version INTEGER NOT NULL,
    turn_count INTEGER NOT NULL,
    next_seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    counters TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    episode TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (episode, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entities (
    episode TEXT NOT NULL,
    collection TEXT NOT NULL,
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (episode, collection, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entities_order ON entities (episode, seq);
"""


def world_fingerprint(world: World) -> str:
    """What a state file must agree with: the tools, the seed state and the scenario."""
    data = {"tools": world.tools, "seed": world.seed, "scenario": world.scenario}
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass
class _Cached:
    """What this process knows about an episode as of its last load or save."""

    episode: Episode
    version: int | None  # None: not in the file yet
    ledger: Ledger
    turns: Any
    saved_turns: int
    state_json: str | None
    counters_json: str | None
    next_seq: int
    used: float = 0.0  # the store's clock() at the end of the last call


class SqliteStore:
    """Episodes in a SQLite file: survives restarts, shared by processes (``--state PATH``).

    Every call holds its episode's lock (in-process and across processes) from load to save,
    so calls to one episode never interleave, whichever process makes them; calls to other
    episodes proceed. Loading an episode this process already holds costs one indexed read
    (its version); saving writes only the turn and what the turn changed.

    The in-memory cache is bounded: ``max_episodes`` (``cache_size``) and ``episode_ttl``
    evict idle episodes, least recently used first, never one in use. An evicted episode stays
    in the file and is read back, intact, by its next call.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        world: World | None = None,
        *,
        cache_size: int = 1024,
        synchronous: str = "NORMAL",
        timeout: float = 30.0,
        max_episodes: int | None = None,
        episode_ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_bounds(max_episodes, episode_ttl)
        self.path = str(path)
        self.cache_size = max_episodes if max_episodes is not None else cache_size
        self.episode_ttl = episode_ttl
        self.evicted = 0
        self._clock = clock
        self.world_name: str | None = None
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        directory = Path(self.path).resolve().parent
        if not directory.is_dir():
            raise StateFileError(f"cannot create state file {self.path}: directory {directory} does not exist")
        try:
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous}")
            self._conn.executescript(_SCHEMA)
            self._check_format()
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            raise StateFileError(
                f"{self.path} is not a usable agentworld-mcp state file ({exc}); "
                "pass a new path to --state, or delete the file to start afresh"
            ) from None
        self._locks = _FileLocks.acquire_for(self.path)
        self._closed = False
        if world is not None:
            self.bind(world)

    # -- identity -----------------------------------------------------------------------

    def _check_format(self) -> None:
        with self._transaction():
            row = self._conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                self._conn.execute("INSERT INTO meta VALUES ('format', ?)", (str(STATE_FORMAT),))
            elif row[0] != str(STATE_FORMAT):
                raise StateFileError(
                    f"{self.path} has state file format {row[0]}, this agentworld-mcp reads format {STATE_FORMAT}; "
                    "use a new --state file"
                )

    def bind(self, world: World) -> None:
        """Tie the file to ``world``; a file made with another world is refused (StateFileError)."""
        fingerprint = world_fingerprint(world)
        with self._transaction():
            meta = dict(self._conn.execute("SELECT key, value FROM meta WHERE key LIKE 'world%'").fetchall())
            if "world_hash" not in meta:
                document = world.model_dump(mode="json", by_alias=True, exclude={"source"})
                self._conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("world_name", world.name), ("world_hash", fingerprint), ("world", _dumps(document)),
                    ("world_source", world.source or ""),
                ])
            elif meta["world_hash"] != fingerprint:
                if meta.get("world_name") == world.name:
                    why = f"a different version of world {world.name!r} (its tools, seed or scenario changed)"
                else:
                    why = f"world {meta.get('world_name')!r}, not {world.name!r}"
                raise StateFileError(
                    f"state file {self.path} holds episodes of {why}. Use another --state file for this world, "
                    f"or delete {self.path} to start afresh"
                )
        self.world_name = world.name

    def stored_world(self) -> JSONDict | None:
        """The world document the file was made with (lets the CLI reset without the world file)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key='world'").fetchone()
        return json.loads(row[0]) if row else None

    def stored_world_name(self) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key='world_name'").fetchone()
        return row[0] if row else None

    # -- the call path --------------------------------------------------------------------

    @asynccontextmanager
    async def session(self, episode_id: str, factory: EpisodeFactory) -> AsyncIterator[Episode]:
        self._evict()
        try:
            async with self._locks.hold(episode_id):
                with self._failures("reading episode " + repr(episode_id)):
                    episode = self._load(episode_id, factory)
                assert episode is not None
                try:
                    yield episode
                except BaseException:
                    self._cache.pop(episode_id, None)  # half-changed in memory: reload from the file next time
                    raise
                try:
                    with self._failures("saving episode " + repr(episode_id)):
                        self._save(episode)
                except BaseException:
                    self._cache.pop(episode_id, None)
                    raise
        finally:
            slot = self._cache.get(episode_id)
            if slot is not None:
                slot.used = self._clock()
                self._cache.move_to_end(episode_id)
            self._evict()

    @contextlib.contextmanager
    def _failures(self, doing: str) -> Iterator[None]:
        """A SQLite failure mid-call (a full disk, a read-only file) as the named StateStoreError."""
        try:
            yield
        except sqlite3.Error as exc:
            hint = ("free space on the disk holding it" if "full" in str(exc)
                    else "check the file and its directory are writable" if "readonly" in str(exc)
                    else "check the file and the disk holding it")
            raise StateStoreError(f"state store (SQLite file {self.path}) failed {doing}: {exc}",
                                  hint=f"{hint}, then call again; this call changed nothing") from exc

    async def committed_turns(self, episode_id: str) -> int:
        """How many turns of the episode the file holds (what a crash left committed)."""
        with self._failures("reading episode " + repr(episode_id)):
            row = self._conn.execute("SELECT turn_count FROM episodes WHERE id=?", (episode_id,)).fetchone()
        return int(row[0]) if row else 0

    @property
    def cached_episodes(self) -> int:
        return len(self._cache)

    @property
    def locks_held(self) -> int:
        return len(self._locks.holders)

    def _evict(self) -> None:
        """Drop idle cached episodes past the TTL or the cache size; the file keeps them."""
        now = self._clock()
        excess = len(self._cache) - self.cache_size
        victims: list[str] = []
        for episode_id, slot in self._cache.items():  # least recently used first
            if self._locks.holders.in_use(episode_id):
                continue
            expired = self.episode_ttl is not None and now - slot.used > self.episode_ttl
            if not expired and excess <= 0:
                break
            victims.append(episode_id)
            excess -= 1
        for episode_id in victims:
            del self._cache[episode_id]
        self.evicted += len(victims)

    def _load(self, episode_id: str, factory: EpisodeFactory | None) -> Episode | None:
        row = self._conn.execute(
            "SELECT version, seed, turn_count, next_seq, state, counters FROM episodes WHERE id=?", (episode_id,)
        ).fetchone()
        cached = self._cache.get(episode_id)
        if row is None:
            if factory is None:
                return None
            episode = factory(episode_id)
            slot = _Cached(episode, None, episode.ledger, episode.turns, 0, None, None, 0)
        elif cached is not None and cached.version == row[0]:
            self._cache.move_to_end(episode_id)
            return cached.episode
        else:
            version, seed, turn_count, next_seq, state_json, counters_json = row
            entities = [json.loads(d) for (d,) in self._conn.execute(
                "SELECT data FROM entities WHERE episode=? ORDER BY seq", (episode_id,))]
            ledger = Ledger.from_dict({"entities": entities, "counters": json.loads(counters_json)})
            turns = TurnLog(turn_count, functools.partial(self._read_turns, episode_id))
            episode = Episode(episode_id, seed, ledger, turns, json.loads(state_json))  # type: ignore[arg-type]
            slot = _Cached(episode, version, ledger, turns, turn_count, state_json, counters_json, next_seq)
        slot.used = self._clock()
        self._cache[episode_id] = slot
        self._cache.move_to_end(episode_id)
        self._evict()  # never this one: its call holds it
        return slot.episode

    def _read_turns(self, episode_id: str, count: int) -> list[Turn]:
        rows = self._conn.execute(
            "SELECT data FROM turns WHERE episode=? AND idx<=? ORDER BY idx", (episode_id, count)
        ).fetchall() if count else []
        return [Turn.from_dict(json.loads(d)) for (d,) in rows]

    def _save(self, episode: Episode) -> None:
        slot = self._cache.get(episode.id)
        if slot is None or slot.episode is not episode:
            raise EpisodeConflictError(f"episode {episode.id!r} was evicted while in use; this is a bug in agentworld-mcp")
        full = slot.version is None or episode.ledger is not slot.ledger or episode.turns is not slot.turns
        new_turns = list(episode.turns) if full else _tail(episode.turns, slot.saved_turns)
        state_json = _dumps(episode.state)
        counters_json = _dumps(episode.ledger.counters())
        changes = dict(episode.ledger.changes)
        if not (full or new_turns or changes or state_json != slot.state_json
                or counters_json != slot.counters_json):
            return
        version = secrets.randbits(62)
        now = time.time()
        next_seq = slot.next_seq
        with self._transaction():
            current = self._conn.execute("SELECT version FROM episodes WHERE id=?", (episode.id,)).fetchone()
            if (current[0] if current else None) != slot.version:
                raise EpisodeConflictError(
                    f"episode {episode.id!r} in {self.path} was changed by another process during this call "
                    "(without the per-episode lock); the call was not saved, retry it"
                )
            if full:
                next_seq = self._write_all(episode)
            else:
                next_seq = self._write_changes(episode, changes, next_seq)
            self._conn.executemany(
                "INSERT INTO turns (episode, idx, data) VALUES (?, ?, ?)",
                [(episode.id, t.index, _dumps(t.to_dict())) for t in new_turns],
            )
            self._conn.execute(
                "INSERT INTO episodes (id, seed, version, turn_count, next_seq, state, counters, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET version=excluded.version,"
                " seed=excluded.seed, turn_count=excluded.turn_count, next_seq=excluded.next_seq,"
                " state=excluded.state, counters=excluded.counters, updated_at=excluded.updated_at",
                (episode.id, episode.seed, version, len(episode.turns), next_seq, state_json, counters_json, now, now),
            )
        slot.version, slot.ledger, slot.turns = version, episode.ledger, episode.turns
        slot.saved_turns, slot.state_json, slot.counters_json, slot.next_seq = (
            len(episode.turns), state_json, counters_json, next_seq)
        episode.ledger.changes.clear()

    def _write_all(self, episode: Episode) -> int:
        self._conn.execute("DELETE FROM entities WHERE episode=?", (episode.id,))
        self._conn.execute("DELETE FROM turns WHERE episode=?", (episode.id,))
        entities = episode.ledger.to_dict()["entities"]
        self._conn.executemany(
            "INSERT INTO entities (episode, collection, key, seq, status, data) VALUES (?, ?, ?, ?, ?, ?)",
            [(episode.id, e["collection"], e["key"], seq, e.get("status", ""), _dumps(e)) for seq, e in enumerate(entities)],
        )
        return len(entities)

    def _write_changes(self, episode: Episode, changes: dict[tuple[str, str], bool], next_seq: int) -> int:
        """Write the slots the ledger changed, in its order; a (re)stored one moves to the end."""
        for (collection, key), moved in changes.items():
            entity = episode.ledger.get(collection, key, include_deleted=True)
            if entity is None:
                self._conn.execute("DELETE FROM entities WHERE episode=? AND collection=? AND key=?",
                                   (episode.id, collection, key))
                continue
            data = entity.to_dict()
            reorder = "seq=excluded.seq, " if moved else ""
            self._conn.execute(
                "INSERT INTO entities (episode, collection, key, seq, status, data) VALUES (?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (episode, collection, key) DO UPDATE SET {reorder}"
                "status=excluded.status, data=excluded.data",
                (episode.id, collection, key, next_seq, data.get("status", ""), _dumps(data)),
            )
            next_seq += 1
        return next_seq

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT: all of it lands in the file, or none of it."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # -- inspection ---------------------------------------------------------------------

    async def get(self, episode_id: str) -> Episode | None:
        async with self._locks.hold(episode_id):
            return self._load(episode_id, None)

    async def ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT id FROM episodes ORDER BY created_at, id")]

    async def info(self) -> list[EpisodeInfo]:
        rows = self._conn.execute(
            "SELECT e.id, e.turn_count, (SELECT count(*) FROM entities n WHERE n.episode=e.id AND n.status!='deleted'),"
            " e.created_at, e.updated_at FROM episodes e ORDER BY e.created_at, e.id"
        ).fetchall()
        return [EpisodeInfo(*row) for row in rows]

    async def delete(self, episode_id: str) -> None:
        async with self._locks.hold(episode_id):
            with self._transaction():
                gone = self._conn.execute("DELETE FROM episodes WHERE id=?", (episode_id,)).rowcount
                self._conn.execute("DELETE FROM entities WHERE episode=?", (episode_id,))
                self._conn.execute("DELETE FROM turns WHERE episode=?", (episode_id,))
            self._cache.pop(episode_id, None)
            if not gone:
                raise episode_not_found(episode_id)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._cache.clear()
        self._conn.close()
        self._locks.release()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


__all__ = ["EpisodeInfo", "EpisodeStore", "MemoryStore", "SqliteStore", "TurnLog", "world_fingerprint"]
