"""Value statistics per answer path, learned from a tool's successful recorded answers (``learn``).

A shape says a field is an integer; the recording says more: ``success`` was ``true`` in every
answer, ``item.status_id`` was ``1`` on every create, ``item.type_id`` followed the
``item_type`` argument (``feature`` -> 3, ``issue`` -> 1), ``data.has_more`` was always
``false``, ``data.total_characters`` never passed 192, ``data.matches[].kind`` was one of three
words. ``learn`` writes, per tool, what the answers show at each dotted path (list items as
``[]``, any depth, inside envelopes and FastMCP ``result`` wrappers), as JSON Schema keywords
under the tool's ``_meta``::

    "agentworld/values": {
        "success": {"const": true},
        "item.type_id": {"x-argument": "item_type", "x-cases": [["feature", 3], ["issue", 1]]},
        "item.type_name": {"x-argument": "item_type"},
        "data.matches[].kind": {"enum": ["filename", "content", "tag"]},
        "data.total_characters": {"minimum": 0, "maximum": 192}}

Kinds, the first that holds wins:

* **copy** (``x-argument`` alone): the value was the argument's in every answer, two distinct
  values at least (a nested echo the model does not make); with ``x-absent``: the field of an
  argument's name echoed it when given and was null when not (``"x-absent": null``);
* **cases**: a function of one argument over two distinct argument values or more, with some
  argument value seen twice (a coincidence of unique titles is no table); keyed by a word or a
  flag (a number is a quantity, unless the argument declares an enum), never by an id argument
  (that would memorise the training session's entities), never a text that holds the argument;
* **const**: the same scalar in two answers or more; or, for an id-like field name or a boolean,
  the same value in every answer of two tools or more (a project id every tool shows);
* **enum**: a small vocabulary of code-like words, or of words repeated; not one whose every word some
  call of the session passed (``owner: priya`` an earlier create was given is that entity's data);
* **minimum/maximum**: the range of an integer field;
* **x-first**: the id nearly every session's first answer showed at an id path (four sessions in five
  at least, three sessions or more): the server's first id, given to the episode's first such answer;
* **examples**: the one word a single answer showed at a path outside lists, where no call passed it
  (``status: Open`` of the one recorded create): the model's own word is replaced by it.

Never learned: a value that echoed the call's arguments, an entity's own key (a counter; unless it was
one value in every answer of two sessions or more: a server's fixed id), a timestamp, text. The serving side (``models/deterministic/learned_values.py``) fills only what the
model would otherwise invent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..models.deterministic.learned_state import answer_data, failed, key_of
from ..models.deterministic.learned_values import VALUES_META, leaf_name
from ..world.catalog import Catalog
from ..world.values import leaves, same_value
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
#: An argument or field named as an identifier (``item_id``, ``projectId``, ``id``).
_ID_NAME = re.compile(r"(?:id|[a-z0-9]+_id|[a-z][A-Za-z0-9]*Id|uuid|key)")
#: A vocabulary word: a code (``backlog``, ``in_progress``, ``filename``), no prose, no number.
_CODE = re.compile(r"[A-Za-z][A-Za-z_-]{0,39}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}")
#: A word one answer showed that may stand for the field's usual value: a code or a version (``utf-8``, ``v2``).
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]{0,31}")
#: At most this many words make a vocabulary.
MAX_VOCABULARY = 8
_MIN_ECHO = 3
#: A first id is the server's when at least this many sessions showed one, this share of them alike.
_FIRST_SESSIONS = 3
_FIRST_SHARE = 0.8


@dataclass
class _Path:
    """What a tool's answers showed at one path: per answer, its call's arguments and the values there."""

    shown: list[tuple[JSONDict, list[Any]]] = field(default_factory=list)
    keyed: bool = False  # the entity's own key somewhere (``id`` of ``item``): a counter, not a statistic
    echoed: bool = False  # a string that was one of its call's argument values
    counted: bool = True  # every value was the length of a list beside it (a count the answer derives)
    episodes: set[str] = field(default_factory=set)  # the sessions that showed it
    firsts: dict[str, Any] = field(default_factory=dict)  # per session, the value its first answer showed there


def _leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any, bool, bool]]:
    """``(path, scalar, is the key of its object, is the length of a list beside it)`` for every scalar."""
    if isinstance(value, dict):
        own = _key_field(value)
        lengths = {len(v) for v in value.values() if isinstance(v, list)}
        for name, sub in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(sub, (dict, list)):
                yield from _leaves(sub, path)
            else:
                is_key = name == own
                counts = isinstance(sub, int) and not isinstance(sub, bool) and sub in lengths
                yield path, sub, is_key, counts
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, prefix + "[]")


def _key_field(obj: JSONDict) -> str | None:
    """The field ``key_of`` reads an object's id from (``id``, else its one ``<noun>_id``)."""
    key = key_of(obj)
    if key is None:
        return None
    if str(obj.get("id")) == key:
        return "id"
    return next((k for k, v in obj.items() if k != "id" and _ID_NAME.fullmatch(k) and str(v) == key), None)





def _form(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def tool_paths(turns: list[RecordedTurn]) -> dict[str, _Path]:
    """Per path, what the tool's successful answers showed there."""
    paths: dict[str, _Path] = {}
    for turn in turns:
        if failed(turn.result):
            continue
        data = answer_data(turn.result)
        if data is None:
            continue
        given = [v for v in leaves(turn.arguments) if isinstance(v, str) and len(v) >= _MIN_ECHO]
        here: dict[str, list[Any]] = {}
        for path, value, is_key, counts in _leaves(data):
            record = paths.setdefault(path, _Path())
            record.keyed |= is_key
            record.counted &= counts
            record.echoed |= isinstance(value, str) and any(value == g for g in given)
            record.episodes.add(turn.episode)
            here.setdefault(path, []).append(value)
        for path, values in here.items():
            paths[path].shown.append((dict(turn.arguments), values))
            if len(values) == 1:
                paths[path].firsts.setdefault(turn.episode, values[0])
    return paths


def _copied_argument(record: _Path) -> str | None:
    """The argument every answer's value at the path was (two distinct values at least)."""
    names = {n for args, _ in record.shown for n in args}
    for name in sorted(names):
        pairs = [(args[name], values) for args, values in record.shown if name in args]
        if not pairs or len(pairs) < len(record.shown) // 2 + 1:
            continue
        if all(all(same_value(v, given) for v in values) for given, values in pairs) and \
                len({_form(g) for g, _ in pairs}) >= 2:
            return name
    return None


def _null_unless_given(name: str, record: _Path) -> bool:
    """Whether the field of an argument's name echoed it when given and was null when not (an optional
    ``description``, ``complexity``): once each at least."""
    given = [(args[name], values) for args, values in record.shown if name in args]
    absent = [values for args, values in record.shown if name not in args]
    return bool(given) and bool(absent) and all(all(same_value(v, g) for v in vs) for g, vs in given) \
        and all(all(v is None for v in vs) for vs in absent)


def _cases(record: _Path, key_args: tuple[str, ...], enums: frozenset[str] = frozenset()
           ) -> tuple[str, list[list[Any]]] | None:
    """The argument whose value decides the path's value (see the module doc), and the table."""
    best: tuple[int, str, list[list[Any]]] | None = None
    names = {n for args, _ in record.shown for n in args}
    for name in sorted(names):
        if name in key_args or _ID_NAME.fullmatch(name) or name.endswith(("_id", "Id", "_ids", "Ids")):
            continue
        table: dict[str, Any] = {}
        seen: Counter[str] = Counter()
        keys: dict[str, Any] = {}
        function = True
        for args, values in record.shown:
            given = args.get(name)
            if given is None or isinstance(given, (dict, list)):
                continue
            if not isinstance(given, (str, bool)) and name not in enums:
                function = False  # a quantity: what it gives is arithmetic on the state, not a table
                break
            if isinstance(given, str) and any(isinstance(v, str) and given in v for v in values):
                function = False  # a text with the argument in it: a sentence, not a table
                break
            forms = {_form(v) for v in values}
            key = _form(given)
            if len(forms) != 1 or key in table and _form(table[key]) not in forms or any(same_value(v, given) for v in values):
                function = False
                break
            table[key], keys[key] = values[0], given
            seen[key] += 1
        if not function or len(table) < 2 or len({_form(v) for v in table.values()}) < 2:
            continue
        if max(seen.values()) < 2:  # every argument value seen once: no evidence it decides anything
            continue
        if best is None or len(table) < best[0]:
            best = (len(table), name, [[keys[k], v] for k, v in table.items()])
    return (best[1], best[2]) if best is not None else None


def _statistic(path: str, record: _Path, key_args: tuple[str, ...], enums: frozenset[str] = frozenset(),
               addressed: frozenset[str] = frozenset()) -> JSONDict | None:
    """The path's statistic from this tool's answers alone, or None."""
    values = [v for _, vs in record.shown for v in vs]
    if record.keyed and len(record.episodes) >= 2 and len(values) >= 3 and len({_form(v) for v in values}) == 1:
        return {"const": values[0]}  # one id in every answer of every session: the server's fixed id, no counter
    if (record.keyed or _ID_NAME.fullmatch(leaf_name(path))) and (first := _first_id(record)) is not None:
        return {"x-first": first}
    if record.keyed or not values or record.counted:
        return None
    if (copied := _copied_argument(record)) is not None:
        return {"x-argument": copied}
    if _null_unless_given(leaf_name(path), record):
        return {"x-argument": leaf_name(path), "x-absent": None}
    if _fixed_clock(record, values):
        return {"const": values[0]}
    if record.echoed or any(isinstance(v, str) and (_TIMESTAMP.search(v) or len(v) > 64) for v in values):
        return None
    if any(any(same_value(args.get(leaf_name(path)), v) for v in vs) for args, vs in record.shown):
        return None  # the argument of its name gave it
    if (cases := _cases(record, key_args, enums)) is not None:
        return {"x-argument": cases[0], "x-cases": cases[1]}
    if any(v is None for v in values):  # sometimes null: what decides it is not in the answers
        return None
    forms = Counter(_form(v) for v in values)
    if len(forms) == 1 and len(record.shown) >= 2 and not (isinstance(values[0], str) and values[0] in addressed):
        return {"const": values[0]}  # not a word the calls gave (every event ``maya``'s because the calls said so)
    if all(isinstance(v, str) and _CODE.fullmatch(v) for v in values) and len(forms) <= MAX_VOCABULARY \
            and len(values) >= 2 and not all(str(v) in addressed for v in values):
        return {"enum": [json.loads(f) for f, _ in forms.most_common()]}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return {"minimum": min(0, min(values)), "maximum": max(values)}
    if len(values) == 1 and "[]" not in path and isinstance(values[0], str) and _TOKEN.fullmatch(values[0]) \
            and values[0] not in addressed:
        return {"examples": values}  # one answer's word (``status: Open``): likelier than one the model makes up
    return None


def _first_id(record: _Path) -> Any:
    """The id nearly every session's first answer showed (a server that draws its ids from a seeded generator
    answers ``booking_id: 3426812`` first every time), or None."""
    firsts = Counter(_form(v) for v in record.firsts.values() if isinstance(v, (str, int)) and not isinstance(v, bool))
    if not firsts or len(record.firsts) < _FIRST_SESSIONS:
        return None
    form, count = firsts.most_common(1)[0]
    return json.loads(form) if count / len(record.firsts) >= _FIRST_SHARE else None


def _fixed_clock(record: _Path, values: list[Any]) -> bool:
    """A time the environment shows the same in every answer of two sessions or more (``current_time: 09:15 AM``):
    a clock that stands, not a stamp of the moment (two sessions are never recorded at one moment)."""
    return len(record.episodes) >= 2 and not record.echoed and all(isinstance(v, str) for v in values) \
        and len({_form(v) for v in values}) == 1 and _TIMESTAMP.search(values[0]) is not None \
        and len(values[0]) <= 64


def _pooled(per_tool: dict[str, dict[str, _Path]], addressed: frozenset[str]) -> dict[str, JSONDict]:
    """Per field name, what every answer of two tools or more showed under it (see the module doc): one
    value of an id-like name (a session's project id), of a boolean (``success: true``) or a word no call
    passed (``project_name``); else a vocabulary of code-like words (``previous_status``). A field that
    ever echoed an argument is no constant, nor is an id the client passed back (``addressed``): that is
    an entity the session made."""
    values: dict[str, list[Any]] = {}
    tools: dict[str, set[str]] = {}
    broken: set[str] = set()
    for tool, paths in per_tool.items():
        for path, record in paths.items():
            name = leaf_name(path)
            shown = [v for _, vs in record.shown for v in vs]
            values.setdefault(name, []).extend(shown)
            tools.setdefault(name, set()).add(tool)
            if record.echoed or _copied_argument(record) is not None or any(
                    any(same_value(v, g) for v in vs for g in leaves(args)) for args, vs in record.shown):
                broken.add(name)
    out: dict[str, JSONDict] = {}
    for name, shown in values.items():
        if len(tools[name]) < 2 or any(v is None for v in shown):
            continue
        forms = Counter(_form(v) for v in shown)
        value = shown[0]
        if len(forms) == 1 and name not in broken:
            word = isinstance(value, str) and _CODE.fullmatch(value) is not None and len(shown) >= 3
            id_like = _ID_NAME.fullmatch(name) is not None and isinstance(value, str) and len(value) >= _MIN_ECHO
            if (id_like or word) and value not in addressed or isinstance(value, bool):
                out[name] = {"const": value}
                continue
        if all(isinstance(v, str) and _CODE.fullmatch(v) for v in shown) and len(forms) <= MAX_VOCABULARY \
                and not all(str(v) in addressed for v in shown):  # words the calls gave: the session's data
            out[name] = {"enum": [json.loads(f) for f, _ in forms.most_common()]}
    return out


def _scalar_lists(value: Any, prefix: str = "") -> Iterator[tuple[str, list[Any]]]:
    """``(path, list)`` for every non-empty list of scalars outside lists (``plant_list``)."""
    if isinstance(value, dict):
        for name, sub in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(sub, list) and sub and all(not isinstance(i, (dict, list)) for i in sub):
                yield path, sub
            elif isinstance(sub, dict):
                yield from _scalar_lists(sub, path)


def list_cases(turns: list[RecordedTurn], key_args: tuple[str, ...]) -> dict[str, JSONDict]:
    """Per path of a list of scalars, the word argument whose value decided the whole list (``bed:
    North`` -> ``[basil, fern, ...]``): each value gave one list, the same in two sessions or more (a
    table of the environment's, not a listing of one session's state); the list never holds the value."""
    shown: dict[str, list[tuple[JSONDict, str, list[Any]]]] = {}
    for turn in turns:
        if failed(turn.result):
            continue
        for path, items in _scalar_lists(answer_data(turn.result)):
            shown.setdefault(path, []).append((dict(turn.arguments), turn.episode, items))
    out: dict[str, JSONDict] = {}
    for path, entries in shown.items():
        for name in sorted({n for args, _, _ in entries for n in args}):
            if name in key_args or _ID_NAME.fullmatch(name) or name.endswith(("_id", "Id", "_ids", "Ids")):
                continue
            table: dict[str, tuple[Any, str, set[str]]] = {}
            for args, episode, items in entries:
                given = args.get(name)
                form = _form(items)
                if not isinstance(given, str) or not _CODE.fullmatch(given.replace(" ", "_")) or given in items \
                        or table.setdefault(given, (given, form, set()))[1] != form:
                    table = {}
                    break
                table[given][2].add(episode)
            if table and all(len(sessions) >= 2 for _, _, sessions in table.values()):
                out[path] = {"x-argument": name, "x-cases": [[v, json.loads(f)] for v, f, _ in table.values()]}
                break
    return out


def _lists(value: Any, prefix: str = "") -> Iterator[tuple[str, list[Any]]]:
    """``(path, list)`` for every list outside lists (``recovered: []``)."""
    if isinstance(value, dict):
        for name, sub in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(sub, list):
                yield path, sub
            elif isinstance(sub, dict):
                yield from _lists(sub, path)


def empty_lists(by_tool: dict[str, list[RecordedTurn]]) -> dict[str, dict[str, JSONDict]]:
    """Per tool, the list fields every one of its successful answers showed empty, under a name no answer of the
    session ever showed a list with something in (twice empty at least, over the session): ``recovered: []``
    stays empty instead of a list of invented words."""
    shown: dict[str, dict[str, list[bool]]] = {}
    emptied: Counter[str] = Counter()
    filled: set[str] = set()
    for tool, turns in by_tool.items():
        for turn in turns:
            if failed(turn.result):
                continue
            for path, items in _lists(answer_data(turn.result)):
                shown.setdefault(tool, {}).setdefault(path, []).append(not items)
                if items:
                    filled.add(leaf_name(path))
                else:
                    emptied[leaf_name(path)] += 1
    out: dict[str, dict[str, JSONDict]] = {}
    for tool, paths in shown.items():
        answers = sum(1 for t in by_tool[tool] if not failed(t.result))
        for path, empties in paths.items():
            name = leaf_name(path)
            if len(empties) == answers and all(empties) and emptied[name] >= 2 and name not in filled:
                out.setdefault(tool, {})[path] = {"const": []}
    return out


def _widens(own: JSONDict | None, shared: JSONDict, record: _Path) -> bool:
    """Whether the session-wide statistic says more than the tool's own answers: a constant over a range
    or a vocabulary; a vocabulary where the tool showed too little for one; never over a copy or a case."""
    if any(v is None for _, vs in record.shown for v in vs):
        return False
    if own is None:
        return True
    return "x-argument" not in own and "const" not in own and "const" in shared


def learn_values(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its answer paths' statistics (see the module doc)."""
    by_tool: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            by_tool.setdefault(turn.tool, []).append(turn)
    per_tool = {tool: tool_paths(turns) for tool, turns in by_tool.items() if catalog.get(tool) is not None}
    addressed = frozenset(str(v) for turns in by_tool.values() for t in turns for v in leaves(t.arguments))
    pooled = _pooled(per_tool, addressed)
    out: dict[str, JSONDict] = {}
    empties = empty_lists({t: turns for t, turns in by_tool.items() if t in per_tool})
    for tool, paths in per_tool.items():
        spec = catalog.get(tool)
        key_args = spec.role.key_args if spec is not None else ()
        properties = (spec.input_schema.get("properties") if spec is not None else None) or {}
        enums = frozenset(n for n, p in properties.items() if isinstance(p, dict) and p.get("enum"))
        found: JSONDict = {}
        for path, record in paths.items():
            statistic = _statistic(path, record, key_args, enums, addressed)
            shared = pooled.get(leaf_name(path))
            if shared is not None and (not record.keyed or "const" in shared) and _widens(statistic, shared, record):
                statistic = shared
            if statistic is not None:
                found[path] = statistic
        found.update(list_cases(by_tool[tool], key_args))
        found.update(empties.get(tool, {}))
        if found:
            out[tool] = found
    return out


def add_value_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's statistics under its ``_meta``; the number of paths written."""
    learned = learn_values(episodes, catalog)
    found = {name: paths for name, paths in learned.items() if paths}
    write_meta(data, VALUES_META, found)
    return sum(len(paths) for paths in found.values())


__all__ = ["MAX_VOCABULARY", "add_value_meta", "learn_values", "tool_paths"]
