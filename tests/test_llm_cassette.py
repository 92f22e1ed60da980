"""Cassettes: record the model's answers once, replay them byte for byte with no model."""

from __future__ import annotations

import json

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.models.cassette import FORMAT_VERSION, Cassette, CassetteWorldModel, request_key
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel
from agentworld_mcp.errors import ConfigError

from .conftest import WORLDS, free_port
from .fake_openai import FakeOpenAI, json_reply

ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}
EPISODE = [("create_issue", {"title": "Crash on start", "priority": "high"}), ("get_issue", {"issue_id": 4}),
           ("list_issues", {"status": "open"}), ("delete_issue", {"issue_id": 4})]


def answers(body: dict):
    """A deterministic fake model: a plausible answer per tool, numbered by request count."""
    tool = json.loads(body["messages"][-1]["content"].split("```json\n")[1].split("\n```")[0])["name"]
    return json_reply({
        "create_issue": ISSUE, "get_issue": ISSUE, "delete_issue": {"deleted": True, "id": 4},
        "list_issues": {"issues": [{"id": 4, "title": "Crash on start", "status": "open"}], "total": 1},
    }.get(tool, {}))


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


def simulator(world, cassette: Cassette, url: str | None, **settings) -> Simulator:
    llm = LLMWorldModel(LLMSettings(base_url=url, model="fake", backoff=0.01, retries=0, **settings))
    return Simulator(world, backend=CassetteWorldModel(llm, cassette))


async def play(sim: Simulator) -> list[dict]:
    results = [(await sim.call(tool, args)).to_dict() for tool, args in EPISODE]
    await sim.aclose()
    return results


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
async def test_a_recorded_episode_replays_byte_identically_with_no_model(world, tmp_path, suffix):
    path = tmp_path / f"episode{suffix}"
    with FakeOpenAI(default=answers) as server:
        recorded = await play(simulator(world, Cassette(path, "once"), server.url, api_key="sk-do-not-store"))
        assert len(server.requests) == len(EPISODE)
    text = path.read_text()
    assert "sk-do-not-store" not in text and "127.0.0.1" not in text and "authorization" not in text.lower()

    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: any request to a model would fail
    replayed = await play(simulator(world, Cassette(path, "none"), dead))
    assert json.dumps(replayed, sort_keys=True) == json.dumps(recorded, sort_keys=True)
    assert not any(r["isError"] for r in replayed)


async def test_the_file_has_a_format_version_and_readable_entries(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
    data = json.loads(path.read_text())
    assert data["version"] == FORMAT_VERSION
    first = data["interactions"][0]
    assert first["meta"]["tool"] == "create_issue" and first["meta"]["turn"] == 1
    assert first["key"] == request_key(first["request"])
    assert json.loads(first["responses"][0]["content"]) == ISSUE


async def test_a_miss_in_none_mode_names_the_closest_recorded_entries(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
    sim = simulator(world, Cassette(path, "none"), None)
    result = await sim.call("create_issue", {"title": "A different title"})
    assert result.is_simulator_error and "simulator error: cassette_miss" in result.text
    assert "no recorded answer for tool 'create_issue' at turn 1" in result.text
    assert "closest recorded:" in result.text and "(tool 'create_issue', turn 1," in result.text
    assert "--record-mode new_episodes" in result.text


async def test_once_mode_replays_an_existing_cassette_and_refuses_new_requests(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
        before = len(server.requests)
        sim = simulator(world, Cassette(path, "once"), server.url)
        await play(sim)
        assert len(server.requests) == before  # all replayed
        sim = simulator(world, Cassette(path, "once"), server.url)
        assert (await sim.call("get_issue", {"issue_id": 2})).is_simulator_error


async def test_new_episodes_mode_adds_what_is_missing(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
        sim = simulator(world, Cassette(path, "new_episodes"), server.url)
        await sim.call("get_issue", {"issue_id": 2})
        await sim.aclose()
        assert len(server.requests) == len(EPISODE) + 1
    assert len(json.loads(path.read_text())["interactions"]) == len(EPISODE) + 1


async def test_all_mode_rerecords_every_answer(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
        await play(simulator(world, Cassette(path, "all"), server.url))
        assert len(server.requests) == 2 * len(EPISODE)
    data = json.loads(path.read_text())
    assert all(len(i["responses"]) == 1 for i in data["interactions"])


async def test_sampling_settings_are_part_of_the_key(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url, temperature=0.6))
    sim = simulator(world, Cassette(path, "none"), None, temperature=0.0)
    assert (await sim.call(*EPISODE[0])).is_simulator_error


def test_none_mode_without_a_file_and_unknown_versions_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="does not exist and record mode is 'none'"):
        Cassette(tmp_path / "missing.json", "none")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 99, "interactions": []}))
    with pytest.raises(ConfigError, match="format version 99"):
        Cassette(old, "none")
    with pytest.raises(ConfigError, match="unknown record mode"):
        Cassette(old, "sometimes")  # type: ignore[arg-type]


async def test_writes_are_atomic_and_leave_no_temp_files(world, tmp_path):
    path = tmp_path / "c.json"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
