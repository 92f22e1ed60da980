"""A customer-service catalog whose database is given as the seed: the seed is the world's truth.

Users are keyed by ``user_id`` though they also carry an ``email`` and a ``name``; a tool that finds a
user's id by email answers the seeded user's id; an address change lands in the user's ``address``
object; a tool named for pending orders cancels a pending one (which stays readable, cancelled) and
refuses a delivered one, as its description says; the product listing lists the seeded products.
Through a real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import bare_tool, stdio_session

_STR = {"type": "string"}

SHOP = {
    "name": "shop",
    "tools": [
        bare_tool("find_user_id_by_email", "Find user id by email. If the user is not found, the function will "
                  "return an error message.", {"email": _STR}, ["email"]),
        bare_tool("get_user_details", "Get the details of a user, including their orders.", {"user_id": _STR},
                  ["user_id"]),
        bare_tool("get_order_details", "Get the status and details of an order.", {"order_id": _STR}, ["order_id"]),
        bare_tool("cancel_pending_order", "Cancel a pending order. If the order is already processed or delivered, "
                  "it cannot be cancelled.", {"order_id": _STR, "reason": _STR}, ["order_id", "reason"]),
        bare_tool("modify_user_address", "Modify the default address of a user.",
                  {"user_id": _STR, "address1": _STR, "city": _STR, "zip": _STR}, ["user_id", "address1", "city", "zip"]),
        bare_tool("list_all_product_types", "List the name and product id of all product types.", {}),
    ],
    "seed": {
        "users": [{"user_id": "sara_doe_496", "name": {"first_name": "Sara", "last_name": "Doe"},
                   "email": "sara.doe@example.com", "address": {"address1": "1 Main St", "city": "Austin",
                                                                "zip": "78701"}, "orders": ["#W01", "#W02"]},
                  {"user_id": "omar_li_12", "name": {"first_name": "Omar", "last_name": "Li"},
                   "email": "omar@example.com", "address": {"address1": "9 Elm St", "city": "Reno", "zip": "89501"},
                   "orders": []}],
        "orders": [{"order_id": "#W01", "user_id": "sara_doe_496", "status": "pending", "items": ["lamp"]},
                   {"order_id": "#W02", "user_id": "sara_doe_496", "status": "delivered", "items": ["desk"]}],
        "products": [{"product_id": "p1", "name": "Lamp"}, {"product_id": "p2", "name": "Desk"}],
    },
}


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def _session_calls(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    world = tmp_path / "shop.json"
    world.write_text(json.dumps(SHOP), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        return [await session.call_tool(tool, args) for tool, args in calls]


async def test_a_user_found_by_email_is_the_seeded_user_and_reads_back_by_user_id(tmp_path: Path) -> None:
    found, missing, details = await _session_calls(tmp_path, [
        ("find_user_id_by_email", {"email": "Sara.Doe@example.com"}),
        ("find_user_id_by_email", {"email": "nobody@example.com"}),
        ("get_user_details", {"user_id": "sara_doe_496"}),
    ])
    assert _text(found) == "sara_doe_496"
    assert "not found" in _text(missing).lower() and "sara_doe_496" not in _text(missing)
    user = json.loads(_text(details))
    assert user["email"] == "sara.doe@example.com" and user["orders"] == ["#W01", "#W02"]  # the seed, as stored


async def test_an_address_change_lands_in_the_users_address(tmp_path: Path) -> None:
    _, read = await _session_calls(tmp_path, [
        ("modify_user_address", {"user_id": "omar_li_12", "address1": "2 Oak Rd", "city": "Dallas", "zip": "75201"}),
        ("get_user_details", {"user_id": "omar_li_12"}),
    ])
    user = json.loads(_text(read))
    assert user["address"] == {"address1": "2 Oak Rd", "city": "Dallas", "zip": "75201"}
    assert "city" not in user and user["name"] == {"first_name": "Omar", "last_name": "Li"}


async def test_only_a_pending_order_is_cancelled_and_it_stays_readable(tmp_path: Path) -> None:
    cancelled, read, refused, delivered = await _session_calls(tmp_path, [
        ("cancel_pending_order", {"order_id": "#W01", "reason": "no longer needed"}),
        ("get_order_details", {"order_id": "#W01"}),
        ("cancel_pending_order", {"order_id": "#W02", "reason": "no longer needed"}),
        ("get_order_details", {"order_id": "#W02"}),
    ])
    assert not cancelled.isError
    assert json.loads(_text(read))["status"].startswith("cancel")  # a lifecycle verb keeps the record
    assert refused.isError and "non-pending order cannot be cancelled" in _text(refused)
    assert json.loads(_text(delivered))["status"] == "delivered"  # the refusal changed nothing


async def test_the_product_listing_lists_the_seeded_products(tmp_path: Path) -> None:
    (listed,) = await _session_calls(tmp_path, [("list_all_product_types", {})])
    names = {item["name"] for item in json.loads(_text(listed))}
    assert names == {"Lamp", "Desk"}


async def test_a_lookup_of_a_plural_noun_by_attribute_is_a_listing_even_of_none(tmp_path: Path) -> None:
    shop = {**SHOP, "tools": [*SHOP["tools"], bare_tool("get_orders_by_status", "Get orders by status.",
                                                          {"status": _STR}, ["status"])]}
    world = tmp_path / "shop2.json"
    world.write_text(json.dumps(shop), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        pending = json.loads(_text(await session.call_tool("get_orders_by_status", {"status": "pending"})))
        none = json.loads(_text(await session.call_tool("get_orders_by_status", {"status": "returned"})))
    assert [o["order_id"] for o in pending] == ["#W01"] and none == []


async def test_a_seed_dumped_by_key_is_read_by_that_key(tmp_path: Path) -> None:
    """A database dumped as ``{key: record}`` (no list) is a seed too: its key is the record's ``user_id``,
    and a record that holds its key in a field of its own (``order_id``) keeps it there."""
    world = {**SHOP, "seed": {"users": {"ana_lee_123": {"email": "ana@example.com"}},
                              "orders": {"#W9": {"order_id": "#W9", "user_id": "ana_lee_123", "status": "pending"}}}}
    path = tmp_path / "dumped.json"
    path.write_text(json.dumps(world), encoding="utf-8")
    async with stdio_session(str(path)) as session:
        user = json.loads((await session.call_tool("get_user_details", {"user_id": "ana_lee_123"})).content[0].text)
        order = json.loads((await session.call_tool("get_order_details", {"order_id": "#W9"})).content[0].text)
    assert (user["user_id"], user["email"]) == ("ana_lee_123", "ana@example.com")
    assert (order["order_id"], order["status"]) == ("#W9", "pending")
