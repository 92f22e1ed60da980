"""A domain engine's answers take the shape the recording shows (issue 22).

A small shell-like file-tool catalog declares no outputSchema; its recorded server answered every call
with a JSON object of fixed keys (``{"file_content": ...}``, ``{"count": 2, "type": "words"}``,
``{"result": null}``). Learned with the ``agentworld-mcp learn`` CLI (no seed) and served by
``agentworld-mcp serve``, driven by a real MCP client over stdio with names and texts the recording never
saw: the shell engine computes the values from the episode's own files and they come back under the
recorded keys; what the recording does not show is not invented, and a tool it never called keeps the
engine's printed answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]


def tool(name: str, description: str, properties: JSONDict, required: list[str]) -> JSONDict:
    return {"name": name, "description": f"{description} Works in the current directory.",
            "inputSchema": {"type": "object", "properties": properties, "required": required}}


TEXT = {"type": "string"}
CATALOG: JSONDict = {"name": "files", "tools": [
    tool("cd", "Change the current working directory.", {"folder": TEXT}, ["folder"]),
    tool("pwd", "Print the current working directory.", {}, []),
    tool("ls", "List the current directory.", {"a": {"type": "boolean"}}, []),
    tool("mkdir", "Make a directory.", {"dir_name": TEXT}, ["dir_name"]),
    tool("echo", "Write content to a file.", {"content": TEXT, "file_name": TEXT}, ["content"]),
    tool("cat", "Show a file's contents.", {"file_name": TEXT}, ["file_name"]),
    tool("wc", "Count the lines, words or characters of a file.", {"file_name": TEXT, "mode": TEXT}, ["file_name"]),
]}


def line(turn: int, tool_name: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool_name, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("mkdir", {"dir_name": "drafts"}, {"result": None}),
        ("cd", {"folder": "drafts"}, {"current_working_directory": "drafts"}),
        ("echo", {"content": "quarterly plan", "file_name": "plan.txt"}, {"result": None}),
        ("echo", {"content": "first draft", "file_name": "draft.txt"}, {"result": None}),
        ("ls", {"a": True}, {"current_directory_content": ["draft.txt", "plan.txt"]}),
        ("cat", {"file_name": "plan.txt"}, {"file_content": "quarterly plan"}),
        ("cat", {"file_name": "budget.txt"}, {"error": "cat: budget.txt: No such file or directory"}),
        ("wc", {"file_name": "plan.txt", "mode": "w"}, {"count": 2, "type": "words"}),
        ("cd", {"folder": ".."}, {}),
        ("ls", {}, {"current_directory_content": ["drafts"]}),
    ]
    lines = [line(turn, name, arguments, answer) for turn, (name, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def test_the_engine_s_listing_text_and_directory_come_back_under_the_recorded_keys(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        assert json_answer(await session.call_tool("mkdir", {"dir_name": "reports"})) == {"result": None}
        assert json_answer(await session.call_tool("cd", {"folder": "reports"})) == {"current_working_directory": "reports"}
        written = {"content": "alpha beta gamma", "file_name": "notes.txt"}
        assert json_answer(await session.call_tool("echo", written)) == {"result": None}
        assert json_answer(await session.call_tool("ls", {"a": True})) == {"current_directory_content": ["notes.txt"]}
        assert json_answer(await session.call_tool("cat", {"file_name": "notes.txt"})) == {"file_content": "alpha beta gamma"}


async def test_a_file_text_that_looks_like_json_is_still_the_file_s_text(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        await session.call_tool("echo", {"content": '["alpha", "beta"]', "file_name": "list.json"})
        read = json_answer(await session.call_tool("cat", {"file_name": "list.json"}))
    assert read == {"file_content": '["alpha", "beta"]'}


async def test_a_count_carries_the_engine_s_number_and_unit_not_the_recorded_ones(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        await session.call_tool("echo", {"content": "alpha beta gamma", "file_name": "notes.txt"})
        assert json_answer(await session.call_tool("wc", {"file_name": "notes.txt", "mode": "w"})) == {
            "count": 3, "type": "words"}
        assert json_answer(await session.call_tool("wc", {"file_name": "notes.txt", "mode": "c"})) == {
            "count": 16, "type": "characters"}


async def test_a_key_the_recording_left_out_for_an_argument_value_is_left_out_then_too(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        await session.call_tool("mkdir", {"dir_name": "reports"})
        await session.call_tool("cd", {"folder": "reports"})
        assert json_answer(await session.call_tool("cd", {"folder": ".."})) == {}
        assert json_answer(await session.call_tool("ls", {})) == {"current_directory_content": ["reports"]}


async def test_a_failure_keeps_the_engine_s_wording_under_the_recorded_error_key(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        result = await session.call_tool("cat", {"file_name": "missing.txt"})
        assert json.loads(result.content[0].text) == {"error": "cat: missing.txt: No such file or directory"}
        assert not result.isError


async def test_a_tool_the_recording_never_called_keeps_the_engine_s_printed_answer(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        await session.call_tool("mkdir", {"dir_name": "reports"})
        await session.call_tool("cd", {"folder": "reports"})
        printed = await session.call_tool("pwd", {})
        assert not printed.isError
        assert printed.content[0].text.strip().endswith("/reports")
        shape = {t["name"] for t in json.loads(world.read_text())["tools"]
                 if "agentworld/answer_shape" in (t.get("_meta") or {})}
        assert "pwd" not in shape and {"cd", "ls", "cat", "wc", "mkdir", "echo"} <= shape
