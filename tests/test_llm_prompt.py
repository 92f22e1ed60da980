"""Qwen-AgentWorld's MCP protocol: the prompt the model sees and how its answer is read."""

from __future__ import annotations

import json

import pytest

from agentworld_mcp import Effect, Ledger, Turn, load_world
from agentworld_mcp.models.prompt import (
    OBSERVATION_MARKER,
    ParseError,
    PromptOptions,
    build_messages,
    compaction_start,
    estimate_tokens,
    extract_observation,
    parse_observation,
    strip_thinking,
    system_prompt,
)
from agentworld_mcp.world.catalog import Catalog
from agentworld_mcp.state.result import SIMULATOR_ERROR_META

from .conftest import WORLDS


@pytest.fixture(scope="module")
def world():
    return load_world(WORLDS / "issue-tracker.yaml")


@pytest.fixture(scope="module")
def catalog(world):
    return Catalog(world)


def turn(index: int, tool: str, arguments: dict, observation: dict | str, *, error: bool = False, meta=None) -> Turn:
    text = observation if isinstance(observation, str) else json.dumps(observation, indent=2)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    if meta:
        result["_meta"] = meta
    return Turn(index, tool, arguments, result)


def test_system_prompt_carries_tools_demonstrations_scenario_and_seed(world):
    text = system_prompt(world)
    assert "Tool World Model" in text
    for tool in world.tools:
        assert json.dumps(tool["inputSchema"], ensure_ascii=False) in text
    assert world.scenario.split(".")[0] in text
    seeded_title = world.seed["issues"][0]["title"]
    assert seeded_title in text
    assert "{tool_definitions}" not in text and "{demonstrations}" not in text


def test_history_is_user_assistant_pairs_and_the_current_call_comes_last(world, catalog):
    history = [
        turn(1, "create_issue", {"title": "Crash"}, {"id": 4, "title": "Crash"}),
        turn(2, "get_issue", {"issue_id": 4}, {"id": 4, "title": "Crash"}),
    ]
    messages = build_messages(world, catalog["get_issue"], {"issue_id": 1}, 3, history, Ledger())
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    first = messages[1]["content"]
    assert first.startswith("### Turn 1\n**Action:**\n```json\n")
    assert json.loads(first.split("```json\n")[1].split("\n```")[0]) == {"name": "create_issue",
                                                                       "arguments": {"title": "Crash"}}
    assert messages[2]["content"].startswith(OBSERVATION_MARKER + "\n")
    assert json.loads(messages[2]["content"][len(OBSERVATION_MARKER):]) == {"id": 4, "title": "Crash"}
    assert messages[-1]["content"].startswith("### Turn 3\n**Action:**")


def test_simulator_failures_are_left_out_of_the_history(world, catalog):
    history = [
        turn(1, "list_issues", {}, "[agentworld-mcp simulator error] endpoint down", error=True,
             meta={SIMULATOR_ERROR_META: {"kind": "endpoint_error"}}),
        turn(2, "list_issues", {}, {"issues": [], "total": 0}),
    ]
    messages = build_messages(world, catalog["list_issues"], {}, 3, history, Ledger())
    assert "endpoint down" not in json.dumps(messages)
    assert "### Turn 2" in messages[1]["content"]


def test_ledger_facts_tell_the_model_what_exists_and_what_was_deleted(world, catalog):
    ledger = Ledger()
    ledger.seed(world.seed)
    ledger.apply([Effect("delete", "issues", "2")], turn=1)
    deleted = build_messages(world, catalog["get_issue"], {"issue_id": 2}, 2, [], ledger)[-1]["content"]
    assert "issues 2 was deleted (turn 1)" in deleted
    alive = build_messages(world, catalog["get_issue"], {"issue_id": 1}, 2, [], ledger)[-1]["content"]
    assert "issues 1 exists" in alive and world.seed["issues"][0]["title"] in alive
    assert "issues that exist now: 1, 3" in alive


def test_each_prompt_extends_the_previous_one_so_prefix_caches_hit(world, catalog):
    ledger, history, previous = Ledger(), [], None
    for i in range(1, 8):
        messages = build_messages(world, catalog["create_issue"], {"title": f"t{i}"}, i, history, ledger)
        if previous is not None:
            assert messages[: len(previous) - 1] == previous[:-1]  # all but the last (current) message
        previous = messages
        history.append(turn(i, "create_issue", {"title": f"t{i}"}, {"id": i, "title": f"t{i}"}))


def test_compaction_keeps_prompts_bounded_and_folds_old_turns_into_summaries(world, catalog):
    options = PromptOptions(history_budget_tokens=400)
    history = [turn(i, "create_issue", {"title": f"issue number {i}"}, {"id": i, "title": f"issue number {i}",
                                                                        "body": "x" * 200}) for i in range(1, 61)]
    messages = build_messages(world, catalog["get_issue"], {"issue_id": 1}, 61, history, Ledger(), options=options)
    kept = messages[1:-1]
    history_tokens = sum(estimate_tokens(m["content"], options) for m in kept)
    assert history_tokens <= 400 + 2 * len(kept)
    assert "# Session so far" in messages[0]["content"]
    first_kept = int(kept[0]["content"].split()[2])
    assert f"- Turn {first_kept - 1}: create_issue(" in messages[0]["content"]  # the fold ends where history starts
    assert "- Turn 1: " not in messages[0]["content"] and "earlier turns omitted" in messages[0]["content"]
    assert estimate_tokens(messages[0]["content"], options) <= estimate_tokens(system_prompt(world), options) + 220
    unbounded = build_messages(world, catalog["get_issue"], {"issue_id": 1}, 61, history, Ledger(),
                               options=PromptOptions(history_budget_tokens=None))
    assert len(json.dumps(unbounded)) > 3 * len(json.dumps(messages))


def test_the_fold_point_moves_in_steps_and_never_back():
    sizes = [10] * 100
    starts = [compaction_start(sizes[:n], 100) for n in range(1, 101)]
    assert starts == sorted(starts)
    assert len(set(starts)) < 25  # it jumps rarely: most calls keep the previous prefix
    assert all(sum(sizes[s:n]) <= 100 for s, n in zip(starts, range(1, 101)))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('<think>reasoning {"id": 0}</think>\n**Environment Observation:**\n{"id": 1}', '{"id": 1}'),
        ('<predicted_observation>{"id": 0}</predicted_observation> then <predicted_observation>{"id": 2}'
         '</predicted_observation>', '{"id": 2}'),
        ('the model reasoned here</think><predicted_observation>{"id": 3}</predicted_observation>', '{"id": 3}'),
        ('<think>unclosed reasoning <predicted_observation>{"id": 4}', '{"id": 4}'),
        ('**Environment Observation:**\n```json\n{"id": 5}\n```', '{"id": 5}'),
        ("<think>only thinking, no answer</think>", ""),
    ],
)
def test_reasoning_tags_and_markers_are_removed(content, expected):
    assert extract_observation(content) == expected


def test_strip_thinking_handles_several_blocks():
    assert strip_thinking("<think>a</think>x<think>b</think>y") == "xy"


@pytest.mark.parametrize(
    "wrapped",
    [
        {"type": "text", "text": '{"id": 7, "title": "t", "status": "open", "priority": "low"}'},
        [{"type": "text", "text": '{"id": 7, "title": "t", "status": "open", "priority": "low"}'}],
        {"content": [{"type": "text", "text": '{"id": 7, "title": "t", "status": "open", "priority": "low"}'}]},
    ],
)
def test_mcp_text_wrappers_are_unwrapped(catalog, wrapped):
    value = parse_observation(json.dumps(wrapped), catalog["get_issue"])
    assert value == {"id": 7, "title": "t", "status": "open", "priority": "low"}


def test_structured_tools_need_json_and_text_tools_keep_text(catalog, world):
    with pytest.raises(ParseError, match="not JSON.*outputSchema"):
        parse_observation("Here is your issue: #7", catalog["get_issue"])
    text_tools = [t["name"] for t in world.tools if "outputSchema" not in t]
    if text_tools:
        assert parse_observation('{"type":"text","text":"Comment added"}', catalog[text_tools[0]]) == "Comment added"
