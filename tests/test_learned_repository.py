"""A world learned from a version-control session starts from the repository the recording showed (issue 22).

A small git catalog records one session against a repository that already had two commits, a file changed
in the working tree and an untracked one: ``status``, ``log``, ``show`` of the changed file at HEAD, ``diff``,
then two commits of its own, both stamped with the server's one instant. Learned with ``agentworld-mcp learn``
and served over stdio, a new session sees that repository (not the session's own commits), commits on top
of its HEAD with the repository's user and the server's standing clock, and a ``--no-seed`` world starts empty.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
REPO = "/work/handbook"
FIRST, SECOND = "1" * 40, "2" * 40
MINE = ("a" * 40, "b" * 40)
CLOCK = 1800000000
HEAD_TEXT = "# Handbook\nOpen at nine.\n"
WORK_TEXT = "# Handbook\nOpen at nine.\nClosed on Sundays.\n"


def _blob(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:7]


DIFF = (f"diff --git a/handbook.md b/handbook.md\nindex {_blob(HEAD_TEXT)}..{_blob(WORK_TEXT)} 100644\n"
        "--- a/handbook.md\n+++ b/handbook.md\n@@ -1,2 +1,3 @@\n # Handbook\n Open at nine.\n+Closed on Sundays.\n")


def _obj(**props: str) -> JSONDict:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}


COMMIT = {"type": "object", "properties": {
    "hash": {"type": "string"}, "author": {"type": "string"}, "authorEmail": {"type": "string"},
    "timestamp": {"type": "integer"}, "subject": {"type": "string"},
    "parents": {"type": "array", "items": {"type": "string"}}}}
STATUS = {"type": "object", "properties": {
    "currentBranch": {"type": "string"}, "isClean": {"type": "boolean"},
    "stagedChanges": {"type": "object"}, "unstagedChanges": {"type": "object"},
    "untrackedFiles": {"type": "array", "items": {"type": "string"}}}}
PATH = {"path": {"type": "string", "description": "The repository's directory."}}
CATALOG: JSONDict = {"name": "vcs", "tools": [
    {"name": "git_status", "description": "Show the git repository's working tree status.",
     "inputSchema": {"type": "object", "properties": PATH}, "outputSchema": STATUS},
    {"name": "git_add", "description": "Stage files.",
     "inputSchema": {"type": "object", "properties": {**PATH, "paths": {"type": "array", "items": {"type": "string"}}}}},
    {"name": "git_commit", "description": "Record the staged changes as a commit.",
     "inputSchema": {"type": "object", "properties": {**PATH, "message": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"commitHash": {"type": "string"}, "author": {"type": "string"},
                                                       "timestamp": {"type": "integer"}}}},
    {"name": "git_log", "description": "Show the commit history.",
     "inputSchema": {"type": "object", "properties": {**PATH, "maxCount": {"type": "integer"}}},
     "outputSchema": {"type": "object", "properties": {"commits": {"type": "array", "items": COMMIT}}}},
    {"name": "git_show", "description": "Show a commit, or a file at a commit.",
     "inputSchema": {"type": "object", "properties": {**PATH, "object": {"type": "string"}, "filePath": {"type": "string"}}},
     "outputSchema": _obj(content="string")},
    {"name": "git_diff", "description": "Show unstaged changes.",
     "inputSchema": {"type": "object", "properties": PATH}, "outputSchema": _obj(diff="string")},
    {"name": "git_branch", "description": "List or create branches.",
     "inputSchema": {"type": "object", "properties": {**PATH, "mode": {"type": "string"}, "branchName": {"type": "string"},
                                                      "startPoint": {"type": "string"}}}},
]}


def _commit(sha: str, subject: str, when: int, parents: list[str]) -> JSONDict:
    return {"hash": sha, "author": "Ada Lovelace", "authorEmail": "ada@example.org", "timestamp": when,
            "subject": subject, "parents": parents}


def _line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "structuredContent": answer, "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": {"path": REPO, **arguments},
                       "result": result})


def _recording(path: Path) -> Path:
    history = [_commit(SECOND, "Say when we open", 1700000600, [FIRST]), _commit(FIRST, "Start the handbook", 1700000000, [])]
    status = {"currentBranch": "trunk", "isClean": False, "stagedChanges": {},
              "unstagedChanges": {"modified": ["handbook.md"]}, "untrackedFiles": ["rota.csv"]}
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("git_status", {}, status),
        ("git_log", {"maxCount": 5}, {"commits": history}),
        ("git_show", {"object": "HEAD", "filePath": "handbook.md"}, {"content": HEAD_TEXT}),
        ("git_diff", {}, {"diff": DIFF}),
        ("git_add", {"paths": ["rota.csv"]}, {"stagedFiles": ["rota.csv"]}),
        ("git_commit", {"message": "Add the rota"}, {"commitHash": MINE[0], "author": "Ada Lovelace", "timestamp": CLOCK}),
        ("git_add", {"paths": ["handbook.md"]}, {"stagedFiles": ["handbook.md"]}),
        ("git_commit", {"message": "Close on Sundays"}, {"commitHash": MINE[1], "author": "Ada Lovelace", "timestamp": CLOCK}),
        ("git_log", {"maxCount": 5}, {"commits": [_commit(MINE[1], "Close on Sundays", CLOCK, [MINE[0]]),
                                                   _commit(MINE[0], "Add the rota", CLOCK, [SECOND]), *history]}),
    ]
    path.write_text("".join(_line(n, *call) + "\n" for n, call in enumerate(calls, 1)), encoding="utf-8")
    return path


async def _call(session: Any, tool: str, **arguments: Any) -> JSONDict:
    result = await session.call_tool(tool, {"path": REPO, **arguments})
    assert not result.isError, result.content
    answer = result.structuredContent if result.structuredContent is not None else json.loads(result.content[0].text)
    assert isinstance(answer, dict), result.content
    return answer


async def test_a_learned_world_starts_from_the_recorded_repository_not_from_the_sessions_own_commits(
        tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "session.jsonl"), CATALOG, tmp_path / "world.json")
    seed = json.loads(world.read_text(encoding="utf-8"))["seed"]
    assert sorted(seed["repositories"][0]["commits"]) == [FIRST, SECOND]
    async with stdio_session(str(world)) as session:
        status = await _call(session, "git_status")
        assert status["currentBranch"] == "trunk" and status["isClean"] is False
        assert status["unstagedChanges"] == {"modified": ["handbook.md"]}
        assert status["untrackedFiles"] == ["rota.csv"]
        log = await _call(session, "git_log", maxCount=5)
        assert [(c["hash"], c["subject"], c["timestamp"]) for c in log["commits"]] == [
            (SECOND, "Say when we open", 1700000600), (FIRST, "Start the handbook", 1700000000)]
        assert (await _call(session, "git_show", object="HEAD", filePath="handbook.md"))["content"] == HEAD_TEXT
        assert "+Closed on Sundays." in (await _call(session, "git_diff"))["diff"]


async def test_a_new_commit_continues_from_the_seeded_head_with_the_users_name_and_the_servers_standing_clock(
        tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "session.jsonl"), CATALOG, tmp_path / "world.json")
    async with stdio_session(str(world)) as session:
        await _call(session, "git_add", paths=["handbook.md"])
        made = await _call(session, "git_commit", message="Write down the Sunday rule")
        assert made["author"] == "Ada Lovelace" and made["timestamp"] == CLOCK
        assert made["commitHash"] not in (FIRST, SECOND, *MINE)
        newest = (await _call(session, "git_log", maxCount=1))["commits"][0]
        assert newest["hash"] == made["commitHash"] and newest["parents"] == [SECOND]
        branched = await session.call_tool("git_branch", {"path": REPO, "mode": "create", "branchName": "before-sunday",
                                                          "startPoint": "HEAD~1"})
        assert not branched.isError, branched.content  # HEAD~1 is the seeded HEAD
        status = await _call(session, "git_status")
        assert status["unstagedChanges"] == {} and status["untrackedFiles"] == ["rota.csv"]


async def test_a_world_learned_without_seed_knows_no_repository(tmp_path: Path) -> None:
    world = learn_cli(_recording(tmp_path / "session.jsonl"), CATALOG, tmp_path / "world.json", "--no-seed")
    assert "repositories" not in (json.loads(world.read_text(encoding="utf-8")).get("seed") or {})
    async with stdio_session(str(world)) as session:
        assert (await _call(session, "git_log", maxCount=5)).get("commits") in (None, [])
