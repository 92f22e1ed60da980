"""The client configs under integrations/ start a working server.

Each config is read the way its client reads it (``mcpServers`` or VS Code's ``servers``;
the command after ``--`` in ``claude mcp add``), then that command is started by a real MCP
client from an unrelated directory, as a desktop app would.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from agentworld_mcp.world.world import bundled_world, load_world

from .conftest import ROOT
from .thirdparty import node_bin

INTEGRATIONS = ROOT / "integrations"
JSON_CONFIGS = sorted(INTEGRATIONS.rglob("*.json"))
SCRIPT = Path(sys.executable).parent / "agentworld-mcp"  # the console script pip installed


def _servers(config: Path) -> dict[str, dict]:
    data = json.loads(config.read_text(encoding="utf-8"))
    servers = data.get("mcpServers") if "mcpServers" in data else data["servers"]  # VS Code says "servers"
    assert servers, f"{config}: no servers"
    return servers


def _resolve(command: str, args: list[str]) -> tuple[str, list[str]]:
    """What the client would run: the installed console script, workspace variables filled in."""
    assert command == "agentworld-mcp", command
    assert SCRIPT.exists(), f"the console script is not installed at {SCRIPT}"
    return str(SCRIPT), [a.replace("${workspaceFolder}", str(ROOT)) for a in args]


def _world_of(args: list[str]) -> Path:
    name = args[args.index("serve") + 1]
    return Path(name) if Path(name).exists() else bundled_world(name)  # type: ignore[return-value]


async def _list_tools(command: str, args: list[str], cwd: Path) -> list[dict]:
    params = StdioServerParameters(command=command, args=args, cwd=cwd, env=dict(os.environ))
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                first = listed.tools[0]
                result = await session.call_tool(first.name, {}) if not first.inputSchema.get("required") else None
                assert result is None or result.content
                return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]


def test_every_client_has_a_config() -> None:
    names = {p.relative_to(INTEGRATIONS).as_posix() for p in INTEGRATIONS.rglob("*") if p.is_file()}
    assert {"claude-desktop/claude_desktop_config.json", "cursor/mcp.json", "vscode/mcp.json",
            "claude-code/add-agentworld.sh", "README.md"} <= names


@pytest.mark.parametrize("config", JSON_CONFIGS, ids=lambda p: p.relative_to(INTEGRATIONS).as_posix())
async def test_json_config_starts_a_server_that_lists_the_world(config: Path, tmp_path: Path) -> None:
    for name, server in _servers(config).items():
        assert server.get("type", "stdio") == "stdio", name
        command, args = _resolve(server["command"], server["args"])
        tools = await _list_tools(command, args, cwd=tmp_path)
        assert tools == load_world(_world_of(args)).tools


async def test_claude_code_snippet_starts_a_server(tmp_path: Path) -> None:
    script = INTEGRATIONS / "claude-code" / "add-agentworld.sh"
    lines = [line for line in script.read_text().splitlines() if line.startswith("claude mcp add")]
    assert lines, "no `claude mcp add` line"
    words = shlex.split(lines[0])
    server = words[words.index("--") + 1 :]
    command, args = _resolve(server[0], server[1:])
    tools = await _list_tools(command, args, cwd=tmp_path)
    assert tools == load_world(_world_of(args)).tools


def test_the_inspector_reads_the_claude_desktop_config_as_is(tmp_path: Path) -> None:
    """An independent client (the MCP Inspector) starts the server from the unmodified file."""
    inspector = node_bin("mcp-inspector")
    config = INTEGRATIONS / "claude-desktop" / "claude_desktop_config.json"
    (name,) = _servers(config)
    env = {**os.environ, "PATH": f"{SCRIPT.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert shutil.which("agentworld-mcp", path=env["PATH"])
    done = subprocess.run([inspector, "--cli", "--config", str(config), "--server", name, "--method", "tools/list"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["tools"]
    assert listed == load_world(bundled_world("issue-tracker")).tools  # type: ignore[arg-type]
