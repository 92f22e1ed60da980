"""A world learned from a file or editor session starts with the files the recording showed (issue 22).

Two small servers record one session each: an editor with a current file (``set_file``, line reads, a
skim with the file's length, a staged change shown as a diff preview) and a shell (``cd``, ``ls``,
``cat``, ``echo``). Learned with the ``agentworld-mcp learn`` CLI and served by ``agentworld-mcp serve``,
a different session through a real MCP client over stdio reads what was on disk before the recording
changed anything: whole texts, lines at their numbers (blank where never shown), listed names; never
what the recorded session wrote. ``learn --no-seed`` learns no files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
RANGE = {"type": "object", "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
         "required": ["start", "end"]}
NOTHING: JSONDict = {"type": "object", "properties": {}}
#: What a server that returns dicts declares (FastMCP): an object of any fields.
OBJECT: JSONDict = {"type": "object", "additionalProperties": True}
EDITOR: JSONDict = {"name": "editor", "tools": [tool | ({} if tool["name"] == "set_file" else {"outputSchema": OBJECT}) for tool in [
    {"name": "set_file", "description": "Set the current file to work with.",
     "inputSchema": {"type": "object", "properties": {"filepath": {"type": "string"}}, "required": ["filepath"]}},
    {"name": "skim", "description": "Show the current file's first lines and its length.", "inputSchema": NOTHING},
    {"name": "read", "description": "Read lines start to end of the current file.", "inputSchema": RANGE},
    {"name": "select", "description": "Select lines start to end for editing.", "inputSchema": RANGE},
    {"name": "overwrite", "description": "Stage new lines for the selection; shows a preview.",
     "inputSchema": {"type": "object", "properties": {"new_lines": {"type": "array", "items": {"type": "string"}}},
                     "required": ["new_lines"]}},
    {"name": "confirm", "description": "Apply the staged change.", "inputSchema": NOTHING},
    {"name": "find_line", "description": "Find the lines of the current file that contain a text.",
     "inputSchema": {"type": "object", "properties": {"search_text": {"type": "string"}}, "required": ["search_text"]}},
    {"name": "listdir", "description": "List the files of a directory.",
     "inputSchema": {"type": "object", "properties": {"dirpath": {"type": "string"}}, "required": ["dirpath"]}},
]]}
NAME = {"type": "object", "properties": {"file_name": {"type": "string"}}, "required": ["file_name"]}
SHELL: JSONDict = {"name": "shell", "tools": [
    {"name": "cd", "description": "Change the current working directory.",
     "inputSchema": {"type": "object", "properties": {"folder": {"type": "string"}}, "required": ["folder"]}},
    {"name": "ls", "description": "List the contents of the current directory.", "inputSchema": NOTHING},
    {"name": "cat", "description": "Print a file of the current directory.", "inputSchema": NAME},
    {"name": "echo", "description": "Write content to a file of the current directory.",
     "inputSchema": {"type": "object", "properties": {"content": {"type": "string"}, "file_name": {"type": "string"}},
                     "required": ["content", "file_name"]}},
    {"name": "pwd", "description": "Print the current working directory.", "inputSchema": NOTHING},
]}
PLAN = "Budget review on Monday. Venue contract by Friday."


def write(path: Path, calls: list[tuple[str, JSONDict, Any]], structured: bool = False) -> Path:
    lines = []
    for turn, (tool, arguments, answer) in enumerate(calls, 1):
        result: JSONDict = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
        if structured and tool != "set_file":
            result["structuredContent"] = answer
        lines.append(json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                                 "result": result}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def editor_session(path: Path) -> Path:
    return write(path, [
        ("listdir", {"dirpath": "."}, {"filenames": ["ideas.md", "notes.md", "prices.py", "todo.txt"], "path": "."}),
        ("set_file", {"filepath": "todo.txt"}, {"result": "File set to: 'todo.txt'"}),
        ("skim", {}, {"lines": [[1, "- renew the domain"]], "total_lines": 1}),
        ("set_file", {"filepath": "notes.md"}, {"result": "File set to: 'notes.md'"}),
        ("skim", {}, {"lines": [[1, "# Notes"], [2, "- call the printer shop"], [3, "- book the hall"]],
                      "total_lines": 3}),
        ("set_file", {"filepath": "prices.py"}, {"result": "File set to: 'prices.py'"}),
        ("read", {"start": 1, "end": 2}, {"lines": [[1, "RATE = 0.2"], [2, ""]], "start_line": 1, "end_line": 2}),
        ("find_line", {"search_text": "def total"}, {"matches": [[6, "def total(items):\n"]], "total_matches": 1}),
        ("select", {"start": 7, "end": 7}, {"lines": ["    return sum(items) * (1 + RATE)"], "start": 7, "end": 7}),
        ("overwrite", {"new_lines": ["    return round(sum(items) * (1 + RATE), 2)"]},
         {"status": "preview", "diff_lines": [[5, ""], [6, "def total(items):"], ["-7", "    return sum(items) * (1 + RATE)"],
                                              ["+7", "    return round(sum(items) * (1 + RATE), 2)"]]}),
        ("confirm", {}, {"status": "success", "message": "Changes applied successfully."}),
        ("read", {"start": 7, "end": 7}, {"lines": [[7, "    return round(sum(items) * (1 + RATE), 2)"]],
                                          "start_line": 7, "end_line": 7}),
    ], structured=True)


def shell_session(path: Path) -> Path:
    return write(path, [
        ("ls", {}, {"current_directory_content": ["docs", "readme.txt"]}),
        ("cd", {"folder": "docs"}, {"current_working_directory": "docs"}),
        ("cat", {"file_name": "plan.txt"}, {"file_content": PLAN}),
        ("echo", {"content": "Rewritten by the session.", "file_name": "plan.txt"}, {"result": None}),
        ("cat", {"file_name": "plan.txt"}, {"file_content": "Rewritten by the session."}),
        ("echo", {"content": "A file the session made.", "file_name": "draft.txt"}, {"result": None}),
        ("cat", {"file_name": "draft.txt"}, {"file_content": "A file the session made."}),
    ])


async def test_an_editor_session_reads_the_lines_the_recording_showed_before_it_changed_them(tmp_path: Path) -> None:
    world = learn_cli(editor_session(tmp_path / "train.jsonl"), EDITOR, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("set_file", {"filepath": "notes.md"})
        skim = json_answer(await session.call_tool("skim", {}))
        await session.call_tool("set_file", {"filepath": "prices.py"})
        head = json_answer(await session.call_tool("read", {"start": 1, "end": 7}))
        found = json_answer(await session.call_tool("find_line", {"search_text": "return"}))
    assert skim["lines"] == [[1, "# Notes"], [2, "- call the printer shop"], [3, "- book the hall"]]
    assert skim["total_lines"] == 3
    # lines 3 and 4 were never shown: blank; line 7 is the text before the recorded change, not after it
    assert head["lines"] == [[1, "RATE = 0.2"], [2, ""], [3, ""], [4, ""], [5, ""], [6, "def total(items):"],
                             [7, "    return sum(items) * (1 + RATE)"]]
    assert found["matches"] == [[7, "    return sum(items) * (1 + RATE)"]]


async def test_a_name_only_listed_exists_with_its_text_unknown(tmp_path: Path) -> None:
    world = learn_cli(editor_session(tmp_path / "train.jsonl"), EDITOR, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        listed = json_answer(await session.call_tool("listdir", {"dirpath": "."}))
        await session.call_tool("set_file", {"filepath": "ideas.md"})
        skim = json_answer(await session.call_tool("skim", {}))
    assert sorted(listed["filenames"]) == ["ideas.md", "notes.md", "prices.py", "todo.txt"]
    assert skim["lines"] == [] and skim["total_lines"] == 0


async def test_a_shell_session_finds_the_tree_and_texts_the_recording_showed_below_its_current_directory(
        tmp_path: Path) -> None:
    world = learn_cli(shell_session(tmp_path / "train.jsonl"), SHELL, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        top = await session.call_tool("ls", {})
        await session.call_tool("cd", {"folder": "docs"})
        plan = await session.call_tool("cat", {"file_name": "plan.txt"})
        draft = await session.call_tool("cat", {"file_name": "draft.txt"})
    assert not top.isError and not plan.isError
    listing = top.content[0].text
    assert "docs" in listing and "readme.txt" in listing
    assert PLAN in plan.content[0].text  # the text before the session's ``echo``, not after it
    assert draft.isError  # a file the recorded session made was not there before it


async def test_learn_no_seed_learns_no_files(tmp_path: Path) -> None:
    world = learn_cli(editor_session(tmp_path / "train.jsonl"), EDITOR, tmp_path / "learned.json", "--no-seed")
    assert "seed" not in json.loads(world.read_text(encoding="utf-8"))
    async with stdio_session(str(world)) as session:
        listed = json_answer(await session.call_tool("listdir", {"dirpath": "."}))
    assert listed["filenames"] == []


#: A search/replace editor that answers each edit with a unified diff (as ``difflib`` writes it).
DIFF_EDITOR: JSONDict = {"name": "diff-editor", "tools": [
    {"name": "read_lines", "description": "Read limit lines of a file from line offset.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "integer"},
                                                      "limit": {"type": "integer"}}, "required": ["path"]}},
    {"name": "edit_file", "description": "Replace the text search with replace in a file; answers the diff.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "search": {"type": "string"},
                                                      "replace": {"type": "string"}},
                     "required": ["path", "search", "replace"]}},
]}
LEDGER = ["# Ledger", "rent 900", "power 60", "water 25", "phone 30", "food 310", "fuel 80", "gym 40"]


def _page(lines: list[str], offset: int, limit: int) -> JSONDict:
    shown = lines[offset - 1:offset - 1 + limit]
    return {"content": "".join(line + "\n" for line in shown), "start_line": offset,
            "end_line": offset + len(shown) - 1, "total_lines": len(lines)}


def diff_editor_session(path: Path) -> Path:
    import difflib

    edited = [*LEDGER[:2], "power 75", "heating 20", *LEDGER[3:]]  # line 3 became two lines
    diff = "".join(difflib.unified_diff([line + "\n" for line in LEDGER], [line + "\n" for line in edited], n=1))
    return write(path, [
        ("read_lines", {"path": "/data/ledger.md", "offset": 2, "limit": 2}, _page(LEDGER, 2, 2)),
        ("edit_file", {"path": "/data/ledger.md", "search": "power 60", "replace": "power 75\nheating 20"},
         {"success": True, "diff": diff[diff.index("@@"):]}),
        # after the edit: lines 6-9 are the old lines 5-8, line 4 is the session's own
        ("read_lines", {"path": "/data/ledger.md", "offset": 4, "limit": 6}, _page(edited, 4, 6)),
    ], structured=True)


async def test_lines_read_after_an_edit_that_showed_its_diff_are_known_at_their_old_numbers(tmp_path: Path) -> None:
    world = learn_cli(diff_editor_session(tmp_path / "train.jsonl"), DIFF_EDITOR, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        page = json_answer(await session.call_tool("read_lines", {"path": "/data/ledger.md", "offset": 1, "limit": 8}))
    # line 1 was never shown; 2-4 the reads and the diff showed before the edit; 5-8 only the read after it
    assert page["content"].split("\n")[:8] == ["", *LEDGER[1:]]
