"""Injected errors, rate limits, faults and latency, seen through real MCP clients.

Every policy here reaches the server the way a user sends it: ``--perturb`` on the
command line, or the ``agentworld/perturb`` ``_meta`` key of one call.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from mcp.shared.exceptions import McpError

from agentworld_mcp.perturb import ERROR_KINDS

from .conftest import http_server, http_session, stdio_session

META = "agentworld/perturb"
EPISODE = "agentworld/episode"

#: The first words of each error kind's message on a REST-ish tool (the issue tracker).
HTTP_WORDING = {
    "rate_limit": "429 Too Many Requests: rate limit exceeded, retry after 1s",
    "timeout": "504 Gateway Timeout",
    "unavailable": "503 Service Unavailable",
    "server_error": "500 Internal Server Error",
    "not_found": "404 Not Found: issue 1 does not exist",
    "permission_denied": "403 Forbidden: you do not have permission to read issue 1",
    "conflict": "409 Conflict: issue 1 was modified by another request",
    "validation": "422 Unprocessable Entity: validation failed: issue_id: is invalid",
}


async def _fired_calls(session, kind: str, episode: str, calls: int = 12) -> list[int]:
    """Which of ``calls`` get_issue calls fail when ``kind`` fires with probability 0.3."""
    rule = {"kind": kind, "tools": "get_issue", "probability": 0.3}
    failed = []
    for n in range(1, calls + 1):
        result = await session.call_tool("get_issue", {"issue_id": 1}, meta={META: rule, EPISODE: episode})
        if result.isError:
            failed.append(n)
            assert result.content[0].text.startswith(HTTP_WORDING[kind].split(":")[0])
    return failed


async def test_each_error_kind_fires_on_the_scheduled_call_worded_like_the_service(tracker_world):
    """``calls: [3]``: the third selected call, and only it, fails; the message reads like a REST API."""
    async with stdio_session(str(tracker_world), "--seed", "7") as session:
        for kind in ERROR_KINDS:
            rule = {"kind": kind, "tools": "get_issue", "calls": [3]}
            outcomes = []
            for _ in range(5):
                result = await session.call_tool("get_issue", {"issue_id": 1}, meta={META: rule, EPISODE: kind})
                outcomes.append(result)
            assert outcomes[2].content[0].text.startswith(HTTP_WORDING[kind]), outcomes[2].content[0].text
            if kind == "rate_limit":  # the limit holds for the hinted second: immediate retries are refused
                assert [r.isError for r in outcomes] == [False, False, True, True, True]
                assert "retry after 1s" in outcomes[4].content[0].text
            else:
                assert [r.isError for r in outcomes] == [False, False, True, False, False], kind
                assert outcomes[3].structuredContent["id"] == 1  # the next call is served normally


async def test_probabilistic_errors_fire_on_the_same_calls_for_a_seed_and_move_with_another(tracker_world):
    runs: dict[str, dict[str, list[int]]] = {}
    for label, seed in (("seed 7", "7"), ("seed 7 again", "7"), ("seed 8", "8")):
        async with stdio_session(str(tracker_world), "--seed", seed) as session:
            runs[label] = {kind: await _fired_calls(session, kind, f"ep-{kind}") for kind in ERROR_KINDS}
    assert runs["seed 7"] == runs["seed 7 again"]  # a fresh server process, same seed: same calls fail
    for kind in ERROR_KINDS:
        assert runs["seed 7"][kind], f"{kind} never fired in 12 calls at p=0.3 with seed 7"
        assert runs["seed 7"][kind] != runs["seed 8"][kind], f"{kind}: seed 8 fails the same calls as seed 7"


async def test_failed_writes_change_nothing(tracker_world):
    """Injected errors answer before the world model: nothing is created, changed or deleted."""
    async with stdio_session(str(tracker_world)) as session:
        before = (await session.call_tool("list_issues", {})).structuredContent
        for kind in ERROR_KINDS:
            always = {"kind": kind, "roles": "write"}
            created = await session.call_tool("create_issue", {"title": f"ghost {kind}"}, meta={META: always})
            updated = await session.call_tool("update_issue", {"issue_id": 1, "status": "closed"}, meta={META: always})
            deleted = await session.call_tool("delete_issue", {"issue_id": 2}, meta={META: always})
            assert created.isError and updated.isError and deleted.isError, kind
        after = (await session.call_tool("list_issues", {})).structuredContent
        assert after == before
        assert (await session.call_tool("get_issue", {"issue_id": 1})).structuredContent["status"] == "open"
        # the same writes, unperturbed, do change the world
        assert not (await session.call_tool("create_issue", {"title": "real"})).isError
        assert (await session.call_tool("list_issues", {})).structuredContent["total"] == before["total"] + 1


async def test_a_client_that_waits_the_hinted_time_passes_the_rate_limit(tracker_world):
    policy = json.dumps({"rules": [{"kind": "rate_limit", "tools": "get_issue", "calls": [2], "retry_after": 1}]})
    async with stdio_session(str(tracker_world), "--perturb", policy) as session:
        assert not (await session.call_tool("get_issue", {"issue_id": 1})).isError
        limited = await session.call_tool("get_issue", {"issue_id": 1})
        assert limited.isError and limited.content[0].text == "429 Too Many Requests: rate limit exceeded, retry after 1s"
        impatient = await session.call_tool("get_issue", {"issue_id": 1})
        assert impatient.isError and "retry after 1s" in impatient.content[0].text  # the limit holds...
        await asyncio.sleep(int(impatient.content[0].text.rsplit("after ", 1)[1].rstrip("s")))
        patient = await session.call_tool("get_issue", {"issue_id": 1})
        assert not patient.isError and patient.structuredContent["id"] == 1  # ...and resets after the hint


async def test_a_quota_refuses_calls_beyond_the_limit_until_its_window_ends(tracker_world):
    quota = {"kind": "rate_limit", "name": "quota", "limit": 2, "window": 1}
    async with stdio_session(str(tracker_world)) as session:
        results = [await session.call_tool("get_issue", {"issue_id": 1}, meta={META: quota}) for _ in range(3)]
        assert [r.isError for r in results] == [False, False, True]
        wait = int(results[2].content[0].text.rsplit("after ", 1)[1].rstrip("s"))
        await asyncio.sleep(wait)
        assert not (await session.call_tool("get_issue", {"issue_id": 1}, meta={META: quota})).isError


async def test_file_tools_fail_with_errno_wording(tmp_path):
    world = tmp_path / "files.yaml"
    world.write_text(json.dumps({"name": "files", "tools": [{
        "name": "read_file", "description": "Read a file.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    }], "seed": {"files": [{"path": "/notes.txt", "content": "hi"}]}}))
    async with stdio_session(str(world)) as session:
        denied = await session.call_tool("read_file", {"path": "/notes.txt"}, meta={META: {"kind": "permission_denied"}})
        timed_out = await session.call_tool("read_file", {"path": "/notes.txt"}, meta={META: {"kind": "timeout"}})
        ok = await session.call_tool("read_file", {"path": "/notes.txt"})
    assert denied.content[0].text == "Error: EACCES: permission denied, open '/notes.txt'"
    assert timed_out.content[0].text == "Error: ETIMEDOUT: connection timed out, open '/notes.txt'"
    assert ok.content[0].text == "hi"


async def test_protocol_fault_is_a_json_rpc_error_with_the_named_code(tracker_world):
    fault = {"kind": "protocol_error", "code": "server_overloaded", "message": "Server overloaded"}
    async with stdio_session(str(tracker_world)) as session:
        with pytest.raises(McpError) as caught:
            await session.call_tool("get_issue", {"issue_id": 1}, meta={META: fault})
        assert caught.value.error.code == -32001 and caught.value.error.message == "Server overloaded"
        assert not (await session.call_tool("get_issue", {"issue_id": 1})).isError


async def test_a_hang_outlasts_the_client_timeout_without_holding_up_the_episode(tracker_world):
    hang = {"kind": "hang", "seconds": 30}
    async with stdio_session(str(tracker_world)) as session:
        with pytest.raises(McpError, match="Timed out"):
            await session.call_tool("get_issue", {"issue_id": 1}, read_timeout_seconds=timedelta(seconds=0.5),
                                    meta={META: hang})
        # the same (shared) episode keeps answering while the hung request sleeps
        later = await session.call_tool("get_issue", {"issue_id": 2}, read_timeout_seconds=timedelta(seconds=10))
        assert later.structuredContent["id"] == 2


async def test_latency_delays_one_episode_not_the_others(tracker_world):
    slow = {"kind": "latency", "delay": 1.0}
    with http_server(str(tracker_world)) as url:
        async with http_session(url) as session:
            order: list[str] = []

            async def call(episode: str, meta: dict) -> None:
                await session.call_tool("get_issue", {"issue_id": 1}, meta={EPISODE: episode, **meta})
                order.append(episode)

            await asyncio.gather(call("slow", {META: slow}), call("fast", {}))
    assert order == ["fast", "slow"]


async def test_cli_call_applies_a_preset_and_rejects_an_unknown_one(tracker_world):
    import subprocess
    import sys

    from .conftest import CLI

    ok = subprocess.run([*CLI, "call", str(tracker_world), "list_issues", "--perturb", "paginated"],
                        capture_output=True, text=True, timeout=60)
    page = json.loads(ok.stdout)["structuredContent"]
    assert len(page["issues"]) == 3 and page["total"] == 3 and page["next_cursor"] is None
    bad = subprocess.run([*CLI, "call", str(tracker_world), "list_issues", "--perturb", "flakey"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0
    assert "'flakey' is neither a preset (flaky-network, rate-limited, paginated, chaos)" in bad.stderr
    assert sys.executable  # the CLI ran under this interpreter
