"""Resources under load: memory per 1,000 episodes, trajectory bytes per turn.

    .venv/bin/python benchmarks/bench_load.py [--episodes 1000 2000 4000] [--turns 10 100 1000]
    .venv/bin/python benchmarks/bench_load.py --http [--http-episodes 200] [--workers 2] [--state redis://...|memory]

Memory: N episodes of the issue-tracker world, one create call each, in a MemoryStore
without a bound (the baseline, measured in this run) and with ``max_episodes=100``; the
Python heap held afterwards (tracemalloc, after gc) per 1,000 episodes, and the ratio to
the baseline. The locks left behind are counted too (they must be 0: locks live only while
a call holds them).

Trajectories: one episode of T calls recorded by ``--record`` (one line per turn) and, as
the baseline, by the full-history recorder that came before (tests/legacy_record.py): bytes
per turn, the mean time of the last tenth of the calls, and the ratios. Per-turn bytes must be
flat in T; the baseline's grow with T.

``--http``: load over streamable HTTP. ``agentworld-mcp serve --transport http --workers N``
with a shared state (a SQLite file, ``--state redis://...``, or ``--state memory``: one process,
its own store); rounds of E episodes x 20 calls (create, read back, update, comment, list,
search, delete), 32 in flight, each call one plain POST naming its episode in ``_meta`` (after
one initialize, whose session id every call sends when the server keeps sessions). Beside it,
in the same run, a bare ASGI JSON-RPC endpoint (:func:`bare_app`: reads the body, answers a
constant tool result) under the same uvicorn configuration (protocol class, limits, event
loop, workers). Reports, per server: calls/s, the server's CPU per call (user + system time of
the server processes from /proc, over the measured rounds), calls/s per server core (1 / CPU
per call), the ratio of CPU per call to the bare endpoint's, p50 and p99 latency, and errors
(JSON-RPC errors, HTTP errors, ``isError`` results: all must be 0; the first few are shown),
and each worker's resident memory after each round (flat from round to round: ``--max-episodes
100``). The in-process ``Simulator`` (no HTTP) is measured too, for scale.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.trajectories.record import TrajectoryRecorder  # noqa: E402
from agentworld_mcp.state.store import MemoryStore  # noqa: E402
from tests.legacy_record import LegacyRecorder  # noqa: E402

WORLD = load_world(ROOT / "examples" / "worlds" / "issue-tracker.yaml")
BOUND = 100


async def heap_after(episodes: int, store: MemoryStore) -> tuple[float, int]:
    """Heap bytes held by ``episodes`` one-call episodes in ``store``; the store's live locks."""
    sim = Simulator(WORLD, store=store)
    await sim.call("create_issue", {"title": "warm"}, episode="warm")  # caches, compiled validators
    await store.delete("warm")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(episodes):
        await sim.call("create_issue", {"title": f"issue {n}", "body": "text " * 20}, episode=f"ep-{n}")
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held, store.locks_held


async def memory(counts: list[int]) -> None:
    print(f"memory held by N one-call episodes (tracemalloc), per 1,000 episodes; bound = {BOUND}")
    print(f"{'episodes':>9} {'no bound KB/1k':>15} {'max 100 KB/1k':>14} {'ratio':>7} {'kept':>6} {'locks':>6}")
    for count in counts:
        free, free_locks = await heap_after(count, MemoryStore())
        store = MemoryStore(max_episodes=BOUND)
        bounded, locks = await heap_after(count, store)
        kept = len(await store.ids())
        print(f"{count:>9} {free / count:>15.1f} {bounded / count:>14.1f} {bounded / free:>7.3f} {kept:>6} "
              f"{max(locks, free_locks):>6}")


async def record(turns: int, recorder: Any) -> float:
    """Seconds per call over the last tenth of an episode of ``turns`` calls; the recorder is closed."""
    sim = Simulator(WORLD, recorders=[recorder])
    tail = max(1, turns // 10)
    t0 = 0.0
    for i in range(turns):
        if i == turns - tail:
            t0 = time.perf_counter()
        await sim.call("get_issue", {"issue_id": 1 + i % 3}, episode="long")
    per_call = (time.perf_counter() - t0) / tail
    await sim.aclose()
    return per_call


async def trajectories(lengths: list[int], fsync: bool) -> None:
    print(f"\ntrajectory file per turn (fsync={'on' if fsync else 'off'}); baseline: the full-history recorder")
    print(f"{'turns':>6} {'per-turn B/turn':>16} {'baseline B/turn':>16} {'size ratio':>11} "
          f"{'per-turn ms/call':>17} {'baseline ms/call':>17} {'time ratio':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for turns in lengths:
            new, old = Path(tmp) / f"turns-{turns}.jsonl", Path(tmp) / f"legacy-{turns}.jsonl"
            new_s = await record(turns, TrajectoryRecorder(new, fsync=fsync))
            old_s = await record(turns, LegacyRecorder(old, fsync=fsync))
            new_b, old_b = new.stat().st_size / turns, old.stat().st_size / turns
            print(f"{turns:>6} {new_b:>16.0f} {old_b:>16.0f} {old_b / new_b:>11.1f} "
                  f"{new_s * 1e3:>17.3f} {old_s * 1e3:>17.3f} {old_s / new_s:>11.1f}")
            old.unlink()


def episode_calls(i: int) -> list[tuple[str, dict[str, Any]]]:
    """20 calls of one episode: the seed has issues 1-3, so this episode's creates are 4-8."""
    created = range(4, 9)
    return ([("create_issue", {"title": f"load {i}.{n}", "priority": "high"}) for n in created]
            + [("get_issue", {"issue_id": n}) for n in created]
            + [("update_issue", {"issue_id": n, "status": "closed"}) for n in (4, 5, 6)]
            + [("add_comment", {"issue_id": 4, "body": f"seen {k}"}) for k in (1, 2)]
            + [("list_issues", {}), ("list_issues", {"status": "closed"})]
            + [("search_issues", {"query": "load"})] * 2 + [("delete_issue", {"issue_id": 8})])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _drive(episodes: range, call: Any, in_flight: int = 32) -> tuple[float, list[float], int]:
    """Run the episodes (each one's calls in order), ``in_flight`` at a time: seconds, latencies, errors."""
    latencies: list[float] = []
    errors = 0
    gate = asyncio.Semaphore(in_flight)

    async def episode(i: int) -> None:
        nonlocal errors
        async with gate:
            for tool, arguments in episode_calls(i):
                start = time.perf_counter()
                errors += not await call(f"load-{i}", tool, arguments)
                latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(episode(i) for i in episodes))
    return time.perf_counter() - start, latencies, errors


#: What the bare endpoint answers to every request: a tool result of the shape and size ours are.
_ISSUE = {"id": 4, "title": "load 0.4", "body": "", "status": "open", "priority": "high", "assignee": None,
          "created_at": "2026-03-02T09:14:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}
BARE_RESULT: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(_ISSUE, indent=2)}],
                               "structuredContent": _ISSUE, "isError": False}


async def bare_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The bare ASGI JSON-RPC endpoint: reads the body, answers any request with a constant result."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body) if body else {}
    if not isinstance(request, dict) or "id" not in request:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    answer = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": BARE_RESULT}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})


def serve_bare(port: int, workers: int) -> None:
    """The bare endpoint under the uvicorn configuration ``serve`` uses (protocol class, limits, event loop)."""
    import uvicorn

    from agentworld_mcp.serve.http_limits import DEFAULT_PROTOCOL, ConnectionLimits

    options = {**ConnectionLimits().uvicorn_options(), "http": DEFAULT_PROTOCOL}
    uvicorn.run("benchmarks.bench_load:bare_app", host="127.0.0.1", port=port, workers=workers, log_level="warning",
                lifespan="on", **options)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used so far (/proc/PID/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Measured:
    """One server's figures: calls, seconds, latencies, errors, server CPU seconds."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0
        self.latencies: list[float] = []
        self.errors = 0
        self.cpu = 0.0

    @property
    def cpu_per_call_ms(self) -> float:
        return self.cpu / max(1, self.calls) * 1e3


async def _load_one(http: Any, command: list[str], port: int, episodes: int, rounds: int, first: int,
                    show: str, bare: bool) -> Measured:
    """Start a server, open a session, run ``rounds`` rounds of episodes, measuring the server's CPU."""
    import aiohttp

    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
                              start_new_session=True)
    mcp = f"http://127.0.0.1:{port}/mcp"
    headers = {"Accept": "application/json, text/event-stream", "content-type": "application/json",
               "mcp-protocol-version": "2025-06-18"}
    measured = Measured()
    try:
        for _ in range(600):  # until it listens
            try:
                async with http.get(f"http://127.0.0.1:{port}/"):
                    break
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench_load", "version": "0"}}}
        async with http.post(mcp, json=init, headers=headers) as response:
            await response.read()
            session = response.headers.get("mcp-session-id")
        if session:  # a stateful server (one process): the session every call names, as MCP clients do
            headers["mcp-session-id"] = session
        async with http.post(mcp, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                             headers=headers) as response:
            await response.read()

        ids = itertools.count(1)  # one id per request: a session answers each by its id
        failures: list[str] = []

        async def over_http(episode: str, tool: str, arguments: dict[str, Any]) -> bool:
            body = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments, "_meta": {"agentworld/episode": episode}}}
            async with http.post(mcp, data=json.dumps(body), headers=headers) as response:
                text = await response.text()
            data = [line[5:] for line in text.splitlines() if line.startswith("data:")] or [text]
            answer = json.loads(data[-1]) if response.status == 200 else None
            if answer is not None and "result" in answer and not answer["result"].get("isError"):
                return True
            if len(failures) < 3:  # shown after the run: what went wrong, not only how often
                failures.append(f"{tool} -> HTTP {response.status}: {text[:300]}")
            return False

        found = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True)
        pids = [server.pid, *(int(p) for p in found.stdout.split())]
        await _drive(range(first - episodes // 4, first), over_http)  # warm-up, not counted
        for n in range(rounds):
            cpu0 = cpu_seconds(pids)
            seconds, latencies, errors = await _drive(range(first + n * episodes, first + (n + 1) * episodes),
                                                      over_http)
            measured.cpu += cpu_seconds(pids) - cpu0
            measured.seconds += seconds
            measured.latencies += latencies
            measured.errors += errors
            measured.calls += len(latencies)
            if not bare:
                print(f"{'':<34} {show} round {n + 1}: worker memory (RSS MB): "
                      f"{', '.join(f'{rss_mb(p):.0f}' for p in pids[1:] or pids)}")
        for failure in failures:
            print(f"  {show}: {failure}")
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)
    return measured


def _http_row(label: str, m: Measured, bare: Measured | None) -> None:
    cuts = statistics.quantiles(m.latencies, n=100)
    per_core = 1000 / m.cpu_per_call_ms
    ratio = f"{m.cpu_per_call_ms / bare.cpu_per_call_ms:>9.2f}x" if bare else f"{'1.00x':>10}"
    print(f"{label:<34} {m.calls:>6} {m.calls / m.seconds:>8.0f} {m.cpu_per_call_ms:>8.3f} {per_core:>9.0f} {ratio} "
          f"{cuts[49] * 1e3:>7.1f} {cuts[98] * 1e3:>7.1f} {m.errors:>6}")


async def http_load(episodes: int, rounds: int, workers: int, state: str | None) -> None:
    import aiohttp  # the llm extra's HTTP client (pip install -e ".[llm]")

    print(f"\nLoad over streamable HTTP: {rounds} rounds of {episodes} episodes x 20 calls, 32 in flight, "
          f"serve --workers {workers} --max-episodes {BOUND} (state: {state or 'a SQLite file'}); "
          "beside it a bare ASGI JSON-RPC endpoint under the same uvicorn configuration, and one in-process "
          "Simulator (no HTTP)")
    sim = Simulator(WORLD)

    async def in_process(episode: str, tool: str, arguments: dict[str, Any]) -> bool:
        return not (await sim.call(tool, arguments, episode=episode)).is_error

    seconds, latencies, errors = await _drive(range(episodes), in_process)
    print(f"in-process Simulator: {len(latencies) / seconds:.0f} calls/s (one core, no HTTP)")
    with tempfile.TemporaryDirectory() as tmp:
        ours_port, bare_port = _free_port(), _free_port()
        ours_cmd = [sys.executable, "-m", "agentworld_mcp", "serve", str(ROOT / "examples" / "worlds" / "issue-tracker.yaml"),
                    "--transport", "http", "--port", str(ours_port), "--workers", str(workers),
                    "--max-episodes", str(BOUND), "-q"]
        if state != "memory":  # memory: the process's own store (one worker only)
            ours_cmd += ["--state", state or str(Path(tmp) / "state.db")]
        bare_cmd = [sys.executable, str(Path(__file__).resolve()), "--bare-server", str(bare_port),
                    "--workers", str(workers)]
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
            bare = await _load_one(http, bare_cmd, bare_port, episodes, rounds, 10**6, "bare", True)
            ours = await _load_one(http, ours_cmd, ours_port, episodes, rounds, episodes, "agentworld", False)
    print(f"{'server':<34} {'calls':>6} {'calls/s':>8} {'CPU ms':>8} {'calls/s/core':>9} {'CPU ratio':>10} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'errors':>6}")
    _http_row("bare ASGI JSON-RPC endpoint", bare, None)
    _http_row(f"agentworld-mcp serve, {workers} worker(s)", ours, bare)
    print(f"CPU per call, ours / bare: {ours.cpu_per_call_ms / bare.cpu_per_call_ms:.2f}x; "
          f"calls/s per server core: {1000 / ours.cpu_per_call_ms:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--fsync", action="store_true", help="fsync each line, as --record does (slower)")
    parser.add_argument("--http", action="store_true", help="only the load over streamable HTTP across workers")
    parser.add_argument("--http-episodes", type=int, default=200, help="episodes per round (default: 200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of new episodes (default: 3)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default: 2)")
    parser.add_argument("--state", default=None, help="shared state: redis://..., or memory (one worker, no shared store; default: a SQLite file)")
    parser.add_argument("--bare-server", type=int, default=None, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server is not None:
        serve_bare(args.bare_server, args.workers)
        return
    if args.http:
        asyncio.run(http_load(args.http_episodes, args.rounds, args.workers, args.state))
        return
    asyncio.run(memory(args.episodes))
    asyncio.run(trajectories(args.turns, args.fsync))


if __name__ == "__main__":
    main()
