"""The server's heap under load: what was built at start-up is kept out of the cyclic collector's scans.

A server process holds a large, permanent heap once it has started (the world, its compiled
validators, the SDK's, Starlette's and pydantic's models): about 100,000 objects for the
bundled issue tracker. Python's full (generation 2) collection walks all of them, 15-20 ms
with the event loop stopped, and every request in flight waits for it: a pause of the size
of the whole p99 target at 32 concurrent clients (docs/scale.md, The HTTP path). Frozen
(:func:`gc.freeze`) after start-up, that heap is never scanned again (a full collection
then takes well under a millisecond); the collector still runs on what calls allocate, and
still frees their cycles.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect once, then move every object left into the permanent generation; how many were moved.

    Called once the server is ready to answer, so the objects frozen are the ones it keeps for
    its whole life; garbage made at start-up is collected first, not frozen with them.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


__all__ = ["freeze_startup_heap"]
