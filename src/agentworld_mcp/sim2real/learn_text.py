"""Sentence templates ``learn`` reads from a tool's recorded prose answers (served by
``models/deterministic/learned_text.py``).

Each successful prose answer is aligned with its call and the calls before it: the call's argument
values become ``{{args.PATH}}`` slots (``Switched to branch '{{args.branch_name}}'``), a value an earlier
call passed becomes ``{{last.TOOL.ARG}}`` (the latest such call's), and a hex string no call gave (a
commit hash) becomes ``{{fresh.hex.N}}``. A tool gets a template when every successful answer of it
gives the same one, and either two answers agree, or its one answer is one line with a slot, or the
tool changes something and its one answer is a one-line confirmation (``Files staged successfully``):
more lines of one answer, or a read's constant answer, may be the state it showed, which a template
would replay.

Then the learned world without templates replays the recording: a template is kept only for the tools
whose model answers differed from the real ones (a tool the model already answers like the server keeps
its model, which also knows states the recording never showed). Where the model failed on calls the
server answered, the template answers those calls too (``over_errors``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from collections.abc import Coroutine
from typing import Any, TypeVar

from ..models.deterministic.learned_envelope import template_text
from ..models.deterministic.learned_state import answer_data, answer_text, failed
from ..models.deterministic.learned_text import SLOT, TEXT_META
from ..world.catalog import Catalog
from ..world.world import load_world_data
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
T = TypeVar("T")
#: Tools whose one recorded confirmation may be learned as a constant sentence.
_CHANGES = ("create", "update", "delete", "action", "move")
_HEX = re.compile(r"(?<![\w{.])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}(?![\w}])")
#: Earlier calls' values shorter than this are not looked for (``a``, ``to``).
_MIN_VALUE = 3
#: Prose answers longer than this are not templated (a file's content is no sentence).
_MAX_TEXT = 2000


def prose_of(turn: RecordedTurn) -> str | None:
    """The answer's text when it is a successful prose answer (a ``{content: text}`` wrapper counts as prose)."""
    if failed(turn.result):
        return None
    text = answer_text(turn.result)
    data = answer_data(turn.result)
    wrapped = isinstance(data, dict) and len(data) == 1 and next(iter(data.values())) == text
    if data is not None and not wrapped or not text.strip() or len(text) > _MAX_TEXT:
        return None
    return text


def sentence_of(text: str, turn: RecordedTurn, before: list[RecordedTurn]) -> str:
    """``text`` as a template: the call's values, earlier calls' latest values, fresh hex strings as slots."""
    template = template_text(text, turn.arguments)
    given = {str(v) for v in turn.arguments.values() if isinstance(v, (str, int))}
    latest: dict[tuple[str, str], Any] = {}
    for earlier in reversed(before):
        if earlier.result.get("isError"):
            continue
        for name, value in earlier.arguments.items():
            latest.setdefault((earlier.tool, name), value)
    for (tool, name), value in sorted(latest.items(), key=lambda kv: -len(str(kv[1]))):
        if not isinstance(value, str) or len(value) < _MIN_VALUE or value in given or "{{" in value:
            continue
        template = _outside_slots(template, rf"(?<![\w.{{-]){re.escape(value)}(?![\w}}-])",
                                  "{{last." + tool + "." + name + "}}")
    template = _outside_slots(template, _HEX.pattern, None)
    return _counted(template, turn.arguments)


def _counted(template: str, arguments: JSONDict) -> str:
    """Numbers that count the lines of a multi-line text argument as ``{{lines.ARG}}`` (a final newline ends a
    line) or ``{{pieces.ARG}}`` (it starts one more: what splitting on newlines counts)."""
    for name, value in arguments.items():
        if not isinstance(value, str) or "\n" not in value:
            continue
        counts = [("lines", len(value.replace("\r\n", "\n").splitlines())), ("pieces", len(value.split("\n")))]
        for kind, count in counts:
            marked = _outside_slots(template, rf"(?<![\w.{{-]){count}(?![\w}}-]|\.\d)", "{{" + kind + "." + name + "}}")
            if marked != template:
                template = marked
                break
    return template


def _outside_slots(template: str, pattern: str, mark: str | None) -> str:
    """``pattern`` replaced by ``mark`` (None: a fresh hex slot of the match's length) outside the slots."""
    parts: list[str] = []
    last = 0
    for slot in SLOT.finditer(template):
        parts += [_sub(template[last:slot.start()], pattern, mark), slot.group(0)]
        last = slot.end()
    parts.append(_sub(template[last:], pattern, mark))
    return "".join(parts)


def _sub(text: str, pattern: str, mark: str | None) -> str:
    return re.sub(pattern, lambda m: mark if mark is not None else "{{fresh.hex." + str(len(m.group(0))) + "}}", text)


def learn_sentences(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, the one template its successful prose answers agree on (see the module doc)."""
    found: dict[str, list[str]] = {}
    calls: dict[str, list[JSONDict]] = {}
    other: set[str] = set()  # tools with a successful answer that is data: no sentence tool
    for turns in episodes.values():
        for index, turn in enumerate(turns):
            if catalog.get(turn.tool) is None or failed(turn.result):
                continue
            text = prose_of(turn)
            if text is None:
                other.add(turn.tool)
                continue
            found.setdefault(turn.tool, []).append(sentence_of(text, turn, turns[:index]))
            calls.setdefault(turn.tool, []).append(turn.arguments)
    out: dict[str, JSONDict] = {}
    for tool, templates in found.items():
        spec = catalog.get(tool)
        if tool in other or spec is None:
            continue
        if len(set(templates)) != 1:
            cases = _cases(spec.input_schema, calls.get(tool, []), templates)
            if cases is not None:
                out[tool] = cases
            continue
        template = templates[0]
        sentence = "\n" not in template.strip()  # one answer's other lines may be the state it showed
        confirmation = spec.role.kind in _CHANGES and sentence and not re.search(r"\d", template)
        if len(templates) > 1 or sentence and SLOT.search(template) or confirmation:
            out[tool] = {"text": template}
    return out


def _cases(schema: JSONDict, calls: list[JSONDict], templates: list[str]) -> JSONDict | None:
    """Templates that one argument of a few declared values tells apart (an enum or a flag; an absent argument
    counts as its declared default): each value one template, two values at least; None where no argument does.
    A free argument (a path) never does: its values are the recording's, a new call's would find no case."""
    props = schema.get("properties") or {}
    for name, spec in props.items():
        if not isinstance(spec, dict) or not (isinstance(spec.get("enum"), list) or spec.get("type") == "boolean"):
            continue
        by_value: dict[str, set[str]] = {}
        for arguments, template in zip(calls, templates):
            value = arguments.get(name, spec.get("default"))
            if isinstance(value, (str, bool)):
                by_value.setdefault(str(value), set()).add(template)
        if len(by_value) > 1 and sum(len(t) for t in by_value.values()) == len(set(templates)) \
                and all(len(t) == 1 for t in by_value.values()) and len(calls) == len(templates):
            texts = {value: next(iter(t)) for value, t in by_value.items()}
            default = texts.get(str(spec.get("default")), templates[0])
            return {"text": default, "cases": {"arg": name, "texts": texts}}
    return None


def keep_needed(data: JSONDict, templates: dict[str, JSONDict], episodes: dict[str, list[RecordedTurn]]) -> dict[str, JSONDict]:
    """The templates of the tools whose model answers (the world ``data`` replaying the recording) differ
    from the real ones, each with ``over_errors`` where the model failed a call the server answered."""
    if not templates:
        return {}
    from .score import simulate

    try:
        world = load_world_data(data, source="learned-world.json")
        answers = _run(simulate(world, episodes))
    except Exception:  # noqa: BLE001 - a world the model cannot replay keeps its templates unchecked
        return dict(templates)
    differs: dict[str, bool] = {}
    for key, turns in episodes.items():
        for turn, sim in zip(turns, answers.get(key, [])):
            if turn.tool not in templates or prose_of(turn) is None:
                continue
            sim_failed = bool(sim.get("isError")) or failed(sim)
            if sim_failed or answer_text(sim) != answer_text(turn.result):
                differs[turn.tool] = differs.get(turn.tool, False) or sim_failed
    return {tool: {**templates[tool], **({"over_errors": True} if over else {})} for tool, over in differs.items()}


def add_sentences(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Under each prose tool's ``_meta``, its sentence template where the model needs one; how many."""
    kept = keep_needed(data, learn_sentences(episodes, catalog), episodes)
    write_meta(data, TEXT_META, kept)
    return len(kept)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end from sync code, also when called inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


__all__ = ["add_sentences", "learn_sentences", "prose_of", "sentence_of"]
