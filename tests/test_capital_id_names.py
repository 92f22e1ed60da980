"""Generated API servers keep the API's capitals in argument names (``ProbeID``, ``Region``) and put the verb
last (``uptime-probe-get``): the read still reads the record the create made, by that id. Through a real MCP
client over stdio."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import bare_tool, world_calls

_STR = {"type": "string"}
PROBES = {"name": "probes", "tools": [
    bare_tool("uptime-probe-create", "Create an uptime probe.", {"Name": _STR, "Region": _STR}, ["Name", "Region"]),
    bare_tool("uptime-probe-get", "Get an uptime probe by ID.", {"ProbeID": _STR}, ["ProbeID"]),
    bare_tool("uptime-probe-delete", "Delete an uptime probe.", {"ProbeID": _STR}, ["ProbeID"]),
]}


def _json(result: object) -> dict[str, object]:
    return json.loads(result.content[0].text)  # type: ignore[attr-defined]


async def test_a_probe_read_by_its_capitalised_id_is_the_one_created(tmp_path: Path) -> None:
    made, read, _, gone = await world_calls(
        tmp_path, PROBES,
        ("uptime-probe-create", {"Name": "checkout latency", "Region": "fra1"}),
        ("uptime-probe-get", lambda done: {"ProbeID": str(_key(_json(done[0])))}),
        ("uptime-probe-delete", lambda done: {"ProbeID": str(_key(_json(done[0])))}),
        ("uptime-probe-get", lambda done: {"ProbeID": str(_key(_json(done[0])))}))
    assert not read.isError
    assert (_json(read).get("Name"), _json(read).get("Region")) == ("checkout latency", "fra1")
    assert gone.isError


def _key(created: dict[str, object]) -> object:
    return next(v for k, v in created.items() if k.lower() in ("id", "probeid"))
