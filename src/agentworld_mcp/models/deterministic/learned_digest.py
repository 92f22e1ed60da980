"""Digest fields served: an answer's ``etag`` is the hash of the entity's text, as the recording showed.

Servers that version what they store answer with a digest of it (``"etag": sha256(content)``), so a
read after a create shows the create's etag, and a move (which keeps the text) keeps it.
``sim2real/learn_digest.py`` finds such fields and writes, under the tool's ``_meta``::

    "agentworld/digest": {"data.etag": "sha256"}

Served, the field is the hex digest of the entity's text after the call: the text the answer shows
beside it (a read's ``content``), else the text the call's effects store (a create's, an edit's, a
move's), else the text the state holds under the call's key. No text known: the model's value stays. The text is found as :mod:`.digests` finds it for a bare
catalog, which names digest fields from the outputSchema alone; here the recording named the algorithm.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

from .digests import ALGORITHMS, TEXT_FIELDS, digest, entity_text

if TYPE_CHECKING:
    from ..base import Prediction, Step

#: ``_meta`` key of a tool definition holding its digest fields (dotted path -> hashlib algorithm).
DIGEST_META = "agentworld/digest"


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
        text = entity_text(step, answer, holder, listed=False)
        if text is not None:
            holder[leaf] = digest(algorithm, text)
            changed = True
    return dataclasses.replace(answer, observation=observation, text=None) if changed else answer


__all__ = ["ALGORITHMS", "DIGEST_META", "TEXT_FIELDS", "digest", "with_digest"]
