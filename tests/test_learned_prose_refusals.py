"""A tool that refuses in prose without flagging it, in a server that flags its other refusals (issue 22).

The recorded server answers a block edit whose text is there too rarely as an ordinary result (``Expected 2
occurrences but found 1 in ...``, ``isError: false``), while a read of a missing file is flagged. ``agentworld-mcp
learn`` keeps both: a different session through a real MCP client over stdio gets the edit's refusal unflagged and
the missing file's flagged, the refusal's numbers this call's (``found 2``), not the recording's; an edit that can be
made still edits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session
from .test_file_edit_arguments import CATALOG


def _turn(turn: int, tool: str, arguments: dict[str, Any], text: str, flagged: bool = False) -> str:
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                       "result": {"content": [{"type": "text", "text": text}], "isError": flagged}})


async def test_an_edit_refused_in_prose_stays_unflagged_and_a_missing_file_stays_flagged(tmp_path: Path) -> None:
    lines = [
        _turn(1, "write_file", {"path": "/w/a.txt", "content": "Owner: Marta\nBudget: 9000\n"}, "Successfully wrote to /w/a.txt"),
        _turn(2, "edit_block", {"file_path": "/w/a.txt", "old_string": "Owner: Marta", "new_string": "Owner: Jonas",
                                "expected_replacements": 2},
              "Expected 2 occurrences but found 1 in /w/a.txt. Set expected_replacements to 1 to replace it."),
        _turn(3, "read_file", {"path": "/w/missing.txt"}, "Error: ENOENT: no such file or directory", flagged=True),
    ]
    train = tmp_path / "train.jsonl"
    train.write_text("\n".join(lines) + "\n", encoding="utf-8")
    world = learn_cli(train, CATALOG, tmp_path / "learned.json")
    async with stdio_session(str(world)) as session:
        await session.call_tool("write_file", {"path": "/w/b.txt", "content": "Status: draft\nStatus: draft\n"})
        refused = await session.call_tool("edit_block", {"file_path": "/w/b.txt", "old_string": "Status: draft",
                                                         "new_string": "Status: done", "expected_replacements": 3})
        edited = await session.call_tool("edit_block", {"file_path": "/w/b.txt", "old_string": "Status: draft",
                                                        "new_string": "Status: done"})
        missing = await session.call_tool("read_file", {"path": "/w/nowhere.txt"})
        read = await session.call_tool("read_file", {"path": "/w/b.txt"})
    assert not refused.isError and "Expected 3 occurrences but found 2" in refused.content[0].text
    assert not edited.isError
    assert missing.isError
    assert read.content[0].text.count("Status: done") == 1  # the first match, as no count was given
