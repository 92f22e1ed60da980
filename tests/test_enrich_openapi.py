"""``agentworld-mcp enrich WORLD --openapi SPEC``: a catalog's tools matched to a spec's operations.

Driven as a user drives it: the command in a subprocess, then the enriched world served to a
real MCP client over stdio. The spec and the catalog are small files written here, for a
service no profile knows (so what the answers show comes from the spec alone).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import CLI, stdio_session

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Widgetry", "version": "1"},
    "paths": {
        "/v1/widgets": {
            "post": {"operationId": "PostWidgets", "summary": "Create a widget",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "properties": {"name": {"type": "string"}}}}}},
                     "responses": {"200": {"description": "ok", "content": {"application/json": {
                         "schema": {"$ref": "#/components/schemas/Widget"}}}}}},
            "get": {"operationId": "GetWidgets", "summary": "List widgets",
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                        "type": "object", "properties": {"data": {"type": "array", "items": {
                            "$ref": "#/components/schemas/Widget"}}}}}}}}},
        },
        "/v1/widgets/{widget}": {
            "get": {"operationId": "GetWidgetsWidget", "summary": "Retrieve a widget",
                    "parameters": [{"name": "widget", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Widget"}}}}}},
        },
    },
    "components": {"schemas": {"Widget": {
        "type": "object", "required": ["id", "object", "name", "dashboard_url", "created"],
        "properties": {
            "id": {"type": "string", "example": "wdg_4Hq8ZpT2xKcLmN"},
            "object": {"type": "string", "enum": ["widget"]},
            "name": {"type": "string"},
            "dashboard_url": {"type": "string", "format": "uri"},
            "created": {"type": "integer"},
        }}}},
}


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": required}}


CATALOG = {"tools": [
    _tool("create_widget", "Create a new widget.", {"name": {"type": "string"}}, ["name"]),
    _tool("get_widget", "Get one widget by id.", {"widget_id": {"type": "string"}}, ["widget_id"]),
    _tool("list_widgets", "List widgets.", {"limit": {"type": "integer"}}, []),
    _tool("send_feedback", "Send feedback to the maintainers.", {"message": {"type": "string"}}, ["message"]),
]}


def _enrich(tmp_path: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    spec, world, out = tmp_path / "widgetry.json", tmp_path / "widgets.json", tmp_path / "widgets.enriched.json"
    spec.write_text(json.dumps(SPEC))
    world.write_text(json.dumps(CATALOG))
    done = subprocess.run([*CLI, "enrich", str(world), "--openapi", str(spec), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out, done


def test_each_match_is_printed_with_its_confidence_and_an_unrelated_tool_is_left_as_it_is(tmp_path: Path) -> None:
    out, done = _enrich(tmp_path)
    lines = {line.split()[1]: line for line in done.stdout.splitlines() if line.strip()}
    assert "POST /v1/widgets" in lines["create_widget"], done.stdout
    assert "GET /v1/widgets/{widget}" in lines["get_widget"], done.stdout
    assert "unmatched" in lines["send_feedback"], done.stdout
    assert all(0.0 <= float(line.split()[0]) <= 1.0 for line in lines.values())
    tools = {t["name"]: t for t in json.loads(out.read_text())["tools"]}
    assert tools["send_feedback"] == CATALOG["tools"][3]
    assert tools["create_widget"]["_meta"]["agentworld/openapi"]["path"] == "/v1/widgets"
    assert "outputSchema" not in tools["create_widget"]  # what tools/list serves is the catalog's


def test_after_enrichment_answers_carry_the_specs_id_format_and_computed_fields(tmp_path: Path) -> None:
    out, _ = _enrich(tmp_path)

    async def play() -> tuple[Any, Any, list[str]]:
        async with stdio_session(str(out)) as session:
            listed = [t.name for t in (await session.list_tools()).tools]
            created = json.loads((await session.call_tool("create_widget", {"name": "Sprocket"})).content[0].text)
            read = json.loads((await session.call_tool("get_widget", {"widget_id": created["id"]})).content[0].text)
            return created, read, listed

    created, read, listed = asyncio.run(play())
    assert listed == [t["name"] for t in CATALOG["tools"]]
    assert created["id"].startswith("wdg_") and len(created["id"]) == len("wdg_4Hq8ZpT2xKcLmN"), created
    assert created["object"] == "widget" and created["dashboard_url"].startswith("http"), created
    assert isinstance(created["created"], int) and created["name"] == "Sprocket", created
    assert read["id"] == created["id"] and read["name"] == "Sprocket", read


def test_a_catalog_that_is_not_a_world_file_is_a_clear_error(tmp_path: Path) -> None:
    spec = tmp_path / "widgetry.json"
    spec.write_text(json.dumps(SPEC))
    done = subprocess.run([*CLI, "enrich", str(tmp_path / "missing.json"), "--openapi", str(spec),
                           "-o", str(tmp_path / "out.json")], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "missing.json" in done.stderr and "Traceback" not in done.stderr, done.stderr
