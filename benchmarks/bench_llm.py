"""Benchmarks of the llm backend: concurrency and prompt cost.

    python benchmarks/bench_llm.py

(a) Throughput: N concurrent episodes against an OpenAI-compatible endpoint with a fixed
    200 ms latency (the scripted test double, in its own process). The ideal is every
    episode's calls back to back at exactly 200 ms each; the ratio says how much the
    simulator's own overhead and the client's concurrency bound cost. Target: >= 0.90 at 64.
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
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp import Simulator, load_world  # noqa: E402
from agentworld_mcp.backends.llm import LLMSettings, LLMWorldModel  # noqa: E402
from tests.fake_openai import FakeOpenAI, Reply  # noqa: E402

WORLD = ROOT / "examples" / "worlds" / "issue-tracker.yaml"
LATENCY = 0.2
ISSUE = {"id": 1, "title": "Rocket fails to launch on Mondays", "status": "open", "priority": "high",
         "created_at": "2026-03-02T09:14:00Z", "url": "https://tracker.acme.test/rocket/issues/1"}


def answer(body: dict) -> Reply:
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
    return Reply(content=json.dumps(value))


def _serve(latency: float, port_queue) -> None:
    server = FakeOpenAI(default=answer, latency=latency)
    with server:
        port_queue.put(server.url)
        while True:
            time.sleep(3600)


def start_endpoint(latency: float) -> tuple[str, multiprocessing.Process]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_serve, args=(latency, queue), daemon=True)
    proc.start()
    return queue.get(timeout=30), proc


CALLS = [("get_issue", {"issue_id": 1}), ("create_issue", {"title": "Crash on start"}),
         ("update_issue", {"issue_id": 1, "status": "closed"}), ("list_issues", {}), ("get_issue", {"issue_id": 2})]


async def throughput(url: str, episodes: int) -> dict:
    world = load_world(WORLD)
    settings = LLMSettings(base_url=url, model="fake", max_concurrency=max(episodes, 1), timeout=30)
    sim = Simulator(world, backend=LLMWorldModel(settings))

    async def episode(i: int) -> int:
        errors = 0
        for tool, args in CALLS:
            errors += (await sim.call(tool, args, episode=f"ep-{i}")).is_simulator_error
        return errors

    await asyncio.gather(*(episode(-1 - i) for i in range(4)))  # warm the connection pool
    started = time.perf_counter()
    errors = sum(await asyncio.gather(*(episode(i) for i in range(episodes))))
    elapsed = time.perf_counter() - started
    await sim.aclose()
    calls = episodes * len(CALLS)
    ideal = episodes / LATENCY  # calls per second if every call took exactly the latency
    return {"episodes": episodes, "calls": calls, "seconds": round(elapsed, 3),
            "calls_per_s": round(calls / elapsed, 1), "ideal_calls_per_s": round(ideal, 1),
            "ratio": round(calls / elapsed / ideal, 3), "simulator_errors": errors}


async def bare_client(url: str, episodes: int) -> dict:
    """The same load sent by the bare openai client (no simulator): the ceiling on this machine."""
    import openai
    from openai.types.chat import ChatCompletion

    from agentworld_mcp.prompt import build_messages
    from agentworld_mcp.catalog import Catalog
    from agentworld_mcp.ledger import Ledger

    world = load_world(WORLD)
    messages = build_messages(world, Catalog(world)["get_issue"], {"issue_id": 1}, 1, [], Ledger())
    client = openai.AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=30)
    body = {"model": "fake", "messages": messages}

    async def episode() -> None:
        for _ in CALLS:
            await client.post("/chat/completions", body=body, cast_to=ChatCompletion)

    await asyncio.gather(*(episode() for _ in range(4)))
    started = time.perf_counter()
    await asyncio.gather(*(episode() for _ in range(episodes)))
    elapsed = time.perf_counter() - started
    await client.close()
    return {"episodes": episodes, "ratio": round(episodes * len(CALLS) / elapsed / (episodes / LATENCY), 3)}


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
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    report: dict = {"cpu_count": os.cpu_count(), "latency_s": LATENCY}
    url, proc = start_endpoint(LATENCY)
    try:
        report["throughput"] = [asyncio.run(throughput(url, n)) for n in args.episodes]
        for row, n in zip(report["throughput"], args.episodes):
            row["bare_client_ratio"] = asyncio.run(bare_client(url, n))["ratio"]
    finally:
        proc.terminate()
    url, proc = start_endpoint(0.0)
    try:
        report["prompt_cost"] = [asyncio.run(prompt_cost(url, budget, args.turns)) for budget in (6000, None)]
    finally:
        proc.terminate()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"(a) throughput, endpoint latency {LATENCY * 1000:.0f} ms, {len(CALLS)} calls per episode")
    for row in report["throughput"]:
        verdict = "ok" if row["ratio"] >= 0.9 else "BELOW 0.90"
        print(f"  {row['episodes']:>4} episodes: {row['calls_per_s']:>7} calls/s of ideal {row['ideal_calls_per_s']:>7}"
              f"  ratio {row['ratio']:.3f} ({verdict}), simulator errors {row['simulator_errors']};"
              f" bare openai client on this machine: ratio {row['bare_client_ratio']:.3f}")
    print(f"(b) prompt tokens per call over a {args.turns}-turn episode (estimated at 3.5 chars/token)")
    for row in report["prompt_cost"]:
        label = f"compaction at {row['budget_tokens']} tokens" if row["budget_tokens"] else "no compaction"
        print(f"  {label:>28}: first {row['first']}, last {row['last']}, max {row['max']}, mean {row['mean']};"
              f" prefix share mean {row['prefix_share_mean']:.3f}, p10 {row['prefix_share_p10']:.3f},"
              f" min {row['prefix_share_min']:.3f} ({row['calls_with_share_below_0.9']} calls below 0.9)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
