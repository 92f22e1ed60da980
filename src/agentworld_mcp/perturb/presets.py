"""Named policies, usable with ``--perturb NAME`` (plus ``--seed N``) or ``perturbations: NAME``.

Probabilities are per call and drawn from the episode's seed and turn number, so a preset
with a given seed perturbs the same calls every run. Rule names are stable (``preset/rule``):
they key the counters in episode state and appear in each turn's record.
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]

PRESETS: dict[str, JSONDict] = {
    # A network between the agent and the service that sometimes is slow or drops requests.
    "flaky-network": {"rules": [
        {"name": "flaky-network/latency", "kind": "latency", "probability": 0.3, "delay": [0.01, 0.15]},
        {"name": "flaky-network/timeout", "kind": "timeout", "probability": 0.12},
        {"name": "flaky-network/unavailable", "kind": "unavailable", "probability": 0.08},
    ]},
    # A service that throttles: every 5th call is refused with a retry hint; retrying before
    # the hinted second is refused again, retrying after it goes through.
    "rate-limited": {"rules": [
        {"name": "rate-limited/429", "kind": "rate_limit", "every": 5, "retry_after": 1},
    ]},
    # List and search tools answer in pages of 3 with stable cursors.
    "paginated": {"rules": [
        {"name": "paginated/pages", "kind": "paginate", "roles": ["list"], "page_size": 3},
    ]},
    # Everything above, plus the occasional server-side failure a careful agent must handle.
    "chaos": {"preset": ["flaky-network", "rate-limited", "paginated"], "rules": [
        {"name": "chaos/500", "kind": "server_error", "probability": 0.04},
        {"name": "chaos/conflict", "kind": "conflict", "roles": ["write"], "probability": 0.04},
        {"name": "chaos/forbidden", "kind": "permission_denied", "roles": ["write"], "probability": 0.02},
    ]},
}
