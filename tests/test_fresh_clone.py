"""The README's two commands, run as written on a clean clone (the slow tier: minutes of installs).

A newcomer clones the repository and pastes the README's commands. This test does the same
in a temporary clone of the committed tree: the first command installs the package into a
new virtual environment and serves the bundled world over HTTP, and a real MCP client calls
it; the second installs everything the suite needs. Afterwards the clone is unchanged
(``git status`` clean) and no process is left running in it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import ROOT, http_session, stop_group

pytestmark = pytest.mark.slow

_PORT = 8765  # the port the README's first command serves on


def _commands() -> tuple[str, str]:
    first, second = re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text(encoding="utf-8"))[:2]
    return first, second


def _clone(tmp_path: Path) -> Path:
    clone = tmp_path / "agentworld-mcp"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    return clone


def _env() -> dict[str, str]:
    """The user's environment, without this test run's virtual environment on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if not p.startswith(venv))
    return env


def _processes_in(folder: Path) -> list[str]:
    """Command lines of processes whose working directory is inside ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(Path(os.readlink(proc / "cwd"))).startswith(str(folder)):
                found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:  # gone, or not ours to read
            continue
    return found


def _taken(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _git_status(clone: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True,
                          check=True).stdout


async def test_the_readme_commands_install_serve_and_test_a_clean_clone(tmp_path: Path) -> None:
    if _taken(_PORT):
        pytest.skip(f"port {_PORT}, which the README's first command serves on, is taken on this machine")
    first, second = _commands()
    clone = _clone(tmp_path)

    # 1. The first command: install and serve (it runs until stopped).
    server = subprocess.Popen(["bash", "-c", first], cwd=clone, env=_env(), start_new_session=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 600
        while not _taken(_PORT):
            assert server.poll() is None, f"the first command exited:\n{server.stdout.read()[-3000:]}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the first command did not serve within 10 minutes"
            time.sleep(0.5)
        async with http_session(f"http://127.0.0.1:{_PORT}/mcp") as session:
            tools = (await session.list_tools()).tools
            assert tools, "the bundled world serves no tools"
            listed = await session.call_tool("list_issues", {"status": "open"})
            assert not listed.isError
    finally:
        stop_group(server)

    # 2. The second command's installs, as written; the suite it ends with is this suite, so a
    # small part of it runs here instead (CI runs the whole command on its own clean clone).
    setup, tail = second.rsplit(" && ", 1)
    assert tail == "python -m pytest"
    installed = subprocess.run(["bash", "-c", f"{setup} && python -m pytest -q tests/test_readme.py"], cwd=clone,
                               env=_env(), capture_output=True, text=True, timeout=1500)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]

    assert _git_status(clone) == "", "the README's commands changed tracked files"
    assert _processes_in(clone) == [], "a process the commands started is still running"
