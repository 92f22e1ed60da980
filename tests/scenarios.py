"""Scripted consistency episodes: create, read back, update, list, delete, read deleted.

Each scenario drives one world through ``call(tool, arguments)``, an async callable that
returns a ``CallToolResult`` (a real MCP client's ``session.call_tool``) or a
:class:`~agentworld_mcp.ToolResult` (``Simulator.call``), and returns one :class:`Check`
per property a stateful service must have. They know nothing about transports, so the
same episodes run over stdio, streamable HTTP, many episodes in parallel, or one process
per call against a shared state file::

    checks = await run_scenario("issue-tracker", session.call_tool)
    assert all(c.ok for c in checks), failures(checks)

``tag`` makes what an episode creates recognisable, so parallel episodes can check they
never see each other's entities (the ``no cross-talk`` checks).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "examples" / "worlds"
CATALOGS = ROOT / "tests" / "catalogs"
JSONDict = dict[str, Any]
Call = Callable[[str, JSONDict], Awaitable[Any]]
#: Marks what parallel episodes create: ``ep-07``. Used by the cross-talk checks.
TAG_MARK = "ep-"


@dataclass(frozen=True)
class Check:
    scenario: str
    name: str
    ok: bool
    detail: str = ""


def failures(checks: list[Check]) -> str:
    return "\n".join(f"[{c.scenario}] {c.name}: {c.detail}" for c in checks if not c.ok)


# -- reading results of either kind ----------------------------------------------------------------


def is_error(result: Any) -> bool:
    return bool(result.isError if hasattr(result, "isError") else result.is_error)


def raw_text(result: Any) -> str:
    blocks = result.content
    return "\n".join(b.text if hasattr(b, "text") else b.get("text", "") for b in blocks)


def text(result: Any) -> str:
    """What the tool says. A structured result's text block is its JSON (checked in ``ok``);
    what it says is the one field it carries: ``{"content": "Successfully wrote to ..."}``
    says that sentence, ``{"entities": [...]}`` says that list (as JSON), and
    ``{"success": true, "message": "..."}`` says its message."""
    value = structured(result)
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        return inner if isinstance(inner, str) else json.dumps(inner)
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return value["message"]
    return raw_text(result)


def _text_agrees(result: Any) -> bool:
    """A structured result's text block is its JSON, or what the real server prints beside it: the one
    value it carries (``{"content": "Successfully wrote ..."}`` prints the sentence, ``{"entities": [...]}``
    prints the list as JSON) or its message (see tests/test_ground_truth.py for the real servers)."""
    raw, said = raw_text(result), text(result)
    return raw == said or _json(raw) == structured(result) or (_json(raw) is not None and _json(raw) == _json(said))


def _json(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return None


def structured(result: Any) -> Any:
    return result.structuredContent if hasattr(result, "structuredContent") else result.structured


class _Checks:
    def __init__(self, scenario: str, call: Call) -> None:
        self.scenario = scenario
        self.call = call
        self.out: list[Check] = []

    def check(self, name: str, ok: bool, detail: Any = "") -> bool:
        self.out.append(Check(self.scenario, name, bool(ok), "" if ok else str(detail)[:600]))
        return bool(ok)

    async def ok(self, name: str, tool: str, args: JSONDict) -> Any:
        """Call a tool that must succeed."""
        result = await self.call(tool, args)
        self.check(f"{name}: {tool} succeeds", not is_error(result), text(result))
        if structured(result) is not None:
            self.check(f"{name}: {tool}'s text says what its structured content carries",
                       _text_agrees(result), raw_text(result))
        return result

    async def fails(self, name: str, tool: str, args: JSONDict, *needles: str) -> Any:
        """Call a tool that must answer isError, worded with every needle."""
        result = await self.call(tool, args)
        message = text(result)
        self.check(f"{name}: {tool} is an error", is_error(result), message)
        for needle in needles:
            self.check(f"{name}: error says {needle!r}", needle in message, message)
        return result


def _no_cross_talk(c: _Checks, name: str, values: list[str], tag: str) -> None:
    strangers = [v for v in values if TAG_MARK in v and (not tag or tag not in v)]
    c.check(f"no cross-talk: {name}", not strangers, f"saw other episodes' entities: {strangers[:5]}")


# -- an id-keyed REST-style tracker -------------------------------------------------------------------


async def issue_tracker(call: Call, tag: str = "") -> list[Check]:
    c = _Checks("issue-tracker", call)
    first = structured(await c.ok("seed", "list_issues", {}))
    seeded = {i["id"]: i["title"] for i in first["issues"]}
    c.check("seed: the three seeded issues are listed", {1, 2, 3} <= set(seeded), seeded)
    c.check("seed: total agrees with the items", first["total"] == len(first["issues"]), first)
    title = f"Crash on start {tag}".strip()
    created = structured(await c.ok("create", "create_issue", {"title": title, "assignee": "ada", "priority": "low"}))
    new_id = created["id"]
    c.check("create: fresh id", new_id not in seeded, created)
    c.check("create: fields as given", (created["title"], created["assignee"], created["priority"]) == (title, "ada", "low"),
            created)
    read = structured(await c.ok("read back", "get_issue", {"issue_id": new_id}))
    c.check("read back: exactly the created issue", read == created, {"read": read, "created": created})
    updated = structured(await c.ok("update", "update_issue", {"issue_id": new_id, "status": "closed", "priority": "high"}))
    c.check("update: answer shows the change", (updated["status"], updated["priority"]) == ("closed", "high"), updated)
    after = structured(await c.ok("update", "get_issue", {"issue_id": new_id}))
    c.check("update: later read shows the change", (after["status"], after["priority"]) == ("closed", "high"), after)
    c.check("update: other fields unchanged", (after["title"], after["assignee"], after["created_at"]) ==
            (title, "ada", created["created_at"]), after)
    closed = structured(await c.ok("list filter", "list_issues", {"status": "closed"}))
    c.check("list filter: the closed issue is listed", new_id in [i["id"] for i in closed["issues"]], closed)
    c.check("list filter: only closed issues", all(i["status"] == "closed" for i in closed["issues"]), closed)
    c.check("list filter: total agrees", closed["total"] == len(closed["issues"]), closed)
    mine = structured(await c.ok("list filter", "list_issues", {"assignee": "ada"}))
    c.check("list filter: assignee equality", new_id in [i["id"] for i in mine["issues"]]
            and all(i["assignee"] == "ada" for i in mine["issues"]), mine)
    found = structured(await c.ok("search", "search_issues", {"query": title.lower()}))
    c.check("search: finds the issue by a substring of its title", [i["id"] for i in found["issues"]] == [new_id], found)
    c.check("search: total_count agrees", found["total_count"] == len(found["issues"]), found)
    comment = structured(await c.ok("nested create", "add_comment", {"issue_id": new_id, "body": "Seen on staging."}))
    c.check("nested create: the comment points at the issue", comment["issue_id"] == new_id, comment)
    await c.fails("nested create", "add_comment", {"issue_id": 999, "body": "x"}, "999", "not found")
    everything = structured(await c.ok("list", "list_issues", {}))
    c.check("list: creations are listed", new_id in [i["id"] for i in everything["issues"]], everything)
    _no_cross_talk(c, "list_issues", [i["title"] for i in everything["issues"]], tag)
    deleted = structured(await c.ok("delete", "delete_issue", {"issue_id": new_id}))
    c.check("delete: answer confirms", deleted.get("deleted") is True and deleted.get("id") == new_id, deleted)
    await c.fails("read deleted", "get_issue", {"issue_id": new_id}, str(new_id), "not found")
    await c.fails("update deleted", "update_issue", {"issue_id": new_id, "title": "x"}, str(new_id), "not found")
    await c.fails("delete deleted", "delete_issue", {"issue_id": new_id}, str(new_id), "not found")
    await c.fails("comment on deleted", "add_comment", {"issue_id": new_id, "body": "x"}, "not found")
    final = structured(await c.ok("list after delete", "list_issues", {}))
    c.check("list after delete: gone", new_id not in [i["id"] for i in final["issues"]], final)
    c.check("list after delete: total back to the start", final["total"] == first["total"], final)
    seed_read = structured(await c.ok("seed", "get_issue", {"issue_id": 1}))
    c.check("seed: read returns the seeded fields", seed_read["title"] == "Rocket fails to launch on Mondays"
            and seed_read["assignee"] == "ada", seed_read)
    return c.out


# -- a file store keyed by path ------------------------------------------------------------------------


async def file_store(call: Call, tag: str = "") -> list[Check]:
    """The file-store example world (seeded /workspace, delete_file)."""
    c = _Checks("file-store", call)
    listing = text(await c.ok("seed", "list_directory", {"path": "/workspace"}))
    c.check("seed: seeded files and implied directories are listed",
            "[FILE] README.md" in listing and "[DIR] src" in listing and "[DIR] archive" in listing, listing)
    readme = text(await c.ok("seed", "read_text_file", {"path": "/workspace/README.md"}))
    c.check("seed: a seeded file reads back", readme.startswith("# Rocket"), readme)
    checks = await _file_lifecycle(c, "/workspace/notes", "/workspace/archive", tag)
    delete_target = f"/workspace/archive/{_file_name(tag)}"
    await c.ok("delete", "delete_file", {"path": delete_target})
    await c.fails("read deleted", "read_text_file", {"path": delete_target}, "ENOENT", f"open '{delete_target}'")
    await c.fails("info deleted", "get_file_info", {"path": delete_target}, "ENOENT", f"stat '{delete_target}'")
    await c.fails("delete deleted", "delete_file", {"path": delete_target}, "ENOENT", f"unlink '{delete_target}'")
    archive = text(await c.ok("list after delete", "list_directory", {"path": "/workspace/archive"}))
    c.check("list after delete: gone", _file_name(tag) not in archive, archive)
    await c.fails("delete non-empty directory", "delete_file", {"path": "/workspace/src"}, "ENOTEMPTY")
    return checks.out


async def filesystem_server(call: Call, tag: str = "") -> list[Check]:
    """The official filesystem server's catalog as a bare world (no seed, no delete tool)."""
    c = _Checks("filesystem-server", call)
    await c.ok("mkdir", "create_directory", {"path": "/data/archive"})
    await _file_lifecycle(c, "/data/notes", "/data/archive", tag)
    moved = f"/data/archive/{_file_name(tag)}"
    many = text(await c.ok("read many", "read_multiple_files", {"paths": [moved, "/data/nope.txt"]}))
    c.check("read many: found and missing files", moved + ":\n" in many and
            "/data/nope.txt: Error - ENOENT" in many, many)
    sizes = text(await c.ok("sizes", "list_directory_with_sizes", {"path": "/data/archive"}))
    c.check("sizes: totals agree with the entries", "Total: 1 files, 0 directories" in sizes, sizes)
    tree = json.loads(text(await c.ok("tree", "directory_tree", {"path": "/data"})))
    c.check("tree: reflects the move", {"name": "archive", "type": "directory",
                                        "children": [{"name": _file_name(tag), "type": "file"}]} in tree, tree)
    return c.out


def _file_name(tag: str) -> str:
    return f"todo-{tag}.txt" if tag else "todo.txt"


async def _file_lifecycle(c: _Checks, folder: str, archive: str, tag: str) -> _Checks:
    name = _file_name(tag)
    path, moved = f"{folder}/{name}", f"{archive}/{name}"
    content = f"launch checklist {tag}\n- fuel\n- weather\n"
    await c.fails("read missing", "read_text_file", {"path": path}, "ENOENT", f"open '{path}'")
    wrote = await c.ok("create", "write_file", {"path": path, "content": content})
    c.check("create: worded like the filesystem server", text(wrote) == f"Successfully wrote to {path}", text(wrote))
    read = await c.ok("read back", "read_text_file", {"path": path})
    c.check("read back: exactly the written content", text(read) == content, text(read))
    c.check("read back: structured content too", structured(read) == {"content": content}, structured(read))
    head = await c.ok("read back", "read_file", {"path": path, "head": 1})
    c.check("read back: head", text(head) == content.split("\n")[0], text(head))
    edit = await c.ok("update", "edit_file", {"path": path, "edits": [{"oldText": "- fuel", "newText": "- fuel (full)"}]})
    c.check("update: the diff shows the edit", "-- fuel\n+- fuel (full)" in text(edit), text(edit))
    after = await c.ok("update", "read_text_file", {"path": path})
    c.check("update: later read shows it", text(after) == content.replace("- fuel", "- fuel (full)"), text(after))
    await c.fails("update", "edit_file", {"path": path, "edits": [{"oldText": "no such text", "newText": "x"}]},
                  "Could not find exact match")
    info = text(await c.ok("info", "get_file_info", {"path": path}))
    size = len(text(after).encode())
    c.check("info: size agrees with the content", f"size: {size}\n" in info and "isFile: true" in info, info)
    listing = text(await c.ok("list", "list_directory", {"path": folder}))
    c.check("list: the new file is listed", f"[FILE] {name}" in listing, listing)
    _no_cross_talk(c, "list_directory", listing.splitlines(), tag)
    found = text(await c.ok("search", "search_files", {"path": folder.rsplit("/", 1)[0], "pattern": "**/todo*.txt"}))
    c.check("search: finds the file by glob", path in found.splitlines(), found)
    _no_cross_talk(c, "search_files", found.splitlines(), tag)
    moved_answer = await c.ok("move", "move_file", {"source": path, "destination": moved})
    c.check("move: worded like the filesystem server", text(moved_answer) == f"Successfully moved {path} to {moved}",
            text(moved_answer))
    await c.fails("read moved-away path", "read_text_file", {"path": path}, "ENOENT", f"open '{path}'")
    await c.fails("move moved-away path", "move_file", {"source": path, "destination": moved}, "ENOENT", "rename")
    again = await c.ok("read at the new path", "read_text_file", {"path": moved})
    c.check("move: content kept", text(again) == text(after), text(again))
    old_listing = await c.call("list_directory", {"path": folder})
    c.check("move: the old folder no longer lists it", f"[FILE] {name}" not in text(old_listing), text(old_listing))
    return c


# -- a knowledge graph keyed by entity name ----------------------------------------------------------------


async def knowledge_graph(call: Call, tag: str = "") -> list[Check]:
    """The knowledge-graph example world (seeded with three entities and two relations)."""
    return await _graph(_Checks("knowledge-graph", call), tag, seeded=True)


async def memory_server(call: Call, tag: str = "") -> list[Check]:
    """The official memory server's catalog as a bare world (starts empty)."""
    return await _graph(_Checks("memory-server", call), tag, seeded=False)


async def _graph(c: _Checks, tag: str, *, seeded: bool) -> list[Check]:
    start = structured(await c.ok("read graph", "read_graph", {}))
    names = [e["name"] for e in start["entities"]]
    if seeded:
        c.check("seed: seeded entities and relations are in the graph", "Ada Lovelace" in names
                and len(start["relations"]) == 2, start)
        c.check("seed: open_nodes returns a seeded entity", structured(await c.call(
            "open_nodes", {"names": ["Ada Lovelace"]}))["entities"][0]["entityType"] == "person")
    name = f"Grace Hopper {tag}".strip()
    entity = {"name": name, "entityType": "person", "observations": ["wrote the first compiler"]}
    created = await c.ok("create", "create_entities", {"entities": [entity]})
    c.check("create: returns the new entity", structured(created) == {"entities": [entity]}, structured(created))
    c.check("create: text is the JSON array, as the memory server prints it", json.loads(text(created)) == [entity],
            text(created))
    again = structured(await c.ok("create existing", "create_entities", {"entities": [entity]}))
    c.check("create existing: skipped, as the memory server does", again == {"entities": []}, again)
    opened = structured(await c.ok("read back", "open_nodes", {"names": [name]}))
    c.check("read back: exactly the created entity", opened == {"entities": [entity], "relations": []}, opened)
    added = structured(await c.ok("update", "add_observations",
                                  {"observations": [{"entityName": name, "contents": ["rear admiral", "wrote the first compiler"]}]}))
    c.check("update: only new observations are added",
            added == {"results": [{"entityName": name, "addedObservations": ["rear admiral"]}]}, added)
    friend = "Ada Lovelace" if seeded else f"COBOL {tag}".strip()
    if not seeded:
        await c.ok("create", "create_entities", {"entities": [{"name": friend, "entityType": "language", "observations": []}]})
    relation = {"from": name, "to": friend, "relationType": "admires"}
    rel = structured(await c.ok("relate", "create_relations", {"relations": [relation]}))
    c.check("relate: returns the relation", rel == {"relations": [relation]}, rel)
    after = structured(await c.ok("update", "open_nodes", {"names": [name]}))
    c.check("update: later read shows the observations", after["entities"][0]["observations"] ==
            ["wrote the first compiler", "rear admiral"], after)
    c.check("relate: reads include the relation", relation in after["relations"], after)
    found = structured(await c.ok("search", "search_nodes", {"query": "admiral"}))
    c.check("search: finds the entity by an observation", [e["name"] for e in found["entities"]] == [name], found)
    c.check("search: with its relations", relation in found["relations"], found)
    graph = structured(await c.ok("list", "read_graph", {}))
    c.check("list: the graph has the new entity", name in [e["name"] for e in graph["entities"]], graph)
    _no_cross_talk(c, "read_graph", [e["name"] for e in graph["entities"]], tag)
    await c.ok("update", "delete_observations", {"deletions": [{"entityName": name, "observations": ["rear admiral"]}]})
    trimmed = structured(await c.call("open_nodes", {"names": [name]}))
    c.check("update: deleted observation is gone", trimmed["entities"][0]["observations"] == ["wrote the first compiler"],
            trimmed)
    gone = await c.ok("delete", "delete_entities", {"entityNames": [name]})
    c.check("delete: worded like the memory server", text(gone) == "Entities deleted successfully", text(gone))
    opened = structured(await c.ok("read deleted", "open_nodes", {"names": [name]}))
    c.check("read deleted: nothing comes back", opened == {"entities": [], "relations": []}, opened)
    await c.fails("update deleted", "add_observations", {"observations": [{"entityName": name, "contents": ["x"]}]},
                  f"Entity with name {name} not found")
    final = structured(await c.ok("list after delete", "read_graph", {}))
    c.check("list after delete: entity gone", name not in [e["name"] for e in final["entities"]], final)
    c.check("list after delete: its relations gone too", relation not in final["relations"], final)
    if seeded:
        c.check("list after delete: back to the seed", final == start, {"final": final, "start": start})
    return c.out


#: name -> (world file, scenario)
SCENARIOS: dict[str, tuple[Path, Callable[[Call, str], Awaitable[list[Check]]]]] = {
    "issue-tracker": (WORLDS / "issue-tracker.yaml", issue_tracker),
    "file-store": (WORLDS / "file-store.yaml", file_store),
    "knowledge-graph": (WORLDS / "knowledge-graph.yaml", knowledge_graph),
    "memory-server": (CATALOGS / "memory.json", memory_server),
    "filesystem-server": (CATALOGS / "filesystem.json", filesystem_server),
}


async def run_scenario(name: str, call: Call, tag: str = "") -> list[Check]:
    """Run the scenario ``name`` (a key of :data:`SCENARIOS`) through ``call``."""
    return await SCENARIOS[name][1](call, tag)


def process_per_call_params(default: tuple[str, ...] = ("issue-tracker",)) -> list[Any]:
    """The scenarios as parameters of a test that starts a process per call: those named in ``default`` in the
    default tier, the others (minutes of process starts) in the long tier (``-m slow``)."""
    import pytest

    return [pytest.param(name, marks=() if name in default else pytest.mark.slow) for name in sorted(SCENARIOS)]

