"""``agentworld-mcp populate``: fill a world's seed state with a self-consistent fiction.

Qwen-AgentWorld's authors trained search agents in invented worlds (a 2030 Mars colony among
them) so that no memorised fact could answer for the agent. This command writes such a world:
for every record collection the catalog's tools let an agent see, ``--count`` entities in the
shape those tools return (:mod:`agentworld_mcp.fiction.references`), with

* keys as the service spells them (``cus_3``, ``ENG-4``, integers, UUIDs: the same conventions
  the deterministic world model uses for new entities, so a created one continues the series);
* references that resolve: a field naming another collection (``crew_id``, ``habitat``,
  ``assignee``, ``labelIds``) holds the key of an entity that exists;
* dates that agree (created <= started <= updated <= ended; a departure before its arrival;
  an entity after those it refers to) and numbers in their schema's bounds;
* names drawn from the scenario's own words, emails on the scenario's domain, statuses from
  the catalog's enums.

Deterministic by default (:mod:`agentworld_mcp.fiction.generator`): the same world, scenario, count and
``--seed`` give a byte-identical file. With ``--base-url/--model`` a language model writes the entities in batches
(:mod:`agentworld_mcp.fiction.populate_llm`), each checked against the shape and its references;
what fails is repaired from the generator or re-asked. ``--facts FILE.jsonl`` writes
question/answer facts that hold only in this fiction (:mod:`agentworld_mcp.fiction.facts`).

Python API::

    from agentworld_mcp.fiction.populate import populate_world, write_populated
    data = populate_world(world, scenario="A Mars colony in 2030", count=6, seed=1)  # world file data
    write_populated(data, Path("mars.yaml"), facts=Path("mars.facts.jsonl"), seed=1)

``populate_world`` returns the world file's data (a dict: the world's own keys, ``scenario``
and the new ``seed``); :func:`generate_seed` returns only the seed.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

from ..world.catalog import Catalog
from ..errors import WorldFileError
from .generator import DEFAULT_COUNT, PopulateError, Seed, check_count, generate_seed
from .references import dangling, shapes
from ..world.world import World, bundled_world, load_world, load_world_data

JSONDict = dict[str, Any]


def populate_world(world: World, *, scenario: str | None = None, count: int = DEFAULT_COUNT, seed: int = 0,
                   model: Any = None) -> JSONDict:
    """The world file's data with its seed populated (``model``: a :class:`populate_llm.ModelWriter`)."""
    text = scenario if scenario is not None else world.scenario
    if model is not None:
        import asyncio

        from .populate_llm import populate_with_model

        new_seed = asyncio.run(populate_with_model(world, model, scenario=text or world.name, count=count, seed=seed))
    else:
        new_seed = generate_seed(world, scenario=text, count=count, seed=seed)
    return world_data(world, new_seed, scenario=text)


def world_data(world: World, new_seed: Seed, *, scenario: str | None) -> JSONDict:
    """The world as a file's data (its own keys kept) with ``seed`` replaced by ``new_seed``."""
    data = copy.deepcopy(world.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"source"}))
    data["scenario"] = scenario if scenario is not None else world.scenario
    data["tools"] = world.tools
    ordered: JSONDict = {k: data[k] for k in ("name", "scenario", "tools") if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered and k != "seed"})
    ordered["seed"] = new_seed
    return ordered


def write_populated(data: JSONDict, output: Path, *, facts: Path | None = None, seed: int = 0) -> World:
    """Write the world (checked to load and its references to resolve) and, if asked, its facts."""
    from .facts import facts_of, write_facts
    from ..world.writer import write_world_file

    world = load_world_data(data, source=str(output), base_dir=output.parent)
    problems = dangling(world.seed, shapes(Catalog(world)))
    if problems:  # a bug of ours, never a world written with broken references
        raise PopulateError("populate produced dangling references: " + "; ".join(map(str, problems[:5])))
    write_world_file(output, data)
    if facts is not None:
        write_facts(facts, facts_of(world, seed=seed))
    return world




# -- the command ---------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("world", help="world file to populate (.yaml/.json), or a bundled world's name")
    p.add_argument("-o", "--output", required=True, help="world file to write (.yaml or .json)")
    p.add_argument("--scenario", default=None, help="plain-language description of the fiction "
                   "(default: the world's own scenario); names are drawn from its words")
    p.add_argument("--count", type=int, default=DEFAULT_COUNT,
                   help=f"entities per collection (default: {DEFAULT_COUNT})")
    p.add_argument("--seed", type=int, default=0, help="seed: the same seed writes the same world (default: 0)")
    p.add_argument("--facts", default=None, metavar="FILE.jsonl",
                   help="also write question/answer facts that hold in this fiction (for graders); the pytest "
                   "fixture reads <world>.facts.jsonl next to the world file")
    g = p.add_argument_group("language world model", "with --base-url or --model a language model writes the "
                             "entities (checked and repaired); the rest of its settings also come from the world's "
                             "backend mapping, AGENTWORLD_BASE_URL, AGENTWORLD_MODEL and OPENAI_API_KEY")
    g.add_argument("--base-url", action="append", default=None, metavar="URL",
                   help="OpenAI-compatible API root, e.g. http://localhost:8000/v1")
    g.add_argument("--model", default=None, help="model name (default: the first model the server lists)")
    g.add_argument("--temperature", type=float, default=None, help="sampling temperature (default: 0.6)")
    g.add_argument("--max-tokens", type=int, default=None, help="completion token limit per batch (default: 2048)")
    g.add_argument("--timeout", type=float, default=None, help="seconds per model request (default: 120)")
    g.add_argument("--batch", type=int, default=5, help="entities the model writes per request (default: 5)")
    g.add_argument("--retries", type=int, default=2, help="re-asks of a batch that is not usable JSON (default: 2)")


def run(args: argparse.Namespace) -> int:
    source = Path(args.world)
    if not source.exists():
        source = bundled_world(args.world) or source
    world = load_world(source)
    check_count(args.count)
    output = Path(args.output)
    if args.base_url or args.model:
        from ..errors import ModelEndpointError
        from .populate_llm import ModelWriter

        writer = ModelWriter.from_settings(world, base_url=args.base_url, model=args.model, temperature=args.temperature,
                                           max_tokens=args.max_tokens, timeout=args.timeout, batch=args.batch,
                                           retries=args.retries)
        try:
            data = populate_world(world, scenario=args.scenario, count=args.count, seed=args.seed, model=writer)
        except ModelEndpointError as exc:
            hint = (exc.hint or "start the model server (see docs/llm.md) or fix --base-url").rstrip(".")
            if "deterministic generator" not in hint:
                hint += "; or leave out --base-url to use the deterministic generator"
            print(f"agentworld-mcp populate: {exc}\n{hint[0].upper()}{hint[1:]}. Nothing was written.", file=sys.stderr)
            return 1
        print(writer.summary(), file=sys.stderr)
    else:
        data = populate_world(world, scenario=args.scenario, count=args.count, seed=args.seed)
    facts = Path(args.facts) if args.facts else None
    written = write_populated(data, output, facts=facts, seed=args.seed)
    total = sum(len(v) for v in written.seed.values())
    collections = len(written.seed)
    print(f"wrote {output}: {total} entities in {collections} collection{'s' * (collections != 1)}"
          + (f"; facts in {facts}" if facts else ""), file=sys.stderr)
    return 0


def check_references(world: World) -> list[str]:
    """``validate``'s check: each seed reference that names a missing entity, worded for a person."""
    return [str(d) for d in dangling(world.seed, shapes(Catalog(world)))]


def raise_for_references(world: World) -> None:
    problems = check_references(world)
    if problems:
        raise WorldFileError(world.source or world.name, problems,
                             hint="a reference field must hold the key of an entity the seed lists: fix the value, "
                                  "add the entity, or run `agentworld-mcp populate` to write a consistent seed")


def dumps(seed: Seed) -> str:
    """The seed as canonical JSON (what 'the same seed gives the same world' compares)."""
    return json.dumps(seed, sort_keys=True, ensure_ascii=False)


__all__ = ["DEFAULT_COUNT", "PopulateError", "add_arguments", "check_references", "generate_seed", "populate_world",
           "raise_for_references", "run", "world_data", "write_populated"]
