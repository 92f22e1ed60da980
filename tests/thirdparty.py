"""Third-party MCP programs the tests run: reference servers and the MCP Inspector CLI.

They are npm packages pinned in ``tests/node/package.json`` and installed by
``npm install --prefix tests/node`` (``.ci/run`` does it before pytest). Tests that need
them skip, saying how to install them, only when that install has not been run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import free_port, listening

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / "tests" / "node"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"
INSTALL_HINT = "run `npm install --prefix tests/node` first (CI does)"


def node_bin(name: str) -> str:
    """Path of an installed npm binary, or skip the test saying how to install it."""
    path = NODE_BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed: {INSTALL_HINT}")
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH: install Node.js 20+ to run the third-party MCP servers")
    return str(path)


def memory_server() -> list[str]:
    """@modelcontextprotocol/server-memory (a knowledge graph; see :func:`memory_env`)."""
    return [node_bin("mcp-server-memory")]


def memory_env(tmp_dir: Path) -> dict[str, str]:
    """Keep server-memory's graph file out of the installed package."""
    return {"MEMORY_FILE_PATH": str(tmp_dir / "memory.jsonl")}


def filesystem_server(root: Path) -> list[str]:
    """@modelcontextprotocol/server-filesystem, allowed to see only ``root``."""
    return [node_bin("mcp-server-filesystem"), str(root)]


@contextlib.contextmanager
def everything_http() -> Iterator[str]:
    """@modelcontextprotocol/server-everything in streamableHttp mode; yields its MCP URL."""
    port = free_port()
    with listening([node_bin("mcp-server-everything"), "streamableHttp"], port, env={"PORT": str(port)}) as url:
        yield url


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``agentworld-mcp ARGS`` as a user runs it (a subprocess of this interpreter)."""
    return subprocess.run(
        [sys.executable, "-m", "agentworld_mcp", *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )
