"""A file server that frames its text answers: a header line stating the page, a blank line, the lines (issue 22).

A real server (``files4_dev`` in ``benchmarks/real_servers.json``) answers a read as ``[Reading 2 lines from line
2 (total: 5 lines, 1 remaining)]`` over the lines, and an edit with the same header over the file's new text. The
small server recorded here words its header its own way; ``agentworld-mcp learn`` reads how its numbers follow the
page (lines shown, total, lines left, first line), one header per kind of call, and ``agentworld-mcp serve`` states
a different session's pages in it, through a real MCP client over stdio. The recording's files are learned without
their headers, a log's ``error`` lines included, and nothing of the recorded pages is replayed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
PATH = {"path": {"type": "string"}}
FILES: JSONDict = {"name": "pages", "tools": [
    {"name": "write_text", "description": "Write a text file.",
     "inputSchema": {"type": "object", "properties": {**PATH, "content": {"type": "string"}},
                     "required": ["path", "content"]}},
    {"name": "read_text", "description": "Read a text file, or a page of its lines.",
     "inputSchema": {"type": "object", "properties": {**PATH, "offset": {"type": "integer", "default": 0},
                                                      "limit": {"type": "integer"}}, "required": ["path"]}},
    {"name": "replace_text", "description": "Replace a text in a file and show the file.",
     "inputSchema": {"type": "object", "properties": {**PATH, "old_text": {"type": "string"},
                                                      "new_text": {"type": "string"}},
                     "required": ["path", "old_text", "new_text"]}},
]}


def _turn(turn: int, tool: str, arguments: JSONDict, text: str) -> str:
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                       "result": {"content": [{"type": "text", "text": text}], "isError": False}})


def recording(path: Path) -> Path:
    calls = [
        ("write_text", {"path": "/w/a.txt", "content": "alpha\nbeta\ngamma\ndelta\n"}, "Saved /w/a.txt"),
        ("read_text", {"path": "/w/a.txt"}, "Showing 4 of 4 lines, from line 1 (0 left)\n\nalpha\nbeta\ngamma\ndelta"),
        ("read_text", {"path": "/w/a.txt", "offset": 1, "limit": 2},
         "Showing 2 of 4 lines, from line 2 (1 left)\n\nbeta\ngamma"),
        ("replace_text", {"path": "/w/a.txt", "old_text": "beta", "new_text": "BETA"},
         "Showing 4 of 4 lines, from line 1 (0 left)\n\nalpha\nBETA\ngamma\ndelta"),
        ("read_text", {"path": "/w/server.log", "offset": -2},
         "Showing last 2 of 3 lines\n\nwarn disk at 91%\nerror upstream timeout"),
    ]
    path.write_text("\n".join(_turn(i, *call) for i, call in enumerate(calls, 1)) + "\n", encoding="utf-8")
    return path


def text(result: Any) -> str:
    assert not result.isError, result.content
    return str(result.content[0].text)


async def test_a_new_sessions_pages_are_stated_in_the_learned_header(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), FILES, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_text", {"path": "/w/b.md", "content": "one\ntwo\nthree\nfour\nfive\n"})
        whole = text(await session.call_tool("read_text", {"path": "/w/b.md"}))
        page = text(await session.call_tool("read_text", {"path": "/w/b.md", "offset": 2, "limit": 2}))
        edited = text(await session.call_tool("replace_text", {"path": "/w/b.md", "old_text": "four",
                                                               "new_text": "FOUR"}))
        tail = text(await session.call_tool("read_text", {"path": "/w/server.log", "offset": -1}))
    assert whole == "Showing 5 of 5 lines, from line 1 (0 left)\n\none\ntwo\nthree\nfour\nfive"
    assert page == "Showing 2 of 5 lines, from line 3 (1 left)\n\nthree\nfour"
    assert edited == "Showing 5 of 5 lines, from line 1 (0 left)\n\none\ntwo\nthree\nFOUR\nfive"
    # the log's lines the recording showed, without its header, its "error" line no refusal
    assert tail == "Showing last 1 of 3 lines\n\nerror upstream timeout"


async def test_the_learned_world_keeps_the_files_lines_not_the_headers(tmp_path: Path) -> None:
    world = learn_cli(recording(tmp_path / "train.jsonl"), FILES, tmp_path / "learned.json")
    files = {f["path"]: f for f in json.loads(world.read_text(encoding="utf-8"))["seed"]["files"]}
    assert "Showing" not in json.dumps(files)
    assert "/w/a.txt" not in files  # the session wrote it: not there before
    async with stdio_session(str(world)) as session:
        log = text(await session.call_tool("read_text", {"path": "/w/server.log", "offset": 1, "limit": 2}))
    assert log == "Showing 2 of 3 lines, from line 2 (0 left)\n\nwarn disk at 91%\nerror upstream timeout"


WRITER: JSONDict = {"name": "writer", "tools": [
    {"name": "write_file", "description": "Write or append to a text file.",
     "inputSchema": {"type": "object", "properties": {**PATH, "content": {"type": "string"},
                                                      "mode": {"type": "string", "enum": ["rewrite", "append"],
                                                               "default": "rewrite"}},
                     "required": ["path", "content"]}},
    {"name": "get_file_info", "description": "Size and dates of a file.",
     "inputSchema": {"type": "object", "properties": PATH, "required": ["path"]}},
]}


async def test_a_write_counts_the_lines_it_was_given_and_words_its_mode_as_recorded(tmp_path: Path) -> None:
    calls = [
        ("write_file", {"path": "/w/a.txt", "content": "one\ntwo\n"}, "Wrote /w/a.txt (3 lines) "),
        ("write_file", {"path": "/w/a.txt", "content": "three\n", "mode": "append"}, "Appended to /w/a.txt (2 lines) "),
        ("get_file_info", {"path": "/w/a.txt"}, "size: 14\nlines: 3"),
        ("get_file_info", {"path": "/w/b.txt"}, "size: 30\nlines: 4"),
    ]
    train = tmp_path / "train.jsonl"
    train.write_text("\n".join(_turn(i, *call) for i, call in enumerate(calls, 1)) + "\n", encoding="utf-8")
    world = learn_cli(train, WRITER, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        wrote = text(await session.call_tool("write_file", {"path": "/w/c.md", "content": "a\nb\nc\nd\n"}))
        rewrote = text(await session.call_tool("write_file", {"path": "/w/c.md", "content": "x\ny",
                                                              "mode": "rewrite"}))
        appended = text(await session.call_tool("write_file", {"path": "/w/c.md", "content": "z\n", "mode": "append"}))
        info = text(await session.call_tool("get_file_info", {"path": "/w/c.md"}))
    assert wrote == "Wrote /w/c.md (5 lines) "
    assert rewrote == "Wrote /w/c.md (2 lines) "
    assert appended == "Appended to /w/c.md (2 lines) "
    assert "size: 14" not in info and "size: 30" not in info  # a path's answer is no case of the tool's


async def test_a_header_that_names_the_file_and_spans_its_lines_is_learned_too(tmp_path: Path) -> None:
    calls = [
        ("write_text", {"path": "/w/a.txt", "content": "alpha\nbeta\ngamma\ndelta\n"}, "Saved /w/a.txt"),
        ("read_text", {"path": "/w/a.txt", "offset": 1, "limit": 2}, "File: /w/a.txt\nLines 2-3 of 4\n\nbeta\ngamma"),
        ("read_text", {"path": "/w/a.txt"}, "File: /w/a.txt\nLines 1-4 of 4\n\nalpha\nbeta\ngamma\ndelta"),
    ]
    train = tmp_path / "train.jsonl"
    train.write_text("\n".join(_turn(i, *call) for i, call in enumerate(calls, 1)) + "\n", encoding="utf-8")
    world = learn_cli(train, FILES, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_text", {"path": "/w/notes/b.md", "content": "one\ntwo\nthree\n"})
        page = text(await session.call_tool("read_text", {"path": "/w/notes/b.md", "offset": 1, "limit": 1}))
        whole = text(await session.call_tool("read_text", {"path": "/w/notes/b.md"}))
    assert page == "File: /w/notes/b.md\nLines 2-2 of 3\n\ntwo"
    assert whole == "File: /w/notes/b.md\nLines 1-3 of 3\n\none\ntwo\nthree"
