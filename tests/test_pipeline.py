"""The step pipeline and the one configuration path every entry point shares.

A call goes through named stages in a fixed order (validate, perturb before, predict, check
output, reconcile, perturb after, record); a stage that answers the call ends it early. The
same world file gives the same simulator, and so the same answers, through the Python API,
the CLI, the MCP server, LangGraph and the pytest plugin: world file < environment < flags.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.pipeline.config import SimulatorConfig
from agentworld_mcp.world.kinds import BackendKind
from agentworld_mcp.pipeline.engine import STAGES
from agentworld_mcp.errors import ConfigError

from .conftest import stdio_session

pytest_plugins = ["pytester"]

TICKETS = {
    "name": "tickets",
    "backend": {"seed": 5},
    "tools": [
        {
            "name": "create_ticket",
            "description": "Open a ticket.",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
            "outputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "code": {"type": "string"},
                               "priority": {"type": "integer"}},
                "required": ["id", "title", "code", "priority"],
            },
        },
        {
            "name": "get_ticket",
            "description": "Get a ticket by id.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    ],
}
ARGS = {"title": "Printer on fire"}


@pytest.fixture
def world_file(tmp_path: Path) -> Path:
    path = tmp_path / "tickets.yaml"
    path.write_text(yaml.safe_dump(TICKETS, sort_keys=False))
    return path


# -- stages -----------------------------------------------------------------------------------


async def test_a_successful_call_goes_through_every_stage_in_order(world_file: Path) -> None:
    sim = Simulator.from_world(load_world(world_file))
    outcome = await sim.run("create_ticket", ARGS)
    assert outcome.stages == list(STAGES)
    assert outcome.turn is not None and outcome.turn.result == outcome.result.to_dict()


async def test_invalid_arguments_end_the_call_after_validation(world_file: Path) -> None:
    sim = Simulator.from_world(load_world(world_file))
    outcome = await sim.run("create_ticket", {"title": 7})
    assert outcome.stages == ["validate", "record"]
    assert outcome.result.is_error and "title" in outcome.result.text


async def test_an_injected_error_answers_before_the_world_model(world_file: Path) -> None:
    sim = Simulator.from_world(load_world(world_file), perturb='{"kind": "server_error", "tools": "create_*"}')
    outcome = await sim.run("create_ticket", ARGS)
    assert outcome.stages == ["validate", "perturb_before", "record"]
    assert outcome.result.is_error and outcome.fired[0]["kind"] == "server_error"
    assert (await sim.state()) == {}  # the world model was never asked: nothing was created


async def test_a_failed_call_changes_nothing_and_skips_reconciliation(world_file: Path) -> None:
    sim = Simulator.from_world(load_world(world_file))
    outcome = await sim.run("get_ticket", {"id": "nope"})
    assert outcome.result.is_error
    assert outcome.stages == ["validate", "perturb_before", "predict", "check_output", "perturb_after", "record"]


async def test_a_world_model_bug_becomes_a_named_simulator_error(world_file: Path) -> None:
    class Broken:
        name = "broken"

        async def predict(self, step: object) -> object:
            raise ValueError("dictionary update sequence element #0 has length 1")

        async def aclose(self) -> None:
            return None

    sim = Simulator.from_world(load_world(world_file), backend=Broken())  # type: ignore[arg-type]
    result = await sim.call("create_ticket", ARGS)
    assert result.is_error and result.is_simulator_error
    assert "internal_error" in result.text and "ValueError" in result.text
    assert sim.stats.simulator_errors["internal_error"] == 1


def test_a_perturbation_policy_given_as_a_perturber_is_the_run_level_policy(world_file: Path) -> None:
    # what the README lists for the constructor: a preset name, a policy mapping, or a perturber
    by_name = Simulator(load_world(world_file), perturber="paginated")
    assert by_name.perturber.__class__.__name__ == "PolicyPerturber"
    with pytest.raises(ConfigError, match="preset"):
        Simulator(load_world(world_file), perturber="no-such-preset")


# -- one configuration path -------------------------------------------------------------------


def test_precedence_is_world_file_then_environment_then_overrides(world_file: Path) -> None:
    world = load_world(world_file)
    assert SimulatorConfig.resolve(world, env={}).seed == 5
    assert SimulatorConfig.resolve(world, env={"AGENTWORLD_SEED": "9"}).seed == 9
    assert SimulatorConfig.resolve(world, env={"AGENTWORLD_SEED": "9"}, seed=3).seed == 3
    assert SimulatorConfig.resolve(world, env={"AGENTWORLD_BACKEND": "llm"}).backend is BackendKind.LLM
    assert SimulatorConfig.resolve(world, env={"AGENTWORLD_BACKEND": "llm"}, backend="schema").backend is BackendKind.SCHEMA


def test_bad_settings_name_their_source(world_file: Path) -> None:
    world = load_world(world_file)
    with pytest.raises(ConfigError, match="AGENTWORLD_SEED"):
        SimulatorConfig.resolve(world, env={"AGENTWORLD_SEED": "many"})
    with pytest.raises(ConfigError, match="unknown backend 'gpt'.*AGENTWORLD_BACKEND.*schema, llm"):
        SimulatorConfig.resolve(world, env={"AGENTWORLD_BACKEND": "gpt"})


async def test_simulator_of_a_world_honours_its_world_file() -> None:
    world = load_world_data_dict(TICKETS)
    unseeded = load_world_data_dict({**TICKETS, "backend": {}})
    assert Simulator(world).seed == 5
    by_file = await Simulator(world).call("create_ticket", ARGS)
    by_flag = await Simulator.from_world(unseeded, seed=5).call("create_ticket", ARGS)
    assert by_file.structured == by_flag.structured


async def test_every_entry_point_gives_the_same_answer_for_the_same_world_file(
    world_file: Path, pytester: pytest.Pytester
) -> None:
    expected = (await Simulator.from_world(load_world(world_file)).call("create_ticket", ARGS)).structured
    assert expected is not None

    cli = subprocess.run(
        [sys.executable, "-m", "agentworld_mcp", "call", str(world_file), "create_ticket", "--args", json.dumps(ARGS)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "AGENTWORLD_SEED": ""},
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["structuredContent"] == expected

    async with stdio_session(str(world_file)) as session:
        served = await session.call_tool("create_ticket", ARGS)
    assert served.structuredContent == expected

    from agentworld_mcp.integrations.langgraph import simulated_tools

    tool = simulated_tools(world_file).by_name("create_ticket")
    message = await tool.ainvoke({"name": "create_ticket", "args": ARGS, "id": "call-1", "type": "tool_call"})
    assert message.artifact == expected

    pytester.makepyfile(f"""
        import json, pytest

        @pytest.mark.agentworld(world={str(world_file)!r})
        def test_plugin(agentworld):
            result = agentworld.call("create_ticket", {ARGS!r})
            assert result.structured == json.loads({json.dumps(json.dumps(expected))})
    """)
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function").assert_outcomes(
        passed=1)


async def test_the_environment_sits_between_world_file_and_flags(world_file: Path) -> None:
    def seeded(seed: int) -> object:
        return Simulator.from_world(load_world(world_file), seed=seed)

    by_env = subprocess.run(
        [sys.executable, "-m", "agentworld_mcp", "call", str(world_file), "create_ticket", "--args", json.dumps(ARGS)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "AGENTWORLD_SEED": "9"},
    )
    by_flag = subprocess.run(
        [sys.executable, "-m", "agentworld_mcp", "call", str(world_file), "create_ticket", "--args", json.dumps(ARGS),
         "--seed", "3"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "AGENTWORLD_SEED": "9"},
    )
    assert by_env.returncode == 0 and by_flag.returncode == 0, by_env.stderr + by_flag.stderr
    nine = (await seeded(9).call("create_ticket", ARGS)).structured  # type: ignore[attr-defined]
    three = (await seeded(3).call("create_ticket", ARGS)).structured  # type: ignore[attr-defined]
    assert json.loads(by_env.stdout)["structuredContent"] == nine
    assert json.loads(by_flag.stdout)["structuredContent"] == three


def load_world_data_dict(data: dict[str, object]) -> object:
    from agentworld_mcp import load_world_data

    return load_world_data(json.loads(json.dumps(data)), source="<test>")

