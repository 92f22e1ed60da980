"""The served process's start-up heap, frozen out of the garbage collector's full scans.

``serve`` owns its process, so once it is ready it collects start-up's garbage and freezes the
rest (a full collection of that heap paused every request in flight for 15-20 ms); an app
embedded in someone else's process (``http_app``) leaves that process's collector alone.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.serve.heap import freeze_startup_heap
from agentworld_mcp.serve.transport import http_app


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Whatever a test froze goes back to the collector afterwards (this process is the test run's)."""
    before = gc.get_freeze_count()
    yield
    if gc.get_freeze_count() != before:
        gc.unfreeze()


async def _started(app: Any) -> None:
    """Run the app's ASGI lifespan: start-up, then shut-down, as uvicorn does."""
    sent: list[dict[str, Any]] = []
    events = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

    async def receive() -> dict[str, Any]:
        return next(events)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


def test_start_up_garbage_is_collected_before_the_live_heap_is_frozen(unfrozen: None) -> None:
    garbage = _Cycle()
    gone = weakref.ref(garbage)
    kept = _Cycle()
    del garbage
    frozen = freeze_startup_heap()
    assert gone() is None  # a cycle start-up dropped is freed, not kept forever
    assert frozen == gc.get_freeze_count() > 0
    assert kept.me is kept


def test_an_app_embedded_in_another_process_leaves_its_garbage_collector_alone(tracker_world: Path,
                                                                                unfrozen: None) -> None:
    before = gc.get_freeze_count()
    anyio.run(_started, http_app(Simulator(load_world(tracker_world))))
    assert gc.get_freeze_count() == before


def test_the_app_serve_runs_freezes_its_heap_once_started(tracker_world: Path, unfrozen: None) -> None:
    anyio.run(_started, http_app(Simulator(load_world(tracker_world)), freeze_heap=True))
    assert gc.get_freeze_count() > 0
