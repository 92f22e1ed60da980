"""Episode per rollout, as RL frameworks reach an MCP server (docs/rl.md): the runnable example.

``examples/rl/rollouts.py`` plays a group of rollouts concurrently against one HTTP server, half
naming their episode in the URL (verifiers, ART), half in ``_meta`` on one shared connection
(verl); each reads its reward from its episode's final state and releases the episode.
"""

from __future__ import annotations

import json
import subprocess
import sys

import httpx

from .conftest import ROOT, http_server

EXAMPLE = ROOT / "examples" / "rl" / "rollouts.py"
SEEDED = ["Rocket fails to launch on Mondays", "Update the launch checklist", "Telemetry dashboard shows UTC"]


def test_every_rollout_sees_only_its_own_episode_and_is_released(tracker_world):
    with http_server(str(tracker_world), "--admin") as url:
        done = subprocess.run([sys.executable, str(EXAMPLE), url, "--rollouts", "4"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        rollouts = [json.loads(line) for line in done.stdout.splitlines()]
        left = httpx.get(url.removesuffix("/mcp") + "/admin/episodes", timeout=30).json()["episodes"]
    assert sorted((r["style"], r["rollout"]) for r in rollouts) == sorted(
        (style, i) for style in ("url", "meta") for i in range(4))
    assert len({r["episode"] for r in rollouts}) == 8
    for r in rollouts:
        # its own issue on top of the seed, nobody else's: isolated, and from the seed state
        assert r["titles"] == [*SEEDED, f"found by rollout {r['rollout']}"], r
        # the seed has one closed issue; the rollout closed one more (or closed the closed one again)
        assert r["reward"] == (2 / 4 if r["rollout"] % 3 + 1 != 3 else 1 / 4), r
    assert not any(e["id"] in {r["episode"] for r in rollouts} for e in left)  # released
