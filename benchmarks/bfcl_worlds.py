"""BFCL's multi-turn entries as agentworld-mcp worlds and recorded trajectories.

The Berkeley Function Calling Leaderboard (PyPI ``bfcl-eval``) ships eight executable API
classes (a file system, messaging, social posts, tickets, trading, travel, a vehicle, math),
their function docs, and 200 ``multi_turn_base`` entries, each with an ``initial_config``
and a ground-truth call sequence. This module turns one entry into

* a **world**: the involved classes' function docs as MCP tools (``parameters`` ->
  ``inputSchema``; in the ``typed`` variant ``response`` -> ``outputSchema``, as a typed
  FastMCP server of the classes would list them), the initial state as ``seed`` records and,
  verbatim, in the ``scenario`` text;
* the **real answers**: the ground-truth calls executed on the real class instances loaded
  with ``initial_config``, one flat trajectory line per call, the format ``score`` reads.

Install the classes without bfcl-eval's heavy dependencies (torch, model clients...):

    pip install --no-deps bfcl-eval && pip install 'agentworld-mcp[fidelity]'

Only the standard library and ``mpmath`` are needed to run them.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import inspect
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

JSONDict = dict[str, Any]
INSTALL = "pip install --no-deps bfcl-eval mpmath"
CATEGORY = "multi_turn_base"
#: The eight executable classes: name -> (module and func-doc file stem, short label).
CLASSES: dict[str, tuple[str, str]] = {
    "GorillaFileSystem": ("gorilla_file_system", "file system"),
    "MathAPI": ("math_api", "math"),
    "MessageAPI": ("message_api", "messaging"),
    "TwitterAPI": ("posting_api", "social posts"),
    "TicketAPI": ("ticket_api", "tickets"),
    "TradingBot": ("trading_bot", "trading"),
    "TravelAPI": ("travel_booking", "travel"),
    "VehicleControlAPI": ("vehicle_control", "vehicle"),
}
STATELESS = {"MathAPI"}
#: JSON Schema spellings of the docs' Python-ish types.
TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "int": "integer",
         "bool": "boolean", "str": "string"}
SPLIT_SALT = "agentworld-fidelity-v1"


class BenchmarkMissing(RuntimeError):
    """bfcl-eval (or mpmath) is not installed."""


@cache
def package_dir() -> Path:
    try:
        import bfcl_eval
        import mpmath  # noqa: F401  (the math class needs it)
    except ImportError as exc:
        raise BenchmarkMissing(
            f"the fidelity benchmark needs BFCL's executable classes ({exc.name} is not installed); "
            f"install them without their heavy dependencies: {INSTALL}") from exc
    return Path(bfcl_eval.__file__).parent


def _jsonl(path: Path) -> list[JSONDict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def function_docs() -> dict[str, list[JSONDict]]:
    """Each class's function docs (name, description, parameters, response), as shipped."""
    folder = package_dir() / "data" / "multi_turn_func_doc"
    return {cls: _jsonl(folder / f"{stem}.json") for cls, (stem, _) in CLASSES.items()}


@cache
def entries() -> list[JSONDict]:
    """The ``multi_turn_base`` entries, each with its ``ground_truth`` (a list of turns of call strings)."""
    data = package_dir() / "data"
    answers = {row["id"]: row["ground_truth"] for row in _jsonl(data / "possible_answer" / f"BFCL_v4_{CATEGORY}.json")}
    rows = _jsonl(data / f"BFCL_v4_{CATEGORY}.json")
    return [{**row, "ground_truth": answers[row["id"]]} for row in rows]


def tool_class() -> dict[str, str]:
    """Tool name -> the class it belongs to (no two classes share a tool name)."""
    return {doc["name"]: cls for cls, docs in function_docs().items() for doc in docs}


# -- the split ---------------------------------------------------------------------------------


def split_of(ids: list[str]) -> dict[str, list[str]]:
    """Ids ordered by sha256(SPLIT_SALT + ":" + id); the first half is dev, the rest eval."""
    ranked = sorted(ids, key=lambda i: hashlib.sha256(f"{SPLIT_SALT}:{i}".encode()).hexdigest())
    half = (len(ranked) + 1) // 2
    return {"dev": sorted(ranked[:half], key=_number), "eval": sorted(ranked[half:], key=_number)}


def _number(entry_id: str) -> int:
    return int(entry_id.rsplit("_", 1)[-1])


# -- worlds ----------------------------------------------------------------------------------


def json_schema(schema: Any) -> Any:
    """The docs' schema dialect as JSON Schema: ``dict`` -> ``object``, ``float`` -> ``number``."""
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: JSONDict = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            out[key] = TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = json_schema(value)
        else:
            out[key] = value
    if out.get("type") == "any":
        del out["type"]
    return out


def tool_of(doc: JSONDict, typed: bool) -> JSONDict:
    tool: JSONDict = {"name": doc["name"], "description": doc["description"],
                      "inputSchema": {"type": "object", **json_schema(doc["parameters"])}}
    if typed and isinstance(doc.get("response"), dict):
        response = json_schema(doc["response"])
        tool["outputSchema"] = {"type": "object", "properties": response.get("properties", {})}
    return tool


def seed_of(config: JSONDict) -> dict[str, list[JSONDict]]:
    """The initial state as seed records: the file tree as ``files`` by path, keyed records and
    lists by their field name, and each class's remaining scalar settings as one record."""
    seed: dict[str, list[JSONDict]] = {}
    for cls, state in config.items():
        if cls not in CLASSES or not isinstance(state, dict):
            continue
        settings: JSONDict = {}
        for key, value in state.items():
            if key == "root" and isinstance(value, dict):
                seed.setdefault("files", []).extend(_files(_loaded_root(value), ""))
            elif isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
                seed.setdefault(_collection(key), []).extend(
                    {"id": _key(k), **v} if "id" not in v else dict(v) for k, v in value.items())
            elif isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
                seed.setdefault(key, []).extend({"id": _key(k), "items": v} for k, v in value.items())
            elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                seed.setdefault(_collection(key), []).extend(dict(v) for v in value)
            elif isinstance(value, list) and value:
                seed.setdefault(key, []).extend({"name": v} for v in value)
            elif value not in ({}, []):
                settings[key] = value
        if settings:
            seed.setdefault(CLASSES[cls][0], []).append(settings)
    return seed


def _collection(key: str) -> str:
    """A state field named as a collection: ``ticket_queue`` -> ``tickets``, ``booking_record`` -> ``bookings``."""
    for suffix in ("_queue", "_list", "_record", "_history"):
        if key.endswith(suffix):
            stem = key[: -len(suffix)]
            return stem if stem.endswith("s") else f"{stem}s"
    return key


def _key(key: str) -> Any:
    """Records keyed by number in the state (``"12446"``) are looked up by integer arguments."""
    return int(key) if key.isdigit() else key


def _loaded_root(tree: JSONDict) -> JSONDict:
    """The part of a file system's ``root`` the real class loads: ``GorillaFileSystem._load_scenario``
    makes the first top-level directory the root and drops any others, so the world is seeded likewise."""
    first = next(iter(tree), None)
    return {first: tree[first]} if first is not None else {}


def _files(tree: JSONDict, prefix: str) -> list[JSONDict]:
    out: list[JSONDict] = []
    for name, node in tree.items():
        path = f"{prefix}/{name}"
        if node.get("type") == "directory":
            children = node.get("contents") or {}
            out.extend(_files(children, path) if children else [{"path": path, "type": "directory"}])
        else:
            out.append({"path": path, "content": node.get("content", "")})
    return out


def world_of(entry: JSONDict, typed: bool) -> JSONDict:
    """The world file (as data) for one entry; ``typed`` adds the outputSchemas."""
    docs = function_docs()
    excluded = set(entry.get("excluded_function") or [])
    classes = [c for c in entry["involved_classes"] if c in CLASSES]
    tools = [tool_of(d, typed) for c in classes for d in docs[c] if d["name"] not in excluded]
    config = {c: entry["initial_config"].get(c, {}) for c in classes if c not in STATELESS}
    labels = ", ".join(CLASSES[c][1] for c in classes)
    scenario = (f"Executable environment ({labels}). Every call acts on one shared state, which at the start "
                f"of the episode is, as JSON by subsystem: {json.dumps(config, ensure_ascii=False)}")
    return {"name": f"{entry['id']}-{'typed' if typed else 'bare'}", "scenario": scenario, "tools": tools,
            "seed": seed_of(config)}


# -- the real answers ------------------------------------------------------------------------


@dataclass
class Call:
    tool: str
    arguments: JSONDict


def parse_call(text: str, methods: dict[str, Any]) -> Call:
    """``mv(source='a', destination='b')`` or ``sort('a')``: the tool and its arguments by name."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain call: {text!r}")
    name = node.func.id
    args = [ast.literal_eval(a) for a in node.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    bound = inspect.signature(methods[name]).bind(*args, **kwargs)
    return Call(name, dict(bound.arguments))


def instances(entry: JSONDict) -> dict[str, Any]:
    """The involved classes' live objects, each loaded with the entry's initial_config; method name -> bound method."""
    root = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
    methods: dict[str, Any] = {}
    for cls in entry["involved_classes"]:
        module = importlib.import_module(f"{root}.{CLASSES[cls][0]}")
        obj = getattr(module, cls)()
        if cls not in STATELESS:
            obj._load_scenario(copy.deepcopy(entry["initial_config"].get(cls, {})), long_context=False)
        for name, method in inspect.getmembers(obj, predicate=inspect.ismethod):
            if not name.startswith("_"):
                methods[name] = method
    return methods


def result_of(value: Any, typed: bool) -> JSONDict:
    """A CallToolResult-like dict for what the method returned: an ``{"error": ...}`` dict is an
    error answer (the dict as text); typed answers carry the object as structuredContent."""
    structured = value if isinstance(value, dict) else {"result": value}
    text = json.dumps(structured, ensure_ascii=False, default=str)
    if isinstance(value, dict) and "error" in value:
        return {"content": [{"type": "text", "text": text}], "isError": True}
    result: JSONDict = {"content": [{"type": "text", "text": text}], "isError": False}
    if typed:
        result["structuredContent"] = json.loads(text)
    return result


def real_trajectory(entry: JSONDict, typed: bool) -> list[JSONDict]:
    """The ground truth executed on the real classes: one flat trajectory line per call."""
    methods = instances(entry)
    lines: list[JSONDict] = []
    for user_turn, calls in enumerate(entry["ground_truth"], 1):
        for text in calls:
            call = parse_call(text, methods)
            try:
                result = result_of(methods[call.tool](**call.arguments), typed)
            except Exception as exc:  # the class's own failure is the real answer
                result = {"content": [{"type": "text", "text": f"{type(exc).__name__}: {exc}"}], "isError": True}
            lines.append({"episode": entry["id"], "turn": len(lines) + 1, "user_turn": user_turn,
                          "tool": call.tool, "arguments": call.arguments, "result": result})
    return lines


def write_entry(entry: JSONDict, typed: bool, folder: Path) -> tuple[Path, Path]:
    """The entry's world (JSON) and real trajectory (JSONL) written under ``folder``."""
    world = world_of(entry, typed)
    world_path = folder / f"{world['name']}.world.json"
    world_path.write_text(json.dumps(world, ensure_ascii=False, indent=1), encoding="utf-8")
    trajectory_path = folder / f"{world['name']}.jsonl"
    trajectory_path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n"
                                       for line in real_trajectory(entry, typed)), encoding="utf-8")
    return world_path, trajectory_path
