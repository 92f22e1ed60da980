"""A record found by its attributes: ``find_member_id_by_phone(phone)``, ``lookup_guest_by_name_city(first_name,
last_name, city)``, ``get_parcel_by_tracking(tracking_number)``.

Such a tool is named ``<verb> <noun> [id] by <attributes>`` (find, get, lookup, search, fetch, resolve,
retrieve) and every argument names a field the noun's records hold, at their top level or one object
down (``name.first_name``, ``address.city``). Over the episode's records of that collection (seeded or
made) the answer is the one record whose fields equal the arguments (strings compared without case or
surrounding blanks, as an email is), or its key where the name asks for the id (``ana_ruiz_7``, printed
as it is without an outputSchema, else in the schema's one field); several matches are listed; none is
the collection's not-found error. A plural noun (``get_posts_by_author``) is a listing: always a list,
empty when nothing matches. Where the records hold no such fields, or the noun names no
collection the episode holds, the call is left to the rest of the model.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ...world.roles import PAGINATION_ARGS, collection_name, singular, words

if TYPE_CHECKING:
    from ...state.ledger import Entity
    from ..base import Prediction, Step

JSONDict = dict[str, Any]

_VERBS = frozenset({"find", "get", "lookup", "look", "search", "fetch", "resolve", "retrieve", "query"})
#: Words between the verb and ``by`` that say what comes back, not which records.
_ANSWER_WORDS = frozenset({"id", "ids", "details", "detail", "info", "information", "up", "record", "records"})


def predict_by_attributes(step: Step) -> Prediction | None:
    """The answer of an attribute lookup over the episode's records (see the module doc), or None."""
    named = words(step.tool.name)
    if "by" not in named or named[0] not in _VERBS:
        return None
    cut = named.index("by")
    noun = [w for w in named[1:cut] if w not in _ANSWER_WORDS]
    wants_id = bool({"id", "ids"} & set(named[1:cut]))
    collection = _collection(step, noun)
    if collection is None:
        return None
    asked = {k: v for k, v in step.arguments.items()
             if k not in PAGINATION_ARGS and isinstance(v, (str, int, float)) and not isinstance(v, bool)
             and str(v).strip()}
    records = step.episode.ledger.items(collection)
    if not asked or not any(all(_field(e.fields, name) is not _ABSENT for name in asked) for e in records):
        return None  # the arguments are not attributes these records hold
    matches = [e for e in records if all(_equal(_field(e.fields, k), v) for k, v in asked.items())]
    many = not wants_id and singular(noun[-1]) != noun[-1]  # ``get_posts_by_author``: a listing, even of none
    if not matches and not many:
        from .common import not_found

        role = dataclasses.replace(step.role, collection=collection, style="record")
        return not_found(step, role, ", ".join(str(v) for v in asked.values()))
    return _answer(step, matches, wants_id, many)


def _collection(step: Step, noun: list[str]) -> str | None:
    """The collection the episode holds records of under the noun (``user`` -> ``users``)."""
    if not noun:
        return None
    held = set(step.episode.ledger.collections())
    for candidate in ("_".join(noun), noun[-1]):
        for name in (collection_name(candidate), candidate):
            if name in held:
                return name
    last = singular(noun[-1])
    return next((c for c in sorted(held) if singular(c) == last), None)


_ABSENT = object()


def _field(fields: JSONDict, name: str) -> Any:
    """The record's value of ``name``: at its top level, else in the one object one level down holding it."""
    if name in fields:
        return fields[name]
    inner = [v[name] for v in fields.values() if isinstance(v, dict) and name in v]
    return inner[0] if len(inner) == 1 else _ABSENT


def _equal(held: Any, asked: Any) -> bool:
    if held is _ABSENT or isinstance(held, (dict, list)):
        return False
    if isinstance(held, str) or isinstance(asked, str):
        return str(held).strip().casefold() == str(asked).strip().casefold()
    return bool(held == asked)


def _answer(step: Step, matches: list[Entity], wants_id: bool, many: bool) -> Prediction:
    from ..base import Prediction
    from .common import conform

    out = step.tool.output_schema
    if wants_id:
        keys: list[Any] = [_key_value(e) for e in matches]
        value: Any = keys[0] if len(keys) == 1 else keys
        if not out:
            text = value if isinstance(value, str) else ", ".join(map(str, keys))
            return Prediction(text, effects=[])
        props = out.get("properties") or {}
        name = next((p for p in props if p.endswith(("id", "ids", "Id", "Ids"))), next(iter(props), "id"))
        return Prediction(conform({name: value}, out, step.rng), effects=[])
    found: Any = [dict(e.fields) for e in matches]
    if many:
        from .common import render_list

        return Prediction(render_list(step, step.role, found), effects=[])
    body = found[0] if len(found) == 1 else found
    return Prediction(conform(body, out, step.rng) if out else body, effects=[])


def _key_value(entity: Entity) -> Any:
    """The record's key as its fields hold it (``12`` stays a number), else the ledger's key."""
    from ...state.ledger import identity

    found = identity(entity.fields, entity.collection)
    if found is not None and found[0] in entity.fields:
        return entity.fields[found[0]]
    return entity.key


__all__ = ["predict_by_attributes"]
