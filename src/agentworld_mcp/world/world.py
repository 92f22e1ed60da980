"""World files: the tool catalog plus what the simulated environment is.

A world is pure data. It is loaded from YAML or JSON, validated against
``schemas/world.schema.json`` (the same file editors use), and every tool's
``inputSchema``/``outputSchema`` is checked to be a valid JSON Schema. Tools are kept
as the exact JSON objects that were loaded, so ``tools/list`` serves them unchanged.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import unicodedata
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ..errors import WorldFileError
from .schema_check import SchemaChecker
from .seed_forms import listed_seed

JSONDict = dict[str, Any]
log = logging.getLogger("agentworld_mcp.world.world")


class Demonstration(BaseModel):
    """An example call and the response the environment gives to it."""

    model_config = ConfigDict(populate_by_name=True)

    tool: str
    arguments: JSONDict = Field(default_factory=dict)
    response: Any = None
    is_error: bool = Field(default=False, alias="isError")


class World(BaseModel):
    """A simulated tool environment (see docs/architecture.md, 'Concepts')."""

    name: str = "world"
    scenario: str = ""
    tools: list[JSONDict]
    seed: dict[str, list[JSONDict]] = Field(default_factory=dict)
    demonstrations: list[Demonstration] = Field(default_factory=list)
    perturbations: Any = None
    backend: JSONDict = Field(default_factory=dict)
    source: str | None = None
    _tool_index: dict[str, JSONDict] | None = PrivateAttr(default=None)

    def tool(self, name: str) -> JSONDict | None:
        return self._by_name().get(name)

    @property
    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.tools]

    def _by_name(self) -> dict[str, JSONDict]:
        index = self._tool_index
        if index is None or len(index) != len(self.tools):  # tools appended since: index again
            index = self._tool_index = {t["name"]: t for t in self.tools}
        return index

    @classmethod
    def from_tools(cls, tools: list[JSONDict], **kwargs: Any) -> World:
        """Build a world from tool definitions (validated like a world file)."""
        return load_world_data({"tools": tools, **kwargs}, source="<tools>")


@cache
def world_schema() -> JSONDict:
    """The world file JSON Schema, from the package (wheel) or the source tree."""
    packaged = resources.files("agentworld_mcp").joinpath("_schemas/world.schema.json")
    if packaged.is_file():
        return json.loads(packaged.read_text(encoding="utf-8"))
    here = Path(__file__).resolve().parents[3] / "schemas" / "world.schema.json"
    return json.loads(here.read_text(encoding="utf-8"))


@cache
def _world_validator() -> jsonschema.protocols.Validator:
    schema = world_schema()
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def load_world(path: str | os.PathLike[str]) -> World:
    """Load and validate a world file (YAML or JSON). Raises :class:`WorldFileError`.

    A name that is not a file but one of the bundled example worlds (``issue-tracker``)
    loads that example, so client configs work from any directory (see :func:`find_world`).
    """
    path = find_world(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorldFileError(source, [f"cannot read the file: {exc}"]) from None
    data = _parse(text, source)
    return load_world_data(data, source=source, text=text, base_dir=path.parent)


#: The closing advice when no world file goes by the name given.
NOT_FOUND_HINT = "Pass the path of a .yaml or .json world file, or the name of a bundled world."


def find_world(spec: str | os.PathLike[str], *, near: Sequence[Path] = (), hint: str = NOT_FOUND_HINT) -> Path:
    """The world file ``spec`` names, for every entry point alike (CLI, pytest plugin, Python API).

    A path as given (relative paths also against each folder in ``near``, e.g. the test's
    folder and the project root), else a bundled world by name (``issue-tracker``). Raises
    :class:`WorldFileError` saying where it looked and which bundled name was probably meant.
    """
    path = Path(spec)
    candidates = [path] if path.is_absolute() else [*(base / path for base in near), path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    bundled = bundled_world(str(spec))
    if bundled is not None:
        return bundled
    names = bundled_world_names()
    looked = ", ".join(dict.fromkeys(str(c) for c in candidates))
    problem = f"world file not found (looked at {looked}, and among the bundled worlds)"
    guess = difflib.get_close_matches(str(spec), names, n=1, cutoff=0.75)
    problem += f"; did you mean {guess[0]!r}?" if guess else "."
    problem += f" Bundled worlds: {', '.join(names) or 'none installed'}"
    raise WorldFileError(str(spec), [problem], hint=hint)


def _examples_dirs() -> list[Path]:
    """Where bundled example worlds live: in the wheel, else in the source tree."""
    packaged = Path(str(resources.files("agentworld_mcp").joinpath("_examples/worlds")))
    return [d for d in (packaged, Path(__file__).resolve().parents[3] / "examples" / "worlds") if d.is_dir()]


def bundled_world_names() -> list[str]:
    """Names of the bundled example worlds (``mirrored/memory-server`` for subfolders)."""
    names: set[str] = set()
    for base in _examples_dirs():
        for path in base.rglob("*"):
            if path.suffix in (".yaml", ".yml", ".json") and not path.name.startswith("."):
                names.add(path.relative_to(base).with_suffix("").as_posix())
    return sorted(names)


def bundled_world(name: str) -> Path | None:
    """The file of a bundled example world called ``name`` (with or without suffix), if any."""
    if Path(name).is_absolute() or ".." in Path(name).parts:
        return None
    for base in _examples_dirs():
        for candidate in (base / name, *(base / f"{name}{ext}" for ext in (".yaml", ".yml", ".json"))):
            if candidate.is_file():
                return candidate
    return None


def load_world_data(
    data: Any,
    *,
    source: str = "<data>",
    text: str | None = None,
    base_dir: Path | None = None,
) -> World:
    """Validate already-parsed world data (a dict as in a world file)."""
    if isinstance(data, list):  # a bare list of tools is a catalog too
        data = {"tools": data}
    if not isinstance(data, dict):
        raise WorldFileError(source, [f"the top level must be a mapping with a 'tools' key, not {type(data).__name__}"])
    problems = _schema_problems(data, source, text)
    if problems:
        raise WorldFileError(source, problems)
    data = dict(data)
    if isinstance(data.get("seed"), dict):  # records keyed by id, as a database dump holds them: seed_forms.py
        data["seed"] = listed_seed(data["seed"])
    data.pop("nextCursor", None)
    data.pop("_meta", None)
    data.pop("$schema", None)
    if isinstance(data["tools"], str):
        data["tools"] = _load_catalog(data["tools"], source, base_dir)
    problems = _tool_problems(data["tools"], source, text)
    if problems:
        raise WorldFileError(source, problems)
    if "name" not in data and source not in ("<data>", "<tools>"):
        data["name"] = Path(source).stem
    world = World(**data, source=source)
    for warning in near_miss_keys(world):
        log.warning("%s: %s", source, warning)
    return world


def _parse(text: str, source: str) -> Any:
    if source.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise WorldFileError(source, [f"{source}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"],
                                 hint=_SYNTAX_HINT) from None
    try:
        return yaml.load(text, Loader=_WorldLoader)  # noqa: S506  (a SafeLoader with an alias budget)
    except _AliasBudgetError as exc:
        raise WorldFileError(source, [f"{source}: {exc.problem}"], hint=_ALIAS_HINT) from None
    except RecursionError:
        raise WorldFileError(source, [f"{source}: invalid YAML: nested too deeply"], hint=_SYNTAX_HINT) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise WorldFileError(source, [f"{where}: invalid YAML: {problem}"], hint=_SYNTAX_HINT) from None


#: Nodes that aliases (``*name``) may add to a YAML world file once expanded. Reusing a schema
#: across tools adds hundreds; an alias bomb ("billion laughs") adds billions, and every later
#: walk of the data (validation, tools/list) would pay for each one.
MAX_ALIAS_EXPANSION = 100_000
_ALIAS_HINT = ("Write the repeated parts out, or nest fewer aliases (&anchor / *alias) inside each other, "
               "then check with `agentworld-mcp validate FILE`.")


class _AliasBudgetError(yaml.YAMLError):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class _WorldLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader that refuses documents whose aliases expand past :data:`MAX_ALIAS_EXPANSION`
    nodes, or refer to themselves, before anything walks the expanded data."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
        return super().compose_node(parent, index)

    def compose_document(self) -> yaml.Node | None:
        node = super().compose_document()
        if self.aliases and node is not None:
            _check_expansion(node)
        return node


def _check_expansion(root: yaml.Node) -> None:
    """Count the nodes of ``root`` as if every alias were a copy (shared nodes counted once per use)."""
    limit = MAX_ALIAS_EXPANSION
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # on the path from the root: meeting one again is a cycle
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > len(sizes) + limit:
                raise _AliasBudgetError(f"YAML aliases expand to more than {limit} extra nodes (an alias bomb?); "
                                        "world files may repeat at most that much through aliases")
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise _AliasBudgetError("a YAML alias refers to a node that contains it (a recursive structure)")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _load_catalog(ref: str, source: str, base_dir: Path | None) -> list[JSONDict]:
    path = (base_dir or Path.cwd()) / ref
    catalog = load_world(path) if path.exists() else None
    if catalog is None:
        raise WorldFileError(source, [f"tools: catalog file {ref!r} not found (looked at {path})"])
    return catalog.tools


_SYNTAX_HINT = "Fix the syntax at the line shown, then check with `agentworld-mcp validate FILE`."


def _schema_problems(data: JSONDict, source: str, text: str | None) -> list[str]:
    errors = [leaf for e in _world_validator().iter_errors(data) for leaf in _leaf_errors(e)]
    errors.sort(key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path])
    return list(dict.fromkeys(_describe(e.absolute_path, e.message + _near_miss(e), source, text) for e in errors))


def _near_miss(error: jsonschema.ValidationError) -> str:
    """``seeds`` -> "did you mean 'seed'?"; ``input_schema`` missing inputSchema -> the key to rename."""
    known = list((error.schema.get("properties") or {}) if isinstance(error.schema, dict) else {})
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        unknown = [k for k in error.instance if k not in known]
        hints = [f"{k!r}: did you mean {_closest(k, known)!r}?" for k in unknown if _closest(k, known)]
        return f" ({'; '.join(hints)})" if hints else ""
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in _names(error.validator_value) if r not in error.instance]
        hints = [f"found {k!r}: rename it to {m!r}" for m in missing for k in error.instance
                 if k not in known and _closest(k, [m])]
        return f" ({'; '.join(hints)})" if hints else ""
    return ""


def _names(value: Any) -> list[str]:
    """A ``required`` keyword's value (the stubs type it loosely: any JSON)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _closest(name: str, candidates: list[str]) -> str | None:
    def norm(s: str) -> str:
        return s.replace("_", "").replace("-", "").lower()

    by_norm = {norm(c): c for c in candidates}
    if norm(name) in by_norm:
        return by_norm[norm(name)]
    found = difflib.get_close_matches(norm(name), list(by_norm), n=1, cutoff=0.75)
    return by_norm[found[0]] if found else None


#: Keys of an MCP tool definition (the protocol's Tool), for near-miss warnings on tools.
TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta")


def near_miss_keys(world: World) -> list[str]:
    """Warnings for tool keys that look like a misspelt protocol key (``descripton``): the protocol
    allows extra keys, so they load, but the server would never read them."""
    out = []
    for i, tool in enumerate(world.tools):
        for key in tool:
            if key not in TOOL_KEYS:
                close = _closest(key, list(TOOL_KEYS))
                if close is not None and close not in tool:
                    out.append(f"tools[{i}] ({tool.get('name')}): unknown key {key!r}; did you mean {close!r}?")
    return out


def _leaf_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors that say what is actually wrong, inside oneOf/anyOf.

    ``tools`` is "a list of tools or a file name": for a list with one bad tool, the
    useful error is ``tools[3].description: 42 is not of type 'string'``, not "this list
    is not a string". Alternatives whose top-level type does not even match are dropped,
    and the others are searched down to their deepest errors.
    """
    if not error.context:
        return [error]
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)
    applicable = [
        errs for errs in branches.values()
        if not any(e.validator == "type" and not e.relative_path for e in errs)
    ]
    if len(applicable) != 1:
        best = jsonschema.exceptions.best_match(error.context)
        return [error] if best is None else [best] if not applicable else _leaf_errors(best)
    return [leaf for sub in applicable[0] for leaf in _leaf_errors(sub)]


def _tool_problems(tools: list[JSONDict], source: str, text: str | None) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    checker = SchemaChecker()  # tools repeat subschemas (an API's user object): each is checked once
    for i, tool in enumerate(tools):
        bad = _bad_name_characters(tool["name"])
        if bad:
            problems.append(_describe(["tools", i, "name"], f"tool name {tool['name']!r} contains {bad}; MCP tool "
                                      "names are letters, digits, '_', '-' and '.' (rename the tool)", source, text))
        if tool["name"] in seen:
            problems.append(_describe(["tools", i, "name"], f"duplicate tool name {tool['name']!r}", source, text))
        seen.add(tool["name"])
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            if schema is None:
                continue
            try:
                checker.check(schema)
            except jsonschema.SchemaError as exc:
                leaf = _leaf_errors(exc)[0]  # type: ignore[arg-type]  # a SchemaError is a ValidationError in all but name
                path = ["tools", i, key, *leaf.absolute_path]
                problems.append(_describe(path, f"not a valid JSON Schema: {leaf.message}", source, text))
    return problems


def _bad_name_characters(name: str) -> str:
    """What makes ``name`` unfit to be a tool name: control characters or whitespace ("" if nothing).

    The MCP spec asks for ``[A-Za-z0-9_.-]``; other printable names (``/``, ``:``...) that real
    servers use are kept, but a name must never break a log line or hide in a listing.
    """
    found = sorted({ch for ch in name if unicodedata.category(ch)[0] in "CZ"})
    if not found:
        return ""
    kinds = "whitespace" if all(ch.isspace() for ch in found) else "control characters"
    return f"{kinds} ({', '.join(repr(ch) for ch in found)})"


def _describe(path: Any, message: str, source: str, text: str | None) -> str:
    parts = list(path)
    dotted = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(parts))
    line = _line_of(text, parts) if text else None
    where = f"{source}:{line}" if line else source
    return f"{where}: {dotted or '(top level)'}: {message}"


def _line_of(text: str, path: list[Any]) -> int | None:
    """1-based line of the value at ``path``, found by composing the YAML node tree.

    JSON is (nearly) YAML, so this works for both formats; returns None if unsure.
    """
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if isinstance(node, yaml.SequenceNode) and path[:1] == ["tools"]:
        path = path[1:]  # a bare list of tools: the file is the ``tools`` value
    for key in path:
        if isinstance(node, yaml.MappingNode) and isinstance(key, str):
            match = [v for k, v in node.value if getattr(k, "value", None) == key]
            if not match:
                break
            node = match[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
    return node.start_mark.line + 1 if node is not None else None
