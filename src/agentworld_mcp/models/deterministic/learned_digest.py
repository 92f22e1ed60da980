"""Digest fields served: an answer's ``etag`` is the hash of the entity's text, as the recording showed.

Servers that version what they store answer with a digest of it (``"etag": sha256(content)``), so a
read after a create shows the create's etag, and a move (which keeps the text) keeps it.
``sim2real/learn_digest.py`` finds such fields and writes, under the tool's ``_meta``::

    "agentworld/digest": {"data.etag": "sha256"}

Served, the field is the hex digest of the entity's text after the call: the text the answer shows
beside it (a read's ``content``), else the text the call's effects store (a create's, an edit's, a
move's), else the text the state holds under the call's key. No text known: the model's value stays.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its digest fields (dotted path -> hashlib algorithm).
DIGEST_META = "agentworld/digest"
#: The algorithms a digest is recognised as (by the length of its hex form, then by value).
ALGORITHMS = ("md5", "sha1", "sha256", "sha512")
#: Fields that hold an entity's text.
TEXT_FIELDS = ("content", "text", "body", "contents", "markdown")


def digest(algorithm: str, text: str) -> str:
    return hashlib.new(algorithm, text.encode("utf-8")).hexdigest()


def _text_of(fields: Any) -> str | None:
    if not isinstance(fields, dict):
        return None
    return next((fields[f] for f in TEXT_FIELDS if isinstance(fields.get(f), str)), None)


def _stored_text(step: Step, answer: Prediction) -> str | None:
    """The entity's text after the call: what its effects store, else what the state holds under its key."""
    for effect in reversed(answer.effects or ()):
        if effect.op in ("create", "update", "move"):
            if (text := _text_of(effect.fields)) is not None:
                return text
            before = step.episode.ledger.get(effect.collection, effect.key)
            if effect.op == "move" and before is not None and (text := _text_of(before.fields)) is not None:
                return text
    key = step.role.key_of(step.arguments)
    if key is None or not step.role.collection:
        return None
    from . import records

    entity = records.lookup(step, step.role, str(key))
    return _text_of(entity.fields) if entity is not None else None


def with_digest(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with its learned digest fields computed (see the module doc)."""
    meta = (step.tool.definition.get("_meta") or {}).get(DIGEST_META)
    if not isinstance(meta, dict) or not meta or answer.is_error or not isinstance(answer.observation, dict):
        return answer
    observation = copy.deepcopy(answer.observation)
    changed = False
    for path, algorithm in meta.items():
        if algorithm not in ALGORITHMS:
            continue
        *parents, leaf = str(path).split(".")
        holder: Any = observation
        for name in parents:
            holder = holder.get(name) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or leaf not in holder:
            continue
        text = _text_of(holder)
        text = text if text is not None else _stored_text(step, answer)
        if text is not None:
            holder[leaf] = digest(algorithm, text)
            changed = True
    return dataclasses.replace(answer, observation=observation, text=None) if changed else answer


__all__ = ["ALGORITHMS", "DIGEST_META", "TEXT_FIELDS", "digest", "with_digest"]
