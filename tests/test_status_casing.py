"""A state word the model sets is written as the world writes its states: a seeded order store whose statuses are
``Pending`` and ``Open`` cancels to ``Cancelled``; one whose statuses are lower case keeps ``cancelled``. Through a
real MCP client over stdio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import bare_tool, world_calls

_ID = {"type": "integer"}


def _shop(statuses: list[str]) -> dict[str, Any]:
    return {"name": "orders", "tools": [
        bare_tool("get_order_details", "Get an order by its id.", {"order_id": _ID}, ["order_id"]),
        bare_tool("cancel_order", "Cancel an order.", {"order_id": _ID}, ["order_id"]),
    ], "seed": {"orders": [{"order_id": 100 + n, "symbol": "ACME", "status": s} for n, s in enumerate(statuses)]}}


@pytest.mark.parametrize(("statuses", "cancelled"), [(["Pending", "Open"], "Cancelled"), (["Pending"], "Cancelled"),
                                                     (["PENDING"], "CANCELLED"), (["pending", "open"], "cancelled")])
async def test_a_cancelled_order_reads_in_the_case_of_the_stores_other_states(
        tmp_path: Path, statuses: list[str], cancelled: str) -> None:
    _, read = await world_calls(tmp_path, _shop(statuses), ("cancel_order", {"order_id": 100}),
                                ("get_order_details", {"order_id": 100}))
    assert json.loads(read.content[0].text)["status"] == cancelled
