"""A learned world refuses an argument's value as the recording did, never the tool as a whole (issue 22).

A job server records one session: ``set_urgency`` takes ``low`` and ``high`` and refuses ``asap`` with
``'asap' isn't an urgency (low, normal, or high)``; ``rate_effort`` takes 2, 3, 4 and refuses 12 with
``Effort must be between 1 and 8, got 12``. Learned with the ``agentworld-mcp learn`` CLI (no seed), served
by ``agentworld-mcp serve`` and driven by a real MCP client over stdio: a value the refusal's words list but
the session never passed is taken, a new word outside them is refused in the server's wording with the new
value in it, and a number is refused only outside the range the refusal states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import learn_cli, stdio_session

JSONDict = dict[str, Any]


def _args(**props: str) -> JSONDict:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}, "required": list(props)}


CATALOG: JSONDict = {"name": "jobs", "tools": [
    {"name": "create_job", "description": "Create a job.", "inputSchema": _args(title="string")},
    {"name": "get_job", "description": "Get a job by its id.", "inputSchema": _args(job_id="integer")},
    {"name": "set_urgency", "description": "Change a job's urgency.",
     "inputSchema": _args(job_id="integer", urgency="string")},
    {"name": "rate_effort", "description": "Rate the effort a job takes.",
     "inputSchema": _args(job_id="integer", effort="integer")},
]}
TITLES = ["Fix the fence", "Paint the shed", "Clear the gutters"]


def job(number: int, urgency: str = "low", effort: int = 1) -> JSONDict:
    return {"id": number, "title": TITLES[number - 1], "urgency": urgency, "effort": effort}


def refused(message: str) -> JSONDict:
    return {"ok": False, "error": message}


def recording(path: Path) -> Path:
    calls: list[tuple[str, JSONDict, JSONDict]] = [
        ("create_job", {"title": t}, {"ok": True, "job": job(n)}) for n, t in enumerate(TITLES, 1)]
    calls += [
        ("set_urgency", {"job_id": 1, "urgency": "high"}, {"ok": True, "job": job(1, "high")}),
        ("get_job", {"job_id": 1}, {"ok": True, "job": job(1, "high")}),
        ("set_urgency", {"job_id": 2, "urgency": "low"}, {"ok": True, "job": job(2, "low")}),
        ("set_urgency", {"job_id": 3, "urgency": "asap"}, refused("'asap' isn't an urgency (low, normal, or high)")),
        ("rate_effort", {"job_id": 1, "effort": 3}, {"ok": True, "job": job(1, "high", 3)}),
        ("rate_effort", {"job_id": 2, "effort": 2}, {"ok": True, "job": job(2, "low", 2)}),
        ("rate_effort", {"job_id": 3, "effort": 4}, {"ok": True, "job": job(3, "low", 4)}),
        ("rate_effort", {"job_id": 3, "effort": 12}, refused("Effort must be between 1 and 8, got 12")),
    ]
    lines = [json.dumps({"episode": "train", "turn": turn, "tool": tool, "arguments": arguments,
                         "result": {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}})
             for turn, (tool, arguments, answer) in enumerate(calls, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def learned(tmp_path: Path) -> Path:
    return learn_cli(recording(tmp_path / "train.jsonl"), CATALOG, tmp_path / "learned.json", "--no-seed")


async def answer(session: Any, tool: str, arguments: JSONDict) -> JSONDict:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    found = json.loads(result.content[0].text)
    assert isinstance(found, dict)
    return found


async def new_job(session: Any, title: str) -> int:
    made = await answer(session, "create_job", {"title": title})
    return int(made["job"]["id"])


async def test_a_value_the_refusal_lists_but_the_session_never_passed_is_taken(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        number = await new_job(session, "Mend the gate")
        taken = await answer(session, "set_urgency", {"job_id": number, "urgency": "normal"})
        assert taken.get("ok") is not False, taken
        assert taken["job"]["urgency"] == "normal"


async def test_the_job_whose_value_was_refused_takes_a_valid_value(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        for title in TITLES:
            await new_job(session, title)
        taken = await answer(session, "set_urgency", {"job_id": 3, "urgency": "high"})
        assert taken.get("ok") is not False, taken


async def test_a_new_word_outside_the_vocabulary_is_refused_in_the_servers_words_with_its_own_value(
        tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        number = await new_job(session, "Mend the gate")
        refusal = await answer(session, "set_urgency", {"job_id": number, "urgency": "whenever"})
        assert refusal == refused("'whenever' isn't an urgency (low, normal, or high)")


async def test_a_number_outside_the_stated_range_is_refused_and_one_inside_it_is_taken(tmp_path: Path) -> None:
    async with stdio_session(str(learned(tmp_path))) as session:
        number = await new_job(session, "Mend the gate")
        refusal = await answer(session, "rate_effort", {"job_id": number, "effort": 9})
        assert refusal == refused("Effort must be between 1 and 8, got 9")
        too_low = await answer(session, "rate_effort", {"job_id": number, "effort": 0})
        assert too_low == refused("Effort must be between 1 and 8, got 0")
        taken = await answer(session, "rate_effort", {"job_id": number, "effort": 7})
        assert taken.get("ok") is not False, taken


LABELS: JSONDict = {"name": "labels", "tools": [
    {"name": "read_label", "description": "Read the text printed on a shelf label.",
     "inputSchema": {"type": "object", "required": ["code"], "properties": {
         "code": {"type": "string", "description": "Label code, e.g. 'AB1' or 'CD2'"}}}}]}


async def test_examples_in_a_description_are_no_vocabulary_a_new_code_of_the_accepted_form_is_read(
        tmp_path: Path) -> None:
    calls = [({"code": "AB1"}, "Flour"), ({"code": "CD2"}, "Sugar"), ({"code": "EF7"}, "Rice"),
             ({"code": "7EF"}, None)]
    lines = [json.dumps({"episode": "train", "turn": turn, "tool": "read_label", "arguments": arguments,
                         "result": {"content": [{"type": "text", "text": text or f"Invalid label code: '{arguments['code']}'"}],
                                    "isError": text is None}})
             for turn, (arguments, text) in enumerate(calls, 1)]
    (tmp_path / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    world = learn_cli(tmp_path / "train.jsonl", LABELS, tmp_path / "learned.json", "--no-seed")
    async with stdio_session(str(world)) as session:
        fresh = await session.call_tool("read_label", {"code": "GH4"})
        again = await session.call_tool("read_label", {"code": "7EF"})
    assert not fresh.isError, fresh.content  # 'AB1' and 'CD2' are examples, not the only codes there are
    assert again.isError and again.content[0].text == "Invalid label code: '7EF'"
