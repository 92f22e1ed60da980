"""Tools of one entity linked where their names differ: a read whose description says it covers drafts
reads the draft a create-draft tool made; a batch read (``get_work_items_batch(ids: [integer])``) reads
the work item a create made, whose id is a number because the batch takes numbers; a create given
``fields: [{name, value}]`` stores (and a JSON Patch update changes) the object they set. Through a real MCP
client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import bare_tool, stdio_session, world_calls

_STR = {"type": "string"}

SUITE = {
    "name": "suite",
    "tools": [
        bare_tool("create_draft", "Create a draft email.", {"to": {"type": "array", "items": _STR}, "subject": _STR},
                  ["to", "subject"]),
        bare_tool("get_message", "Get a message (including drafts) by id.", {"message_id": _STR}, ["message_id"]),
        bare_tool("create_work_item", "Create a work item.", {"title": _STR}, ["title"]),
        bare_tool("get_work_items_batch", "Get several work items by their ids.",
                  {"ids": {"type": "array", "items": {"type": "integer"}}}, ["ids"]),
    ],
}


async def _calls(tmp_path: Path, *calls: tuple[str, Any]) -> list[Any]:
    return await world_calls(tmp_path, SUITE, *calls)


def _body(result: Any) -> Any:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


async def test_a_draft_is_read_by_the_message_read_that_says_it_covers_drafts(tmp_path: Path) -> None:
    draft, read = await _calls(tmp_path, ("create_draft", {"to": ["ana@example.com"], "subject": "Agenda"}),
                               ("get_message", lambda done: {"message_id": _body(done[0])["id"]}))
    assert _body(read)["subject"] == "Agenda" and _body(read)["id"] == _body(draft)["id"]


async def test_a_batch_read_finds_the_work_item_a_create_made_under_a_numeric_id(tmp_path: Path) -> None:
    made, batch, missing = await _calls(tmp_path, ("create_work_item", {"title": "Fix the login"}),
                                        ("get_work_items_batch", {"ids": [1, 99]}),
                                        ("get_work_items_batch", {"ids": [98, 99]}))
    assert _body(made)["id"] == 1
    assert [item["title"] for item in _body(batch)] == ["Fix the login"]  # 99 names nothing: left out
    assert missing.isError


async def test_a_create_given_name_value_pairs_stores_and_reads_back_the_object_they_set(tmp_path: Path) -> None:
    tracker = {"name": "tracker", "tools": [
        bare_tool("create_ticket", "Create a ticket.", {"project": _STR, "fields": {"type": "array", "items": {
            "type": "object", "properties": {"name": _STR, "value": _STR}}}}, ["project", "fields"]),
        bare_tool("get_ticket", "Get a ticket by id.", {"id": {"type": "integer"}}, ["id"]),
        bare_tool("update_ticket", "Update a ticket's fields.", {"id": {"type": "integer"}, "fields": {
            "type": "array", "items": {"type": "object"}}}, ["id", "fields"]),
    ]}
    world = tmp_path / "tracker.json"
    world.write_text(json.dumps(tracker), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        made = _body(await session.call_tool("create_ticket", {"project": "Ops", "fields": [
            {"name": "Title", "value": "Disk full"}, {"name": "State", "value": "New"}]}))
        await session.call_tool("update_ticket", {"id": made["id"], "fields": [
            {"op": "add", "path": "/fields/State", "value": "Active"}]})
        read = _body(await session.call_tool("get_ticket", {"id": made["id"]}))
    assert made["fields"] == {"Title": "Disk full", "State": "New"}  # the resource's shape, not the request's
    assert read["fields"] == {"Title": "Disk full", "State": "Active"}


async def test_a_counting_tool_counts_the_records_its_family_made_in_the_state_it_names(tmp_path: Path) -> None:
    repo = {"name": "repo", "tools": [
        bare_tool("create_issue", "Create an issue.", {"repo": _STR, "title": _STR}, ["repo", "title"]),
        bare_tool("close_issue", "Close an issue.", {"issue_id": {"type": "integer"}}, ["issue_id"]),
        bare_tool("count_open_issues", "Count the open issues in a repository.", {"repo": _STR}, ["repo"]),
    ]}
    world = tmp_path / "repo.json"
    world.write_text(json.dumps(repo), encoding="utf-8")
    async with stdio_session(str(world)) as session:
        before = _body(await session.call_tool("count_open_issues", {"repo": "acme/rocket"}))
        for repo_name, title in (("acme/rocket", "A"), ("acme/rocket", "B"), ("acme/other", "C")):
            await session.call_tool("create_issue", {"repo": repo_name, "title": title})
        await session.call_tool("close_issue", {"issue_id": 1})
        after = _body(await session.call_tool("count_open_issues", {"repo": "acme/rocket"}))
    assert before == {"count": 0} and after == {"count": 1}  # a number, never an invented listing
