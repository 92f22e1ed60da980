"""``agentworld-mcp enrich WORLD --openapi SPEC``: an MCP catalog's tools answered in the service's own shapes.

Each tool of the catalog is matched to the spec's operation it most likely wraps, by words:
the tool's name against the operation id and path, its description against the summary,
its argument names against the parameters, and the verb (create/read/list/update/delete)
against the HTTP method. Each match gets a confidence in [0, 1], printed for review; tools
below :data:`MIN_CONFIDENCE` are left as they are. A matched tool without an outputSchema
gets the operation's response schema as its output shape (``_meta.agentworld/output_shape``,
as ``enrich`` writes a language model's shapes), its collection's id format
(``_meta.agentworld/id_formats``) and the response example as a demonstration. The catalog
itself (names, schemas, what ``tools/list`` serves) is never changed. See docs/openapi.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..models.deterministic.id_formats import ID_FORMATS_META
from ..models.deterministic.shape import OUTPUT_SHAPE_META
from ..world.roles import infer_role, singular, words
from ..world.world import World, bundled_world, load_world
from .openapi_import import import_spec

JSONDict = dict[str, Any]

#: Matches below this are not used (printed as unmatched).
MIN_CONFIDENCE = 0.45
_METHOD_OF_KIND = {"create": "post", "read": "get", "list": "get", "search": "get", "update": "patch",
                   "delete": "delete"}
_NOISE = frozenset({"api", "v1", "v2", "v3", "the", "a", "an", "of", "for", "by", "to", "in", "get", "list", "create",
                    "update", "delete", "post", "put", "patch"})


@dataclass
class Match:
    tool: str
    operation: JSONDict | None  # the imported tool of the operation
    confidence: float


def _bag(*texts: str) -> set[str]:
    return {singular(w) for t in texts for w in words(t) if w not in _NOISE and len(w) > 1}


def score(tool: JSONDict, op_tool: JSONDict) -> float:
    """How likely ``tool`` wraps ``op_tool``'s operation: 0-1."""
    meta = op_tool["_meta"]
    where = meta["agentworld/openapi"]
    role = infer_role(tool)
    op_role = meta["agentworld/role"]
    name_words = _bag(tool["name"])
    op_words = _bag(where.get("operationId", ""), where["path"].replace("{", " ").replace("}", " "))
    name = len(name_words & op_words) / max(1, len(name_words))
    args = set((tool.get("inputSchema") or {}).get("properties") or {})
    params = set(op_tool["inputSchema"].get("properties") or {})
    arg_score = len(_bag(*args) & _bag(*params)) / max(1, len(_bag(*args))) if args else 0.5
    kind_ok = role.kind == op_role["kind"] or _METHOD_OF_KIND.get(role.kind) == where["method"].lower() or (
        role.kind == "update" and where["method"] in ("PUT", "POST") and op_role["kind"] == "update")
    desc = _bag(str(tool.get("description") or "")[:300])
    summary = _bag(str(op_tool.get("title") or ""))
    text = len(desc & summary) / max(1, len(summary)) if summary else 0.0
    noun = singular(role.collection.split("_")[-1]) in _bag(op_role["collection"])
    total = 0.35 * name + 0.2 * arg_score + 0.15 * text + 0.15 * kind_ok + 0.15 * noun
    return round(total if kind_ok else total * 0.6, 3)  # a read never wraps a POST


def match(world: World, imported: list[JSONDict]) -> list[Match]:
    """The best operation for each tool of ``world`` (None below :data:`MIN_CONFIDENCE`)."""
    out = []
    for tool in world.tools:
        best = max(imported, key=lambda op: score(tool, op), default=None)
        confidence = score(tool, best) if best is not None else 0.0
        out.append(Match(tool["name"], best if confidence >= MIN_CONFIDENCE else None, confidence))
    return out


def apply(data: JSONDict, matches: list[Match], demonstrations: dict[str, JSONDict]) -> tuple[JSONDict, int]:
    """``data`` (the world file as parsed) with matched shapes, id formats and examples; the count enriched."""
    out = dict(data)
    tools = [dict(t) for t in out["tools"]]
    by_name = {t["name"]: t for t in tools}
    demos = list(out.get("demonstrations") or [])
    done = 0
    for m in matches:
        if m.operation is None:
            continue
        tool = by_name[m.tool]
        meta = dict(tool.get("_meta") or {})
        op_meta = m.operation["_meta"]
        shape = m.operation.get("outputSchema") or op_meta.get(OUTPUT_SHAPE_META)
        if tool.get("outputSchema") is None and shape:
            meta[OUTPUT_SHAPE_META] = shape
        role = infer_role(tool)
        formats = op_meta.get(ID_FORMATS_META) or {}
        if formats:
            meta[ID_FORMATS_META] = {role.collection: next(iter(formats.values()))}
        meta["agentworld/openapi"] = {**op_meta["agentworld/openapi"], "confidence": m.confidence}
        tool["_meta"] = meta
        demo = demonstrations.get(m.operation["name"])
        if demo is not None and tool.get("outputSchema") is None:
            demos.append({"tool": m.tool, "arguments": {}, "response": demo["response"]})
        done += 1
    out["tools"] = tools
    if demos:
        out["demonstrations"] = demos
    return out, done


def run(args: argparse.Namespace) -> int:
    from .enrich import write

    source = Path(args.world)
    if not source.exists():
        source = bundled_world(args.world) or source
    world = load_world(source)
    found = import_spec(args.openapi)
    imported = found.data["tools"]
    demos = {d["tool"]: d for d in found.data.get("demonstrations") or []}
    matches = match(world, imported)
    text = source.read_text(encoding="utf-8")
    import yaml

    data = json.loads(text) if source.suffix == ".json" else yaml.safe_load(text)
    if isinstance(data, list):
        data = {"tools": data}
    if not isinstance(data.get("tools"), list):
        data["tools"] = [dict(t) for t in world.tools]
    enriched, done = apply(data, matches, demos)
    write(Path(args.output), enriched, source=source)
    for m in sorted(matches, key=lambda m: -m.confidence):
        where = m.operation["_meta"]["agentworld/openapi"] if m.operation else None
        target = f"{where['method']} {where['path']}" if where else "unmatched (left as it is)"
        print(f"  {m.confidence:.2f}  {m.tool} -> {target}")
    print(f"enriched {done} of {len(matches)} tools from {found.data['name']}'s {len(imported)} operations; "
          f"wrote {args.output}; review the matches above before committing it", file=sys.stderr)
    return 0
