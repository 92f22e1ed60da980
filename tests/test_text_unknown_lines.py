"""Lines of a file the recording never showed are unknown, not absent.

The recording reads only the end of a file (and the definition around one line); the learned world seeds the
lines it saw at their numbers and names the others unknown. A later session's search/replace of text that is
in none of the known lines is applied in the first unknown lines (and a later read shows it), while a search
text close to a known line is still refused as not found. Through ``agentworld-mcp learn`` and a real MCP
client over stdio.
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
    "name": "partial",
    "tools": [
        {"name": "read_content", "description": "Read lines of a file.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "offset": _INT, "limit": _INT},
                         "required": ["absolute_file_path"]}},
        {"name": "read_enclosing", "description": "Read the function or class enclosing a line of a file.",
         "inputSchema": {"type": "object", "properties": {**_PATH, "line": _INT},
                         "required": ["absolute_file_path", "line"]}},
        {"name": "edit_content", "description": "Edit a file by search/replace; preview by default.",
         "inputSchema": {"type": "object", "properties": {
             **_PATH, "changes": {"type": "array", "items": {"type": "object"}},
             "preview": {"type": "boolean", "default": True}}, "required": ["absolute_file_path", "changes"]}},
    ],
}
_FILE = "/srv/app/cart.py"


def _turn(n: int, tool: str, arguments: dict[str, Any], body: Any) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(body, indent=2)}], "isError": False}
    return json.dumps({"episode": "e1", "turn": n, "tool": tool, "arguments": arguments, "result": result})


def _recording(path: Path) -> Path:
    enclosing = {"content": "class Cart:\n    def total(self):\n        return RATE", "start_line": 4, "end_line": 6,
                 "lines_returned": 3, "total_lines": 6, "mode": "enclosing", "enclosing_symbol": "class Cart"}
    page = {"content": "\nclass Cart:\n", "start_line": 3, "end_line": 4, "lines_returned": 2, "total_lines": 6,
            "mode": "lines", "truncated": True}
    edit = {"success": True, "changes_applied": 1, "changes_failed": 0,
            "results": [{"index": 0, "success": True, "line_number": 6}], "preview": "@@ -6 +6 @@\n-x\n+y\n"}
    failed = {"success": False, "changes_applied": 0, "changes_failed": 1,
              "results": [{"index": 0, "success": False, "error": "Pattern not found", "similar_matches": []}]}
    lines = [_turn(1, "read_enclosing", {"absolute_file_path": _FILE, "line": 5}, enclosing),
             _turn(2, "read_content", {"absolute_file_path": _FILE, "offset": 3, "limit": 2}, page),
             _turn(3, "edit_content", {"absolute_file_path": "/srv/app/other.py", "changes": [
                 {"search": "nothing here", "replace": "x"}], "preview": False}, failed),
             _turn(4, "edit_content", {"absolute_file_path": "/srv/app/other.py", "changes": [
                 {"search": "x", "replace": "y"}]}, edit)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _body(result: Any) -> Any:
    return result.structuredContent if result.structuredContent is not None else json.loads(result.content[0].text)


async def test_an_edit_of_text_in_lines_never_shown_is_applied_there_and_a_near_miss_is_still_refused(
        tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "rec.jsonl"), CATALOG, tmp_path / "world.json")
    seeded = next(f for f in json.loads(world.read_text(encoding="utf-8"))["seed"]["files"] if f["path"] == _FILE)
    assert seeded["unknown_lines"] == [[1, 2]]  # the definition around a line is a part, not the whole file
    async with stdio_session(str(world)) as session:
        edited = _body(await session.call_tool("edit_content", {
            "absolute_file_path": _FILE, "changes": [{"search": "RATE = 2", "replace": "RATE = 3"}],
            "preview": False}))
        assert edited["changes_applied"] == 1 and edited["results"][0]["success"] is True
        page = _body(await session.call_tool("read_content", {"absolute_file_path": _FILE, "offset": 1, "limit": 1}))
        assert page["content"] == "RATE = 3\n"
        near = _body(await session.call_tool("edit_content", {
            "absolute_file_path": _FILE, "changes": [{"search": "class Carts:", "replace": "class Basket:"}],
            "preview": False}))
        assert near["changes_applied"] == 0 and near["results"][0]["success"] is False
        kept = _body(await session.call_tool("read_content", {"absolute_file_path": _FILE, "offset": 4, "limit": 1}))
        assert kept["content"] == "class Cart:\n"
