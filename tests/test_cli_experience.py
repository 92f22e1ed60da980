"""What a person meets at the terminal: live call logs, a banner, errors that say what to do.

Each test runs the real command the way a user does (a subprocess; a pseudo-terminal where
the behaviour depends on one).
"""

from __future__ import annotations

import json
import os
import socket
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import CLI, free_port, http_session, listening


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("where", ["before", "after"])
def test_dash_v_logs_one_line_per_call_before_or_after_the_command(where: str) -> None:
    call = ["call", "issue-tracker", "create_issue", "--args", '{"title": "Crash on start"}']
    done = run("-v", *call) if where == "before" else run(*call, "-v")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "agentworld_mcp.calls" in line]
    assert len(lines) == 1
    assert "episode=default turn=1 create_issue" in lines[0] and '"Crash on start"' in lines[0]
    assert "-> ok" in lines[0] and " ms)" in lines[0]


def test_the_call_log_shows_errors_and_injected_perturbations() -> None:
    done = run("call", "issue-tracker", "get_issue", "--args", '{"issue_id": 1}', "-v",
               "--perturb", '{"kind": "rate_limit", "tools": "get_*"}')
    line = next(line for line in done.stderr.splitlines() if "agentworld_mcp.calls" in line)
    assert "-> error" in line and "[perturbed: rate_limit]" in line


def test_quiet_silences_warnings(tmp_path: Path) -> None:
    world = tmp_path / "w.json"
    world.write_text(json.dumps({"tools": [{"name": "a", "descripton": "typo", "inputSchema": {"type": "object"}}]}))
    loud, quiet = run("call", str(world), "a"), run("-q", "call", str(world), "a")
    assert "did you mean 'description'?" in loud.stderr
    assert "did you mean" not in quiet.stderr and quiet.returncode == 0


def test_serve_on_a_terminal_says_it_is_waiting(tracker_world: Path) -> None:
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([*CLI, "serve", str(tracker_world)], stdin=terminal, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        banner = proc.stderr.readline() if ready else ""
    finally:
        proc.kill()
        proc.wait()
        os.close(controller)
    assert "waiting for an MCP client on stdin" in banner and "7 tools" in banner


def test_a_bad_world_file_and_a_bad_policy_exit_alike_with_the_fix(tmp_path: Path) -> None:
    world = tmp_path / "w.yaml"
    world.write_text("seeds: {}\ntools:\n  - name: a\n    input_schema: {type: object}\n")
    bad_world = run("validate", str(world))
    assert bad_world.returncode == 2
    assert "'seeds': did you mean 'seed'?" in bad_world.stderr
    assert "found 'input_schema': rename it to 'inputSchema'" in bad_world.stderr
    bad_policy = run("call", "issue-tracker", "list_issues", "--perturb", "gremlins")
    assert bad_policy.returncode == 2 and "flaky-network" in bad_policy.stderr


def test_a_yaml_syntax_error_gets_a_syntax_hint_not_a_schema_hint(tmp_path: Path) -> None:
    world = tmp_path / "w.yaml"
    world.write_text("tools: [\n  - name: a\n")
    done = run("validate", str(world))
    assert done.returncode == 2 and "invalid YAML" in done.stderr
    assert "Fix the syntax" in done.stderr and "schemas/world.schema.json" not in done.stderr


def test_mirror_of_a_dead_url_names_the_connection_problem() -> None:
    done = run("mirror", "-o", "/dev/null", "--url", f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 1
    assert "ExceptionGroup" not in done.stderr and "TaskGroup" not in done.stderr
    assert "ConnectError" in done.stderr and "Check that the server is running" in done.stderr


async def test_a_client_that_hangs_up_leaves_no_error_in_the_log(tracker_world: Path) -> None:
    port = free_port()
    command = [*CLI, "serve", str(tracker_world), "--transport", "http", "--port", str(port)]
    proc_log = Path(os.environ.get("TMPDIR", "/tmp")) / f"agentworld-disconnect-{port}.log"
    with proc_log.open("w") as sink, listening(["sh", "-c", " ".join(command) + f" 2>{sink.name}"], port) as url:
        for _ in range(3):
            async with http_session(url) as session:
                await session.call_tool("list_issues", {})
        time.sleep(0.5)
    text = proc_log.read_text()
    proc_log.unlink()
    assert "Traceback" not in text and "ERROR" not in text, text
    # the server under the ``sh -c`` wrapper was stopped with it: nothing is left listening
    # (a killed process closes its socket a moment after the signal: a bounded wait, not a timing)
    deadline = time.monotonic() + 10
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                break
        assert time.monotonic() < deadline, "the server outlived the test"
        time.sleep(0.05)
