"""Listings of collections the catalog cannot create: the service's existing entities.

``slack_list_channels`` or ``get_users`` on a catalog with no tool that makes channels or users still lists
what the workspace has. The first listing invents a small, seeded set (three, or fewer when a ``limit``
asks) and records it in the ledger as *observed*, so later listings and reads by id agree with it. Keys
follow the catalog's id convention when it shows one, else an opaque id starting with the noun's initial
(``C7Q2M0ZK4TA`` for a channel, ``U...`` for a user), as many services write them. Persons get a handle, a
real name and an email; the groups a workspace is divided into (channels, teams, projects) a team's name
(``general``, ``engineering``); other entities their noun and number (``Label 1``). Deterministic: seeded
per episode, collection and position, never by the step's generator. A collection some tool writes by place,
naming no key (``set_cell(sheet, row, column)``), is content the agent fills, not a set the service has: its
listing invents nothing. Neither does a computed figure (``get_stats``), nor a collection the records carry
as an attribute (``add_entry(tags=[...])``: :mod:`.inline_tags` counts them).
"""

from __future__ import annotations

import random
import string
from typing import Any

from ...state.ledger import Effect
from ...world.roles import ToolRole, singular
from . import records
from ..base import Prediction, Step

JSONDict = dict[str, Any]

#: How many entities a first listing shows.
LISTED = 3
_PERSONS = frozenset({"user", "member", "person", "people", "contact", "employee", "author", "assignee", "agent",
                      "collaborator", "participant", "attendee", "owner", "customer", "student", "teacher"})
_GIVEN = ("Alice", "Bob", "Carol", "Dmitri", "Esther", "Farid", "Grace", "Hiro")
_FAMILY = ("Martin", "Nakamura", "Okafor", "Silva", "Kowalski", "Haddad", "Lindqvist", "Moreau")
_NAMES = ("general", "engineering", "design", "support", "marketing", "operations", "research", "sales")
#: Nouns of a group a workspace is divided into: named like its teams (``general``, ``engineering``).
_GROUPS = frozenset({"channel", "team", "group", "department", "workspace", "space", "room", "unit", "division",
                     "org", "organization", "organisation", "queue", "project", "board", "folder", "category"})


def observed_listing(step: Step, role: ToolRole) -> Prediction | None:
    """The first listing of a collection nothing in the catalog creates, or ``None`` when not one."""
    known = records.entity_type(step, role)
    if known is None or role.kind != "list" or step.episode.ledger.items(role.collection):
        return None
    if _written_in_place(step, role) or _aggregate(role):
        return None
    from .inline_tags import tag_listing

    if (carried := tag_listing(step, role)) is not None:  # tags the records carry, not the service's own
        return carried
    count = LISTED
    limit = step.arguments.get("limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and 0 < limit < count:
        count = limit
    noun = singular(role.collection).split("_")[-1]
    scope = dict(zip(role.scope_args, role.scope_of(step.arguments)))
    items, effects = [], []
    for index in range(count):
        rng = random.Random(f"{step.episode.seed}:{role.collection}:{index}")
        key = _key(step, role, noun, index, rng)
        fields: JSONDict = {known.key_field: key, **_described(noun, index)}
        fields.update({name: value for name, value in scope.items() if name not in fields})
        items.append(fields)
        effects.append(Effect("observe", role.collection, role.scoped(step.arguments, str(key)), fields))
    from .common import render_list

    return Prediction(render_list(step, role, items), effects=effects)


def _written_in_place(step: Step, role: ToolRole) -> bool:
    """Whether a tool writes this collection's entities by place, naming no key (``set_cell(sheet, row,
    column)``): such entities are content the agent fills, not a set the service already has, so
    invented names (``general``, ``engineering``) would only leak into an unrelated answer."""
    roles = records.model(step).roles
    return any(other.collection == role.collection and other.kind in ("create", "update") and not other.key_args
               for other in roles.values())


#: Nouns of a computed figure (``get_stats``), not of a set of entities the service holds.
_AGGREGATES = frozenset({"stats", "stat", "statistics", "summary", "summaries", "metrics", "totals", "counts",
                         "overview", "report", "analytics", "usage"})


def _aggregate(role: ToolRole) -> bool:
    return role.collection.split("_")[-1] in _AGGREGATES


def _key(step: Step, role: ToolRole, noun: str, index: int, rng: random.Random) -> Any:
    known = records.entity_type(step, role)
    conventions = known.conventions if known is not None else None
    if conventions is not None and (conventions.id_prefix or conventions.uuid_ids or conventions.ts_key) or (
            known is not None and known.key_type == "integer"):
        return records.new_key(step, role, None, index)
    alphabet = string.ascii_uppercase + string.digits
    return noun[:1].upper() + "".join(rng.choice(alphabet) for _ in range(10))


def _described(noun: str, index: int) -> JSONDict:
    if noun in _PERSONS:
        given, family = _GIVEN[index % len(_GIVEN)], _FAMILY[index % len(_FAMILY)]
        handle = given.lower()
        return {"name": handle, "real_name": f"{given} {family}", "email": f"{handle}@example.com"}
    if noun in _GROUPS:
        return {"name": _NAMES[index % len(_NAMES)]}
    return {"name": f"{noun.replace('-', ' ').capitalize()} {index + 1}"}  # a message is no "engineering"


__all__ = ["LISTED", "observed_listing"]
