"""--record PATH: one AgentWorldBench MCP line per turn, readable the way eval.py reads it."""

from __future__ import annotations

import json

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.prompt import OBSERVATION_MARKER, system_prompt
from agentworld_mcp.record import TrajectoryRecorder, read_trajectory

from .conftest import WORLDS, stdio_session

TRACKER = WORLDS / "issue-tracker.yaml"
FIELDS = {"task", "id", "system_str", "prompt", "response", "current_prompt", "turn_idx", "total_turns"}


def eval_messages(sample: dict) -> list[dict]:
    """The chat AgentWorldBench's eval.py rebuilds from a sample (history, then the current action)."""
    turn = sample["turn_idx"] - 1
    messages = [{"role": "system", "content": sample["system_str"]}]
    for prompt, response in zip(sample["prompt"][:turn], sample["response"][:turn]):
        messages += [{"role": "user", "content": prompt}, {"role": "assistant", "content": response}]
    return messages + [{"role": "user", "content": sample["current_prompt"]}]


async def test_stdio_server_records_one_line_per_turn(tmp_path):
    record = tmp_path / "trajectory.jsonl"
    async with stdio_session(str(TRACKER), "--record", str(record), "--episode", "rec") as session:
        created = await session.call_tool("create_issue", {"title": "Recorded"})
        await session.call_tool("get_issue", {"issue_id": created.structuredContent["id"]})
        missing = await session.call_tool("get_issue", {"issue_id": 999})
    samples = read_trajectory(record)
    assert len(samples) == 3
    world = load_world(TRACKER)
    for n, sample in enumerate(samples, 1):
        assert FIELDS <= set(sample)
        assert sample["task"] == "mcp" and sample["id"] == "issue-tracker/rec"
        assert sample["system_str"] == system_prompt(world)
        assert sample["turn_idx"] == sample["total_turns"] == n == len(sample["prompt"]) == len(sample["response"])
        assert sample["current_prompt"] == sample["prompt"][-1]
        assert sample["current_prompt"].startswith(f"### Turn {n}\n**Action:**\n```json")
        assert all(r.startswith(OBSERVATION_MARKER) for r in sample["response"])
        assert len(eval_messages(sample)) == 2 * n  # system + (n-1) pairs + current action
    last = samples[-1]
    assert json.loads(last["prompt"][0].split("```json\n", 1)[1].rsplit("\n```", 1)[0]) == {
        "name": "create_issue", "arguments": {"title": "Recorded"}}
    assert json.loads(last["response"][0].split("\n", 1)[1]) == created.structuredContent
    assert last["response"][2].endswith(missing.content[0].text)
    assert last["agentworld"]["is_error"] is True and last["agentworld"]["tool"] == "get_issue"
    assert samples[0]["prompt"] == last["prompt"][:1]  # earlier lines are prefixes of later ones


async def test_process_per_call_recording_keeps_the_history(tmp_path):
    """Each process rebuilds the earlier turns from the state file, so line N holds N turns."""
    state, record = tmp_path / "state.db", tmp_path / "t.jsonl"
    for title in ("one", "two", "three"):
        async with stdio_session(str(TRACKER), "--state", str(state), "--record", str(record)) as session:
            await session.call_tool("create_issue", {"title": title})
    samples = read_trajectory(record)
    assert [s["turn_idx"] for s in samples] == [1, 2, 3]
    assert [json.loads(r.split("\n", 1)[1])["title"] for r in samples[-1]["response"]] == ["one", "two", "three"]


async def test_python_api_recorder_and_reset(tmp_path):
    record = tmp_path / "t.jsonl"
    recorder = TrajectoryRecorder(record)
    async with Simulator(load_world(TRACKER), recorders=[recorder]) as sim:
        await sim.call("create_issue", {"title": "a"}, episode="r")
        await sim.call("create_issue", {"title": "b"}, episode="r")
        await sim.reset("r")
        await sim.call("create_issue", {"title": "c"}, episode="r")
    samples = read_trajectory(record)
    assert [s["turn_idx"] for s in samples] == [1, 2, 1]  # a reset starts a new trajectory
    assert len(samples[-1]["prompt"]) == 1


def test_a_partial_last_line_is_dropped_on_open(tmp_path):
    """A line cut short by an older crash (power loss) must not make the file invalid JSONL."""
    record = tmp_path / "t.jsonl"
    record.write_text('{"task": "mcp", "turn_idx": 1}\n{"task": "mcp", "tur')
    TrajectoryRecorder(record).close()
    assert record.read_text() == '{"task": "mcp", "turn_idx": 1}\n'
    assert read_trajectory(record) == [{"task": "mcp", "turn_idx": 1}]
