"""Tags written into records: ``#hashtags`` and ``key:value`` pairs in a free-text field, and tag arguments.

A journal whose ``add_entry(text, tags)`` says "text may include #tags and key:value metadata" holds
no set of tags of its own: its tags are what its entries carry. A listing of such a collection
(``list_tags``) is counted from the stored records, never invented as if the service had its own
(``general``, ``engineering``). The collection is an attribute of another one when a tool that creates
that other collection takes an argument named for it (``tags``, ``labels``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from dataclasses import replace

from ...world.roles import ToolRole, plural, singular
from ..base import Prediction, Step
from . import records

JSONDict = dict[str, Any]

#: ``#billing`` (not ``C#``, not ``&#39;``, not a URL fragment).
HASHTAG = re.compile(r"(?<![\w&#/])#([A-Za-z][\w-]*)")
#: ``time:90m``, ``status:done`` (not ``https://``, not ``10:00``).
KEY_VALUE = re.compile(r"(?<![\w/:])([A-Za-z_][\w-]*):(?!//)([^\s,;:]+)")


def inline_tags(text: str) -> list[str]:
    """The ``#tags`` written in ``text``, in order, once each."""
    return list(dict.fromkeys(m.group(1) for m in HASHTAG.finditer(text)))


def inline_metadata(text: str) -> dict[str, str]:
    """The ``key:value`` pairs written in ``text``."""
    return {m.group(1): m.group(2) for m in KEY_VALUE.finditer(text)}


def record_tags(fields: JSONDict, field: str) -> list[str]:
    """A record's tags: its ``field`` list (``tags``) and the ``#tags`` of its text fields."""
    given = fields.get(field)
    tags = [str(t).lstrip("#") for t in given] if isinstance(given, list) else []
    for value in fields.values():
        if isinstance(value, str):
            tags.extend(inline_tags(value))
    return list(dict.fromkeys(tags))


def attribute_of(step: Step, role: ToolRole) -> tuple[str, str] | None:
    """``(collection, argument)`` when a tool creating another collection takes an argument named for
    ``role``'s collection (``add_entry(tags=[...])`` for ``tags``), else None."""
    noun = role.collection.split("_")[-1]
    names = {noun, singular(noun)}
    specs = {spec.name: spec for spec in (step.catalog or ())}
    for name, other in records.model(step).roles.items():
        if other.kind != "create" or other.collection == role.collection or name not in specs:
            continue
        props = (specs[name].input_schema or {}).get("properties") or {}
        for arg in props:
            if arg in names:
                return other.collection, arg
    return None


def tag_listing(step: Step, role: ToolRole) -> Prediction | None:
    """``list_tags`` of a catalog whose records carry their tags: each tag with how many records carry it."""
    source = attribute_of(step, role)
    if source is None:
        return None
    collection, field = source
    counts: Counter[str] = Counter()
    for entity in step.episode.ledger.items(collection):
        counts.update(record_tags(entity.fields, field))
    noun = singular(role.collection.split("_")[-1])
    items = [{noun: tag, "count": counts[tag]} for tag in sorted(counts)]
    from .common import render_list

    return Prediction(render_list(step, role, items), effects=[])


def attribute_filters(step: Step, role: ToolRole) -> dict[str, str]:
    """``{argument: field}`` for each filter of a listing that names one of its records' carried tags:
    ``entries_by_tag(tag)`` when an entry is created with ``tags`` (or the records hold a ``tags`` list).

    Such a tag is no entity of its own: it exists while some record carries it, as a field or as an
    inline ``#tag`` in its text."""
    if role.kind not in ("list", "search") or not role.collection:
        return {}
    found: dict[str, str] = {}
    for name in role.filters:
        if not isinstance(step.arguments.get(name), str):
            continue
        field = _carried_field(step, role, name)
        if field is not None:
            found[name] = field
    return found


def _carried_field(step: Step, role: ToolRole, name: str) -> str | None:
    """The records' list field a singular filter argument (``tag``, ``label``) picks values of."""
    if name != singular(name):
        return None
    field = plural(name)
    specs = {spec.name: spec for spec in (step.catalog or ())}
    for tool, other in records.model(step).roles.items():  # a create tool of the collection takes ``tags``
        if other.kind == "create" and other.collection == role.collection and tool in specs:
            if field in ((specs[tool].input_schema or {}).get("properties") or {}):
                return field
    held = step.episode.ledger.items(role.collection)
    return field if any(isinstance(e.fields.get(field), list) for e in held) else None


def carries(fields: JSONDict, field: str, wanted: str) -> bool:
    """Whether a record carries the tag ``wanted`` (``#retro`` and ``retro`` alike, any case)."""
    tag = wanted.strip().lstrip("#").casefold()
    return any(t.casefold() == tag for t in record_tags(fields, field))


def without_attribute_filters(step: Step, role: ToolRole) -> Step:
    """The call less its carried-tag filters: they name no parent entity a refusal could miss."""
    names = attribute_filters(step, role)
    if not names:
        return step
    return replace(step, arguments={k: v for k, v in step.arguments.items() if k not in names})


__all__ = ["HASHTAG", "KEY_VALUE", "attribute_filters", "attribute_of", "carries", "inline_metadata", "inline_tags",
           "record_tags", "tag_listing", "without_attribute_filters"]
