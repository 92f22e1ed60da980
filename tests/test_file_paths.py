"""Where a file tool's path comes from when the call does not spell out ``path``.

An argument named like a path (``filepath``) is the path; a call that leaves out an optional path
argument uses its declared default; a tool with no path argument at all (``delete_file()``) acts on
the file the session last named, as an editor with a current file does. None of these valid calls is
refused with "path is required". An invented editor catalog, through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session, bare_tool as _tool

TEXT: dict[str, Any] = {"type": "string"}


EDITOR: dict[str, Any] = {
    "name": "editor",
    "seed": {"files": [{"path": "/work/notes.txt", "content": "first line\n"}]},
    "tools": [
        _tool("write_file", "Write a file's content.", {"filepath": TEXT, "content": TEXT}, ["filepath", "content"]),
        _tool("read_file", "Read a file.", {"filepath": TEXT}, ["filepath"]),
        _tool("open_file", "Open a file in the editor: later calls act on it.", {"filepath": TEXT}, ["filepath"]),
        _tool("delete_file", "Delete the file currently open in the editor.", {}, []),
        _tool("get_file_info", "Size and times of a file.",
              {"path": {"type": "string", "default": "/work/notes.txt"}}, []),
    ],
}


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") or "" for block in result.content)


async def test_a_file_tool_takes_its_path_from_a_pathlike_argument_a_default_or_the_current_file(
        tmp_path: Path) -> None:
    world = tmp_path / "editor.json"
    world.write_text(json.dumps(EDITOR), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        written = await session.call_tool("write_file", {"filepath": "/work/draft.txt", "content": "Agenda\n"})
        assert not written.isError and "draft.txt" in _text(written)
        read = await session.call_tool("read_file", {"filepath": "/work/draft.txt"})
        assert _text(read).startswith("Agenda")  # ``filepath`` named the file, not a missing ``path``

        info = await session.call_tool("get_file_info", {})  # the optional path's declared default
        assert not info.isError and "path is required" not in _text(info)

        assert not (await session.call_tool("open_file", {"filepath": "/work/draft.txt"})).isError
        deleted = await session.call_tool("delete_file", {})  # no path argument: the file the session is on
        assert not deleted.isError, _text(deleted)
        gone = await session.call_tool("read_file", {"filepath": "/work/draft.txt"})
        kept = await session.call_tool("read_file", {"filepath": "/work/notes.txt"})
    assert gone.isError and "ENOENT" in _text(gone)
    assert not kept.isError and _text(kept).startswith("first line")
