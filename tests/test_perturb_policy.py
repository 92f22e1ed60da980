"""Perturbation policies: where they come from, how they combine, how they are recorded."""

from __future__ import annotations


import jsonschema
import pytest

from agentworld_mcp import Simulator, World, load_world, load_world_data
from agentworld_mcp.errors import PerturbationPolicyError, WorldFileError
from agentworld_mcp.perturb import PRESETS, load_policy_arg, parse_policy, perturb_episode, perturber_for
from agentworld_mcp.world.world import world_schema

from .fake_openai import FakeOpenAI, json_reply


def tracker(**extra) -> World:
    import yaml

    from .conftest import WORLDS

    return load_world_data({**yaml.safe_load((WORLDS / "issue-tracker.yaml").read_text()), **extra})


def test_every_preset_is_valid_for_the_world_schema_and_the_policy_model():
    policy_schema = {"$defs": world_schema()["$defs"], **world_schema()["properties"]["perturbations"]}
    for name, body in PRESETS.items():
        jsonschema.validate(name, policy_schema)
        jsonschema.validate(body, policy_schema)
        assert parse_policy(name).all_rules()
    chaos_kinds = {r.kind for r in parse_policy("chaos").all_rules()}
    assert {"latency", "timeout", "rate_limit", "paginate", "conflict"} <= chaos_kinds


def test_a_bad_rule_in_a_world_file_names_the_line_and_the_problem(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("tools: [{name: t, inputSchema: {type: object}}]\nperturbations:\n  rules:\n    - kind: explode\n")
    with pytest.raises(WorldFileError) as caught:
        load_world(path)
    assert f"{path}:4: perturbations.rules[0].kind: 'explode' is not one of" in str(caught.value)


@pytest.mark.parametrize("policy, problem", [
    ({"kind": "timeout", "probability": 1.5}, "rules.0.probability: Input should be less than or equal to 1"),
    ({"kind": "instruct"}, "an 'instruct' rule needs 'text'"),
    ({"kind": "rate_limit", "limit": 5}, "'limit' and 'window' go together"),
    ({"kind": "protocol_error", "code": "oops"}, "unknown JSON-RPC code name 'oops'"),
    ({"preset": "flakey"}, "unknown preset 'flakey'; presets: flaky-network, rate-limited, paginated, chaos"),
    ({"kind": "timeout", "calls": [0]}, "call and turn numbers start at 1"),
    (42, "a policy is a preset name, a rule, a list of rules or a mapping, not int"),
])
def test_invalid_policies_say_what_is_wrong(policy, problem):
    with pytest.raises(PerturbationPolicyError) as caught:
        parse_policy(policy)
    assert problem in str(caught.value) and "docs/perturbations.md" in str(caught.value)


def test_perturb_arg_accepts_a_preset_a_file_or_inline_json(tmp_path):
    assert load_policy_arg("rate-limited").preset == ("rate-limited",)
    policy_file = tmp_path / "p.yaml"
    policy_file.write_text("perturbations:\n  - {kind: timeout, tools: 'create_*', calls: [2]}\n")
    assert load_policy_arg(str(policy_file)).rules[0].tools == ("create_*",)
    assert load_policy_arg('{"kind": "latency", "delay": [0.1, 0.2]}').rules[0].delay == (0.1, 0.2)
    with pytest.raises(PerturbationPolicyError, match="neither a preset"):
        load_policy_arg("no-such-thing.yaml")


async def test_world_file_policy_applies_and_each_turn_records_what_fired():
    sim = Simulator(tracker(perturbations=[{"kind": "not_found", "name": "gone", "tools": "get_*", "every": 2}]))
    results = [await sim.call("get_issue", {"issue_id": 1}) for _ in range(4)]
    assert [r.is_error for r in results] == [False, True, False, True]
    turns = await sim.trajectory()
    assert turns[1].perturbations == [{"kind": "not_found", "rule": "gone", "message": "404 Not Found: issue 1 does not exist"}]
    assert turns[0].perturbations == [] and sim.stats.perturbations["not_found"] == 2


async def test_run_call_and_episode_levels_override_in_that_order():
    world = tracker(perturbations={"rules": [{"kind": "timeout", "tools": "get_issue"}]})
    sim = Simulator(world, perturber=perturber_for(world, {"rules": [{"kind": "conflict", "tools": "get_issue"}]}))
    assert (await sim.call("get_issue", {"issue_id": 1})).text.startswith("409 Conflict")  # run replaces world
    inherit = {"inherit": True, "rules": [{"kind": "latency", "delay": 0}]}
    assert (await sim.call("get_issue", {"issue_id": 1}, perturb=inherit)).text.startswith("409")
    assert not (await sim.call("get_issue", {"issue_id": 1}, perturb="none")).is_error  # call replaces run
    await perturb_episode(sim, "calm", "none")
    assert not (await sim.call("get_issue", {"issue_id": 1}, episode="calm")).is_error
    assert (await sim.call("get_issue", {"issue_id": 1}, episode="other")).is_error  # episodes are separate
    sticky = {"scope": "episode", "rules": [{"kind": "permission_denied", "tools": "get_issue"}]}
    assert (await sim.call("get_issue", {"issue_id": 1}, episode="sticky", perturb=sticky)).text.startswith("403")
    assert (await sim.call("get_issue", {"issue_id": 1}, episode="sticky")).text.startswith("403")


async def test_rules_select_by_glob_and_role():
    world = tracker()
    sim = Simulator(world, perturber=perturber_for(world, [
        {"kind": "permission_denied", "roles": "write", "tools": "*_issue"},
        {"kind": "unavailable", "roles": "list"},
    ]))
    assert (await sim.call("update_issue", {"issue_id": 1, "title": "x"})).text.startswith("403 Forbidden")
    assert (await sim.call("list_issues", {})).text.startswith("503 Service Unavailable")
    assert (await sim.call("search_issues", {"query": "rocket"})).text.startswith("503")
    assert not (await sim.call("get_issue", {"issue_id": 1})).is_error  # a read, not a list
    assert not (await sim.call("add_comment", {"issue_id": 1, "body": "hi"})).is_error  # not *_issue


async def test_instructed_events_reach_the_llm_world_model_and_the_trajectory():
    """An ``instruct`` rule tells the world model what happened, at its turn and (persisting) after."""
    from agentworld_mcp.models import make_backend

    world = tracker()
    event = "The repository was archived: every write now fails with 403 and says so."
    reply = json_reply({"id": 1, "title": "Rocket fails to launch on Mondays", "status": "open", "priority": "high"})
    with FakeOpenAI(default=reply) as server:
        backend = make_backend(world, kind="llm", base_url=[server.url], model="fake-world-model")
        sim = Simulator(world, backend=backend, perturber=perturber_for(world, {"kind": "instruct", "turns": [2], "text": event}))
        async with sim:
            for _ in range(3):
                assert not (await sim.call("get_issue", {"issue_id": 1})).is_error
            turns = await sim.trajectory()
        prompts = [m["messages"][-1]["content"] for m in server.requests]
    assert event not in prompts[0]
    assert f"**Environment events:**\n- {event}" in prompts[1]
    assert f"(since turn 2) {event}" in prompts[2]
    assert [t.perturbations for t in turns][:2] == [[], [{"kind": "instruct", "rule": turns[1].perturbations[0]["rule"],
                                                          "text": event, "turn": 2}]]


async def test_a_turn_clock_makes_rate_limit_windows_the_same_on_any_machine():
    """``clock: turns`` counts retry_after in calls of the episode (one a second), not wall time."""
    world = tracker(perturbations=[{"kind": "rate_limit", "tools": "get_issue", "calls": [2], "retry_after": 2,
                                    "clock": "turns"}])
    sim = Simulator(world)
    outcomes = []
    for _ in range(5):
        result = await sim.call("get_issue", {"issue_id": 1})
        outcomes.append("429" if result.is_error else "ok")
    assert outcomes == ["ok", "429", "429", "ok", "ok"]
