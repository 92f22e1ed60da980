"""Role inference on real catalogs, steering by ``_meta``, and values that fit their schemas."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentworld_mcp import Simulator, WorldFileError, load_world
from agentworld_mcp.world.roles import infer_role
from agentworld_mcp.serve.transport import fetch_tools
from agentworld_mcp.world.values import generate

from . import thirdparty
from .scenarios import CATALOGS, WORLDS


def _catalog(name: str) -> list[dict]:
    return json.loads((CATALOGS / f"{name}.json").read_text())["tools"]


def _roles(tools: list[dict]) -> dict[str, tuple]:
    out = {}
    for tool in tools:
        role = infer_role(tool)
        out[tool["name"]] = (role.kind, role.collection, role.style, role.op, role.key_args, role.batch_arg)
    return out


MEMORY = {
    "create_entities": ("create", "entities", "graph", "create_entities", (), "entities"),
    "create_relations": ("create", "relations", "graph", "create_relations", (), "relations"),
    "add_observations": ("update", "entities", "graph", "add_observations", ("entityName",), "observations"),
    "delete_entities": ("delete", "entities", "graph", "delete_entities", (), "entityNames"),
    "delete_observations": ("update", "entities", "graph", "delete_observations", ("entityName",), "deletions"),
    "delete_relations": ("delete", "relations", "graph", "delete_relations", (), "relations"),
    "read_graph": ("list", "entities", "graph", "read_graph", (), None),
    "search_nodes": ("search", "entities", "graph", "search", (), None),
    "open_nodes": ("read", "entities", "graph", "open", (), "names"),
}
FILESYSTEM = {
    "read_file": ("read", "read"), "read_text_file": ("read", "read"), "read_media_file": ("read", "read_media"),
    "read_multiple_files": ("read", "read_many"), "write_file": ("create", "write"), "edit_file": ("update", "edit"),
    "create_directory": ("create", "mkdir"), "list_directory": ("list", "list_dir"),
    "list_directory_with_sizes": ("list", "list_dir_sizes"), "directory_tree": ("list", "tree"),
    "move_file": ("move", "move"), "search_files": ("search", "search"), "get_file_info": ("read", "info"),
    "list_allowed_directories": ("list", "allowed"),
}


def test_memory_server_catalog_is_a_graph_keyed_by_entity_name():
    assert _roles(_catalog("memory")) == MEMORY


def test_filesystem_server_catalog_is_a_file_store_keyed_by_path():
    roles = {t["name"]: infer_role(t) for t in _catalog("filesystem")}
    assert {n: (r.kind, r.op) for n, r in roles.items()} == FILESYSTEM
    assert {(r.style, r.collection, r.key_field) for r in roles.values()} == {("file", "files", "path")}
    assert roles["move_file"].key_args == ("source",)


async def test_everything_server_tools_are_stateless_actions_that_still_answer():
    """server-everything has no resources to keep: nothing there may create or delete, and every call answers."""
    tools = _catalog("everything")
    roles = {t["name"]: infer_role(t) for t in tools}
    assert not [n for n, r in roles.items() if r.kind in ("create", "delete", "move")]
    assert roles["echo"].kind == "action" and roles["get-sum"].kind == "action"
    sim = Simulator(load_world(CATALOGS / "everything.json"))
    for tool in tools:
        required = tool["inputSchema"].get("required") or []
        args = {k: generate(tool["inputSchema"]["properties"][k], random.Random(0), k) for k in required}
        result = await sim.call(tool["name"], args)
        assert not result.is_simulator_error, (tool["name"], result.text)
        if tool.get("outputSchema"):
            jsonschema.validate(result.structured, tool["outputSchema"])


@pytest.mark.parametrize("name, command, env", [
    ("memory", lambda tmp: thirdparty.memory_server(), thirdparty.memory_env),
    ("filesystem", lambda tmp: thirdparty.filesystem_server(tmp), lambda tmp: {}),
])
async def test_saved_catalogs_match_the_live_servers(name, command, env, tmp_path):
    """The catalogs under tests/catalogs are what the pinned npm servers list today (roles included)."""
    live = await fetch_tools(command=command(tmp_path), env=env(tmp_path))
    assert _roles(live) == _roles(_catalog(name))
    assert [t["name"] for t in live] == [t["name"] for t in _catalog(name)]


def test_issue_tracker_roles_know_keys_from_foreign_keys():
    world = load_world(WORLDS / "issue-tracker.yaml")
    roles = {t["name"]: infer_role(t) for t in world.tools}
    assert roles["get_issue"].key_args == ("issue_id",) and roles["get_issue"].collection == "issues"
    comment = roles["add_comment"]
    assert (comment.kind, comment.collection, comment.key_args, comment.foreign_keys) == (
        "create", "comments", (), ("issue_id",))  # issue_id points at the issue; the comment gets its own id
    assert roles["list_issues"].filters == ("status", "assignee")  # not per_page / cursor
    assert roles["list_issues"].count_fields == ("total",)
    assert roles["search_issues"].query_arg == "query"


def _tool(name: str, props: dict, output: dict | None = None, **extra) -> dict:
    tool = {"name": name, "inputSchema": {"type": "object", "properties": props}, **extra}
    if output is not None:
        tool["outputSchema"] = output
    return tool


@pytest.mark.parametrize("tool, expected", [
    (_tool("getIssue", {"issueId": {"type": "string"}}), ("read", "issues", ("issueId",))),
    (_tool("github_create_pull_request", {"title": {"type": "string"}}), ("create", "requests", ())),
    (_tool("list_comments", {"issue_id": {"type": "integer"}}), ("list", "comments", ())),
    (_tool("delete-ticket", {"id": {"type": "string"}}), ("delete", "tickets", ("id",))),
    (_tool("close_issue", {"issue_id": {"type": "integer"}}), ("update", "issues", ("issue_id",))),
    (_tool("simulate-research-query", {"topic": {"type": "string"}}), ("action", "researches", ())),
])
def test_record_roles_from_names_and_schemas(tool, expected):
    role = infer_role(tool)
    assert (role.kind, role.collection, role.key_args) == expected


def test_verbs_that_set_state_and_list_filters_by_foreign_key():
    close = infer_role(_tool("close_issue", {"issue_id": {"type": "integer"}}))
    assert close.sets == {"status": "closed"}
    comments = infer_role(_tool("list_comments", {"issue_id": {"type": "integer"}, "page": {"type": "integer"}}))
    assert comments.filters == ("issue_id",)


def test_meta_overrides_inference():
    tool = _tool("frobnicate", {"ref": {"type": "string"}, "title": {"type": "string"}},
                 _meta={"agentworld/role": {"kind": "update", "collection": "widgets", "key_args": ["ref"]}})
    role = infer_role(tool)
    assert (role.kind, role.collection, role.key_args) == ("update", "widgets", ("ref",))


@pytest.mark.parametrize("override, says", [
    ({"kind": "explode"}, "kind 'explode' is not one of"),
    ({"colection": "x"}, "unknown field(s) ['colection']"),
    ("update", "must be a mapping"),
])
def test_bad_overrides_say_what_is_wrong(override, says):
    with pytest.raises(WorldFileError, match="frobnicate") as info:
        infer_role(_tool("frobnicate", {}, _meta={"agentworld/role": override}))
    assert says in str(info.value)


# -- generated values validate against their schemas -----------------------------------------------

_FORMATS = ["date-time", "date", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"]
_PATTERNS = [r"^[A-Z]{3}-\d+$", r"^[a-z0-9]{8}$", r"^v\d{1,2}\.\d{1,2}$", r"^#[0-9a-f]{6}$"]
_scalars = st.one_of(
    st.builds(lambda f: {"type": "string", "format": f}, st.sampled_from(_FORMATS)),
    st.builds(lambda p: {"type": "string", "pattern": p}, st.sampled_from(_PATTERNS)),
    st.builds(lambda lo, n: {"type": "string", "minLength": lo, "maxLength": lo + n}, st.integers(0, 20), st.integers(0, 20)),
    st.builds(lambda e: {"enum": e}, st.lists(st.one_of(st.text(max_size=5), st.integers()), min_size=1, max_size=4)),
    st.builds(lambda lo, n: {"type": "integer", "minimum": lo, "maximum": lo + n}, st.integers(-1000, 1000), st.integers(0, 50)),
    st.builds(lambda lo, n: {"type": "number", "minimum": lo, "maximum": lo + n},
              st.integers(-1000, 1000), st.integers(0, 50)),
    st.builds(lambda lo: {"type": "integer", "exclusiveMinimum": lo}, st.integers(-50, 50)),
    st.just({"type": "boolean"}),
    st.just({"type": ["string", "null"]}),
)
_names = st.sampled_from(["id", "email", "created_at", "url", "name", "title", "status", "count", "path", "x"])
_schemas = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.builds(lambda items, lo, n: {"type": "array", "items": items, "minItems": lo, "maxItems": lo + n},
                  inner, st.integers(0, 3), st.integers(0, 3)),
        st.builds(lambda props: {"type": "object", "properties": props, "required": sorted(props)},
                  st.dictionaries(_names, inner, max_size=4)),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(schema=_schemas, seed=st.integers(0, 2**32), name=_names)
def test_generated_values_validate_against_their_schema(schema, seed, name):
    value = generate(schema, random.Random(seed), name)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(value)
    assert generate(schema, random.Random(seed), name) == value  # same generator state, same value

