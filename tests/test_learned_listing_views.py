"""A learned world lists what is past due, keeps a recorded shape to the format it was recorded with, and
shows a read's children as the recording summarised them (issue 22).

A job board records one session: ``late_jobs`` ("List overdue jobs.") listed the one open job whose due date
lay before the server's clock; ``export_jobs`` was only called with ``format="table"`` (rows of text);
``show_job`` listed a split job's children as ``{id, title, status}``. Learned with the ``agentworld-mcp
learn`` CLI (no seed), served over stdio and driven by a real MCP client with jobs the recording never saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import json_answer, learn_cli, stdio_session

JSONDict = dict[str, Any]
NOW = "2026-05-10T08:00:00+00:00"
KEY = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
CATALOG: JSONDict = {"name": "jobs", "tools": [
    {"name": "add_job", "description": "Add a job.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "due": {"type": "string"}},
                     "required": ["title"]}},
    {"name": "list_jobs", "description": "List jobs.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "late_jobs", "description": "List overdue jobs (open, past their due date).",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "finish_job", "description": "Mark a job finished.", "inputSchema": KEY},
    {"name": "show_job", "description": "Show one job and its subjobs.", "inputSchema": KEY},
    {"name": "split_job", "description": "Split a job into subjobs.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"},
                                                      "into": {"type": "array", "items": {"type": "string"}}},
                     "required": ["id", "into"]}},
    {"name": "export_jobs", "description": "Export every job. format: \"json\" (default) or \"table\".",
     "inputSchema": {"type": "object", "properties": {"format": {"type": "string", "default": "json"}}}},
]}


def job(number: int, title: str, due: str | None, status: str = "open", parent: int | None = None) -> JSONDict:
    return {"id": number, "title": title, "status": status, "due": due, "created_at": NOW,
            "finished_at": NOW if status == "finished" else None, "parent_id": parent}


def line(turn: int, tool: str, arguments: JSONDict, answer: JSONDict) -> str:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments, "result": result})


def recording(path: Path) -> Path:
    late, soon, whenever = job(1, "File the tax return", "2026-05-01"), job(2, "Paint the fence", "2026-06-01"), \
        job(3, "Sort the shed", None)
    kids = [job(4, "Buy paint", None, parent=2), job(5, "Sand the boards", None, parent=2)]
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("add_job", {"title": late["title"], "due": late["due"]}, {"ok": True, "job": late}),
        ("add_job", {"title": soon["title"], "due": soon["due"]}, {"ok": True, "job": soon}),
        ("add_job", {"title": whenever["title"]}, {"ok": True, "job": whenever}),
        ("late_jobs", {}, {"ok": True, "jobs": [late], "count": 1}),
        ("split_job", {"id": 2, "into": ["Buy paint", "Sand the boards"]},
         {"ok": True, "parent": soon, "subjobs": kids}),
        ("show_job", {"id": 2}, {"ok": True, "job": soon, "subjobs": [
            {"id": k["id"], "title": k["title"], "status": k["status"]} for k in kids]}),
        ("show_job", {"id": 1}, {"ok": True, "job": late, "subjobs": []}),
        ("finish_job", {"id": 1}, {"ok": True, "job": job(1, late["title"], late["due"], "finished")}),
        ("late_jobs", {}, {"ok": True, "jobs": [], "count": 0}),
        ("list_jobs", {}, {"ok": True, "jobs": [soon, whenever, *kids], "count": 4}),
        ("export_jobs", {"format": "table"}, {"ok": True, "rows": ["[ ] 2 Paint the fence", "[ ] 3 Sort the shed"],
                                              "count": 2}),
    ]
    lines = [line(turn, tool, arguments, answer) for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def test_a_past_due_listing_shows_only_open_jobs_due_before_the_recorded_clock(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        old = json_answer(await session.call_tool("add_job", {"title": "Renew the passport", "due": "2026-04-02"}))
        await session.call_tool("add_job", {"title": "Book the dentist", "due": "2026-09-09"})
        await session.call_tool("add_job", {"title": "Call the plumber"})
        before = json_answer(await session.call_tool("late_jobs", {}))
        await session.call_tool("finish_job", {"id": old["job"]["id"]})
        after = json_answer(await session.call_tool("late_jobs", {}))
    assert [j["title"] for j in before["jobs"]] == ["Renew the passport"]
    assert before["count"] == 1
    assert after["jobs"] == [] and after["count"] == 0


async def test_an_export_in_a_format_never_recorded_is_not_answered_in_the_recorded_rows(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        await session.call_tool("add_job", {"title": "Renew the passport", "due": "2026-04-02"})
        table = json_answer(await session.call_tool("export_jobs", {"format": "table"}))
        default = await session.call_tool("export_jobs", {})
    assert isinstance(table.get("rows"), list)
    text = default.content[0].text
    assert "rows" not in (json.loads(text) if text.lstrip().startswith("{") else {})
    assert "Paint the fence" not in text and "Sort the shed" not in text


async def test_a_read_lists_a_split_jobs_children_with_only_the_fields_the_recording_showed(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        made = json_answer(await session.call_tool("add_job", {"title": "Plan the party", "due": "2026-07-01"}))
        number = made["job"]["id"]
        await session.call_tool("split_job", {"id": number, "into": ["Send invitations", "Order the cake"]})
        shown = json_answer(await session.call_tool("show_job", {"id": number}))
    assert [sorted(k) for k in shown["subjobs"]] == [["id", "status", "title"]] * 2
    assert [k["title"] for k in shown["subjobs"]] == ["Send invitations", "Order the cake"]
