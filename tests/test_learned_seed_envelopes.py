"""Notes a recording read before changing them become the learned world's seed, inside their envelopes (issue 22).

A notes server wraps every answer in an envelope (``{"ok": true, "data": {...}}``, its outputSchema). One recorded session
searches the vault, reads a note that was there before it (``Projects/Garden Plan.md``) and then writes
another. Learned with the ``agentworld-mcp learn`` CLI and served by ``agentworld-mcp serve`` over stdio,
the pre-existing note is read back with its recorded text, a search finds it, and a move re-keys it: the
destination reads the same text, the source is gone. ``learn --no-seed`` learns no note.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]
VAULT = {"vault": {"type": "string", "description": "Vault name"}}
PATH = {"path": {"type": "string", "description": "Vault-relative path of the note"}}


def envelope(**data: JSONDict) -> JSONDict:
    """The server's outputSchema: ``{"ok": true, "data": {...}}``."""
    inner = {"type": "object", "properties": data, "required": list(data)}
    return {"type": "object", "properties": {"ok": {"type": "boolean"}, "data": inner}, "required": ["ok", "data"]}


TEXT = {"type": "string"}
MATCH = {"type": "object", "properties": {"path": {"type": "string", "description": "Vault-relative path"}, "line": {"type": "integer"}, "snippet": TEXT},
         "required": ["path", "line", "snippet"]}
CATALOG: JSONDict = {"name": "notes-vault", "tools": [
    {"name": "read_note", "description": "Read a note's Markdown content.",
     "inputSchema": {"type": "object", "properties": {**VAULT, **PATH}, "required": ["vault", "path"]},
     "outputSchema": envelope(path=TEXT, content=TEXT)},
    {"name": "create_note", "description": "Create a new note at a path.",
     "inputSchema": {"type": "object", "properties": {**VAULT, **PATH, "content": {"type": "string"}},
                     "required": ["vault", "path", "content"]},
     "outputSchema": envelope(path=TEXT)},
    {"name": "move_note", "description": "Move or rename a note to a new path.",
     "inputSchema": {"type": "object", "properties": {**VAULT, "source": {"type": "string"},
                                                     "destination": {"type": "string"}},
                     "required": ["vault", "source", "destination"]},
     "outputSchema": envelope(source=TEXT, destination=TEXT)},
    {"name": "search_vault", "description": "Search note contents; returns matching lines with snippets.",
     "inputSchema": {"type": "object", "properties": {**VAULT, "query": {"type": "string"}},
                     "required": ["vault", "query"]},
     "outputSchema": envelope(matches={"type": "array", "items": MATCH}, count={"type": "integer"})},
]}
GARDEN = "# Garden Plan\n\nPlant tomatoes and basil along the south fence.\n"


def line(turn: int, tool: str, arguments: JSONDict, data: JSONDict) -> str:
    answer = {"ok": True, "data": data}
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "structuredContent": answer, "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("search_vault", {"vault": "notes", "query": "basil"},
         {"matches": [{"path": "Projects/Garden Plan.md", "line": 3, "snippet": "Plant tomatoes and basil along the south fence."}],
          "count": 1}),
        ("read_note", {"vault": "notes", "path": "Projects/Garden Plan.md"},
         {"path": "Projects/Garden Plan.md", "content": GARDEN}),
        ("create_note", {"vault": "notes", "path": "Ideas/Reading.md", "content": "# Reading\n"},
         {"path": "Ideas/Reading.md"}),
        ("read_note", {"vault": "notes", "path": "Ideas/Reading.md"}, {"path": "Ideas/Reading.md", "content": "# Reading\n"}),
        ("move_note", {"vault": "notes", "source": "Ideas/Reading.md", "destination": "Archive/Reading.md"},
         {"source": "Ideas/Reading.md", "destination": "Archive/Reading.md"}),
    ]
    lines = [line(turn, tool, arguments, data) for turn, (tool, arguments, data) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path, *options: str) -> tuple[Path, JSONDict]:
    out = learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", *options)
    return out, json.loads(out.read_text(encoding="utf-8"))


def data(result: Any) -> Any:
    assert not result.isError, result.content
    return result.structuredContent["data"]


def test_a_note_read_before_any_change_is_seeded_and_one_the_session_wrote_is_not(tmp_path: Path) -> None:
    _, world = learned(tmp_path)
    paths = {item.get("path"): item for items in (world.get("seed") or {}).values() for item in items}
    assert paths["/Projects/Garden Plan.md"]["content"] == GARDEN
    assert not any("Reading" in str(path) for path in paths)


async def test_the_pre_existing_note_is_read_back_found_by_search_and_moved(tmp_path: Path) -> None:
    world, _ = learned(tmp_path)
    async with stdio_session(str(world)) as session:
        read = data(await session.call_tool("read_note", {"vault": "notes", "path": "Projects/Garden Plan.md"}))
        found = data(await session.call_tool("search_vault", {"vault": "notes", "query": "tomatoes"}))
        await session.call_tool("move_note", {"vault": "notes", "source": "Projects/Garden Plan.md",
                                              "destination": "Archive/Garden Plan.md"})
        moved = data(await session.call_tool("read_note", {"vault": "notes", "path": "Archive/Garden Plan.md"}))
        gone = await session.call_tool("read_note", {"vault": "notes", "path": "Projects/Garden Plan.md"})
    assert read["content"] == GARDEN
    assert [m["path"] for m in found["matches"]] == ["Projects/Garden Plan.md"]
    assert moved["content"] == GARDEN
    assert gone.isError


def test_learning_with_no_seed_keeps_no_note(tmp_path: Path) -> None:
    _, world = learned(tmp_path, "--no-seed")
    assert not world.get("seed")
