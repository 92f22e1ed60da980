"""States a tool's own words require of the record it acts on: ``refund_paid_invoice`` refunds only a
paid invoice; "If the booking is already checked or boarded, it cannot be changed"; "Only draft posts
can be edited".

The states are words the collection's records hold in their ``status`` (or ``state``) field, so a
sentence is read only where it names states the world knows. What a tool requires:

* a state word right before the noun in its name or its description's first sentence (``refund paid
  invoice``, "Edit the lines of a draft invoice"): the record must be in that state;
* "only <state> <nouns> can be ...", "can only be ... if it is <state>": the same;
* "if the <noun> is (already) <state>, <state> or <state>, it cannot be ...": the record must be in
  none of them.

A call on a record in another state is refused, worded as such services word it (``Error: non-paid
invoice cannot be refunded``), and changes nothing. Records without a state, and states the tool's words
do not name, are left to the rest of the model.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...world.roles import singular, words

if TYPE_CHECKING:
    from ...world.roles import ToolRole
    from ..base import Prediction, Step

_STATE_FIELDS = ("status", "state")
#: Verbs that set a state rather than act on a record in one (``mark_order_delivered``).
_SETTING = frozenset({"mark", "set", "move", "change", "update", "transition", "make", "put"})
_ONLY = re.compile(r"\bonly (?:an? |the )?([a-z_-]+) [a-z_-]+ (?:can|may) be\b", re.IGNORECASE)
_ONLY_IF = re.compile(r"\b(?:can|may) only be [a-z_-]+ (?:if|when) (?:it|the [a-z_-]+) is (?:still )?([a-z_-]+)",
                      re.IGNORECASE)
_CANNOT = re.compile(r"\bif the [a-z_-]+ is (?:already )?([a-z_, -]+?),? (?:it|then it) (?:cannot|can't|can not) be\b",
                     re.IGNORECASE)


def precondition_refusal(step: Step, role: ToolRole) -> Prediction | None:
    """The refusal of a keyed call on a record in a state its tool's words rule out, or None. The words
    are read once per catalog; the record is looked up only for a tool whose words name a state."""
    if role.kind in ("read", "list", "search", "create") or (key := role.key_of(step.arguments)) is None:
        return None
    stated = step.derived(("stated_preconditions", step.tool.name, role.collection), lambda: _stated(step, role))
    if not stated[0] and not stated[1]:
        return None
    from .records import lookup

    entity = lookup(step, role, key)
    field = next((f for f in _STATE_FIELDS if isinstance(entity.fields.get(f), str)), None) if entity else None
    if entity is None or field is None:
        return None
    vocabulary = _vocabulary(step, role.collection, field)
    required, forbidden = stated[0] & vocabulary, stated[1] & vocabulary
    current = str(entity.fields[field]).casefold()
    if (required and current not in required) or current in forbidden:
        from .common import error

        noun = singular(role.collection).replace("_", " ")
        done = _participle(_verb(step), vocabulary)
        if required and current not in required:
            return error(f"Error: non-{'/'.join(sorted(required))} {noun} cannot be {done}")
        return error(f"Error: {noun} is {entity.fields[field]} and cannot be {done}")
    return None


def _vocabulary(step: Step, collection: str, field: str) -> set[str]:
    """The states the collection's records are or were in (the episode's and the world's seed), casefolded."""
    seeded = (step.world.seed or {}).get(collection) or []
    held = [e.fields for e in step.episode.ledger.items(collection)] + [r for r in seeded if isinstance(r, dict)]
    return {str(v).casefold() for fields in held if isinstance(v := fields.get(field), str) and v.strip()}


def _stated(step: Step, role: ToolRole) -> tuple[frozenset[str], frozenset[str]]:
    """(words that may be states required, words that may be states ruled out) by the tool's name and
    description; the call keeps those its records' states hold."""
    required: set[str] = set()
    forbidden: set[str] = set()
    if _verb(step) in _SETTING:
        return frozenset(), frozenset()
    nouns = {singular(w) for w in words(role.collection)} | set(words(role.collection))
    description = step.tool.description or ""
    first = re.split(r"(?<=[.!?])\s", description.strip(), maxsplit=1)[0] if description.strip() else ""
    for phrase in (words(step.tool.name)[1:], [w.lower() for w in re.findall(r"[A-Za-z_-]+", first)]):
        for word, after in zip(phrase, phrase[1:]):
            if after in nouns or singular(after) in nouns:
                required.add(word)
    for pattern in (_ONLY, _ONLY_IF):
        required |= {m.group(1).casefold() for m in pattern.finditer(description)}
    for match in _CANNOT.finditer(description):
        forbidden |= set(re.split(r"\s*(?:,|\bor\b|\band\b)\s*", match.group(1).casefold()))
    return frozenset(required), frozenset(forbidden)


def _verb(step: Step) -> str:
    named = words(step.tool.name)
    return named[0] if named else ""


def _participle(verb: str, vocabulary: set[str]) -> str:
    """``cancel`` -> the world's own ``cancelled`` where its records say so, else ``modify`` -> ``modified``,
    ``refund`` -> ``refunded``."""
    own = sorted(w for w in vocabulary if w.startswith(verb[:-1] if verb.endswith("e") else verb) and w.endswith("ed"))
    if own:
        return own[0]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


__all__ = ["precondition_refusal"]
