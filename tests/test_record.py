"""--record PATH: one line per turn, a file that grows by the size of each turn.

The lines export to AgentWorldBench samples readable the way eval.py reads them
(tests/test_export.py checks them byte for byte against the earlier full-history recorder).
"""

from __future__ import annotations

import errno
import json
import os
import resource
from pathlib import Path

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.errors import TrajectoryWriteError
from agentworld_mcp.trajectories.export import agentworldbench
from agentworld_mcp.models.prompt import OBSERVATION_MARKER, system_prompt
from agentworld_mcp.trajectories.record import TrajectoryRecorder, is_header, read_trajectory

from .conftest import WORLDS, stdio_session
from .test_redis_store import redis_url  # noqa: F401  a redis-server of this module's own

TRACKER = WORLDS / "issue-tracker.yaml"
FIELDS = {"task", "id", "system_str", "prompt", "response", "current_prompt", "turn_idx", "total_turns"}


def eval_messages(sample: dict) -> list[dict]:
    """The chat AgentWorldBench's eval.py rebuilds from a sample (history, then the current action)."""
    turn = sample["turn_idx"] - 1
    messages = [{"role": "system", "content": sample["system_str"]}]
    for prompt, response in zip(sample["prompt"][:turn], sample["response"][:turn]):
        messages += [{"role": "user", "content": prompt}, {"role": "assistant", "content": response}]
    return messages + [{"role": "user", "content": sample["current_prompt"]}]


def turns(path) -> list[dict]:
    return [line for line in read_trajectory(path) if not is_header(line)]


async def test_stdio_server_records_one_line_per_turn(tmp_path):
    record = tmp_path / "trajectory.jsonl"
    async with stdio_session(str(TRACKER), "--record", str(record), "--episode", "rec") as session:
        created = await session.call_tool("create_issue", {"title": "Recorded"})
        await session.call_tool("get_issue", {"issue_id": created.structuredContent["id"]})
        missing = await session.call_tool("get_issue", {"issue_id": 999})
    lines = read_trajectory(record)
    world = load_world(TRACKER)
    header, recorded = lines[0], lines[1:]
    assert is_header(header) and header["world"] == "issue-tracker" and header["system_str"] == system_prompt(world)
    assert [(t["episode"], t["turn"], t["tool"]) for t in recorded] == [
        ("rec", 1, "create_issue"), ("rec", 2, "get_issue"), ("rec", 3, "get_issue")]
    assert recorded[0]["arguments"] == {"title": "Recorded"}
    assert recorded[0]["result"]["structuredContent"] == created.structuredContent
    assert recorded[2]["is_error"] is True and recorded[2]["result"]["content"][0]["text"] == missing.content[0].text
    assert all(t["backend"] == "schema" and t["duration_ms"] >= 0 for t in recorded)

    samples = list(agentworldbench(lines))  # what `agentworld-mcp export` writes
    assert len(samples) == 3
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
    assert samples[0]["prompt"] == last["prompt"][:1]  # earlier samples are prefixes of later ones


async def test_process_per_call_recording_keeps_the_history(tmp_path):
    """Each process appends its turn; the export rebuilds the history from the file."""
    state, record = tmp_path / "state.db", tmp_path / "t.jsonl"
    for title in ("one", "two", "three"):
        async with stdio_session(str(TRACKER), "--state", str(state), "--record", str(record)) as session:
            await session.call_tool("create_issue", {"title": title})
    assert [t["turn"] for t in turns(record)] == [1, 2, 3]
    samples = list(agentworldbench(read_trajectory(record)))
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
    assert [t["turn"] for t in turns(record)] == [1, 2, 1]
    samples = list(agentworldbench(read_trajectory(record)))
    assert [s["turn_idx"] for s in samples] == [1, 2, 1]  # a reset starts a new trajectory
    assert len(samples[-1]["prompt"]) == 1


async def test_a_line_is_the_same_size_at_turn_1_and_turn_200(tmp_path):
    record = tmp_path / "t.jsonl"
    async with Simulator(load_world(TRACKER), recorders=[TrajectoryRecorder(record, fsync=False)]) as sim:
        for _ in range(200):
            await sim.call("get_issue", {"issue_id": 1})
    sizes = [len(json.dumps({**t, "started_at": 0, "duration_ms": 0}, ensure_ascii=False)) for t in turns(record)]
    assert len(sizes) == 200
    assert sizes[-1] - sizes[0] == len("200") - len("1")  # only the turn number grows


def test_a_partial_last_line_is_dropped_on_open(tmp_path):
    """A line cut short by an older crash (power loss) must not make the file invalid JSONL."""
    record = tmp_path / "t.jsonl"
    record.write_text('{"episode": "e", "turn": 1}\n{"episode": "e", "tur')
    TrajectoryRecorder(record).close()
    assert record.read_text() == '{"episode": "e", "turn": 1}\n'
    assert read_trajectory(record) == [{"episode": "e", "turn": 1}]


async def test_a_full_disk_raises_a_named_error_and_leaves_no_partial_line(tmp_path, monkeypatch):
    record = tmp_path / "t.jsonl"
    recorder = TrajectoryRecorder(record)
    sim = Simulator(load_world(TRACKER), recorders=[recorder])
    await sim.call("create_issue", {"title": "before the disk filled"}, episode="e")
    before = record.read_bytes()
    real_write = os.write

    def disk_fills_mid_line(fd: int, data) -> int:
        if fd != recorder._fd:
            return real_write(fd, data)
        real_write(fd, bytes(data[: len(data) // 2]))  # half the line lands, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", disk_fills_mid_line)
    line = TrajectoryRecorder.encode({"episode": "e", "turn": 99})
    with pytest.raises(TrajectoryWriteError, match="the disk is full; nothing of it was written") as caught:
        recorder.write_bytes(line)
    assert caught.value.kind == "record_error" and "free space" in caught.value.hint
    assert record.read_bytes() == before  # cut back: no partial line
    monkeypatch.undo()  # space again: recording goes on, the file is whole
    await sim.call("create_issue", {"title": "after"}, episode="e")
    await sim.aclose()
    assert [t["arguments"]["title"] for t in turns(record)] == ["before the disk filled", "after"]


# -- a failed write: the call is not committed, so state and trajectory agree ----------------


def _disk_full_for(recorder: TrajectoryRecorder, monkeypatch) -> None:
    """Writes to the recorder's file land half a line, then fail with ENOSPC."""
    real_write = os.write

    def write(fd: int, data) -> int:
        if fd != recorder._fd:
            return real_write(fd, data)
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("store", ["memory", "sqlite", "redis"])
async def test_a_call_the_full_disk_kept_out_of_the_file_is_kept_out_of_the_state(tmp_path, monkeypatch, store,
                                                                                 request):
    """Recorded first, committed after: a turn the file lacks changed nothing, in every store."""
    if store == "redis":  # a database of its own (test_redis_store.py uses 1-14)
        state = f"{request.getfixturevalue('redis_url')}/15"
    else:
        state = None if store == "memory" else str(tmp_path / "state.db")
    record = tmp_path / "t.jsonl"
    recorder = TrajectoryRecorder(record, fsync=False)
    sim = Simulator(load_world(TRACKER), store=state, recorders=[recorder])
    await sim.reset("e")  # a Redis database other runs may have used
    await sim.call("create_issue", {"title": "before the disk filled"}, episode="e")

    _disk_full_for(recorder, monkeypatch)
    lost = await sim.call("create_issue", {"title": "lost"}, episode="e")
    assert lost.is_simulator_error and lost.meta["agentworld/simulator_error"] == "record_error"
    assert "the disk is full; nothing of it was written" in lost.text and "free space" in lost.text
    monkeypatch.undo()  # space again

    after = await sim.call("create_issue", {"title": "after"}, episode="e")
    assert not after.is_error
    titles = [i["title"] for i in (await sim.state("e"))["issues"]]
    assert "lost" not in titles and titles[-2:] == ["before the disk filled", "after"]
    assert after.structured["id"] == titles.index("after") + 1  # the failed create took no id
    in_file = [(t["turn"], t["arguments"]["title"]) for t in turns(record)]
    kept = [(t.index, t.arguments["title"]) for t in await sim.trajectory("e") if not t.result.get("isError")]
    assert in_file == kept == [(1, "before the disk filled"), (3, "after")]  # turn 2 is the failure, in memory only
    await sim.aclose()
    if state is not None and store == "sqlite":  # what a restart reads back agrees too
        again = Simulator(load_world(TRACKER), store=state)
        assert [i["title"] for i in (await again.state("e"))["issues"]] == titles
        await again.aclose()


async def test_over_stdio_a_file_size_limit_fails_the_call_in_band_and_the_next_one_is_recorded(tmp_path):
    """Through a real client: the write fails (EFBIG past RLIMIT_FSIZE), the call gets the named error."""
    record = tmp_path / "t.jsonl"
    async with stdio_session(str(TRACKER), "--record", str(record), "--episode", "e") as session:
        first = await session.call_tool("create_issue", {"title": "before the limit"})
        assert not first.isError
        pid = _server_pid(str(record))
        size = record.stat().st_size
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))  # not one more byte
        lost = await session.call_tool("create_issue", {"title": "lost"})
        assert lost.isError and "simulator error: record_error" in lost.content[0].text
        assert record.stat().st_size == size  # no partial line
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        after = await session.call_tool("create_issue", {"title": "after"})
        listed = await session.call_tool("list_issues", {})
    assert not after.isError and after.structuredContent["id"] == first.structuredContent["id"] + 1
    assert "lost" not in listed.content[0].text and "after" in listed.content[0].text
    assert [t["arguments"].get("title") for t in turns(record)] == ["before the limit", "after", None]


def _server_pid(marker: str) -> int:
    """The pid of the ``agentworld-mcp serve`` process whose command line holds ``marker``."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in cmdline and b"serve" in cmdline:
                return int(entry.name)
    raise AssertionError(f"no server process with {marker} on its command line")
