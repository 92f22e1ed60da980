"""The llm backend against a misbehaving model server (a scripted test double of vLLM).

Every fault ends in one of two ways: a correct result (the fault was retried, re-asked or
parsed around) or an isError result that says it came from the simulator and what to do.
Either way the simulator keeps serving the next call.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.models import make_backend
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel
from agentworld_mcp.errors import ConfigError

from .conftest import WORLDS, free_port, stdio_session
from .fake_openai import FakeOpenAI, Reply, json_reply

ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}
FAST = {"backoff": 0.01, "max_backoff": 0.05, "timeout": 2.0}


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


def simulator(world, url: str | list[str], **settings) -> Simulator:
    return Simulator(world, backend=LLMWorldModel(LLMSettings(base_url=url, model="fake", **{**FAST, **settings})))


def assert_simulator_error(result, kind: str) -> None:
    assert result.is_error and result.is_simulator_error
    assert f"simulator error: {kind}" in result.text
    assert "comes from the simulator" in result.text


async def assert_keeps_serving(sim: Simulator, server: FakeOpenAI, world) -> None:
    server.script.append(json_reply(ISSUE))
    result = await sim.call("get_issue", {"issue_id": 1})
    assert not result.is_error
    jsonschema.validate(result.structured, world.tool("get_issue")["outputSchema"])


async def test_a_429_then_success_is_retried_and_the_agent_never_sees_it(world):
    with FakeOpenAI(script=[Reply(status=429, headers={"retry-after": "0"}), json_reply(ISSUE)]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("create_issue", {"title": "Crash on start", "priority": "high"})
        assert not result.is_error and result.structured["title"] == "Crash on start"
        assert len(server.requests) == 2
        assert sim.stats.simulator_errors.total() == 0


async def test_500s_until_retries_run_out_give_a_clear_endpoint_error_and_the_server_keeps_serving(world):
    with FakeOpenAI(script=[Reply(status=500)] * 3) as server:
        sim = simulator(world, server.url, retries=2)
        result = await sim.call("get_issue", {"issue_id": 1})
        assert_simulator_error(result, "endpoint_error")
        assert "failed 3 times" in result.text and "InternalServerError" in result.text
        assert len(server.requests) == 3
        assert sim.stats.simulator_errors["endpoint_error"] == 1
        await assert_keeps_serving(sim, server, world)


async def test_a_hung_server_times_out_and_is_retried(world):
    with FakeOpenAI(script=[Reply(delay=3), json_reply(ISSUE)]) as server:
        # --timeout bounds the whole call; attempt_timeout leaves room in it for a second attempt
        sim = simulator(world, server.url, timeout=2.5, attempt_timeout=0.5)
        result = await sim.call("get_issue", {"issue_id": 1})
        assert not result.is_error and len(server.requests) == 2


async def test_a_server_that_always_hangs_is_an_endpoint_error(world):
    with FakeOpenAI(default=Reply(delay=3, content="{}")) as server:
        sim = simulator(world, server.url, timeout=0.3, retries=1)
        result = await sim.call("get_issue", {"issue_id": 1})
        assert_simulator_error(result, "endpoint_error")
        assert "Timeout" in result.text


async def test_connection_refused_names_the_endpoint(world):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    sim = simulator(world, url, retries=1)
    result = await sim.call("get_issue", {"issue_id": 1})
    assert_simulator_error(result, "endpoint_error")
    assert url in result.text and "APIConnectionError" in result.text


async def test_a_dead_replica_is_skipped_round_robin(world):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with FakeOpenAI(default=json_reply(ISSUE)) as server:
        sim = simulator(world, [dead, server.url], retries=1)
        results = [await sim.call("get_issue", {"issue_id": 1}) for _ in range(4)]
        assert not any(r.is_error for r in results)
        assert len(server.requests) == 4


async def test_replicas_share_the_load(world):
    with FakeOpenAI(default=json_reply(ISSUE)) as a, FakeOpenAI(default=json_reply(ISSUE)) as b:
        sim = simulator(world, [a.url, b.url])
        for _ in range(6):
            await sim.call("get_issue", {"issue_id": 1})
        assert len(a.requests) == len(b.requests) == 3


@pytest.mark.parametrize(
    ("first", "why"),
    [
        (Reply(content=""), "empty content"),
        (Reply(content="<think>The issue probably exists...</think>"), "<think> only"),
        (Reply(content='{"id": 4, "title": "Crash on start", "status": '), "invalid JSON"),
        (Reply(content="Sure! Issue 4 is open and high priority."), "missing tags, prose instead of JSON"),
        (json_reply({"id": "four", "title": 3}), "valid JSON, invalid against the schema"),
    ],
)
async def test_bad_output_is_reasked_once_with_the_validators_message(world, first, why):
    with FakeOpenAI(script=[first, json_reply(ISSUE)]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("get_issue", {"issue_id": 4})
        assert not result.is_error, why
        assert result.structured["id"] == 4
        reask = server.requests[1]["messages"]
        assert reask[:-2] == server.requests[0]["messages"]  # the same conversation, plus the correction
        assert reask[-1]["role"] == "user" and "not valid for `get_issue`" in reask[-1]["content"]
        episode = await sim.episode()
        assert episode.turns[-1].info["reasked"] is True


@pytest.mark.parametrize(
    "bad",
    [Reply(content=""), Reply(content="<think>hmm</think>"), Reply(content="{not json"), json_reply({"id": "x"})],
)
async def test_output_still_bad_after_the_reask_is_an_invalid_observation_error(world, bad):
    with FakeOpenAI(script=[bad, bad]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("get_issue", {"issue_id": 1})
        assert_simulator_error(result, "invalid_observation")
        assert "world model produced invalid output for tool 'get_issue'" in result.text
        assert result.structured is None  # never schema-invalid structuredContent
        assert sim.stats.simulator_errors["invalid_observation"] == 1
        await assert_keeps_serving(sim, server, world)


async def test_reasoning_content_split_out_by_the_server_is_ignored(world):
    # vLLM's --reasoning-parser qwen3 moves the thinking into reasoning_content.
    decoy = json.dumps({**ISSUE, "title": "WRONG"})
    reply = Reply(content="**Environment Observation:**\n" + json.dumps(ISSUE), reasoning_content=f"maybe {decoy}")
    with FakeOpenAI(script=[reply]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("get_issue", {"issue_id": 4})
        assert result.structured == ISSUE


async def test_predicted_observation_tags_and_mcp_wrappers_are_read(world):
    wrapped = json.dumps({"type": "text", "text": json.dumps(ISSUE)})
    reply = Reply(content=f"<think>draft <predicted_observation>{{}}</predicted_observation></think>"
                          f"<predicted_observation>{wrapped}</predicted_observation>")
    with FakeOpenAI(script=[reply]) as server:
        sim = simulator(world, server.url)
        assert (await sim.call("get_issue", {"issue_id": 4})).structured == ISSUE


async def test_a_predicted_tool_failure_is_a_realistic_error_result(world):
    with FakeOpenAI(script=[Reply(content="**Environment Observation:**\nIssue not found: 42")]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("get_issue", {"issue_id": 42})
        assert result.is_error and not result.is_simulator_error
        assert result.text == "Issue not found: 42"


async def test_structured_outputs_ask_for_the_tools_schema_and_fall_back_when_rejected(world):
    rejected = Reply(status=400, error="response_format json_schema is not supported by this server")
    with FakeOpenAI(script=[rejected, json_reply(ISSUE), json_reply(ISSUE)]) as server:
        sim = simulator(world, server.url)
        assert not (await sim.call("get_issue", {"issue_id": 4})).is_error
        first, second = server.requests[0], server.requests[1]
        assert first["response_format"]["json_schema"]["schema"] == world.tool("get_issue")["outputSchema"]
        assert "response_format" not in second
        await sim.call("get_issue", {"issue_id": 4})
        assert "response_format" not in server.requests[2]  # remembered per endpoint


async def test_sampling_settings_and_api_key_reach_the_server(world):
    with FakeOpenAI(default=json_reply(ISSUE)) as server:
        sim = simulator(world, server.url, temperature=0.2, max_tokens=321, api_key="sk-test-123")
        await sim.call("get_issue", {"issue_id": 1})
        body = server.requests[0]
        assert (body["temperature"], body["max_tokens"], body["model"]) == (0.2, 321, "fake")
        assert server.headers[0]["authorization"] == "Bearer sk-test-123"


async def test_without_a_model_name_the_servers_first_model_is_used(world):
    with FakeOpenAI(default=json_reply(ISSUE), model="Qwen/Qwen-AgentWorld-35B-A3B") as server:
        sim = Simulator(world, backend=LLMWorldModel(LLMSettings(base_url=server.url, **FAST)))
        await sim.call("get_issue", {"issue_id": 1})
        assert server.requests[0]["model"] == "Qwen/Qwen-AgentWorld-35B-A3B"


def test_settings_come_from_the_world_file_then_the_environment_then_flags():
    env = {"AGENTWORLD_BASE_URL": "http://a:1/v1,http://b:2/v1", "AGENTWORLD_MODEL": "m-env", "OPENAI_API_KEY": "sk-secret-value"}
    settings = LLMSettings.resolve({"type": "llm", "model": "m-world", "temperature": 0.1}, env=env, max_tokens=99)
    assert settings.base_urls == ["http://a:1/v1", "http://b:2/v1"]
    assert (settings.model, settings.temperature, settings.max_tokens) == ("m-env", 0.1, 99)
    assert "sk-secret-value" not in repr(settings)  # the key is a secret, never printed
    assert settings.api_key.get_secret_value() == "sk-secret-value"
    assert LLMSettings.resolve({}, env=env, model="m-flag", base_url=["http://c:3/v1"]).base_urls == ["http://c:3/v1"]


def test_bad_settings_are_a_config_error_that_names_the_setting():
    with pytest.raises(ConfigError, match="base_url.*http://localhost:8000/v1"):
        LLMSettings.resolve({}, env={}, base_url=["localhost:8000"])
    with pytest.raises(ConfigError, match="temprature"):
        LLMSettings.resolve({"temprature": 0.5}, env={})


def test_the_factory_refuses_llm_flags_on_the_schema_backend(world):
    with pytest.raises(ConfigError, match="only apply to the llm backend"):
        make_backend(world, kind="schema", model="x")
    assert make_backend(world).name == "schema"
    assert make_backend(world, kind="llm", base_url=["http://127.0.0.1:1/v1"]).name == "llm"


async def test_through_a_real_mcp_client_faults_become_simulator_errors_and_serving_goes_on(tracker_world):
    script = [Reply(status=503)] * 2 + [json_reply(ISSUE)]
    with FakeOpenAI(script=script) as server:
        args = [str(tracker_world), "--backend", "llm", "--base-url", server.url, "--model", "fake", "--timeout", "5"]
        async with stdio_session(*args, env={"AGENTWORLD_BASE_URL": ""}) as session:
            # retries (3 by default) absorb the two 503s
            ok = await session.call_tool("get_issue", {"issue_id": 4})
            assert not ok.isError and ok.structuredContent == ISSUE
            server.script.extend([Reply(content="not json")] * 2)
            bad = await session.call_tool("get_issue", {"issue_id": 4})
            assert bad.isError and "simulator error: invalid_observation" in bad.content[0].text
            assert bad.structuredContent is None
            server.script.append(json_reply(ISSUE))
            again = await session.call_tool("get_issue", {"issue_id": 4})
            assert not again.isError
