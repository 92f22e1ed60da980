"""A key-value store's catalog is one keyspace: typed values under keys, read back as written.

Two naming styles of the same store, through a real MCP client over stdio: the store's
command words (``hset``/``lrange``/``zadd``, the recorded catalog in tests/catalogs) and
names spelled out in words (``hash_get_all``, ``list_push_left``, ``sorted_set_range``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import ClientSession

from .conftest import stdio_session

RECORDED = Path(__file__).parent / "catalogs" / "redis_official_server.json"
SETS_GETS_DELETES = Path(__file__).parent / "realism" / "catalogs" / "redis.json"


def _tool(name: str, description: str, **props: Any) -> dict[str, Any]:
    schema = {k: {"type": v} if isinstance(v, str) else v for k, v in props.items()}
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": schema, "required": [k for k in schema if k == "key"]}}


SPELLED = {"name": "kvstore", "tools": [
    _tool("string_set", "Store a string value under a key.", key="string", value="string", ttl_seconds="integer"),
    _tool("string_get", "Returns the string stored at key.", key="string"),
    _tool("hash_set", "Set a field of the hash at key.", key="string", field="string", value="string"),
    _tool("hash_get", "Returns the value of a field of the hash at key.", key="string", field="string"),
    _tool("hash_get_all", "Returns every field and value of the hash at key.", key="string"),
    _tool("list_push_left", "Push values to the head of the list at key. Returns the new length.", key="string",
          values={"type": "array", "items": {"type": "string"}}),
    _tool("list_push_right", "Append a value to the tail of the list at key.", key="string", value="string"),
    _tool("list_range", "Returns the elements of the list at key from start to stop.", key="string",
          start="integer", stop="integer"),
    _tool("list_pop_left", "Remove and return the first element of the list at key.", key="string"),
    _tool("set_add", "Add a member to the set at key.", key="string", member="string"),
    _tool("set_members", "Returns the members of the set at key.", key="string"),
    _tool("sorted_set_add", "Add a member with a score to the sorted set at key.", key="string", member="string",
          score="number"),
    _tool("sorted_set_range", "Returns members of the sorted set at key by rank.", key="string", start="integer",
          stop="integer", with_scores="boolean"),
    _tool("key_type", "Returns the type of the value at key.", key="string"),
    _tool("delete_key", "Delete a key.", key="string"),
    _tool("list_keys", "Returns the keys matching a glob pattern.", pattern="string"),
    _tool("get_ttl", "Returns the seconds the key has left to live.", key="string"),
    _tool("set_expire", "Set a key's time to live in seconds.", key="string", seconds="integer"),
]}


async def _text(session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def test_a_spelled_out_store_reads_back_each_type_as_it_was_written(tmp_path: Path) -> None:
    world = tmp_path / "kvstore.json"
    world.write_text(json.dumps(SPELLED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await _text(session, "string_set", {"key": "greeting", "value": "hello"})
        assert await _text(session, "string_get", {"key": "greeting"}) == "hello"

        await _text(session, "hash_set", {"key": "user:1", "field": "name", "value": "Ada"})
        await _text(session, "hash_set", {"key": "user:1", "field": "visits", "value": "3"})
        assert await _text(session, "hash_get", {"key": "user:1", "field": "visits"}) == "3"
        assert json.loads(await _text(session, "hash_get_all", {"key": "user:1"})) == {"name": "Ada", "visits": "3"}

        assert await _text(session, "list_push_right", {"key": "jobs", "value": "b"}) != ""
        assert await _text(session, "list_push_left", {"key": "jobs", "values": ["a", "z"]}) == "3"
        assert json.loads(await _text(session, "list_range", {"key": "jobs", "start": 0, "stop": -1})) == ["z", "a", "b"]
        assert await _text(session, "list_pop_left", {"key": "jobs"}) == "z"
        assert json.loads(await _text(session, "list_range", {"key": "jobs", "start": -1, "stop": -1})) == ["b"]

        for member in ("redis", "cache", "redis"):
            await _text(session, "set_add", {"key": "tags", "member": member})
        assert json.loads(await _text(session, "set_members", {"key": "tags"})) == ["cache", "redis"]

        for member, score in (("ada", 30), ("grace", 10), ("alan", 20)):
            await _text(session, "sorted_set_add", {"key": "board", "member": member, "score": score})
        ranked = json.loads(await _text(session, "sorted_set_range", {"key": "board", "start": 0, "stop": -1}))
        assert ranked == ["grace", "alan", "ada"]
        top = json.loads(await _text(session, "sorted_set_range",
                                     {"key": "board", "start": -1, "stop": -1, "with_scores": True}))
        assert top == [["ada", 30.0]]

        assert await _text(session, "key_type", {"key": "board"}) == "zset"
        assert await _text(session, "key_type", {"key": "user:1"}) == "hash"


async def test_a_typed_command_on_a_key_of_another_type_fails_with_the_wrongtype_message(tmp_path: Path) -> None:
    world = tmp_path / "kvstore.json"
    world.write_text(json.dumps(SPELLED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        await _text(session, "string_set", {"key": "flags", "value": "dark_mode=on"})
        pushed = await session.call_tool("list_push_right", {"key": "flags", "value": "x"})
        assert pushed.isError
        assert "WRONGTYPE" in getattr(pushed.content[0], "text", "")
        assert await _text(session, "string_get", {"key": "flags"}) == "dark_mode=on"  # unchanged


async def test_missing_keys_answer_the_store_s_empty_answers_not_failures(tmp_path: Path) -> None:
    world = tmp_path / "kvstore.json"
    world.write_text(json.dumps(SPELLED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        assert json.loads(await _text(session, "list_range", {"key": "nothing", "start": 0, "stop": -1})) == []
        assert json.loads(await _text(session, "set_members", {"key": "nothing"})) == []
        assert json.loads(await _text(session, "hash_get_all", {"key": "nothing"})) == {}
        assert await _text(session, "key_type", {"key": "nothing"}) == "none"
        assert await _text(session, "get_ttl", {"key": "nothing"}) == "-2"
        assert "does not exist" in await _text(session, "string_get", {"key": "nothing"})


async def test_keys_are_listed_by_glob_expire_and_are_gone_once_deleted(tmp_path: Path) -> None:
    world = tmp_path / "kvstore.json"
    world.write_text(json.dumps(SPELLED), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        for key in ("session:1", "session:2", "config"):
            await _text(session, "string_set", {"key": key, "value": "v"})
        assert json.loads(await _text(session, "list_keys", {"pattern": "session:*"})) == ["session:1", "session:2"]
        assert await _text(session, "get_ttl", {"key": "config"}) == "-1"
        await _text(session, "set_expire", {"key": "config", "seconds": 60})
        assert await _text(session, "get_ttl", {"key": "config"}) == "60"
        await _text(session, "delete_key", {"key": "session:1"})
        assert json.loads(await _text(session, "list_keys", {"pattern": "*"})) == ["session:2", "config"]


async def test_a_command_word_catalog_answers_in_its_declared_result_types() -> None:
    async with stdio_session(str(RECORDED)) as session:
        await session.call_tool("hset", {"name": "user:7", "key": "email", "value": "ada@example.com"})
        got = await session.call_tool("hget", {"name": "user:7", "key": "email"})
        assert got.structuredContent == {"result": "ada@example.com"}
        exists = await session.call_tool("hexists", {"name": "user:7", "key": "phone"})
        assert exists.structuredContent == {"result": False}

        for value in ("a", "b"):
            await session.call_tool("rpush", {"name": "q", "value": value})
        assert (await session.call_tool("llen", {"name": "q"})).structuredContent == {"result": 2}
        ranged = await session.call_tool("lrange", {"name": "q", "start": 0, "stop": -1})
        assert ranged.structuredContent == {"result": '["a", "b"]'}  # "A JSON string containing the list"

        await session.call_tool("zadd", {"key": "board", "score": 2, "member": "b"})
        await session.call_tool("zadd", {"key": "board", "score": 1, "member": "a"})
        ranked = await session.call_tool("zrange", {"key": "board", "start": 0, "end": -1})
        assert ranked.structuredContent == {"result": "['a', 'b']"}

        typed = await session.call_tool("type", {"key": "board"})
        assert typed.structuredContent == {"result": {"key": "board", "type": "zset", "ttl": -1}}
        renamed = await session.call_tool("rename", {"old_key": "missing", "new_key": "other"})
        assert not renamed.isError and renamed.structuredContent == {"result": {"error": "Key 'missing' does not exist."}}
        scanned = await session.call_tool("scan_keys", {"pattern": "*"})
        assert scanned.structuredContent is not None
        assert sorted(scanned.structuredContent["result"]["keys"]) == ["board", "q", "user:7"]
        assert scanned.structuredContent["result"]["cursor"] == 0


async def test_a_catalog_of_only_set_get_delete_and_list_keeps_its_record_wording() -> None:
    async with stdio_session(str(SETS_GETS_DELETES)) as session:
        assert await _text(session, "set", {"key": "session:1", "value": "alice"}) == "Successfully set key: session:1"
        assert await _text(session, "get", {"key": "session:1"}) == "alice"
