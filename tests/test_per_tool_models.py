"""Per-tool world models: a tool's `_meta["agentworld/backend"]` picks the world model that
answers it, so one world is answered by the deterministic model where the ledger suffices
and by a language model where it does not."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import WORLDS, stdio_session
from .fake_openai import FakeOpenAI, json_reply

SUMMARY_TOOL = {
    "name": "summarize_project",
    "description": "Summarize the state of the project in a few sentences.",
    "inputSchema": {"type": "object", "properties": {}},
    "_meta": {"agentworld/backend": "llm"},
}


def hybrid_world(tmp_path: Path) -> Path:
    data = yaml.safe_load((WORLDS / "issue-tracker.yaml").read_text())
    data["tools"].append(SUMMARY_TOOL)
    path = tmp_path / "hybrid.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


async def test_crud_tools_stay_deterministic_and_the_open_ended_tool_asks_the_language_model(tmp_path: Path) -> None:
    world = hybrid_world(tmp_path)
    with FakeOpenAI(default=json_reply({"summary": "One new crash report, nothing urgent."})) as model:
        async with stdio_session(str(world), "--base-url", model.url, "--model", "fake-world-model") as session:
            created = await session.call_tool("create_issue", {"title": "Crash on start"})
            fetched = await session.call_tool("get_issue", {"issue_id": json.loads(created.content[0].text)["id"]})
            assert model.requests == []  # the ledger answered both
            summary = await session.call_tool("summarize_project", {})
    assert not created.isError and not fetched.isError
    assert json.loads(fetched.content[0].text)["title"] == "Crash on start"
    assert not summary.isError and "One new crash report" in summary.content[0].text
    (request,) = model.requests
    prompt = json.dumps(request["messages"])
    assert "summarize_project" in prompt and "Crash on start" in prompt  # one episode: the model sees the history
