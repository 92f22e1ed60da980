"""A learned world's read answers the entity the call names, never one the training session made (issue 22).

A booking-like server records sessions: ``reserve_room`` makes a reservation (a fresh ``reservation_id`` and
``payment_id``), and ``get_receipt(reservation_id)``, a tool of another name, answers that reservation nested
under ``receipt`` with its ``payment_id``. Read alone, a receipt looks like a new entity (an id the call did not
give, the call's id echoed); the recording shows it is the reservation an earlier call made. ``get_quote(symbol)``
answers a rate's figures; the world is served with a seed holding rates of its own. Learned with the
``agentworld-mcp learn`` CLI (no seed) and driven by a real MCP client over stdio with guests and rooms the
recording never saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
CATALOG: JSONDict = {"name": "stays", "tools": [
    {"name": "reserve_room", "description": "Reserve a room for a guest on a night.",
     "inputSchema": {"type": "object", "properties": {"guest": {"type": "string"}, "room_type": {"type": "string"},
                                                      "night": {"type": "string"}},
                     "required": ["guest", "room_type", "night"]}},
    {"name": "get_receipt", "description": "The receipt of a reservation.",
     "inputSchema": {"type": "object", "properties": {"reservation_id": {"type": "string"}},
                     "required": ["reservation_id"]}},
    {"name": "get_quote", "description": "Today's rate of a room type.",
     "inputSchema": {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}},
    {"name": "check_in", "description": "Check a guest in.",
     "inputSchema": {"type": "object", "properties": {"guest": {"type": "string"}}, "required": ["guest"]}},
]}
TRAINING = [("Ada Brandt", "double", "2026-05-01", 180.0), ("Bo Lindqvist", "single", "2026-06-12", 95.0),
            ("Cy Moreau", "double", "2026-07-20", 180.0)]
RATES = {"SGL": (95.0, 0.3), "DBL": (180.0, -0.2)}


def line(episode: str, turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": episode, "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    lines = []
    for number, (guest, room, night, total) in enumerate(TRAINING):
        episode, booking, payment = f"s{number}", f"R-{1001 + number * 7}", f"P-{5003 + number * 11}"
        stay = {"reservation_id": booking, "guest": guest, "room_type": room, "night": night}
        symbol = "DBL" if room == "double" else "SGL"
        lines += [
            line(episode, 1, "get_quote", {"symbol": symbol},
                 {"symbol": symbol, "price": RATES[symbol][0], "change": RATES[symbol][1]}),
            line(episode, 2, "reserve_room", {"guest": guest, "room_type": room, "night": night},
                 {**stay, "payment_id": payment, "total": total}),
            line(episode, 3, "get_receipt", {"reservation_id": booking},
                 {"receipt": {**stay, "payment_id": payment, "total": total}}),
        ]
    lines.append(line("s0", 4, "check_in", {"guest": TRAINING[0][0]}, {"checked_in": True}))  # one answer only
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


def tool_meta(world: Path, name: str) -> JSONDict:
    data = json.loads(world.read_text(encoding="utf-8"))
    return next(t.get("_meta") or {} for t in data["tools"] if t["name"] == name)


async def test_a_receipt_in_a_new_session_shows_the_reservation_that_session_made(tmp_path: Path) -> None:
    world = learned(tmp_path)
    assert (tool_meta(world, "get_receipt").get("agentworld/role") or {}).get("kind") != "create"
    async with stdio_session(str(world)) as session:
        made = json_answer(await session.call_tool("reserve_room", {"guest": "Ines Okafor", "room_type": "suite",
                                                                "night": "2027-03-04"}))
        receipt = json_answer(await session.call_tool("get_receipt", {"reservation_id": made["reservation_id"]}))
    shown = receipt.get("receipt", receipt)
    assert shown["reservation_id"] == made["reservation_id"]
    assert (shown["guest"], shown["room_type"], shown["night"]) == ("Ines Okafor", "suite", "2027-03-04")
    assert shown.get("payment_id") == made.get("payment_id")
    training = {v for guest, room, night, _ in TRAINING for v in (guest, night)}
    assert not training & {str(v) for v in shown.values()}, shown


async def test_a_flag_the_only_recorded_answer_showed_is_answered_the_same_way(tmp_path: Path) -> None:
    world = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        answer = json_answer(await session.call_tool("check_in", {"guest": "Ines Okafor"}))
    assert answer == {"checked_in": True}


async def test_a_read_of_a_seeded_entity_shows_the_seed_values_not_the_training_sessions(tmp_path: Path) -> None:
    world = learned(tmp_path)
    data = json.loads(world.read_text(encoding="utf-8"))
    data["seed"] = {"quotes": [{"id": "DBL", "price": 210.0, "change": 1.5}]}
    seeded = tmp_path / "seeded.json"
    seeded.write_text(json.dumps(data), encoding="utf-8")
    async with stdio_session(str(seeded)) as session:
        quote = json_answer(await session.call_tool("get_quote", {"symbol": "DBL"}))
    assert (quote["price"], quote["change"]) == (210.0, 1.5)
