"""Children a call creates from a list argument, learned from a recording (``learn``).

A splitting tool (``decompose(id=3, into=["Draft", "Collect"])``) answers with one new entity per item of a
list argument: each shows the item in one field (``title``), the call's key in another (``parent_id: 3``),
a fresh key, and fields every such child showed alike (``status: pending``, ``due: null``) or an instant.
Walking the recording, a tool is a **spawning** tool when every successful call's answer holds, under one
field, a list of keyed objects as long as the list argument, the i-th showing the i-th item in the same
field each time. Learned per tool:

* ``argument``, ``path``, ``field``: the list argument, the answer field listing the children, the field
  each item goes to; ``links``: fields that always showed a scalar argument's value (``parent_id: id``);
* ``key``: the children's key field and whether keys were numbers; ``defaults``: the fields every child
  showed at one value; ``instants``: fields that showed a moment (the server's clock writes them);
  ``fields``: the recorded order of the child's fields;
* ``shows``: another answer field showing the entity the link argument names (``parent: {...}``).

Reads of the same collection whose answers hold a list under the same ``path`` (``subtasks: []``) show the
children of the entity they read (``view``), through the same link; where the recorded reads listed
children, each showing the same few fields (``{id, title, status}``, a summary, not the whole entity),
those are the view's ``fields``.

Written under each tool's ``_meta`` as ``agentworld/children``; served by
``models/deterministic/learned_children.py``. Nothing is named: every field comes from the values.
"""

from __future__ import annotations

from typing import Any

from ..models.deterministic.learned_children import CHILDREN_META
from ..models.deterministic.learned_clock import INSTANT
from ..models.deterministic.learned_state import answer_data, failed, key_of
from ..world.catalog import Catalog
from .score import RecordedTurn

JSONDict = dict[str, Any]


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _key_field(obj: JSONDict) -> str | None:
    key = key_of(obj)
    return next((k for k, v in obj.items() if key is not None and _scalar(v) and str(v) == key
                 and (k == "id" or k.endswith(("Id", "_id")))), None)


def _spawned(turn: RecordedTurn) -> list[tuple[str, str, str, list[JSONDict]]]:
    """``(argument, path, field, children)`` for each way the answer lists one new object per list item."""
    data = answer_data(turn.result)
    if not isinstance(data, dict):
        return []
    found = []
    for name, items in turn.arguments.items():
        if not isinstance(items, list) or not items or not all(_scalar(i) for i in items):
            continue
        for path, listed in data.items():
            if not isinstance(listed, list) or len(listed) != len(items) \
                    or not all(isinstance(o, dict) and key_of(o) is not None for o in listed):
                continue
            fields = [f for f in listed[0] if all(o.get(f) == i for o, i in zip(listed, items))]
            if len(fields) == 1:
                found.append((name, path, fields[0], listed))
    return found


def _learned(turns: list[RecordedTurn]) -> JSONDict | None:
    """The spawning meta of one tool's successful calls, or None where they disagree or show none."""
    shapes = [_spawned(t) for t in turns]
    if not shapes or any(len(s) != 1 for s in shapes) or len({s[0][:3] for s in shapes}) != 1:
        return None
    argument, path, field = shapes[0][0][:3]
    children = [c for s in shapes for c in s[0][3]]
    key = _key_field(children[0])
    if key is None or any(_key_field(c) != key for c in children):
        return None
    links: JSONDict = {}
    for name in children[0]:
        if name in (key, field):
            continue
        given = [a for a in turns[0].arguments if a != argument and all(
            _scalar(t.arguments.get(a)) and all(c.get(name) == t.arguments[a] for c in s[0][3])
            for t, s in zip(turns, shapes))]
        if len(given) == 1:
            links[name] = given[0]
    defaults: JSONDict = {}
    instants: list[str] = []
    for name in children[0]:
        if name in (key, field) or name in links:
            continue
        values = [c.get(name) for c in children]
        if all(isinstance(v, str) and INSTANT.fullmatch(v) for v in values):
            instants.append(name)
        elif all(v == values[0] for v in values) and not isinstance(values[0], (dict, list)):
            defaults[name] = values[0]
    meta: JSONDict = {"argument": argument, "path": path, "field": field, "links": links,
                      "key": {"field": key, "number": all(isinstance(c[key], int) for c in children)},
                      "defaults": defaults, "instants": instants, "fields": list(children[0])}
    linked = set(links.values())
    shows = [p for p in answer_data(turns[0].result) if p != path and all(
        isinstance(o := answer_data(t.result).get(p), dict) and key_of(o) is not None
        and any(str(t.arguments.get(a)) == key_of(o) for a in linked) for t in turns)]
    if len(shows) == 1:
        meta["shows"] = shows[0]
    return meta


def _shown_fields(lists: list[list[Any]]) -> list[str] | None:
    """The fields every child a read listed showed, in order, where all showed the same; else None."""
    rows = [o for listed in lists for o in listed]
    if not rows or not all(isinstance(o, dict) for o in rows) or len({tuple(o) for o in rows}) != 1:
        return None
    return list(rows[0])


def learn_children(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its ``agentworld/children`` meta (see the module doc)."""
    by_tool: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            if not failed(turn.result) and isinstance(answer_data(turn.result), dict):
                by_tool.setdefault(turn.tool, []).append(turn)
    out: dict[str, JSONDict] = {}
    for tool, turns in by_tool.items():
        spec = catalog.get(tool)
        if spec is None or not spec.role.collection or (meta := _learned(turns)) is None:
            continue
        out[tool] = {"spawn": {**meta, "collection": spec.role.collection}}
        link = next(iter(meta["links"]), None)
        if link is None:
            continue
        for other, calls in by_tool.items():
            read = catalog.get(other)
            if other == tool or read is None or read.role.kind != "read" or read.role.collection != spec.role.collection \
                    or not read.role.key_args:
                continue
            if all(isinstance(answer_data(t.result).get(meta["path"]), list) for t in calls):
                view: JSONDict = {"path": meta["path"], "link": link, "argument": read.role.key_args[0],
                                  "collection": spec.role.collection}
                if (shown := _shown_fields([answer_data(t.result)[meta["path"]] for t in calls])) is not None:
                    view["fields"] = shown
                out.setdefault(other, {})["view"] = view
    return out


def add_children_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's children meta under its ``_meta``; the number of tools given one."""
    learned = learn_children(episodes, catalog)
    for tool in data["tools"]:
        if (found := learned.get(tool["name"])) is not None:
            tool["_meta"] = {**(tool.get("_meta") or {}), CHILDREN_META: found}
    return len(learned)


__all__ = ["add_children_meta", "learn_children"]
