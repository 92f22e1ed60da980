"""A newcomer's first hour: what the README and `--help` say works, exactly as written.

Each test does what a new user did and tripped on: the LangGraph quickstart copied into a
fresh folder, a mistyped world name, a busy port, `-v`, the files the CLI writes, the report
line as the README writes it, and the constructor arguments the README lists.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentworld_mcp import Simulator, load_world

from .conftest import CLI, ROOT


def run(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def serve_stdio(*args: str, calls: list[tuple[str, dict]]) -> str:
    """``agentworld-mcp ARGS`` (a stdio serve) answering ``calls`` one after the other; its stderr."""
    proc = subprocess.Popen([*CLI, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    messages += [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": args}}
                 for i, (tool, args) in enumerate(calls, start=1)]
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        answered = set()
        while len(answered) < len(calls) + 1:  # every answer in before stdin closes
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            answered.add(json.loads(line).get("id"))
        proc.stdin.close()
        proc.wait(30)
        assert proc.stderr is not None
        return proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def readme_block(first_line: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.+?)\n```", text, flags=re.S)
    return next(b for b in blocks if b.startswith(first_line))


def test_the_readme_langgraph_quickstart_runs_verbatim_in_a_fresh_project(tmp_path: Path) -> None:
    code = readme_block("# tests/test_triage.py")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_triage.py").write_text(code + "\n", encoding="utf-8")
    # step 4 of the quickstart, in a folder that is not this repository
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout


def test_a_mistyped_world_name_is_answered_with_the_bundled_name_it_resembles() -> None:
    done = run("serve", "issue-trackr")
    assert done.returncode == 2
    assert "did you mean 'issue-tracker'?" in done.stderr
    assert "world.schema.json" not in done.stderr  # nothing about keys: the file is missing, not wrong


def test_the_pytest_marker_finds_bundled_worlds_by_name_and_suggests_on_a_typo(tmp_path: Path) -> None:
    (tmp_path / "test_names.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.agentworld(world='issue-tracker')\n"
        "def test_bundled(agentworld):\n"
        "    assert agentworld.call('list_issues', {}).is_error is False\n\n"
        "@pytest.mark.agentworld(world='issue-trackr')\n"
        "def test_typo(agentworld):\n"
        "    pass\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert "1 passed" in done.stdout and "1 error" in done.stdout, done.stdout[-3000:]
    assert "did you mean 'issue-tracker'?" in done.stdout


async def test_the_simulator_takes_a_perturbation_preset_by_name() -> None:
    sim = Simulator(load_world("issue-tracker"), perturber="paginated")
    result = await sim.call("list_issues", {})
    assert not result.is_error
    with pytest.raises(Exception, match="preset"):
        Simulator(load_world("issue-tracker"), perturber="no-such-preset")


def test_world_files_the_cli_writes_get_the_usual_file_mode(tmp_path: Path) -> None:
    out = tmp_path / "rockets.yaml"
    old = os.umask(0o022)
    try:
        done = run("populate", "issue-tracker", "--scenario", "a rocket start-up", "--count", "3", "-o", str(out))
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_a_busy_port_is_named_with_a_free_one_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run("serve", "issue-tracker", "--transport", "http", "--port", str(port), timeout=30)
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "serving" not in done.stderr  # it never claimed to serve
    suggested = int(re.search(r"--port (\d+)", done.stderr.rsplit("e.g.", 1)[1]).group(1))  # type: ignore[union-attr]
    assert suggested != port


def test_dash_v_logs_our_call_lines_and_leaves_the_sdk_lines_to_dash_vv() -> None:
    for flag, sdk_lines in (("-v", False), ("-vv", True)):
        stderr = serve_stdio(flag, "serve", "issue-tracker", calls=[("list_issues", {})])
        assert "list_issues {} -> ok" in stderr, stderr
        assert ("Processing request of type" in stderr) is sdk_lines, stderr


def test_every_command_has_an_example_in_the_help() -> None:
    done = run("--help")
    commands = re.findall(r"^    (\w+)\s{2,}", done.stdout.split("options:")[0], flags=re.M)
    examples = done.stdout.split("examples:", 1)[1]
    assert len(commands) >= 13
    missing = [c for c in commands if f"agentworld-mcp {c} " not in examples]
    assert missing == []


def test_the_report_line_from_the_readme_finds_the_world_and_shows_what_changed(tmp_path: Path) -> None:
    traces = tmp_path / "traces.jsonl"
    serve_stdio("serve", "issue-tracker", "--record", str(traces), calls=[("create_issue", {"title": "Crash"})])
    done = run("report", str(traces), "-o", str(tmp_path / "report.html"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    changed = re.search(r'<td class="delta">(.*?)</td>', page, flags=re.S)
    assert changed is not None and "+issues/4" in changed.group(1), changed  # issue 4 created


BANK = {
    "name": "bank",
    "tools": [
        {"name": "create_account", "description": "Open a bank account for a customer.",
         "inputSchema": {"type": "object", "properties": {"owner": {"type": "string"}}, "required": ["owner"]}},
        {"name": "get_account", "description": "Get an account by its id.",
         "inputSchema": {"type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}},
        {"name": "close_account", "description": "Close (delete) a bank account.",
         "inputSchema": {"type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}},
        {"name": "create_order", "description": "Place an order.",
         "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}},
        {"name": "get_order", "description": "Get an order by its id.",
         "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}},
        {"name": "cancel_order", "description": "Cancel a pending order.",
         "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}},
    ],
}


def _id_in(text: str) -> str:
    data = json.loads(text)
    data = data.get("account") or data.get("order") or data
    return str(data.get("id") or data.get("account_id") or data.get("order_id"))


async def test_what_a_description_says_a_tool_does_wins_over_its_verb(tmp_path: Path) -> None:
    from .conftest import stdio_session

    world = tmp_path / "bank.json"
    world.write_text(json.dumps(BANK), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        opened = await session.call_tool("create_account", {"owner": "Ada"})
        account = _id_in(opened.content[0].text)  # type: ignore[union-attr]
        assert not (await session.call_tool("close_account", {"account_id": account})).isError
        # "Close (delete)": the account is gone, not merely closed
        assert (await session.call_tool("get_account", {"account_id": account})).isError

        placed = await session.call_tool("create_order", {"item": "lamp"})
        order = _id_in(placed.content[0].text)  # type: ignore[union-attr]
        assert not (await session.call_tool("cancel_order", {"order_id": order})).isError
        # a cancelled order stays readable, as a real shop keeps it, in the state the verb names
        read = await session.call_tool("get_order", {"order_id": order})
        assert not read.isError
        assert "cancelled" in read.content[0].text  # type: ignore[union-attr]


LIBRARY = {
    "name": "small-library",
    "scenario": "A town library's catalogue.",
    "tools": [
        {"name": "search_books", "description": "Search the catalogue by words of the title or author.",
         "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
        {"name": "get_book", "description": "Get one book by its id.",
         "inputSchema": {"type": "object", "properties": {"book_id": {"type": "string"}}, "required": ["book_id"]}},
    ],
}


async def test_populate_gives_entities_the_fields_the_descriptions_name_so_search_finds_them(tmp_path: Path) -> None:
    from .conftest import stdio_session

    source, populated = tmp_path / "library.json", tmp_path / "library.yaml"
    source.write_text(json.dumps(LIBRARY), encoding="utf-8")
    assert run("populate", str(source), "-o", str(populated), "--count", "3").returncode == 0
    books = yaml.safe_load(populated.read_text(encoding="utf-8"))["seed"]["books"]
    # "by words of the title or author": no tool lists an output shape, the description names the fields
    assert all(book["title"] and book["author"] for book in books)
    author = books[0]["author"]
    assert " " in author  # a book's author is a person's name, not a login
    async with stdio_session(str(populated)) as session:
        found = await session.call_tool("search_books", {"query": author.split()[-1]})
        assert author in found.content[0].text  # type: ignore[union-attr]
        missing = await session.call_tool("search_books", {"query": "zebra"})
        assert author not in missing.content[0].text  # type: ignore[union-attr]
