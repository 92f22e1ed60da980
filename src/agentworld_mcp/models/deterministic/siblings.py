"""A new record resembles the records its collection already holds (seeded, learned or made earlier).

A real service stores every record of a kind the same way, so the collection's existing records
say what a new one carries besides what the caller gave, where nothing else (an outputSchema's
default, a published profile, the caller) decided. For each field every recent sibling carries
(at least :data:`MIN_SIBLINGS` of them) and the new record lacks:

* **a template over the record's own values**: each sibling's value with its own other values
  put back as slots gives one template (``/home/ana/notes/{id}.md``, ``.../store/{date}.txt``,
  ``https://tracker.test/rocket/issues/{number}``): filled from the new record's values;
* **a time of the same form**: every sibling writes its creation-like field in one form (a date
  ``2026-11-20``, a time of day ``11:05``, epoch seconds): the episode's moment in that form;
* **one value they all share**: ``attachments: []``, ``pinned: false``, ``owner: "ana"``;
* **the world's casing** of a word the model chose: the siblings' ``status: Open`` makes a new
  record ``Open``, not the model's ``open``.

Nothing is invented where the siblings disagree: the caller's and the model's answer stand. The
values are stored with the record, so every later read shows the same ones (a create's answer and a
get agree). Times come first, so a template may use them (``store/{date}.txt``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from ...world.roles import words

if TYPE_CHECKING:
    from ...state.ledger import Entity
    from ..base import Prediction, Step

JSONDict = dict[str, Any]

#: Fewer records made in the episode than this prove no habit of the collection, nor do fewer seeded ones
#: that share a word (one record may be unusual); one seeded record shows its templates, forms and flags.
MIN_SIBLINGS = 2
#: The most recent siblings looked at: a collection's habit shows in its latest records.
RECENT = 25
#: Words of a field naming when the record was made or last written (``created``, ``date``, ``timestamp``).
_WHEN_WORDS = frozenset({"created", "creation", "added", "timestamp", "updated", "modified", "date", "time"})
#: Words of a field naming some other moment the caller decides (``due_date``, ``start_time``).
_OTHER_MOMENT = frozenset({"due", "start", "end", "deadline", "expire", "expires", "expiry", "expiration",
                           "birth", "scheduled", "until", "since", "from", "to", "completed", "closed",
                           "resolved", "deleted", "last", "next", "reminder", "remind", "publish", "published"})
#: The forms of a moment a sibling's value may be written in, tried in order.
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d"),
    (re.compile(r"\d{2}:\d{2}"), "%H:%M"),
    (re.compile(r"\d{2}:\d{2}:\d{2}"), "%H:%M:%S"),
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"), "%Y-%m-%d %H:%M"),
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"), "%Y-%m-%d %H:%M:%S"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"), "%Y-%m-%dT%H:%M:%S"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"), "%Y-%m-%dT%H:%M:%SZ"),
)
#: Epoch seconds between 2001 and 2100: a creation stamp written as a number.
_EPOCH = (1_000_000_000, 4_102_444_800)


def like_siblings(step: Step, collection: str, fields: JSONDict, key_field: str,
                  allowed: set[str] | None = None, given: set[str] | None = None) -> None:
    """Add to ``fields`` (a new record of ``collection``, in place) what its siblings all carry alike.

    ``allowed``: where an outputSchema lists the record's properties, only those may be added.
    ``given``: the fields the caller gave; with neither an outputSchema nor anything else to say otherwise,
    a field the model added that no seeded sibling carries is dropped (tweets that never had a
    ``created_at`` get none).
    """
    entities = step.episode.ledger.items(collection)
    siblings = _evidence(entities)
    if not siblings:
        return
    if allowed is None and given is not None:
        _unlike_dropped(entities, fields, key_field, given)
    shared = set(siblings[0].fields)
    for sibling in siblings[1:]:
        shared &= set(sibling.fields)
    from .common import now_iso

    stamped = now_iso(step.turn)  # the model's own stamp (``created_at``) is rewritten in the siblings' form
    missing = sorted(name for name in shared if (name not in fields or fields[name] == stamped)
                     and name != key_field and (allowed is None or name in allowed))
    for name in missing:  # times first: a template may hold one (``store/{date}.txt``)
        moment = _moment_like(step, name, [s.fields[name] for s in siblings])
        if moment is not None:
            fields[name] = moment
    for name in missing:
        if name in fields:
            continue
        template = _template(name, siblings)
        filled = _filled(template, fields) if template is not None else None
        if filled is not None:
            fields[name] = filled
            continue
        value = _shared(s.fields[name] for s in siblings)
        if value is not _NONE and _neutral(name, value, len(siblings)):
            fields[name] = value
    caller = given if given is not None else set(step.arguments)
    for name, value in list(fields.items()):  # the model's word in the world's casing: ``open`` -> ``Open``
        if name not in caller and isinstance(value, str):
            fields[name] = _cased(value, [s.fields.get(name) for s in siblings])


def _unlike_dropped(entities: list[Entity], fields: JSONDict, key_field: str, given: set[str]) -> None:
    """Drop a stamp the model added to a new record (``created_at``) that no record the world was seeded
    with carries: such a service does not stamp its records. Other fields stay (a seeded record may
    lack a status its kind still has)."""
    seeded = [e for e in entities if e.fields and e.created_turn == 0 and e.status != "observed"][-RECENT:]
    if not seeded:
        return
    carried = set().union(*(e.fields for e in seeded))
    key = fields.get(key_field)
    for name in [n for n in fields if n not in carried and n not in given and n != key_field]:
        if (key is None or fields[name] != key) and _is_stamp(name):  # the key under its tools' argument name stays
            del fields[name]


def _is_stamp(name: str) -> bool:
    """``created_at``, ``updatedAt``, ``date_created``: a field naming when the record was written."""
    named = set(words(name))
    return bool(named & {"created", "creation", "updated", "modified"}) and not named & _OTHER_MOMENT


def _evidence(entities: list[Entity]) -> list[Entity]:
    """The records that show the collection's habit: those the world started with (seeded, or seen in a
    listing), the truth the simulator did not write; where there are none, :data:`MIN_SIBLINGS` or more
    records made in the episode."""
    given = [e for e in entities if e.fields and (e.created_turn == 0 or e.status == "observed")][-RECENT:]
    if given:
        return given
    made = [e for e in entities if e.fields][-RECENT:]
    return made if len(made) >= MIN_SIBLINGS else []


def _cased(value: str, seen: list[Any]) -> str:
    """``value`` as the siblings write the same word (their most common casing), else as it is."""
    folded = value.casefold()
    spellings = Counter(v for v in seen if isinstance(v, str) and v != value and v.casefold() == folded)
    return spellings.most_common(1)[0][0] if spellings else value


def _neutral(name: str, value: Any, count: int) -> bool:
    """A value every record may share without saying anything about this one: a flag, an empty list or
    object, a zero, a word (``type: note``, ``owner: ana``); never a state (``status: done``)."""
    if set(words(name)) & _STATE_WORDS:
        return False
    if value is None or isinstance(value, bool) or value == 0 or value in ([], {}, ""):
        return True
    return isinstance(value, str) and len(value) <= 80 and count >= MIN_SIBLINGS  # one record's word may be its own


#: A field naming where in its life a record is: a new record starts its own life.
_STATE_WORDS = frozenset({"status", "state", "stage", "phase"})
def with_siblings(step: Step, answer: Prediction) -> Prediction:
    """``answer`` whose created records carry what their collections' records all carry (however the answer
    was made: a learned shape or an envelope stores the record from its own fields)."""
    import dataclasses

    if answer.is_error or not answer.effects or not any(e.op == "create" for e in answer.effects):
        return answer
    effects = []
    for effect in answer.effects:
        if effect.op == "create":
            fields = dict(effect.fields)
            like_siblings(step, effect.collection, fields, "")
            if fields != effect.fields:
                effect = dataclasses.replace(effect, fields=fields)
        effects.append(effect)
    return dataclasses.replace(answer, effects=effects)


_NONE = object()


def _shared(values: Any) -> Any:
    """The one value all ``values`` are (compared as JSON), else ``_NONE``."""
    seen: str | None = None
    first: Any = _NONE
    for value in values:
        text = json.dumps(value, sort_keys=True, default=str)
        if seen is None:
            seen, first = text, value
        elif text != seen:
            return _NONE
    return json.loads(seen) if seen is not None and first is not _NONE else _NONE


def _moment_like(step: Step, name: str, values: list[Any]) -> Any:
    """The episode's moment written as every value of ``values`` is, for a creation-like field; else None."""
    named = set(words(name))
    if not named & _WHEN_WORDS or named & _OTHER_MOMENT:
        return None
    moment = episode_moment(step)
    if all(isinstance(v, int) and not isinstance(v, bool) and _EPOCH[0] <= v < _EPOCH[1] for v in values):
        return int(moment.timestamp())
    if not all(isinstance(v, str) for v in values):
        return None
    for pattern, form in _FORMS:
        if all(pattern.fullmatch(v) for v in values):
            return _continued(moment, values, form).strftime(form)
    return None


def _continued(moment: dt.datetime, values: list[str], form: str) -> dt.datetime:
    """``moment``, or the latest sibling's when the world's records are newer than the model's clock: a new
    record is never older than the collection's newest (a journal written in November gets November)."""
    if "%Y" not in form:
        return moment
    latest = None
    for value in values:
        try:
            parsed = dt.datetime.strptime(value, form).replace(tzinfo=dt.UTC)
        except ValueError:
            continue
        latest = parsed if latest is None or parsed > latest else latest
    return latest if latest is not None and latest > moment else moment


def episode_moment(step: Step) -> dt.datetime:
    """Now in this episode: the instant a learned clock stood still at (this tool's, else any tool's of the
    catalog: a server has one clock), else the model's clock."""
    from .common import clock

    return step.derived("siblings.pinned_clock", lambda: _pinned_clock(step)) or clock(step.turn)


def _pinned_clock(step: Step) -> dt.datetime | None:
    from .learned_clock import CLOCK_META, pinned

    for tool in [step.tool.definition, *step.world.tools]:
        meta = (tool.get("_meta") or {}).get(CLOCK_META) if isinstance(tool, dict) else None
        if isinstance(meta, dict) and meta.get("still") is True and (at := pinned(meta)) is not None:
            return at
    return None


def _slot_values(entity: Entity, name: str) -> list[tuple[str, str]]:
    """(field, text) of the record's other scalar values that could stand in a template, longest first."""
    out = []
    for field, value in entity.fields.items():
        if field == name or isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        text = str(value)
        if text.strip() and len(text) <= 200 and _SLOT_MARK not in text:
            out.append((field, text))
    return sorted(out, key=lambda pair: -len(pair[1]))


def _template_of(entity: Entity, name: str) -> str | None:
    """``entity``'s value of ``name`` with its other values as slots (``\\0field\\0``), or None without one."""
    value = entity.fields.get(name)
    if not isinstance(value, str) or not value or _SLOT_MARK in value:
        return None
    template, slots = value, list[str]()  # a slot is NUL + its number + NUL while matching: no value matches inside
    for field, text in _slot_values(entity, name):
        if _SLOT_MARK in field:
            continue
        pattern = re.compile(r"(?<![A-Za-z0-9\0])" + re.escape(text) + r"(?![A-Za-z0-9\0])")
        mark = f"{_SLOT_MARK}{len(slots)}{_SLOT_MARK}"
        template, count = pattern.subn(mark.replace("\\", "\\\\"), template, count=1)
        if count:
            slots.append(field)
    if not slots:
        return None
    return _SLOT.sub(lambda m: _SLOT_MARK + slots[int(m.group(1))] + _SLOT_MARK, template)


def _template(name: str, siblings: list[Entity]) -> str | None:
    """The one template every sibling's ``name`` follows, else None."""
    templates = {_template_of(s, name) for s in siblings}
    return templates.pop() if len(templates) == 1 else None


def _filled(template: str, fields: JSONDict) -> str | None:
    """``template`` with each slot the new record's value, or None where the record lacks one."""
    values = {k: str(v) for k, v in fields.items() if isinstance(v, (str, int)) and not isinstance(v, bool)}
    missing = False

    def value(match: re.Match[str]) -> str:
        nonlocal missing
        if match.group(1) not in values:
            missing = True
            return ""
        return values[match.group(1)]

    out = _SLOT.sub(value, template)
    return None if missing else out


_SLOT_MARK = "\0"
_SLOT = re.compile("\0([^\0]*)\0")


__all__ = ["MIN_SIBLINGS", "episode_moment", "like_siblings", "with_siblings"]
