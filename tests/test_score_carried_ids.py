"""`score` carries the ids a real server made up, as an agent would, and still fails a wrong simulation.

A recorded real session passes back values the real server generated (an order id its create
answered). Replayed with the recorded arguments, the simulator is asked about ids it never made;
an agent playing against the simulator would have passed the simulator's own id. The replay does
that (agentworld_mcp.sim2real.carry), and reads the simulator's ids back as the real ones when it
compares the answers, so only a consistent simulation agrees.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentworld_mcp.sim2real.carry import replay_turns
from agentworld_mcp.sim2real.score import read_episodes

from .conftest import CLI, stdio_session

JSONDict = dict[str, Any]
ORDER = {"type": "object", "properties": {"order_id": {"type": "string"}, "item": {"type": "string"},
                                          "quantity": {"type": "integer"}, "status": {"type": "string"}},
         "required": ["order_id", "item", "quantity", "status"]}
CATALOG = {"name": "shop", "scenario": "A small order desk.", "tools": [
    {"name": "create_order", "description": "Place an order. Returns the order with the order_id the desk assigned.",
     "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}, "quantity": {"type": "integer"}},
                     "required": ["item", "quantity"]}, "outputSchema": ORDER},
    {"name": "get_order", "description": "Read one order by its order_id.",
     "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
     "outputSchema": ORDER},
]}
#: The real desk's ids: random, nothing a simulator could guess.
LAMP, DESK = "ORD-7f3a9c21", "ORD-0b66e4d8"


def answer(data: JSONDict) -> JSONDict:
    return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data, "isError": False}


def order(order_id: str, item: str, quantity: int) -> JSONDict:
    return {"order_id": order_id, "item": item, "quantity": quantity, "status": "pending"}


def session(episode: str, lamp: str, desk: str, *, third: JSONDict | None = None) -> list[JSONDict]:
    """Two orders created, then both read back by the ids the creates answered (``third``: what the first read answers)."""
    calls = [("create_order", {"item": "lamp", "quantity": 2}, order(lamp, "lamp", 2)),
             ("create_order", {"item": "desk", "quantity": 1}, order(desk, "desk", 1)),
             ("get_order", {"order_id": lamp}, third or order(lamp, "lamp", 2)),
             ("get_order", {"order_id": desk}, order(desk, "desk", 1))]
    return [{"episode": episode, "turn": n, "tool": tool, "arguments": args, "result": answer(result)}
            for n, (tool, args, result) in enumerate(calls, 1)]


def write(path: Path, lines: list[JSONDict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def score(*args: str | Path) -> JSONDict:
    done = subprocess.run([*CLI, "score", *map(str, args), "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report: JSONDict = json.loads(done.stdout)
    return report


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, Path]:
    world = tmp_path / "shop.json"
    world.write_text(json.dumps(CATALOG), encoding="utf-8")
    return world, write(tmp_path / "real.jsonl", session("real-1", LAMP, DESK))


async def test_reads_by_a_server_made_id_are_replayed_with_the_simulators_own_id_and_agree(
        shop: tuple[Path, Path]) -> None:
    world, real = shop
    async with stdio_session(str(world)) as client:  # what replaying the recorded id as it is gets
        asked = await client.call_tool("get_order", {"order_id": LAMP})
    assert asked.isError, "the simulator cannot know the real desk's id: the read by it fails"

    report = score(real, "--world", world)

    reads = [turn for turn in report["turns"] if turn["tool"] == "get_order"]
    assert len(reads) == 2
    for read in reads:  # sent with the simulator's id, compared with the real one read back
        assert read["is_error_agreement"] == 1.0
        assert read["value_agreement"] == 1.0 and read["value_checks"] >= 3
        assert read["carried_values"] == 1.0
    assert report["tools"]["get_order"]["score"] == 1.0
    assert report["overall"]["score"] > 0.9


def test_a_simulation_that_reads_back_the_wrong_record_for_a_carried_id_still_scores_lower(
        shop: tuple[Path, Path], tmp_path: Path) -> None:
    _, real = shop
    faithful = write(tmp_path / "faithful.jsonl", session("sim-1", "S-1", "S-2"))
    wrong_record = write(tmp_path / "wrong.jsonl", session("sim-1", "S-1", "S-2", third=order("S-1", "desk", 1)))
    other_id = write(tmp_path / "other.jsonl", session("sim-1", "S-1", "S-2", third=order("S-9", "lamp", 2)))

    good = score(real, "--against", faithful)
    bad = score(real, "--against", wrong_record)
    stray = score(real, "--against", other_id)

    assert good["tools"]["get_order"]["score"] == 1.0
    first_read = {name: next(t for t in r["turns"] if t["tool"] == "get_order")
                  for name, r in (("wrong", bad), ("stray", stray))}
    assert first_read["wrong"]["value_agreement"] <= 0.5  # the id and status read back; the lamp's item and quantity do not
    assert first_read["stray"]["value_agreement"] < 1.0  # an id the simulator never answered is not the real one
    assert bad["overall"]["score"] < good["overall"]["score"]
    assert stray["overall"]["score"] < good["overall"]["score"]


async def test_values_the_seed_or_earlier_arguments_determined_are_sent_as_recorded(tmp_path: Path) -> None:
    seed = {"orders": [{"order_id": "A-1001", "item": "chair", "quantity": 4, "status": "shipped"}]}
    real = [  # a listing of the seeded order, a create whose id the caller chose, a fresh id, then reads of all three
        ("list_orders", {}, {"orders": [seed["orders"][0]]}),
        ("create_order", {"order_id": "C-2077", "item": "lamp", "quantity": 1}, order("C-2077", "lamp", 1)),
        ("create_order", {"item": "desk", "quantity": 1}, {**order(DESK, "desk", 1), "count": 1, "confirmed": True}),
        ("get_order", {"order_id": "A-1001"}, seed["orders"][0]),
        ("get_order", {"order_id": "C-2077", "count": 1, "confirmed": True}, order("C-2077", "lamp", 1)),
        ("get_order", {"order_id": DESK}, order(DESK, "desk", 1)),
    ]
    simulated = [  # a simulator that answers other ids everywhere, and a different count
        {"orders": [{"order_id": "Z-1", "item": "chair", "quantity": 4, "status": "shipped"}]},
        order("Z-2", "lamp", 1), {**order("Z-3", "desk", 1), "count": 2, "confirmed": True},
        order("A-1001", "chair", 4), order("C-2077", "lamp", 1), order("Z-3", "desk", 1),
    ]
    recording = write(tmp_path / "real.jsonl", [
        {"episode": "e", "turn": n, "tool": tool, "arguments": args, "result": answer(result)}
        for n, (tool, args, result) in enumerate(real, 1)])
    sent: list[JSONDict] = []

    async def simulator(tool: str, arguments: JSONDict) -> JSONDict:
        sent.append(arguments)
        return answer(simulated[len(sent) - 1])

    [turns] = read_episodes([recording]).values()
    await replay_turns(turns, simulator, seed=seed)

    assert sent[3] == {"order_id": "A-1001"}, "the seed's id is the world's truth, not the server's invention"
    assert sent[4] == {"order_id": "C-2077", "count": 1, "confirmed": True}, "ids and small values the caller gave stay"
    assert sent[5] == {"order_id": "Z-3"}, "only the id the real server made is carried as the simulator's"


async def test_a_simulator_that_answers_one_id_for_two_creates_carries_only_the_first(tmp_path: Path) -> None:
    recording = write(tmp_path / "real.jsonl", session("e", LAMP, DESK))
    sent: list[JSONDict] = []

    async def simulator(tool: str, arguments: JSONDict) -> JSONDict:
        sent.append(arguments)
        return answer(order("S-1", "lamp", 2))

    [turns] = read_episodes([recording]).values()
    await replay_turns(turns, simulator)

    assert sent[2] == {"order_id": "S-1"}
    assert sent[3] == {"order_id": DESK}, "the second real id has no counterpart of its own: sent as recorded, it fails"
