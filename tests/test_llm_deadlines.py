"""``--timeout`` is a deadline for the whole call to the model, whatever the endpoint does.

Against endpoints that hang, drip their body a byte at a time, answer 500 or 429 forever,
reset the connection, answer 200 with an HTML page or send megabytes (tests/fault_endpoints.py):
the call ends by the deadline with a named simulator error, never an unhandled exception,
and the episode is free again: the next call to it is answered once the endpoint recovers.
"""

from __future__ import annotations

import json
import time

import openai  # noqa: F401  imported up front: its first import (seconds) is not the endpoint's time
import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel

from .conftest import WORLDS, stdio_session
from .fake_openai import FakeOpenAI, Reply, json_reply
from .fault_endpoints import FaultEndpoint

ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}
DEADLINE = 2.0
EPISODE = "deadline"


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


def simulator(world, url: str, **settings) -> Simulator:
    # default retries (3) and backoff: the deadline, not a short backoff, is what ends the call
    return Simulator(world, backend=LLMWorldModel(LLMSettings(base_url=url, model="fake", timeout=DEADLINE, **settings)))


async def timed_call(sim: Simulator, **arguments):
    started = time.monotonic()
    result = await sim.call("get_issue", arguments or {"issue_id": 4}, episode=EPISODE)
    return result, time.monotonic() - started


def assert_simulator_error(result, kind: str) -> None:
    assert result.is_error and result.is_simulator_error, result.text
    assert result.meta["agentworld/simulator_error"] == kind
    assert f"simulator error: {kind}" in result.text and "comes from the simulator" in result.text


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("hang", "Timeout at the 2s deadline"),
        ("drip", "Timeout at the 2s deadline"),  # every byte is inside the read timeout; the deadline still ends it
        ("500", "InternalServerError"),
        ("reset", "APIConnectionError"),
        ("429", "RateLimitError"),  # Retry-After: 30 is past the deadline: fail now, not in 30 s
    ],
)
async def test_a_failing_endpoint_ends_the_call_by_the_deadline_and_the_episode_serves_the_next_call(world, mode, says):
    with FaultEndpoint(mode, content=json.dumps(ISSUE)) as endpoint:
        sim = simulator(world, endpoint.url)
        result, elapsed = await timed_call(sim)
        assert elapsed < 2 * DEADLINE, f"{mode}: the call took {elapsed:.1f}s with a {DEADLINE}s deadline"
        assert_simulator_error(result, "endpoint_error")
        assert says in result.text
        endpoint.mode = "ok"  # the endpoint recovers: the same episode is answered at once
        again, elapsed = await timed_call(sim)
        assert not again.is_error and again.structured == ISSUE
        assert elapsed < DEADLINE
        turns = await sim.trajectory(EPISODE)
        assert [t.result.get("isError", False) for t in turns] == [True, False]


async def test_a_hang_costs_the_deadline_not_the_deadline_per_attempt(world):
    with FaultEndpoint("hang") as endpoint:
        sim = simulator(world, endpoint.url, retries=3)
        result, elapsed = await timed_call(sim)
        assert_simulator_error(result, "endpoint_error")
        assert DEADLINE * 0.9 < elapsed < DEADLINE + 1.0  # not 4 attempts x 2 s
        assert endpoint.requests == 1


async def test_an_html_page_with_status_200_is_a_named_endpoint_error(world):
    with FaultEndpoint("non_json", content=json.dumps(ISSUE)) as endpoint:
        sim = simulator(world, endpoint.url)
        result, elapsed = await timed_call(sim)
        assert_simulator_error(result, "endpoint_error")
        assert "answered 200 with a body that is not JSON" in result.text and "502 Bad Gateway" in result.text
        assert "should be an OpenAI-compatible API root" in result.text
        assert elapsed < DEADLINE and endpoint.requests == 1  # not retried: asking again gets the same page
        endpoint.mode = "ok"
        assert not (await timed_call(sim))[0].is_error


async def test_json_that_is_not_a_chat_completion_is_a_named_endpoint_error(world):
    # what a health check, a proxy or another API answers on the same path
    with FaultEndpoint("not_completion") as endpoint:
        result, _ = await timed_call(simulator(world, endpoint.url))
        assert_simulator_error(result, "endpoint_error")
        assert "JSON that is not a chat completion (keys: ['status', 'version'])" in result.text


async def test_a_huge_body_is_refused_past_the_size_limit(world):
    with FaultEndpoint("huge", huge_bytes=16 << 20, content=json.dumps(ISSUE)) as endpoint:
        sim = simulator(world, endpoint.url, max_response_bytes=1 << 20)
        result, elapsed = await timed_call(sim)
        assert_simulator_error(result, "response_too_large")
        assert "more than 1048576 bytes" in result.text and "max_response_bytes" in result.text
        assert elapsed < DEADLINE
        endpoint.mode = "ok"
        assert not (await timed_call(sim))[0].is_error


async def test_a_declared_content_length_past_the_limit_is_refused_before_reading(world):
    with FakeOpenAI(default=json_reply({**ISSUE, "title": "x" * 5000})) as server:
        sim = simulator(world, server.url, max_response_bytes=1000)
        result, _ = await timed_call(sim)
        assert_simulator_error(result, "response_too_large")
        assert "more than 1000 bytes" in result.text


async def test_retry_after_is_honoured_up_to_the_cap(world):
    script = [Reply(status=429, headers={"retry-after": "30"}), json_reply(ISSUE)]
    with FakeOpenAI(script=script) as server:
        sim = simulator(world, server.url, max_retry_after=0.2)
        result, elapsed = await timed_call(sim)
        assert not result.is_error and result.structured == ISSUE
        assert 0.2 <= elapsed < 1.5 and len(server.requests) == 2


async def test_through_a_real_mcp_client_timeout_bounds_the_call(tracker_world):
    with FaultEndpoint("ok", content=json.dumps(ISSUE)) as endpoint:
        args = [str(tracker_world), "--backend", "llm", "--base-url", endpoint.url, "--model", "fake",
                "--timeout", str(DEADLINE), "--episode", EPISODE]
        async with stdio_session(*args, env={"AGENTWORLD_BASE_URL": ""}) as session:
            assert not (await session.call_tool("get_issue", {"issue_id": 4})).isError  # the server is warm
            endpoint.mode = "drip"
            started = time.monotonic()
            bad = await session.call_tool("get_issue", {"issue_id": 4})
            elapsed = time.monotonic() - started
            assert elapsed < 2 * DEADLINE
            assert bad.isError and "simulator error: endpoint_error" in bad.content[0].text
            endpoint.mode = "ok"
            good = await session.call_tool("get_issue", {"issue_id": 4})
            assert not good.isError and good.structuredContent == ISSUE


async def test_a_model_still_loading_is_reported_until_its_first_answer(world, monkeypatch, caplog):
    """vLLM takes minutes to load weights: the simulator says it is waiting, then stays quiet."""
    from agentworld_mcp.models import llm

    monkeypatch.setattr(llm, "PROGRESS_EVERY", 0.2)
    issue = {"id": 4, "title": "t", "status": "open", "created_at": "2026-03-09T09:01:00Z"}
    with FakeOpenAI(script=[json_reply(issue, delay=1.0), json_reply(issue, delay=1.0)]) as server:
        sim = Simulator(world, backend=LLMWorldModel(LLMSettings(base_url=server.url, model="fake", timeout=30)))
        with caplog.at_level("WARNING", logger="agentworld_mcp.llm"):
            await sim.call("create_issue", {"title": "t"})
            loading = [r for r in caplog.records if "still waiting for the world model" in r.getMessage()]
            caplog.clear()
            await sim.call("create_issue", {"title": "u"})  # answered once: a slow answer is just slow
            later = [r for r in caplog.records if "still waiting" in r.getMessage()]
        await sim.aclose()
    assert len(loading) >= 2 and server.url.rsplit("/v1", 1)[0] in loading[0].getMessage()
    assert later == []
