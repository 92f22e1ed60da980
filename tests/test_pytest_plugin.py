"""The pytest plugin, tested as users meet it: test files run by pytest itself (pytester)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import WORLDS, free_port
from .fake_openai import FakeOpenAI, json_reply

pytest_plugins = ["pytester"]

TRACKER = (WORLDS / "issue-tracker.yaml").as_posix()


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function",
                                        *args)


def test_the_plugin_is_registered_and_shows_its_settings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = run(pytester, "--agentworld-record-mode", "none", "--agentworld-cassette-dir", "recorded")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["agentworld: backend=per world file (default schema), record mode=none, "
                                 "cassette dir=recorded"])


def test_ini_settings_are_defaults_and_bad_values_are_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nagentworld_record_mode = new_episodes\nagentworld_cassette_dir = cas\n")
    pytester.makepyfile("def test_nothing(): pass")
    run(pytester).stdout.fnmatch_lines(["agentworld: *record mode=new_episodes, cassette dir=cas"])
    pytester.makeini("[pytest]\nagentworld_record_mode = sometimes\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*agentworld_record_mode = 'sometimes'; use one of once, new_episodes, none, all*"])


def test_marker_builds_a_stateful_world_and_records_calls(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.agentworld(world={TRACKER!r}, seed=3)
        def test_agent_flow(agentworld):
            create = agentworld.tool("create_issue")
            created = create.invoke({{"name": "create_issue", "args": {{"title": "Crash"}}, "id": "c1",
                                     "type": "tool_call"}})
            assert created.status == "success" and created.artifact["id"] == 4
            assert agentworld.tool("get_issue").invoke({{"issue_id": 4}}).startswith("{{")
            assert [i["id"] for i in agentworld.state()["issues"]] == [1, 2, 3, 4]
            agentworld.assert_called("create_issue", times=1)
            agentworld.assert_called_with("create_issue", title="Crash")
            agentworld.assert_not_called("delete_issue")
            agentworld.assert_call_order("create_issue", "get_issue")
            assert agentworld.call_names == ["create_issue", "get_issue"]
            assert agentworld.simulator.seed == 3

        def test_each_test_gets_a_fresh_world(agentworld):
            agentworld.use({TRACKER!r})
            assert agentworld.calls == []
            assert [i["id"] for i in agentworld.state()["issues"]] == [1, 2, 3]
    """)
    run(pytester, "-q").assert_outcomes(passed=2)


def test_module_marker_applies_and_the_closest_marker_wins(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        pytestmark = pytest.mark.agentworld(world={TRACKER!r}, seed=1)

        def test_module_level(agentworld):
            assert agentworld.simulator.seed == 1

        @pytest.mark.agentworld(seed=9)
        def test_override(agentworld):
            assert agentworld.simulator.seed == 9 and agentworld.world.name == "issue-tracker"
    """)
    run(pytester, "-q").assert_outcomes(passed=2)


def test_a_world_file_path_is_found_beside_the_test_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "worlds").mkdir()
    (pytester.path / "worlds" / "tracker.yaml").write_text((WORLDS / "issue-tracker.yaml").read_text())
    pytester.makepyfile(test_rel="""
        import pytest

        @pytest.mark.agentworld("worlds/tracker.yaml")
        def test_rel(agentworld):
            assert agentworld.call("get_issue", issue_id=1).structured["title"] == "Rocket fails to launch on Mondays"
    """)
    run(pytester, "-q").assert_outcomes(passed=1)


def test_an_unknown_world_file_fails_the_test_clearly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.agentworld(world="worlds/nope.yaml")
        def test_agent(agentworld):
            pass
    """)
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "*agentworld: invalid world file worlds/nope.yaml:*",
        "*world file not found (looked at */worlds/nope.yaml*, and among the bundled worlds)*",
        "Fix the path in @pytest.mark.agentworld(world=...) or agentworld.use(world=...), or name a bundled world.",
    ])
    assert "world.schema.json" not in result.stdout.str()  # the file is missing, not wrong: no advice on keys
    assert "Traceback" not in result.stdout.str()


def test_an_invalid_world_file_names_the_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", broken="tools:\n  - name: 7\n")
    pytester.makepyfile("""
        import pytest

        @pytest.mark.agentworld(world="broken.yaml")
        def test_agent(agentworld):
            pass
    """)
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["agentworld: invalid world file */broken.yaml:", "*broken.yaml:2: tools*"])


def test_using_the_fixture_without_a_world_says_how_to_give_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        def test_agent(agentworld):
            agentworld.tools
    """)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the agentworld fixture has no world: add @pytest.mark.agentworld(world=*"])


def test_failed_assertions_show_what_was_called_instead(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        pytestmark = pytest.mark.agentworld(world={TRACKER!r})

        def calls(agentworld):
            agentworld.call("list_issues", status="open")
            agentworld.call("update_issue", issue_id=99, status="closed")

        def test_called(agentworld):
            calls(agentworld)
            agentworld.assert_called("create_issue")

        def test_times(agentworld):
            calls(agentworld)
            agentworld.assert_called("list_issues", times=2)

        def test_not_called(agentworld):
            calls(agentworld)
            agentworld.assert_not_called("update_issue")

        def test_called_with(agentworld):
            calls(agentworld)
            agentworld.assert_called_with("update_issue", issue_id=1)

        def test_order(agentworld):
            calls(agentworld)
            agentworld.assert_call_order("update_issue", "list_issues")

        def test_unknown_tool(agentworld):
            agentworld.assert_called("launch_rocket")
    """)
    result = run(pytester)
    result.assert_outcomes(failed=6)
    made = ["*Calls made (2):", "*  1. list_issues(status='open')",
            "*  2. update_issue(issue_id=99, status='closed') -> error: *99*"]
    result.stdout.fnmatch_lines(["*AssertionError: expected create_issue to be called, but it was not called.", *made])
    result.stdout.fnmatch_lines(["*expected list_issues to be called 2 times, but it was called once.", *made])
    result.stdout.fnmatch_lines(["*expected update_issue not to be called, but it was called once:",
                                 "*  2. update_issue(issue_id=99, status='closed') -> error: *"])
    result.stdout.fnmatch_lines(["*expected a call update_issue(issue_id=1), but update_issue was called with:",
                                 "*  2. update_issue(issue_id=99, status='closed')*"])
    result.stdout.fnmatch_lines(["*expected calls in the order update_issue -> list_issues, but the calls were "
                                 "list_issues -> update_issue.", *made])
    result.stdout.fnmatch_lines(["*'launch_rocket' is not a tool of world 'issue-tracker'; its tools: create_issue, *"])


def test_existing_langchain_tools_get_identical_stand_ins(pytester: pytest.Pytester) -> None:
    """tools=[...] of the agent's own tools; the world file only adds seed state."""
    pytester.makefile(".yaml", notes_world="scenario: A notebook.\nseed:\n  notes:\n    - {id: n1, text: hello}\n")
    pytester.makepyfile("""
        import pytest
        from langchain_core.tools import tool
        from langchain_core.utils.function_calling import convert_to_openai_tool

        @tool
        def get_note(id: str) -> dict:
            '''Get a note by id.'''
            raise RuntimeError("the real notebook is not reachable from tests")

        @tool
        def delete_note(id: str) -> dict:
            '''Delete a note.'''
            raise RuntimeError("the real notebook is not reachable from tests")

        @pytest.mark.agentworld(world="notes_world.yaml", tools=[get_note, delete_note])
        def test_stand_ins(agentworld):
            for real, fake in zip([get_note, delete_note], agentworld.tools):
                assert convert_to_openai_tool(fake) == convert_to_openai_tool(real)
            assert agentworld.world.scenario == "A notebook."
            assert "hello" in agentworld.tool("get_note").invoke({"id": "n1"})
            agentworld.tool("delete_note").invoke({"id": "n1"})
            assert agentworld.state().get("notes", []) == []
            agentworld.assert_call_order("get_note", "delete_note")
    """)
    run(pytester, "-q").assert_outcomes(passed=1)


def test_mcp_tool_dicts_and_the_toolnode_wrapper(pytester: pytest.Pytester) -> None:
    tools = [{"name": "add_task", "description": "Add a task.",
              "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}]
    pytester.makepyfile(f"""
        import pytest
        from langchain_core.messages import AIMessage
        from langgraph.graph import START, MessagesState, StateGraph
        from langgraph.prebuilt import ToolNode

        def run_tools(node, call, thread):
            graph = StateGraph(MessagesState)
            graph.add_node("tools", node)
            graph.add_edge(START, "tools")
            out = graph.compile().invoke({{"messages": [AIMessage("", tool_calls=[call])]}},
                                         {{"configurable": {{"thread_id": thread}}}})
            return out["messages"][-1]

        def real_add_task(title: str) -> str:
            "Add a task."
            return "the real tool ran"

        @pytest.mark.agentworld(tools={tools!r})
        def test_wrapper(agentworld):
            call = {{"name": "real_add_task", "args": {{"title": "x"}}, "id": "1", "type": "tool_call"}}
            wrapped = ToolNode([real_add_task], wrap_tool_call=agentworld.tool_call_wrapper())
            assert run_tools(wrapped, call, "t0").content == "the real tool ran"  # not in the world: real
            simulated = run_tools(ToolNode([agentworld.tool("add_task")]), {{**call, "name": "add_task"}}, "t1")
            assert simulated.status == "success"
            agentworld.assert_called_with("add_task", title="x")
            assert agentworld.calls[0].episode == "t1"
            assert agentworld.state("t1")
    """)
    run(pytester, "-q").assert_outcomes(passed=1)


def _llm_test_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.agentworld(world={TRACKER!r}, backend="llm")
        def test_llm_world(agentworld):
            result = agentworld.call("create_issue", title="Crash on start", priority="high")
            assert result.structured["id"] == 4, result.text
            agentworld.assert_called("create_issue", times=1)
    """)


ISSUE = {"id": 4, "title": "Crash on start", "status": "open", "priority": "high",
         "created_at": "2026-03-05T10:00:00Z", "url": "https://tracker.acme.test/rocket/issues/4"}


def test_cassettes_record_once_then_replay_with_no_model(pytester: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _llm_test_file(pytester)
    monkeypatch.setenv("AGENTWORLD_MODEL", "fake-world-model")
    with FakeOpenAI(default=json_reply(ISSUE)) as server:
        monkeypatch.setenv("AGENTWORLD_BASE_URL", server.url)
        run(pytester, "-q", "--agentworld-cassette-dir", "cassettes").assert_outcomes(passed=1)
        assert len(server.requests) == 1
    cassette = pytester.path / "cassettes" / "test_cassettes_record_once_then_replay_with_no_model" / "test_llm_world.yaml"
    assert cassette.is_file()

    monkeypatch.setenv("AGENTWORLD_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")  # nothing listens there
    result = run(pytester, "-q", "--agentworld-record-mode", "none", "--agentworld-cassette-dir", "cassettes")
    result.assert_outcomes(passed=1)


def test_a_cassette_miss_in_replay_mode_fails_the_test_clearly(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _llm_test_file(pytester)
    monkeypatch.setenv("AGENTWORLD_MODEL", "fake-world-model")
    monkeypatch.setenv("AGENTWORLD_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    result = run(pytester, "--agentworld-record-mode", "none", "--agentworld-cassette-dir", "cassettes")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentworld: cassette */test_llm_world.yaml does not exist and record mode is "
                                 "'none' (replay only)*"])


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    """The plugin loads into every pytest run where agentworld-mcp is installed: it must cost nothing."""
    heavy = ('langchain_core', 'langgraph', 'openai', 'mcp', 'pydantic', 'jsonschema', 'yaml', 'agentworld_mcp.pipeline.engine')
    code = (f"import sys, agentworld_mcp.integrations.pytest_plugin; print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == []


def test_marker_perturbations_reach_every_call(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.agentworld(world={TRACKER!r}, perturb={{"kind": "timeout", "tools": "create_*", "calls": [1]}})
        def test_first_create_times_out(agentworld):
            first = agentworld.tool("create_issue").invoke(
                {{"name": "create_issue", "args": {{"title": "x"}}, "id": "1", "type": "tool_call"}})
            assert first.status == "error" and "Timeout" in first.content
            assert not agentworld.call("create_issue", title="y").is_error
            assert agentworld.calls[0].result.is_error
    """)
    run(pytester, "-q").assert_outcomes(passed=1)
