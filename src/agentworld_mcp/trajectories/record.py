"""Trajectory files: every turn as one JSONL line (``--record PATH``).

A line holds one turn: the world, the episode, the turn index, the tool call, the full MCP
result, backend, perturbations and timings (``schemas/trajectory.schema.json``). So a file
grows by the size of each turn, whatever the episode's length. Before the first turn of a
world, the recorder writes one header line with the world's Tool World Model system prompt;
``agentworld-mcp export --format agentworldbench`` (:mod:`.export`) turns a file into
AgentWorldBench's full-history samples, which ``eval.py`` from QwenLM/Qwen-AgentWorld scores.

Each line is one ``write`` on a file opened for appending, under an advisory lock (several
processes may append to one file), then fsync'd: a killed process leaves every completed
turn in the file and never half a line. A write that fails (a full disk, a file size limit)
is cut back to where it started and raises :class:`TrajectoryWriteError`; a line torn by a
power loss is dropped when the file is next opened.

Simulator failures (endpoint down, cassette miss) are not world behaviour, so they get no
line, as they get no place in the prompts of the LLM world model.

With a persistent store (``--state``) a line and its turn's commit are one unit
(:meth:`TrajectoryRecorder.begin` / :meth:`~TrajectoryRecorder.end`): the line is written
first, the file stays locked until the store has committed the turn, and ``PATH.pending``
names the line meanwhile. A failed commit cuts the line back; a process killed between the
line and the commit leaves ``PATH.pending`` behind, and the next writer asks the store
whether that turn committed and drops the line if it did not. So the file never keeps a
line for a turn the state lacks, and a turn number is never written twice.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..world.catalog import Catalog
from ..state.episode import Episode, Turn
from ..errors import ConfigError, TrajectoryWriteError
from ..models.prompt import catalog_system_prompt, in_history

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("agentworld_mcp.trajectories.record")
JSONDict = dict[str, Any]

#: AgentWorldBench's task name for tool (MCP) environments.
TASK = "mcp"
#: The ``trajectory`` value of a header line; bumped when the line layout changes incompatibly.
FORMAT = "agentworld-mcp/turns-1"


def turn_line(world: str, episode: Episode, turn: Turn) -> JSONDict:
    """The record of one turn."""
    return {
        "world": world, "episode": episode.id, "turn": turn.index, "tool": turn.tool,
        "arguments": turn.arguments, "result": turn.result, "is_error": bool(turn.result.get("isError")),
        "backend": turn.backend, "perturbations": turn.perturbations,
        "started_at": turn.started_at, "duration_ms": turn.duration_ms,
    }


def header_line(catalog: Catalog, task: str = TASK) -> JSONDict:
    """What every turn of a world shares, written once per recorder and world."""
    return {"trajectory": FORMAT, "world": catalog.world.name, "task": task,
            "system_str": catalog_system_prompt(catalog)}


class TrajectoryRecorder:
    """Appends one line per turn to ``path`` (``--record PATH``)."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True, task: str = TASK) -> None:
        self.path = str(path)
        self.fsync = fsync
        self.task = task
        try:
            self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ConfigError(f"cannot open trajectory file {self.path} for appending: {exc.strerror}; "
                              "check the directory exists and is writable") from None
        self._repair_tail()
        self._headed: set[tuple[str, str]] = set()  # (world, system prompt) whose header this recorder wrote
        self._pending_fd: int | None = None  # PATH.pending, opened by the first begin()
        self._turn_lock: asyncio.Lock | None = None  # one begin()..end() at a time in this process
        self._held: tuple[int, bool] | None = None  # (size before the line, whether the intent was written)

    # -- the TurnSink protocol -------------------------------------------------------------

    def record(self, catalog: Catalog, episode: Episode, turn: Turn) -> None:
        if not in_history(turn):
            return
        line = self.encode(turn_line(catalog.world.name, episode, turn))
        key = (catalog.world.name, catalog_system_prompt(catalog))
        if key not in self._headed:
            # One write for header and turn: a failure leaves neither, and the header is retried.
            line = self.encode(header_line(catalog, self.task)) + line
        self.write_bytes(line)
        self._headed.add(key)

    # -- one unit with the store's commit (a persistent store) --------------------------------

    async def begin(self, catalog: Catalog, episode: Episode, turn: Turn,
                    committed: Callable[[str], Awaitable[int]]) -> None:
        """Write the turn's line and keep the file locked until :meth:`end` says whether it committed.

        ``committed(episode_id)`` is the store's committed turn count: a ``PATH.pending`` left by
        a killed process is settled with it first. Raises TrajectoryWriteError (nothing written,
        nothing held) when the line cannot be written.
        """
        if self._fd is None:
            raise ConfigError(f"trajectory file {self.path} is closed")
        if self._turn_lock is None:
            self._turn_lock = asyncio.Lock()
        await self._turn_lock.acquire()
        try:
            await self._flock()
            try:
                await self._settle_pending(catalog.world.name, committed)
                start = os.fstat(self._fd).st_size
                intent = in_history(turn)
                if intent:
                    self._write_pending({"world": catalog.world.name, "episode": episode.id, "turn": turn.index,
                                         "offset": start})
                    self.record_unlocked(catalog, episode, turn)
                self._held = (start, intent)
            except BaseException:
                self._clear_pending()
                self._unflock()
                raise
        except BaseException:
            self._turn_lock.release()
            raise

    def end(self, committed: bool) -> None:
        """The store committed the turn (keep its line) or did not (cut the line back); unlock."""
        if self._held is None:
            return
        start, intent = self._held
        self._held = None
        try:
            if intent and not committed and self._fd is not None:
                self._cut_back(start)  # still locked: nothing was appended after the line
            if intent:
                self._clear_pending()
        finally:
            self._unflock()
            if self._turn_lock is not None:
                self._turn_lock.release()

    def record_unlocked(self, catalog: Catalog, episode: Episode, turn: Turn) -> None:
        line = self.encode(turn_line(catalog.world.name, episode, turn))
        key = (catalog.world.name, catalog_system_prompt(catalog))
        if key not in self._headed:
            line = self.encode(header_line(catalog, self.task)) + line
        self._append(line)
        self._headed.add(key)

    async def _flock(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            return
        delay = 0.0005
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # type: ignore[arg-type]
                return
            except BlockingIOError:
                await asyncio.sleep(delay)  # another process is writing: poll, never block the loop
                delay = min(delay * 2, 0.05)

    def _unflock(self) -> None:
        if fcntl is not None and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _pending(self) -> int:
        if self._pending_fd is None:
            self._pending_fd = os.open(self.path + ".pending", os.O_RDWR | os.O_CREAT, 0o644)
        return self._pending_fd

    def _write_pending(self, intent: JSONDict) -> None:
        # No fsync: it must survive a killed process (the page cache does), like the commit it guards.
        os.pwrite(self._pending(), self.encode(intent), 0)

    def _clear_pending(self) -> None:
        if self._pending_fd is not None:
            os.ftruncate(self._pending_fd, 0)

    async def _settle_pending(self, world: str, committed: Callable[[str], Awaitable[int]]) -> None:
        """A line a killed process wrote before its commit: kept if the store has the turn, else dropped."""
        fd = self._pending()
        raw = os.pread(fd, 4096, 0)
        if not raw.strip():
            return
        try:
            intent = json.loads(raw)
            episode, turn, offset = str(intent["episode"]), int(intent["turn"]), int(intent["offset"])
        except (ValueError, KeyError, TypeError):
            log.warning("%s.pending is unreadable; ignoring it", self.path)
            self._clear_pending()
            return
        if intent.get("world") == world and await committed(episode) < turn:
            self._drop_line_at(offset, episode, turn)
        self._clear_pending()

    def _drop_line_at(self, offset: int, episode: str, turn: int) -> None:
        assert self._fd is not None
        with open(self.path, "rb") as f:
            f.seek(offset)
            tail = f.read()
        first, _, rest = tail.partition(b"\n")
        try:
            line = json.loads(first)
        except ValueError:
            return
        if is_header(line):  # the header went with the line in one write
            first2, _, rest = rest.partition(b"\n")
            line = json.loads(first2) if first2.strip() else {}
        if line.get("episode") != episode or line.get("turn") != turn:
            return
        log.warning("%s: dropping the line of turn %d of episode %r, which a killed process wrote but never "
                    "committed", self.path, turn, episode)
        os.ftruncate(self._fd, offset)
        if rest:
            self._append_raw(rest)

    @staticmethod
    def encode(line: JSONDict) -> bytes:
        return (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode()

    def write(self, line: JSONDict) -> None:
        """Append one line with one ``write``; flush and fsync before returning."""
        self.write_bytes(self.encode(line))

    def write_bytes(self, data: bytes) -> None:
        """Append whole lines, or nothing: a failed write is cut back and raises TrajectoryWriteError."""
        if self._fd is None:
            raise ConfigError(f"trajectory file {self.path} is closed")
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            self._append(data)
        finally:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _append(self, data: bytes) -> None:
        """Append under the lock the caller holds; cut back and raise TrajectoryWriteError on failure."""
        assert self._fd is not None
        start = os.fstat(self._fd).st_size
        try:
            self._append_raw(data)
        except OSError as exc:
            self._cut_back(start)
            why = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
            raise TrajectoryWriteError(
                f"could not append the turn to trajectory file {self.path}: {why}; nothing of it was written",
                hint="free space on the disk holding the --record file (or record elsewhere), then call again",
            ) from exc

    def _append_raw(self, data: bytes) -> None:
        assert self._fd is not None
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self.fsync:
            os.fsync(self._fd)

    def _cut_back(self, size: int) -> None:
        # Under the lock no other writer appended since ``size``: everything past it is this line.
        try:
            os.ftruncate(self._fd, size)  # type: ignore[arg-type]
        except OSError as exc:  # pragma: no cover - the restart repair drops the torn tail
            log.error("could not cut %s back to %d bytes after a failed write: %s", self.path, size, exc)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pending_fd is not None:
            os.close(self._pending_fd)
            self._pending_fd = None

    # -- helpers ---------------------------------------------------------------------------

    def _repair_tail(self) -> None:
        """A line cut short by a crash of some older writer is dropped, so the file stays valid JSONL."""
        assert self._fd is not None
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            with open(self.path, "rb") as f:
                size = f.seek(0, os.SEEK_END)
                if size == 0:
                    return
                f.seek(size - 1)
                if f.read(1) == b"\n":
                    return
                end = size
                while end > 0:
                    start = max(0, end - 65536)
                    f.seek(start)
                    cut = f.read(end - start).rfind(b"\n")
                    if cut >= 0:
                        end = start + cut + 1
                        break
                    end = start
            log.warning("%s ended with a partial line (%d bytes); dropping it", self.path, size - end)
            os.truncate(self.path, end)
        finally:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def __repr__(self) -> str:
        return f"TrajectoryRecorder({self.path!r})"


def read_trajectory(path: str | os.PathLike[str]) -> list[JSONDict]:
    """The lines of a trajectory file; :class:`ConfigError` for a file that cannot be read or a line
    that is not JSON (naming it), so every command that reads one says the same."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read trajectory file {path}: {exc.strerror}") from None
    lines: list[JSONDict] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not a JSON line ({exc}); a trajectory file has one JSON object "
                              "per line") from None
    return lines


def is_header(line: JSONDict) -> bool:
    return isinstance(line.get("trajectory"), str) and "system_str" in line


__all__ = ["FORMAT", "TASK", "TrajectoryRecorder", "header_line", "is_header", "read_trajectory", "turn_line"]
