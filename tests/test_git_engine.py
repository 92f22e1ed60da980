"""Git tools are answered from one repository per episode, as git answers them.

A small inline catalog of git tools (text answers, a ``repo_path`` argument) beside a file
store's ``write_file`` is served by ``agentworld-mcp serve`` to a real MCP client over stdio;
what was initialised, written, staged, committed, branched and tagged is read back by the
later calls, and a plain file catalog is not taken for a repository.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentworld_mcp.models.deterministic.engines.git import is_git_catalog
from agentworld_mcp.world.world import World

from .conftest import stdio_session

REPO = {"repo_path": {"type": "string", "description": "Path to the Git repository."}}


def _tool(name: str, description: str, **props: Any) -> dict[str, Any]:
    properties = {**REPO, **props}
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": ["repo_path"]}}


STR = {"type": "string"}
CATALOG = {"tools": [
    _tool("git_init", "Initialize a new Git repository", initial_branch=STR),
    _tool("git_status", "Shows the working tree status"),
    _tool("git_add", "Adds file contents to the staging area", files={"type": "array", "items": STR}),
    _tool("git_commit", "Records changes to the repository", message=STR),
    _tool("git_log", "Shows the commit logs", max_count={"type": "integer"}),
    _tool("git_create_branch", "Creates a new branch", branch_name=STR),
    _tool("git_branch", "List Git branches"),
    _tool("git_checkout", "Switches branches", branch_name=STR),
    _tool("git_tag", "Create, list or delete tags", tag_name=STR),
    _tool("git_diff_unstaged", "Shows changes in the working directory that are not yet staged"),
    _tool("git_blame", "Show what revision and author last modified each line of a file", file_path=STR),
    {"name": "write_file", "description": "Create a new file or overwrite an existing file with new content.",
     "inputSchema": {"type": "object", "properties": {"path": STR, "content": STR}, "required": ["path", "content"]}},
]}


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def _ok(session: Any, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, f"{tool}({arguments}) failed: {_text(result)}"
    return _text(result)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "git.json"
    path.write_text(json.dumps(CATALOG))
    return path


async def test_a_file_written_then_staged_and_committed_is_read_back_by_status_and_log(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert "Initialized empty Git repository in /repo/.git/" in await _ok(session, "git_init", repo_path="/repo")
        await _ok(session, "write_file", path="/repo/notes.txt", content="first line\n")
        status = await _ok(session, "git_status", repo_path="/repo")
        assert "On branch main" in status and "Untracked files:" in status and "notes.txt" in status
        await _ok(session, "git_add", repo_path="/repo", files=["notes.txt"])
        assert "new file:   notes.txt" in await _ok(session, "git_status", repo_path="/repo")
        committed = await _ok(session, "git_commit", repo_path="/repo", message="Add notes")
        assert "[main (root-commit)" in committed and "1 file changed, 1 insertion(+)" in committed
        assert "nothing to commit, working tree clean" in await _ok(session, "git_status", repo_path="/repo")
        log = await _ok(session, "git_log", repo_path="/repo", max_count=5)
        assert log.startswith("commit ") and "    Add notes" in log


async def test_committing_with_nothing_staged_is_refused_as_git_refuses_it(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await _ok(session, "git_init", repo_path="/repo")
        result = await session.call_tool("git_commit", {"repo_path": "/repo", "message": "empty"})
        assert result.isError and "nothing to commit" in _text(result)


async def test_a_branch_created_and_checked_out_keeps_its_own_commits_and_tags_list_them(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await _ok(session, "git_init", repo_path="/repo")
        await _ok(session, "write_file", path="/repo/a.txt", content="one\n")
        await _ok(session, "git_add", repo_path="/repo", files=["."])
        await _ok(session, "git_commit", repo_path="/repo", message="First")
        await _ok(session, "git_create_branch", repo_path="/repo", branch_name="feature/x")
        assert "Switched to branch 'feature/x'" in await _ok(session, "git_checkout", repo_path="/repo",
                                                                branch_name="feature/x")
        await _ok(session, "write_file", path="/repo/a.txt", content="one\ntwo\n")
        diff = await _ok(session, "git_diff_unstaged", repo_path="/repo")
        assert "--- a/a.txt" in diff and "+two" in diff
        await _ok(session, "git_add", repo_path="/repo", files=["a.txt"])
        await _ok(session, "git_commit", repo_path="/repo", message="Second")
        branches = await _ok(session, "git_branch", repo_path="/repo")
        assert "* feature/x" in branches and "  main" in branches
        await _ok(session, "git_tag", repo_path="/repo", tag_name="v1.0")
        assert "v1.0" in await _ok(session, "git_tag", repo_path="/repo")
        assert "Switched to branch 'main'" in await _ok(session, "git_checkout", repo_path="/repo", branch_name="main")
        log = await _ok(session, "git_log", repo_path="/repo", max_count=5)
        assert "First" in log and "Second" not in log
        missing = await session.call_tool("git_checkout", {"repo_path": "/repo", "branch_name": "nope"})
        assert missing.isError and "pathspec 'nope' did not match any file(s) known to git" in _text(missing)


async def test_blame_names_for_each_line_the_commit_and_author_that_last_changed_it(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await _ok(session, "git_init", repo_path="/repo")
        await _ok(session, "write_file", path="/repo/hours.txt", content="Mon 9-17\nTue 9-17\n")
        await _ok(session, "git_add", repo_path="/repo", files=["hours.txt"])
        first = await _ok(session, "git_commit", repo_path="/repo", message="Opening hours")
        await _ok(session, "write_file", path="/repo/hours.txt", content="Mon 9-17\nTue 10-18\nWed 9-12\n")
        await _ok(session, "git_add", repo_path="/repo", files=["hours.txt"])
        second = await _ok(session, "git_commit", repo_path="/repo", message="Later on Tuesdays")
        blamed = (await _ok(session, "git_blame", repo_path="/repo", file_path="hours.txt")).splitlines()
        short = [line.split("]")[0].split()[-1] for line in (first, second)]  # ``[main abc1234] ...``
        assert [line[:7] for line in blamed] == [short[0], short[1], short[1]]
        assert blamed[1].endswith("Tue 10-18") and " 2) " in blamed[1]
        missing = await session.call_tool("git_blame", {"repo_path": "/repo", "file_path": "nope.txt"})
        assert missing.isError and "no such path 'nope.txt'" in _text(missing)


def test_a_plain_file_catalog_is_not_taken_for_a_repository() -> None:
    files = {"tools": [t for t in CATALOG["tools"] if t["name"] == "write_file"]
             + [{"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object"}},
                {"name": "list_directory", "description": "List a directory", "inputSchema": {"type": "object"}}]}
    assert not is_git_catalog(World.model_validate(files))
    assert is_git_catalog(World.model_validate(CATALOG))
