"""`learn` reads sentence templates from a server's prose answers (issue 22): the parts of an answer that copy
the call's arguments, or an earlier call's, become slots; a new call fills them with its own values, never
the recording's.

A recording of a small version-control server that answers in sentences is learned with the CLI; the learned
world is served and driven by a real MCP client over stdio with other branch names and messages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from . import thirdparty
from .conftest import stdio_session

HASH = "e91e4c4175013cd8d08a5fbbfcadbb341317a16b"


def _tool(name: str, description: str, **properties: str) -> dict[str, object]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": {k: {"type": v} for k, v in properties.items()}}}


CATALOG = {"name": "repo", "tools": [
    _tool("switch_branch", "Switch the working copy to a branch.", branch="string"),
    _tool("current_branch", "Say which branch the working copy is on."),
    _tool("save_changes", "Commit the staged changes with a message.", message="string"),
    _tool("show_diff", "Show the difference with a branch.", target="string"),
]}
#: The recorded session: (tool, arguments, the server's answer).
SESSION = [
    ("switch_branch", {"branch": "feature/login"}, "Switched to branch 'feature/login'"),
    ("current_branch", {}, "On branch feature/login"),
    ("save_changes", {"message": "Add meeting notes"}, f"Changes committed successfully with hash {HASH}"),
    ("switch_branch", {"branch": "main"}, "Switched to branch 'main'"),
    ("current_branch", {}, "On branch main"),
    ("show_diff", {"target": "feature/login"}, "Diff with feature/login:\n-Meeting at ten"),
]


def _recorded(tmp_path: Path) -> tuple[Path, Path]:
    recording, catalog = tmp_path / "repo.jsonl", tmp_path / "repo.json"
    catalog.write_text(json.dumps(CATALOG))
    recording.write_text("".join(json.dumps({"episode": "train", "turn": n, "tool": tool, "arguments": args,
                                             "result": {"content": [{"type": "text", "text": text}], "isError": False}})
                                 + "\n" for n, (tool, args, text) in enumerate(SESSION, 1)))
    return recording, catalog


async def test_a_learned_sentence_is_filled_from_the_new_call_and_the_calls_before_it(tmp_path: Path) -> None:
    recording, catalog = _recorded(tmp_path)
    learned = tmp_path / "learned.yaml"
    done = thirdparty.run_cli("learn", str(recording), "--catalog", str(catalog), "-o", str(learned))
    assert done.returncode == 0, done.stderr
    assert "3 sentence templates" in done.stderr
    tools = {t["name"]: (t.get("_meta") or {}).get("agentworld/text_template") for t in yaml.safe_load(learned.read_text())["tools"]}
    assert tools["switch_branch"]["text"] == "Switched to branch '{{args.branch}}'"
    assert tools["current_branch"]["text"] == "On branch {{last.switch_branch.branch}}"
    assert tools["save_changes"]["text"] == "Changes committed successfully with hash {{fresh.hex.40}}"
    # one multi-line answer of a read may be the state it showed: no template replays it
    assert tools["show_diff"] is None

    async with stdio_session(str(learned)) as session:
        switched = await session.call_tool("switch_branch", {"branch": "hotfix/typo"})
        status = await session.call_tool("current_branch", {})
        saved = await session.call_tool("save_changes", {"message": "Fix the typo"})
    assert switched.content[0].text == "Switched to branch 'hotfix/typo'"  # type: ignore[union-attr]
    assert status.content[0].text == "On branch hotfix/typo"  # type: ignore[union-attr]
    text = saved.content[0].text  # type: ignore[union-attr]
    found = re.fullmatch(r"Changes committed successfully with hash ([0-9a-f]{40})", text)
    assert found is not None and found.group(1) != HASH  # a fresh hash, not the recorded one
    assert not any(r.isError for r in (switched, status, saved))


async def test_a_sentence_whose_slot_this_episode_cannot_fill_falls_back_to_the_model(tmp_path: Path) -> None:
    """`current_branch` before any switch: the recording is silent on what it says, so no branch is made up."""
    recording, catalog = _recorded(tmp_path)
    learned = tmp_path / "learned.json"
    assert thirdparty.run_cli("learn", str(recording), "--catalog", str(catalog), "-o", str(learned)).returncode == 0
    async with stdio_session(str(learned)) as session:
        status = await session.call_tool("current_branch", {})
    text = status.content[0].text  # type: ignore[union-attr]
    assert "feature/login" not in text and "main" not in text
