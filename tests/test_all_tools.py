"""Every tool of every world answers like a real tool, through a real MCP client over stdio.

For every example world (``examples/worlds/**``) and three catalogs mirrored from real
reference servers, one ``agentworld-mcp serve`` process per world, and for each tool:

* ``tools/list`` is the source catalog;
* a call with generated valid arguments is not an error, and its ``structuredContent``
  validates against the ``outputSchema``; every result has non-empty text content;
* a call with invalid arguments (a required field dropped, or a wrong type) is an
  ``isError`` result naming the field.

Entities matter: ``get_issue(issue_id=955)`` is rightly "not found" when issue 955 does not
exist. So calls run in the order an agent makes them (creates first, deletes last), and a
call that targets an entity is pointed at one that exists (seeded, or created earlier in
the run). When the answer is an error about a value the call named (not found, or a
directory where a file was wanted), the call is repeated with that value swapped for
another existing entity, as an agent would; the tool must succeed for one of them. A "not
found" is accepted only where the world holds nothing the tool could target; the same call
must then succeed in that world with the entity seeded.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentworld_mcp import load_world
from agentworld_mcp.world import values
from agentworld_mcp.world.catalog import Catalog, ToolSpec
from agentworld_mcp.state.ledger import Ledger, identity
from agentworld_mcp.world.world import World

from .conftest import WORLDS, stdio_session
from .mirrored import mirrored_catalogs  # noqa: F401

JSONDict = dict[str, Any]
EXAMPLE_WORLDS = sorted(p for p in WORLDS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
MIRRORED = ["memory", "filesystem", "everything"]
NOT_FOUND = re.compile(r"not found|no such file|ENOENT|does not exist|unknown", re.IGNORECASE)
#: The order an agent calls tools in: make things, use them, then remove them.
_ORDER = {"create": 0, "read": 1, "list": 1, "search": 1, "action": 1, "update": 2, "move": 3, "delete": 4}
_MOVE_SOURCES = ("source", "from", "src", "old_path", "path")
_MOVE_TARGETS = ("destination", "to", "dest", "new_path", "target")
_RETRIES = 60  # calls are cheap (milliseconds); bounded so a broken tool fails fast


@pytest.mark.parametrize("path", EXAMPLE_WORLDS, ids=lambda p: p.relative_to(WORLDS).as_posix())
async def test_every_tool_of_every_example_world(path: Path, tmp_path: Path) -> None:
    await _check_world(path, tmp_path)


@pytest.mark.parametrize("name", MIRRORED)
async def test_every_tool_of_catalogs_mirrored_from_real_servers(mirrored_catalogs, name, tmp_path) -> None:
    await _check_world(mirrored_catalogs[name].world, tmp_path)


def test_there_is_something_to_check() -> None:
    assert len(EXAMPLE_WORLDS) >= 3


# -- one world -----------------------------------------------------------------------------


async def _check_world(path: Path, tmp_path: Path) -> None:
    world = load_world(path)
    catalog = Catalog(world)
    known = _seeded_keys(world)
    seen: list[str] = []  # text the world has shown so far
    need_seed: list[tuple[ToolSpec, JSONDict, str]] = []
    problems: list[str] = []  # checked after the server is closed: one report for all tools
    flags = ["--perturb", "none"] if world.perturbations else []  # tool behaviour, not injected faults
    async with stdio_session(str(path), *flags) as session:
        listed = await session.list_tools()
        listed_tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]

        for spec in sorted(catalog, key=lambda s: _ORDER.get(s.role.kind, 1)):
            args = _valid_arguments(spec, known)
            result, args = await _call_like_an_agent(session, spec, args, known, seen)
            first = _text(result)
            if result.isError and not known.get(spec.role.collection) and _missing_entity(args, first):
                need_seed.append((spec, args, first))
            elif problem := _result_problem(spec, args, result):
                problems.append(problem)
            else:
                _track(spec, args, result, known)

        for spec in catalog:
            bad, field = _invalid_arguments(spec)
            if bad is None:
                continue
            result = await session.call_tool(spec.name, bad)
            text = _text(result)
            if not result.isError:
                problems.append(f"{spec.name}: invalid arguments {bad} were accepted: {text[:300]}")
            elif field not in text:
                problems.append(f"{spec.name}: the error does not name {field!r}: {text[:300]}")

    assert listed_tools == world.tools
    assert not problems, "\n".join(problems)
    if need_seed:
        await _check_with_seeded_entities(world, need_seed, tmp_path)


async def _call_like_an_agent(
    session: Any, spec: ToolSpec, args: JSONDict, known: dict[str, list[str]], seen: list[str],
) -> tuple[Any, JSONDict]:
    """Call; on an error, retry the way an agent would, a bounded number of times.

    An error about a value the call named: swap that value for an existing entity's key, or
    for text the world has shown (an edit's ``oldText`` must be in the file). An error about
    the combination of arguments ("cannot specify both head and tail"): keep only the
    required ones.
    """
    result = await session.call_tool(spec.name, args)
    tried: set[str] = set()
    for _ in range(_RETRIES):
        if not result.isError:
            break
        trial = None
        named = _named_value(spec, args, _text(result))
        target = _key_arg(spec, args)
        if named is not None:
            tried.add(str(named))
            if target is not None and named == args[target]:
                pool = _candidates(spec, known)  # the entity it is about: another existing one
            elif (shorter := _required_only(spec, args)) != args:
                pool, trial = [], shorter  # e.g. one edit at a time
            elif NOT_FOUND.search(_text(result)):
                pool = [*_candidates(spec, known), *reversed(seen)]  # names an entity: an existing one
            else:
                pool = [*reversed(seen), *_candidates(spec, known)]  # text the world has shown
            for candidate in pool:
                if candidate in tried:
                    continue
                tried.add(candidate)
                swapped = _swap(args, named, candidate)
                if swapped != args and not spec.argument_problems(swapped):
                    trial = swapped
                    break
        if trial is None:
            trial = _required_only(spec, args)
            if trial == args:
                break
        args = trial
        result = await session.call_tool(spec.name, args)
    if not result.isError:
        shown = [*_leaves(args), *_leaves(result.structuredContent), _text(result)]  # what was written, and read
        for text in (s for s in shown if isinstance(s, str) and s.strip()):
            if text in seen:
                seen.remove(text)
            seen.append(text)  # newest last
        del seen[:-50]
    return result, args


def _required_only(spec: ToolSpec, args: JSONDict) -> JSONDict:
    """``args`` cut down to the required arguments, arrays to their shortest valid length."""
    required = spec.input_schema.get("required") or ()
    properties = spec.input_schema.get("properties") or {}
    out: JSONDict = {}
    for name in required:
        if name not in args:
            continue
        value, sub = args[name], properties.get(name)
        if isinstance(value, list) and isinstance(sub, dict):
            value = value[: max(int(sub.get("minItems", 1)), 1)]
        out[name] = value
    return out


async def _check_with_seeded_entities(world: World, cases: list[tuple[ToolSpec, JSONDict, str]], tmp_path: Path) -> None:
    """Tools that answered "not found" in a world with nothing to find succeed once it exists."""
    seed = {c: list(v) for c, v in world.seed.items()}
    for spec, args, text in cases:
        key_arg = next(name for name, value in args.items() if isinstance(value, (str, int)) and str(value) in text)
        seed.setdefault(spec.role.collection, []).append({key_arg: args[key_arg]})
    seeded = tmp_path / "seeded.json"
    seeded.write_text(json.dumps({"name": world.name, "scenario": world.scenario, "tools": world.tools, "seed": seed}))
    problems: list[str] = []
    async with stdio_session(str(seeded)) as session:
        for spec, args, first in cases:
            result = await session.call_tool(spec.name, args)
            if problem := _result_problem(spec, args, result):
                problems.append(f"{problem} (first, with nothing seeded: {first!r})")
    assert not problems, "\n".join(problems)


# -- arguments -----------------------------------------------------------------------------


def _valid_arguments(spec: ToolSpec, known: dict[str, list[str]]) -> JSONDict:
    """Generated arguments; a tool that targets an entity starts at the newest one it knows."""
    args = values.generate(spec.input_schema, random.Random(f"all-tools:{spec.name}"))
    assert isinstance(args, dict)
    jsonschema.validate(args, spec.input_schema)  # the generator itself must be right
    target = _key_arg(spec, args)
    if spec.role.kind != "create" and target is not None:
        for key in reversed(known.get(spec.role.collection, [])):
            trial = _swap(args, args[target], key)
            if not spec.argument_problems(trial):
                return trial
    return args


def _candidates(spec: ToolSpec, known: dict[str, list[str]]) -> list[str]:
    """Existing entity keys, the tool's own collection (newest first) before the others."""
    own = list(reversed(known.get(spec.role.collection, [])))
    others = [k for c, keys in known.items() if c != spec.role.collection for k in reversed(keys)]
    return list(dict.fromkeys(own + others))


def _named_value(spec: ToolSpec, args: JSONDict, text: str) -> Any:
    """The argument value an error is about: one it quotes, else the tool's target."""
    quoted = [v for v in _leaves(args) if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) in text]
    if quoted:
        return max(quoted, key=lambda v: len(str(v)))
    target = _key_arg(spec, args)
    return args[target] if target is not None else None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _swap_value(old: Any, key: str) -> Any:
    return int(key) if isinstance(old, int) and key.isdigit() else key


def _swap(value: Any, old: Any, key: str) -> Any:
    """``value`` with every occurrence of ``old`` replaced by the entity key ``key``."""
    if isinstance(value, dict):
        return {k: _swap(v, old, key) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, key) for v in value]
    if value == old and type(value) is type(old):
        return _swap_value(old, key)
    return value


def _invalid_arguments(spec: ToolSpec) -> tuple[JSONDict | None, str]:
    """Arguments that break the inputSchema in one field (and the field's name)."""
    schema = spec.input_schema
    valid = values.generate(schema, random.Random(f"invalid:{spec.name}"))
    for field in schema.get("required") or ():
        if field in valid:
            return {k: v for k, v in valid.items() if k != field}, field
    for field in schema.get("properties") or {}:
        for wrong in ({"unexpected": "object"}, 12345.5, "not-the-right-type", [["nested"]], True):
            trial = {**valid, field: wrong}
            if spec.argument_problems(trial):
                return trial, field
    if schema.get("additionalProperties") is False:
        return {**valid, "unexpected_argument": 1}, "unexpected_argument"
    # Nothing can be wrong: the schema accepts any object (e.g. a tool without parameters).
    assert not spec.argument_problems({**valid, "anything": [1, {"x": None}]})
    return None, ""


def _key_arg(spec: ToolSpec, args: JSONDict) -> str | None:
    names = spec.role.key_args or (_MOVE_SOURCES if spec.role.kind == "move" else ())
    return next((n for n in names if n in args), None)


# -- results -------------------------------------------------------------------------------


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def _missing_entity(args: JSONDict, text: str) -> bool:
    """A "not found" about a value the call named (an entity the world does not hold)."""
    return bool(NOT_FOUND.search(text)) and any(
        isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) in text for v in _leaves(args))


def _result_problem(spec: ToolSpec, args: JSONDict, result: Any) -> str | None:
    """What is wrong with the result of a valid call, or None."""
    text = _text(result)
    call = f"{spec.name}({json.dumps(args)[:200]})"
    if result.isError:
        return f"{call} failed: {text[:400]}"
    if spec.output_schema is None:
        if result.structuredContent is not None:
            return f"{call}: structuredContent without an outputSchema"
        return None if text.strip() else f"{call}: empty text content"
    if result.structuredContent is None:
        return f"{call}: no structuredContent"
    errors = list(jsonschema.validators.validator_for(spec.output_schema)(spec.output_schema).iter_errors(
        result.structuredContent))
    return f"{call}: structuredContent does not match the outputSchema: {errors[0].message[:300]}" if errors else None


def _seeded_keys(world: World) -> dict[str, list[str]]:
    ledger = Ledger()
    ledger.seed(world.seed)
    return {c: [e.key for e in ledger.items(c)] for c in ledger.collections()}


def _track(spec: ToolSpec, args: JSONDict, result: Any, known: dict[str, list[str]]) -> None:
    """Keep ``known`` in step with what the call did to the world."""
    role, keys = spec.role, known.setdefault(spec.role.collection, [])
    key_arg = _key_arg(spec, args)
    if role.kind == "create":
        made: list[Any] = []
        if role.batch_arg and isinstance(args.get(role.batch_arg), list):
            made.extend(found[1] for item in args[role.batch_arg] if isinstance(item, dict) and (found := identity(item)))
        elif isinstance(result.structuredContent, dict) and (found := identity(result.structuredContent)):
            made.append(found[1])  # the new entity's own id (add_comment's issue_id is its parent's)
        elif key_arg is not None:
            made.append(args[key_arg])
        keys.extend(str(k) for k in dict.fromkeys(made) if str(k) not in keys)
    elif role.kind in ("delete", "move") and key_arg is not None and str(args[key_arg]) in keys:
        keys.remove(str(args[key_arg]))
        target = next((args[n] for n in _MOVE_TARGETS if n in args), None) if role.kind == "move" else None
        if target is not None:
            keys.append(str(target))
