"""Answers in a profiled service's envelope: Slack's ``{"ok": true, ...}``, Notion's list objects.

A service's MCP servers print what its API answers, and many APIs wrap the object: Slack's
``chat.postMessage`` answers ``{ok, channel, ts, message}``, its listings ``{ok, messages,
has_more}``; Notion's searches ``{object: "list", results, next_cursor, has_more}``; Google
Calendar's MCP servers report a delete as ``{success: true, ...}``. The record model answers
with the bare object or list; this puts it in the envelope the service's profile
(:mod:`agentworld_mcp.world.service_profiles`) describes. A catalog of no known service that
states a few of its answers (``{"calendars": [name, ...]}``, ``{"ok": True, "created": name}``)
answers its other tools alike: a listing under its collection's name, a change with the flag. Only tools without an outputSchema (an
outputSchema decides the shape itself), only successful record answers; the effects stay.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ...world import service_profiles
from ...state.result import dump_json
from ...world.roles import ToolRole, singular
from . import records
from ..base import Prediction, Step
from .common import entity_model

JSONDict = dict[str, Any]


def enveloped(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` in its service's envelope; unchanged for a service without one (or no service)."""
    if answer.is_error or step.tool.output_schema or step.effects_only or role.style != "record":
        return answer
    known = records.entity_type(step, role)
    service = (known.conventions.service if known else None) or entity_model(step).service
    profile = service_profiles.PROFILES.get(service) if service else None
    envelope = profile.envelope if profile else None
    if profile is None or envelope is None:
        return _catalog_enveloped(step, role, answer)
    observation = answer.observation
    noun = singular(role.collection).split("_")[-1]
    if isinstance(observation, list) and envelope.listing is not None:
        list_key = (known.conventions.list_key if known else None) or role.collection.split("_")[-1]
        body = _fill(envelope.listing, observation, {}, noun, list_key)
    elif isinstance(observation, dict) and role.kind == "delete" and envelope.deleted is not None:
        gone = {k: v for k, v in observation.items() if k != "deleted"}
        body = _fill(envelope.deleted, gone, _values(step, role, gone, profile), noun, noun)
    elif isinstance(observation, dict) and role.kind in ("create", "read", "update") and envelope.entity is not None:
        body = _fill(envelope.entity, observation, _values(step, role, observation, profile), noun, noun)
    elif isinstance(observation, dict) and envelope.always:
        body = {**envelope.always, **observation}
    else:
        return answer
    text = answer.text
    if text is not None:  # a page's text: the listing's JSON, then how to get more
        before = dump_json(observation)
        text = dump_json(body) + text[len(before):] if text.startswith(before) else text
    return dataclasses.replace(answer, observation=body, text=text)


def _values(step: Step, role: ToolRole, entity: JSONDict, profile: service_profiles.ServiceProfile) -> dict[str, str]:
    key = entity.get(role.key_field, "")
    return service_profiles.placeholders(entity, key, role.collection, profile.defaults)


def _fill(template: Mapping[str, Any], content: Any, values: Mapping[str, str], noun: str, list_key: str) -> JSONDict:
    """The envelope: ``$entity``/``$items`` is the content, ``$noun``/``$list_key`` as a key its name, other
    values rendered from ``values`` (one whose placeholder has no value is left out)."""
    out: JSONDict = {}
    for name, value in template.items():
        name = {"$noun": noun, "$list_key": list_key}.get(name, name)
        if value in ("$entity", "$items"):
            out[name] = content
            continue
        try:
            out[name] = service_profiles.render(value, values)
        except KeyError:
            continue
    return out


@dataclasses.dataclass(frozen=True)
class _Stated:
    """What the answers a catalog's descriptions state share: listings wrapped under their noun, a success flag."""

    wraps_lists: bool
    flag: str | None


def _stated(tools: list[JSONDict]) -> _Stated:
    from ...world.house_style import described_shape, flag_of

    shapes = [s for t in tools if isinstance(s := described_shape(t), dict)]
    wrapped = bare = 0
    flags: set[str] = set()
    for shape in shapes:
        props = shape.get("properties") or {}
        if shape.get("type") == "array":
            bare += 1
        elif shape.get("type") == "object" and len(props) == 1 and (next(iter(props.values())) or {}).get("type") == "array":
            wrapped += 1
        if (flag := flag_of(shape)) is not None:
            flags.add(flag)
    flag_votes = sum(1 for s in shapes if flag_of(s) is not None)
    return _Stated(wraps_lists=wrapped > 0 and bare == 0, flag=flags.pop() if len(flags) == 1 and flag_votes >= 2 else None)


def _catalog_enveloped(step: Step, role: ToolRole, answer: Prediction) -> Prediction:
    """``answer`` in the envelope the catalog's stated answers share, for a tool that states none itself."""
    from ...world.house_style import described_shape, house_style

    if answer.text is not None or described_shape(step.tool.definition) is not None:
        return answer
    if step.derived("house style", lambda: house_style(step.world.tools)) is not None:
        return answer  # most tools state one envelope: the house style wraps (house_style.py)
    stated = step.derived("stated envelope", lambda: _stated(step.world.tools))
    observation = answer.observation
    noun = (role.collection or "").split("_")[-1]
    if isinstance(observation, list) and role.kind == "list" and stated.wraps_lists and noun:
        body: JSONDict = {noun: observation}
    elif (isinstance(observation, dict) and stated.flag is not None and role.kind in ("create", "update", "delete", "action")
          and stated.flag not in observation):
        body = {stated.flag: True, **observation}
    else:
        return answer
    return dataclasses.replace(answer, observation=body)
