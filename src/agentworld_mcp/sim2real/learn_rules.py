"""Behaviour ``learn`` reads from the order of a session's calls, not from one answer alone.

Walking a recording call by call with :mod:`..models.deterministic.learned_state`'s history:

* **rules**: a tool's answers that differ from its usual one (a refusal ``Cannot update completed
  task``, ``already_done``, ``Task not found``) and the condition that tells them apart: the one
  condition (of ``missing``, ``acted``, ``all_children`` and their negations; for a create, ``present``:
  its key names what the session held, ``File already exists``) that held at each
  such call and at none of the tool's usual ones. Where a tool has no usual answer recorded, the
  condition is taken only when other tools' rules confirmed the same tool's effect. Answered with
  the recorded wording (the call's own values in place of the recorded ones) and flag. A refusal the
  server threw as a JSON-RPC error (``proxy --record`` keeps it under ``jsonrpc_error``) is an
  ``isError`` one; its code is kept beside the rule. A refusal that quotes a (non-key) argument's value, or
  names the argument where no state explains it, is a rule about that VALUE (:mod:`.learn_value_rules`).
* **sets**: fields a change sets to a constant (``approve_task_completion`` -> ``approved: true``).
* **copies**: answer fields that are a copy of an argument in the recorded calls that passed it
  (``thoughtNumber`` echoes ``thoughtNumber``): two calls at least (or one long text), and more
  than three agreeing calls for each that did not;
* **lookups**: fields that show a field of the entity the call names, under another name
  (:mod:`.learn_lookups`);
* **counters**: integer fields that count the tool's successful calls in the episode so far
  (``thoughtHistoryLength``: 1, 2, 3...), as ``{field: offset}``;
* **slots**: fields filled from the call and its episode (``created_by: {{last.login.username}}``, a
  sentence with the call's values), see :mod:`.learn_provenance`;
* **next**: for a tool answering the first pending item, the tool whose call takes an item out.
* **tables**: text rows that show the entities under a parent (a progress table), one row per
  entity, each cell a field of it or a text that a tool's call switches (``✅ Done``).
* **item counts**: integers of listed items that count the entities under them (``totalTasks``),
  or those a tool acted on (``completedTasks``).
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from typing import Any

from ..world.roles import is_id_name
from ..world.values import leaves, same_value
from ..models.deterministic.determined import name_key
from ..models.deterministic.learned_envelope import template_text
from ..models.deterministic.learned_rules import LEARNED_META, present
from ..models.deterministic.learned_state import (
    History, answer_data, answer_text, conditions_of, failed, history_of, key_of, keyed_objects,
)
from ..world.catalog import Catalog
from .learn_lookups import learn_lookups
from .learn_provenance import learn_field_texts, learn_lasts, session_fields
from .learn_value_rules import value_argument, value_condition
from .proxy import JSONRPC_ERROR
from .score import RecordedTurn

JSONDict = dict[str, Any]
_CODE = re.compile(r"[a-z][a-z_]{1,40}")
#: A tool whose name says it finishes an item (``mark_task_done``): what a "next pending item" tool passes over.
_FINISHES = re.compile(r"done|complete|finish|close|resolve", re.IGNORECASE)
#: Kinds of condition, the simplest first (a tie between conditions goes to the earlier kind).
_KINDS = ("missing", "present", "acted", "all_children", "not_acted", "not_all_children", "value")
#: A refusal of the call's arguments as such (a validator's words), whatever the state.
_INVALID_INPUT = re.compile(r"input validation error|invalid arguments? for tool|validation error", re.IGNORECASE)


def codes(arguments: JSONDict, data: Any, skip: Any = ()) -> tuple[tuple[str, str], ...]:
    """The status-like codes of an answer (``status: task_marked_done``) that no argument gave; ``skip``:
    fields whose value an earlier call gave (a user name is no code, however it reads)."""
    if not isinstance(data, dict):
        return ()
    given = {str(v) for v in arguments.values()}
    return tuple(sorted((k, v) for k, v in data.items() if isinstance(v, str) and _CODE.fullmatch(v) and v not in given
                        and k not in skip))


class Walk:
    """Each recorded call with the history before it and the conditions that held then."""

    def __init__(self, episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> None:
        deleting = {s.name: s.role.key_args for s in catalog if s.role.kind == "delete" and s.role.key_args}
        self.calls: list[tuple[RecordedTurn, History, list[JSONDict]]] = []
        self.episode_of: dict[int, list[RecordedTurn]] = {}  # by id of a turn, the episode it is in
        names = [s.name for s in catalog]
        creating = {s.name: s.role.key_args for s in catalog if s.role.kind == "create" and s.role.key_args}
        for turns in episodes.values():
            self.episode_of.update({id(t): turns for t in turns})
            history = history_of([], deleting=deleting)
            for turn in turns:
                before = _copy(history)
                held = conditions_of(before, turn.arguments, names)
                held += [{"if": "present", "arg": name} for name in creating.get(turn.tool, ())
                         if present(before, turn.arguments.get(name))]  # a create of a key the session held
                self.calls.append((turn, before, held))
                history.add(turn.tool, turn.arguments, turn.result)
        self.catalog = catalog
        by_tool: dict[str, list[tuple[RecordedTurn, History, list[JSONDict]]]] = {}
        for call in self.calls:
            by_tool.setdefault(call[0].tool, []).append(call)
        self.by_tool = by_tool
        self.lasts = learn_lasts(episodes, catalog)  # before the usual answers: a session value is no code
        self.session = session_fields(episodes)
        for tool, fields in self.lasts.items():
            self.session.setdefault(tool, set()).update(fields)
        self.main = {tool: _main(calls, self.session.get(tool, set())) for tool, calls in by_tool.items()}

    def is_main(self, turn: RecordedTurn) -> bool:
        return not failed(turn.result) and codes(turn.arguments, answer_data(turn.result),
                                                 self.session.get(turn.tool, set())) == self.main.get(turn.tool)

    def before(self, turn: RecordedTurn) -> list[RecordedTurn]:
        """The calls of the turn's episode before it."""
        turns = self.episode_of.get(id(turn), [])
        return turns[:next((i for i, t in enumerate(turns) if t is turn), 0)]


def _copy(history: History) -> History:
    return History({k: dict(v) for k, v in history.entities.items()}, dict(history.parent),
                   {k: list(v) for k, v in history.acted.items()}, set(history.seen), history.deleting)


def _main(calls: list[tuple[RecordedTurn, History, list[JSONDict]]],
          skip: Any = ()) -> tuple[tuple[str, str], ...] | None:
    counted = Counter(codes(t.arguments, answer_data(t.result), skip) for t, _, _ in calls if not failed(t.result))
    return counted.most_common(1)[0][0] if counted else None


def learn_behaviour(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> tuple[dict[str, JSONDict], Walk]:
    """Per tool, what goes under its ``_meta`` (:data:`LEARNED_META`); and the walk (which calls are usual)."""
    walk = Walk(episodes, catalog)
    groups: dict[tuple[str, str], list[tuple[RecordedTurn, list[JSONDict]]]] = {}
    for turn, _, held in walk.calls:
        if not walk.is_main(turn) and catalog.get(turn.tool) is not None:
            text = template_text(answer_text(turn.result), turn.arguments)
            groups.setdefault((turn.tool, json.dumps([bool(turn.result.get("isError")), text])), []).append((turn, held))
    learned: dict[str, JSONDict] = {}
    for group, calls in list(groups.items()):  # a refusal quoting an argument's value: a rule about that value
        if (rule := _value_rule(walk, group[0], [t for t, _ in calls], quoted_only=True)) is not None:
            _add_rule(learned, group[0], rule)
            del groups[group]
    candidates: dict[tuple[str, str], tuple[list[str], bool]] = {}
    for group, calls in list(groups.items()):
        negative = {_sig(c) for t, _, held in walk.by_tool[group[0]] if walk.is_main(t) for c in held}
        confirmed = any(walk.is_main(t) for t, _, _ in walk.by_tool[group[0]])
        found = sorted(set.intersection(*({_sig(c) for c in held} for _, held in calls)) - negative)
        if found or len(calls) == 1:
            candidates[group] = (found, confirmed)
            continue
        del groups[group]  # one wording, two reasons (never created; deleted): a rule per call
        for n, (turn, held) in enumerate(calls):
            groups[(group[0], f"{group[1]}#{n}")] = [(turn, held)]
            candidates[(group[0], f"{group[1]}#{n}")] = (sorted({_sig(c) for c in held} - negative), confirmed)
    votes: Counter[str] = Counter()  # per tool, how many confirmed rules it could explain
    for found, confirmed in candidates.values():
        if confirmed:
            votes.update({t for c in found if (t := json.loads(c).get("tool"))})
    for (tool, _), calls in groups.items():
        found, confirmed = candidates[(tool, _)]
        spec = catalog.get(tool)
        keys = spec.role.key_args if spec is not None else ()
        options = [json.loads(c) for c in found]
        if not confirmed:  # no usual answer to tell it from: only a tool other rules confirmed
            options = [c for c in options if votes.get(c.get("tool") or "", 0) > 0]
        quoted: set[str] = set()
        if len(calls) == 1:  # one refusal is weak evidence: only its key missing, present or acted on explains it,
            # or a scope never seen before that the refusal quotes (``Vault 'personal' is not configured``)
            quoted = {c["arg"] for c in options if c["if"] == "missing" and _scope(walk, tool, c["arg"])
                      and "{{args." + c["arg"] + "}}" in template_text(answer_text(calls[0][0].result),
                                                                       calls[0][0].arguments)}
            options = [c for c in options if c["if"] in ("missing", "present", "acted") and c["arg"] in keys
                       or c["if"] == "missing" and c["arg"] in quoted]
        if len(calls) == 1 and not any(c["if"] in ("missing", "present") for c in options) \
                and (rule := _flag_rule(walk, calls[0][0])) is not None:
            _add_rule(learned, tool, rule)  # a switch the call turned that no usual call did, and the words name
            continue
        if not options and (rule := _value_rule(walk, tool, [t for t, _ in calls], quoted_only=False)) is not None:
            _add_rule(learned, tool, rule)  # no state explains it, and it names an argument: that value's
            continue
        if not options or _INVALID_INPUT.search(answer_text(calls[0][0].result)):
            continue  # a refusal of the arguments' values is the inputSchema's business, not the state's
        order = list((spec.input_schema.get("properties") or {}) if spec is not None else {})
        deleting = {s.name for s in catalog if s.role.kind == "delete"}  # gone because deleted: the likeliest act
        best = min(options, key=lambda c: (c["arg"] not in quoted, c["arg"] not in keys, _KINDS.index(c["if"]),
                                           c.get("tool") is not None and c.get("tool") not in deleting,
                                           -votes.get(c.get("tool") or "", 0),
                                           order.index(c["arg"]) if c["arg"] in order else len(order)))
        _add_rule(learned, tool, _rule(calls[0][0], best))
    for meta in learned.values():
        meta["rules"].sort(key=lambda r: _KINDS.index(r["when"]["if"]))
    for tool, tool_calls in walk.by_tool.items():
        sets = _sets(walk, tool, tool_calls)
        if sets:
            learned.setdefault(tool, {})["sets"] = sets
    for tool in walk.by_tool:
        copies, counters = _copies(walk, tool), _counters(walk, tool)
        if copies:
            learned.setdefault(tool, {})["copies"] = copies
            if defaults := _defaults(walk, tool, copies):
                learned[tool]["defaults"] = defaults
        if counters:
            learned.setdefault(tool, {})["counters"] = counters
        if lookups := {n: f for n, f in learn_lookups(walk, tool).items() if n not in copies and n not in counters}:
            learned.setdefault(tool, {})["lookups"] = lookups
        slots = dict(walk.lasts.get(tool, {}))
        slots.update(learn_field_texts([(t, walk.before(t)) for t, _, _ in walk.by_tool[tool] if walk.is_main(t)],
                                       set(slots) | set(copies) | set(counters)))
        if slots:
            learned.setdefault(tool, {})["slots"] = slots
    for tool in walk.by_tool:
        nxt = _next(walk, tool, votes)
        if nxt:
            learned.setdefault(tool, {})["next"] = nxt
    _share_missing(walk, learned)
    return learned, walk


def _server_keyed(walk: Walk) -> set[str]:
    """The collections whose keys the server makes: a create's answer showed a key no argument of it gave (an
    id from its table, looked up there whichever tool names it; a path or a name the client chose may exist
    outside what the session showed)."""
    out: set[str] = set()
    for tool, calls in walk.by_tool.items():
        spec = walk.catalog.get(tool)
        if spec is None or spec.role.kind != "create" or not spec.role.collection or spec.role.key_args:
            continue
        for turn, _, _ in calls:
            given = {str(v) for v in leaves(turn.arguments)}
            made = next(keyed_objects(answer_data(turn.result)), None)  # the outermost: the entity it made
            if not failed(turn.result) and made is not None and key_of(made) not in given:
                out.add(spec.role.collection)
    return out


def _share_missing(walk: Walk, learned: dict[str, JSONDict]) -> None:
    """A refusal of a missing entity, learned on one tool, for every other tool addressing that collection by
    the same key argument: the server looks the entity up the same way whichever tool names it (``no task with
    id 9`` from ``show`` and ``complete`` alike), for a collection whose keys the server makes, and a wording
    that names the key. Only where the tool's own recorded calls never succeeded with that key missing or
    deleted, and the tool has no rule of its own about that argument (its own wording)."""
    shared: dict[tuple[str, str], JSONDict] = {}
    made = _server_keyed(walk)
    for tool, meta in learned.items():
        spec = walk.catalog.get(tool)
        for rule in meta.get("rules") or ():
            when = rule["when"]
            if spec is not None and spec.role.collection in made and when.get("if") == "missing" \
                    and "tool" not in when and when.get("arg") in spec.role.key_args \
                    and "{{args." + str(when["arg"]) + "}}" in str(rule.get("text")):  # it names the key
                shared.setdefault((spec.role.collection, str(when["arg"])), rule)
    for spec in walk.catalog:
        if spec.role.kind in ("create", "list", "search") or not spec.role.collection:
            continue
        for (collection, arg), rule in shared.items():
            own = learned.get(spec.name, {}).get("rules") or []
            if collection != spec.role.collection or arg not in (spec.input_schema.get("properties") or {}) \
                    or any(r["when"].get("arg") == arg for r in own):  # its own wording for that key
                continue
            gone = {_sig({"if": "missing", "arg": arg})} | {_sig({"if": "acted", "arg": arg, "tool": s.name})
                                                            for s in walk.catalog if s.role.kind == "delete"}
            if any(not failed(t.result) and gone & {_sig(c) for c in held}
                   for t, _, held in walk.by_tool.get(spec.name, ())):
                continue  # it answered a key the session never showed or had deleted: no lookup there
            _add_rule(learned, spec.name, copy.deepcopy(rule))
            learned[spec.name]["rules"].sort(key=lambda r: _KINDS.index(r["when"]["if"]))


def _rule(first: RecordedTurn, when: JSONDict) -> JSONDict:
    """The rule answering as ``first`` did (its wording with the call's values as slots) when ``when`` holds."""
    rule: JSONDict = {"when": when, "isError": bool(first.result.get("isError")),
                      "text": template_text(answer_text(first.result), first.arguments)}
    if isinstance(first.result.get("structuredContent"), dict):
        rule["structured"] = _templated(first.result["structuredContent"], first.arguments)
    if isinstance(thrown := first.result.get(JSONRPC_ERROR), dict):  # kept; served as isError (sim-to-real.md)
        rule[JSONRPC_ERROR] = {"code": thrown.get("code")}
    return rule


def _add_rule(learned: dict[str, JSONDict], tool: str, rule: JSONDict) -> None:
    rules = learned.setdefault(tool, {}).setdefault("rules", [])
    same = next((r for r in rules if r["when"].get("if") == "value" == rule["when"].get("if")
                 and r["when"]["arg"] == rule["when"]["arg"] and r["text"] == rule["text"]), None)
    if same is not None:  # one wording of the same argument's values: one rule, each refused value in it
        same["when"]["refused"] += [v for v in rule["when"]["refused"] if v not in same["when"]["refused"]]
    elif rule not in rules:
        rules.append(rule)


def _value_rule(walk: Walk, tool: str, turns: list[RecordedTurn], quoted_only: bool) -> JSONDict | None:
    """The rule of refusals ``turns`` about one argument's value (:mod:`.learn_value_rules`): its value quoted
    in the wording, or (not ``quoted_only``) the argument named; None where the refusal is no such one."""
    spec = walk.catalog.get(tool)
    first = turns[0]
    text = answer_text(first.result)
    if spec is None or _INVALID_INPUT.search(text):
        return None  # a validator's refusal is the inputSchema's business
    order = list(spec.input_schema.get("properties") or {})
    before = next((b for t, b, _ in walk.calls if t is first), None)
    keys = tuple(k for k in spec.role.key_args  # a key naming what the session held: the state's refusal
                 if before is None or present(before, first.arguments.get(k)))
    found = value_argument(text, template_text(text, first.arguments), first.arguments, keys, order)
    if found is None or quoted_only and not found[1]:
        return None
    when = value_condition(turns, found[0], walk.catalog, [t for t, _, _ in walk.calls])
    return _rule(first, when) if when is not None else None


def _flag_rule(walk: Walk, turn: RecordedTurn) -> JSONDict | None:
    """One refusal whose words name a boolean argument the call set to a value no usual call of the tool
    passed (``regex: true`` refused with ``Cannot use regex and fuzzy together``): a rule about that switch,
    applied only to calls that set it so, whatever the state (the state's conditions, weaker for one
    refusal, would replay it for calls that never set it)."""
    text = answer_text(turn.result)
    if _INVALID_INPUT.search(text):
        return None
    usual = [t for t, _, _ in walk.by_tool.get(turn.tool, ()) if walk.is_main(t)]
    for arg, value in turn.arguments.items():
        if not isinstance(value, bool) or not re.search(
                rf"(?<![\w]){re.escape(arg).replace('_', '[ _]')}(?![\w])", text, re.IGNORECASE):
            continue
        if any(t.arguments.get(arg) is value for t in usual):
            continue  # the server took this setting elsewhere: not why it refused
        return _rule(turn, {"if": "value", "arg": arg, "refused": [value]})
    return None


def _scope(walk: Walk, tool: str, arg: str) -> bool:
    """Whether every usual call of ``tool`` passed ``arg`` the same text, twice at least (a vault, a workspace)."""
    values = [t.arguments.get(arg) for t, _, _ in walk.by_tool[tool] if walk.is_main(t)]
    return len(values) >= 2 and all(isinstance(v, str) for v in values) and len(set(values)) == 1


def _sig(condition: JSONDict) -> str:
    return json.dumps(condition, sort_keys=True)


def _templated(value: Any, arguments: JSONDict) -> Any:
    if isinstance(value, dict):
        return {k: _templated(v, arguments) for k, v in value.items()}
    if isinstance(value, list):
        return [_templated(v, arguments) for v in value]
    if isinstance(value, str):
        return template_text(value, arguments)
    return value


def _sets(walk: Walk, tool: str, calls: list[tuple[RecordedTurn, History, list[JSONDict]]]) -> JSONDict:
    """Fields a successful change shows at one constant value, that an earlier answer showed otherwise."""
    spec = walk.catalog.get(tool)
    if spec is None or spec.role.kind not in ("update", "action"):
        return {}
    shown: list[tuple[JSONDict, JSONDict | None, JSONDict]] = []
    for turn, before, _ in calls:
        data = answer_data(turn.result)
        if not walk.is_main(turn) or not isinstance(data, dict):
            continue
        entity = next((v for v in data.values() if isinstance(v, dict) and key_of(v) is not None), None)
        if entity is None:
            return {}
        shown.append((entity, before.entities.get(str(key_of(entity))), turn.arguments))
    if not shown:
        return {}
    sets: JSONDict = {}
    for name, value in shown[0][0].items():
        if isinstance(value, (dict, list)) or name == "id" or any(value == v for v in shown[0][2].values()):
            continue
        if all(e.get(name) == value for e, _, _ in shown) and any(b is not None and name in b and b[name] != value
                                                                   for _, b, _ in shown):
            sets[name] = value
    return sets



def _copies(walk: Walk, tool: str) -> JSONDict:
    """Top-level answer fields that copy one argument (see the module doc): ``{field: argument}``. A field named
    as the argument is (``query`` of ``query``) needs one agreeing call: the name says what a value alone cannot."""
    agreed: Counter[tuple[str, str]] = Counter()
    broken: Counter[tuple[str, str]] = Counter()
    long_text: set[tuple[str, str]] = set()
    for turn, data in _main_answers(walk, tool):
        for name, value in data.items():
            if isinstance(value, (dict, list)) or value is None:
                continue
            for arg, given in turn.arguments.items():
                if isinstance(given, (dict, list)) or given is None:
                    continue
                pair = (name, arg)
                if same_value(value, given):
                    agreed[pair] += 1
                    if isinstance(value, str) and len(value) >= 12:
                        long_text.add(pair)
                else:
                    broken[pair] += 1
    found: JSONDict = {}
    for (name, arg), n in agreed.items():
        # a copy nearly always (a server may raise ``totalThoughts`` to the thought's number once)
        named = name_key(name) == name_key(arg) and not broken[(name, arg)]
        if name not in found and n > 3 * broken[(name, arg)] and (n >= 2 or (name, arg) in long_text or named):
            found[name] = arg
    return found


def _main_answers(walk: Walk, tool: str) -> list[tuple[RecordedTurn, JSONDict]]:
    """The tool's usual (main) recorded calls whose answer is an object, with that object."""
    out = []
    for turn, _, _ in walk.by_tool.get(tool, []):
        data = answer_data(turn.result)
        if walk.is_main(turn) and isinstance(data, dict):
            out.append((turn, data))
    return out


def _defaults(walk: Walk, tool: str, copies: JSONDict) -> JSONDict:
    """What a copied field shows when the call leaves its argument out (``limit: 50``, the server's default):
    the one value it showed in the calls without the argument; with no such call, the one value two copies or
    more showed (``year: 2026``), the only value the server is known to take. Several values, or one call's
    value alone (a ticket's title): none."""
    out: JSONDict = {}
    spec = walk.catalog.get(tool)
    keys = set(spec.role.key_args) if spec is not None else set()
    answers = _main_answers(walk, tool)  # parsed once for every copied field
    for name, arg in copies.items():
        if arg in keys or is_id_name(arg):  # an id the call names: no server default, only the session's entities
            continue
        absent = [data[name] for turn, data in answers if arg not in turn.arguments and name in data]
        given = [turn.arguments[arg] for turn, _ in answers if arg in turn.arguments]
        if not absent and len(given) < 2:  # one call's value is that call's, not the server's (a title replayed)
            continue
        seen = absent or given
        if seen and all(same_value(v, seen[0]) for v in seen) and not isinstance(seen[0], (dict, list)):
            out[name] = seen[0]
    return out


def _counters(walk: Walk, tool: str) -> JSONDict:
    """Integer answer fields equal to the number of the tool's successful calls in the episode plus a constant."""
    offsets: dict[str, set[int]] = {}
    calls: dict[int, int] = {}  # per episode (its first turn's id), successful calls so far
    shown = 0
    for turn, _, _ in walk.by_tool.get(tool, []):
        data = answer_data(turn.result)
        if not walk.is_main(turn) or not isinstance(data, dict):
            continue
        episode = id(walk.episode_of.get(id(turn)))
        calls[episode] = calls.get(episode, 0) + 1
        shown += 1
        for name, value in data.items():
            if isinstance(value, int) and not isinstance(value, bool) and not any(
                    same_value(value, v) for v in turn.arguments.values()):
                offsets.setdefault(name, set()).add(value - calls[episode])
            else:
                offsets.setdefault(name, set()).add(-10**9)  # not a counter in this answer
    return {name: found.pop() for name, found in offsets.items() if len(found) == 1 and -10**9 not in found
            and shown >= 2} if shown >= 2 else {}


def _next(walk: Walk, tool: str, votes: Counter[str]) -> JSONDict:
    """For a tool answering one pending item of a parent: the argument naming the parent, the tool that takes
    an item out (acted on every item passed over, on none shown)."""
    spec = walk.catalog.get(tool)
    if spec is None or spec.role.kind not in ("list", "search") or not spec.role.extra.get("first"):
        return {}
    parents: Counter[str] = Counter()
    skipped: list[set[str]] = []
    shown: set[str] = set()
    for turn, before, _ in walk.by_tool[tool]:
        data = answer_data(turn.result)
        item = next((v for v in data.values() if isinstance(v, dict) and key_of(v)), None) if isinstance(data, dict) else None
        if not walk.is_main(turn) or item is None:
            continue
        key = str(key_of(item))
        for name, value in turn.arguments.items():
            children = before.children(str(value))
            if key in children:
                parents[name] += 1
                skipped += [set(before.acted.get(c, ())) for c in children[:children.index(key)]]
                shown |= set(before.acted.get(key, ()))
    if not parents:
        return {}
    out: JSONDict = {"parent": parents.most_common(1)[0][0]}
    if skipped:
        tools = set.intersection(*skipped) - shown
        if tools:
            out["skip"] = max(sorted(tools), key=lambda t: votes.get(t, 0))
    if "skip" not in out:  # no item passed over in the recording: the recorded tool that says it finishes one
        finishing = sorted(t for t in walk.by_tool if t != tool and _FINISHES.search(t))
        if finishing:
            out["skip"] = max(finishing, key=lambda t: votes.get(t, 0))
    return out


__all__ = ["LEARNED_META", "Walk", "codes", "learn_behaviour"]


# -- tables: rows that show the entities under a parent ---------------------------------------------


def learn_tables(walk: Walk, tool: str) -> tuple[list[JSONDict], dict[int, JSONDict]]:
    """The tool's text tables whose rows are the entities under a parent, and, per recorded call (by ``id``
    of its turn), its answer with each such table's rows as one ``{{table.N}}`` line (what the envelope learns)."""
    tables: list[JSONDict] = []
    rewritten: dict[int, JSONDict] = {}
    for turn, before, _ in walk.by_tool.get(tool, []):
        data = answer_data(turn.result)
        if not walk.is_main(turn) or not isinstance(data, dict):
            continue
        after = _copy(before)
        after.add(turn.tool, turn.arguments, turn.result)
        answer = dict(data)
        for name, value in data.items():
            if not isinstance(value, str) or "\n" not in value:
                continue
            lines = value.split("\n")
            run = _row_run(lines, after)
            if run is None:
                continue
            start, keys = run
            source = _parent_source(turn.arguments, data, keys, after)
            if source is None:
                continue
            spec = next((t for t in tables if t["field"] == name), None)
            if spec is None:
                spec = {"field": name, "parent": source, **_row_template(lines[start], after.entities[keys[0]])}
                tables.append(spec)
            spec.setdefault("_seen", []).extend((lines[start + i], after.acted.get(k, [])) for i, k in enumerate(keys))
            answer[name] = "\n".join([*lines[:start], "{{table." + str(tables.index(spec)) + "}}", *lines[start + len(keys):]])
        rewritten[id(turn)] = answer
    for spec in tables:
        _switched_cells(spec, spec.pop("_seen"))
    return tables, rewritten


def _row_run(lines: list[str], history: History) -> tuple[int, list[str]] | None:
    """The first run of table lines (``| ... |``) that each name one entity of ``history`` in a cell."""
    start, keys = -1, []
    for i, line in enumerate(lines + [""]):
        cells = [c.strip() for c in line.split("|")] if line.lstrip().startswith("|") else []
        named = [c for c in cells if c in history.entities]
        if len(named) == 1 and named[0] not in keys:
            if start < 0:
                start = i
            keys.append(named[0])
        elif keys:
            return start, keys
    return None


def _parent_source(arguments: JSONDict, data: JSONDict, keys: list[str], history: History) -> str | None:
    for prefix, values in (("args", arguments), ("answer", data)):
        for name, value in values.items():
            if isinstance(value, (str, int)) and not isinstance(value, bool) and history.children(str(value)) == keys:
                return f"{prefix}.{name}"
    return None


def _row_template(line: str, entity: JSONDict) -> JSONDict:
    cells = line.split("|")
    out: list[str] = []
    for i, cell in enumerate(cells):
        text = cell.strip()
        field = next((k for k, v in entity.items() if text and str(v) == text and not isinstance(v, bool)), None)
        if field is not None:
            out.append(cell.replace(text, "{{row." + field + "}}"))
        elif text and 0 < i < len(cells) - 1:
            out.append("{{cell." + str(i) + "}}")
        else:
            out.append(cell)
    return {"row": "|".join(out)}


def _switched_cells(spec: JSONDict, seen: list[tuple[str, list[str]]]) -> None:
    """Each ``{{cell.N}}``: a constant, or one text while a tool has acted on the row's entity and another before."""
    cells: JSONDict = {}
    for marker in re.findall(r"\{\{cell\.(\d+)\}\}", spec["row"]):
        index = int(marker)
        shown = [(line.split("|")[index] if len(line.split("|")) > index else "", set(acted)) for line, acted in seen]
        texts = {text for text, _ in shown}
        if len(texts) == 1:
            cells[marker] = {"text": shown[0][0]}
            continue
        tools = sorted(set().union(*(acted for _, acted in shown)))
        for tool in tools:
            yes = {text for text, acted in shown if tool in acted}
            no = {text for text, acted in shown if tool not in acted}
            if len(yes) == 1 and len(no) == 1 and yes != no:
                cells[marker] = {"tool": tool, "yes": yes.pop(), "no": no.pop()}
                break
        else:
            cells[marker] = {"text": Counter(text for text, _ in shown).most_common(1)[0][0]}
    spec["cells"] = cells


def learn_item_counts(walk: Walk, tool: str, items_field: str) -> JSONDict:
    """Integers of listed items that count the entities under them, all or those a tool acted on."""
    found: dict[str, set[str]] | None = None
    for turn, before, _ in walk.by_tool.get(tool, []):
        data = answer_data(turn.result)
        if isinstance(data, dict) and items_field not in data:
            items_field = next((k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)),
                               items_field)
        items = data.get(items_field) if isinstance(data, dict) else None
        if not walk.is_main(turn) or not isinstance(items, list):
            continue
        for item in items:
            key = key_of(item) if isinstance(item, dict) else None
            if key is None:
                continue
            children = before.children(key)
            for name, value in item.items():
                if not isinstance(value, int) or isinstance(value, bool):
                    continue
                options = {""} if len(children) == value else set()
                options |= {t for t in {x for acted in before.acted.values() for x in acted}
                            if sum(t in before.acted.get(c, ()) for c in children) == value}
                if found is None:
                    found = {}
                found[name] = found[name] & options if name in found else options
    counts = {name: (sorted(options)[0] or None) for name, options in (found or {}).items() if options}
    return {"field": items_field, "counts": counts} if counts else {}
