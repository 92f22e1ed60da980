"""Reward functions for ``agentworld-mcp openenv --reward rewards:FUNCTION`` (docs/rl.md).

A reward function receives an ``EpisodeView`` (``episode``, ``state``, ``turns``, ``world``)
after every tool call and returns a float: the reward of the episode's state at that point,
so the last observation of a rollout carries the reward of its final state. ``state`` is the
ledger snapshot, live entities by collection (``{"issues": [{...}, ...]}``), the same as
``Simulator.state(episode)`` and ``agentworld-mcp episodes show``.
"""

from __future__ import annotations

from agentworld_mcp.integrations.openenv import EpisodeView


def issues_closed(view: EpisodeView) -> float:
    """The share of the tracker's issues that are closed (issue-tracker.yaml): 1.0 when none is left open."""
    issues = view.state.get("issues", [])
    if not issues:
        return 0.0
    return sum(1 for issue in issues if issue.get("status") == "closed") / len(issues)


def triaged_without_deleting(view: EpisodeView) -> float:
    """1.0 when every open issue has an assignee and no issue was deleted on the way; else 0.0.

    Rewards read the trajectory too: ``turns`` are the calls made, with their results.
    """
    if any(turn.tool == "delete_issue" and not turn.result.get("isError") for turn in view.turns):
        return 0.0
    open_issues = [i for i in view.state.get("issues", []) if i.get("status") == "open"]
    return 1.0 if open_issues and all(i.get("assignee") for i in open_issues) else 0.0
