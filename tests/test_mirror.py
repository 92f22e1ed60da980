"""`agentworld-mcp mirror` against real third-party MCP servers.

The servers are the official reference servers from npm (tests/node/package.json):
server-memory and server-filesystem over stdio, server-everything over streamable HTTP.
"Byte-for-byte" is checked on the wire: the JSON a client reads from our server's
tools/list is the JSON it reads from the real server's, key order included.
"""

from __future__ import annotations

import json
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from agentworld_mcp import load_world
from agentworld_mcp.world.writer import write_world

from .conftest import http_session
from .mirrored import Mirrored, mirrored_catalogs, raw_tools_stdio  # noqa: F401
from .thirdparty import run_cli

NAMES = ["memory", "filesystem", "everything"]


def canonical(value: object) -> str:
    """JSON text that tells 1 from 1.0 from true, and keeps key order."""
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("name", NAMES)
def test_mirrored_world_holds_the_servers_tools_unchanged(mirrored_catalogs, name):
    mirrored: Mirrored = mirrored_catalogs[name]
    assert len(mirrored.raw_tools) >= 5
    world = load_world(mirrored.world)
    assert canonical(world.tools) == canonical(mirrored.raw_tools)
    # and a plain YAML/JSON reader (an editor, another tool) sees the same catalog
    text = mirrored.world.read_text(encoding="utf-8")
    plain = json.loads(text) if mirrored.world.suffix == ".json" else yaml.safe_load(text)
    assert canonical(plain["tools"]) == canonical(mirrored.raw_tools)
    assert plain["name"] == mirrored.world.stem


@pytest.mark.parametrize("name", NAMES)
def test_our_server_lists_exactly_what_the_real_server_lists(mirrored_catalogs, name):
    """Raw JSON-RPC over stdio to `agentworld-mcp serve MIRRORED`: same bytes as the real server."""
    mirrored: Mirrored = mirrored_catalogs[name]
    ours = raw_tools_stdio([sys.executable, "-m", "agentworld_mcp", "serve", str(mirrored.world)])
    assert canonical(ours) == canonical(mirrored.raw_tools)


@pytest.mark.parametrize("name", NAMES)
async def test_the_sdk_client_sees_the_same_catalog_from_both(mirrored_catalogs, name):
    mirrored: Mirrored = mirrored_catalogs[name]

    def dump(listed) -> list[dict]:
        return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]

    if mirrored.url:
        async with http_session(mirrored.url) as session:
            real = dump(await session.list_tools())
    else:
        import os

        assert mirrored.command is not None
        params = StdioServerParameters(command=mirrored.command[0], args=mirrored.command[1:],
                                       env={**os.environ, **mirrored.env})
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    real = dump(await session.list_tools())
    from .conftest import stdio_session

    async with stdio_session(str(mirrored.world)) as session:
        simulated = dump(await session.list_tools())
    assert simulated == real
    assert [t["name"] for t in simulated] == [t["name"] for t in mirrored.raw_tools]


def test_mirror_keeps_name_and_scenario_and_writes_a_loadable_world(mirrored_catalogs, tmp_path):
    from . import thirdparty

    out = tmp_path / "kg.yaml"
    done = run_cli("mirror", "-o", str(out), "--name", "knowledge-graph", "--scenario", "A team's shared memory.",
                   "--", *thirdparty.memory_server(), env=thirdparty.memory_env(tmp_path))
    assert done.returncode == 0, done.stderr
    world = load_world(out)
    assert (world.name, world.scenario) == ("knowledge-graph", "A team's shared memory.")
    assert canonical(world.tools) == canonical(mirrored_catalogs["memory"].raw_tools)
    checked = run_cli("validate", str(out))
    assert checked.returncode == 0 and "9 tools" in checked.stdout


def test_mirror_reports_an_unreachable_server_without_a_traceback(tmp_path):
    out = tmp_path / "nothing.yaml"
    done = run_cli("mirror", "-o", str(out), "--url", "http://127.0.0.1:9/mcp")
    assert done.returncode == 1
    assert "could not list tools from http://127.0.0.1:9/mcp" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    crashed = run_cli("mirror", "-o", str(out), "--", sys.executable, "-c", "raise SystemExit(3)")
    assert crashed.returncode == 1 and "could not list tools" in crashed.stderr and "Traceback" not in crashed.stderr


def test_mirror_needs_exactly_one_target(tmp_path):
    neither = run_cli("mirror", "-o", str(tmp_path / "w.yaml"))
    assert neither.returncode == 2 and "give either --url URL or -- COMMAND" in neither.stderr
    both = run_cli("mirror", "-o", str(tmp_path / "w.yaml"), "--url", "http://127.0.0.1:9/mcp", "--", "true")
    assert both.returncode == 2


# -- the YAML writer keeps every JSON value exact ------------------------------------------

_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                     max_leaves=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(description=st.text(), default=_json, enum=st.lists(_scalars, min_size=1, max_size=5, unique_by=canonical),
       extra=st.dictionaries(st.text(min_size=1), _json, max_size=3))
def test_yaml_round_trip_keeps_strings_and_numbers_exact(tmp_path, description, default, enum, extra):
    """Strings like 'yes', '0x1F', '1e3', '~' or '' and numbers like 1.0 vs 1 survive write_world."""
    tool = {
        "name": "t", "description": description,
        "inputSchema": {"type": "object", "properties": {"v": {"default": default, "enum": enum}}},
        "annotations": {"title": description},
        "_meta": extra,
    }
    path = write_world(tmp_path / "round.yaml", [tool])
    assert canonical(load_world(path).tools) == canonical([tool])
