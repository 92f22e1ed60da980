"""Values an answer's own parts or the call determine, never invented: counts, lengths, echoes, positions.

A schema-typed answer is assembled from the state and filled up from the outputSchema, and the
schema alone makes numbers random (``total_characters: 8150651045938185`` beside a 121-character
``content``). A real server measures or echoes them. The last pass over every typed answer:

- a count beside the list it counts is that list's length (``count`` beside ``matches``,
  ``matches_count``, ``total_matches``); a length or size beside the text it measures is that
  text's length (``total_characters``, ``content_length``, ``size`` in bytes, ``line_count``);
  a count of what went wrong or was left alone (``unchanged_count``, ``ambiguous_links``) is 0;
- an offset the call did not ask for is 0, a page it did not ask for is 1;
- ``has_more`` of a one-object read is false (its ``next_cursor`` goes), and of a listing
  shorter than the ``limit`` the call gave;
- a field named like an argument echoes it inside the envelope (``data.source``), unless it
  already holds a value the call or the world determined; the top level is left to
  :mod:`.determined` and the outcome texts, which know a ``message`` is the server's own prose;
- a list of objects whose items are named after a list argument (``paths=[...]`` ->
  ``updated: [{path, ...}]``) has one item per element of that argument;
- whatever integer is left unbounded (a schema ``maximum`` of 2**53) is a small number.

Only the field names, the answer's own siblings and the call's arguments are read. An answer
that these changes would make fail its outputSchema is left as it was.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ...world.roles import singular, words as _words
from ..base import Prediction, Step
from .determined import name_key
from .digests import with_content_digests

JSONDict = dict[str, Any]

#: An integer at least this large, not named as a time or an id, was drawn from an unbounded range.
_HUGE = 2**31
_COUNT_WORDS = frozenset({"count", "total", "num", "number", "of", "n", "cnt"})
_TOTAL_WORDS = frozenset({"total"})
_CHAR_WORDS = frozenset({"characters", "chars", "length", "len"})
_BYTE_WORDS = frozenset({"bytes", "size"})
_LINE_WORDS = frozenset({"lines"})
_WORD_WORDS = frozenset({"words"})
#: Counts of what went wrong or was left alone: none, in an answer that reports success.
_NOTHING_WORDS = frozenset({
    "unchanged", "unmodified", "unmatched", "unresolved", "skipped", "failed", "failures", "errors",
    "ambiguous", "conflicts", "invalid", "missing", "rejected", "dropped", "ignored", "warnings",
})
#: Fields that hold the text of a one-object answer, in order of preference.
_TEXT_FIELDS = ("content", "contents", "text", "body", "markdown", "html", "data", "value", "source", "code")
#: A length named after these measures the answer's text as a whole (``file_size``, ``note_length``).
_WHOLE_WORDS = frozenset({"file", "note", "document", "doc", "content", "text", "body", "total", "message"})
_OFFSET_FIELDS = frozenset({"offset", "skip", "startoffset", "startindex", "fromindex", "charoffset"})
_PAGE_FIELDS = frozenset({"page", "pagenumber", "currentpage", "pageindex"})
_MORE_FIELDS = frozenset({"hasmore", "hasnextpage", "moreavailable", "hasmoreresults"})
_CURSOR_FIELDS = frozenset({"nextcursor", "cursor", "nextpagetoken", "nexttoken", "nextpage", "continuationtoken"})
_PAGING_ARGS = frozenset({"cursor", "page", "pagetoken", "offset", "skip", "after", "before", "nextcursor",
                          "pagenumber", "startindex", "continuationtoken", "nexttoken"})
_LIMIT_ARGS = frozenset({"limit", "maxresults", "pagesize", "perpage", "maxitems", "top", "first", "pagelimit"})
#: Name parts of integers that may be large by nature (times, ids, sizes of big things).
_LARGE_BY_NATURE = re.compile(r"(time|date|epoch|stamp|_at$|^at$|_ms$|millis|nanos|micros|id$|ids$|hash|seed|"
                              r"version|revision|serial|checksum|crc|port|phone|zip|postal)", re.IGNORECASE)


def derived(step: Step, prediction: Prediction) -> Prediction:
    """``prediction`` with the values its own parts and the call determine put in place of invented ones."""
    prediction = with_content_digests(step, prediction)  # an ``etag`` is the hash of the entity's text
    observation = prediction.observation
    if prediction.is_error or not isinstance(observation, dict) or not step.tool.output_schema:
        return prediction
    call = _Call.of(step)
    validator = step.tool.output_validator
    valid = validator is None or validator.is_valid(observation)
    for drop_cursor in (True, False):  # a schema may require the cursor even when there is no more
        fixed = copy.deepcopy(observation)
        # the top level is settled (determined.py); the envelope's objects below it echo the call
        _settle(fixed, replace(call, drop_cursor=drop_cursor), echo=False, top=True)
        if fixed == observation:
            return prediction
        if not valid or validator is None or validator.is_valid(fixed):
            return replace(prediction, observation=fixed)
    return prediction  # the schema says otherwise: keep what conformed to it


@dataclass
class _Call:
    """What the call says, by :func:`name_key`, and the values it and the world determine."""

    arguments: dict[str, Any]
    determined: set[tuple[str, Any]] = field(default_factory=set)
    paged: bool = False
    limit: int | None = None
    drop_cursor: bool = True
    step: Step | None = None

    @classmethod
    def of(cls, step: Step) -> _Call:
        arguments = {name_key(k): v for k, v in step.arguments.items() if v is not None}
        call = cls(arguments)
        call.paged = any(k in _PAGING_ARGS for k in arguments)
        call.limit = next((v for k, v in arguments.items() if k in _LIMIT_ARGS and _is_int(v)), None)
        call.step = step
        return call

    def _world(self) -> None:
        """What the call and the world hold, gathered on the first question (most answers ask none)."""
        if self.step is None:
            return
        for value in self.step.arguments.values():
            self._hold(value)
        ledger = self.step.episode.ledger
        for collection in ledger.collections():
            for entity in ledger.items(collection):
                self._hold(entity.key)
                for value in entity.fields.values():
                    self._hold(value)
        self.step = None

    def _hold(self, value: Any) -> None:
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, (str, int, float, bool)):
                self.determined.add(_token(one))

    def holds(self, value: Any) -> bool:
        self._world()
        if isinstance(value, list):
            return any(value == v for v in self.arguments.values())
        return isinstance(value, (str, int, float, bool)) and _token(value) in self.determined


def _token(value: Any) -> tuple[str, Any]:
    return (type(value).__name__, value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)



def _settle(node: JSONDict, call: _Call, *, echo: bool, top: bool = False) -> None:
    """Set the determined values of ``node`` in place, its children first (a rebuilt list is then counted)."""
    for name, value in list(node.items()):
        if isinstance(value, dict):
            _settle(value, call, echo=echo or top)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            rebuilt = _one_per_argument(value, call)
            node[name] = rebuilt if rebuilt is not None else value
            for item in node[name]:
                _settle(item, call, echo=rebuilt is not None)
    if echo:
        _echo(node, call)
    _no_more(node, call)
    for name, value in list(node.items()):
        if _is_int(value):
            measured = _measured(name, node, call)
            if measured is not None:
                node[name] = measured
            elif abs(value) >= _HUGE and not _LARGE_BY_NATURE.search(name) and not call.holds(value):
                node[name] = 1 + value % 99  # unbounded in the schema, bounded in any real answer


def _echo(node: JSONDict, call: _Call) -> None:
    """Fields named like an argument say what the call said, unless they hold what the call or world determined."""
    for name, value in list(node.items()):
        wanted = call.arguments.get(name_key(name))
        if wanted is None or value == wanted or call.holds(value) or not _same_shape(value, wanted):
            continue
        node[name] = copy.deepcopy(wanted)


def _same_shape(value: Any, wanted: Any) -> bool:
    if isinstance(value, bool) or isinstance(wanted, bool):
        return isinstance(value, bool) and isinstance(wanted, bool)
    if isinstance(value, (int, float)) and isinstance(wanted, (int, float)):
        return True
    if isinstance(value, list) and isinstance(wanted, list):
        return all(isinstance(v, (str, int, float)) for v in value + wanted)
    return isinstance(value, str) and isinstance(wanted, str)


def _one_per_argument(items: list[Any], call: _Call) -> list[Any] | None:
    """``updated: [{path, tags}]`` for ``paths=[a, b]``: one item per path, unless the items already name them."""
    for arg, given in call.arguments.items():
        if not isinstance(given, list) or not given or not all(isinstance(g, (str, int)) for g in given):
            continue
        one = name_key(singular(arg))
        fields = [k for k in items[0] if name_key(k) == one]
        if one == arg or not fields:
            continue
        key = fields[0]
        if any(item.get(key) in given for item in items):
            return None  # the answer already speaks of what the call named
        rebuilt = [copy.deepcopy(items[min(i, len(items) - 1)]) for i in range(len(given))]
        for item, element in zip(rebuilt, given):
            item[key] = copy.deepcopy(element)
        return rebuilt
    return None


def _no_more(node: JSONDict, call: _Call) -> None:
    """``has_more`` of one object is false, and of a listing shorter than the call's ``limit``; no next cursor
    beside a false ``has_more``."""
    flag = next((k for k, v in node.items() if name_key(k) in _MORE_FIELDS and isinstance(v, bool)), None)
    if flag is None:
        return
    lists = [v for v in node.values() if isinstance(v, list)]
    if node[flag] and lists and (call.limit is None or len(lists[0]) >= call.limit):
        return
    node[flag] = False
    for name in [k for k in node if name_key(k) in _CURSOR_FIELDS and call.drop_cursor]:
        del node[name]


def _measured(name: str, node: JSONDict, call: _Call) -> int | None:
    """What an integer field named ``name`` measures among its siblings, or the call fixes; None if nothing."""
    key = name_key(name)
    words = _words(name)
    if key in _OFFSET_FIELDS and key not in call.arguments and not call.paged:
        return 0
    if key in _PAGE_FIELDS and key not in call.arguments:
        return 1
    if words and words[0] in _NOTHING_WORDS:
        return 0
    stem = [w for w in words if w not in _COUNT_WORDS]
    if set(words) & (_CHAR_WORDS | _BYTE_WORDS | _LINE_WORDS | _WORD_WORDS):
        return _length(words, node)
    if not set(words) & _COUNT_WORDS:
        return None
    target = _counted(stem, name, node)
    if target is not None:
        if set(words) & _TOTAL_WORDS and _more_pages(node, target, call):
            return None  # a total over all pages, beside one page
        return len(target)
    if stem and len(stem) == 1 and stem[0] in _NOTHING_WORDS:
        return 0
    return None


def _counted(stem: list[str], name: str, node: JSONDict) -> list[Any] | None:
    """The sibling list a count names (``matches_count`` -> ``matches``), or the only one (``count``)."""
    lists = {k: v for k, v in node.items() if isinstance(v, list) and k != name}
    wanted = name_key("".join(stem))
    for list_name, value in lists.items():
        if wanted and wanted in (name_key(list_name), name_key(singular(list_name))):
            return value
    if not stem and len(lists) == 1:
        return next(iter(lists.values()))
    return None


def _more_pages(node: JSONDict, page: list[Any], call: _Call) -> bool:
    more = any(name_key(k) in _MORE_FIELDS and v is True for k, v in node.items())
    return more or call.paged or (call.limit is not None and len(page) >= call.limit)


def _length(words: list[str], node: JSONDict) -> int | None:
    """``total_characters`` / ``content_length`` / ``size`` / ``line_count`` of the text beside it."""
    if any(name_key(k) in _MORE_FIELDS and v is True for k, v in node.items()):
        return None  # the text is one page of a longer one
    texts = {k: v for k, v in node.items() if isinstance(v, str)}
    stem = {w for w in words if w not in _COUNT_WORDS | _CHAR_WORDS | _BYTE_WORDS | _LINE_WORDS | _WORD_WORDS}
    text = next((v for k, v in texts.items() if stem and name_key(k) in stem), None)
    if text is None and stem <= _WHOLE_WORDS:  # ``total_characters``, ``file_size``: the answer's one text
        text = next((texts[k] for preferred in _TEXT_FIELDS for k in texts if name_key(k) == preferred), None)
    if text is None:
        return None
    if set(words) & _LINE_WORDS:
        return len(text.splitlines())
    if set(words) & _WORD_WORDS:
        return len(text.split())
    if set(words) & _BYTE_WORDS:
        return len(text.encode("utf-8"))
    return len(text)
