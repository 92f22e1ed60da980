"""The consistency guard: the ledger catches what a language world model forgets."""

from __future__ import annotations

import pytest

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel

from .conftest import WORLDS
from .fake_openai import FakeOpenAI, json_reply

SEEDED_1 = {"id": 1, "title": "Rocket fails to launch on Mondays", "status": "open", "priority": "high"}


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


def simulator(world, url: str, **settings) -> Simulator:
    return Simulator(world, backend=LLMWorldModel(LLMSettings(base_url=url, model="fake", backoff=0.01, **settings)))


async def repairs(sim: Simulator) -> list[dict]:
    return (await sim.episode()).turns[-1].info["repairs"]


async def test_a_read_of_a_deleted_entity_answered_as_success_becomes_not_found(world):
    with FakeOpenAI(script=[json_reply({"deleted": True, "id": 2}),
                            json_reply({"id": 2, "title": "Update the launch checklist", "status": "open"})]) as server:
        sim = simulator(world, server.url)
        assert not (await sim.call("delete_issue", {"issue_id": 2})).is_error
        result = await sim.call("get_issue", {"issue_id": 2})
        assert result.is_error and not result.is_simulator_error
        assert result.text == "Issue not found: 2"
        assert [r["kind"] for r in await repairs(sim)] == ["deleted_entity"]
        assert sim.stats.repairs == 1


async def test_fields_that_contradict_the_ledger_are_patched_from_it(world):
    with FakeOpenAI(script=[json_reply({**SEEDED_1, "title": "Something else", "priority": "low"})]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("get_issue", {"issue_id": 1})
        assert result.structured["title"] == SEEDED_1["title"]
        assert result.structured["priority"] == "high"
        (repair,) = await repairs(sim)
        assert repair["kind"] == "field_patch"
        assert {f["field"] for f in repair["fields"]} == {"title", "priority"}


async def test_an_update_is_checked_against_its_arguments_not_the_old_state(world):
    with FakeOpenAI(script=[json_reply({**SEEDED_1, "status": "open"})]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("update_issue", {"issue_id": 1, "status": "closed"})
        assert result.structured["status"] == "closed"
        assert result.structured["title"] == SEEDED_1["title"]


async def test_a_created_entity_reflects_its_arguments_and_gets_a_fresh_id(world):
    created = {"id": 1, "title": "Another title", "status": "open", "priority": "low",
               "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/1"}
    with FakeOpenAI(script=[json_reply(created)]) as server:
        sim = simulator(world, server.url)
        result = await sim.call("create_issue", {"title": "Crash on start", "priority": "high"})
        assert result.structured["title"] == "Crash on start" and result.structured["priority"] == "high"
        assert result.structured["id"] == 4  # 1..3 are seeded: the model's "1" would clash
        assert {r["kind"] for r in await repairs(sim)} == {"argument_patch", "id_collision"}


async def test_deleted_entities_are_dropped_from_listings(world):
    listing = {"issues": [SEEDED_1, {"id": 2, "title": "Update the launch checklist", "status": "open"}], "total": 2}
    with FakeOpenAI(script=[json_reply({"deleted": True, "id": 2}), json_reply(listing)]) as server:
        sim = simulator(world, server.url)
        await sim.call("delete_issue", {"issue_id": 2})
        result = await sim.call("list_issues", {})
        assert [i["id"] for i in result.structured["issues"]] == [1]


async def test_a_consistent_answer_needs_no_repair(world):
    with FakeOpenAI(script=[json_reply(SEEDED_1)]) as server:
        sim = simulator(world, server.url)
        assert (await sim.call("get_issue", {"issue_id": 1})).structured == SEEDED_1
        assert await repairs(sim) == [] and sim.stats.repairs == 0


async def test_the_guard_can_be_turned_off(world):
    with FakeOpenAI(script=[json_reply({**SEEDED_1, "title": "Something else"})]) as server:
        sim = simulator(world, server.url, guard=False)
        assert (await sim.call("get_issue", {"issue_id": 1})).structured["title"] == "Something else"
