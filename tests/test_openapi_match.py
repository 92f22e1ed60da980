"""Which operation of a spec each MCP tool wraps (``enrich --openapi``'s matching).

Each spec here is small and written inline, in one of three styles real services publish:
nested snake_case paths with a body wrapped in ``data``; versioned paths keyed by
``{droplet_id}``-like parameters that the MCP tools fill with a bare ``ID``; camelCase ids whose
MCP tools take one ``request`` object. The spec is imported as a user's spec file is, and the
catalog matched to it as ``agentworld-mcp enrich`` does (one test drives the command itself).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agentworld_mcp.sim2real.openapi_enrich import MIN_CONFIDENCE, match
from agentworld_mcp.sim2real.openapi_import import import_spec
from agentworld_mcp.world.world import load_world_data
from tests.conftest import CLI

JSONDict = dict[str, Any]
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def _op(op_id: str, summary: str, params: tuple[str, ...] = (), body: JSONDict | None = None,
        query: tuple[str, ...] = ()) -> JSONDict:
    op: JSONDict = {"operationId": op_id, "summary": summary, "responses": OK,
                    "parameters": [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                                   for p in params]
                    + [{"name": q, "in": "query", "required": True, "schema": {"type": "string"}} for q in query]}
    if body is not None:
        op["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return op


def _obj(**props: Any) -> JSONDict:
    return {"type": "object", "properties": {k: v if isinstance(v, dict) else {"type": "string"}
                                             for k, v in props.items()}}


def _tool(name: str, description: str, /, **props: Any) -> JSONDict:
    schema = _obj(**props)
    schema["required"] = list(props)
    return {"name": name, "description": description, "inputSchema": schema}


def _spec(paths: JSONDict) -> JSONDict:
    return {"openapi": "3.0.3", "info": {"title": "Mini", "version": "1"}, "paths": paths}


def _matched(tmp_path: Path, spec: JSONDict, tools: list[JSONDict]) -> dict[str, str | None]:
    """Each tool's matched ``METHOD /path`` (None: left as it is), as ``enrich --openapi`` matches."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    imported = import_spec(str(path)).data
    world = load_world_data({"tools": tools}, source="catalog.json")
    out: dict[str, str | None] = {}
    for m in match(world, imported["tools"]):
        where = (m.operation or {}).get("_meta", {}).get("agentworld/openapi")
        out[m.tool] = f"{where['method'].upper()} {where['path']}" if where else None
        assert m.operation is None or m.confidence >= MIN_CONFIDENCE
    return out


# -- nested snake_case paths, a body wrapped in ``data`` ------------------------------------------

NESTED = _spec({
    "/projects": {"post": _op("createProject", "Create a project",
                              body=_obj(data=_obj(name=1, workspace=1, team=1, notes=1)))},
    "/teams/{team_gid}/projects": {"post": _op("createProjectForTeam", "Create a project in a team",
                                               ("team_gid",), body=_obj(data=_obj(name=1, notes=1)))},
    "/tasks/{task_gid}": {"get": _op("getTask", "Get a task", ("task_gid",))},
    "/tasks/{task_gid}/stories": {"get": _op("getStoriesForTask", "Get stories from a task", ("task_gid",))},
    "/tasks/{task_gid}/tags": {"get": _op("getTagsForTask", "Get a task's tags", ("task_gid",))},
})
NESTED_TOOLS = [
    _tool("asana_create_project", "Create a new project in a workspace or team", workspace=1, name=1, team=1, notes=1),
    _tool("asana_get_task", "Get one task", task_id=1),
    _tool("asana_get_task_stories", "Get comments and stories for a task", task_id=1),
    _tool("asana_get_tags_for_task", "Get a task's tags", task_gid=1),
]


def test_a_create_whose_arguments_are_the_wrapped_body_matches_the_plain_collection_not_a_parents(
        tmp_path: Path) -> None:
    got = _matched(tmp_path, NESTED, NESTED_TOOLS)
    assert got["asana_create_project"] == "POST /projects", got


def test_the_noun_after_the_verb_picks_the_sub_collection_of_the_item_its_key_names(tmp_path: Path) -> None:
    got = _matched(tmp_path, NESTED, NESTED_TOOLS)
    assert got["asana_get_task_stories"] == "GET /tasks/{task_gid}/stories", got
    assert got["asana_get_tags_for_task"] == "GET /tasks/{task_gid}/tags", got
    assert got["asana_get_task"] == "GET /tasks/{task_gid}", got


# -- versioned paths keyed by {noun_id}, tools named noun-verb with a bare ID ----------------------

KEYED = _spec({
    "/v2/domains": {"post": _op("domains_create", "Create a new domain", body=_obj(name=1, ip_address=1))},
    "/v2/domains/{domain_name}": {"get": _op("domains_get", "Retrieve an existing domain", ("domain_name",))},
    "/v2/droplets": {"delete": _op("droplets_destroy_byTag", "Deleting droplets by tag", query=("tag_name",))},
    "/v2/droplets/{droplet_id}": {"delete": _op("droplets_destroy", "Delete an existing droplet", ("droplet_id",))},
    "/v2/load_balancers": {"post": _op("loadBalancers_create", "Create a new load balancer",
                                       body=_obj(name=1, region=1))},
    "/v2/load_balancers/{lb_id}": {"get": _op("loadBalancers_get", "Retrieve an existing load balancer", ("lb_id",))},
    "/v2/volumes": {"post": _op("volumes_create", "Create a new block storage volume",
                                body=_obj(name=1, region=1, size_gigabytes=1))},
    "/v2/volumes/{volume_id}/snapshots": {"post": _op("volumeSnapshots_create", "Create snapshot from a volume",
                                                      ("volume_id",), body=_obj(name=1, tags=1))},
})
KEYED_TOOLS = [
    _tool("domain-get", "Get domain information by name", Name=1),
    _tool("droplet-delete", "Delete a droplet", ID=1),
    _tool("lb-get", "Get a Load Balancer by ID", LoadBalancerID=1),
    _tool("volume-create", "Create a new block storage volume", Name=1, Region=1, SizeGigaBytes=1),
]


def test_a_bare_id_argument_fills_the_key_of_the_resource_the_tool_names(tmp_path: Path) -> None:
    got = _matched(tmp_path, KEYED, KEYED_TOOLS)
    assert got["domain-get"] == "GET /v2/domains/{domain_name}", got
    assert got["droplet-delete"] == "DELETE /v2/droplets/{droplet_id}", got  # not the delete-by-tag
    assert got["volume-create"] == "POST /v2/volumes", got  # its Name is the new volume's, not a parent's


def test_an_abbreviated_resource_matches_the_path_its_initials_spell(tmp_path: Path) -> None:
    got = _matched(tmp_path, KEYED, KEYED_TOOLS)
    assert got["lb-get"] == "GET /v2/load_balancers/{lb_id}", got


def test_a_read_is_never_matched_to_a_create_even_when_nothing_else_fits(tmp_path: Path) -> None:
    only_create = _spec({"/v2/domains": KEYED["paths"]["/v2/domains"]})
    got = _matched(tmp_path, only_create, [_tool("domain-get", "Get domain information by name", Name=1)])
    assert got["domain-get"] is None, got


# -- camelCase ids, a collection scoped by a parent's key, tools taking one request object ---------

SCOPED = _spec({
    "/flags/{projectKey}": {
        "get": _op("getFeatureFlags", "Get a list of all features in the given project", ("projectKey",)),
        "post": _op("postFeatureFlag", "Creates a new feature flag", ("projectKey",), body=_obj(name=1, key=1)),
    },
    "/flags/{projectKey}/{featureFlagKey}": {
        "get": _op("getFeatureFlag", "Get a single feature flag by key", ("projectKey", "featureFlagKey")),
        "delete": _op("deleteFeatureFlag", "Delete a feature flag", ("projectKey", "featureFlagKey")),
    },
})


def _requested(name: str, description: str, /, **props: Any) -> JSONDict:
    return {"name": name, "description": description, "inputSchema": {
        "type": "object", "properties": {"request": _obj(**props)}, "required": ["request"]}}


SCOPED_TOOLS = [
    _requested("list-feature-flags", "Retrieves all feature flags within a project", projectKey=1, limit=1),
    _requested("create-feature-flag", "Creates a new feature flag within a project", projectKey=1,
               FeatureFlagBody=_obj(name=1, key=1)),
    _requested("get-feature-flag", "Fetches one feature flag", projectKey=1, featureFlagKey=1),
    _requested("delete-feature-flag", "Deletes a feature flag", projectKey=1, featureFlagKey=1),
]


def test_arguments_inside_one_request_object_count_as_the_tools_arguments(tmp_path: Path) -> None:
    got = _matched(tmp_path, SCOPED, SCOPED_TOOLS)
    assert got["get-feature-flag"] == "GET /flags/{projectKey}/{featureFlagKey}", got
    assert got["delete-feature-flag"] == "DELETE /flags/{projectKey}/{featureFlagKey}", got


def test_a_path_ending_in_a_parents_key_is_that_parents_collection_to_list_and_create_in(tmp_path: Path) -> None:
    got = _matched(tmp_path, SCOPED, SCOPED_TOOLS)
    assert got["list-feature-flags"] == "GET /flags/{projectKey}", got
    assert got["create-feature-flag"] == "POST /flags/{projectKey}", got


def test_enrich_prints_the_request_object_tools_matches_in_its_usual_format(tmp_path: Path) -> None:
    spec, world, out = tmp_path / "flags.json", tmp_path / "catalog.json", tmp_path / "out.json"
    spec.write_text(json.dumps(SCOPED))
    world.write_text(json.dumps({"tools": SCOPED_TOOLS}))
    done = subprocess.run([*CLI, "enrich", str(world), "--openapi", str(spec), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[1]: line for line in done.stdout.splitlines() if line.startswith("  ") and "->" in line}
    assert "GET /flags/{projectKey}: wrote" in lines["list-feature-flags"], done.stdout
    assert "POST /flags/{projectKey}: wrote" in lines["create-feature-flag"], done.stdout
    assert 0.65 <= float(lines["get-feature-flag"].split()[0]) <= 1.0, done.stdout
    enriched = {t["name"]: t for t in json.loads(out.read_text())["tools"]}
    assert enriched["get-feature-flag"]["_meta"]["agentworld/openapi"]["operationId"] == "getFeatureFlag"
