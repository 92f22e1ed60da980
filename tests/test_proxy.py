"""`agentworld-mcp proxy`: a transparent MCP proxy in front of a real server.

A client talking through the proxy sees byte-for-byte the catalog the real server lists and
the same results (isError ones included) and JSON-RPC errors as a client talking to the
server directly; `--record` appends each call in the trajectory format, secrets redacted.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import jsonschema
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import McpError

from agentworld_mcp.sim2real.score import RecordedTurn, turn_of

from . import thirdparty
from .conftest import CLI, ROOT, WORLDS, free_port, http_session, listening
from .mirrored import raw_tools_http, raw_tools_stdio
from .test_score_learn import filesystem_script, memory_script, proxy_session

JSONDict = dict[str, Any]
TRAJECTORY_SCHEMA = json.loads((ROOT / "schemas" / "trajectory.schema.json").read_text())


async def play(session: ClientSession, script: list[tuple[str, JSONDict]]) -> list[JSONDict]:
    """Every result as JSON, and a JSON-RPC error as {"rpc_error": ...}."""
    out = []
    for tool, arguments in script:
        try:
            out.append((await session.call_tool(tool, arguments)).model_dump(mode="json", exclude_none=True))
        except McpError as exc:
            out.append({"rpc_error": exc.error.model_dump(mode="json", exclude_none=True)})
    return out


async def direct(command: list[str], script: list[tuple[str, JSONDict]], env: dict[str, str] | None = None) -> list[JSONDict]:
    params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **(env or {})})
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await play(session, script)


def recorded(path: Path) -> list[RecordedTurn]:
    """The recorded calls, every line checked against the trajectory schema (either line layout)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        jsonschema.validate(line, TRAJECTORY_SCHEMA)
    return [turn for turn in map(turn_of, lines) if turn is not None]


async def test_memory_over_stdio_answers_as_the_real_server_and_records_every_call(tmp_path: Path) -> None:
    server = thirdparty.memory_server()
    script = memory_script(["Alice", "Bob", "Carol"], "Acme")
    script.insert(5, ("search_nodes", {"query": "Acme", "api_token": "s3cr3t-value"}))  # a secret the recording must not keep
    (tmp_path / "direct").mkdir()
    (tmp_path / "proxied").mkdir()
    expected = await direct(server, script, thirdparty.memory_env(tmp_path / "direct"))
    recording = tmp_path / "memory.jsonl"
    async with proxy_session("--record", str(recording), "--", *server,
                             env=thirdparty.memory_env(tmp_path / "proxied")) as session:
        got = await play(session, script)
    assert got == expected
    assert any(r.get("isError") for r in got), "the script includes a failing call"

    turns = recorded(recording)
    assert [turn.tool for turn in turns] == [tool for tool, _ in script]
    assert [turn.result for turn in turns] == [{"isError": False, **r} for r in expected]
    assert "s3cr3t-value" not in recording.read_text()
    assert turns[5].arguments["api_token"] == "[redacted]"
    catalog = json.loads((tmp_path / "memory.tools.json").read_text())
    assert catalog["tools"] == raw_tools_stdio(server, thirdparty.memory_env(tmp_path / "direct"))


def test_tools_list_through_the_proxy_is_the_servers_own_json(tmp_path: Path) -> None:
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    server = thirdparty.filesystem_server(sandbox)
    assert raw_tools_stdio([*CLI, "proxy", "--", *server]) == raw_tools_stdio(server)


async def test_filesystem_results_are_identical_through_the_proxy(tmp_path: Path) -> None:
    sandbox = (tmp_path / "sandbox").resolve()
    sandbox.mkdir()
    server = thirdparty.filesystem_server(sandbox)
    script = filesystem_script(sandbox, "notes", ["alpha", "beta", "gamma"])
    expected = await direct(server, script)
    shutil.rmtree(sandbox)
    sandbox.mkdir()
    async with proxy_session("--record", str(tmp_path / "fs.jsonl"), "--", *server) as session:
        got = await play(session, script)
    assert got == expected
    assert len(recorded(tmp_path / "fs.jsonl")) == len(script)


async def test_streamable_http_upstream_served_over_http(tmp_path: Path) -> None:
    script = [("echo", {"message": "hello"}), ("get-sum", {"a": 2, "b": 40}), ("echo", {}), ("no-such-tool", {})]
    with thirdparty.everything_http() as upstream:
        async with http_session(upstream) as session:
            expected = await play(session, script)
        port = free_port()
        recording = tmp_path / "everything.jsonl"
        command = [*CLI, "proxy", "--url", upstream, "--transport", "http", "--port", str(port), "--record", str(recording)]
        with listening(command, port) as url:
            assert raw_tools_http(url) == raw_tools_http(upstream)
            async with http_session(url) as session:
                got = await play(session, script)
    assert got == expected
    assert [bool(turn.result["isError"]) for turn in recorded(recording)] == [False, False, True, True]


async def test_json_rpc_errors_pass_through_with_code_and_message(tmp_path: Path) -> None:
    upstream = [*CLI, "serve", str(WORLDS / "issue-tracker.yaml")]  # answers an unknown tool with -32602
    script = [("no_such_tool", {}), ("list_issues", {})]
    expected = await direct(upstream, script)
    assert expected[0]["rpc_error"]["code"] == -32602
    async with proxy_session("--record", str(tmp_path / "t.jsonl"), "--", *upstream) as session:
        assert await play(session, script) == expected
    assert [turn.tool for turn in recorded(tmp_path / "t.jsonl")] == ["list_issues"]


def test_proxy_needs_exactly_one_upstream() -> None:
    done = thirdparty.run_cli("proxy")
    assert done.returncode == 2 and "--url URL or -- COMMAND" in done.stderr


async def test_a_write_routed_to_sim_never_reaches_the_real_server(tmp_path: Path) -> None:
    """A dry run against the real server: reads go to it, writes are answered by the simulator."""
    sandbox = (tmp_path / "sandbox").resolve()
    sandbox.mkdir()
    (sandbox / "kept.txt").write_text("original\n")
    before = {p.name: p.read_bytes() for p in sandbox.iterdir()}
    recording = tmp_path / "dry.jsonl"
    server = thirdparty.filesystem_server(sandbox)
    async with proxy_session("--route", "write_*=sim", "--route", "edit_*=sim", "--record", str(recording),
                             "--", *server) as session:
        written = await session.call_tool("write_file", {"path": str(sandbox / "new.txt"), "content": "hi"})
        # the simulator's world has the file it wrote (its state carries across sim calls)...
        edited = await session.call_tool("edit_file", {"path": str(sandbox / "new.txt"),
                                                       "edits": [{"oldText": "hi", "newText": "hello"}]})
        # ...the real one does not
        real_read = await session.call_tool("read_text_file", {"path": str(sandbox / "new.txt")})
        kept = await session.call_tool("read_text_file", {"path": str(sandbox / "kept.txt")})
    assert not written.isError and "new.txt" in written.content[0].text  # the simulator's answer
    assert not edited.isError, edited.content[0].text
    assert real_read.isError and "ENOENT" in real_read.content[0].text
    assert kept.content[0].text == "original\n"
    assert {p.name: p.read_bytes() for p in sandbox.iterdir()} == before
    assert [(t.tool, t.backend) for t in _backends(recording)] == [
        ("write_file", "schema"), ("edit_file", "schema"), ("read_text_file", "real"), ("read_text_file", "real")]


async def test_shadow_returns_real_answers_and_records_the_simulators_predictions(tmp_path: Path) -> None:
    server = thirdparty.memory_server()
    script = memory_script(["Alice", "Bob", "Carol"], "Acme")
    (tmp_path / "direct").mkdir()
    (tmp_path / "proxied").mkdir()
    expected = await direct(server, script, thirdparty.memory_env(tmp_path / "direct"))
    recording = tmp_path / "memory.jsonl"
    async with proxy_session("--shadow", "--record", str(recording), "--", *server,
                             env=thirdparty.memory_env(tmp_path / "proxied")) as session:
        assert await play(session, script) == expected
    shadow = tmp_path / "memory.shadow.jsonl"
    predictions = recorded(shadow)
    assert [(t.tool, t.index) for t in predictions] == [(t.tool, t.index) for t in recorded(recording)]
    done = thirdparty.run_cli("score", str(recording), "--against", str(shadow), "--json")
    report = json.loads(done.stdout)
    assert report["calls"] == len(script) and report["overall"]["is_error_agreement"] == 1.0, report["overall"]


def _backends(path: Path) -> list[Any]:
    """(tool, backend) of every recorded turn, in either line layout."""
    from types import SimpleNamespace

    out = []
    for line in map(json.loads, path.read_text().splitlines()):
        raw = line.get("agentworld", line)
        if "tool" in raw:
            out.append(SimpleNamespace(tool=raw["tool"], backend=raw["backend"]))
    return out


async def test_a_world_file_routes_its_own_tools(tmp_path: Path) -> None:
    """`_meta: {agentworld/route: sim}` on a tool of the `--world` file routes it as `--route` would."""
    sandbox = (tmp_path / "sandbox").resolve()
    sandbox.mkdir()
    server = thirdparty.filesystem_server(sandbox)
    tools = raw_tools_stdio(server)
    for tool in tools:
        if tool["name"] == "write_file":
            tool["_meta"] = {**(tool.get("_meta") or {}), "agentworld/route": "sim"}
    world = tmp_path / "dry-run.json"
    world.write_text(json.dumps({"name": "dry-run", "tools": tools}))
    async with proxy_session("--world", str(world), "--", *server) as session:
        written = await session.call_tool("write_file", {"path": str(sandbox / "plan.txt"), "content": "draft"})
        listed = await session.call_tool("list_directory", {"path": str(sandbox)})
    assert not written.isError
    assert "plan.txt" not in listed.content[0].text and list(sandbox.iterdir()) == []


async def test_progress_notifications_of_the_real_server_reach_the_client() -> None:
    arguments = {"duration": 0.3, "steps": 3}
    with thirdparty.everything_http() as upstream:
        direct_progress: list[float] = []
        async with http_session(upstream) as session:
            await session.call_tool("trigger-long-running-operation", arguments,
                                    progress_callback=lambda p, total, message: _append(direct_progress, p))
        proxied_progress: list[float] = []
        async with proxy_session("--url", upstream) as session:
            result = await session.call_tool("trigger-long-running-operation", arguments,
                                             progress_callback=lambda p, total, message: _append(proxied_progress, p))
    assert not result.isError
    assert proxied_progress == direct_progress and len(direct_progress) == 3


async def _append(values: list[float], value: float) -> None:
    values.append(value)


async def test_headers_reach_an_http_upstream_and_never_the_recording(tmp_path: Path) -> None:
    # The upstream answers only with its bearer token (a real `serve --auth-token`, over HTTP).
    secret = "s3cr3t-upstream-token-1234"
    port = free_port()
    upstream = [*CLI, "serve", str(WORLDS / "issue-tracker.yaml"), "--transport", "http", "--port", str(port),
                "--auth-token", secret]
    recording = tmp_path / "auth.jsonl"
    with listening(upstream, port) as url:
        # The token from the environment (kept off the command line), another header from a flag.
        async with proxy_session("--url", url, "--header", "X-Request-Source: proxy-test", "--record", str(recording),
                                 env={"AGENTWORLD_UPSTREAM_HEADERS": f"Authorization: Bearer {secret}"}) as session:
            created = await session.call_tool("create_issue", {
                "title": f"rotate the key {secret}", "body": "curl -H 'Authorization: Bearer sk-abcdefghijklmnop1234'",
                "assignee": "ada"})
            listed = await session.call_tool("list_issues", {})
    assert not created.isError and secret in json.dumps(created.model_dump(mode="json"))  # the client sees it all
    assert not listed.isError
    turns = recorded(recording)
    assert [t.tool for t in turns] == ["create_issue", "list_issues"]
    text = recording.read_text() + (tmp_path / "auth.tools.json").read_text()
    assert secret not in text and "sk-abcdefghijklmnop1234" not in text  # not in arguments, not in echoed results
    assert "rotate the key [redacted]" in text and turns[0].arguments["assignee"] == "ada"


def test_a_malformed_header_is_refused_with_the_expected_form() -> None:
    done = thirdparty.run_cli("proxy", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization Bearer x")
    assert done.returncode != 0 and "expected 'Name: value'" in done.stderr and "Bearer x" not in done.stderr
    done = thirdparty.run_cli("proxy", "--url", "http://127.0.0.1:9/mcp",
                              env={"AGENTWORLD_UPSTREAM_HEADERS": "Authorization: Bearer x\nBearer y"})
    assert done.returncode != 0 and "AGENTWORLD_UPSTREAM_HEADERS 'Bearer'" in done.stderr and "Bearer y" not in done.stderr


async def test_prompts_and_resources_pass_through_to_the_real_server() -> None:
    with thirdparty.everything_http() as upstream:
        async with http_session(upstream) as session:
            expected = await _prompts_and_resources(session)
        async with proxy_session("--url", upstream) as session:
            got = await _prompts_and_resources(session)
    assert got == expected
    assert expected["prompts"] and expected["resources"] and expected["read"]


async def _prompts_and_resources(session: ClientSession) -> JSONDict:
    prompts = (await session.list_prompts()).model_dump(mode="json", exclude_none=True)
    simple = next(p["name"] for p in prompts["prompts"] if not p.get("arguments"))
    resources = (await session.list_resources()).model_dump(mode="json", exclude_none=True)
    first = resources["resources"][0]["uri"]
    return {"prompts": prompts, "prompt": (await session.get_prompt(simple)).model_dump(mode="json", exclude_none=True),
            "resources": resources,
            "templates": (await session.list_resource_templates()).model_dump(mode="json", exclude_none=True),
            "read": (await session.read_resource(first)).model_dump(mode="json", exclude_none=True)}
