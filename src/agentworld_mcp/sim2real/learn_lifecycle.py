"""State lifecycles learned from a recording (``learn``): which tools move an entity from one state to another.

A recording shows an entity's state in the answers that show the entity (``status_name: backlog``, with
``status_id: 1`` beside it), and tools whose answers report a move (``{"previous_status": "backlog",
"new_status": "todo"}``). Walking each episode in order, keeping every entity's last shown fields:

* a **transition tool** is a tool addressing one entity by its key argument whose answer holds a word
  equal to the entity's state word before the call (the *previous* field) and one other word (the *new*
  field, the state after it); the tracked state then moves on, so a later move without a read between
  is recognised too;
* the **word field** is the entity's field that matched; the **id field** the one that co-varies with it
  (one id per word and one word per id, over two words at least);
* the **order** of states: by id where ids are shown, else by the observed moves from the create's
  initial state; a state never shown with its id sits after the state it was reached from, and gets the
  id between its neighbours when the gap fits exactly (1, ?, 3 -> 2);
* **how the tool moves**: to an argument's value (``set``: the new word was always an argument),
  to the next state (``next``), or to one fixed state (``fixed``: the same target from two states, or a
  jump past ids the order skips, or the last state);
* **refusals**: a failed call of the tool at a known state is answered, at that state, as recorded;
* **state filters** of list tools: an argument whose value every listed entity showed in one field
  (``status: todo`` lists what has ``status_name: todo``).

Written under each tool's ``_meta`` as ``agentworld/lifecycle``; served by
``models/deterministic/learned_lifecycle.py``. Nothing is named: every field comes from the values.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..models.deterministic.learned_lifecycle import LIFECYCLE_META
from ..models.deterministic.learned_state import answer_data, failed, key_of, keyed_objects
from ..world.catalog import Catalog
from .learn_value_rules import quotes_value
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
#: A state word: a code (``backlog``, ``in_progress``), no prose, no number.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


def _word(value: Any) -> bool:
    return isinstance(value, str) and _WORD.fullmatch(value) is not None


def _words(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted path, word)`` for every word-valued scalar of an answer outside lists."""
    if isinstance(value, dict):
        for name, sub in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(sub, dict):
                yield from _words(sub, path)
            elif _word(sub):
                yield path, sub


@dataclass
class _Move:
    word: str
    previous: str
    new: str
    shown: list[tuple[JSONDict, str, str]] = field(default_factory=list)  # (arguments, previous, new)


@dataclass
class _Walk:
    """What the episodes showed: entity snapshots, moves per tool, states at refusals, create states."""

    snapshots: list[JSONDict] = field(default_factory=list)
    moves: dict[str, _Move] = field(default_factory=dict)
    refused: dict[str, list[tuple[JSONDict, JSONDict]]] = field(default_factory=dict)  # (entity then, answer)
    initial: Counter[str] = field(default_factory=Counter)
    created: dict[str, str] = field(default_factory=dict)  # collection -> the word field creates showed


def _walk(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> _Walk:
    walk = _Walk()
    for turns in episodes.values():
        tracked: dict[tuple[str, str], JSONDict] = {}
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None:
                continue
            role = spec.role
            raw = next((turn.arguments[a] for a in role.key_args if a in turn.arguments), None)
            here = tracked.get((role.collection, str(raw))) if raw is not None and role.collection else None
            data = answer_data(turn.result)
            if failed(turn.result):
                if here is not None and not quotes_value(turn, catalog):  # a value's refusal: learn_value_rules
                    walk.refused.setdefault(turn.tool, []).append((dict(here), turn.result))
                continue
            if data is None:
                continue
            if here is not None and role.kind not in ("create", "read", "list", "search", "delete"):
                _moved(walk, turn, here, data)
            for obj in keyed_objects(data):
                if role.collection:
                    tracked.setdefault((role.collection, str(key_of(obj))), {}).update(obj)
                walk.snapshots.append(obj)
                if role.kind == "create":
                    for name, value in obj.items():
                        if _word(value):
                            walk.initial[f"{role.collection}\0{name}\0{value}"] += 1
    return walk


def _moved(walk: _Walk, turn: RecordedTurn, here: JSONDict, data: Any) -> None:
    """A move the answer reports: a word equal to the entity's state word, and one other word beside it."""
    words = dict(_words(data))
    known = walk.moves.get(turn.tool)
    given = {str(v) for v in turn.arguments.values()}
    for state, current in here.items():  # never the entity's key, nor a word the call passed (an echo, no state)
        if not _word(current) or current == key_of(here) or current in given or known is not None and known.word != state:
            continue
        for previous, value in words.items():
            if value != current or known is not None and known.previous != previous:
                continue
            if previous.rpartition(".")[2] == state:  # the entity itself, shown unchanged in that field: no move
                continue
            parent = previous.rpartition(".")[0]
            others = [p for p in words if p != previous and p.rpartition(".")[0] == parent
                      and (known is None or p == known.new)]
            if len(others) != 1:
                continue
            move = walk.moves.setdefault(turn.tool, _Move(state, previous, others[0]))
            move.shown.append((dict(turn.arguments), current, words[others[0]]))
            here[state] = words[others[0]]
            return


def _id_field(snapshots: list[JSONDict], word: str) -> tuple[str | None, dict[str, Any]]:
    """The field that co-varies with the word field (one value per word and back), with its table."""
    best: tuple[str | None, dict[str, Any]] = (None, {})
    names = {n for s in snapshots if word in s for n in s if n != word}
    for name in sorted(names):
        table: dict[str, Any] = {}
        back: dict[str, str] = {}
        ok = True
        for snap in snapshots:
            w, v = snap.get(word), snap.get(name)
            if not isinstance(w, str) or not _word(w) or not isinstance(v, (int, str)) or isinstance(v, bool) \
                    or str(key_of(snap)) == str(v):
                continue
            if table.setdefault(w, v) != v or back.setdefault(str(v), w) != w:
                ok = False
                break
        if ok and len(table) >= 2 and len(table) > len(best[1]):
            best = (name, table)
    return best


def _order(words: list[str], ids: dict[str, Any], edges: list[tuple[str, str]], first: str | None) -> list[str]:
    """States in order: by id where known, else after the state they were reached from (see the module doc)."""
    numbered = all(isinstance(v, int) for v in ids.values()) and len(ids) >= 2
    order = sorted(ids, key=lambda w: ids[w]) if numbered else ([first] if first else [])
    for _ in range(len(words)):
        for before, after in edges:
            if before in order and after not in order:
                order.insert(order.index(before) + 1, after)
    return order + [w for w in words if w not in order]


def _interpolated(order: list[str], ids: dict[str, Any]) -> dict[str, Any]:
    """Ids for states shown without one, where the known neighbours leave exactly the room for them."""
    out = dict(ids)
    for i, state in enumerate(order):
        if state in out:
            continue
        left = next(((j, ids[order[j]]) for j in range(i - 1, -1, -1) if isinstance(ids.get(order[j]), int)), None)
        right = next(((j, ids[order[j]]) for j in range(i + 1, len(order)) if isinstance(ids.get(order[j]), int)), None)
        if left and right and right[1] - left[1] == right[0] - left[0]:
            out[state] = left[1] + (i - left[0])
    return out


def _how(move: _Move, ids: dict[str, Any], order: list[str]) -> JSONDict:
    """``set`` by an argument, ``next`` along the order, or ``fixed`` to one state (see the module doc)."""
    for name in sorted({n for args, _, _ in move.shown for n in args}):
        if all(args.get(name) == new for args, _, new in move.shown):
            return {"move": "set", "argument": name}
    targets = {new for _, _, new in move.shown}
    starts = {previous for _, previous, _ in move.shown}
    if len(targets) == 1:
        target = next(iter(targets))
        a, b = ids.get(next(iter(starts))), ids.get(target)
        jumped = isinstance(a, int) and isinstance(b, int) and b - a != 1
        if len(starts) >= 2 or jumped or order and target == order[-1]:
            return {"move": "fixed", "target": target}
    return {"move": "next"}


def _filters(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, dict[str, str]]:
    """Per list tool, the field each of its word arguments filters on (every listed entity showed the value)."""
    seen: dict[str, dict[str, set[str] | None]] = {}
    for turns in episodes.values():
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None or spec.role.kind not in ("list", "search") or failed(turn.result):
                continue
            listed = _listed(answer_data(turn.result))
            if not listed:
                continue
            for name, value in turn.arguments.items():
                if not _word(value):
                    continue
                fields = {f for f, v in listed[0].items() if v == value and f != name}
                fields = {f for f in fields if all(o.get(f) == value for o in listed)}
                found = seen.setdefault(turn.tool, {})
                found[name] = fields if name not in found else (found[name] or set()) & fields
    out: dict[str, dict[str, str]] = {}
    for tool, names in seen.items():
        chosen = {n: next(iter(f)) for n, f in names.items() if f and len(f) == 1}
        if chosen:
            out[tool] = chosen
    return out


def _listed(data: Any) -> list[JSONDict]:
    """The entities a listing answer shows: the keyed objects of its first list of them (at any depth)."""
    if isinstance(data, list):
        if data and all(isinstance(o, dict) and key_of(o) is not None for o in data):
            return data
        return []
    if isinstance(data, dict):
        for sub in data.values():
            if found := _listed(sub):
                return found
    return []


def learn_lifecycles(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its ``agentworld/lifecycle`` meta (see the module doc)."""
    walk = _walk(episodes, catalog)
    out: dict[str, JSONDict] = {}
    for tool, move in walk.moves.items():
        spec = catalog.get(tool)
        if spec is None:
            continue
        collection = spec.role.collection
        snapshots = [s for s in walk.snapshots if move.word in s]
        id_name, ids = _id_field(snapshots, move.word)
        edges = [(p, n) for m in walk.moves.values() if m.word == move.word for _, p, n in m.shown]
        words = list(dict.fromkeys([w for s in snapshots if isinstance(w := s.get(move.word), str) and _word(w)]
                                   + [w for e in edges for w in e]))
        starts = Counter({k.split("\0")[2]: c for k, c in walk.initial.items()
                          if k.split("\0")[:2] == [collection, move.word]})
        order = _order(words, ids, edges, starts.most_common(1)[0][0] if starts else None)
        ids = _interpolated(order, ids)
        meta: JSONDict = {"collection": collection, "word": move.word, "previous": move.previous, "new": move.new,
                          "order": order, **_how(move, ids, order)}
        if id_name is not None:
            meta.update({"id": id_name, "ids": ids})
        refusals: JSONDict = {}
        for then, result in walk.refused.get(tool, ()):
            if _word(then.get(move.word)):
                refusals.setdefault(then[move.word], result)
        if refusals:
            meta["refusals"] = refusals
        out[tool] = meta
    for tool, filters in _filters(episodes, catalog).items():
        out.setdefault(tool, {})["filters"] = filters
    return out


def add_lifecycle_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's lifecycle under its ``_meta``; the number of tools given one."""
    learned = learn_lifecycles(episodes, catalog)
    write_meta(data, LIFECYCLE_META, learned)
    from .learn_counts import add_counts_meta  # counts of the entities by their state
    from .learn_history import add_history_meta  # the rows the lifecycle's creates and moves append

    add_history_meta(data, catalog, episodes, learned)
    add_counts_meta(data, catalog, episodes, learned)
    return sum(1 for t in data["tools"] if t["name"] in learned)


__all__ = ["add_lifecycle_meta", "learn_lifecycles"]
