"""Run the async pipeline from sync code, even from inside a running event loop.

LangChain tools have a sync face (``tool.invoke``) and pytest fixtures are sync, but the
pipeline is async. ``asyncio.run`` would fail inside a running loop (a sync graph invoked
from an async test, a Jupyter cell) and would give every call a fresh loop, which breaks
clients that keep connections (the llm backend's HTTP pool). So every sync call goes to
one long-lived loop on a daemon thread, shared by the process.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from ..errors import ConfigError

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="agentworld-sync", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
            atexit.register(_stop, loop)
        return _loop


def _stop(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(loop.stop)


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on the shared background loop and return its result."""
    loop = _background_loop()
    if threading.current_thread() is _thread:
        coro.close()
        raise ConfigError(
            "a sync agentworld call was made from inside an async agentworld call (it would deadlock); "
            "use the async API (tool.ainvoke, await simulator.call) there"
        )
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
