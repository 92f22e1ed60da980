"""Hostile values for every tool of a catalog: valid arguments whose strings, numbers and lists are
the values that break servers (huge, empty, control characters, injection-shaped, traversal paths).

Used by ``tests/test_hostile_values.py``: the answers may be errors (the simulated tool refusing),
never a JSON-RPC error, a hang, a schema-invalid structuredContent or the simulator's own failure.
"""

from __future__ import annotations

import json
import random
from typing import Any

from .sweep import arguments_for

JSONDict = dict[str, Any]

HOSTILE_STRINGS = (
    "", " ", "x" * 20_000, "\u0000\u0001\u001f", "🚀💥👩‍👩‍👧‍👦", "\u202eevil\u202c", "'; DROP TABLE users; --",
    "../../../../etc/passwd", "{{7*7}} ${jndi:ldap://x} %s%n", "\\u0000 \\\" \\\\", "null", "<script>alert(1)</script>",
)
HOSTILE_NUMBERS = (0, -1, 2**63, -(2**63), 10**30, 1.5e308, -0.0)


def hostile(value: Any, rng: random.Random) -> Any:
    """``value`` with its strings, numbers and lists replaced by hostile ones of the same type."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return rng.choice(HOSTILE_STRINGS)
    if isinstance(value, int):
        return rng.choice([n for n in HOSTILE_NUMBERS if isinstance(n, int)])
    if isinstance(value, float):
        return rng.choice(HOSTILE_NUMBERS)
    if isinstance(value, list):
        items = [hostile(v, rng) for v in value]
        return items * 200 if items and rng.random() < 0.3 else items
    if isinstance(value, dict):
        return {k: hostile(v, rng) for k, v in value.items()}
    return value


#: The server's documented limit on one message (serve/screening.py): arguments past it are refused
#: with -32600 before any tool sees them (tests/test_transport_limits.py), so hostile values stay under it.
MESSAGE_LIMIT = 4 * 1024 * 1024


def hostile_arguments(catalog: str, tool: JSONDict, index: int) -> JSONDict:
    rng = random.Random(f"hostile:{catalog}:{tool['name']}:{index}")
    for _ in range(20):
        arguments: JSONDict = hostile(arguments_for(catalog, tool, index), rng)
        if len(json.dumps(arguments)) < MESSAGE_LIMIT - 64 * 1024:  # room for the JSON-RPC envelope
            return arguments
    return arguments_for(catalog, tool, index)
