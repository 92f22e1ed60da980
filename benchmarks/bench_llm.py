"""Benchmarks of the llm backend: concurrency and prompt cost.

    python benchmarks/bench_llm.py [--episodes 64 256] [--repeat 3] [--workers 1 2] [--serve-workers 2] [--stagger]

(a) Throughput: N concurrent episodes of 5 calls against an OpenAI-compatible endpoint with a
    fixed 200 ms latency (benchmarks/fixed_latency_endpoint.py: a bare asyncio server in its
    own process, a fraction of a millisecond of CPU per request, so it takes little of the
    cores from the client being measured). The ideal is every call taking exactly 200 ms:
    N / 0.2 calls per second. Three ways of sending, measured in the same run:
      - the simulator with its default request path (aiohttp when installed, models/llm_http.py);
      - the simulator with every request on the openai SDK's client (``fast_http: false``),
        the path of the first releases;
      - a bare aiohttp client sending the same first-turn request, no simulator: the ceiling of
        this machine for one Python process.
    Each row: the ratio to ideal (median of --repeat runs), the client's CPU per call (the cost
    that bounds one process: 1000 / ms calls/s on one free core), the endpoint's CPU per call,
    and the 1-minute load average when the run started (other processes on the machine take
    cores from the client; compare ratios measured at similar load). Target: >= 0.90 at 64.
    ``--workers N``: the simulator in N processes sharing a SQLite state file (what ``serve
    --workers`` does, without MCP in front); ``--serve-workers N``: the episodes sent over
    streamable HTTP to a real ``agentworld-mcp serve --workers N`` (the driver's CPU is the
    "client CPU" of that row). ``--stagger``: each episode starts at a seeded offset within
    one latency, as rollouts whose agents think between calls do, instead of all at once (the
    lockstep burst is the worst case for one process); the ideal then counts the last start.
    docs/scale.md has the figures and what limits them.
(b) Prompt cost: prompt tokens per call over a 100-turn episode, with and without
    compaction, and the share of each prompt that is a prefix of the previous one (what a
    server's prefix cache can reuse).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.models.llm import LLMSettings, LLMWorldModel  # noqa: E402
from fixed_latency_endpoint import cpu_seconds, start  # noqa: E402

WORLD = ROOT / "examples" / "worlds" / "issue-tracker.yaml"
LATENCY = 0.2
ISSUE = {"id": 1, "title": "Rocket fails to launch on Mondays", "status": "open", "priority": "high",
         "created_at": "2026-03-02T09:14:00Z", "url": "https://tracker.acme.test/rocket/issues/1"}


def answer(body: dict) -> str:
    """A valid answer for the tool named in the last user message."""
    action = body["messages"][-1]["content"].split("```json\n")[1].split("\n```")[0]
    call = json.loads(action)
    tool, args = call["name"], call["arguments"]
    if tool == "create_issue":
        value = {**ISSUE, "id": 100 + len(args.get("title", "")), "title": args["title"]}
    elif tool == "update_issue":
        value = {**ISSUE, "id": args["issue_id"], **{k: v for k, v in args.items() if k != "issue_id"}}
    elif tool == "list_issues":
        value = {"issues": [{"id": 1, "title": ISSUE["title"], "status": "open"}], "total": 1}
    elif tool == "delete_issue":
        value = {"deleted": True, "id": args["issue_id"]}
    else:
        value = {**ISSUE, "id": args.get("issue_id", 1)}
    return json.dumps(value)


CALLS = [("get_issue", {"issue_id": 1}), ("create_issue", {"title": "Crash on start"}),
         ("update_issue", {"issue_id": 1, "status": "closed"}), ("list_issues", {}), ("get_issue", {"issue_id": 2})]
MODES = ("simulator", "simulator_openai_sdk", "bare_aiohttp")
#: ``--stagger``: episodes start at seeded offsets spread over one latency instead of all at once.
STAGGER = {"on": False}


def _offsets(episodes: range | int) -> dict[int, float]:
    """Start offsets per episode index: 0, or spread over [0, LATENCY) with a fixed seed."""
    indices = range(episodes) if isinstance(episodes, int) else episodes
    rng = random.Random(0)
    return {i: rng.uniform(0, LATENCY) if STAGGER["on"] else 0.0 for i in indices}


async def _after(delay: float, run: Awaitable[int]) -> int:
    if delay:
        await asyncio.sleep(delay)
    return await run


async def _measure(episodes: int, pid: int, episode: Callable[[int], Awaitable[int]]) -> dict[str, Any]:
    """Run ``episodes`` episodes at once (after a warm-up); ratio to ideal and CPU per call."""
    await asyncio.gather(*(episode(-1 - i) for i in range(min(episodes, 16))))  # connections, caches
    load = os.getloadavg()[0]
    offsets = _offsets(episodes)
    endpoint_cpu, client_cpu, started = cpu_seconds(pid), time.process_time(), time.perf_counter()
    errors = sum(await asyncio.gather(*(_after(offsets[i], episode(i)) for i in range(episodes))))
    elapsed = time.perf_counter() - started
    calls = episodes * len(CALLS)
    ideal = max(offsets.values()) + len(CALLS) * LATENCY  # every call taking exactly the latency
    return {"ratio": round(ideal / elapsed, 3), "calls_per_s": round(calls / elapsed, 1),
            "client_cpu_ms_per_call": round(1000 * (time.process_time() - client_cpu) / calls, 3),
            "endpoint_cpu_ms_per_call": round(1000 * (cpu_seconds(pid) - endpoint_cpu) / calls, 3),
            "load_1min": round(load, 2), "errors": errors}


async def simulator(url: str, episodes: int, pid: int, fast_http: bool) -> dict[str, Any]:
    settings = LLMSettings(base_url=url, model="fake", max_concurrency=max(episodes, 1), timeout=30,
                           fast_http=fast_http)
    sim = Simulator(load_world(WORLD), backend=LLMWorldModel(settings))

    async def episode(i: int) -> int:
        errors = 0
        for tool, args in CALLS:
            errors += (await sim.call(tool, args, episode=f"ep-{i}")).is_simulator_error
        return errors

    try:
        return await _measure(episodes, pid, episode)
    finally:
        await sim.aclose()


async def bare_aiohttp(url: str, episodes: int, pid: int) -> dict[str, Any]:
    """The same load sent by a bare aiohttp client (no simulator): the ceiling on this machine."""
    import aiohttp

    from agentworld_mcp.world.catalog import Catalog
    from agentworld_mcp.state.ledger import Ledger
    from agentworld_mcp.models.prompt import build_messages

    world = load_world(WORLD)
    messages = build_messages(world, Catalog(world)["get_issue"], {"issue_id": 1}, 1, [], Ledger())
    body = json.dumps({"model": "fake", "messages": messages}).encode()
    headers = {"Content-Type": "application/json", "Authorization": "Bearer EMPTY"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=episodes)) as http:
        async def episode(i: int) -> int:
            for _ in CALLS:
                async with http.post(f"{url}/chat/completions", data=body, headers=headers) as response:
                    json.loads(await response.read())
            return 0

        return await _measure(episodes, pid, episode)


async def _one(mode: str, url: str, episodes: int, pid: int) -> dict[str, Any]:
    if mode.startswith("serve_"):
        return await serve_run(url, pid, episodes, int(mode.split("_")[1]))
    if mode.startswith("workers_"):
        return await asyncio.get_running_loop().run_in_executor(
            None, workers_run, url, pid, episodes, int(mode.split("_")[1]))
    if mode == "bare_aiohttp":
        return await bare_aiohttp(url, episodes, pid)
    return await simulator(url, episodes, pid, fast_http=mode == "simulator")


def throughput(url: str, pid: int, episodes: int, repeat: int, modes: list[str]) -> dict[str, Any]:
    """Every mode ``repeat`` times, interleaved (so a change in the machine's load hits all alike)."""
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    for _ in range(repeat):
        for mode in modes:
            runs[mode].append(asyncio.run(_one(mode, url, episodes, pid)))
    row: dict[str, Any] = {"episodes": episodes, "ideal_calls_per_s": round(episodes / LATENCY, 1)}
    for mode, results in runs.items():
        row[mode] = {key: statistics.median(r[key] for r in results) for key in results[0]}
        row[mode]["errors"] = sum(r["errors"] for r in results)
        row[mode]["ratios"] = [r["ratio"] for r in results]
        row[mode]["loads"] = [r["load_1min"] for r in results]
    return row


def _worker(url: str, episodes: range, state: str, barrier: Any, results: Any, stagger: bool) -> None:
    """One worker process: its share of the episodes, on the shared state file."""
    STAGGER["on"] = stagger

    async def run() -> dict[str, Any]:
        settings = LLMSettings(base_url=url, model="fake", max_concurrency=max(len(episodes), 1), timeout=30)
        sim = Simulator(load_world(WORLD), backend=LLMWorldModel(settings), store=state)

        async def episode(i: int) -> int:
            errors = 0
            for tool, args in CALLS:
                errors += (await sim.call(tool, args, episode=f"ep-{i}")).is_simulator_error
            return errors

        await asyncio.gather(*(episode(-1 - i - 1000 * episodes.start) for i in range(min(len(episodes), 8))))
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)  # every worker starts together
        offsets = _offsets(range(episodes.stop))  # the same offsets as one process would draw
        cpu, started = time.process_time(), time.time()
        errors = sum(await asyncio.gather(*(_after(offsets[i], episode(i)) for i in episodes)))
        result = {"started": started, "ended": time.time(), "cpu": time.process_time() - cpu, "errors": errors,
                  "ideal": max(offsets.values()) + len(CALLS) * LATENCY}
        await sim.aclose()
        return result

    results.put(asyncio.run(run()))


def workers_run(url: str, pid: int, episodes: int, workers: int) -> dict[str, Any]:
    """``episodes`` split over ``workers`` processes sharing one SQLite state file (what
    ``serve --workers N --state FILE`` does, without the MCP transport in front)."""
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(workers), ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        state = str(Path(tmp) / "state.db")
        Simulator(load_world(WORLD), store=state)  # the file and its schema, before the workers race for it
        shares = [range(episodes * w // workers, episodes * (w + 1) // workers) for w in range(workers)]
        procs = [ctx.Process(target=_worker, args=(url, share, state, barrier, results, STAGGER["on"])) for share in shares]
        for proc in procs:
            proc.start()
        load, endpoint_cpu = os.getloadavg()[0], cpu_seconds(pid)
        done = [results.get(timeout=300) for _ in procs]
        for proc in procs:
            proc.join(30)
    calls = episodes * len(CALLS)
    elapsed = max(d["ended"] for d in done) - min(d["started"] for d in done)
    ideal = max(d["ideal"] for d in done)
    return {"ratio": round(ideal / elapsed, 3), "calls_per_s": round(calls / elapsed, 1),
            "client_cpu_ms_per_call": round(1000 * sum(d["cpu"] for d in done) / calls, 3),
            "endpoint_cpu_ms_per_call": round(1000 * (cpu_seconds(pid) - endpoint_cpu) / calls, 3),
            "load_1min": round(load, 2), "errors": sum(d["errors"] for d in done)}


async def serve_run(url: str, pid: int, episodes: int, workers: int) -> dict[str, Any]:
    """The episodes sent over streamable HTTP to ``agentworld-mcp serve --workers N --state FILE``
    (N >= 2: stateless MCP sessions, so each call is one plain POST naming its episode in
    ``_meta``), by a lean aiohttp JSON-RPC driver in this process."""
    import aiohttp

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-06-18"}
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        server = subprocess.Popen(
            [sys.executable, "-m", "agentworld_mcp", "serve", str(WORLD), "--transport", "http", "--port", str(port),
             "--workers", str(workers), "--state", str(Path(tmp) / "state.db"), "--backend", "llm",
             "--base-url", url, "--model", "fake", "-q"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        mcp = f"http://127.0.0.1:{port}/mcp"
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=max(episodes, 16))) as http:
                for _ in range(300):  # until it listens
                    try:
                        async with http.get(mcp.replace("/mcp", "/")) as response:
                            await response.read()
                        break
                    except aiohttp.ClientError:
                        await asyncio.sleep(0.1)

                async def episode(i: int) -> int:
                    errors = 0
                    for n, (tool, args) in enumerate(CALLS):
                        body = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                "params": {"name": tool, "arguments": args, "_meta": {"agentworld/episode": f"ep-{i}"}}}
                        async with http.post(mcp, json=body, headers=headers) as response:
                            text = await response.text()
                        lines = [line[5:] for line in text.splitlines() if line.startswith("data:")] or [text]
                        answer = json.loads(lines[-1]) if response.status == 200 else {"error": text}
                        errors += "error" in answer or bool(answer["result"].get("isError"))
                    return errors

                def server_cpu() -> float:  # the server's processes: uvicorn's supervisor and its workers
                    found = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True)
                    return sum(cpu_seconds(int(p)) for p in [server.pid, *found.stdout.split()])

                before = server_cpu()
                result = await _measure(episodes, pid, episode)
                result["server_cpu_ms_per_call"] = round(1000 * (server_cpu() - before) / (episodes * len(CALLS)), 3)
                return result
        finally:
            server.terminate()
            server.wait(30)


def _rendered(messages: list[dict]) -> str:
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


async def prompt_cost(url: str, budget: int | None, turns: int = 100) -> dict:
    world = load_world(WORLD)
    server_requests: list[dict] = []
    settings = LLMSettings(base_url=url, model="fake", history_budget_tokens=budget)
    model = LLMWorldModel(settings)
    sim = Simulator(world, backend=model)
    original = model.transport.complete

    async def spy(request: dict) -> dict:
        server_requests.append(request)
        return await original(request)

    model.transport.complete = spy  # type: ignore[method-assign]
    for i in range(turns):
        tool, args = CALLS[i % len(CALLS)]
        if tool == "create_issue":
            args = {"title": f"Issue number {i} about the launch sequence"}
        await sim.call(tool, args, episode="long")
    await sim.aclose()
    prompts = [_rendered(r["messages"]) for r in server_requests]
    tokens = [len(p) / 3.5 for p in prompts]  # about 3.5 characters a token for JSON-heavy English
    shares = [_common_prefix(prev, cur) / len(cur) for prev, cur in zip(prompts, prompts[1:])]
    return {"budget_tokens": budget, "calls": len(prompts), "first": round(tokens[0]), "last": round(tokens[-1]),
            "max": round(max(tokens)), "mean": round(statistics.mean(tokens)),
            "prefix_share_mean": round(statistics.mean(shares), 3),
            "prefix_share_p10": round(sorted(shares)[len(shares) // 10], 3),
            "prefix_share_min": round(min(shares), 3),
            "calls_with_share_below_0.9": sum(s < 0.9 for s in shares)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, nargs="*", default=[64, 256])
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode; the median is reported")
    parser.add_argument("--turns", type=int, default=100, help="turns of the prompt-cost episode (0: skip it)")
    parser.add_argument("--workers", type=int, nargs="*", default=[],
                        help="also run the simulator in N processes sharing a SQLite state file (e.g. 1 2)")
    parser.add_argument("--serve-workers", type=int, nargs="*", default=[],
                        help="also send the episodes over streamable HTTP to `serve --workers N` (N >= 2)")
    parser.add_argument("--stagger", action="store_true",
                        help="start episodes at offsets spread over one latency (as agents that think between "
                             "calls do) instead of all at once; the ideal counts the last start")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    STAGGER["on"] = args.stagger
    if any(n < 2 for n in args.serve_workers):
        parser.error("--serve-workers takes N >= 2 (one process keeps stateful MCP sessions)")
    modes = [*MODES, *(f"workers_{n}" for n in args.workers), *(f"serve_{n}" for n in args.serve_workers)]
    report: dict = {"cpu_count": os.cpu_count(), "latency_s": LATENCY, "repeat": args.repeat, "stagger": args.stagger}
    url, proc = start(answer, LATENCY)
    try:
        report["throughput"] = [throughput(url, proc.pid, n, args.repeat, modes) for n in args.episodes]
    finally:
        proc.terminate()
    report["prompt_cost"] = []
    if args.turns:
        url, proc = start(answer, 0.0)
        try:
            report["prompt_cost"] = [asyncio.run(prompt_cost(url, budget, args.turns)) for budget in (6000, None)]
        finally:
            proc.terminate()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"(a) throughput, endpoint latency {LATENCY * 1000:.0f} ms, {len(CALLS)} calls per episode, "
          f"{'staggered starts' if args.stagger else 'all starting at once'}, "
          f"{os.cpu_count()} cores; median of {args.repeat} runs (load = 1-min load average at each run's start)")
    labels = {"simulator": "simulator (default path)", "simulator_openai_sdk": "simulator, openai SDK client",
              "bare_aiohttp": "bare aiohttp client, no simulator",
              **{f"workers_{n}": f"{n} worker process(es), shared SQLite" for n in args.workers},
              **{f"serve_{n}": f"serve --workers {n} over MCP HTTP" for n in args.serve_workers}}
    for row in report["throughput"]:
        print(f"  {row['episodes']} episodes (ideal {row['ideal_calls_per_s']} calls/s):")
        for mode in modes:
            r = row[mode]
            verdict = ("ok" if r["ratio"] >= 0.9 else "BELOW 0.90") if mode != "bare_aiohttp" else ""
            print(f"    {labels[mode]:>36}: ratio {r['ratio']:.3f} {verdict:<10} runs {r['ratios']}, "
                  f"client CPU {r['client_cpu_ms_per_call']:.2f} ms/call, endpoint CPU "
                  f"{r['endpoint_cpu_ms_per_call']:.2f} ms/call, errors {r['errors']}, load {r['loads']}"
                  + (f", server CPU {r['server_cpu_ms_per_call']:.2f} ms/call" if "server_cpu_ms_per_call" in r else ""))
    if report["prompt_cost"]:
        print(f"(b) prompt tokens per call over a {args.turns}-turn episode (estimated at 3.5 chars/token)")
    for row in report["prompt_cost"]:
        label = f"compaction at {row['budget_tokens']} tokens" if row["budget_tokens"] else "no compaction"
        print(f"  {label:>28}: first {row['first']}, last {row['last']}, max {row['max']}, mean {row['mean']};"
              f" prefix share mean {row['prefix_share_mean']:.3f}, p10 {row['prefix_share_p10']:.3f},"
              f" min {row['prefix_share_min']:.3f} ({row['calls_with_share_below_0.9']} calls below 0.9)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
