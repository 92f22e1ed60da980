"""What a session's answers show of the server's state, read the same way when learning and serving.

``learn`` reads a recording's calls with :func:`history_of` to find the conditions behind the
server's answers (``update_task`` refused once ``mark_task_done`` acted on the task); the
deterministic model reads the episode's own calls the same way to apply them. What is read:

* entities: every object an answer shows with an id (``id``, or one ``<noun>Id``), its latest
  scalar fields, in the order they were first shown;
* parents: the entity a list of entities (``tasks`` of a request) or a wrapped entity (``task``
  beside ``requestId``) sits under;
* acted: per value, the tools whose successful calls passed it as an argument (``taskId:
  task-1`` -> ``mark_task_done``): the status transitions a server keeps without showing them.

A condition (``{"if": "acted", "arg": "taskId", "tool": "mark_task_done"}``) is judged on a history:
``missing`` (the argument names nothing shown before), ``acted`` / ``not_acted`` (a tool acted on
it), ``all_children`` / ``not_all_children`` (a tool acted on every entity under it).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .failures import reads_as_failure

if TYPE_CHECKING:
    from ..base import Step

JSONDict = dict[str, Any]
Call = tuple[str, JSONDict, JSONDict]  # tool, arguments, CallToolResult JSON
_ID = re.compile(r"(?:[a-z0-9]+_id|[a-z][A-Za-z0-9]*Id)")


def answer_data(result: JSONDict) -> Any:
    """A result's data: its structuredContent (FastMCP's ``{"result": ...}`` taken off, a JSON string
    parsed), else its text parsed as JSON; None when it is prose."""
    value: Any = result.get("structuredContent")
    if value is None:
        texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
        value = _parsed("\n".join(texts))
    while isinstance(value, dict) and list(value) == ["result"]:
        value = _parsed(value["result"]) if isinstance(value["result"], str) else value["result"]
    return value if isinstance(value, (dict, list)) else None


#: Keys an envelope holds its payload under (``{"ok": true, "data": {...}}``, ``{"parsed_content": "..."}``).
_PAYLOAD_KEYS = ("data", "result", "parsed_content", "payload", "response", "body")


def unwrapped(value: Any) -> Any:
    """The payload inside an answer's envelopes: the one payload key's object or list (JSON text parsed), as
    often as envelopes nest; an object that is itself an entity (it shows an id) is no envelope."""
    for _ in range(4):
        if not isinstance(value, dict) or key_of(value) is not None:
            break
        inner = [v for k in _PAYLOAD_KEYS if k in value
                 and isinstance(v := _parsed(value[k]) if isinstance(value[k], str) else value[k], (dict, list))]
        if len(inner) != 1:
            break
        value = inner[0]
    return value


def answer_text(result: JSONDict) -> str:
    return "\n".join(str(c.get("text", "")) for c in result.get("content") or []
                     if isinstance(c, dict) and c.get("type") == "text")


def _parsed(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except ValueError:
            return None
    return None


def failed(result: JSONDict) -> bool:
    """``isError``, or an ordinary answer that reads as a failure."""
    if result.get("isError"):
        return True
    data = answer_data(result)
    return reads_as_failure(data if data is not None else answer_text(result))


def key_of(obj: JSONDict) -> str | None:
    """The id an object shows: its ``id``, else its one ``<noun>Id`` / ``<noun>_id`` field."""
    value = obj.get("id")
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        named = [v for k, v in obj.items() if _ID.fullmatch(k) and isinstance(v, (str, int)) and not isinstance(v, bool)]
        value = named[0] if len(named) == 1 else None
    return None if value is None else str(value)


def keyed_objects(value: Any) -> Iterator[JSONDict]:
    """Every object with a key (:func:`key_of`) at any depth of an answer, outer ones first."""
    if isinstance(value, dict):
        if key_of(value) is not None:
            yield value
        for sub in value.values():
            yield from keyed_objects(sub)
    elif isinstance(value, list):
        for item in value:
            yield from keyed_objects(item)


@dataclass
class History:
    """What the calls so far showed (see the module doc)."""

    entities: dict[str, JSONDict] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    acted: dict[str, list[str]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    #: Tools that delete what an argument names, and which arguments (the catalog's delete roles).
    deleting: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def children(self, key: str) -> list[str]:
        return [k for k in self.entities if self.parent.get(k) == key]

    def add(self, tool: str, arguments: JSONDict, result: JSONDict) -> None:
        if failed(result):
            return
        for value in _leaves(arguments):
            self.acted.setdefault(value, []).append(tool)
            self.seen.add(value)
        for name in self.deleting.get(tool, ()):
            self.entities.pop(str(arguments.get(name)), None)
        data = answer_data(result)
        self._walk(data, None)
        self.seen.update(_leaves(data))

    def _walk(self, value: Any, parent: str | None) -> None:
        if isinstance(value, list):
            for item in value:
                self._walk(item, parent)
            return
        if not isinstance(value, dict):
            return
        key = key_of(value)
        if key is not None:
            fields = self.entities.setdefault(key, {})
            fields.update({k: v for k, v in value.items() if not isinstance(v, (dict, list))})
            if parent is not None and parent != key:
                self.parent.setdefault(key, parent)
        for sub in value.values():
            if isinstance(sub, (dict, list)):
                self._walk(sub, key if key is not None else parent)

    def holds(self, condition: JSONDict, arguments: JSONDict) -> bool:
        """Whether ``condition`` holds for a call with ``arguments`` after this history."""
        value = arguments.get(str(condition.get("arg")))
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            return False
        key, kind, tool = str(value), condition.get("if"), condition.get("tool")
        if kind == "missing":  # a seeded file's path is stored from the root: ``a.md`` names ``/a.md``
            return key not in self.seen and posixpath.normpath("/" + key.lstrip("/")) not in self.seen
        if kind in ("acted", "not_acted"):
            return (tool in self.acted.get(key, ())) == (kind == "acted")
        if kind in ("all_children", "not_all_children"):
            children = self.children(key)
            every = bool(children) and all(tool in self.acted.get(c, ()) for c in children)
            return every == (kind == "all_children")
        return False


def history_of(calls: Iterable[Call], seed: dict[str, list[JSONDict]] | None = None,
               deleting: dict[str, tuple[str, ...]] | None = None) -> History:
    history = History(deleting=deleting or {})
    for items in (seed or {}).values():
        history._walk(items, None)
        history.seen.update(_leaves(items))
    for tool, arguments, result in calls:
        history.add(tool, arguments, result)
    return history


#: ``_meta`` key of a tool definition holding its learned behaviour.
LEARNED_META = "agentworld/learned"


def learned(step: Step) -> JSONDict:
    meta = (step.tool.definition.get("_meta") or {}).get(LEARNED_META)
    return meta if isinstance(meta, dict) else {}


def episode_history(step: Step) -> History:
    """What the episode's answers so far showed (and the world's seed)."""
    def deleting() -> dict[str, tuple[str, ...]]:
        catalog = step.catalog
        return {s.name: s.role.key_args for s in catalog if s.role.kind == "delete" and s.role.key_args} if catalog else {}

    calls = [(t.tool, t.arguments, t.result) for t in step.episode.turns]
    return history_of(calls, step.world.seed, step.derived("learned_deleting", deleting))


def conditions_of(history: History, arguments: JSONDict, tools: Iterable[str] = ()) -> list[JSONDict]:
    """Every condition of the language above, over ``tools`` (and those that acted), that holds for a call
    with ``arguments`` (the candidates)."""
    found: list[JSONDict] = []
    tools = sorted({*tools, *(t for ts in history.acted.values() for t in ts)})
    for name, value in arguments.items():
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            continue
        for kind in ("missing", "acted", "not_acted", "all_children", "not_all_children"):
            for tool in ([None] if kind == "missing" else tools):
                condition = {"if": kind, "arg": name, **({"tool": tool} if tool else {})}
                if history.holds(condition, arguments):
                    found.append(condition)
    return found


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [str(value)]
    return []


#: ``_meta`` key of a tool definition holding its learned value statistics (sim2real/learn_values.py).
VALUES_META = "agentworld/values"


def values_of(step: Step) -> dict[str, Any]:
    """A tool's learned value statistics per answer path (served by learned_values.py and the editor)."""
    meta = (step.tool.definition.get("_meta") or {}).get(VALUES_META)
    return meta if isinstance(meta, dict) else {}


__all__ = ["VALUES_META", "values_of", "LEARNED_META", "History", "episode_history", "learned", "answer_data", "answer_text", "conditions_of", "failed", "history_of", "key_of", "keyed_objects", "unwrapped"]
