"""A failing agent test shows what the agent did; trajectories are saved; agents run on a script.

Test files are run by pytest itself (pytester), as a user's suite is; the agent is a real
LangGraph graph (``ToolNode`` and ``tools_condition``) driven by ``ScriptedChatModel``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from .conftest import CLI, ROOT, WORLDS

pytest_plugins = ["pytester"]

TRACKER = (WORLDS / "issue-tracker.yaml").as_posix()

# A graph factory as a user writes one: the model decides, ToolNode runs the tools, until text.
MY_AGENT = """
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


def build_agent(tools, model):
    model = model.bind_tools(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(my_agent=MY_AGENT)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function",
                                        *args)


def test_the_readme_quickstart_runs_as_written(pytester: pytest.Pytester) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = re.search(r"```python\n(# tests/test_triage\.py\n.+?)```", readme, re.S)
    assert snippet, "README.md lost its LangGraph quickstart test"
    (pytester.path / "worlds").mkdir()
    shutil.copy(TRACKER, pytester.path / "worlds" / "issue-tracker.yaml")
    pytester.makepyfile(test_triage=snippet.group(1))
    run(pytester).assert_outcomes(passed=1)


def test_a_plain_assert_failure_lists_the_calls_per_episode(pytester: pytest.Pytester) -> None:
    # Not test_agent.py: examples/langgraph has one, and pytest keys modules by basename.
    pytester.makepyfile(test_scripted_triage=f"""
        import pytest
        from agentworld_mcp.integrations.langgraph import ScriptedChatModel
        from my_agent import build_agent

        @pytest.mark.agentworld(world={TRACKER!r}, perturb={{"kind": "rate_limit", "tools": "add_comment"}})
        def test_triage(agentworld):
            for thread, title in (("t1", "Crash"), ("t2", "Hang")):
                model = ScriptedChatModel([
                    {{"name": "create_issue", "args": {{"title": title}}}},
                    [{{"name": "get_issue", "args": {{"issue_id": 99}}}},
                     {{"name": "add_comment", "args": {{"issue_id": 4, "body": "seen"}}}}],
                    "Done.",
                ])
                build_agent(agentworld.tools, model).invoke(
                    {{"messages": [("user", title)]}}, {{"configurable": {{"thread_id": thread}}}})
            assert len(agentworld.state("t1")["issues"]) == 5   # wrong: the test fails here

        @pytest.mark.agentworld(world={TRACKER!r})
        def test_passing(agentworld):
            agentworld.call("list_issues")
    """)
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*- agentworld: calls made (call) -*",
        "episode 't1' (3 call(s)):",
        "  1. create_issue(title='Crash')",
        "  2. get_issue(issue_id=99) -> error: Issue not found: 99",
        "  3. add_comment(issue_id=4, body='seen') -> error: 429 Too Many Requests*injected: rate_limit]",
        "episode 't2' (3 call(s)):",
        "  4. create_issue(title='Hang')",
        "*",
    ])
    assert result.stdout.str().count("agentworld: calls made") == 1  # the passing test has none


def test_a_failure_before_any_call_says_none_were_made(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.agentworld(world={TRACKER!r})
        def test_early(agentworld):
            raise RuntimeError("the agent could not start")
    """)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- agentworld: calls made (call) -*", "No tool calls were made."])


def test_agentworld_save_writes_each_tests_trajectory_for_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_saved=f"""
        import pytest

        @pytest.mark.agentworld(world={TRACKER!r})
        @pytest.mark.parametrize("title", ["Crash", "Hang"])
        def test_file(agentworld, title):
            agentworld.call("create_issue", title=title, episode="e1")
            agentworld.call("update_issue", issue_id=1, status="closed", episode="e1")
            assert title == "Crash"

        def test_no_world():
            pass
    """)
    result = run(pytester, "--agentworld-save", "traces")
    result.assert_outcomes(passed=2, failed=1)
    saved = sorted(p.name for p in (pytester.path / "traces").iterdir())
    assert saved == ["test_saved.py_test_file_Crash.jsonl", "test_saved.py_test_file_Hang.jsonl"]  # failed or not
    lines = [json.loads(line) for line in (pytester.path / "traces" / saved[1]).read_text().splitlines()]
    assert [(line["episode"], line["turn"], line["tool"]) for line in lines] == [
        ("e1", 1, "create_issue"), ("e1", 2, "update_issue")]
    assert lines[0]["result"]["structuredContent"]["title"] == "Hang" and lines[0]["world"] == "issue-tracker"

    page = pytester.path / "report.html"
    made = subprocess.run([*CLI, "report", *(str(pytester.path / "traces" / n) for n in saved), "-o", str(page),
                           "--world", TRACKER], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    markup = page.read_text(encoding="utf-8")
    assert markup.count('class="change created" data-collection="issues" data-key="4"') == 2
    assert markup.count('class="change updated" data-collection="issues" data-key="1"') == 2


def test_the_script_is_checked_against_the_agent(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_script=f"""
        import pytest
        from agentworld_mcp.integrations.langgraph import ScriptedChatModel, ScriptError
        from my_agent import build_agent

        def ask(agentworld, turns):
            model = ScriptedChatModel(turns)
            build_agent(agentworld.tools, model).invoke({{"messages": [("user", "go")]}})
            return model

        @pytest.mark.agentworld(world={TRACKER!r})
        def test_a_callable_turn_reads_the_tool_answer(agentworld):
            model = ask(agentworld, [
                {{"name": "create_issue", "args": {{"title": "Crash"}}}},
                lambda messages: {{"name": "add_comment",
                                   "args": {{"issue_id": messages[-1].artifact["id"], "body": "first"}}}},
                "Done.",
            ])
            agentworld.assert_called_with("add_comment", issue_id=4, body="first")
            assert model.remaining == 0

        @pytest.mark.agentworld(world={TRACKER!r})
        def test_running_out_of_script(agentworld):
            with pytest.raises(ScriptError, match="asked the scripted model for turn 2, but the script has 1"):
                ask(agentworld, [{{"name": "list_issues", "args": {{}}}}])

        @pytest.mark.agentworld(world={TRACKER!r})
        def test_a_tool_the_agent_was_not_given(agentworld):
            with pytest.raises(ScriptError, match="calls 'drop_database', which the agent was not given"):
                ask(agentworld, [{{"name": "drop_database", "args": {{}}}}])
    """)
    run(pytester).assert_outcomes(passed=3)
