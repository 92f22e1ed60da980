"""Property-based fuzzing of every tool of the realism catalogs, over stdio and streamable HTTP.

For each tool of the 16 real catalogs (tests/realism/catalogs), hypothesis-jsonschema draws
arguments that are valid for its ``inputSchema`` (derandomized: the same calls on every run),
and two invalid calls are made from the first of them: a required argument left out and an
argument of the wrong type. Every call goes through a real MCP client, once over stdio and
once over streamable HTTP, to ``agentworld-mcp serve CATALOG.json``:

* no JSON-RPC error: schema-invalid arguments are an ``isError`` result that says
  ``Input validation error`` (docs/server.md), valid ones are answered (a refusal such as
  "not found" is an answer);
* no hang (a deadline per call), no HTTP status of 500 or more;
* every ``structuredContent`` validates against the tool's ``outputSchema``;
* no failure of the simulator itself (an ``isError`` result tagged as a simulator error).

Where hypothesis-jsonschema cannot build a strategy for a schema (a regex or format it does
not support), the tool gets tests/realism/hostile.py's arguments instead; the printed summary
counts those tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema
import pytest
import uvicorn
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from agentworld_mcp import Simulator, load_world
from agentworld_mcp.serve.transport import http_app

from .conftest import stdio_session
from .realism.harness import CATALOGS, catalog_path
from .realism.hostile import hostile_arguments
from .realism.sweep import CALL_TIMEOUT_S, SIMULATOR_ERROR, Problem, tools_of

hypothesis_jsonschema = pytest.importorskip("hypothesis_jsonschema", reason="pip install -e '.[test]'")

#: Valid calls per tool. The first is hypothesis's simplest valid instance (required arguments only,
#: empty strings, zeros: what the hostile-values test's generator never sends); a second, random one
#: costs about 11 s more CPU over the 487 tools (with 2: 1,840 calls per transport, also 0 problems).
VALID_PER_TOOL = 1
#: How the engine words refused arguments (pipeline/engine.py ``_invalid_arguments``).
INVALID_ARGUMENTS = "Input validation error"
WRONG_VALUES: tuple[Any, ...] = ({"unexpected": "object"}, 12345.5, "not-the-right-type", [["nested"]], True)
JSONDict = dict[str, Any]
#: Formats jsonschema checks that hypothesis-jsonschema would fill with any string.
CUSTOM_FORMATS = {"uuid": st.uuids().map(str)}


@dataclass
class ToolPlan:
    """The calls one tool gets: valid ones (expected to be answered) and invalid ones (refused)."""

    tool: JSONDict
    valid: list[JSONDict]
    invalid: list[JSONDict]
    fallback: str | None = None  # why hypothesis-jsonschema could not draw for this tool
    #: drawn arguments that jsonschema's validator rejects after all (hypothesis-jsonschema and
    #: jsonschema disagree on some formats): sent as invalid ones
    disputed: int = 0


@dataclass
class FuzzReport:
    transport: str
    calls: int = 0
    refused: int = 0  # invalid calls answered with the validation error, as they should be
    tool_errors: int = 0  # valid calls answered with isError (not found, a refusal): answers
    http_5xx: int = 0
    problems: list[Problem] = field(default_factory=list)

    def merge(self, other: FuzzReport) -> None:
        self.calls += other.calls
        self.refused += other.refused
        self.tool_errors += other.tool_errors
        self.problems += other.problems


# -- what to send ----------------------------------------------------------------------------


def draw_examples(schema: JSONDict, count: int) -> list[JSONDict]:
    """``count`` arguments valid for ``schema``, the same on every run (derandomized, no database)."""
    drawn: list[JSONDict] = []

    @settings(derandomize=True, database=None, max_examples=count, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(hypothesis_jsonschema.from_schema(schema, custom_formats=CUSTOM_FORMATS))
    def collect(value: JSONDict) -> None:
        drawn.append(value)

    collect()
    return drawn


def invalid_variants(schema: JSONDict, valid: JSONDict) -> list[JSONDict]:
    """``valid`` with a required argument left out, and with one argument of a wrong type."""
    checker = _validator(schema)
    out: list[JSONDict] = []
    for name in schema.get("required") or ():
        if name in valid:
            out.append({k: v for k, v in valid.items() if k != name})
            break
    for name in schema.get("properties") or {}:
        wrong = next((w for w in WRONG_VALUES if not checker.is_valid({**valid, name: w})), None)
        if wrong is not None:
            out.append({**valid, name: wrong})
            break
    return out


def plan(catalog: str) -> list[ToolPlan]:
    plans: list[ToolPlan] = []
    for tool in tools_of(catalog):
        schema = tool.get("inputSchema") or {"type": "object"}
        fallback = None
        try:
            valid = draw_examples(schema, VALID_PER_TOOL)
        except Exception as exc:  # noqa: BLE001 - an unsupported format or regex: hostile values instead
            fallback = f"{type(exc).__name__}: {str(exc)[:120]}"
            valid = [hostile_arguments(catalog, tool, index) for index in range(VALID_PER_TOOL)]
        valid = valid or [{}]
        checker = _validator(schema)
        accepted = [args for args in valid if checker.is_valid(args)]
        invalid = [args for args in valid if not checker.is_valid(args)]
        plans.append(ToolPlan(tool, accepted, invalid + invalid_variants(schema, (accepted or valid)[0]), fallback, len(invalid)))
    return plans


def _validator(schema: JSONDict) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# -- sending it ------------------------------------------------------------------------------


async def fire(session: ClientSession, transport: str, plans: list[ToolPlan]) -> FuzzReport:
    """Every planned call in one client session; a tool's calls go out together."""
    report = FuzzReport(transport)
    for p in plans:
        schema = p.tool.get("outputSchema")
        output = _validator(schema) if schema else None
        calls = [(args, True) for args in p.valid] + [(args, False) for args in p.invalid]
        outcomes = await asyncio.gather(*(_call(session, p.tool["name"], args, ok, output) for args, ok in calls))
        report.calls += len(calls)
        for outcome in outcomes:
            if isinstance(outcome, Problem):
                report.problems.append(outcome)
            elif outcome == "refused":
                report.refused += 1
            elif outcome == "error":
                report.tool_errors += 1
    return report


async def _call(session: ClientSession, name: str, arguments: JSONDict, valid: bool, output: Any) -> Problem | str:
    """A problem, or how the call was answered: ``ok``, ``error`` (a tool error) or ``refused``."""
    # The request itself rather than ClientSession.call_tool, which re-lists tools past the first
    # page and recompiles the outputSchema on every call (the schema is checked here, compiled once).
    request = types.ClientRequest(types.CallToolRequest(
        params=types.CallToolRequestParams(name=name, arguments=arguments)))
    try:
        result = await asyncio.wait_for(session.send_request(request, types.CallToolResult), CALL_TIMEOUT_S)
    except TimeoutError:
        return Problem("hang", name, arguments, f"no answer in {CALL_TIMEOUT_S:.0f} s")
    except McpError as exc:
        return Problem("protocol", name, arguments, f"{exc.error.code} {exc.error.message}")
    text = " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
    if result.isError and text.startswith(SIMULATOR_ERROR):
        return Problem("simulator", name, arguments, text)
    refused = bool(result.isError) and text.startswith(INVALID_ARGUMENTS)
    if not valid:
        return "refused" if refused else Problem("accepted_invalid", name, arguments, text or "not an error")
    if refused:
        return Problem("refused_valid", name, arguments, text)
    if output is not None and not result.isError:
        if result.structuredContent is None:
            return Problem("schema", name, arguments, "no structuredContent though the tool has an outputSchema")
        error = jsonschema.exceptions.best_match(output.iter_errors(result.structuredContent))
        if error is not None:
            return Problem("schema", name, arguments, error.message)
    return "error" if result.isError else "ok"


async def over_stdio(catalog: str, plans: asyncio.Task[dict[str, list[ToolPlan]]]) -> FuzzReport:
    try:
        async with stdio_session(str(catalog_path(catalog))) as session:  # starts while the examples are drawn
            return await fire(session, "stdio", (await plans)[catalog])
    except Exception as exc:  # noqa: BLE001 - name the catalog whose server went away
        raise AssertionError(f"{catalog}: the stdio server failed: {exc!r} (run `agentworld-mcp serve "
                             f"{catalog_path(catalog)}` to see why)") from exc


async def over_http(url: str, plans: list[ToolPlan], statuses: Counter[int]) -> FuzzReport:
    async def count(response: httpx.Response) -> None:
        statuses[response.status_code] += 1

    hooks = {"response": [count]}
    async with httpx.AsyncClient(timeout=httpx.Timeout(30), event_hooks=hooks) as client:
        async with streamable_http_client(url, http_client=client) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await fire(session, "http", plans)


@contextlib.asynccontextmanager
async def http_servers(catalogs: list[str]) -> AsyncIterator[dict[str, str]]:
    """``http_app`` (what ``serve --transport http`` runs) for every catalog under uvicorn, in this
    event loop: sixteen more interpreters would cost more than the calls, and threads would race
    CPython 3.11's AST recursion counter (``SystemError: AST constructor recursion depth mismatch``)."""
    servers: dict[str, uvicorn.Server] = {}
    sockets: dict[str, socket.socket] = {}
    for name in catalogs:
        app = http_app(Simulator.from_world(load_world(catalog_path(name))))
        sockets[name] = socket.create_server(("127.0.0.1", 0))  # bound until the end: no port handed out twice
        server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
        server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]  # Ctrl-C stays pytest's
        servers[name] = server
    tasks = [asyncio.create_task(server.serve(sockets=[sockets[name]])) for name, server in servers.items()]
    try:
        while not all(server.started for server in servers.values()):
            failed = next((t for t in tasks if t.done()), None)
            assert failed is None, f"an HTTP server stopped: {failed.exception()!r}"
            await asyncio.sleep(0.02)
        yield {name: f"http://127.0.0.1:{sockets[name].getsockname()[1]}/mcp" for name in servers}
    finally:
        for server in servers.values():
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        for sock in sockets.values():
            sock.close()


# -- the test --------------------------------------------------------------------------------


def plan_all(names: list[str]) -> tuple[dict[str, list[ToolPlan]], float]:
    started = time.monotonic()
    return {name: plan(name) for name in names}, time.monotonic() - started


@pytest.mark.slow  # every tool of every catalog over two transports (the long tier; the sweep stays in the default one)
async def test_every_tool_of_every_catalog_answers_fuzzed_arguments_over_stdio_and_http() -> None:
    names = sorted(p.stem for p in CATALOGS.glob("*.json"))
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    drawing = asyncio.create_task(asyncio.to_thread(plan_all, names))  # while the stdio servers start
    plans_only = asyncio.create_task(_first(drawing))
    reports = list(await asyncio.gather(*(over_stdio(n, plans_only) for n in names)))
    plans, drawn_in = await drawing
    stdio_in = time.monotonic() - started
    async with http_servers(names) as urls:  # once drawing is over: no thread beside them
        reports += await asyncio.gather(*(over_http(urls[n], plans[n], statuses) for n in names))
    http_in = time.monotonic() - started - stdio_in
    total = {t: FuzzReport(t) for t in ("stdio", "http")}
    for report in reports:
        total[report.transport].merge(report)
    total["http"].http_5xx = sum(n for status, n in statuses.items() if status >= 500)

    tools = [p for ps in plans.values() for p in ps]
    fallbacks = [f"{p.tool['name']}: {p.fallback}" for p in tools if p.fallback]
    disputed = sum(p.disputed for p in tools)
    print(f"\nfuzzed {len(tools)} tools of {len(names)} catalogs ({len(tools) - len(fallbacks)} with "
          f"hypothesis-jsonschema, {len(fallbacks)} with hostile values; examples drawn in {drawn_in:.1f} s; "
          f"{disputed} drawn examples jsonschema rejects, sent as invalid; stdio {stdio_in:.1f} s, http {http_in:.1f} s)")
    for report in total.values():
        kinds = Counter(p.kind for p in report.problems)
        print(f"  {report.transport}: {report.calls} calls, {report.refused} invalid ones refused as invalid, "
              f"{report.tool_errors} tool errors, {sum(kinds.values())} problems {dict(kinds)}"
              + (f", HTTP statuses {dict(statuses)}" if report.transport == "http" else ""))
    for line in fallbacks:
        print("  fallback:", line)

    problems = [str(p) for r in total.values() for p in r.problems]
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:25])
    assert total["http"].http_5xx == 0, dict(statuses)
    assert total["stdio"].calls == total["http"].calls >= VALID_PER_TOOL * len(tools)
    assert disputed <= len(tools) // 20, "hypothesis-jsonschema and jsonschema disagree too often"
    assert total["stdio"].refused == total["http"].refused == sum(len(p.invalid) for p in tools)
    # a catalog that lost its tools would pass vacuously
    assert len(tools) >= 400 and all(plans[n] for n in names)


async def _first(drawing: asyncio.Task[tuple[dict[str, list[ToolPlan]], float]]) -> dict[str, list[ToolPlan]]:
    return (await drawing)[0]
