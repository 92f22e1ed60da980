"""Realistic answers from the built-in model, through a real MCP client over stdio.

Most real MCP servers declare no outputSchema: their answer is a text block, usually the
service's JSON. These episodes drive create -> read -> update -> list -> delete through
catalogs shaped like real ones (a GitHub-like tracker scoped by repository, a task
manager, a key-value store, a consolidated ``method:`` tool, a payments API) and check
what a client relies on: ids, numbers, urls, states, read-back, scoping and deletion.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import stdio_session
from .test_entity_model import CONSOLIDATED, KV, PAYMENTS, TRACKER, S, tool

TASKS = [
    tool("add_task", {"content": S, "project_id": S, "labels": {"type": "array", "items": S}}, ("content",),
         "Create a task."),
    tool("get_task", {"task_id": S}, ("task_id",), "Get a task."),
    tool("get_tasks", {"project_id": S, "query": S}, (), "Get active tasks."),
    tool("update_task", {"task_id": S, "content": S, "priority": {"type": "integer"}, "due_string": S},
         ("task_id",), "Update a task."),
    tool("complete_task", {"task_id": S}, ("task_id",), "Mark a task as completed."),
    tool("delete_task", {"task_id": S}, ("task_id",), "Delete a task."),
    tool("ping", {}, (), "Check the connection."),
]


def _world(tmp_path: Path, tools: list[dict], name: str = "world") -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "tools": tools}))
    return str(path)


def _json(result) -> object:
    assert not result.isError, result.content[0].text
    assert result.structuredContent is None  # no outputSchema: the answer is the text, as the service prints it
    return json.loads(result.content[0].text)


async def test_issues_are_numbered_per_repository_with_urls_and_states(tmp_path):
    async with stdio_session(_world(tmp_path, TRACKER, "tracker")) as session:
        call = session.call_tool
        first = _json(await call("create_issue", {"owner": "acme", "repo": "rocket", "title": "Crash on start"}))
        assert (first["number"], first["state"], first["title"]) == (1, "open", "Crash on start")
        assert first["html_url"] == "https://github.com/acme/rocket/issues/1" and first["created_at"]
        other = _json(await call("create_issue", {"owner": "acme", "repo": "webapp", "title": "Typo"}))
        assert other["number"] == 1 and other["html_url"].endswith("/acme/webapp/issues/1")
        second = _json(await call("create_issue", {"owner": "acme", "repo": "rocket", "title": "Slow"}))
        assert second["number"] == 2

        read = _json(await call("get_issue", {"owner": "acme", "repo": "rocket", "issue_number": 1}))
        assert read == first
        webapp = _json(await call("get_issue", {"owner": "acme", "repo": "webapp", "issue_number": 1}))
        assert webapp["title"] == "Typo"  # the same number in another repository is another issue

        updated = _json(await call("update_issue", {"owner": "acme", "repo": "rocket", "issue_number": 1,
                                                    "title": "Crash on cold start", "state": "closed"}))
        assert (updated["title"], updated["state"], updated["number"]) == ("Crash on cold start", "closed", 1)
        assert _json(await call("get_issue", {"owner": "acme", "repo": "rocket", "issue_number": 1})) == updated

        listed = _json(await call("list_issues", {"owner": "acme", "repo": "rocket"}))
        assert [i["number"] for i in listed] == [2]  # open by default; the closed one is left out
        every = _json(await call("list_issues", {"owner": "acme", "repo": "rocket", "state": "all"}))
        assert [i["number"] for i in every] == [1, 2]
        closed = _json(await call("list_issues", {"owner": "acme", "repo": "rocket", "state": "closed"}))
        assert [i["title"] for i in closed] == ["Crash on cold start"]

        missing = await call("get_issue", {"owner": "acme", "repo": "rocket", "issue_number": 7})
        assert missing.isError and "7" in missing.content[0].text and "not found" in missing.content[0].text


async def test_tasks_without_output_schema_answer_with_the_task(tmp_path):
    async with stdio_session(_world(tmp_path, TASKS, "tasks")) as session:
        call = session.call_tool
        milk = _json(await call("add_task", {"content": "Buy milk", "project_id": "home", "labels": ["errand"]}))
        # ``get_task(task_id)`` names the task; the task itself says ``id``, as REST services do
        assert milk["id"] and milk["content"] == "Buy milk" and milk["created_at"]
        walk = _json(await call("add_task", {"content": "Walk the dog", "project_id": "home"}))
        assert walk["id"] != milk["id"]
        assert _json(await call("get_task", {"task_id": milk["id"]})) == milk

        changed = _json(await call("update_task", {"task_id": walk["id"], "content": "Walk the dogs",
                                                   "priority": 4, "due_string": "tomorrow"}))
        assert (changed["content"], changed["priority"], changed["due_string"]) == ("Walk the dogs", 4, "tomorrow")
        assert _json(await call("get_task", {"task_id": walk["id"]})) == changed

        found = _json(await call("get_tasks", {"query": "milk"}))
        assert [t["id"] for t in found] == [milk["id"]]  # free text over the fields
        done = _json(await call("complete_task", {"task_id": milk["id"]}))
        assert done["status"] == "completed"
        active = _json(await call("get_tasks", {"project_id": "home"}))
        assert [t["id"] for t in active] == [walk["id"]]  # a completed task leaves the active list

        gone = _json(await call("delete_task", {"task_id": walk["id"]}))
        assert gone["id"] == walk["id"] and gone["content"] == "Walk the dogs"  # the deleted task itself
        after = await call("get_task", {"task_id": walk["id"]})
        assert after.isError and walk["id"] in after.content[0].text

        ping = await call("ping", {})
        assert not ping.isError and ping.content[0].text == "ping completed successfully."  # really returns nothing


async def test_tools_named_after_verbs_share_one_store(tmp_path):
    async with stdio_session(_world(tmp_path, KV, "kv")) as session:
        saved = _json(await session.call_tool("save", {"key": "greeting", "value": "hello"}))
        assert (saved["key"], saved["value"]) == ("greeting", "hello")
        assert _json(await session.call_tool("get", {"key": "greeting"}))["value"] == "hello"
        deleted = _json(await session.call_tool("batch_delete", {"keys": ["greeting"]}))
        assert [d["key"] for d in deleted] == ["greeting"]
        assert (await session.call_tool("get", {"key": "greeting"})).isError


async def test_a_consolidated_tool_creates_reads_updates_and_deletes_by_its_method(tmp_path):
    async with stdio_session(_world(tmp_path, CONSOLIDATED, "consolidated")) as session:
        call = session.call_tool
        created = _json(await call("manage_issue", {"method": "create", "title": "Crash"}))
        assert created["identifier"] == "ENG-1" and "method" not in created
        by_id = _json(await call("manage_issue", {"method": "get", "issue_id": created["id"]}))
        by_identifier = _json(await call("manage_issue", {"method": "get", "issue_id": "ENG-1"}))
        assert by_id == by_identifier == created
        updated = _json(await call("manage_issue", {"method": "update", "issue_id": created["id"],
                                                    "title": "Crash on start"}))
        assert updated["title"] == "Crash on start"
        assert [i["title"] for i in _json(await call("manage_issue", {"method": "list"}))] == ["Crash on start"]
        await call("manage_issue", {"method": "delete", "issue_id": created["id"]})
        assert (await call("manage_issue", {"method": "get", "issue_id": created["id"]})).isError
        assert _json(await call("manage_issue", {"method": "list"})) == []


async def test_ids_follow_the_services_prefixes_and_lifecycles(tmp_path):
    async with stdio_session(_world(tmp_path, PAYMENTS, "payments")) as session:
        call = session.call_tool
        customer = _json(await call("create_customer", {"email": "ada@example.com", "name": "Ada"}))
        assert customer["id"].startswith("cus_")
        assert _json(await call("retrieve_customer", {"customer": customer["id"]})) == customer
        invoice = _json(await call("create_invoice", {"customer": customer["id"]}))
        assert invoice["id"].startswith("in_") and invoice["status"] == "draft"
        finalized = _json(await call("finalize_invoice", {"invoice": invoice["id"]}))
        assert finalized["status"] == "open" and finalized["id"] == invoice["id"]


REDIS_LIKE = [
    tool("set", {"key": S, "value": S}, ("key", "value"), "Set a string value with an optional expiry."),
    tool("get", {"key": S}, ("key",), "Get the value of a key."),
    tool("delete", {"key": S}, ("key",), "Delete a key."),
    tool("list", {"pattern": S}, (), "List keys matching a pattern."),
]
CALENDAR = [
    tool("create-event", {"calendarId": S, "summary": S, "start": S, "end": S}, ("calendarId", "summary", "start"),
         "Create a calendar event."),
    tool("get-event", {"calendarId": S, "eventId": S}, ("calendarId", "eventId"), "Get an event."),
    tool("list-events", {"calendarId": S, "timeMin": S, "timeMax": S}, ("calendarId",), "List events in a range."),
]
OBJECT_TASKS = [
    tool("add-tasks", {"tasks": {"type": "array", "items": {"type": "object", "properties": {"content": S}}}},
         ("tasks",), "Add tasks."),
    tool("update-tasks", {"tasks": {"type": "array", "items": {"type": "object", "properties": {
        "id": S, "content": S}}}}, ("tasks",), "Update tasks."),
    tool("complete-tasks", {"ids": {"type": "array", "items": S}}, ("ids",), "Complete tasks by their IDs."),
    tool("find-tasks", {"searchText": S}, (), "Find tasks by text."),
    tool("fetch-object", {"type": {"type": "string", "enum": ["task", "project"]}, "id": S}, ("type", "id"),
         "Fetch a task or project by its ID."),
]


async def test_a_store_without_a_create_is_written_by_set_and_listed_by_pattern(tmp_path):
    async with stdio_session(_world(tmp_path, REDIS_LIKE, "store")) as session:
        call = session.call_tool
        assert _json(await call("set", {"key": "session:42", "value": "alice"}))["value"] == "alice"
        await call("set", {"key": "session:43", "value": "bob"})
        await call("set", {"key": "config", "value": "x"})
        assert _json(await call("set", {"key": "session:42", "value": "carol"}))["value"] == "carol"
        assert _json(await call("get", {"key": "session:42"}))["value"] == "carol"
        listed = _json(await call("list", {"pattern": "session:*"}))
        assert sorted(i["key"] for i in listed) == ["session:42", "session:43"]  # a glob, not equality
        await call("delete", {"key": "session:42"})
        assert [i["key"] for i in _json(await call("list", {"pattern": "session:*"}))] == ["session:43"]


async def test_list_time_bounds_select_by_the_items_date(tmp_path):
    async with stdio_session(_world(tmp_path, CALENDAR, "calendar")) as session:
        call = session.call_tool
        event = _json(await call("create-event", {"calendarId": "primary", "summary": "Launch review",
                                                  "start": "2026-04-02T10:00:00Z", "end": "2026-04-02T11:00:00Z"}))
        assert _json(await call("get-event", {"calendarId": "primary", "eventId": event["id"]})) == event
        same_day = _json(await call("list-events", {"calendarId": "primary", "timeMin": "2026-04-02T00:00:00Z",
                                                    "timeMax": "2026-04-03T00:00:00Z"}))
        other_day = _json(await call("list-events", {"calendarId": "primary", "timeMin": "2026-04-05T00:00:00Z",
                                                     "timeMax": "2026-04-06T00:00:00Z"}))
        assert [e["id"] for e in same_day] == [event["id"]] and other_day == []


async def test_batch_updates_and_a_type_argument_reach_the_entities(tmp_path):
    async with stdio_session(_world(tmp_path, OBJECT_TASKS, "object-tasks")) as session:
        call = session.call_tool
        added = _json(await call("add-tasks", {"tasks": [{"content": "Buy milk"}, {"content": "Walk the dog"}]}))
        milk, walk = (t["id"] for t in added)
        updated = _json(await call("update-tasks", {"tasks": [{"id": milk, "content": "Buy oat milk"}]}))
        assert [(t["id"], t["content"]) for t in updated] == [(milk, "Buy oat milk")]
        fetched = _json(await call("fetch-object", {"type": "task", "id": milk}))  # ``type`` picks the collection
        assert fetched["content"] == "Buy oat milk"
        assert [t["id"] for t in _json(await call("find-tasks", {"searchText": "milk"}))] == [milk]
        await call("complete-tasks", {"ids": [milk]})
        assert [t["id"] for t in _json(await call("find-tasks", {}))] == [walk]  # completed: not active


async def test_a_list_filter_given_as_an_array_keeps_items_holding_every_value(tmp_path):
    labels = {"type": "array", "items": S}
    tracker = [{**t, "inputSchema": {**t["inputSchema"], "properties": {**t["inputSchema"]["properties"],
                                                                         "labels": labels}}}
               if t["name"] in ("create_issue", "list_issues") else t for t in TRACKER]
    async with stdio_session(_world(tmp_path, tracker, "labels")) as session:
        call = session.call_tool
        bug = _json(await call("create_issue", {"owner": "acme", "repo": "rocket", "title": "Stall", "labels": ["bug"]}))
        await call("create_issue", {"owner": "acme", "repo": "rocket", "title": "Docs", "labels": ["docs"]})
        found = _json(await call("list_issues", {"owner": "acme", "repo": "rocket", "labels": ["bug"]}))
        assert [i["number"] for i in found] == [bug["number"]]
