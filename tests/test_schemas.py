"""The project's own file formats have JSON Schemas under schemas/, and what we write matches them."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from agentworld_mcp import Simulator, TrajectoryRecorder, load_world
from agentworld_mcp.models.cassette import Cassette
from agentworld_mcp.trajectories.export import agentworldbench

from .conftest import ROOT, WORLDS
from .fake_openai import FakeOpenAI
from .test_llm_cassette import answers, play, simulator

SCHEMAS = ROOT / "schemas"


def schema(name: str) -> dict:
    loaded = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(loaded).check_schema(loaded)
    return loaded


@pytest.mark.parametrize("path", sorted(WORLDS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_world_matches_the_world_schema(path):
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema("world.schema.json"))


async def test_trajectory_lines_and_exported_samples_match_their_schemas(tmp_path):
    record = tmp_path / "t.jsonl"
    recorder = TrajectoryRecorder(record)
    sim = Simulator(load_world(WORLDS / "issue-tracker.yaml"), recorders=[recorder])
    created = await sim.call("create_issue", {"title": "Schema"})
    await sim.call("get_issue", {"issue_id": created.structured["id"]})
    await sim.call("get_issue", {"issue_id": 999})
    await sim.aclose()
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 4  # the world's header, then one line per turn
    for line in lines:
        jsonschema.validate(line, schema("trajectory.schema.json"))
    with pytest.raises(jsonschema.ValidationError):  # the schema does constrain the lines
        jsonschema.validate({**lines[1], "turn": 0}, schema("trajectory.schema.json"))
    samples = list(agentworldbench(lines))
    assert len(samples) == 3
    for sample in samples:
        jsonschema.validate(sample, schema("agentworldbench.schema.json"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**samples[0], "turn_idx": 0}, schema("agentworldbench.schema.json"))


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
async def test_cassettes_match_their_schema(tmp_path, suffix):
    world = load_world(WORLDS / "issue-tracker.yaml")
    path = tmp_path / f"c{suffix}"
    with FakeOpenAI(default=answers) as server:
        await play(simulator(world, Cassette(path, "once"), server.url))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema("cassette.schema.json"))
    assert len(data["interactions"]) == 4
