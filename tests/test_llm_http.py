"""The llm backend's two request paths behave alike: aiohttp (the default when installed, a
fraction of the CPU per call) and the openai SDK's client (``fast_http: false``).

Both talk to the scripted model server (tests/fake_openai.py); every fault must read the same
on both, so switching paths changes the cost of a call and nothing an agent or a user sees.
tests/test_llm_faults.py and tests/test_llm_deadlines.py cover the faults in depth on the
default path.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel
from agentworld_mcp.models.llm_http import encode

from .conftest import WORLDS, free_port
from .fake_openai import FakeOpenAI, Reply, json_reply

ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}
FAST = {"backoff": 0.01, "max_backoff": 0.05, "timeout": 2.0}
PATHS = [pytest.param(True, id="aiohttp"), pytest.param(False, id="openai-sdk")]


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


def simulator(world, url: str, fast_http: bool, **settings) -> Simulator:
    backend = LLMWorldModel(LLMSettings(base_url=url, model="fake", fast_http=fast_http, **{**FAST, **settings}))
    return Simulator(world, backend=backend)


async def test_both_paths_send_the_same_request_with_the_api_key(world):
    bodies = []
    for fast_http in (True, False):
        with FakeOpenAI(default=json_reply(ISSUE)) as server:
            sim = simulator(world, server.url, fast_http, api_key="sk-test-123", extra_body={"top_k": 20})
            result = await sim.call("get_issue", {"issue_id": 4})
            await sim.aclose()
            assert not result.is_error and result.structured == ISSUE
            assert server.headers[0]["authorization"] == "Bearer sk-test-123"
            assert server.headers[0]["content-type"] == "application/json"
            bodies.append(server.requests[0])
    assert bodies[0] == bodies[1]
    assert bodies[0]["top_k"] == 20 and bodies[0]["messages"][0]["role"] == "system"


@pytest.mark.parametrize("fast_http", PATHS)
@pytest.mark.parametrize("script, settings, says", [
    ([Reply(status=429, headers={"retry-after": "0"}), json_reply(ISSUE)], {}, None),
    ([Reply(delay=1.2), json_reply(ISSUE)], {"timeout": 2.5, "attempt_timeout": 0.5}, None),
    ([Reply(status=400, error="response_format json_schema is not supported"), json_reply(ISSUE)], {}, None),
    ([Reply(status=500)] * 3, {"retries": 2}, ["failed 3 times", "InternalServerError"]),
    ([Reply(status=401, error="bad key")], {}, ["refused", "OPENAI_API_KEY"]),
    ([Reply(content=json.dumps({**ISSUE, "title": "x" * 5000}))], {"max_response_bytes": 2000},
     ["more than 2000 bytes", "max_response_bytes"]),
], ids=["429-retried", "hang-retried", "structured-outputs-rejected", "500s-run-out", "401-refused", "too-large"])
async def test_a_fault_reads_the_same_on_both_paths(world, fast_http, script, settings, says):
    with FakeOpenAI(script=list(script), default=json_reply(ISSUE)) as server:
        sim = simulator(world, server.url, fast_http, **settings)
        result = await sim.call("get_issue", {"issue_id": 4})
        if says is None:  # recovered: the agent never sees the fault
            assert not result.is_error and result.structured == ISSUE
            assert sim.stats.simulator_errors.total() == 0
        else:
            assert result.is_simulator_error and "comes from the simulator" in result.text
            assert all(part in result.text for part in says), result.text
        assert not (await sim.call("get_issue", {"issue_id": 4})).is_error  # and it serves the next call
        await sim.aclose()


@pytest.mark.parametrize("fast_http", PATHS)
async def test_an_endpoint_that_is_down_is_named(world, fast_http):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    sim = simulator(world, url, fast_http, retries=1)
    result = await sim.call("get_issue", {"issue_id": 4})
    assert result.is_simulator_error and url in result.text and "APIConnectionError" in result.text


def test_one_simulator_serves_calls_from_successive_event_loops(world):
    # A sync caller may drive one simulator from several loops (asyncio.run per call); the
    # aiohttp session of a finished loop must not be reused in the next one.
    with FakeOpenAI(default=json_reply(ISSUE)) as server:
        sim = simulator(world, server.url, True)
        for _ in range(2):
            assert not asyncio.run(sim.call("get_issue", {"issue_id": 4})).is_error
        assert len(server.requests) == 2
        asyncio.run(sim.aclose())


@pytest.mark.parametrize("body", [
    {"model": "m", "messages": [{"role": "system", "content": "é\"\\n" * 600}, {"role": "user", "content": "hi"}]},
    {"messages": []},
    {"model": "m", "messages": [{"role": "assistant", "content": None, "tool_calls": [{"id": 1}]}], "top_k": 3},
])
def test_the_encoded_body_is_the_json_of_the_request(body):
    assert json.loads(encode(body)) == body
    assert json.loads(encode(body)) == body  # the second time from the cache of long strings
