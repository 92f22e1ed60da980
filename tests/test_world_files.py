"""Bad world files are reported like a compiler reports code: file, line, key path, no traceback.

Both ``agentworld-mcp validate`` and ``serve`` exit with status 2 and say what to fix.
Good files in the shapes people have at hand load unchanged: a bare ``tools/list`` dump,
a list of tools, and a world whose ``tools:`` names a catalog file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentworld_mcp import load_world
from agentworld_mcp.cli.main import main
from agentworld_mcp.errors import WorldFileError

from .conftest import stdio_session
from .mirrored import mirrored_catalogs  # noqa: F401

DEEP_TYPE = """\
name: deep
tools:
  - name: ok
    inputSchema: {type: object}
  - name: broken
    inputSchema:
      type: object
      properties:
        tags:
          type: array
          items:
            type: strung
"""
WRONG_TYPE_JSON = """\
{
  "tools": [
    {"name": "a", "inputSchema": {"type": "object"}},
    {"name": "b", "description": 42, "inputSchema": {"type": "object"}}
  ]
}
"""

#: file name, content, what the message must say (location first), the line it must name
BAD_FILES = [
    ("deep.yaml", DEEP_TYPE, "tools[1].inputSchema.properties.tags.items.type: not a valid JSON Schema: 'strung'", 12),
    ("wrong-type.json", WRONG_TYPE_JSON, "tools[1].description: 42 is not of type 'string'", 4),
    ("no-tools.yaml", "name: empty\nscenario: nothing to call\n", "(top level): 'tools' is a required property", 1),
    ("bad.yaml", "name: x\ntools:\n  - name: a\n    inputSchema: {type: object\n  - name: b\n", "invalid YAML", 5),
    ("bad.json", '{\n  "tools": [\n    {"name": "a", "inputSchema": {"type": "object"}},\n  ]\n}\n', "invalid JSON", 4),
    ("no-input.yaml", "tools:\n  - name: a\n    description: no inputSchema\n", "tools[0]: 'inputSchema' is a required property", 2),
    ("string-input.yaml", "tools:\n  - name: a\n    inputSchema: {type: string}\n", "tools[0].inputSchema.type", 3),
    ("dupes.yaml", "tools:\n  - {name: a, inputSchema: {type: object}}\n  - {name: a, inputSchema: {type: object}}\n",
     "tools[1].name: duplicate tool name 'a'", 3),
    ("unknown-key.yaml", "tools: []\ntols: []\n", "Additional properties are not allowed ('tols' was unexpected)", 1),
    ("bad-output.yaml", "tools:\n  - name: a\n    inputSchema: {type: object}\n    outputSchema: {type: object, required: yes}\n",
     "tools[0].outputSchema.required: True is not of type 'array'", 4),
    ("scalar.yaml", "42\n", "the top level must be a mapping with a 'tools' key", None),
]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentworld_mcp", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, stdin=subprocess.DEVNULL)


_SERVE_TOO = {"deep.yaml", "wrong-type.json", "no-tools.yaml", "bad.yaml", "bad.json"}
CASES = [pytest.param("validate", *bad, id=f"validate-{bad[0]}") for bad in BAD_FILES] + [
    pytest.param("serve", *bad, id=f"serve-{bad[0]}") for bad in BAD_FILES if bad[0] in _SERVE_TOO]


@pytest.mark.parametrize(("command", "name", "content", "says", "line"), CASES)
def test_a_bad_world_file_is_reported_with_key_path_and_line(tmp_path, capfd, command, name, content, says, line):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    if command == "serve":  # the real process: exit status, streams
        done = cli(command, str(path))
        status, out, err = done.returncode, done.stdout, done.stderr
    else:  # the same entry point, in process (faster)
        status = main([command, str(path)])
        out, err = capfd.readouterr()
    assert status == 2, err
    assert "Traceback" not in err
    assert says in err, err
    where = f"{path}:{line}: " if line else f"{path}"
    assert where in err, err
    assert "agentworld-mcp validate" in err  # says how to check again
    assert out == ""  # stdout belongs to the protocol


def test_every_problem_is_listed_not_only_the_first(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text("tools:\n  - {name: a, description: 1, inputSchema: {type: object}}\n"
                    "  - {name: b, inputSchema: {type: object}, annotations: {readOnlyHint: maybe}}\n")
    with pytest.raises(WorldFileError) as info:
        load_world(path)
    problems = info.value.problems
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"{path}:2: tools[0].description")
    assert problems[1].startswith(f"{path}:3: tools[1].annotations.readOnlyHint")


def test_a_missing_file_says_what_to_pass(tmp_path):
    done = cli("validate", str(tmp_path / "nope.yaml"))
    assert done.returncode == 2 and "file not found" in done.stderr and "Traceback" not in done.stderr
    assert "issue-tracker" in done.stderr  # the bundled examples one could serve instead


def test_a_bare_tools_list_dump_loads_unchanged(mirrored_catalogs, tmp_path):
    """What a client prints for tools/list (cursor and _meta included) is a world as it is."""
    tools = mirrored_catalogs["memory"].raw_tools
    dump = tmp_path / "memory-tools.json"
    dump.write_text(json.dumps({"tools": tools, "nextCursor": None, "_meta": {"from": "a client"}}, indent=1))
    world = load_world(dump)
    assert world.tools == tools and json.dumps(world.tools) == json.dumps(tools)
    assert world.name == "memory-tools"
    bare_list = tmp_path / "list.json"
    bare_list.write_text(json.dumps(tools))
    assert load_world(bare_list).tools == tools


async def test_a_dump_is_served_unchanged(mirrored_catalogs, tmp_path):
    tools = mirrored_catalogs["filesystem"].raw_tools
    dump = tmp_path / "fs-tools.json"
    dump.write_text(json.dumps({"tools": tools}))
    async with stdio_session(str(dump)) as session:
        listed = await session.list_tools()
    assert [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools] == tools


def test_tools_may_name_a_catalog_file_relative_to_the_world_file(tmp_path):
    catalog_dir = tmp_path / "worlds"
    catalog_dir.mkdir()
    tools = [{"name": "get_weather", "description": "Weather for a city.",
              "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]
    (catalog_dir / "catalog.json").write_text(json.dumps({"tools": tools}))
    (catalog_dir / "weather.yaml").write_text("name: weather\nscenario: Sunny everywhere.\ntools: catalog.json\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = cli("validate", str(catalog_dir / "weather.yaml"), cwd=elsewhere)  # relative to the file, not cwd
    assert done.returncode == 0, done.stderr
    assert "get_weather" in done.stdout
    world = load_world(catalog_dir / "weather.yaml")
    assert (world.name, world.tools) == ("weather", tools)
    called = cli("call", str(catalog_dir / "weather.yaml"), "get_weather", "--args", '{"city": "Oslo"}', cwd=elsewhere)
    assert called.returncode == 0, called.stderr


def test_a_broken_or_missing_catalog_file_is_reported_where_it_is(tmp_path):
    (tmp_path / "w.yaml").write_text("tools: tools.json\n")
    missing = cli("validate", str(tmp_path / "w.yaml"))
    assert missing.returncode == 2 and "tools.json" in missing.stderr and "not found" in missing.stderr
    (tmp_path / "tools.json").write_text('{"tools": [\n  {"name": "x", "inputSchema": {"type": "objekt"}}\n]}\n')
    broken = cli("validate", str(tmp_path / "w.yaml"))
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert f"{tmp_path / 'tools.json'}:2: tools[0].inputSchema.type" in broken.stderr, broken.stderr
