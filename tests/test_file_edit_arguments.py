"""File servers name their edits and pages in their own words; the bare catalog still edits and pages (issue 20).

A block edit given as ``old_string``/``new_string`` (with ``expected_replacements``) changes the file as asked or
is refused naming why; a read with ``offset``/``length`` (a negative offset: the last lines) shows that page; a
file catalog whose reader also opens ``.docx`` files is no word-processing catalog (its ``get_file_info`` stats the
file); a listing goes as deep as its ``depth`` argument, or the declared default, says. Served by ``agentworld-mcp serve`` to a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

JSONDict = dict[str, Any]
PATH = {"path": {"type": "string"}}
CATALOG: JSONDict = {"name": "blocks", "tools": [
    {"name": "write_file", "description": "Write or overwrite a text file.",
     "inputSchema": {"type": "object", "properties": {**PATH, "content": {"type": "string"}},
                     "required": ["path", "content"]}},
    {"name": "read_file", "description": "Read a file's lines. Also reads .docx and .pdf files as text.",
     "inputSchema": {"type": "object", "properties": {**PATH, "offset": {"type": "number", "default": 0},
                                                      "length": {"type": "number", "default": 1000}},
                     "required": ["path"]}},
    {"name": "edit_block", "description": "Replace a block of text in a file.",
     "inputSchema": {"type": "object", "properties": {
         "file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"},
         "expected_replacements": {"type": "number", "default": 1}}, "required": ["file_path"]}},
    {"name": "get_file_info", "description": "Size, dates and permissions of a file.",
     "inputSchema": {"type": "object", "properties": PATH, "required": ["path"]}},
    {"name": "list_directory", "description": "List a directory, two levels deep unless told otherwise.",
     "inputSchema": {"type": "object", "properties": {**PATH, "depth": {"type": "number", "default": 2}},
                     "required": ["path"]}},
]}
TEXT = "Status: draft\nOwner: Marta\nBudget: 9000\nOwner: Marta\n"


def text(result: Any) -> str:
    assert not result.isError, result.content
    return str(result.content[0].text)


async def test_block_edits_pages_and_file_info_in_a_catalogs_own_words(tmp_path: Path) -> None:
    world = tmp_path / "blocks.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_file", {"path": "/w/notes.md", "content": TEXT})
        edited = await session.call_tool("edit_block", {"file_path": "/w/notes.md", "old_string": "Status: draft",
                                                        "new_string": "Status: approved"})
        twice = await session.call_tool("edit_block", {"file_path": "/w/notes.md", "old_string": "Owner: Marta",
                                                       "new_string": "Owner: Jonas", "expected_replacements": 3})
        missing = await session.call_tool("edit_block", {"file_path": "/w/notes.md", "old_string": "Budget: 1",
                                                         "new_string": "Budget: 2"})
        both = await session.call_tool("edit_block", {"file_path": "/w/notes.md", "old_string": "Owner: Marta",
                                                      "new_string": "Owner: Jonas", "expected_replacements": 2})
        page = text(await session.call_tool("read_file", {"path": "/w/notes.md", "offset": 1, "length": 2}))
        last = text(await session.call_tool("read_file", {"path": "/w/notes.md", "offset": -1}))
        info = text(await session.call_tool("get_file_info", {"path": "/w/notes.md"}))
        await session.call_tool("write_file", {"path": "/w/done/a/deep.md", "content": "x"})
        nested = text(await session.call_tool("list_directory", {"path": "/w"}))
        flat = text(await session.call_tool("list_directory", {"path": "/w", "depth": 1}))
    assert not edited.isError
    assert twice.isError and "Expected 3 occurrences but found 2" in twice.content[0].text
    assert missing.isError and "Budget: 1" in missing.content[0].text
    assert not both.isError
    assert page == "Owner: Jonas\nBudget: 9000"
    assert last == "Owner: Jonas"
    assert f"size: {len(TEXT.replace('draft', 'approved').replace('Marta', 'Jonas'))}" in info
    assert "isFile: true" in info
    assert nested.splitlines() == ["[DIR] done", "[DIR] done/a", "[FILE] notes.md"]  # the declared two levels
    assert flat.splitlines() == ["[DIR] done", "[FILE] notes.md"]
