"""The built-in deterministic world model: no GPU, no API key, byte-reproducible.

It infers what each tool does (:mod:`agentworld_mcp.world.roles`), answers from the episode's
ledger (creations are readable, updates show, deletions are gone) and invents whatever
else the output needs from the tool's schemas, with the step's seeded generator. Three
styles of resource get the behaviour and wording of the real services they stand for:
REST-like records (here), a file store keyed by path (:mod:`.files`) and a knowledge graph
of named entities (:mod:`.graph`).

``predict`` never changes the episode: it returns the effects, and the engine applies
them only when the call succeeds. That also lets :mod:`agentworld_mcp.pipeline.reconcile` ask
"what would this call change?" about a language model's observation.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any

from ...state.ledger import Effect, Entity, identity
from ...state.result import dump_json
from ...world.catalog import Catalog
from ...world.roles import ToolRole, collection_name, normalise_key, singular, words
from . import paging, ranking, records
from ..base import Prediction, Step
from .actions import action_answer
from .common import (
    CREATED_FIELDS, UPDATED_FIELDS, render_entity, render_list, is_scalar, clock, conform, error, fill,
    item_schema, not_found, now_iso,
)
from .declared import declared_only
from .env_state_report import reported
from .environment import addressed, membership_answer, reads
from .family_key import keyed_by_family
from .forms import in_object_forms
from .keyspace import predict_keyspace
from .kv_text import worded
from .linked import linked_answer, linked_role, recorded
from .next_item import first_pending
from .outcome_text import described
from .query_lang import filter_query, listing as query_listing, predict_statement
from .served import predict_as_served
from .learned_lifecycle import state_field  # a word filter's field, as a recording showed it
from .service_envelope import enveloped
from .siblings import like_siblings, with_siblings  # a new record carries what its collection's records carry
from .stated_end import with_stated_end
from .presumed import presumed, with_presumed  # entities of a scope the recording never listed

JSONDict = dict[str, Any]



class SchemaWorldModel:
    name = "schema"

    async def predict(self, step: Step) -> Prediction:
        """The model's answer, then the layers that correct it, innermost first (each module says why)."""
        from .conformance import conformed  # a valid call gets a schema-valid answer, whatever its parts
        from .derived_values import derived  # counts, lengths, echoes the answer's parts and the call determine
        from .learned_due_filter import with_due_filter  # a past-due listing keeps what is past due
        from .learned_environment import with_environment  # a read's recorded keys (learn_environment.py)
        from .learned_error_envelope import with_error_envelope  # refusals in the server's envelope
        from .learned_answer_keys import with_answer_keys  # no key the recording proved absent
        from .learned_inband_refusal import with_inband_refusal  # refusals answered unflagged, in band
        from .learned_lifecycle import with_lifecycle  # states moved along a recorded order (learn_lifecycle.py)
        from .learned_provenance import entity_kept  # the named entity's fields outrank learned values
        from .learned_shape_argument import with_recorded_shape  # a shape the recording never chose
        from .learned_undo import with_undo  # an undo reverses the episode's own last change
        from .learned_values import with_values  # values a recording makes clear (sim2real/learn_values.py)
        from .learned_views import with_views  # history rows, counts, digests, instants (learn_views.py)
        from .shape import predict_in_shape  # an output shape learned, enriched or stated in a docstring

        step = with_recorded_shape(step)
        answer = with_environment(step, predict_in_shape(step, predict))
        answer = entity_kept(step, answer, with_values(step, answer))
        answer = with_undo(step, with_due_filter(step, conformed(step, with_lifecycle(step, answer))))
        answer = with_inband_refusal(step, with_error_envelope(step, with_views(step, derived(step, answer))))
        return with_siblings(step, with_answer_keys(step, answer))

    def prepare(self, catalog: Catalog) -> None:
        """Before the first call: the domain engines this catalog needs load their libraries (engines/)."""
        from .engines import prepare

        prepare(catalog.world, catalog)

    async def aclose(self) -> None:
        return None


def predict(step: Step) -> Prediction:
    """The deterministic answer to ``step`` and the effects it would have (nothing is applied)."""
    step = with_stated_end(step)  # an interval created without its end ends where its text says: stated_end.py
    from .timezones import in_stated_zone  # times stored in the zone the catalog says it reads them in

    step = in_stated_zone(step)
    if (served := predict_as_served(step, predict)) is not None:  # wrapped results, in-band failures: served.py
        return served
    from .list_fields import predict_list_field  # ``add_tags(paths, tags)`` changes the notes' tags: list_fields.py

    if (changed := predict_list_field(step, _predict)) is not None:
        return changed
    return _predict(step)


def _predict(step: Step) -> Prediction:
    """:func:`predict` past the serving and list-field layers."""
    from .free_object import predict_free_object  # free-form object outputs, editors: free_object.py

    if (free := predict_free_object(step, _predict)) is not None:
        return free
    if (stored := predict_keyspace(step)) is not None:  # typed values under keys, read as written: keyspace.py
        return stored
    if (queried := predict_statement(step)) is not None:  # ``SELECT ... FROM Account`` over records: query_statement.py
        return queried
    from .text_search import predict_text_search  # grep-like matches (path, line, snippet) in stored texts

    if (searched := predict_text_search(step)) is not None:
        return searched
    from .engines import predict_by_engine  # workbooks, documents, shells, arithmetic: engines/

    if (by_engine := predict_by_engine(step)) is not None:
        return by_engine
    from .timezones import predict_time  # times in IANA zones are computed, not invented

    if (computed := predict_time(step, clock(step.turn))) is not None:
        return computed
    from .resolved_time import predict_resolved_time  # ``resolve_datetime(value)`` read in the catalog's zone

    if (resolved := predict_resolved_time(step)) is not None:
        return resolved
    from .by_attributes import predict_by_attributes  # ``find_member_id_by_phone`` over the episode's records

    if (found := predict_by_attributes(step)) is not None:
        return found
    from .counting import predict_count  # ``count_open_issues`` answers a number, not a listing

    if (counted := predict_count(step)) is not None:
        return counted
    role = step.role  # a consolidated tool's action argument may select another role per call
    if role.style == "file":
        from .files import predict_file

        return predict_file(step, role)
    if role.style == "graph":
        from .graph import predict_graph

        return predict_graph(step, role)
    if role.style == "sql":
        from .learned_shape import answer_in_shape  # the database's values in the keys a recording showed
        from .sql import predict_sql

        answer: Prediction = answer_in_shape(step, lambda asked: predict_sql(asked, role))
        return answer
    role = linked_role(step, role)  # the entity the state holds under a longer name (``delivery_vans``)
    from .refusals import refused  # an interval ending before it starts, an invalid RRULE, an unknown parent

    from .inline_tags import without_attribute_filters  # a carried ``#tag`` names no parent to refuse

    if (refusal := refused(without_attribute_filters(step, role), role)) is not None:
        return refusal
    from .stated_preconditions import precondition_refusal  # ``refund_paid_invoice`` of a void invoice

    if (blocked := precondition_refusal(step, role)) is not None:
        return blocked
    handler = _HANDLERS.get(role.kind, action_answer)
    # records another tool holds (linked.py), else the role's handler; outcome fields written from the call
    answer = described(step, recorded(step, role, linked_answer(step, role) or handler(step, role)))
    answer = declared_only(step, role, answer)  # a typed answer keeps to its declared fields (declared.py)
    answer = keyed_by_family(step, role, answer)  # ``entry_id`` beside ``id`` where the family takes it
    answer = reported(step, role, answer)  # an operation's status line (env_state_report.py)
    # a profiled service's envelope (Slack's ``ok: true``) around a key-value store's prose around
    # the first pending item of a ``get_next_task`` (one item, not a list)
    return enveloped(step, role, worded(step, role, first_pending(step, role, answer)))


# -- record style: REST-like entities with ids ------------------------------------------------------


def _new_key(step: Step, role: ToolRole, schema: JSONDict | None, offset: int = 0) -> Any:
    """A fresh identifier: typed as the schema says, else in the catalog's convention (see :mod:`.records`)."""
    return records.new_key(step, role, schema, offset)


def _missing_reference(step: Step, role: ToolRole) -> Prediction | None:
    """``add_comment(issue_id=999)`` fails like the service when issue 999 is known not to exist."""
    ledger = step.episode.ledger
    for arg in role.foreign_keys:
        value = step.arguments.get(arg)
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            continue
        from ...world.roles import id_stem

        stem = id_stem(arg)
        if stem is None:
            continue
        target = collection_name(stem)
        scoped = records.model(step).entity(target)
        if scoped is not None and scoped.scope and all(a in step.arguments for a in scoped.scope):
            from ...state.ledger import compound_key

            value = compound_key(*(step.arguments[a] for a in scoped.scope), value)
        if target in ledger.collections() and ledger.get(target, value) is None and not _only_observed(ledger, target):
            from dataclasses import replace

            return not_found(step, replace(role, collection=target, style="record"), str(step.arguments[arg]))
    return None


def _only_observed(ledger: Any, collection: str) -> bool:
    """Whether all the world knows of ``collection`` is a listing's sample (``observed.py``): other ids may exist."""
    return all(e.status == "observed" for e in ledger.items(collection))


def _new_entity(step: Step, role: ToolRole, given: JSONDict, schema: JSONDict | None,
                offset: int = 0) -> tuple[str, JSONDict] | Prediction:
    """The key and stored fields of an entity created from ``given`` (arguments, or one batch item)."""
    ledger = step.episode.ledger
    skip = (role.batch_arg, role.extra.get("selector"))  # the action argument is not a field of the entity
    fields = {k: copy.deepcopy(v) for k, v in given.items() if v is not None and k not in skip}
    for name, value in list(fields.items()):  # ``fields: [{name, value}]`` is stored as the object it sets
        if (pairs := records.pairs_as_object(value)) is not None and not records.declared_list(step, name):
            fields[name] = pairs
    if not step.tool.output_schema:  # ``start: '2026-12-01T10:00'`` kept as ``{"dateTime": ...}`` (forms.py)
        fields = in_object_forms(step.tool.input_schema, fields, step.arguments)
    props = (schema or {}).get("properties") or {}
    for prop, sub in (step.tool.input_schema.get("properties") or {}).items():
        wanted = prop in props or not props
        if wanted and prop not in fields and isinstance(sub, dict) and "default" in sub:
            fields[prop] = copy.deepcopy(sub["default"])
    key_value = next((given[a] for a in role.key_args if is_scalar(given.get(a))), None)
    if key_value is None and is_scalar(given.get(role.key_field)):
        key_value = given[role.key_field]
    if key_value is not None:
        key = role.scoped(given, normalise_key(role.style, key_value))
        if ledger.get(role.collection, key) is not None and not role.extra.get("upsert"):
            return error(f"{role.noun} {key_value} already exists")
        fields.setdefault(role.key_field, key_value)
    else:
        key_value = _new_key(step, role, schema, offset)
        fields = {role.key_field: key_value, **fields}
        key = role.scoped(step.arguments, str(key_value))
    for name in CREATED_FIELDS + UPDATED_FIELDS:
        if name in props and name not in fields:
            fields[name] = now_iso(step.turn)
    records.starting_fields(step, role, fields, key_value, schema)
    like_siblings(step, role.collection, fields, role.key_field, set(props) if props else None,
                  set(given) | set(step.tool.input_schema.get("properties") or {}))
    _like_siblings(step, role, fields, str(key_value), schema)
    return key, fill(fields, schema, step.rng, step.turn)


def _like_siblings(step: Step, role: ToolRole, fields: JSONDict, key: str, schema: JSONDict | None) -> None:
    """Required fields that embed the key in existing entities do so in the new one too.

    Seed issue 1 has ``url: https://tracker.acme.test/rocket/issues/1``, so issue 4 gets
    ``.../issues/4`` rather than an invented address.
    """
    required = (schema or {}).get("required") or ()
    missing = [name for name in required if name not in fields]
    if not missing:
        return
    last = step.episode.ledger.last(role.collection)
    if last is None:
        return
    for name in missing:
        value = last.fields.get(name)
        if isinstance(value, str) and value.endswith("/" + last.key):
            fields[name] = value[: -len(last.key)] + key



def _create(step: Step, role: ToolRole) -> Prediction:
    if (member := membership_answer(step, role)) is not None:  # ``add_to_favourites``: a list the state holds
        return member
    if reads(step) and addressed(step, role) is not None:  # ``get_book_info(isbn)`` of a seeded book reads it
        return action_answer(step, role)
    problem = _missing_reference(step, role)
    if problem is not None:
        return problem
    schema = item_schema(step, role)
    batch = step.arguments.get(role.batch_arg) if role.batch_arg else None
    if isinstance(batch, list):
        created: list[JSONDict] = []
        effects: list[Effect] = []
        keys: set[str] = set()
        scope = {a: step.arguments[a] for a in role.scope_args if a in step.arguments}
        for item in batch:
            if not isinstance(item, dict):
                continue
            made = _new_entity(step, role, {**scope, **item}, schema, offset=len(effects))  # in the call's scope
            if isinstance(made, Prediction):
                return made
            key, entity = made
            if key in keys:
                return error(f"{role.noun} {key} appears twice in {role.batch_arg}")
            keys.add(key)
            effects.append(Effect("create", role.collection, key, entity))
            created.append(entity)
        effects += records.counter_effects(step, role, [e.get(role.key_field) for e in created])
        return Prediction(render_list(step, role, created), effects=effects)
    children = role.extra.get("children") or {}
    given = {k: v for k, v in step.arguments.items() if k not in children}
    made = _new_entity(step, role, given, schema)
    if isinstance(made, Prediction):
        return made
    key, entity = made
    effects = []
    shown = dict(entity)
    for arg, (collection, link) in children.items():
        entity.setdefault(link, entity.get(role.key_field))  # the name the children (and callers) use for it
        shown = {link: entity[link], **shown}
        made_children = _new_children(step, role, collection, link, entity[link], step.arguments.get(arg))
        if isinstance(made_children, Prediction):
            return made_children
        effects += [Effect("create", collection, k, e) for k, e in made_children]
        shown[arg] = [e for _, e in made_children]
    effects.insert(0, Effect("create", role.collection, key, entity))
    effects += records.counter_effects(step, role, [entity.get(role.key_field)])  # ``order_counter`` moves on
    return Prediction(render_entity(step, role, shown), effects=effects)


def _new_children(step: Step, role: ToolRole, collection: str, link: str, parent: Any,
                  items: Any) -> list[tuple[str, JSONDict]] | Prediction:
    """The entities a create makes inside the new one (``request_planning(tasks: [...])`` makes each task)."""
    from dataclasses import replace

    known = records.model(step).entity(collection)
    child_role = replace(role, collection=collection, key_args=(), batch_arg=None, extra={}, foreign_keys=(link,),
                         key_field=known.key_field if known else "id", scope_args=(), wrapper=None)
    made: list[tuple[str, JSONDict]] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        child = _new_entity(step, child_role, {**item, link: parent}, None, offset=len(made))
        if isinstance(child, Prediction):
            return child
        made.append(child)
    return made


def _target(step: Step, role: ToolRole) -> tuple[str | None, Entity | None]:
    key = role.key_of(step.arguments)
    if key is None:
        return None, None
    entity = records.lookup(step, role, key)
    return (entity.key if entity is not None else key), entity


def _filled(step: Step, role: ToolRole, entity: Entity) -> tuple[JSONDict, list[Effect]]:
    """The entity as the output schema needs it; fields it had to invent are kept (same answer next time)."""
    fields = copy.deepcopy(entity.fields)
    schema = item_schema(step, role)
    own_id = f"{singular(role.collection)}_id"  # stored by a tool naming it ``order_id``, read as ``id``
    if schema and "id" in (schema.get("properties") or {}) and "id" not in fields and is_scalar(fields.get(own_id)):
        fields["id"] = fields[own_id]
    full = fill(fields, schema, step.rng, entity.created_turn or 0) if schema else fields
    if not isinstance(full, dict):  # the listing's items are scalars (names, paths): rendering picks the key
        return fields, []
    added = {k: v for k, v in full.items() if k not in fields}
    return full, ([Effect("observe", role.collection, entity.key, added)] if added else [])


def _shown(step: Step, role: ToolRole, key: str) -> str:
    """The key as the caller wrote it (``3``), not its scoped ledger form."""
    return next((str(step.arguments[a]) for a in role.key_args if is_scalar(step.arguments.get(a))), key)


def _read(step: Step, role: ToolRole) -> Prediction:
    batch = step.arguments.get(role.batch_arg) if role.batch_arg else None
    if isinstance(batch, list) and role.key_of(step.arguments) is None:
        return _read_many(step, role, batch)
    key, entity = _target(step, role)
    if key is None:
        return _list(step, role)
    if entity is None and (entity := _described_holder(step, role, key)) is not None:
        role = dataclasses.replace(role, collection=entity.collection)
    if entity is None:
        return not_found(step, role, _shown(step, role, key))
    fields, effects = _filled(step, role, entity)
    return Prediction(render_entity(step, role, fields), effects=effects)


def _described_holder(step: Step, role: ToolRole, key: str) -> Entity | None:
    """The record ``key`` names in another collection the read's description says it covers: ``get_message``
    "Get a message (including drafts) by id" reads the draft ``create_draft`` made."""
    said = {singular(w) for w in words(step.tool.description or "")}
    ledger = step.episode.ledger
    for collection in ledger.collections():
        if collection != role.collection and singular(collection) in said:
            if (entity := ledger.get(collection, key)) is not None:
                return entity
    return None


def _read_many(step: Step, role: ToolRole, keys: list[Any]) -> Prediction:
    """``get_items_batch(ids=[...])``: the records those keys name, in the order asked; keys naming
    nothing are left out (as batch reads answer), and a batch naming nothing at all is not found."""
    found, effects = [], []
    for key in keys:
        entity = records.lookup(step, role, role.scoped(step.arguments, normalise_key(role.style, key)))
        if entity is not None:
            fields, filled = _filled(step, role, entity)
            found.append(fields)
            effects += filled
    if keys and not found:
        return not_found(step, role, ", ".join(map(str, keys)))
    return Prediction(render_list(step, role, found), effects=effects)


def _update(step: Step, role: ToolRole) -> Prediction:
    batch = step.arguments.get(role.batch_arg) if role.batch_arg else None
    if isinstance(batch, list) and role.key_of(step.arguments) is None:
        return _update_many(step, role, batch)
    key, entity = _target(step, role)
    if key is None and (entity := _standing_record(step, role)) is not None:
        key = entity.key  # ``set_thermostat(temperature)`` sets the one thermostat the world holds
        role = dataclasses.replace(role, collection=entity.collection)
    if key is None:
        return action_answer(step, role)
    if entity is None and role.extra.get("upsert"):  # ``set(key, value)`` of a store without a create
        given = {k: v for k, v in step.arguments.items() if k not in role.scope_args}
        made = _new_entity(step, role, given, item_schema(step, role))
        if isinstance(made, Prediction):
            return made
        new_key, fields = made
        return Prediction(render_entity(step, role, fields), effects=[Effect("create", role.collection, new_key, fields)])
    if entity is None and (entity := presumed(step, role, key)) is None:  # a scope never listed: presumed.py
        return not_found(step, role, _shown(step, role, key))
    changes = records.changes_of(step, role, entity.fields)
    if not step.tool.output_schema:
        changes = in_object_forms(step.tool.input_schema, changes, step.arguments)
    for name, value in role.sets.items():  # ``close`` -> ``closed``, spelled as the catalog spells it (``Closed``)
        changes.setdefault(name, records.catalog_spelling(step, role, name, value))
    schema = item_schema(step, role)
    props = (schema or {}).get("properties") or {}
    for name in UPDATED_FIELDS:
        if name in props or name in entity.fields:
            changes[name] = now_iso(step.turn)
    merged = {**entity.fields, **changes}
    full = fill(merged, schema, step.rng, step.turn) if schema else merged
    changes.update({k: v for k, v in full.items() if k not in merged})
    return with_presumed(step, entity, Prediction(render_entity(step, role, full),
                                                  effects=[Effect("update", role.collection, key, changes)]))


def _standing_record(step: Step, role: ToolRole) -> Entity | None:
    """The one record of the collection an unkeyed update names (``thermostat`` or ``thermostats``), where
    every argument names one of its fields: a device or a setting, not a record among many."""
    ledger = step.episode.ledger
    noun = singular(role.collection)
    held = [c for c in ledger.collections() if singular(c) == noun]
    if len(held) != 1 or len(items := ledger.items(held[0])) != 1:
        return None
    given = [n for n, v in step.arguments.items() if v is not None]
    return items[0] if given and all(n in items[0].fields for n in given) else None


def _update_many(step: Step, role: ToolRole, batch: list[Any]) -> Prediction:
    """``update_tasks(tasks: [{id, content}])`` or ``complete_tasks(ids)``: each one updated as by itself."""
    from dataclasses import replace

    single = replace(role, batch_arg=None, key_args=(role.key_field, "id"))
    updated, keys, effects = [], [], []
    for item in batch:
        arguments = item if isinstance(item, dict) else {role.key_field: item}
        one = replace(step, arguments={**arguments, **{a: step.arguments[a] for a in role.scope_args if a in step.arguments}})
        one.__dict__["role"] = single
        answer = _update(one, single)
        if answer.is_error:
            return answer
        effects += answer.effects or []
        keys.append(_shown(one, single, ""))
        for effect in answer.effects or []:  # the entity as updated (the answer is shaped for one entity)
            before = step.episode.ledger.get(effect.collection, effect.key)
            updated.append({**(before.fields if before else {}), **effect.fields})
    return Prediction(_render_batch(step, role, updated, keys), effects=effects)


def _render_batch(step: Step, role: ToolRole, entities: list[Any], keys: list[str]) -> Any:
    """Several entities as the tool returns them: the entities under the items field, their keys in
    arrays of ids (``completed: [...]``), counts; failures and errors stay empty."""
    out = step.tool.output_schema
    if not out:
        return entities
    body: JSONDict = {}
    for name, sub in (out.get("properties") or {}).items():
        items = sub.get("items") if isinstance(sub, dict) and sub.get("type") == "array" else None
        if name in ("failures", "errors", "failed"):
            body[name] = []  # nothing failed
            continue
        if not isinstance(items, dict):
            continue
        if items.get("type") in ("string", "integer"):
            body[name] = keys
        elif name == role.items_field or items.get("type") == "object":
            body[name] = entities if name == role.items_field else []
    for name, sub in (out.get("properties") or {}).items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if kind in ("integer", "number") and (name.lower().endswith("count") or name.lower().startswith("total")):
            body[name] = 0 if "fail" in name.lower() or "error" in name.lower() else len(entities)
    return conform(body, out, step.rng)


def _delete(step: Step, role: ToolRole) -> Prediction:
    if (member := membership_answer(step, role)) is not None:  # ``remove_X_from_favourites``: the X stays
        return member
    ledger = step.episode.ledger
    keys_arg = role.batch_arg if role.batch_arg and isinstance(step.arguments.get(role.batch_arg), list) else None
    if keys_arg:
        keys = [str(k) for k in step.arguments[keys_arg]]
    else:
        key, found = _target(step, role)
        if key is None:
            return action_answer(step, role)
        if found is None and (found := presumed(step, role, key)) is None:  # a scope never listed: presumed.py
            return not_found(step, role, _shown(step, role, key))
        keys = [key]
    entities = []
    for key in keys:
        entity = ledger.get(role.collection, role.scoped(step.arguments, key)) if keys_arg else ledger.get(
            role.collection, key) or found
        if entity is None:
            return not_found(step, role, key)
        entities.append(entity)
    effects = [*(Effect("observe", e.collection, e.key, dict(e.fields)) for e in entities
                 if ledger.get(e.collection, e.key, include_deleted=True) is None),  # presumed: then gone
               *(Effect("delete", role.collection, e.key) for e in entities)]
    shown = [str(e.fields.get(role.key_field, _shown(step, role, e.key))) for e in entities]
    message = f"{role.noun} {', '.join(shown)} deleted"
    out = step.tool.output_schema
    if not out:
        # What was deleted, as the service shows it (``{"id": "cus_4", ..., "deleted": true}``).
        gone = [{**e.fields, "deleted": True} for e in entities]
        return Prediction(gone[0] if len(gone) == 1 and not keys_arg else gone, effects=effects)
    props = out.get("properties") or {}
    body: JSONDict = {}
    for name, sub in props.items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if name in ("deleted", "success", "ok") and kind == "boolean":
            body[name] = True
        elif name in ("message", "status", "result") and kind == "string":
            body[name] = message if name != "status" else "deleted"
        elif name in (role.key_field, "id") and len(entities) == 1 and name in entities[0].fields:
            body[name] = entities[0].fields[name]
        elif name in role.count_fields or name in ("deleted_count", "deletedCount"):
            body[name] = len(entities)
        elif kind == "object" and len(entities) == 1:  # ``deletedEntity: {type, id}``: what was deleted
            selector = role.extra.get("selector")
            body[name] = {**entities[0].fields, **({selector: step.arguments[selector]}
                                                   if selector in step.arguments else {})}
    return Prediction(conform(body, out, step.rng), effects=effects)


def _move(step: Step, role: ToolRole) -> Prediction:
    args = step.arguments
    source = role.key_of(args)
    dest_arg = next((k for k in ("destination", "to", "dest", "new_name", "new_id", "new_key", "target") if k in args),
                    None)
    if source is None or dest_arg is None:
        return action_answer(step, role)
    entity = step.episode.ledger.get(role.collection, source) or presumed(step, role, source)
    if entity is None:
        return not_found(step, role, source)
    dest = str(args[dest_arg])
    if step.episode.ledger.get(role.collection, dest) is not None:
        return error(f"{role.noun} {dest} already exists")
    moved = {**entity.fields, role.key_field: args[dest_arg]}
    body = render_entity(step, role, moved) if step.tool.output_schema else f"{role.noun} {source} renamed to {dest}"
    return with_presumed(step, entity, Prediction(body, effects=[Effect("move", role.collection, source, moved, new_key=dest)]))


def _list(step: Step, role: ToolRole) -> Prediction:
    if role.extra.get("everywhere"):
        return _search_everywhere(step, role)
    if role.collection not in step.episode.ledger.collections() and not records.creatable(step, role):
        from .category_listing import category_records  # ``get_todos``: the items of type ``todo``

        if (category := category_records(step, role)) is not None:
            within, field, value = category
            kind = dataclasses.replace(within, filters=(*within.filters, field), query_arg=None)
            return _listed(dataclasses.replace(step, arguments={**step.arguments, field: value}), role, [kind])
    if not step.tool.output_schema and role.collection not in step.episode.ledger.collections() and (
            not records.creatable(step, role)):
        from .observed import observed_listing  # the service's existing channels, users...

        return observed_listing(step, role) or action_answer(step, role)  # "get-resource-links" on a world that never heard of links: just answer
    if (role.items_field is None and role.collection not in step.episode.ledger.collections()
            and not records.creatable(step, role) and not _lists_records(step.tool.output_schema)):
        return action_answer(step, role)  # no records to list, none listed: a reading of the call (echoes it)
    return _listed(step, role, [role])


def _key_as(key: str, schema: JSONDict | None, field: str) -> Any:
    """``key`` as the item schema types its key field (``4``, not ``"4"``, where it is an integer)."""
    declared = ((schema or {}).get("properties") or {}).get(field) or {}
    return int(key) if declared.get("type") == "integer" and key.isdigit() else key


def _lists_records(schema: JSONDict | None) -> bool:
    """Whether an answer of ``schema`` holds records: an array of objects at its top or one level down."""
    props = (schema or {}).get("properties") or {}
    arrays = [s for s in props.values() if isinstance(s, dict) and s.get("type") == "array"]
    return schema is None or any(isinstance(a.get("items"), dict) and (
        a["items"].get("type") == "object" or "properties" in a["items"] or "$ref" in a["items"]) for a in arrays)


def _search_everywhere(step: Step, role: ToolRole) -> Prediction:
    """A search named after no entity (``search``, ``API-post-search``) looks through every record collection."""
    from dataclasses import replace

    model = records.model(step)
    within = [replace(role, collection=c, extra={}) for c in step.episode.ledger.collections() if model.entity(c)]
    return _listed(step, role, within)


def _listed(step: Step, role: ToolRole, collections: list[ToolRole]) -> Prediction:
    """The entities the call finds in ``collections``: filtered, ranked by the query, cut into the asked page."""
    from .recurrence import expands, occurrences  # a series listed once per repeat in the window

    found: list[tuple[JSONDict, Entity, ToolRole]] = []
    series = expands(step)
    for within in collections:
        schema = item_schema(step, within, many=True)
        found += [(f, e, within) for e in step.episode.ledger.items(within.collection) for f in occurrences(e.fields, series)
                  if matches(f, step.arguments, within, schema, step) and records.active(step, within, f)]
    if role.extra.get("made_by"):  # ``list_todos`` of a journal: the entries a todo create made (made_by.py)
        from .made_by import made_keys

        made = made_keys(step, role.extra["made_by"])
        found = [hit for hit in found if hit[1].key in made]
    if series is not None:  # occurrences of series beside single items, in the order the description states
        from .intervals import described_order

        found = described_order(step, found, lambda hit: hit[0])
    if series is None and not (role.query_arg and step.arguments.get(role.query_arg)):
        from .recency import newest_first  # ``list_recent_entries``: the newest first (recency.py)

        found = newest_first(step, found)
    found, unreadable = query_listing(step, role, found, lambda hit: hit[0])  # ORDER BY/LIMIT, or the query's error
    if unreadable is not None:
        return unreadable
    query = step.arguments.get(role.query_arg) if role.query_arg else None
    if isinstance(query, str) and query.strip():
        found = ranking.rank(query, found, lambda hit: hit[0])  # best match first, ties in ledger order
    try:
        page = paging.page_of(step, [entity.key for _, entity, _ in found])
    except paging.InvalidCursor as bad:
        return error(str(bad))
    items, effects = [], []
    for shown, entity, within in found[page.start:page.end] if page else found:
        fields, filled = _filled(step, within, entity)
        if role.extra.get("made_by"):  # a todo listed by its entry's key, typed as the listing types it
            fields = {**fields, role.key_field: _key_as(entity.key, item_schema(step, within, many=True),
                                                        role.key_field)}
        items.append({**fields, **{k: v for k, v in shown.items() if entity.fields.get(k) != v}})  # an occurrence's times
        effects += filled
    body = render_list(step, role, items)
    if page is None:
        return Prediction(body, effects=effects)
    if step.tool.output_schema:
        return Prediction(paging.paged_body(body, page, step.tool.output_schema), effects=effects)
    more = paging.more_text(step.tool.name, page)
    return Prediction(body, effects=effects, text=dump_json(body) + "\n\n" + more if more else None)


def matches(item: JSONDict, arguments: JSONDict, role: ToolRole, schema: JSONDict | None = None,
            step: Step | None = None) -> bool:
    """Whether ``item`` passes the call's filters: field equality where the field is known, text search."""
    known = set((schema or {}).get("properties") or {})
    entity = records.entity_type(step, role) if step is not None else None
    from .intervals import window  # ``start``/``end`` of a listing: a window the item's span meets, not equality

    span = window(step, arguments) if step is not None else None
    if span is not None and not span.holds(item):
        return False
    from .inline_tags import attribute_filters, carries  # ``tag: retro``: the record's tags or inline ``#retro``

    carried = attribute_filters(step, role) if step is not None else {}
    for name in role.filters:
        wanted = arguments.get(name)
        if wanted is None or isinstance(wanted, (dict, list)) or (span is not None and name in span.names):
            continue
        if name in carried:
            if not carries(item, carried[name], str(wanted)):
                return False
            continue
        if name not in item and (query := filter_query(step, name, wanted)) is not None:  # ``jql``, ``$filter``: query_lang.py
            if not query(item):
                return False
            continue
        if step is not None and records.wants_all(step, role, name):
            continue
        if name not in item and (bound := records.bound_check(name, wanted, item, role)) is not None:
            if not bound:  # ``pattern: session:*``, ``timeMin``/``timeMax``, ``since``: not equality
                return False
            continue
        field = name if name in item else state_field(step, name, item) or _field_named(name, item)
        if field is not None:
            if not _equal(item[field], wanted):
                return False
        elif name in known:
            return False
    for name, wanted in arguments.items():  # ``labels: [bug]``: the item's list holds every value asked for
        if isinstance(wanted, list) and wanted and all(isinstance(w, (str, int)) for w in wanted):
            have = item.get(name)
            if have is None and entity is not None and name in entity.fields and name not in role.key_args:
                return False  # an issue without labels is not among those labelled ``bug``
            if isinstance(have, list) and not all(any(_equal(h, w) for h in have) for w in wanted):
                return False
    if role.query_arg and arguments.get(role.query_arg) not in (None, ""):
        return _found(str(arguments[role.query_arg]), item)
    return True


def _found(query: str, item: JSONDict) -> bool:
    """Free text over the item's fields: the whole phrase, or every word of it in any field; ``field:value``
    qualifiers (``is:open``, ``state:closed``, ``repo:acme/rocket``) compare with the item's fields when it has
    them (:mod:`.ranking`, which also orders what is found)."""
    return ranking.relevance(query, item) is not None


def _field_named(name: str, item: JSONDict) -> str | None:
    """The item's field a filter names in other words: ``habitat`` for ``habitat_id``, ``ownerId`` for ``owner``."""
    stem = name[:-3] if name.endswith("_id") else name[:-2] if name.endswith("Id") else None
    candidates = (stem,) if stem else (f"{name}_id", f"{name}Id")
    return next((c for c in candidates if c and c in item), None)


def _equal(have: Any, wanted: Any) -> bool:
    if isinstance(have, list):
        return any(_equal(h, wanted) for h in have)
    if isinstance(have, dict):
        found = identity(have)
        return found is not None and found[1].casefold() == str(wanted).casefold()
    if isinstance(have, bool) or isinstance(wanted, bool):
        return have == wanted
    if isinstance(have, (int, float)) and isinstance(wanted, (int, float)):
        return have == wanted  # ``3`` is ``3.0``
    have_text, wanted_text = str(have).casefold(), str(wanted).casefold()
    if have_text == wanted_text:
        return True
    # A day asks for every moment of it: ``date: 2030-04-02`` holds ``2030-04-02T10:15:00Z``.
    return _DAY.fullmatch(wanted_text) is not None and have_text.startswith(wanted_text + "t")


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


_HANDLERS = {
    "create": _create, "read": _read, "list": _list, "search": _list,
    "update": _update, "delete": _delete, "move": _move, "action": action_answer,
}

__all__ = ["SchemaWorldModel", "predict", "conform", "dump_json", "matches", "clock", "now_iso"]
