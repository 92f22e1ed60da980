"""``agentworld-mcp enrich WORLD --openapi SPEC``: an MCP catalog's tools answered in the service's own shapes.

Each tool of the catalog is matched to the spec's operation it most likely wraps, by what a
REST call is made of: its verb against the HTTP method, its nouns against the path's
resource, its arguments against the path parameters, query parameters and body properties
(:mod:`.openapi_match`). Each match gets a confidence in [0, 1], printed for review; tools
below :data:`MIN_CONFIDENCE` are left as they are. A matched tool gets what the spec says
and the catalog does not:

- its **output shape** (``_meta.agentworld/output_shape``, as ``enrich`` writes a language
  model's shapes): the operation's success response, when the tool creates or reads one
  entity, has no outputSchema and no service profile already describes its answers (a
  profile's envelope is what the service's MCP servers print; a spec's bare response is not
  more specific than it); fields the tool's arguments set keep the arguments' types;
- its collection's **id format** (``_meta.agentworld/id_formats``) from the spec's examples,
  unless a profile or the catalog already states one; patterns and formats stay in the shape;
- the response **example** as a demonstration, only with ``--openapi-examples``: examples are
  another account's data, whose urls and ids the model would copy.

The catalog itself (names, schemas, what ``tools/list`` serves) is never changed. See
docs/openapi.md, "How enrichment matches".
"""

from __future__ import annotations

import argparse
import json
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..models.deterministic.id_formats import ID_FORMATS_META
from ..models.deterministic.shape import OUTPUT_SHAPE_META
from ..world import service_profiles
from ..world.roles import ROLE_META, infer_role, singular, words
from ..world.world import World, bundled_world, load_world
from .openapi_import import import_spec
from .openapi_match import common_words, operation, ranked

JSONDict = dict[str, Any]

#: Matches below this are not used (printed as unmatched).
MIN_CONFIDENCE = 0.65
#: Keywords of a key's schema that say something of its format (a bare ``maxLength`` does not).
_FORMAT_WORDS = ("pattern", "format", "enum", "examples", "const")
#: An id with a prefix and a random suffix (``cus_NffrFeUfNV2Hib``).
_PREFIXED = re.compile(r"([A-Za-z]{1,12}[_-])([A-Za-z0-9]{6,64})")
#: Tools whose answer is one entity, which the spec's shape adds to without losing the catalog's state.
_SHAPED_KINDS = ("create", "read")


@dataclass
class Match:
    tool: str
    operation: JSONDict | None  # the imported tool of the operation; None: left as it is
    confidence: float
    best: JSONDict | None = None  # the best candidate, even below the threshold (printed)
    written: tuple[str, ...] = ()  # what was written: shape, id format, example
    kept: str = ""  # why something the spec has was not written


def match(world: World, imported: list[JSONDict]) -> list[Match]:
    """The best operation for each tool of ``world`` (None below :data:`MIN_CONFIDENCE`)."""
    operations = [operation(op) for op in imported]
    common = common_words(list(world.tools))
    out = []
    for tool in world.tools:
        scored = ranked(tool, operations, common) if operations else []
        best = scored[0] if scored else None
        confidence = best.confidence if best else 0.0
        op = best.operation.tool if best else None
        out.append(Match(tool["name"], op if confidence >= MIN_CONFIDENCE else None, confidence, op))
    return out


def _plain_key(shape: JSONDict, key_field: str) -> JSONDict:
    """``shape`` with its key's schema cut to its type when the spec says nothing of the key's format
    (``{"type": "string", "maxLength": 5000}``): the catalog's or profile's convention then decides."""
    props = shape.get("properties")
    if not isinstance(props, dict):
        return shape
    key = props.get(key_field)
    if not isinstance(key, dict) or any(k in key for k in _FORMAT_WORDS):
        return shape
    plain = {k: v for k, v in key.items() if k in ("type", "description")}
    return {**shape, "properties": {**props, key_field: plain}}


def _additive(shape: JSONDict, args: JSONDict, depth: int = 0) -> JSONDict:
    """``shape`` with the fields the tool's arguments set typed as the arguments are: the catalog's own
    values win (a ``start`` string is kept, not regenerated as the spec's ``{"dateTime": ...}``); the
    same in the objects of a list or a wrapper (``{"channels": [...]}``, ``{"data": {...}}``)."""
    if depth > 2:
        return shape
    if shape.get("type") == "array" and isinstance(shape.get("items"), dict):
        return {**shape, "items": _additive(shape["items"], args, depth + 1)}
    props = shape.get("properties")
    if not isinstance(props, dict):
        return shape
    kept: JSONDict = {}
    for name, sub in props.items():
        arg = args.get(name)
        if isinstance(arg, dict) and isinstance(sub, dict) and arg.get("type") and _kinds(arg) & _kinds(sub) == set():
            kept[name] = {k: v for k, v in arg.items() if k in ("type", "format", "enum")}
        elif isinstance(sub, dict) and (sub.get("type") == "array" or depth == 0 and len(props) <= 2):
            kept[name] = _additive(sub, args, depth + 1)
        else:
            kept[name] = sub
    return {**shape, "properties": kept}


def _entity(shape: JSONDict) -> tuple[JSONDict, str | None]:
    """The entity schema of an answer shape, and the one key it is wrapped in (``{"data": {...}}``)."""
    props = shape.get("properties")
    if isinstance(props, dict) and len(props) == 1:
        (name, sub), = props.items()
        if isinstance(sub, dict) and isinstance(sub.get("properties"), dict):
            return sub, name
    return shape, None


def _computed(prop: str, sub: Any, key_field: str) -> bool:
    """Does the server set ``prop`` itself: its key, a ``readOnly`` field, a url or a timestamp it computes?"""
    if not isinstance(sub, dict):
        return False
    if prop == key_field or sub.get("readOnly") is True:
        return True
    low = prop.lower()
    return sub.get("format") in ("uri", "url") and low.endswith("url") or low in ("created_at", "createdat", "created",
                                                                                 "updated_at", "updatedat", "url")


def _with_computed(shape: JSONDict, key_field: str) -> JSONDict:
    """``shape`` with the fields the server computes required (and the wrapper around them): a spec seldom
    marks them ``required``, yet every answer of the service has them (a product's handle, a task's gid)."""
    entity, wrapper = _entity(shape)
    props = entity.get("properties") or {}
    required = list(entity.get("required") or [])
    required += [p for p, sub in props.items() if p not in required and _computed(p, sub, key_field)]
    if not required:
        return shape
    entity = {**entity, "type": "object", "required": required}
    if wrapper is None:
        return entity
    outer = list(shape.get("required") or [])
    return {**shape, "type": "object", "properties": {wrapper: entity},
            "required": outer + [wrapper] if wrapper not in outer else outer}


def _example_format(shape: JSONDict, key_field: str) -> JSONDict | None:
    """The id format one example of the entity's key shows: digits count (``12345``); a prefix and a random
    suffix (``cus_NffrFeUfNV2Hib``) keep their length and alphabet. None for anything else (uuids have a format)."""
    entity, _ = _entity(shape)
    key = (entity.get("properties") or {}).get(key_field)
    if not isinstance(key, dict) or key.get("format") or key.get("pattern") or key.get("type") not in ("string", None):
        return None
    example = next((str(v) for v in key.get("examples") or () if isinstance(v, (str, int)) and str(v)), "")
    if example.isdigit():
        return {"prefix": "", "counter": 0}
    found = _PREFIXED.fullmatch(example)
    if found is None:
        return None
    suffix = found.group(2)
    alphabet = "0123456789abcdef" if all(c in "0123456789abcdef" for c in suffix) else string.ascii_letters + string.digits
    return {"prefix": found.group(1), "random": len(suffix), "alphabet": alphabet}


def _kinds(schema: JSONDict) -> set[str]:
    kind = schema.get("type")
    return {str(k) for k in (kind if isinstance(kind, list) else [kind]) if k and k != "null"}


def _profiled(profile: service_profiles.ServiceProfile | None, tool: JSONDict, names: list[str],
              op_collection: str) -> str:
    """What of ``tool``'s answers its service profile already describes ("" for nothing): the tool's
    collection or the operation's (``issue_write`` is POST .../issues)."""
    if profile is None:
        return ""
    said = {w for n in names for w in words(n)}
    for collection in (infer_role(tool).collection, op_collection):
        noun = singular(collection).split("_")[-1]
        if noun and profile.entity(noun, said) is not None:
            return f"the {profile.name} profile's {noun}"
    envelope = profile.envelope
    if envelope is not None and (envelope.entity or envelope.listing or envelope.deleted or envelope.always):
        return f"the {profile.name} profile's envelope"
    return ""


def apply(data: JSONDict, matches: list[Match], demonstrations: dict[str, JSONDict],
          world: World | None = None, with_examples: bool = False) -> tuple[JSONDict, int]:
    """``data`` (the world file as parsed) with matched shapes, id formats and examples; the count enriched."""
    out = dict(data)
    tools = [dict(t) for t in out["tools"]]
    by_name = {t["name"]: t for t in tools}
    names = list(by_name)
    profile = service_profiles.detect(tools, world.name if world is not None else "")
    known_formats = {c for t in tools for c in ((t.get("_meta") or {}).get(ID_FORMATS_META) or {})}
    demos = list(out.get("demonstrations") or [])
    roles: dict[str, JSONDict] = {}  # a collection's key field and wrapper, as its shaped tools answer them
    done = 0
    for m in matches:
        if m.operation is None:
            continue
        tool = by_name[m.tool]
        meta = dict(tool.get("_meta") or {})
        op_meta = m.operation["_meta"]
        role = infer_role(tool)
        op_role = op_meta.get("agentworld/role") or {}
        covered = _profiled(profile, tool, names, str(op_role.get("collection") or ""))
        written: list[str] = []
        shape = m.operation.get("outputSchema") or op_meta.get(OUTPUT_SHAPE_META)
        own = tool.get("outputSchema") is not None or OUTPUT_SHAPE_META in meta
        if own:
            m.kept = "its own outputSchema" if tool.get("outputSchema") is not None else "its own output shape"
        elif covered:
            m.kept = covered
        elif role.style != "record":  # files, graphs, SQL: their engines answer as those servers print
            m.kept = f"its {role.style} answers"
        elif role.kind not in _SHAPED_KINDS or op_role.get("kind") != role.kind:
            # a list's items, an update's or an action's answer in the spec's shape lost what the catalog's
            # state shows (posted messages missing from a channel's history, an update's new start)
            m.kept = f"its {role.kind} answers"
        elif isinstance(shape, dict) and shape:
            args = dict((tool.get("inputSchema") or {}).get("properties") or {})
            entity, wrapper = _entity(shape)
            op_key = str(op_role.get("key_field") or "")
            entity_props = entity.get("properties") or {}
            # the spec's key field (``gid``), where the catalog's role guessed another (``id``) the entity lacks
            key = op_key if op_key in entity_props and role.key_field not in entity_props else role.key_field
            meta[OUTPUT_SHAPE_META] = _with_computed(_additive(_plain_key(shape, key), args), key)
            written.append("shape")
            if key != role.key_field or wrapper:
                said = dict(meta.get(ROLE_META) or {})
                roles[role.collection] = {"key_field": key, **({"wrapper": wrapper} if wrapper else {})}
                meta[ROLE_META] = {**roles[role.collection], **said}
        formats = op_meta.get(ID_FORMATS_META) or {}
        fmt = formats.get(op_role.get("collection")) or (next(iter(formats.values())) if len(formats) == 1 else None)
        if not fmt and "shape" in written:  # one example of the key says its format too (``12345``: a number)
            fmt = _example_format(meta[OUTPUT_SHAPE_META], str((meta.get(ROLE_META) or {}).get("key_field")
                                                              or role.key_field))
        if fmt and role.collection not in known_formats and not covered:
            meta[ID_FORMATS_META] = {role.collection: fmt}
            known_formats.add(role.collection)
            written.append("id format")
        meta["agentworld/openapi"] = {**op_meta["agentworld/openapi"], "confidence": m.confidence}
        tool["_meta"] = meta
        demo = demonstrations.get(m.operation["name"]) if with_examples else None
        # an example is another account's data (``octocat/Hello-World``): as a demonstration its urls and
        # ids teach the model the wrong ones (measured: fewer realism checks hold), so only on request
        if demo is not None and "shape" in written and profile is None:
            demos.append({"tool": m.tool, "arguments": {}, "response": demo["response"]})
            written.append("example")
        m.written = tuple(written)
        done += 1
    for tool in tools:  # the collection's other tools (a read, an update) find its entities by the same key
        role = infer_role(tool)
        meta = dict(tool.get("_meta") or {})
        if role.collection in roles and role.style == "record" and ROLE_META not in meta:
            tool["_meta"] = {**meta, ROLE_META: dict(roles[role.collection])}
    out["tools"] = tools
    if demos:
        out["demonstrations"] = demos
    return out, done


def report(matches: list[Match]) -> list[str]:
    """One line per tool, most confident first: the operation, what was written or why not."""
    lines = []
    for m in sorted(matches, key=lambda m: -m.confidence):
        op = m.operation or m.best
        where = op["_meta"]["agentworld/openapi"] if op else None
        target = f"{where['method']} {where['path']}" if where else "no operation"
        if m.operation is None:
            lines.append(f"  {m.confidence:.2f}  {m.tool} -> unmatched (best: {target}; left as it is)")
            continue
        wrote = ", ".join(m.written) or "nothing"
        lines.append(f"  {m.confidence:.2f}  {m.tool} -> {target}: wrote {wrote}"
                     + (f" (kept {m.kept})" if m.kept else ""))
    return lines


def enrich_data(data: JSONDict, world: World, imported: JSONDict,
                with_examples: bool = False) -> tuple[JSONDict, list[Match], int]:
    """``data`` (a world file as parsed, of ``world``) enriched from ``imported`` (an imported spec's world
    data): what ``enrich --openapi`` writes, the matches and how many tools were enriched."""
    demos = {d["tool"]: d for d in imported.get("demonstrations") or []}
    matches = match(world, imported["tools"])
    enriched, done = apply(data, matches, demos, world, with_examples=with_examples)
    return enriched, matches, done


def run(args: argparse.Namespace) -> int:
    from .enrich import write

    source = Path(args.world)
    if not source.exists():
        source = bundled_world(args.world) or source
    world = load_world(source)
    found = import_spec(args.openapi)
    imported = found.data["tools"]
    text = source.read_text(encoding="utf-8")
    import yaml

    data = json.loads(text) if source.suffix == ".json" else yaml.safe_load(text)
    if isinstance(data, list):
        data = {"tools": data}
    if not isinstance(data.get("tools"), list):
        data["tools"] = [dict(t) for t in world.tools]
    enriched, matches, done = enrich_data(data, world, found.data,
                                          with_examples=bool(getattr(args, "openapi_examples", False)))
    write(Path(args.output), enriched, source=source)
    print("\n".join(report(matches)))
    print(f"matched {done} of {len(matches)} tools to {found.data['name']}'s {len(imported)} operations "
          f"(confidence >= {MIN_CONFIDENCE}); wrote {args.output}; review the matches above before committing it",
          file=sys.stderr)
    return 0
