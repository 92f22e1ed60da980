"""Where a structured answer's fields come from, when not from the call's own arguments (``learn``).

Served by ``models/deterministic/learned_provenance.py`` as ``slots``, under the tool's
``agentworld/learned`` meta: per top-level answer field, a template in the sentence templates'
slot syntax (``sim2real/learn_text.py``), filled from the new call and its episode, never from the
recording:

* **session values**: a field equal, in every recorded answer that could show it, to an argument
  of the latest earlier call of one tool, which that call's own answer did not show
  (``created_by`` is the ``username`` of the session's latest ``*login``):
  ``{{last.TOOL.ARG}}``. A value the earlier call's answer (or any earlier answer) showed is an
  entity's field (the ledger holds it; a read shows it); a value that also stands where no such
  call came before is a constant. So a
  constant is never learned where the recording shows the value follows an earlier call, even
  with one training value.
* **sentences in fields**: a text field whose every answer is the same sentence once the call's
  values are slots (``{"status": "Case {{args.case_id}} has been closed."}``),
  with or without an outputSchema: one answer is enough when it is one line with a slot of the
  call's arguments.
* **status words**: a text field at one word in every usual answer of two sessions or more, that no
  argument gave (``status: Open``), whatever the tool declares; not when an argument had one value in
  every call (``mode: c`` may be what makes ``type: characters``).

A read of a named entity (``get_order(order_id)``) shows that entity's fields, whoever made it: no
session value is traced there (the entity the create stored holds it).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..world.roles import is_id_name
from ..world.values import same_value
from ..models.deterministic.learned_state import answer_data, failed
from ..models.deterministic.learned_text import SLOT
from ..world.catalog import Catalog
from .learn_text import sentence_of
from .score import RecordedTurn

JSONDict = dict[str, Any]
#: Session values shorter than this are not traced (``a``, ``no``): a coincidence is too likely.
_MIN_VALUE = 3
_REDACTED = "[redacted]"
#: A status word a tool answers in every session (``Open``, ``pending_review``): no digits, no sentence.
_WORD = re.compile(r"[A-Za-z][A-Za-z_-]{1,30}")
#: (tool, argument) -> (its value in the latest successful call, whether that call's answer showed it)
Latest = dict[tuple[str, str], tuple[Any, bool]]


def _traceable(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return False
    return not isinstance(value, str) or len(value) >= _MIN_VALUE and _REDACTED not in value and "{{" not in value



def _shown(value: Any, data: Any) -> bool:
    """Whether ``value`` is one of the scalars of an answer's data (at any depth)."""
    if isinstance(data, dict):
        return any(_shown(value, v) for v in data.values())
    if isinstance(data, list):
        return any(_shown(value, v) for v in data)
    return same_value(value, data)


def session_fields(episodes: dict[str, list[RecordedTurn]]) -> dict[str, set[str]]:
    """Per tool, the top-level answer fields that showed, somewhere, an argument of an earlier call of the
    session (the user who logged in, whether the answer took it from the login or from an entity): such a
    field is no status code and no constant of the tool, however its values read."""
    out: dict[str, set[str]] = {}
    for turns in episodes.values():
        given: list[Any] = []
        for turn in turns:
            if failed(turn.result):
                continue
            data = answer_data(turn.result)
            if isinstance(data, dict):
                for name, value in data.items():
                    if _traceable(value) and isinstance(value, str) and any(same_value(value, g) for g in given):
                        out.setdefault(turn.tool, set()).add(name)
            given += [v for v in turn.arguments.values() if _traceable(v)]
    return out


def learn_lasts(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, dict[str, str]]:
    """Per tool, the top-level answer fields that carry an earlier call's argument (see the module doc)."""
    seen: dict[tuple[str, str], list[tuple[Any, Latest]]] = {}
    copies: set[tuple[str, str]] = set()  # fields that equal an argument of their own call somewhere
    for turns in episodes.values():
        latest: Latest = {}
        answered: list[Any] = []  # earlier answers' data: a value one showed is state (an entity's field)
        for turn in turns:
            data = answer_data(turn.result)
            ok = not failed(turn.result)
            spec = catalog.get(turn.tool)
            # a read of a named entity shows that entity's fields (the ledger's), whoever made it
            reads = spec is not None and spec.role.kind in ("read", "list", "search") and bool(spec.role.key_args)
            if ok and spec is not None and not reads and isinstance(data, dict):
                given = list(turn.arguments.values())
                for name, value in data.items():
                    if not _traceable(value):
                        continue
                    if any(same_value(value, g) for g in given):
                        copies.add((turn.tool, name))
                    if not _shown(value, answered):  # a read of what an earlier answer showed tells nothing
                        seen.setdefault((turn.tool, name), []).append((value, dict(latest)))
            if ok:
                for arg, value in turn.arguments.items():
                    if _traceable(value):
                        latest[(turn.tool, arg)] = (value, _shown(value, data))
                answered.append(data)
    out: dict[str, dict[str, str]] = {}
    for (tool, name), shown in seen.items():
        if (tool, name) in copies:
            continue
        source = _source(shown)
        if source is not None:
            out.setdefault(tool, {})[name] = "{{last." + source[0] + "." + source[1] + "}}"
    return out


def _source(shown: list[tuple[Any, Latest]]) -> tuple[str, str] | None:
    """The earlier call's argument every occurrence that has one agrees with (most agreeing first)."""
    best: tuple[tuple[int, int, str, str], tuple[str, str]] | None = None
    for pair in sorted({p for _, latest in shown for p in latest}):
        matched, silent = [], []
        for value, latest in shown:
            if pair not in latest:
                silent.append(value)
                continue
            given, echoed = latest[pair]
            if not same_value(given, value) or echoed:
                break
            matched.append(value)
        else:
            distinct = {json.dumps(v) for v in matched}
            if not matched or isinstance(matched[0], int) and len(distinct) < 2:
                continue  # a number needs two values that follow the call: small numbers coincide
            if len(distinct) == 1 and any(same_value(v, matched[0]) for v in silent):
                continue  # the same value where no such call came before: a constant
            rank = (-len(matched), len(silent), *pair)
            if best is None or rank < best[0]:
                best = (rank, pair)
    return best[1] if best is not None else None


def learn_field_texts(calls: list[tuple[RecordedTurn, list[RecordedTurn]]], skip: set[str]) -> dict[str, str]:
    """A tool's text fields that are one sentence with the call's values as slots, or one status word in every
    answer of two sessions or more (``status: Open``), from its usual answers (each with the calls before it
    in its episode); ``skip``: fields already given a source."""
    found: dict[str, set[str]] = {}
    counted: dict[str, int] = {}
    episodes: dict[str, set[int]] = {}
    broken: set[str] = set()
    # an argument every call gave alike (``mode: c``) may decide a word its answers repeat: no status word then
    alike = {name for name in calls[0][0].arguments
             if all(name in t.arguments and same_value(t.arguments[name], calls[0][0].arguments[name]) for t, _ in calls)
             } if calls else set()
    for turn, before in calls:
        data = answer_data(turn.result)
        if not isinstance(data, dict):
            continue
        for name, value in data.items():
            if name in skip:
                continue
            if not isinstance(value, str) or "\n" in value.strip() or not value.strip():
                broken.add(name)  # not one line of text in every answer
                continue
            found.setdefault(name, set()).add(sentence_of(value, turn, before))
            counted[name] = counted.get(name, 0) + 1
            episodes.setdefault(name, set()).add(id(before[0]) if before else id(turn))
    out: dict[str, str] = {}
    for name, templates in found.items():
        if name in broken or len(templates) != 1:
            continue
        template = next(iter(templates))
        kinds = {m.group(1) for m in SLOT.finditer(template)}
        if " " in template and ("args" in kinds or kinds and counted[name] > 1):  # one answer: its own call's slot
            out[name] = template
        elif not kinds and _WORD.fullmatch(template) and len(episodes[name]) > 1 and not alike:
            out[name] = template  # the same status word in every session: a constant of the tool
    return out


def _ids(data: Any) -> list[Any]:
    """The values under id-named keys of an answer (``transaction_id``), at any depth."""
    if isinstance(data, dict):
        return [v for k, v in data.items() if is_id_name(k) and _traceable(v)] + \
            [i for v in data.values() if isinstance(v, (dict, list)) for i in _ids(v)]
    if isinstance(data, list):
        return [i for v in data for i in _ids(v)]
    return []


def with_recorded_flags(shape: JSONDict, answers: list[Any]) -> JSONDict:
    """``shape`` with a top-level boolean every successful answer showed alike as its ``default``, even from
    one answer (``success: true`` of a login): a flag drawn at random would read as a failure the recording
    never showed; more answers (``with_initial_values``) are needed for any other value."""
    props = shape.get("properties") if shape.get("type") == "object" else None
    objects = [a for a in answers if isinstance(a, dict)]
    if not isinstance(props, dict) or not objects:
        return shape
    out = {**shape, "properties": dict(props)}
    for name, sub in props.items():
        seen = [a.get(name) for a in objects]
        if isinstance(sub, dict) and "default" not in sub and isinstance(seen[0], bool) \
                and all(v is seen[0] for v in seen):
            out["properties"][name] = {**sub, "default": seen[0]}
    return out


def in_context(episodes: dict[str, list[RecordedTurn]]) -> dict[str, list[tuple[RecordedTurn, list[RecordedTurn]]]]:
    """Per tool, its recorded calls, each with the calls before it in its episode."""
    out: dict[str, list[tuple[RecordedTurn, list[RecordedTurn]]]] = {}
    for turns in episodes.values():
        for number, turn in enumerate(turns):
            out.setdefault(turn.tool, []).append((turn, turns[:number]))
    return out


def looks_up(turns: list[tuple[RecordedTurn, list[RecordedTurn]]]) -> bool:
    """Whether a tool's answers show an entity the episode already held rather than a new one: in most of
    its successful calls (each with the calls before it in its episode), an argument names an id an earlier
    answer showed and every id of the answer is an argument or was shown before (``fetch_receipt(order_ref)``
    answers the ``payment_ref`` the order's answer gave). Such a tool is no create, however its answers
    read alone: what it shows is looked up, so a new call answers the entity its argument names."""
    explained = fresh = 0
    for turn, before in turns:
        if failed(turn.result):
            continue
        shown = [answer_data(t.result) for t in before if not failed(t.result)]
        given = [v for v in turn.arguments.values() if _traceable(v)]
        ids = [v for v in _ids(answer_data(turn.result)) if not any(same_value(v, g) for g in given)]
        named = any(_shown(g, shown) for g in given)
        if named and ids and all(_shown(v, shown) for v in ids):
            explained += 1
        elif ids:
            fresh += 1
    return explained > 0 and explained >= fresh


__all__ = ["learn_field_texts", "in_context", "learn_lasts", "looks_up", "session_fields", "with_recorded_flags"]
