"""Controllable perturbations: errors, latency, pagination and world events, from a seed.

See docs/perturbations.md. The engine calls :class:`PolicyPerturber` for every tool call;
the policy comes from the world file, the run (``--perturb``), the episode and the call.

May import: :mod:`agentworld_mcp.state`, :mod:`agentworld_mcp.world`,
:mod:`agentworld_mcp.errors`; never the world models or the pipeline.
"""

from __future__ import annotations

from typing import Any

from .perturber import META_KEY, STATE_KEY, PolicyPerturber, perturber_for
from .policy import EMPTY, ERROR_KINDS, RPC_CODES, Policy, Rule, load_policy_arg, parse_policy
from .presets import PRESETS


async def perturb_episode(sim: Any, episode: str, policy: Any) -> None:
    """Set ``episode``'s own policy (replacing the run's unless it says ``inherit: true``).

    ``None`` goes back to the run's policy. The policy is kept in the episode's state, so
    it follows the episode into any store.
    """
    parse_policy(policy, source=f"policy for episode {episode!r}")  # fail here, not on the next call
    async with sim.store.session(episode, sim._new_episode) as ep:
        mine = ep.state.setdefault(STATE_KEY, {})
        if policy is None:
            mine.pop("policy", None)
        else:
            mine["policy"] = policy.model_dump(mode="json") if isinstance(policy, Policy) else policy


__all__ = [
    "EMPTY", "ERROR_KINDS", "META_KEY", "PRESETS", "RPC_CODES", "Policy", "PolicyPerturber", "Rule",
    "load_policy_arg", "parse_policy", "perturb_episode", "perturber_for",
]
