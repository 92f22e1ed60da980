"""Answers made of records another tool holds: a read of a linked record, a map grouped by a reference.

Shapes the role inference cannot see from a tool alone, read from the catalog and the state:

* **one entity, two names**: ``register_delivery_van`` and ``get_all_delivery_vans`` infer ``vans``
  while the seed holds ``delivery_vans``; a ``van_id`` argument names a ``delivery_vans`` record.
  A collection the state does not hold is the one it holds under a longer name ending with it
  (:func:`linked_role`, :func:`collection_of`).
* **a map keyed by the records' ids**: an answer field that is an object described as a
  dictionary keyed by ``X_id`` (or holding all the X) maps each record's key to the record.

* **a linked record**: ``fetch_receipt(shipment_id)`` names a collection nothing creates or
  holds (receipts) but addresses, by an ``X_id`` argument, a record of another collection (the
  shipment a ``make_shipment`` made, or the seed holds). The answer is that record, shaped by the
  outputSchema: placed in the object field whose properties it shares (``receipt: {...}``), the
  argument standing for its key (``shipment_id``). Only for tools named with the noun in the
  singular (one thing is read: ``list_comments(issue_id)`` still lists comments).
* **a record an action made**: an action whose answer carries a fresh ``X_id`` (``reserve_room`` ->
  ``reservation_id``, ``ship_parcel`` -> ``parcel_id``) where the catalog knows X (a collection the
  state holds, or a tool that takes ``X_id`` as an argument) made an X: the call's arguments and
  the answer's scalar fields are stored under that id, so the tools that take it find it.
* **a map grouped by a reference**: an answer field that is an object with no properties of its
  own, described as grouped or keyed by something (``notes: "Dictionary of notes grouped
  by driver"``), is a map from a reference to the values sent to it. Its entries are the
  state's *pairs* (seed records of one field each, ``{"USR006": "Got it"}``: the reference is the
  field's name, as a list of pairs in the state stores them) and the records of the collection
  the field names (``notes`` a ``leave_note(driver_id, note)`` created), grouped by
  their reference field (an ``X_id`` other than their own key), each value kept as stored,
  oldest first.

Pure functions of the step; None when the shape does not apply (the caller answers as before).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any

from ...state.ledger import Effect, Entity
from ...world import values
from ...world.roles import ToolRole, collection_name, id_stem, is_id_name, singular, words
from ..base import Prediction, Step
from .common import conform
from .determined import name_key

JSONDict = dict[str, Any]

_GROUPED = re.compile(r"\bgroup\w*|\bmap(?:ping)? (?:of|from)\b", re.IGNORECASE)
#: "A dictionary keyed by order_id where each value ...", "A dictionary containing all registered vans".
_KEYED = re.compile(r"\bkeyed by\s+(?:the\s+)?(\w+)|\b(?:dictionary|map|mapping|object)\b[^.]*?\b(?:all|every|each)\b",
                    re.IGNORECASE)
_READING = ("read", "list", "search", "action")


def linked_answer(step: Step, role: ToolRole) -> Prediction | None:
    """The answer from linked records, or None when the tool's answer is not of these shapes."""
    if role.kind not in _READING or role.style != "record":
        return None
    return grouped_map(step, role) or keyed_map(step, role) or linked_read(step, role)


def linked_role(step: Step, role: ToolRole) -> ToolRole:
    """``role`` on the collection the state holds under a longer name of the same entity.

    ``register_delivery_van`` infers ``vans`` and ``get_all_delivery_vans`` too, while the seed holds
    ``delivery_vans``: where the role's collection is not in the state and exactly one collection
    is, whose last word is the role's noun and all of whose words the tool's name has, that is the
    collection the tool acts on (the same entity in another naming style). A listing whose noun the
    state does not hold lists the one collection it does hold that the name names before that noun."""
    ledger = step.episode.ledger
    held = ledger.collections()
    if role.style != "record" or role.collection in held:
        return role
    noun = singular(role.collection.split("_")[-1])
    named = {singular(w) for w in words(step.tool.name)}
    found = [c for c in held if singular(words(c)[-1]) == noun and len(words(c)) > 1
             and {singular(w) for w in words(c)} <= named]
    if len(found) != 1 and role.kind == "list" and not step.tool.input_schema.get("required"):
        # ``list_all_plant_kinds`` lists the ``plants`` the state holds: the one held collection
        # whose noun the name has before its last word (the kinds of a thing are listed as the things)
        found = [c for c in held if words(c) and {singular(w) for w in words(c)} <= named - {noun}]
    if len(found) != 1:
        return role
    return dataclasses.replace(role, collection=found[0])


def collection_of(step: Step, stem: str) -> str:
    """The state's collection an ``X_id`` argument names: ``X``'s plural, else the one collection
    the state holds whose name ends with it (``van_id`` -> ``delivery_vans``)."""
    target = collection_name(stem)
    held = step.episode.ledger.collections()
    if target in held:
        return target
    longer = [c for c in held if c.endswith(f"_{target}")]
    return longer[0] if len(longer) == 1 else target


# -- a record an action made -----------------------------------------------------------------


def recorded(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` with the creation of the record its fresh ``X_id`` names (see the module doc)."""
    body = answer.observation
    if role.kind != "action" or answer.is_error or not isinstance(body, dict):
        return answer
    ledger = step.episode.ledger
    known = step.derived("id_arguments", lambda: _id_arguments(step))
    made: list[Effect] = []
    for name, value in body.items():
        stem = id_stem(name) if name.endswith(("_id", "Id")) else None
        if stem is None or not isinstance(value, (str, int)) or isinstance(value, bool) or name in step.arguments:
            continue
        collection = collection_name(stem)
        if (collection not in ledger.collections() and name_key(name) not in known) or ledger.get(collection, value):
            continue
        fields = {k: copy.deepcopy(v) for k, v in {**step.arguments, **body}.items()
                  if not isinstance(v, (dict, list)) and v is not None}
        made.append(Effect("create", collection, str(value), fields))
    if not made:
        return answer
    return Prediction(answer.observation, is_error=False, effects=[*(answer.effects or []), *made],
                      info=answer.info, text=answer.text, checked=answer.checked)


def _id_arguments(step: Step) -> frozenset[str]:
    """The ``X_id`` argument names the catalog's tools take (by :func:`name_key`)."""
    names: set[str] = set()
    for tool in step.world.tools:
        props = ((tool.get("inputSchema") or {}).get("properties") or {}) if isinstance(tool, dict) else {}
        names |= {name_key(n) for n in props if n.endswith(("_id", "Id"))}
    return frozenset(names)


# -- a map keyed by the records' ids --------------------------------------------------------


def keyed_map(step: Step, role: ToolRole) -> Prediction | None:
    """An answer field described as a dictionary keyed by ``X_id`` (or holding all the X) is the map
    from each record's key to the record: a seeded one as stored, one a call made shaped to the
    declared item fields (not the call's other arguments, a credential among them)."""
    out = step.tool.output_schema
    props = (out or {}).get("properties") or {}
    found = [(n, s, m) for n, s in props.items() if isinstance(s, dict) and s.get("type") == "object"
             and not _GROUPED.search(str(s.get("description") or ""))
             and (m := _KEYED.search(str(s.get("description") or "")))]
    if not out or len(found) != 1:
        return None
    name, sub, match = found[0]
    collection = _keyed_collection(step, name, match.group(1), role)
    if collection is None:
        return None
    declared = sub.get("properties") or {}
    mapped: JSONDict = {}
    for entity in step.episode.ledger.items(collection):
        fields = {k: v for k, v in entity.fields.items() if k != "id" and str(v) != entity.key}
        shared = {name_key(k) for k in fields} & {name_key(k) for k in declared}
        if len(shared) >= 2 and (entity.created_turn or 0) > 0:  # a call's record: the item's declared fields
            fields = {k: v for k, v in fields.items() if name_key(k) in {name_key(d) for d in declared}}
        mapped[entity.key] = copy.deepcopy(fields)
    body = values.generate(out, step.rng)
    body[name] = mapped
    return Prediction(conform(body, out, step.rng), effects=[])


def _keyed_collection(step: Step, field: str, key_name: str | None, role: ToolRole) -> str | None:
    """The collection a keyed map holds: the one its ``X_id`` names, else the one whose words the field's
    name has, else the tool's own (a listing tool's map of its entity)."""
    held = step.episode.ledger.collections()
    stem = id_stem(key_name) if key_name else None
    if stem is not None:
        target = collection_of(step, stem)
        return target if target in held else None
    named = {singular(w) for w in words(field)}
    fits = sorted((c for c in held if {singular(w) for w in words(c)} <= named), key=lambda c: -len(words(c)))
    if fits:
        return fits[0]
    return role.collection if role.collection in held else None


# -- a map grouped by a reference -------------------------------------------------------------


def grouped_map(step: Step, role: ToolRole) -> Prediction | None:
    out = step.tool.output_schema
    props = (out or {}).get("properties") or {}
    fields = [n for n, s in props.items() if isinstance(s, dict) and s.get("type") == "object"
              and not s.get("properties") and _GROUPED.search(str(s.get("description") or ""))]
    if not out or len(fields) != 1:
        return None
    name = fields[0]
    entries = pairs(step) + _referenced(step, name)
    if not entries:
        return None
    grouped: dict[str, list[Any]] = {}
    for reference, value in entries:
        grouped.setdefault(reference, []).append(copy.deepcopy(value))
    body = values.generate(out, step.rng)
    body[name] = grouped
    return Prediction(conform(body, out, step.rng), effects=[])


def pairs(step: Step) -> list[tuple[str, Any]]:
    """``(reference, value)`` of every seeded pair record: one field, named by no schema of the catalog."""
    ledger = step.episode.ledger
    named = step.derived("schema_property_names", lambda: _property_names(step))
    found: list[tuple[str, Any]] = []
    for collection in ledger.collections():
        items = ledger.items(collection)
        if items and all(len(e.fields) == 1 and _pair_field(next(iter(e.fields)), named) for e in items):
            found += [next(iter(e.fields.items())) for e in items]
    return found


def _pair_field(field: str, named: frozenset[str]) -> bool:
    return name_key(field) not in named and not is_id_name(field)


def _property_names(step: Step) -> frozenset[str]:
    names: set[str] = set()
    for tool in step.world.tools:
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key) if isinstance(tool, dict) else None
            names |= {name_key(n) for n in ((schema or {}).get("properties") or {})}
    return frozenset(names)


def _referenced(step: Step, name: str) -> list[tuple[str, Any]]:
    """The records of the collection ``name`` names, as ``(reference, value)`` by their reference field."""
    ledger = step.episode.ledger
    wanted = {name_key(name), name_key(collection_name(name))}
    found: list[tuple[str, Any]] = []
    for collection in ledger.collections():
        if name_key(collection) not in wanted:
            continue
        for entity in ledger.items(collection):
            reference = next((f for f, v in entity.fields.items() if is_id_name(f) and f not in ("id",)
                              and isinstance(v, (str, int)) and str(v) != entity.key), None)
            if reference is None:
                continue
            rest = {f: v for f, v in entity.fields.items() if f != reference and not is_id_name(f) and f != "id"}
            value: Any = next(iter(rest.values())) if len(rest) == 1 else rest
            found.append((str(entity.fields[reference]), value))
    return found


# -- a linked record ---------------------------------------------------------------------------


def linked_read(step: Step, role: ToolRole) -> Prediction | None:
    ledger = step.episode.ledger
    noun = singular(role.collection.split("_")[-1])
    if ledger.items(role.collection) or noun not in words(step.tool.name):
        return None
    found = _addressed(step, role)
    if found is None:
        return None
    arg, entity = found
    record = {**{k: v for k, v in entity.fields.items() if k != "id"}, arg: step.arguments[arg]}
    out = step.tool.output_schema
    if not out:
        return Prediction(copy.deepcopy(record), effects=[])
    props = out.get("properties") or {}
    holder = _holder(props, record)
    if holder is None:
        return None
    body = values.generate(out, step.rng)
    if holder == "":
        body.update(_shaped(props, record))
    else:
        body[holder] = _shaped(props[holder].get("properties") or {}, record)
    return Prediction(conform(body, out, step.rng), effects=[])


def _addressed(step: Step, role: ToolRole) -> tuple[str, Entity] | None:
    """The argument ``X_id`` and the record of collection X it names (by key, or by its field of that name)."""
    ledger = step.episode.ledger
    for arg, value in step.arguments.items():
        stem = id_stem(arg)
        if stem is None or not isinstance(value, (str, int)) or isinstance(value, bool):
            continue
        target = collection_of(step, stem)
        if target == role.collection:
            continue
        entity = ledger.get(target, value) or next(
            (e for e in ledger.items(target) if str(e.fields.get(arg)) == str(value)), None)
        if entity is not None:
            return arg, entity
    return None


def _holder(props: JSONDict, record: JSONDict) -> str | None:
    """The object field of the answer sharing at least two of the record's fields ("" for the answer itself,
    which may share its one field: ``van_fuel`` is the van's ``fuel``)."""
    mine = {name_key(n) for n in record}
    top = {n for n in props if _field_of(n, record) is not None}
    if len(top) >= 2 or (len(props) == 1 and top):
        return ""
    best = None
    for name, sub in props.items():
        inner = (sub.get("properties") or {}) if isinstance(sub, dict) and sub.get("type") == "object" else {}
        shared = len({name_key(n) for n in inner} & mine)
        if shared >= 2 and (best is None or shared > best[1]):
            best = (name, shared)
    return best[0] if best else None


def _shaped(props: JSONDict, record: JSONDict) -> JSONDict:
    if not props:
        return copy.deepcopy(record)
    return {n: copy.deepcopy(record[f]) for n in props if (f := _field_of(n, record)) is not None}


def _field_of(prop: str, record: JSONDict) -> str | None:
    """The record's field an answer property names: the same name in any style, else the name it ends
    with (``van_fuel`` -> ``fuel``, the object's noun before it); the record's key is not such a field."""
    by_key = {name_key(n): n for n in record}
    if name_key(prop) in by_key:
        return by_key[name_key(prop)]
    tail = words(prop)[1:]
    for start in range(len(tail)):
        name = by_key.get(name_key("".join(tail[start:])))
        if name is not None and not is_id_name(name):
            return name
    return None


__all__ = ["collection_of", "grouped_map", "keyed_map", "linked_answer", "linked_read", "linked_role", "pairs", "recorded"]
