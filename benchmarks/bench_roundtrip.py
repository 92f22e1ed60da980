"""Round-trip time of tools/call through agentworld-mcp over stdio, against a bare MCP server.

    .venv/bin/python benchmarks/bench_roundtrip.py [--calls 1000] [--world examples/worlds/issue-tracker.yaml]
    .venv/bin/python benchmarks/bench_roundtrip.py --transport http

Both servers run as subprocesses of this interpreter (stdio, or streamable HTTP on loopback
ports) and are driven by the MCP SDK's client, in alternating rounds, in the same run:

* ``agentworld``: ``agentworld-mcp serve WORLD`` (validation, the deterministic world model,
  ledger, turn recording, result conversion);
* ``baseline``: a bare low-level MCP SDK server (below, started with ``--baseline``) that
  advertises the same tool and answers every call with one constant ``CallToolResult``,
  the very result agentworld gave for that call.

Prints the median round trip of each, their ratio (target: at most 1.3x), and the
calls/second of the step pipeline in process (``Simulator.call``, no protocol). Over HTTP it
also prints what the HTTP guard's screening of each request body costs (serve/http_guard.py parses
the body once more after the SDK's own parse: docs/server.md, "Answers the spec gives").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.3


# -- the baseline server -----------------------------------------------------------------------


async def run_baseline(tool_file: str, port: int | None = None) -> None:
    """A bare low-level server: one tool, one constant result, nothing else (stdio, or HTTP on ``port``)."""
    import mcp.types as types
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.stdio import stdio_server

    spec = json.loads(Path(tool_file).read_text())
    tool = types.Tool.model_validate(spec["tool"])
    constant = types.ServerResult(types.CallToolResult.model_validate(spec["result"]))
    server: Server = Server("baseline")

    async def list_tools(request: Any) -> types.ServerResult:
        return types.ServerResult(types.ListToolsResult(tools=[tool]))

    async def call_tool(request: Any) -> types.ServerResult:
        return constant

    server.request_handlers[types.ListToolsRequest] = list_tools
    server.request_handlers[types.CallToolRequest] = call_tool
    if port is not None:
        await _serve_bare_http(server, port)
        return
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions()))


async def _serve_bare_http(server: Any, port: int) -> None:
    """The SDK's streamable-HTTP session manager under uvicorn, with no guard in front."""
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    manager = StreamableHTTPSessionManager(app=server)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=manager.handle_request)], lifespan=lifespan)
    await uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).serve()


# -- the client side ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def session_for(args: list[str], transport: str = "stdio"):
    from mcp import ClientSession

    async with _streams(args, transport) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()  # as clients do (and the SDK client caches outputSchemas)
            yield session


@contextlib.asynccontextmanager
async def _streams(args: list[str], transport: str):
    if transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                yield read, write
        return
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, *args, "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server {args} did not start")
            await asyncio.sleep(0.05)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _):
            yield read, write
    finally:
        proc.terminate()
        proc.wait(10)


async def timed_calls(session: Any, tool: str, arguments: dict, n: int) -> list[float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = await session.call_tool(tool, arguments)
        samples.append(time.perf_counter() - t0)
        assert not result.isError, result
    return samples


async def roundtrip(world: Path, tool: str, arguments: dict, calls: int, rounds: int, warmup: int,
                    transport: str = "stdio") -> dict[str, list[float]]:
    serve = ["-m", "agentworld_mcp", "serve", str(world)] + (["--transport", "http"] if transport == "http" else [])
    # the constant the baseline returns: exactly what agentworld answers to this call
    async with session_for(serve, transport) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        result = await session.call_tool(tool, arguments)
    spec_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"agentworld-bench-{os.getpid()}.json"
    spec_file.write_text(json.dumps({
        "tool": listed[tool].model_dump(by_alias=True, exclude_none=True, mode="json"),
        "result": result.model_dump(by_alias=True, exclude_none=True, mode="json"),
    }))
    samples: dict[str, list[float]] = {"agentworld": [], "baseline": []}
    try:
        async with session_for(serve, transport) as ours, \
                session_for([str(Path(__file__).resolve()), "--baseline", str(spec_file)], transport) as bare:
            for session in (ours, bare):
                await timed_calls(session, tool, arguments, warmup)
            per_round = max(calls // rounds, 1)
            for _ in range(rounds):  # alternate, so drift on a busy machine hits both alike
                samples["agentworld"] += await timed_calls(ours, tool, arguments, per_round)
                samples["baseline"] += await timed_calls(bare, tool, arguments, per_round)
    finally:
        spec_file.unlink(missing_ok=True)
    return samples


async def in_process(world: Path, calls: int) -> dict[str, float]:
    from agentworld_mcp import Simulator, load_world

    loaded = load_world(world)
    out = {}
    for tool, arguments in (("get_issue", {"issue_id": 1}), ("create_issue", {"title": "Bench"}),
                            ("list_issues", {})):
        if loaded.tool(tool) is None:
            continue
        sim = Simulator(loaded)
        for _ in range(200):
            await sim.call(tool, arguments)
        t0 = time.perf_counter()
        for _ in range(calls):
            await sim.call(tool, arguments)
        out[tool] = calls / (time.perf_counter() - t0)
        await sim.aclose()
    return out


def screening_cost(tool: str, arguments: dict, repeat: int = 2000) -> list[tuple[str, float, float]]:
    """Per request body: the guard's screening (its parse) and the SDK's own parse, in seconds."""
    import mcp.types as types

    from agentworld_mcp.serve.screening import screen
    from agentworld_mcp.serve.transport import CLIENT_METHODS

    def body(args: dict) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": args}}).encode()

    big = {**arguments, "payload": [{"title": "x" * 64, "n": i} for i in range(12_000)]}  # about 1 MiB
    out = []
    for label, raw, n in ((f"this call ({len(body(arguments))} B)", body(arguments), repeat),
                          (f"a {len(body(big)) >> 10} KiB body", body(big), max(repeat // 200, 5))):
        t0 = time.perf_counter()
        for _ in range(n):
            screen(raw, CLIENT_METHODS)
        guard = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(n):
            types.JSONRPCMessage.model_validate_json(raw)
        sdk = (time.perf_counter() - t0) / n
        out.append((label, guard, sdk))
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", default=str(ROOT / "examples" / "worlds" / "issue-tracker.yaml"))
    parser.add_argument("--tool", default="get_issue")
    parser.add_argument("--args", default='{"issue_id": 1}', help="tool arguments (JSON)")
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per server")
    parser.add_argument("--pipeline-calls", type=int, default=1000,
                        help="timed in-process calls per tool (each create_issue adds an issue to the episode)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="how the client reaches both servers (http: streamable HTTP on loopback ports)")
    parser.add_argument("--baseline", metavar="SPEC", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)  # the HTTP baseline's
    args = parser.parse_args()
    if args.baseline:
        asyncio.run(run_baseline(args.baseline, args.port))
        return 0

    arguments = json.loads(args.args)
    world = Path(args.world)
    samples = asyncio.run(roundtrip(world, args.tool, arguments, args.calls, args.rounds, args.warmup, args.transport))
    ours, bare = (statistics.median(samples[k]) for k in ("agentworld", "baseline"))
    p90 = {k: statistics.quantiles(v, n=10)[-1] for k, v in samples.items()}
    ratio = ours / bare
    print(f"tools/call {args.tool} {json.dumps(arguments)} over {args.transport}, MCP SDK client, "
          f"{len(samples['agentworld'])} calls each after {args.warmup} warm-up calls")
    print(f"  agentworld-mcp serve   median {ms(ours)}   p90 {ms(p90['agentworld'])}")
    print(f"  bare low-level server  median {ms(bare)}   p90 {ms(p90['baseline'])}")
    print(f"  ratio (median)         {ratio:.2f}x   target <= {TARGET}x   {'OK' if ratio <= TARGET else 'MISSED'}")
    if args.transport == "http":
        print("the HTTP guard's screening of a request body, beside the SDK's own parse of it (in process):")
        for label, guard, sdk in screening_cost(args.tool, arguments):
            print(f"  {label:22} guard {ms(guard)}   SDK parse {ms(sdk)}   guard / round-trip median {guard / ours:.2%}")
    rates = asyncio.run(in_process(world, args.pipeline_calls))
    print(f"step pipeline in process (Simulator.call, no protocol, {args.pipeline_calls} calls per tool, one episode):")
    for tool, rate in rates.items():
        print(f"  {tool:14} {rate:10,.0f} calls/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
