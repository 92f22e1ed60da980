"""``agentworld-mcp export --format agentworldbench``: the full-history samples of a per-turn file.

The reference is the recorder as it was before per-turn lines (tests/legacy_record.py, kept
verbatim): it sees the same turns as the per-turn recorder, and the export of the per-turn
file must equal what it wrote, byte for byte, over interleaved episodes, tool errors,
perturbations, a reset and a restart.
"""

from __future__ import annotations

import subprocess

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.trajectories.record import TrajectoryRecorder, read_trajectory

from .conftest import CLI, WORLDS
from .legacy_record import LegacyRecorder

TRACKER = WORLDS / "issue-tracker.yaml"


async def play(world, store, recorders, *, first: bool) -> None:
    sim = Simulator.from_world(world, store=store, recorders=recorders, perturb="flaky-network")
    if first:
        for name in ("A", "B"):
            created = await sim.run("create_issue", {"title": f"from {name}", "priority": "high"}, episode=name)
            await sim.run("get_issue", {"issue_id": 999}, episode=name)  # a tool error
            await sim.run("update_issue", {"issue_id": created.result.structured["id"], "status": "closed"},
                          episode=name)
        await sim.reset("B")
        await sim.run("list_issues", {}, episode="B")
    else:  # another process, after a restart: history from the state file (legacy) or the file (export)
        for _ in range(3):
            await sim.run("list_issues", {"status": "open"}, episode="A")
    for recorder in recorders:
        recorder.close()
    await sim.store.close()


async def test_export_is_byte_identical_to_the_full_history_recorder(tmp_path):
    world = load_world(TRACKER)
    per_turn, legacy, state = tmp_path / "turns.jsonl", tmp_path / "legacy.jsonl", tmp_path / "state.db"
    await play(world, str(state), [TrajectoryRecorder(per_turn), LegacyRecorder(legacy)], first=True)
    await play(world, str(state), [TrajectoryRecorder(per_turn), LegacyRecorder(legacy)], first=False)
    assert any(line["agentworld"]["perturbations"] for line in read_trajectory(legacy))  # the policy fired

    out = tmp_path / "bench.jsonl"
    done = subprocess.run([*CLI, "export", str(per_turn), "--format", "agentworldbench", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "exported 10 sample(s)" in done.stderr  # 3 + 3 turns, 1 after the reset, 3 after the restart
    assert out.read_bytes() == legacy.read_bytes()
    # and the per-turn file is smaller: each turn once, not once per later turn
    assert per_turn.stat().st_size < legacy.stat().st_size


def test_export_to_stdout_and_a_file_that_is_not_a_trajectory(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"hello": "world"}\n')
    done = subprocess.run([*CLI, "export", str(junk)], capture_output=True, text=True)
    assert done.returncode == 2 and "line 1 is not a trajectory turn" in done.stderr
    headless = tmp_path / "headless.jsonl"
    headless.write_text('{"world": "w", "episode": "e", "turn": 1, "tool": "t", "arguments": {}, "result": {}}\n')
    done = subprocess.run([*CLI, "export", str(headless)], capture_output=True, text=True)
    assert done.returncode == 2 and "no header line for world 'w'" in done.stderr
