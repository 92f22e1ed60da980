"""Record-style entities as the service would shape them, from the catalog's entity model.

The record handlers of :mod:`.schema` ask here for what the catalog says about an entity
(:mod:`agentworld_mcp.world.entities`): its key within its scope, a new entity's key in the
service's format (``4``, ``cus_4``, ``1773046800.000100``), the fields a new entity starts
with (status, human identifier, url, timestamps, fields the descriptions promise), which
items a plain list shows (not the completed or archived ones) and what an update changes.
Everything is a pure function of the step: nothing here changes the episode.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...world import service_profiles, values
from ...world.conventions import plain_id
from ...world.entities import EntityType
from ...state.ledger import Effect, Entity
from ...world.roles import ToolRole, words
from .common import clock, now_iso
from .id_formats import new_id as learned_id
from .common import entity_model as model

if TYPE_CHECKING:
    from ..base import Step

JSONDict = dict[str, Any]
_CREATED = "created_at"
#: Update arguments that hold the changes as an object (``fields: {status: done}``).
_CHANGE_OBJECTS = ("fields", "updates", "update", "changes", "data", "properties", "attributes", "patch", "values")
#: Fields a description may promise that start at zero (``Returns the account with its balance``).
_ZERO_FIELDS = ("balance", "amount", "total", "count", "quantity", "score", "points", "likes", "votes", "size")
#: Other entity fields an agent may name an entity by (``ENG-42``, a number, a ts).
ALIASES = ("identifier", "number", "key", "slug", "ts", "name")
#: States that take an item out of a plain list (a closed issue stays listed; a completed task does not).
_HIDDEN = frozenset({"completed", "complete", "done", "archived", "deleted", "cancelled", "canceled"})


def entity_type(step: Step, role: ToolRole) -> EntityType | None:
    return model(step).entity(role.collection) if role.style == "record" else None


def creatable(step: Step, role: ToolRole) -> bool:
    """Whether the catalog has a tool that creates this collection's entities (so a list of none is ``[]``)."""
    known = entity_type(step, role)
    roles = model(step).roles
    return known is not None and any(roles[n].kind == "create" for n in known.tools if n in roles)


# -- keys ------------------------------------------------------------------------------------------


def new_key(step: Step, role: ToolRole, schema: JSONDict | None, offset: int = 0) -> Any:
    """A fresh identifier of the type the schema gives (``4``, a UUID), else the catalog's convention."""
    scope = role.scope_of(step.arguments)
    number = step.episode.ledger.next_number(role.collection, scope) + offset
    counted = counter_field(step, role)
    if counted is not None:  # the seed's own sequence continues (``order_counter: 12446``; ``tweet_counter: 0`` is 0)
        number = _free_number(step, role, counted[2] + offset)
    key_schema = ((schema or {}).get("properties") or {}).get(role.key_field) or {}
    declared = key_schema.get("type")
    kinds: list[Any] = declared if isinstance(declared, list) else [declared]
    known = entity_type(step, role)
    if "integer" in kinds or "number" in kinds:
        return number
    if (learned := learned_id(step, role.collection, number)) is not None:  # the real server's format (``learn``)
        return learned
    if key_schema.get("format") == "uuid" or role.key_field == "uuid":
        return str(values.generate({"type": "string", "format": "uuid"},
                                   random.Random(f"{step.episode.seed}:{role.collection}:{number}"), "uuid"))
    if key_schema.get("pattern") or key_schema.get("enum"):
        return values.generate(key_schema, step.rng, role.key_field)
    if known is not None and (not key_schema or set(key_schema) <= {"type", "description", "title"}):
        # a bare ``{"type": "string"}`` says nothing of the format: the catalog's convention decides
        if known.conventions.ts_key:  # Slack-style: the message's own timestamp, unique per channel

            return f"{int(clock(step.turn).timestamp())}.{number:06d}"
        if known.conventions.identifier and known.conventions.identifier[0] == role.key_field:
            team = _team_key(step, role) or known.conventions.identifier[1]  # Jira: the key is ``ROC-1``
            return f"{team}-{_next_in_series(step, role, role.key_field, team) + offset}"
        if known.conventions.id_prefix:
            return f"{known.conventions.id_prefix}{number}"
        if known.conventions.uuid_ids and role.key_field == "id":
            return _unused(step, role, number - offset, offset, lambda n: str(values.generate(
                {"type": "string", "format": "uuid"}, random.Random(f"{step.episode.seed}:{role.collection}:{n}"),
                "uuid")))
        id_format = known.conventions.id_format
        if id_format and role.key_field == "id" and service_profiles.new_id(id_format, 1, "") is not None:
            return _unused(step, role, number - offset, offset, lambda n: str(service_profiles.new_id(
                id_format, n, f"{step.episode.seed}:{role.collection}")))  # a service profile's: ``C0G8...``
        if known.key_type == "integer" or role.key_field == "number":
            return number
    if _numeric_keys(step, role):  # seeded ``"12446"``-style ids: the next one is ``"12447"``, not ``ord-1``
        return str(number)
    return plain_id(role.collection, number)


#: Names of a seed field holding the next number of a sequence (``{noun}`` is the entity's singular).
_NEXT_NAMES = ("{noun}counter", "next{noun}id", "{noun}idcounter", "next{noun}number", "next{noun}", "{noun}seq",
               "{noun}sequence")
#: Names of a seed field holding the last number given.
_LAST_NAMES = ("last{noun}id", "last{noun}number", "max{noun}id")


def counter_field(step: Step, role: ToolRole) -> tuple[Entity, str, int] | None:
    """A counter of this entity in the world's standing state and the next number it gives:
    ``order_counter: 12446`` or ``next_order_id: 12446`` give 12446, ``last_order_id: 12445`` gives
    12446. Catalogs of a program's state (an order book, a ticket desk) seed their sequences so."""
    from ...world.roles import singular
    from .determined import name_key, standing

    noun = name_key(singular(role.collection))
    nexts = {n.format(noun=noun) for n in _NEXT_NAMES}
    lasts = {n.format(noun=noun) for n in _LAST_NAMES}
    for entity in standing(step):
        for name, value in entity.fields.items():
            if not isinstance(value, int) or isinstance(value, bool) or entity.collection == role.collection:
                continue
            if name_key(name) in nexts:
                taken = step.episode.ledger.get(role.collection, value) is not None
                return entity, name, value + 1 if taken else value
            if name_key(name) in lasts:
                return entity, name, value + 1
    return None


def counter_effects(step: Step, role: ToolRole, keys: list[Any]) -> list[Effect]:
    """The seed's counter moved past the keys a create just gave (so the next create continues)."""
    from .determined import name_key

    counted = counter_field(step, role)
    numbers = [int(k) for k in keys if isinstance(k, int) or (isinstance(k, str) and k.isdecimal() and len(k) < 4300)]
    if counted is None or not numbers:
        return []
    entity, name, _ = counted
    last = max(numbers)
    value = last if name_key(name).startswith(("last", "max")) else last + 1
    return [Effect("update", entity.collection, entity.key, {name: value})]


def _free_number(step: Step, role: ToolRole, number: int) -> int:
    """``number``, or the next one no live entity of the collection is keyed by (a counter may lag its records)."""
    ledger = step.episode.ledger
    while ledger.get(role.collection, role.scoped(step.arguments, str(number))) is not None:
        number += 1
    return number


def _numeric_keys(step: Step, role: ToolRole) -> bool:
    """Whether the collection's existing entities are keyed by numbers written as strings."""
    keys = [e.fields.get(role.key_field) for e in step.episode.ledger.items(role.collection)]
    return bool(keys) and all(isinstance(k, str) and k.isdigit() for k in keys)


def _unused(step: Step, role: ToolRole, number: int, offset: int, make: Callable[[int], str]) -> str:
    """An opaque id (a UUID, ``C0G8...``) no entity of the collection has had: its digits say nothing
    of the sequence, so the count of live entities places it, and taken ones are skipped."""
    ledger = step.episode.ledger
    start = max(number, len(ledger.items(role.collection)) + 1) + offset
    for n in range(start, start + 64):
        candidate = make(n)
        if ledger.get(role.collection, role.scoped(step.arguments, candidate), include_deleted=True) is None:
            return candidate
    return make(start)


def lookup(step: Step, role: ToolRole, key: str) -> Entity | None:
    """The live entity the key names: by ledger key, else by a field an agent may use instead
    (``ENG-42`` for an issue keyed by uuid, the ``user_id`` a ``get_user(user_id)`` passes of a user the
    seed keyed otherwise). The scan runs only when the direct lookup misses."""
    ledger = step.episode.ledger
    found = ledger.get(role.collection, key)
    if found is not None or role.style != "record":
        return found
    raw = next((str(step.arguments[a]) for a in role.key_args if a in step.arguments), None)
    if raw is None:
        return None
    scope = dict(zip(role.scope_args, role.scope_of(step.arguments)))
    for entity in ledger.items(role.collection):
        fields = entity.fields
        if any(str(fields.get(a)) == raw for a in ALIASES + (role.key_field, *role.key_args) if a in fields) and all(
                str(fields.get(k, "")) == v for k, v in scope.items()):
            return entity
    return None


# -- a new entity ------------------------------------------------------------------------------------


def starting_fields(step: Step, role: ToolRole, fields: JSONDict, key_value: Any, schema: JSONDict | None) -> None:
    """What a new entity has at this service besides what the caller gave (added to ``fields`` in place).

    Only where no outputSchema decides: its state (``status: open``, ``draft`` before
    ``finalize``), human identifier (``ENG-5``), url built from its scope, creation time,
    and fields the descriptions promise that have an obvious start (``balance: 0``).
    """
    known = entity_type(step, role)
    if known is None:
        return
    props = (schema or {}).get("properties") or {}
    c = known.conventions
    if c.status_field and c.initial_status and c.status_field not in fields and (not props or c.status_field in props):
        fields[c.status_field] = c.initial_status
    if c.identifier and c.identifier[0] not in fields and (not props or c.identifier[0] in props):
        team = _team_key(step, role) or c.identifier[1]
        fields[c.identifier[0]] = f"{team}-{_next_in_series(step, role, c.identifier[0], team)}"
    for url_field in (c.url[0] if c.url else ()):
        if url_field not in fields and (not props or url_field in props):
            scope = {name: value for name, value in zip(role.scope_args, role.scope_of(step.arguments))}
            try:
                fields[url_field] = c.url[1].format(key=key_value, **scope)  # type: ignore[index]
            except (KeyError, IndexError, ValueError):
                pass
    if "sha" in known.fields and isinstance(fields.get("content"), str) and (not props or "sha" in props):
        fields["sha"] = content_sha(fields["content"])  # what a git host names the file's content by
    for flag in ("completed", "is_completed", "archived", "is_archived", "checked", "done", "deleted", "is_deleted"):
        if flag not in fields and (flag in props or (not props and flag in known.fields)):
            sub = props.get(flag) or {"type": "boolean"}
            if isinstance(sub, dict) and sub.get("type") == "boolean":
                fields[flag] = False  # a new item is not done yet
    _profiled_fields(step, role, fields, key_value, props)
    _session_fields(step, fields, props or {name: {} for name in known.fields})
    if props:
        return
    if role.key_field != "number" and known.key_type == "integer" and "number" in known.fields:
        fields.setdefault("number", key_value)
    created = c.created[0] if c.created else next(
        (f for f in known.fields if f in ("created_at", "createdAt", "created", "date_created")), None)

    if created or not role.key_args:  # the service made it (a caller-named key-value entry has no timestamp)
        fields.setdefault(created or _CREATED, now_iso(step.turn))
    for name in known.fields:
        if name not in fields and name in _ZERO_FIELDS:
            fields[name] = 0
        elif name not in fields and name in c.inactive_flags:
            fields[name] = False


#: Words naming who acts in a session: a new record's field of that name is the session's (the logged-in user).
_ACTOR_WORDS = frozenset({"user", "username", "author", "owner", "creator", "sender", "poster", "account", "login"})


def _session_fields(step: Step, fields: JSONDict, props: JSONDict) -> None:
    """Fields naming who acts (``username``, ``author``) that the world's standing state holds by the same
    name (a session record's ``username``, set by the seed or a login) are the new record's: the logged-in
    user posts, not a stranger. Only string values, and only fields the caller did not give."""
    from .determined import name_key, standing

    session = {name_key(f): v for e in standing(step) if e.collection != step.role.collection
               for f, v in e.fields.items() if isinstance(v, str) and v and set(words(f)) & _ACTOR_WORDS}
    for name in props:
        if name not in fields and set(words(name)) & _ACTOR_WORDS and name_key(name) in session:
            fields[name] = session[name_key(name)]


def _profiled_fields(step: Step, role: ToolRole, fields: JSONDict, key_value: Any, props: JSONDict) -> None:
    """What the service's published profile says a new object carries (``object: page``, a
    ``buy.stripe.com`` url, ``htmlLink``, ``ref: refs/heads/NAME``), where the caller and the
    catalog gave nothing and any outputSchema has room for it."""
    known = entity_type(step, role)
    c = known.conventions if known is not None else None
    if c is None or c.service is None:
        return
    profile = service_profiles.PROFILES[c.service]
    if c.created and c.created[0] not in fields and (not props or c.created[0] in props):
        moment = clock(step.turn)
        fields[c.created[0]] = (int(moment.timestamp()) if c.created[1] == "unix" else
                                moment.strftime("%Y-%m-%dT%H:%M:%S.000Z") if c.created[1] == "iso_ms" else
                                now_iso(step.turn))
    if not c.starting:
        return
    scope = dict(zip(role.scope_args, role.scope_of(step.arguments)))
    values_ = service_profiles.placeholders({**scope, **fields}, key_value, role.collection, profile.defaults)
    for name, value in service_profiles.rendered_fields(c.starting, values_).items():
        if name not in fields and (not props or name in props):
            fields[name] = value


def _team_key(step: Step, role: ToolRole) -> str | None:
    """The key human identifiers start with: a project key given (``project_key: ROC``), or the key of
    the parent named by a foreign id (``teamId`` of a team whose ``key`` is ``ROC``)."""
    for name, value in step.arguments.items():
        if (name == "key" or name.endswith(("_key", "Key"))) and isinstance(value, str) and value.isupper():
            return value
    ledger = step.episode.ledger
    from ...world.roles import id_stem, collection_name

    for name in role.foreign_keys or tuple(a for a in step.arguments if a.endswith(("_id", "Id"))):
        value, stem = step.arguments.get(name), id_stem(name)
        parent = ledger.get(collection_name(stem), value) if stem and isinstance(value, (str, int)) else None
        key = parent.fields.get("key") if parent is not None else None
        if isinstance(key, str) and key:
            return key
    return None


def _next_in_series(step: Step, role: ToolRole, name: str, team: str) -> int:
    """The next number of ``TEAM-n`` identifiers (a scan of the collection: creates only)."""
    prefix, highest = f"{team}-", 0
    for entity in step.episode.ledger.items(role.collection):
        value = entity.fields.get(name)
        if isinstance(value, str) and value.startswith(prefix) and value[len(prefix):].isdigit():
            highest = max(highest, int(value[len(prefix):]))
    return highest + 1


# -- lists ---------------------------------------------------------------------------------------------


def active(step: Step, role: ToolRole, item: JSONDict) -> bool:
    """Whether a list shows ``item``: a state filter the caller gave decides; without one, the
    service's default (``state`` defaults to ``open``) or its active items (not completed or archived)."""
    known = entity_type(step, role)
    status_field = known.conventions.status_field if known else None
    for name in (status_field, "status", "state"):
        if name and name in step.arguments:
            return True  # the filter decides (``matches``), ``all`` included
    props = (step.tool.input_schema.get("properties") or {})
    for name in (status_field, "status", "state"):
        schema = props.get(name) if name else None
        if isinstance(schema, dict) and isinstance(schema.get("default"), str) and name in item:
            wanted = schema["default"]
            return wanted.casefold() in ("all", "any") or str(item[name]).casefold() == wanted.casefold()
    for flag in ("completed", "is_completed", "archived", "is_archived", "checked", "is_deleted"):
        if item.get(flag) is True and flag not in step.arguments:
            return False
    state = item.get(status_field or "status", item.get("state"))
    if not isinstance(state, str):
        return True
    schema = props.get(status_field or "status") or props.get("state") or {}
    enum = [v for v in (schema.get("enum") or []) if isinstance(v, str)] if isinstance(schema, dict) else []
    everything = [v for v in enum if v.casefold() in ("all", "any")]
    if everything:  # a filter offering ``all`` defaults to the first state (GitHub: open | closed | all)
        return state == next(v for v in enum if v not in everything)
    return state.casefold() not in _HIDDEN


_LOWER = ("timeMin", "time_min", "since", "after", "start_after", "from_date", "start_date", "startDate",
          "min_date", "created_after", "updated_after", "date_from")
_UPPER = ("timeMax", "time_max", "until", "before", "end_before", "to_date", "end_date", "endDate", "max_date",
          "created_before", "updated_before", "date_to")
_WHEN = ("start", "start_time", "startTime", "date", "due", "due_date", "dueDate", "scheduled_at", "created_at",
         "createdAt", "updated_at", "timestamp")


def bound_check(name: str, wanted: Any, item: JSONDict, role: ToolRole) -> bool | None:
    """Filters that are not equality: a glob or prefix on the key (``pattern: session:*``) and time
    bounds on the item's date (``timeMin``/``timeMax``, ``since``). None: not such a filter."""
    if name in ("pattern", "glob", "match", "prefix", "key_pattern") and isinstance(wanted, str):
        import fnmatch

        key = str(item.get(role.key_field, ""))
        return key.startswith(wanted) if name == "prefix" else fnmatch.fnmatchcase(key, wanted)
    if name in _LOWER or name in _UPPER:
        when = next((_moment(item[f]) for f in _WHEN if f in item and _moment(item[f])), None)
        if when is None or not isinstance(wanted, str):
            return None
        # ISO 8601 strings compare in time order when written alike; compare on the shorter prefix.
        size = min(len(when), len(wanted), 19)
        return when[:size] >= wanted[:size] if name in _LOWER else when[:size] <= wanted[:size]
    return None


def _moment(value: Any) -> str | None:
    if isinstance(value, dict):  # Google Calendar's ``start: {dateTime}`` / ``{date}``
        value = value.get("dateTime") or value.get("date")
    return value if isinstance(value, str) and value[:4].isdigit() and "-" in value[:8] else None


def wants_all(step: Step, role: ToolRole, name: str) -> bool:
    """``state: all`` selects every state."""
    value = step.arguments.get(name)
    known = entity_type(step, role)
    all_values = known.conventions.all_values if known else ()
    return isinstance(value, str) and (value in all_values or value.casefold() in ("all", "any"))


# -- updates -----------------------------------------------------------------------------------------


def changes_of(step: Step, role: ToolRole, current: JSONDict | None = None) -> JSONDict:
    """Every field the update sets: its arguments (not the key or scope), and those given as one object.
    An object the entity already has as a field (Notion's page ``properties``) is updated in place."""
    skip = set(role.key_args) | set(role.scope_args) | {role.extra.get("selector")}
    skip |= set(role.extra.get("not_fields") or ())  # ``reason``: said of the change, not a field it sets
    changes: JSONDict = {}
    for name, value in step.arguments.items():
        if name in skip or value is None:
            continue
        if name in _CHANGE_OBJECTS and isinstance(value, str) and value.lstrip().startswith("{"):
            value = _json_object(value)  # mcp-atlassian's ``fields='{"summary": ...}'``
        if name in _CHANGE_OBJECTS and isinstance(value, dict) and isinstance((current or {}).get(name), dict):
            changes[name] = {**copy.deepcopy((current or {})[name]), **copy.deepcopy(value)}
        elif name in _CHANGE_OBJECTS and isinstance(value, dict):
            changes.update(copy.deepcopy(value))
        else:
            changes[name] = copy.deepcopy(value)
    for name, value in list(changes.items()):  # ``fields: [{name, value}]`` sets the record's ``fields`` object
        if (pairs := pairs_as_object(value)) is not None and not declared_list(step, name):
            held = (current or {}).get(name)
            changes[name] = {**(held if isinstance(held, dict) else {}), **pairs}
    _into_nested(step, changes, current)
    moved = _workflow_move(role, current)
    if moved:
        changes.setdefault(*moved)
    return changes


def catalog_spelling(step: Step, role: ToolRole, field: str, value: Any) -> Any:
    """``value`` (a state word the model chose for ``field``) as the entity's catalog spells it: the states
    the entity model read from its own tools (``["Open", "Closed"]``; a GraphQL-style filter enum in
    capitals, ``OPEN``, names a state the entity spells ``open``, as ``conventions`` reads it), else its
    seeded records (``status: Open``) or the episode's own; a word none of them is, in the case they are all
    written in."""
    if not isinstance(value, str):
        return value
    known = entity_type(step, role)
    spellings: list[Any] = [] if known is None or known.conventions.status_field != field else list(
        known.conventions.states)
    if spellings and all(word.isupper() for word in spellings):
        spellings = []
    seeded = (step.world.seed or {}).get(role.collection)
    records_ = seeded.values() if isinstance(seeded, dict) else seeded or ()  # a seed keyed by id, or a list
    spellings += [r.get(field) for r in records_ if isinstance(r, dict)]
    spellings += [e.fields.get(field) for e in step.episode.ledger.items(role.collection)[:_SPELLINGS]]  # the
    # episode's own entities (an order placed as ``Pending``)
    folded = value.casefold()
    same = next((w for w in spellings if isinstance(w, str) and w.casefold() == folded), None)
    return same if same is not None else _styled(value, [w for w in spellings if isinstance(w, str)])


#: How many of the episode's entities are read for the way the world spells its states.
_SPELLINGS = 200


def _styled(value: str, words: list[str]) -> str:
    """A word the entity's states lack, in the case every one of them is written in: ``cancelled``
    beside ``Pending`` and ``Open`` is ``Cancelled``; beside ``PENDING`` and ``OPEN``, ``CANCELLED``."""
    styles = {("title" if w[:1].isupper() and w[1:] == w[1:].lower() else "upper" if w.isupper() else "lower"
               if w.islower() else "mixed") for w in words if w.isalpha() and len(w) > 1}
    if len(styles) != 1:
        return value
    style = styles.pop()
    return value.capitalize() if style == "title" else value.upper() if style == "upper" else value


#: Keys of a pair's name and of its value in a list of name/value pairs.
_PAIR_NAMES = ("name", "field", "key", "referenceName", "fieldName", "path")
_PAIR_VALUES = ("value", "val")


def pairs_as_object(value: Any) -> JSONDict | None:
    """A request's list of name/value pairs as the object the resource holds: ``[{"name": "System.Title",
    "value": "Crash"}]`` -> ``{"System.Title": "Crash"}`` (a JSON Patch ``path: /fields/X`` names ``X``);
    None for any other value."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        return None
    out: JSONDict = {}
    for pair in value:
        name = next((pair[k] for k in _PAIR_NAMES if isinstance(pair.get(k), str) and pair[k]), None)
        slot = next((k for k in _PAIR_VALUES if k in pair), None)
        extra = set(pair) - {*_PAIR_NAMES, *_PAIR_VALUES, "op", "from"}
        if name is None or slot is None or extra:
            return None
        out[name.rsplit("/", 1)[-1] if name.startswith("/") else name] = copy.deepcopy(pair[slot])
    return out


def declared_list(step: Step, name: str) -> bool:
    """Whether the tool's outputSchema holds ``name`` as a list (at its top or one object down): the
    service answers the pairs as they came, so they stay a list."""
    out = step.tool.output_schema or {}
    props = dict(out.get("properties") or {})
    for sub in list(props.values()):
        if isinstance(sub, dict):
            props.update({k: v for k, v in (sub.get("properties") or {}).items() if k not in props})
    found = props.get(name)
    return isinstance(found, dict) and found.get("type") == "array"


def _into_nested(step: Step, changes: JSONDict, current: JSONDict | None) -> None:
    """Arguments the record holds inside one of its objects land there: ``change_member_address(street,
    city, zip)`` changes the member's ``address``, not new top-level fields beside it. The object is the
    one field holding the argument's name (of several, the one the tool's name names); a name the record
    has at its top level stays there."""
    if not current:
        return
    named = set(words(step.tool.name))
    merged: JSONDict = {}
    for name in [n for n in changes if n not in current]:
        holders = [f for f, v in current.items() if isinstance(v, dict) and name in v]
        if len(holders) > 1:
            holders = [f for f in holders if set(words(f)) & named]
        if len(holders) == 1:
            holder = holders[0]
            merged.setdefault(holder, copy.deepcopy(current[holder]))[name] = changes.pop(name)
    changes.update(merged)


def _workflow_move(role: ToolRole, current: JSONDict | None) -> tuple[str, str] | None:
    """``advance_status(item_id)`` ("to next status in its workflow"): the state after (or before) the
    current one in the order the catalog lists them; the ends stay where they are."""
    flow = role.extra.get("workflow")
    if not isinstance(flow, dict) or current is None:
        return None
    field, states, step = flow.get("field"), flow.get("states") or [], flow.get("step") or 0
    if not isinstance(field, str) or current.get(field) not in states:
        return None
    at = states.index(current[field]) + int(step)
    return field, states[min(max(at, 0), len(states) - 1)]


def _json_object(text: str) -> Any:
    """The object a JSON string holds, else the string itself."""
    import json

    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return parsed if isinstance(parsed, dict) else text


def content_sha(content: str) -> str:
    """The git blob id of ``content`` (``git hash-object``): deterministic, and what git hosts return."""
    import hashlib

    data = content.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
