"""Our answers against the real servers' recorded answers, call by call.

``tests/ground_truth/<server>.jsonl`` holds what @modelcontextprotocol/server-filesystem
and server-memory answered to a scripted episode (recorded by
``tests/ground_truth/record.py``). Each test serves a world made of that server's mirrored
catalog (``tests/catalogs/<server>.json``), replays the same calls through a real MCP
client over stdio, and compares every result: the text blocks byte for byte,
structuredContent for equality, isError.

Only what the real server takes from its machine rather than from the calls is
normalised before comparing, each for a stated reason (:func:`normalise`).
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import stdio_session

HERE = Path(__file__).resolve().parent
RECORDINGS = HERE / "ground_truth"
CATALOGS = HERE / "catalogs"
JSONDict = dict[str, Any]
_TIME_LINE = re.compile(r"^(created|modified|accessed): .*$", re.MULTILINE)

#: What can't be reproduced yet, and why: (server, tool) for every call of a tool, or (server, tool,
#: arguments as JSON) for one call; the value names the part not compared ("content", or "all").
#: Everything else must match.
KNOWN_DIFFERENCES: dict[tuple[str, ...], tuple[str, str]] = {
    ("filesystem", "read_media_file"): ("content", ("the real server's content block is an embedded resource or "
                                                    "an image; the engine answers with one text block")),
    ("memory", "open_nodes", "{}"): ("content", ("the engine words an invalid-arguments error its own way; the server "
                                                 "says 'MCP error -32602: Input validation error: Invalid arguments "
                                                 "for tool open_nodes: Required at names' (isError agrees)")),
    ("memory", "create_entities", '{"entities": [{"name": "Lovelace", "entityType": "person", "observations": [], '
                                  '"born": 1815}]}'): ("all", (
        "the server's zod schema strips an unknown field its advertised inputSchema forbids "
        "(additionalProperties: false) and creates the entity; the engine refuses the call")),
}


def known_difference(server: str, call: JSONDict) -> str | None:
    """The part of ``call``'s result not compared (see :data:`KNOWN_DIFFERENCES`), or None."""
    one = KNOWN_DIFFERENCES.get((server, call["tool"], json.dumps(call["arguments"], ensure_ascii=False)))
    every = KNOWN_DIFFERENCES.get((server, call["tool"]))
    found = one or every
    return found[0] if found else None


def load_recording(server: str) -> tuple[JSONDict, list[JSONDict]]:
    header, *calls = [json.loads(line) for line in (RECORDINGS / f"{server}.jsonl").read_text().splitlines()]
    return header, calls


def world_for(server: str, header: JSONDict, tmp_path: Path) -> Path:
    """The mirrored catalog as a world; the filesystem server's directory exists from the start, as it did."""
    world: JSONDict = {"name": f"{server}-ground-truth", **json.loads((CATALOGS / f"{server}.json").read_text())}
    if server == "filesystem":
        world["seed"] = {"files": [{"path": header["root"], "type": "directory"}]}
    path = tmp_path / f"{server}.json"
    path.write_text(json.dumps(world))
    return path


def _sorted_lines(text: str) -> str:
    return "\n".join(sorted(text.split("\n")))


def _sorted_tree(text: str) -> str:
    def walk(entries: list[JSONDict]) -> list[JSONDict]:
        for entry in entries:
            if "children" in entry:
                entry["children"] = walk(entry["children"])
        return sorted(entries, key=lambda e: e["name"])

    try:
        tree = json.loads(text)
    except ValueError:
        return text  # not a tree at all: compared as it is
    return json.dumps(walk(tree), indent=2) if isinstance(tree, list) else text


def _text_normaliser(tool: str) -> Any:
    """How a tool's text is normalised, or None.

    - ``list_directory``, ``search_files``, ``directory_tree`` list a directory in the order
      the operating system returns it (``readdir``), which is the file system's, not the
      server's: compared as sorted.
    - ``get_file_info`` prints the machine's clock: times are compared as ``<time>``.
    """
    if tool in ("list_directory", "search_files"):
        return _sorted_lines
    if tool == "directory_tree":
        return _sorted_tree
    if tool == "get_file_info":
        return lambda text: _TIME_LINE.sub(r"\1: <time>", text)
    return None


def normalise(tool: str, result: JSONDict) -> JSONDict:
    """The parts of a ``CallToolResult`` compared, with :func:`_text_normaliser` applied when it succeeded."""
    fix = _text_normaliser(tool) if not result.get("isError") else None
    content = [dict(block) for block in result.get("content") or []]
    structured = result.get("structuredContent")
    if fix is not None:
        for block in content:
            if block.get("type") == "text":
                block["text"] = fix(block["text"])
        if isinstance(structured, dict) and isinstance(structured.get("content"), str):
            structured = {**structured, "content": fix(structured["content"])}
    return {"isError": bool(result.get("isError")), "content": content, "structuredContent": structured}


def _as_dict(result: Any) -> JSONDict:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def _diff(expected: JSONDict, actual: JSONDict) -> str:
    def lines(value: JSONDict) -> list[str]:
        out = [f"isError: {value['isError']}"]
        for i, block in enumerate(value["content"]):
            text = block.get("text") if block.get("type") == "text" else json.dumps(block)
            out += [f"content[{i}] ({block.get('type')}):", *str(text).split("\n")]
        out += ["structuredContent:", *json.dumps(value["structuredContent"], indent=2).split("\n")]
        return out

    return "\n".join(difflib.unified_diff(lines(expected), lines(actual), "real server", "agentworld-mcp", lineterm=""))


async def replay(server: str, tmp_path: Path) -> tuple[list[str], int]:
    """Replay the recording; returns (a readable diff per call that differs, number of calls)."""
    header, calls = load_recording(server)
    failures = []
    async with stdio_session(str(world_for(server, header, tmp_path))) as session:
        for index, call in enumerate(calls, 1):
            ours = _as_dict(await session.call_tool(call["tool"], call["arguments"]))
            expected, actual = normalise(call["tool"], call["result"]), normalise(call["tool"], ours)
            skipped = known_difference(server, call)
            if skipped == "all":
                continue
            if skipped:
                expected[skipped] = actual[skipped] = "(not compared: see KNOWN_DIFFERENCES)"
            if expected != actual:
                args = json.dumps(call["arguments"], ensure_ascii=False)
                failures.append(f"--- call {index}: {call['tool']} {args[:160]}\n{_diff(expected, actual)}")
    return failures, len(calls)


@pytest.mark.parametrize("server", ["filesystem", "memory"])
async def test_every_recorded_call_is_answered_as_the_real_server_answered_it(server: str, tmp_path: Path) -> None:
    failures, total = await replay(server, tmp_path)
    assert not failures, f"{len(failures)} of {total} calls differ from {server}'s recording:\n\n" + "\n\n".join(failures)


def test_recordings_hold_no_machine_paths() -> None:
    """Recordings are portable: the temporary directory they were made in appears nowhere."""
    for server in ("filesystem", "memory"):
        text = (RECORDINGS / f"{server}.jsonl").read_text()
        assert "/tmp/" not in text, server
