"""Create -> read -> update -> read -> list -> delete -> read episodes hold on catalogs of hosted services.

``benchmarks/crud_episodes.py`` plays one such episode per entity family the role model finds and
counts the checks that hold; its empty-answer floor holds almost none, so the figures are the
world model's. Tool families named verb last (``key-create``, ``key-get``) or keyed by ``*_gid`` /
``ID`` are one family: what the create made is read, listed and deleted by its siblings, here
through a real MCP client over stdio too.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from agentworld_mcp.world.world import load_world, load_world_data

from .conftest import ROOT, stdio_session

#: A catalog generated from an API's resource tree: noun first, verb last, ``ID`` in capitals.
VERB_LAST = {
    "name": "keys-service",
    "tools": [
        {"name": "key-create", "description": "Create a new SSH key.",
         "inputSchema": {"type": "object", "properties": {"Name": {"type": "string"}, "PublicKey": {"type": "string"}},
                         "required": ["Name", "PublicKey"]}},
        {"name": "key-get", "description": "Get an SSH key by ID.",
         "inputSchema": {"type": "object", "properties": {"ID": {"type": "number"}}, "required": ["ID"]}},
        {"name": "key-list", "description": "List SSH keys.",
         "inputSchema": {"type": "object", "properties": {"Page": {"type": "number"}}}},
        {"name": "key-delete", "description": "Delete an SSH key by ID.",
         "inputSchema": {"type": "object", "properties": {"ID": {"type": "number"}}, "required": ["ID"]}},
        {"name": "region-list", "description": "List the regions keys may be used in.",
         "inputSchema": {"type": "object", "properties": {}}},
    ],
}


def _benchmark() -> ModuleType:
    path = ROOT / "benchmarks" / "crud_episodes.py"
    spec = importlib.util.spec_from_file_location("crud_episodes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["crud_episodes"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


async def test_the_empty_answer_floor_holds_almost_no_check() -> None:
    bench = _benchmark()
    for name in ("openapi_services/asana.json", "hosted/zendesk.json"):
        floor = await bench.play_catalog(load_world(ROOT / "tests" / "catalogs" / name), "empty")
        assert floor["made"] > 0 and floor["held"] == 0, floor


async def test_families_keyed_by_gid_or_named_verb_last_hold_every_check() -> None:
    bench = _benchmark()
    asana = await bench.play_catalog(load_world(ROOT / "tests" / "catalogs" / "openapi_services" / "asana.json"))
    tags = next(e for e in asana["episodes"] if e["collection"] == "tags")
    assert {c["name"] for c in tags["checks"]} >= {"create", "read", "read-updated", "read-deleted"}
    assert all(c["held"] for c in tags["checks"]), tags

    keys = await bench.play_catalog(load_world_data(VERB_LAST))
    assert [e["collection"] for e in keys["episodes"]] == ["keys"]
    assert [c["name"] for c in keys["episodes"][0]["checks"]] == ["create", "read", "list", "delete", "read-deleted"]
    assert keys["held"] == keys["made"], keys


async def test_a_verb_last_catalog_reads_lists_and_deletes_what_its_create_made(tmp_path: Path) -> None:
    world = tmp_path / "keys.json"
    world.write_text(json.dumps(VERB_LAST), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = await session.call_tool("key-create", {"Name": "deploy laptop", "PublicKey": "ssh-ed25519 AAAA"})
        assert not made.isError
        body = json.loads(made.content[0].text)  # type: ignore[union-attr]
        key = body["ID"]  # the key field is named as the siblings name their key argument
        read = await session.call_tool("key-get", {"ID": key})
        assert not read.isError and "deploy laptop" in read.content[0].text  # type: ignore[union-attr]
        listed = await session.call_tool("key-list", {})
        assert "deploy laptop" in listed.content[0].text  # type: ignore[union-attr]
        deleted = await session.call_tool("key-delete", {"ID": key})
        assert not deleted.isError
        gone = await session.call_tool("key-get", {"ID": key})
        assert gone.isError
