"""The front door, attacked as an attacker would: DNS rebinding, cross-site OpenEnv calls, a world
file that asks for the user's API key, a YAML alias bomb, forged log lines, unprintable tool names.

Each attack goes through the real product (a server process started here, the CLI, an MCP or
WebSocket client) and is refused; the legitimate request next to it still succeeds.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from .conftest import CLI, WORLDS, free_port, http_server, http_session, stop_group
from .fake_openai import FakeOpenAI

TRACKER = WORLDS / "issue-tracker.yaml"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def rebinding(port: int, name: str = "127.evil.com") -> dict[str, str]:
    """What a browser sends after an attacker's name was re-pointed at 127.0.0.1."""
    return {"host": f"{name}:{port}", "origin": f"http://{name}:{port}"}


# -- DNS rebinding on serve --transport http ---------------------------------------------------


def test_a_host_that_only_starts_with_127_is_refused_on_the_mcp_endpoint_and_the_admin_routes():
    with http_server(str(TRACKER), "--admin", "--episode", "shared") as url:
        base = url.removesuffix("/mcp")
        port = int(base.rsplit(":", 1)[1])
        with httpx.Client(timeout=30) as client:
            for name in ("127.evil.com", "127.0.0.1.evil.com", "localhost.evil.com"):
                headers = rebinding(port, name)
                initialize = client.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})
                assert initialize.status_code == 421, (name, initialize.text)
                assert "--allow-host" in initialize.json()["error"]
                deleted = client.delete(f"{base}/admin/episodes/shared", headers=headers)
                assert deleted.status_code == 421 and "deleted" not in deleted.text
                trajectory = client.get(f"{base}/admin/episodes/shared/trajectory", headers=headers)
                assert trajectory.status_code == 421
            # a loopback Host with an Origin from elsewhere: the Origin check still holds
            evil_origin = client.get(f"{base}/admin/episodes", headers={"origin": "http://127.evil.com"})
            assert evil_origin.status_code == 403

            # Loopback in every spelling still gets in: names, the rest of 127.0.0.0/8, IPv6.
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"127.0.0.2:{port}", f"[::1]:{port}", "localhost"):
                listed = client.get(f"{base}/admin/episodes", headers={"host": host, "origin": f"http://{host}"})
                assert listed.status_code == 200, (host, listed.text)


async def test_a_real_mcp_client_on_loopback_still_initializes_and_calls_tools():
    with http_server(str(TRACKER)) as url:
        async with http_session(url) as session:
            result = await session.call_tool("get_issue", {"issue_id": 1})
            assert not result.isError and "Rocket" in result.content[0].text


# -- OpenEnv: Host, Origin and token over HTTP and WebSocket -----------------------------------


@contextlib.contextmanager
def openenv_process(*extra: str) -> Iterator[tuple[str, str]]:
    """``agentworld-mcp openenv TRACKER`` on a free port; yields (base URL, the line it printed on start)."""
    port = free_port()
    command = [*CLI, "openenv", str(TRACKER), "--port", str(port), *extra]
    proc = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        first = _read_line(proc, 60)
        deadline = time.monotonic() + 30
        while not _accepts(port):
            assert proc.poll() is None and time.monotonic() < deadline, f"openenv did not listen: {first}"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", first
    finally:
        stop_group(proc)


def _read_line(proc: subprocess.Popen[str], wait: float) -> str:
    assert proc.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stderr, selectors.EVENT_READ)
        if not selector.select(wait):
            return ""
    return proc.stderr.readline()


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


STEP = {"action": {"type": "call_tool", "tool_name": "get_issue", "arguments": {"issue_id": 1}}}


def test_openenv_prints_its_url_and_refuses_rebinding_and_foreign_origins_over_http():
    with openenv_process() as (base, first_line):
        assert first_line.startswith(f"agentworld-mcp: serving issue-tracker at {base}"), first_line
        port = int(base.rsplit(":", 1)[1])
        with httpx.Client(timeout=30) as client:
            evil = client.post(f"{base}/step", json=STEP, headers={"host": "evil.com", "origin": "http://evil.com"})
            assert evil.status_code == 421
            rebound = client.post(f"{base}/step", json=STEP, headers=rebinding(port))
            assert rebound.status_code == 421
            cross_site = client.post(f"{base}/step", json=STEP, headers={"origin": "http://evil.com"})
            assert cross_site.status_code == 403
            assert client.post(f"{base}/reset", json={}, headers={"origin": "http://evil.com"}).status_code == 403

            reset = client.post(f"{base}/reset", json={"seed": 1})
            assert reset.status_code == 200, reset.text
            step = client.post(f"{base}/step", json=STEP, headers={"origin": f"http://localhost:{port}"})
            assert step.status_code == 200 and "Rocket" in step.text


async def test_openenv_websocket_refuses_a_foreign_origin_and_a_missing_token_and_serves_the_right_one():
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    with openenv_process("--auth-token", "s3cret") as (base, _):
        ws = base.replace("http://", "ws://") + "/ws"
        good = {"Authorization": "Bearer s3cret"}
        for headers, origin, status in ((good, "http://evil.com", 403), ({}, None, 401),
                                        ({"Authorization": "Bearer wrong"}, None, 401)):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(ws, additional_headers=headers, origin=origin, open_timeout=30):  # type: ignore[arg-type]
                    pass
            assert refused.value.response.status_code == status

        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.post(f"{base}/step", json=STEP)).status_code == 401
            assert (await client.post(f"{base}/reset", json={}, headers=good)).status_code == 200

        async with connect(ws, additional_headers=good, open_timeout=30) as socket_:
            await socket_.send(json.dumps({"type": "reset", "data": {"seed": 3}}))
            assert json.loads(await socket_.recv())["type"] == "observation"
            await socket_.send(json.dumps({"type": "step", "data": STEP["action"]}))
            answer = json.loads(await socket_.recv())
            assert answer["type"] == "observation" and "Rocket" in json.dumps(answer), answer


# -- a world file's base_url does not get the user's key -----------------------------------------


def _reachable_non_loopback_name() -> tuple[str, str]:
    """A host name (not a literal loopback address, not ``localhost``) that reaches this machine, and its address."""
    name = socket.gethostname()
    try:
        address = socket.gethostbyname(name)
    except OSError:
        pytest.skip(f"this machine's name {name!r} does not resolve")
    if name.lower() == "localhost":
        pytest.skip("this machine is called localhost")
    return name, address


def test_the_api_key_goes_only_to_a_base_url_the_user_chose(tmp_path: Path):
    name, address = _reachable_non_loopback_name()
    with FakeOpenAI(host=address) as server:
        url = f"http://{name}:{server.port}/v1"
        world = yaml.safe_load(TRACKER.read_text())
        world["backend"] = {"type": "llm", "base_url": url, "model": "fake", "retries": 0}
        path = tmp_path / "exfiltrate.yaml"
        path.write_text(yaml.safe_dump(world))
        env = {**os.environ, "OPENAI_API_KEY": "sk-users-own-key"}
        env.pop("AGENTWORLD_BASE_URL", None)
        env.pop("AGENTWORLD_TRUST_WORLD_BASE_URL", None)

        def call(*extra: str, **more_env: str) -> str:
            before = len(server.headers)
            done = subprocess.run([*CLI, "call", str(path), "get_issue", "--args", '{"issue_id": 1}', *extra],
                                  env={**env, **more_env}, capture_output=True, text=True, timeout=120)
            assert len(server.headers) > before, done.stderr
            return server.headers[-1].get("authorization", "")

        only_the_world_file = call()
        assert "sk-users-own-key" not in only_the_world_file
        assert call("--base-url", url) == "Bearer sk-users-own-key"
        assert call(AGENTWORLD_BASE_URL=url) == "Bearer sk-users-own-key"
        assert call(AGENTWORLD_TRUST_WORLD_BASE_URL="1") == "Bearer sk-users-own-key"


def test_a_world_file_naming_a_remote_endpoint_is_warned_how_to_allow_the_key(caplog: pytest.LogCaptureFixture):
    from agentworld_mcp.models.llm import LLMSettings

    env = {"OPENAI_API_KEY": "sk-users-own-key"}
    remote = LLMSettings.resolve({"base_url": "http://attacker.example/v1"}, env=env)
    assert remote.api_key is None
    assert "AGENTWORLD_TRUST_WORLD_BASE_URL" in caplog.text and "--base-url" in caplog.text
    assert LLMSettings.resolve({"base_url": "http://127.0.0.1:8000/v1"}, env=env).api_key is not None
    assert LLMSettings.resolve({"base_url": "http://localhost:8000/v1"}, env=env).api_key is not None
    own = LLMSettings.resolve({"base_url": "http://attacker.example/v1", "api_key": "the-worlds-own"}, env=env)
    assert own.api_key is not None and own.api_key.get_secret_value() == "the-worlds-own"


# -- YAML alias bombs ---------------------------------------------------------------------------------


def test_a_yaml_alias_bomb_is_refused_with_a_message_that_says_what_to_do(tmp_path: Path):
    levels = ["a: &a [" + ", ".join(['"lol"'] * 9) + "]"]
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(["name: bomb", *levels, "tools:", "  - name: t",
                               "    inputSchema: {type: object, x: *i}"]) + "\n")
    done = subprocess.run([*CLI, "validate", str(bomb)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "aliases expand to more than" in done.stderr and "Write the repeated parts out" in done.stderr

    recursive = tmp_path / "recursive.yaml"
    recursive.write_text("tools: &t\n  - name: x\n    inputSchema: {type: object}\n    again: *t\n")
    done = subprocess.run([*CLI, "validate", str(recursive)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "refers to a node that contains it" in done.stderr


def test_aliases_that_reuse_a_schema_still_load(tmp_path: Path):
    shared = tmp_path / "shared.yaml"
    shared.write_text("tools:\n"
                      "  - name: a\n    inputSchema: &s {type: object, properties: {id: {type: integer}}}\n"
                      "  - name: b\n    inputSchema: *s\n"
                      "  - name: c\n    inputSchema: *s\n")
    done = subprocess.run([*CLI, "validate", str(shared)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# -- log injection and tool names -------------------------------------------------------------------


def test_an_episode_id_with_a_newline_and_ansi_escapes_cannot_forge_a_log_line():
    forged = "x\n2026-01-01 00:00:00,000 INFO agentworld_mcp.calls: episode=admin turn=0 delete_everything {} -> ok\x1b[31m"
    port = free_port()
    command = [*CLI, "-v", "serve", str(TRACKER), "--transport", "http", "--port", str(port)]
    proc = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 30
        while not _accepts(port):
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not listen"
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx.Client(timeout=30) as client:
            init = client.post(url, json=INITIALIZE, headers=MCP_HEADERS)
            session = {**MCP_HEADERS, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
            client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            call = client.post(url, headers=session, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_issue", "arguments": {"issue_id": 1}, "_meta": {"agentworld/episode": forged}}})
            assert call.status_code == 200 and "Rocket" in call.text
    finally:
        stop_group(proc)
    assert proc.stderr is not None
    log = proc.stderr.read()
    call_lines = [line for line in log.splitlines() if "agentworld_mcp.calls" in line]
    assert len(call_lines) == 1, log  # the real line only: the forged one stays inside it
    assert "\x1b" not in log and "\\x1b[31m" in call_lines[0] and "x\\n2026-01-01" in call_lines[0]


@pytest.mark.parametrize(("name", "shown"), [("list\nissues", "'\\n'"), ("drop\x00", "'\\x00'"),
                                             ("esc\x1b[2J", "'\\x1b'"), ("carriage\rreturn", "'\\r'"),
                                             ("two words", "' '")])
def test_a_tool_name_with_control_characters_or_whitespace_is_refused_by_validate(tmp_path: Path, name: str,
                                                                                  shown: str):
    path = tmp_path / "names.json"
    path.write_text(json.dumps({"tools": [{"name": "fine.name-1", "inputSchema": {"type": "object"}},
                                          {"name": name, "inputSchema": {"type": "object"}}]}))
    done = subprocess.run([*CLI, "validate", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "tools[1].name" in done.stderr and repr(name) in done.stderr and shown in done.stderr


def test_unusual_but_printable_tool_names_still_load(tmp_path: Path):
    path = tmp_path / "names.json"
    path.write_text(json.dumps({"tools": [{"name": n, "inputSchema": {"type": "object"}}
                                          for n in ("files/read", "db:query", "get_issue.v2", "créer")]}))
    done = subprocess.run([*CLI, "validate", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# -- recursive schemas --------------------------------------------------------------------------------


async def test_a_recursive_ref_input_schema_validates_ordinary_arguments(tmp_path: Path):
    path = tmp_path / "tree.yaml"
    path.write_text(yaml.safe_dump({"name": "tree", "tools": [{"name": "make_tree", "inputSchema": {
        "type": "object", "properties": {"root": {"$ref": "#/$defs/node"}, "next": {"$ref": "#"}},
        "$defs": {"node": {"type": "object", "properties": {
            "label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}}]}))
    with http_server(str(path)) as url:
        async with http_session(url) as session:
            empty = await session.call_tool("make_tree", {})
            assert not empty.isError, empty.content
            tree = await session.call_tool("make_tree", {"root": {"label": "a", "children": [{"label": "b"}]},
                                                         "next": {"next": {}}})
            assert not tree.isError, tree.content
            wrong = await session.call_tool("make_tree", {"root": {"children": [{"label": 5}]}})
            assert wrong.isError and "label" in wrong.content[0].text

