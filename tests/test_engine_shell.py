"""Shell tools are answered by one file tree per episode with a current directory, as the commands answer.

Two catalogs, each served by ``agentworld-mcp serve`` to a real MCP client over stdio: a
hand-written one of POSIX commands with text answers (``tests/catalogs/shell.json``, with two
file-store tools of the reference filesystem server on the same tree), and BFCL's file system
class as the fidelity benchmark builds it (typed answers; the real class's answers are the
ground truth), which is skipped, saying how to install it, without ``bfcl-eval``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentworld_mcp.models.deterministic.engines.shell import is_shell
from agentworld_mcp.world.world import World

from .conftest import replayed, stdio_session
from .scenarios import CATALOGS

HERE = Path(__file__).resolve().parent
SHELL = CATALOGS / "shell.json"
SEED = {"files": [
    {"path": "/workspace/notes.txt", "content": "banana\napple\ncherry pie\napple tart\n"},
    {"path": "/workspace/.env", "content": "TOKEN=x\n"},
    {"path": "/workspace/report.pdf", "content": "quarterly numbers"},
    {"path": "/workspace/docs/a.txt", "content": "one\ntwo\nthree\n"},
    {"path": "/workspace/docs/b.txt", "content": "one\n2\nthree\n"},
    {"path": "/workspace/archive", "type": "directory"},
]}


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "shell.json"
    path.write_text(json.dumps({**json.loads(SHELL.read_text()), "seed": SEED}))
    return path


async def _ok(session: Any, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, f"{tool}({arguments}) failed: {_text(result)}"
    return _text(result)


async def _failure(session: Any, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.isError, f"{tool}({arguments}) should have failed, answered {_text(result)!r}"
    return _text(result)


# -- which catalogs are shells ---------------------------------------------------------------------


def test_a_catalog_of_shell_commands_is_a_shell_and_a_lone_echo_or_a_file_store_is_not() -> None:
    def catalog(path: Path) -> World:
        return World.from_tools(json.loads(path.read_text())["tools"])

    assert is_shell(catalog(SHELL))
    assert not is_shell(catalog(CATALOGS / "everything.json"))  # its echo tool echoes a message
    assert not is_shell(catalog(CATALOGS / "filesystem.json"))
    assert not is_shell(catalog(HERE / "realism" / "catalogs" / "filesystem.json"))


# -- the hand-written shell catalog ----------------------------------------------------------------


async def test_cd_into_a_new_directory_then_ls_lists_it_and_pwd_names_it(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert await _ok(session, "pwd") == "/workspace"
        assert await _ok(session, "mkdir", path="build") == ""
        await _ok(session, "cd", path="build")
        await _ok(session, "touch", path="out.log")
        assert await _ok(session, "ls") == "out.log"
        assert await _ok(session, "pwd") == "/workspace/build"
        await _ok(session, "cd", path="..")
        assert (await _ok(session, "ls")).splitlines() == ["archive", "build", "docs", "notes.txt", "report.pdf"]


async def test_relative_paths_resolve_against_the_current_directory(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await _ok(session, "cd", path="docs")
        assert await _ok(session, "cat", path="a.txt") == "one\ntwo\nthree\n"
        assert await _ok(session, "head", path="../notes.txt", lines=2) == "banana\napple\n"
        assert await _ok(session, "cat", path="/workspace/report.pdf") == "quarterly numbers"
        assert await _failure(session, "cat", path="notes.txt") == "cat: notes.txt: No such file or directory"


async def test_mv_into_a_directory_moves_the_file_under_its_own_name(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert await _ok(session, "mv", source="report.pdf", destination="archive") == (
            "'report.pdf' moved to 'archive/report.pdf'")
        assert await _ok(session, "ls", path="archive") == "report.pdf"
        assert "report.pdf" not in (await _ok(session, "ls")).splitlines()
        await _ok(session, "cd", path="archive")
        assert await _ok(session, "cat", path="report.pdf") == "quarterly numbers"
        assert await _ok(session, "cp", source="report.pdf", destination="copy.pdf") == (
            "'report.pdf' copied to 'copy.pdf'")
        assert await _ok(session, "rm", path="report.pdf") == "'report.pdf' removed"
        assert await _ok(session, "ls") == "copy.pdf"


async def test_grep_wc_sort_tail_and_diff_answer_from_the_files(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert await _ok(session, "grep", pattern="apple", path="notes.txt") == "apple\napple tart"
        assert await _ok(session, "grep", pattern="^c.*e$", path="notes.txt") == "cherry pie"
        assert await _ok(session, "wc", path="notes.txt", mode="l") == "4 notes.txt"
        assert await _ok(session, "wc", path="notes.txt", mode="w") == "6 notes.txt"
        assert await _ok(session, "wc", path="notes.txt", mode="c") == "35 notes.txt"
        assert await _ok(session, "sort", path="notes.txt") == "apple\napple tart\nbanana\ncherry pie\n"
        assert await _ok(session, "tail", path="notes.txt", lines=1) == "apple tart\n"
        unified = (await _ok(session, "diff", file1="docs/a.txt", file2="docs/b.txt")).splitlines()
        assert unified[0].startswith("--- docs/a.txt\t") and unified[1].startswith("+++ docs/b.txt\t")
        assert unified[2:] == ["@@ -1,3 +1,3 @@", " one", "-two", "+2", " three"]
        assert await _ok(session, "diff", file1="docs/a.txt", file2="docs/a.txt") == ""
        assert (await _ok(session, "find", path=".", name="*.txt")).splitlines() == [
            "./docs/a.txt", "./docs/b.txt", "./notes.txt"]


async def test_ls_all_shows_dot_files_and_plain_ls_hides_them(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert ".env" not in (await _ok(session, "ls")).splitlines()
        assert (await _ok(session, "ls", all=True)).splitlines()[:3] == [".", "..", ".env"]


async def test_errors_are_worded_as_the_shell_words_them(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert await _failure(session, "cd", path="nowhere") == "cd: nowhere: No such file or directory"
        assert await _failure(session, "cd", path="notes.txt") == "cd: notes.txt: Not a directory"
        assert await _failure(session, "cat", path="docs") == "cat: docs: Is a directory"
        assert await _failure(session, "mkdir", path="docs") == "mkdir: cannot create directory 'docs': File exists"
        assert await _failure(session, "rmdir", path="docs") == "rmdir: failed to remove 'docs': Directory not empty"
        assert await _failure(session, "rm", path="docs") == "rm: cannot remove 'docs': Is a directory"
        assert await _failure(session, "mv", source="ghost", destination="archive") == (
            "mv: cannot stat 'ghost': No such file or directory")


async def test_paths_never_leave_the_tree_and_writes_are_bounded(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert "Permission denied" in await _failure(session, "cat", path="../../etc/passwd")
        assert "Permission denied" in await _failure(session, "cd", path="/etc")
        assert "Permission denied" in await _failure(session, "cd", path="..")  # the home is the top
        assert await _failure(session, "echo", text="x" * (1 << 20 | 1), file="big.txt") == "echo: big.txt: File too large"
        assert "big.txt" not in (await _ok(session, "ls")).splitlines()


async def test_the_shell_and_the_file_store_tools_share_one_tree(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        await _ok(session, "cd", path="docs")
        await _ok(session, "echo", text="written by echo", file="new.txt")
        read = await session.call_tool("read_text_file", {"path": "/workspace/docs/new.txt"})
        assert (_text(read), read.structuredContent) == ("written by echo", {"content": "written by echo"})
        await _ok(session, "write_file", path="/workspace/docs/store.txt", content="written by the store\n")
        assert await _ok(session, "cat", path="store.txt") == "written by the store\n"
        await _ok(session, "echo", text="more\n", file="store.txt", append=True)
        assert await _ok(session, "wc", path="store.txt") == "2 store.txt"


# -- a catalog in plain words: no "ls -a", no "unified", c counts characters ------------------------

#: The shell catalog as a server might describe it in its own words rather than GNU's.
PLAIN_WORDS = {"ls": ("all", "Show hidden files and directories."), "diff": (None, "Compare two files line by line."),
               "wc": ("mode", "l: lines, w: words, c: characters.")}


@pytest.fixture
def plain_world(tmp_path: Path) -> Path:
    catalog = json.loads(SHELL.read_text())
    for tool in catalog["tools"]:
        if tool["name"] in PLAIN_WORDS:
            argument, words = PLAIN_WORDS[tool["name"]]
            if argument is None:
                tool["description"] = words
            else:
                tool["inputSchema"]["properties"][argument]["description"] = words
                tool["description"] = tool["description"].replace("bytes", "characters")
    seed = {"files": [*SEED["files"], {"path": "/workspace/menu.txt", "content": "café\ncrème brûlée"}]}
    path = tmp_path / "plain-shell.json"
    path.write_text(json.dumps({**catalog, "seed": seed}))
    return path


async def test_listing_hidden_files_shows_dot_files_but_not_dot_and_dot_dot_unless_the_catalog_says_ls_a(
        plain_world: Path) -> None:
    async with stdio_session(str(plain_world)) as session:
        listed = (await _ok(session, "ls", all=True)).splitlines()
        assert listed == [".env", "archive", "docs", "menu.txt", "notes.txt", "report.pdf"]


async def test_diff_prints_the_normal_format_where_the_catalog_does_not_ask_for_unified(plain_world: Path) -> None:
    async with stdio_session(str(plain_world)) as session:
        assert await _ok(session, "diff", file1="docs/a.txt", file2="docs/b.txt") == "2c2\n< two\n---\n> 2"
        await _ok(session, "echo", text="one\nthree", file="docs/c.txt")
        assert await _ok(session, "diff", file1="docs/a.txt", file2="docs/c.txt") == (
            "2,3c2\n< two\n< three\n---\n> three\n\\ No newline at end of file")
        assert await _ok(session, "diff", file1="docs/c.txt", file2="docs/a.txt") == (
            "2c2,3\n< three\n\\ No newline at end of file\n---\n> two\n> three")
        await _ok(session, "echo", text="zero\none\ntwo\n", file="docs/d.txt")
        assert await _ok(session, "diff", file1="docs/a.txt", file2="docs/d.txt") == "0a1\n> zero\n3d3\n< three"
        assert await _ok(session, "diff", file1="docs/a.txt", file2="docs/a.txt") == ""


async def test_wc_c_counts_characters_where_the_catalog_says_characters_and_bytes_where_it_says_bytes(
        world: Path, plain_world: Path) -> None:
    async with stdio_session(str(plain_world)) as session:
        assert await _ok(session, "wc", path="menu.txt", mode="c") == "17 menu.txt"
        assert await _ok(session, "wc", path="menu.txt", mode="l") == "2 menu.txt"
    async with stdio_session(str(world)) as session:
        await _ok(session, "echo", text="café", file="menu.txt")
        assert await _ok(session, "wc", path="menu.txt", mode="c") == "5 menu.txt"


async def test_mv_cp_rm_and_rmdir_say_what_they_did_in_plain_words(world: Path) -> None:
    async with stdio_session(str(world)) as session:
        assert await _ok(session, "mv", source="notes.txt", destination="todo.txt") == "'notes.txt' moved to 'todo.txt'"
        assert await _ok(session, "cp", source="todo.txt", destination="archive") == (
            "'todo.txt' copied to 'archive/todo.txt'")
        assert await _ok(session, "rm", path="archive/todo.txt") == "'archive/todo.txt' removed"
        assert await _ok(session, "rmdir", path="archive") == "'archive' removed"
        assert await _ok(session, "rm", path="docs", recursive=True) == "'docs' removed"
        assert (await _ok(session, "ls")).splitlines() == ["report.pdf", "todo.txt"]


# -- BFCL's file system class, the real answers as ground truth ------------------------------------


def _bfcl() -> Any:
    sys.path.insert(0, str(HERE.parent / "benchmarks"))
    import bfcl_worlds

    try:
        bfcl_worlds.package_dir()
    except bfcl_worlds.BenchmarkMissing as exc:
        pytest.skip(str(exc))
    return bfcl_worlds


async def test_the_benchmark_file_system_episodes_replay_with_the_real_values(tmp_path: Path) -> None:
    """Three development entries of the benchmark's file system class, typed: the real class's answers
    replayed through a real MCP client, at least 90% of the values they determine agree."""
    from agentworld_mcp.sim2real.score import evaluate

    bfcl_worlds = _bfcl()
    split = json.loads((HERE.parent / "benchmarks" / "bfcl_split.json").read_text())
    by_id = {entry["id"]: entry for entry in bfcl_worlds.entries()}
    chosen = [by_id[i] for i in split["dev"] if by_id[i]["involved_classes"] == ["GorillaFileSystem"]][:3]
    assert chosen, "the development half has entries of the file system class alone"
    marks: list[float] = []
    for entry in chosen:
        world_path, trajectory = bfcl_worlds.write_entry(entry, True, tmp_path)
        episodes, answers = await replayed(world_path, [trajectory])
        world = json.loads(world_path.read_text())
        for row in evaluate(world["name"], episodes, answers, world_seed=world["seed"])["turns"]:
            assert row["is_error_agreement"] == 1.0, row
            marks += [row["value_agreement"]] * row["value_checks"] if "value_checks" in row else []
    assert marks and sum(marks) / len(marks) >= 0.9, marks


def test_the_benchmark_seeds_the_one_top_directory_the_real_file_system_class_loads() -> None:
    """The real class makes the first top-level directory of ``root`` its root and drops the others;
    the world's ``files`` seed is that same tree, so the shell starts where the real one does."""
    bfcl_worlds = _bfcl()
    root = {"data": {"type": "directory", "contents": {
                "a.csv": {"type": "file", "content": "1,2"},
                "raw": {"type": "directory", "contents": {}}}},
            "archive": {"type": "directory", "contents": {"old.csv": {"type": "file", "content": "0"}}}}
    seeded = {row["path"] for row in bfcl_worlds.seed_of({"GorillaFileSystem": {"root": root}})["files"]}
    assert seeded == {"/data/a.csv", "/data/raw"}
    real = bfcl_worlds.instances({"involved_classes": ["GorillaFileSystem"],
                                  "initial_config": {"GorillaFileSystem": {"root": root}}})
    assert real["pwd"]() == {"current_working_directory": "/data"}
    assert real["ls"]() == {"current_directory_content": ["a.csv", "raw"]}
