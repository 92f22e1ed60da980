"""CRUD episodes on catalogs: create -> read -> update -> read -> list -> filter -> delete -> read, per entity family.

    python benchmarks/crud_episodes.py [--half dev|eval|both] [--catalog NAME ...] [--backend schema|empty]
                                       [--manifest FILE] [--json] [--verbose]

For each catalog of the manifest (``benchmarks/crud_episodes.json``) the entity families are read
from the simulator's own role model (``Catalog(world)``: each tool's ``catalog_role``, and the
roles of consolidated tools' operation values). A family is a collection some tool creates in; its
other tools are picked by role (read, update, list, search, delete). One episode per family is
played through ``Simulator.from_world(world, seed=0)`` with arguments generated from each tool's
inputSchema (``world.values.generate``), the created entity's key put into the key arguments of
later calls and the create's scope arguments (``owner``, ``projectId``) reused. The checks:

==============  =========================================================================
create          the create is no error, and its answer (or its own key argument) gives the new key
read            the family's read, keyed by it, is no error and shows the values the create set
update          the family's update of one text field, keyed by it, is no error
read-updated    a read after the update shows the new value
list            the family's list shows the entity (an item with its key, or its values)
filter          a list/search filtered by a created value (or its free-text query) finds it
delete          the family's delete, keyed by it, is no error
read-deleted    a read after the delete is a tool error, or (where the delete is a lifecycle
                verb: archive, trash, cancel) shows the entity in that state
==============  =========================================================================

A check that cannot be played for want of a tool is not made; a check that could be played but
is blocked (the create gave no key) is made and fails.

What the checks can catch: tools of one entity not linked into one family (a create whose read
does not find what it made), keys that do not travel (the create's answer names no key, or a
read takes it under another name), batch reads and batch creates that do not meet, lifecycle
verbs that remove instead of changing state, listings and filters that miss what was written,
deletes that leave the entity readable. What they cannot catch: whether the answers look like
the real service's (field names, wording, ids: that is ``benchmarks/real_servers.py``), whether
a real server would even accept the generated arguments, and families the role model never
formed (a create it calls an action is not played at all: the family count is reported so a
drop shows). They are self-consistency checks: nothing is recorded, so ``--backend empty``
(every call answered ``{}`` with no effects) is the floor and scores about 0.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from agentworld_mcp.state.step import Prediction, Step  # noqa: E402
from agentworld_mcp.world.catalog import Catalog  # noqa: E402
from agentworld_mcp.world.roles import PAGINATION_ARGS, ToolRole, nouns_of, singular, verb_kind, words  # noqa: E402
from agentworld_mcp.world.stated_values import listed  # noqa: E402
from agentworld_mcp.world.values import generate  # noqa: E402
from agentworld_mcp.world.world import World, load_world  # noqa: E402

JSONDict = dict[str, Any]
MANIFEST = HERE / "crud_episodes.json"
CHECKS = ("create", "read", "update", "read-updated", "list", "filter", "delete", "read-deleted")
#: Verbs that delete for good: any other delete-kind verb (archive, trash) is a lifecycle change.
_HARD_DELETE = frozenset({"delete", "remove", "destroy", "erase", "purge", "drop", "rm", "rmdir", "unlink"})
_GONE_STATES = frozenset({"deleted", "archived", "trashed", "cancelled", "canceled", "closed", "removed", "inactive",
                          "true"})
_STATE_FIELDS = ("status", "state", "archived", "deleted", "is_deleted", "isDeleted", "is_archived", "isArchived",
                 "trashed", "lifecycle", "lifecycleState")
_TITLE_NAMES = ("title", "name", "subject", "summary", "content", "text", "description", "body")


class EmptyModel:
    """The floor: every call answered ``{}`` and nothing changes."""

    name = "empty"

    async def predict(self, step: Step) -> Prediction:
        return Prediction({}, effects=[], checked=True)

    async def aclose(self) -> None:
        return None


# -- families ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """A tool, the arguments that select its operation (``method: create``) and the role they give it."""

    tool: str
    fixed: JSONDict
    role: ToolRole
    schema: JSONDict

    @property
    def props(self) -> JSONDict:
        return self.schema.get("properties") or {}

    @property
    def required(self) -> list[str]:
        return [r for r in self.schema.get("required") or [] if isinstance(r, str)]

    def label(self) -> str:
        return self.tool + "".join(f"[{k}={v}]" for k, v in self.fixed.items())


@dataclass
class Family:
    collection: str
    create: Call
    read: Call | None = None
    update: Call | None = None
    listing: Call | None = None
    searches: list[Call] = field(default_factory=list)
    delete: Call | None = None


def calls_of(catalog: Catalog) -> list[Call]:
    """Every (tool, operation) the role model knows, with its role."""
    out: list[Call] = []
    for spec in catalog:
        schema = spec.input_schema
        out.append(Call(spec.name, {}, spec.role, schema))
        if spec.selector is not None:
            for value, role in spec.selector.roles.items():
                enum = (spec.input_schema.get("properties") or {}).get(spec.selector.arg, {}).get("enum") or [value]
                spelled = next((e for e in enum if isinstance(e, str) and e.casefold() == value), value)
                out.append(Call(spec.name, {spec.selector.arg: spelled}, role, schema))
    return out


def _rank(call: Call, noun: str) -> tuple[int, int, int, int]:
    """Plain tools first: the noun in the name, no operation argument, few words, few required arguments."""
    tokens = words(call.tool)
    return (0 if noun in (singular(t) for t in tokens) else 1, len(call.fixed), len(tokens), len(call.required))


def _named_kind(call: Call) -> str | None:
    """The kind a tool's own name says (``hubspot-batch-read-objects``: read), from its first verb."""
    for token in words(call.tool)[:3]:
        kind = verb_kind(token)
        if kind is not None:
            return kind
    return None


def _as_named(call: Call, kind: str, noun: str) -> Call:
    """``call`` as the ``kind`` its name says, with key arguments found as a user would: an id argument
    named for the entity (``ticket_id``, ``id``) or an array of objects with an id (a batch)."""
    props = call.props
    keys = tuple(p for p in props if _is_key_like(p) and (p.lower() in ("id", "gid", "uuid", "key")
                                                          or noun in (singular(w) for w in words(p))))
    batch = None
    if not keys:
        batch = next((p for p, s in props.items() if isinstance(s, dict) and s.get("type") == "array"
                      and any(_is_key_like(k) for k in ((s.get("items") or {}).get("properties") or {}))), None)
    role = dataclasses.replace(call.role, kind=kind, key_args=keys or call.role.key_args,  # type: ignore[arg-type]
                               batch_arg=batch or call.role.batch_arg)
    return Call(call.tool, call.fixed, role, call.schema)


def families(catalog: Catalog) -> list[Family]:
    everything = calls_of(catalog)
    calls = [c for c in everything if c.role.style in ("record", "file") and c.role.kind != "action"]
    by_collection: dict[str, list[Call]] = {}
    for call in calls:
        by_collection.setdefault(call.role.collection, []).append(call)
    for collection, members in by_collection.items():
        # tools named for the entity that the role model put elsewhere still belong to its family
        noun, kinds = singular(collection), {c.role.kind for c in members}
        for call in everything:
            kind = _named_kind(call)
            if (kind in ("read", "update", "delete", "list", "search") and kind not in kinds and not call.fixed
                    and [singular(w) for w in nouns_of(call.tool)][-1:] == [noun]):
                members.append(_as_named(call, kind, noun))
    out: list[Family] = []
    for collection, members in sorted(by_collection.items()):
        fam = _family(collection, members)
        if fam is not None:
            out.append(fam)
    return out


def _keyed(call: Call) -> bool:
    return bool(call.role.key_args) or bool(call.role.batch_arg)


def _best(members: list[Call], kind: str, noun: str, ok: Any = _keyed) -> Call | None:
    found = sorted((c for c in members if c.role.kind == kind and ok(c)), key=lambda c: _rank(c, noun))
    return found[0] if found else None


def _family(collection: str, members: list[Call]) -> Family | None:
    """The family's tools, the plainest of each kind; None where nothing creates its entity."""
    noun = singular(collection)
    create = _best(members, "create", noun, ok=lambda c: True)
    if create is None:
        return None
    fam = Family(collection, create, read=_best(members, "read", noun),
                 update=_best(members, "update", noun,
                              ok=lambda c: _keyed(c) and not c.role.sets and bool(_settable(c, create))),
                 listing=_best(members, "list", noun, ok=lambda c: True), delete=_best(members, "delete", noun))
    fam.searches = sorted((c for c in members if c.role.kind in ("list", "search")
                           and (c.role.filters or c.role.query_arg)), key=lambda c: _rank(c, noun))
    return fam


def _settable(update: Call, create: Call) -> list[str]:
    """Free-text fields the update can set: plain strings, preferably ones the create sets too."""
    props = _item_props(update)
    keys = set(update.role.key_args) | set(update.role.scope_args) | set(update.fixed) | {update.role.key_field}
    plain = [p for p, s in props.items() if p not in keys and _free_text(s) and p not in PAGINATION_ARGS
             and not p.lower().endswith(("id", "ids", "_key", "key"))]
    shared = [p for p in plain if p in _item_props(create)]
    return sorted(shared or plain, key=lambda p: (p not in _TITLE_NAMES, p))


def _free_text(schema: Any) -> bool:
    if isinstance(schema, dict) and not schema.get("type") and isinstance(schema.get("anyOf"), list):
        options = [s for s in schema["anyOf"] if isinstance(s, dict) and s.get("type") != "null"]
        return len(options) == 1 and _free_text({**options[0], "maxLength": schema.get("maxLength", 100)})
    return (isinstance(schema, dict) and schema.get("type") == "string" and not schema.get("enum")
            and "const" not in schema and not schema.get("format") and not schema.get("pattern")
            and int(schema.get("maxLength", 100)) >= 24
            and not listed(str(schema.get("description") or "")))  # a stated vocabulary is an enum in words


def _item_schema(call: Call) -> JSONDict | None:
    batch = call.role.batch_arg
    sub = call.props.get(batch) if batch else None
    items = sub.get("items") if isinstance(sub, dict) else None
    return items if isinstance(items, dict) and items.get("properties") else None


def _item_props(call: Call) -> JSONDict:
    items = _item_schema(call)
    return (items.get("properties") or {}) if items is not None else call.props


# -- playing ---------------------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    held: bool
    detail: str = ""


@dataclass
class Answer:
    is_error: bool
    simulator_error: bool
    text: str
    value: Any


class Episode:
    """One family's episode: the calls, what they established, the checks."""

    def __init__(self, sim: Any, family: Family, rng: random.Random) -> None:
        self.sim, self.fam, self.rng = sim, family, rng
        self.context: JSONDict = {}  # arguments the episode established (scope, the create's values)
        self.created: JSONDict = {}  # field -> value the create set
        self.key: Any = None
        self.checks: list[Check] = []

    def check(self, name: str, held: bool, detail: str = "") -> None:
        self.checks.append(Check(name, held, detail))

    async def call(self, call: Call, args: JSONDict) -> Answer:
        result = await self.sim.call(call.tool, args)
        text = result.text
        value = result.structured if result.structured is not None else _parse(text)
        return Answer(result.is_error, result.is_simulator_error, text, value)

    def args_for(self, call: Call, *, optional: bool = False) -> JSONDict:
        """Required arguments (all with ``optional``), the episode's scope reused, the operation fixed."""
        args: JSONDict = {}
        required = set(call.required)
        for name, schema in call.props.items():
            if name in call.fixed:
                args[name] = call.fixed[name]
            elif name in self.context and (name in required or name in call.role.scope_args):
                args[name] = self.context[name]
            elif name in required or (optional and not _is_key_like(name) and name not in PAGINATION_ARGS):
                args[name] = generate(schema, self.rng, name, root=call.schema)
        return _in_order(args)

    def keyed(self, call: Call, args: JSONDict) -> JSONDict:
        """``args`` naming the episode's entity in ``call``'s key argument (a batch: a list of one)."""
        for name in call.role.key_args:
            if name in call.props:
                args[name] = _typed_key(self.key, call.props[name])
                for other in call.role.key_args:
                    if other != name and other not in call.required:
                        args.pop(other, None)
                return args
        batch = call.role.batch_arg
        if batch and batch in call.props:
            items = _item_schema(call)
            if items is None:
                args[batch] = [_typed_key(self.key, (call.props[batch].get("items") or {}))]
            else:
                props = items.get("properties") or {}
                key_name = next((p for p in (call.role.key_field, "id", *props) if p in props and _is_key_like(p)),
                                call.role.key_field)
                item = {k: v for k, v in generate(items, self.rng, batch, root=call.schema).items()
                        if k in (items.get("required") or [])}
                item[key_name] = _typed_key(self.key, props.get(key_name) or {})
                args[batch] = [item]
        return args

    async def play(self) -> list[Check]:
        fam = self.fam
        ok = await self.create(fam.create)
        if not ok:
            for name, made in (("read", fam.read), ("update", fam.update), ("read-updated", fam.update and fam.read),
                               ("list", fam.listing), ("filter", self.filter_call()), ("delete", fam.delete),
                               ("read-deleted", fam.delete and fam.read)):
                if made:
                    self.check(name, False, "blocked: the create gave no key")
            return self.checks
        if fam.read:
            answer = await self.call(fam.read, self.keyed(fam.read, self.args_for(fam.read)))
            missing = [f for f, v in self.created.items() if not _shows(answer, v)]
            shown = not [f for f in missing if f in _TITLE_NAMES] and len(missing) * 2 <= len(self.created)
            self.check("read", not answer.is_error and shown,
                       _why(fam.read, answer, f"created values not shown: {missing}" if missing else ""))
        if fam.update:
            await self.update(fam.update)
        if fam.listing:
            answer = await self.call(fam.listing, self.args_for(fam.listing))
            self.check("list", not answer.is_error and self.finds(answer), _why(fam.listing, answer, "entity not listed"))
        search = self.filter_call()
        if search is not None:
            call, args = search
            answer = await self.call(call, args)
            given = {k: v for k, v in args.items() if k not in call.fixed}
            self.check("filter", not answer.is_error and self.finds(answer),
                       _why(call, answer, f"not found by {json.dumps(given, default=str)[:120]}"))
        if fam.delete:
            await self.delete(fam.delete)
        return self.checks

    async def create(self, call: Call) -> bool:
        args = self.args_for(call, optional=True)
        items = _item_schema(call)
        if items is not None and call.role.batch_arg:
            item = generate(items, self.rng, call.role.batch_arg, root=call.schema)
            args[call.role.batch_arg] = [item]
            fields = item
        else:
            fields = args
        skip = set(call.fixed) | set(call.role.scope_args)
        self.created = {k: v for k, v in fields.items() if k not in skip and _showable(v, _item_props(call).get(k))}
        self.context = {k: v for k, v in args.items() if k not in call.fixed}
        if fields is not args:  # a batch item's scope (its ``calendarId``) is the one later calls name, as an agent would
            self.context.update({k: v for k, v in fields.items() if k not in self.context})
        answer = await self.call(call, args)
        self.key = None if answer.is_error else self.key_from(call, answer, fields)
        # the answer must show what was made: its key or a value the create set
        shown = self.key is not None and (_shows(answer, self.key) or any(_shows(answer, v) for v in self.created.values()))
        self.check("create", shown, _why(call, answer, "no key in the answer" if self.key is None else "nothing made shown"))
        if self.key is not None:
            for name in {*call.role.key_args, call.role.key_field}:
                self.context.pop(name, None)
        return self.key is not None

    def key_from(self, call: Call, answer: Answer, fields: JSONDict) -> Any:
        for name in call.role.key_args:
            if fields.get(name) not in (None, ""):
                return fields[name]
        key_field = call.role.key_field
        found = _find_field(answer.value, key_field)
        if found is None and key_field in fields:
            return fields[key_field]
        if found is None and isinstance(answer.text, str):
            match = re.search(rf"\b{re.escape(key_field)}\b\W{{1,4}}([\w.:/-]+)", answer.text, re.I)
            found = match.group(1) if match else None
        return found

    async def update(self, call: Call) -> None:
        settable = _settable(call, self.fam.create)
        field_name = settable[0]
        new_value = f"Renamed {field_name} {self.rng.randrange(1000, 9999)}"
        args = self.keyed(call, self.args_for(call))
        if call.role.batch_arg and isinstance(args.get(call.role.batch_arg), list) and _item_schema(call):
            args[call.role.batch_arg][0][field_name] = new_value
        else:
            args[field_name] = new_value
        answer = await self.call(call, args)
        self.check("update", not answer.is_error, _why(call, answer, ""))
        if self.fam.read:
            read = await self.call(self.fam.read, self.keyed(self.fam.read, self.args_for(self.fam.read)))
            self.check("read-updated", not read.is_error and _shows(read, new_value),
                       _why(self.fam.read, read, f"{field_name} not updated"))
        if field_name in self.created:
            self.created[field_name] = new_value

    def filter_call(self) -> tuple[Call, JSONDict] | None:
        for call in self.fam.searches:
            if self.key is None:
                return (call, {})
            args = self.args_for(call)
            for name in call.role.filters:
                if name in self.created and name in call.props and name not in call.role.scope_args:
                    args[name] = self.created[name]
                    return call, args
            if call.role.query_arg and call.role.query_arg in call.props:
                text = next((self.created[n] for n in _TITLE_NAMES if isinstance(self.created.get(n), str)),
                            next((v for v in self.created.values() if isinstance(v, str)), None))
                if text is not None:
                    args[call.role.query_arg] = text
                    return call, args
        return None

    async def delete(self, call: Call) -> None:
        answer = await self.call(call, self.keyed(call, self.args_for(call)))
        self.check("delete", not answer.is_error, _why(call, answer, ""))
        if self.fam.read:
            read = await self.call(self.fam.read, self.keyed(self.fam.read, self.args_for(self.fam.read)))
            lifecycle = not _HARD_DELETE & set(words(call.tool))
            gone = (read.is_error and not read.simulator_error) or (lifecycle and not read.is_error and _gone(read.value))
            self.check("read-deleted", gone, _why(self.fam.read, read, "still readable after the delete"))

    def finds(self, answer: Answer) -> bool:
        """Whether a listing shows the entity: an object with its key, else its created values."""
        key_field = self.fam.create.role.key_field
        for obj in _objects(answer.value):
            if str(obj.get(key_field)) == str(self.key) or any(str(v) == str(self.key) for k, v in obj.items()
                                                                 if _is_key_like(k)):
                return True
        strings = [v for v in self.created.values() if isinstance(v, str) and len(v) >= 6]
        if strings:
            return all(_shows(answer, v) for v in strings[:2])
        return len(str(self.key)) >= 4 and str(self.key) in answer.text


def _why(call: Call, answer: Answer, problem: str) -> str:
    if answer.is_error:
        return f"{call.label()}: error: {answer.text[:160]}"
    return f"{call.label()}: {problem}: {answer.text[:120]}" if problem else call.label()


def _is_key_like(name: str) -> bool:
    low = name.lower()
    return low in ("id", "key", "uuid", "gid", "number", "slug") or low.endswith(("_id", "id", "_key", "_uuid", "gid"))


def _typed_key(key: Any, schema: Any) -> Any:
    schema = schema if isinstance(schema, dict) else {}
    kind = schema.get("type")
    if kind == "array":
        return [_typed_key(key, schema.get("items") or {})]
    if kind in ("integer", "number") and re.fullmatch(r"-?\d+", str(key)):
        return int(key)
    if kind == "string" and not isinstance(key, str):
        return str(key)
    return key


def _showable(value: Any, schema: Any) -> bool:
    """Created values a read must show: text of some length, not an enum's word the service may respell."""
    if not isinstance(value, str) or len(value) < 4:
        return False
    return not (isinstance(schema, dict) and (schema.get("enum") or schema.get("format") in ("date-time", "date")))


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _shows(answer: Answer, value: Any) -> bool:
    text = answer.text if isinstance(answer.text, str) else ""
    if answer.value is not None:
        text += json.dumps(answer.value, default=str, ensure_ascii=False)
    return str(value) in text or json.dumps(value, ensure_ascii=False).strip('"') in text


def _objects(value: Any) -> list[JSONDict]:
    out: list[JSONDict] = []
    stack = [value]
    while stack and len(out) < 5000:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _find_field(value: Any, name: str) -> Any:
    """The first value of field ``name``, breadth first (the new entity before its nested parts)."""
    queue = [value]
    while queue:
        item = queue.pop(0)
        if isinstance(item, dict):
            found = item.get(name)
            if isinstance(found, (str, int)) and not isinstance(found, bool) and found != "":
                return found
            queue.extend(item.values())
        elif isinstance(item, list):
            queue.extend(item)
    return None


def _gone(value: Any) -> bool:
    for obj in _objects(value):
        for name in _STATE_FIELDS:
            state = obj.get(name)
            if state is True or (isinstance(state, str) and state.lower() in _GONE_STATES):
                return True
    return False


# -- the benchmark -------------------------------------------------------------------------------


async def play_catalog(world: World, backend: str = "schema") -> JSONDict:
    """Every family's episode on ``world``: checks held and made, and each failing check named."""
    from agentworld_mcp import Simulator

    catalog = Catalog(world)
    fams = families(catalog)
    results: list[JSONDict] = []
    for i, fam in enumerate(fams):
        model: Any = EmptyModel() if backend == "empty" else "schema"
        async with Simulator.from_world(world, backend=model, seed=0) as sim:
            checks = await Episode(sim, fam, random.Random(f"{world.name}/{fam.collection}/{i}")).play()
        results.append({"collection": fam.collection, "checks": [c.__dict__ for c in checks]})
    made = sum(len(r["checks"]) for r in results)
    held = sum(c["held"] for r in results for c in r["checks"])
    return {"families": len(fams), "made": made, "held": held, "ratio": round(held / made, 3) if made else None,
            "episodes": results}


def _load_manifest(path: Path) -> list[JSONDict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data["catalogs"])


async def run(args: argparse.Namespace) -> JSONDict:
    entries = _load_manifest(Path(args.manifest))
    halves = ("dev", "eval") if args.half == "both" else (args.half,)
    chosen = [e for e in entries if e["half"] in halves and (not args.catalog or e["name"] in args.catalog)]
    rows = []
    for entry in chosen:
        world = load_world(ROOT / entry["path"])
        report = await play_catalog(world, args.backend)
        failing = [f"{r['collection']}:{c['name']}" for r in report["episodes"] for c in r["checks"] if not c["held"]]
        rows.append({"name": entry["name"], "half": entry["half"], **report, "failing": failing})
    summary = {}
    for half in halves:
        mine = [r for r in rows if r["half"] == half]
        made, held = sum(r["made"] for r in mine), sum(r["held"] for r in mine)
        by_check = {name: [sum(c["held"] for r in mine for e in r["episodes"] for c in e["checks"] if c["name"] == name),
                           sum(1 for r in mine for e in r["episodes"] for c in e["checks"] if c["name"] == name)]
                    for name in CHECKS}
        summary[half] = {"catalogs": len(mine), "families": sum(r["families"] for r in mine), "made": made,
                         "held": held, "ratio": round(held / made, 3) if made else None, "by_check": by_check}
    return {"backend": args.backend, "catalogs": rows, "halves": summary}


def _print(report: JSONDict, verbose: bool) -> None:
    print(f"{'catalog':<22}{'half':<6}{'families':>9}{'held/made':>12}{'ratio':>8}")
    for row in report["catalogs"]:
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.3f}"
        print(f"{row['name']:<22}{row['half']:<6}{row['families']:>9}{row['held']:>6}/{row['made']:<5}{ratio:>8}")
        if verbose:
            for episode in row["episodes"]:
                for check in episode["checks"]:
                    if not check["held"]:
                        print(f"    {episode['collection']}:{check['name']}  {check['detail'][:200]}")
    for half, s in report["halves"].items():
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
        checks = "  ".join(f"{k} {h}/{m}" for k, (h, m) in s["by_check"].items() if m)
        print(f"{half}: {s['held']}/{s['made']} = {ratio} over {s['catalogs']} catalogs, {s['families']} families")
        print(f"    {checks}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("dev", "eval", "both"), default="dev")
    parser.add_argument("--catalog", action="append", default=[], help="only this catalog (repeatable)")
    parser.add_argument("--backend", choices=("schema", "empty"), default="schema")
    parser.add_argument("--manifest", default=str(MANIFEST))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print each failing check")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        _print(report, args.verbose)
    return 0


def _in_order(args: JSONDict) -> JSONDict:
    """Generated interval bounds put in order (``start_date`` before ``end_date``): a real server accepts only
    intervals that end after they start, so the episode's calls stay valid."""
    from agentworld_mcp.models.deterministic.intervals import PAIRS, before, instant

    for low, high in PAIRS:
        start, end = instant(args.get(low)), instant(args.get(high))
        if start is not None and end is not None and before(end[0], start[0]):
            args[low], args[high] = args[high], args[low]
    return args


if __name__ == "__main__":
    raise SystemExit(main())

