"""Answers in a profiled service's envelope: Slack's ``{"ok": true, ...}``, Notion's list objects.

A service's MCP servers print what its API answers, and many APIs wrap the object: Slack's
``chat.postMessage`` answers ``{ok, channel, ts, message}``, its listings ``{ok, messages,
has_more}``; Notion's searches ``{object: "list", results, next_cursor, has_more}``; Google
Calendar's MCP servers report a delete as ``{success: true, ...}``. The record model answers
with the bare object or list; this puts it in the envelope the service's profile
(:mod:`agentworld_mcp.world.service_profiles`) describes. Only tools without an outputSchema (an
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
        return answer
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
