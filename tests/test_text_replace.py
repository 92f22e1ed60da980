"""A file tool that answers in JSON objects (pages of lines, matches, search/replace edits) learned from a session.

The recording reads a file a page at a time (``{"content", "start_line", ...}``), searches it (matches with
their context lines) and previews an edit whose diff is printed indented; the learned world starts with the
file's lines at their numbers, reads pages of them, and applies a search/replace edit that a later read shows.
Through ``agentworld-mcp learn`` and a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

_STR = {"type": "string"}
_INT = {"type": "integer"}
_PATH = {"absolute_file_path": _STR}

CATALOG = {
    "name": "pages",
    "tools": [
        {"name": "read_content", "description": "Read lines of a file.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "offset": _INT, "limit": _INT,
                                                          "mode": _STR, "pattern": _STR},
                         "required": ["absolute_file_path"]}},
        {"name": "search_content", "description": "Search a file for a text pattern.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "pattern": _STR},
                         "required": ["absolute_file_path", "pattern"]}},
        {"name": "edit_content", "description": "Edit a file by search/replace; preview by default.",
         "inputSchema": {"type": "object", "properties": {
             **_PATH, "changes": {"type": "array", "items": {"type": "object"}},
             "preview": {"type": "boolean", "default": True}}, "required": ["absolute_file_path", "changes"]}},
    ],
}
_FILE = "/srv/app/notes.txt"
_LINES = ["alpha one", "beta two", "gamma three", "delta four", "epsilon five"]


def _turn(n: int, tool: str, arguments: dict[str, Any], body: Any) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(body, indent=2)}], "isError": False}
    return json.dumps({"episode": "e1", "turn": n, "tool": tool, "arguments": arguments, "result": result})


def _recording(path: Path) -> Path:
    page = {"content": "beta two\ngamma three\n", "start_line": 2, "end_line": 3, "lines_returned": 2,
            "total_lines": 5, "mode": "lines", "truncated": True}
    found = {"results": [{"line_number": 4, "match": "delta four", "context_before": ["gamma three"],
                          "context_after": ["epsilon five"]}], "total_matches": 1}
    preview = {"success": True, "changes_applied": 1, "changes_failed": 0,
               "results": [{"index": 0, "success": True, "line_number": 1}],
               "preview": "@@ -1,2 +1,2 @@\n  -alpha one\n\n  +alpha 1\n\n   beta two\n"}
    lines = [_turn(1, "read_content", {"absolute_file_path": _FILE, "offset": 2, "limit": 2}, page),
             _turn(2, "search_content", {"absolute_file_path": _FILE, "pattern": "delta"}, found),
             _turn(3, "edit_content", {"absolute_file_path": _FILE, "changes": [{"search": "alpha one",
                                                                                 "replace": "alpha 1"}]}, preview)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _body(result: Any) -> Any:
    return result.structuredContent if result.structuredContent is not None else json.loads(result.content[0].text)


async def test_a_learned_file_is_read_by_pages_and_a_search_replace_edit_shows_in_a_later_read(tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "rec.jsonl"), CATALOG, tmp_path / "world.json")
    seeded = json.loads(world.read_text(encoding="utf-8"))["seed"]["files"]
    assert next(f["content"] for f in seeded if f["path"] == _FILE).split("\n") == _LINES
    async with stdio_session(str(world)) as session:
        page = _body(await session.call_tool("read_content", {"absolute_file_path": _FILE, "offset": 4, "limit": 2}))
        assert page["content"] == "delta four\nepsilon five\n" and page["start_line"] == 4
        assert page["total_lines"] == 5
        tail = _body(await session.call_tool("read_content", {"absolute_file_path": _FILE, "mode": "tail", "limit": 1}))
        assert tail["content"] == "epsilon five\n"
        found = _body(await session.call_tool("search_content", {"absolute_file_path": _FILE, "pattern": "beta"}))
        assert [m["line_number"] for m in found["results"]] == [2]
        edited = _body(await session.call_tool("edit_content", {
            "absolute_file_path": _FILE, "changes": [{"search": "gamma three", "replace": "gamma 3"}],
            "preview": False}))
        assert edited["changes_applied"] == 1 and edited["results"][0]["line_number"] == 3
        after = _body(await session.call_tool("read_content", {"absolute_file_path": _FILE, "offset": 3, "limit": 1}))
        assert after["content"] == "gamma 3\n"


_CODE = "/srv/app/shop.py"
_SOURCE = ["RATE = 2", "", "class Cart:", "    def total(self):", "        return RATE", ""]
OUTLINE_CATALOG = {
    "name": "outline",
    "tools": [
        {"name": "read_enclosing", "description": "Read the function or class enclosing a line of a file.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "line": _INT, "depth": _INT},
                         "required": ["absolute_file_path", "line"]}},
        {"name": "search_content", "description": "Search a file for a text pattern.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "pattern": _STR,
                                                          "count_only": {"type": "boolean"}},
                         "required": ["absolute_file_path", "pattern"]}},
    ],
}


def _outline_recording(path: Path) -> Path:
    enclosing = {"content": "    def total(self):\n        return RATE", "start_line": 4, "end_line": 5,
                 "lines_returned": 2, "total_lines": 5, "mode": "enclosing", "enclosing_symbol": "def total()"}
    found = {"results": [{"line_number": 1, "match": "RATE = 2", "context_before": [], "context_after": [
        "", "class Cart:"]}, {"line_number": 5, "match": "        return RATE", "context_before": [
            "class Cart:", "    def total(self):"], "context_after": []}], "total_matches": 2, "pattern": "RATE"}
    counted = {"count": 2, "pattern": "RATE"}
    lines = [_turn(1, "read_enclosing", {"absolute_file_path": _CODE, "line": 5}, enclosing),
             _turn(2, "search_content", {"absolute_file_path": _CODE, "pattern": "RATE"}, found),
             _turn(3, "search_content", {"absolute_file_path": _CODE, "pattern": "RATE", "count_only": True}, counted)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_the_definition_around_a_line_comes_from_the_python_outline_and_a_count_only_search_counts(
        tmp_path: Path) -> None:
    world = learn_cli(_outline_recording(tmp_path / "rec.jsonl"), OUTLINE_CATALOG, tmp_path / "world.json")
    async with stdio_session(str(world)) as session:
        outer = _body(await session.call_tool("read_enclosing", {"absolute_file_path": _CODE, "line": 5, "depth": 2}))
        assert outer["start_line"] == 3 and outer["content"].startswith("class Cart:")
        assert outer["enclosing_symbol"] == "class Cart"
        beyond = await session.call_tool("read_enclosing", {"absolute_file_path": _CODE, "line": 90})
        assert beyond.isError and "beyond end of file" in beyond.content[0].text
        counted = _body(await session.call_tool("search_content", {"absolute_file_path": _CODE, "pattern": "class",
                                                                     "count_only": True}))
        assert counted["count"] == 1 and "results" not in counted


_OTHER = "/data/log.txt"
OTHER_CATALOG = {
    "name": "other-words",
    "tools": [
        {"name": "view_lines", "description": "View lines of a file.",
         "inputSchema": {"type": "object", "properties": {"absolute_file_path": _STR, "offset": _INT, "limit": _INT},
                         "required": ["absolute_file_path"]}},
        {"name": "grep_file", "description": "Search a file for a text pattern.",
         "inputSchema": {"type": "object", "properties": {"absolute_file_path": _STR, "pattern": _STR},
                         "required": ["absolute_file_path", "pattern"]}},
    ],
}


def _other_recording(path: Path) -> Path:
    page = {"text": "two\nthree\n", "from_line": 2, "to_line": 3, "line_total": 5}
    hits = {"hits": [{"line": 4, "text": "four", "before": ["three"], "after": ["five"]}], "found": 1}
    lines = [_turn(1, "view_lines", {"absolute_file_path": _OTHER, "offset": 2, "limit": 2}, page),
             _turn(2, "grep_file", {"absolute_file_path": _OTHER, "pattern": "four"}, hits),
             _turn(3, "view_lines", {"absolute_file_path": _OTHER, "offset": 1, "limit": 1},
                   {"text": "one\n", "from_line": 1, "to_line": 1, "line_total": 5})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_a_catalog_that_names_its_keys_otherwise_gets_the_file_s_lines_under_its_own_keys(
        tmp_path: Path) -> None:
    world = learn_cli(_other_recording(tmp_path / "rec.jsonl"), OTHER_CATALOG, tmp_path / "world.json")
    async with stdio_session(str(world)) as session:
        page = _body(await session.call_tool("view_lines", {"absolute_file_path": _OTHER, "offset": 3, "limit": 2}))
        assert page["text"] == "three\nfour\n" and page["from_line"] == 3 and page["to_line"] == 4
        assert page["line_total"] == 5 and "content" not in page and "start_line" not in page
        found = _body(await session.call_tool("grep_file", {"absolute_file_path": _OTHER, "pattern": "two"}))
        assert found["hits"] == [{"line": 2, "text": "two", "before": ["one"], "after": ["three", "four"]}]
        assert found["found"] == 1 and "results" not in found
