"""The trajectory recorder as it was before per-turn records: one AgentWorldBench line per turn,
each holding the whole history so far. Kept verbatim (only this docstring and the class name
changed) as the reference that ``agentworld-mcp export --format agentworldbench`` must match
byte for byte (tests/test_export.py).
"""
from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agentworld_mcp.world.catalog import Catalog
from agentworld_mcp.models.prompt import assistant_turn, catalog_system_prompt, in_history, user_turn
from agentworld_mcp.state.episode import Episode, Turn
from agentworld_mcp.errors import ConfigError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("agentworld_mcp.trajectories.record")
JSONDict = dict[str, Any]

#: AgentWorldBench's task name for tool (MCP) environments.
TASK = "mcp"


class LegacyRecorder:
    """Appends one AgentWorldBench line per turn to ``path`` (``--record PATH``)."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True, task: str = TASK,
                 max_episodes: int = 1024) -> None:
        self.path = str(path)
        self.fsync = fsync
        self.task = task
        self.max_episodes = max_episodes
        try:
            self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ConfigError(f"cannot open trajectory file {self.path} for appending: {exc.strerror}; "
                              "check the directory exists and is writable") from None
        self._repair_tail()
        # Per episode: the prompt/response lists so far and the index of the last recorded turn.
        self._history: OrderedDict[tuple[str, str], tuple[int, list[str], list[str]]] = OrderedDict()

    # -- the TurnSink protocol -------------------------------------------------------------

    def record(self, catalog: Catalog, episode: Episode, turn: Turn) -> None:
        if not in_history(turn):
            return
        world = catalog.world
        prompts, responses = self._history_before(world.name, episode, turn)
        prompts.append(user_turn(turn.index, turn.tool, turn.arguments))
        responses.append(assistant_turn(turn.result))
        self._history[(world.name, episode.id)] = (turn.index, prompts, responses)
        while len(self._history) > self.max_episodes:
            self._history.popitem(last=False)
        self.write(self.sample(catalog, episode, turn, prompts, responses))

    def sample(self, catalog: Catalog, episode: Episode, turn: Turn, prompts: list[str], responses: list[str]) -> JSONDict:
        """One AgentWorldBench sample: the trajectory so far, evaluated at its last turn."""
        world = catalog.world
        return {
            "task": self.task,
            "id": f"{world.name}/{episode.id}",
            "system_str": catalog_system_prompt(catalog),
            "prompt": prompts,
            "response": responses,
            "current_prompt": prompts[-1],
            "turn_idx": len(prompts),
            "total_turns": len(prompts),
            "agentworld": {
                "world": world.name, "episode": episode.id, "turn": turn.index, "tool": turn.tool,
                "arguments": turn.arguments, "result": turn.result, "is_error": bool(turn.result.get("isError")),
                "backend": turn.backend, "perturbations": turn.perturbations,
                "started_at": turn.started_at, "duration_ms": turn.duration_ms,
            },
        }

    def write(self, line: JSONDict) -> None:
        """Append one line with one ``write``; flush and fsync before returning."""
        if self._fd is None:
            raise ConfigError(f"trajectory file {self.path} is closed")
        data = (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode()
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(self._fd)
        finally:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    # -- helpers ---------------------------------------------------------------------------

    def _history_before(self, world_name: str, episode: Episode, turn: Turn) -> tuple[list[str], list[str]]:
        known = self._history.get((world_name, episode.id))
        if known is not None and known[0] == turn.index - 1:
            self._history.move_to_end((world_name, episode.id))
            return known[1], known[2]
        # First turn this process sees of the episode (a restart, a process per call, a reset):
        # rebuild from the episode's own trajectory, which the store keeps.
        earlier = [t for t in episode.turns if t.index < turn.index and in_history(t)]
        return ([user_turn(t.index, t.tool, t.arguments) for t in earlier],
                [assistant_turn(t.result) for t in earlier])

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
        return f"LegacyRecorder({self.path!r})"


def read_trajectory(path: str | os.PathLike[str]) -> list[JSONDict]:
    """The lines of a trajectory file (raises ValueError naming the line that is not JSON)."""
    lines: list[JSONDict] = []
    for number, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not a JSON line ({exc})") from None
    return lines


__all__ = ["LegacyRecorder"]
