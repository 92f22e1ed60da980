"""``agentworld-mcp score``: how faithfully a simulated world replays recorded real traffic.

Each recorded episode is replayed, call by call with the recorded arguments, in a fresh
episode of a :class:`Simulator` built with ``Simulator.from_world`` (or, with ``--against``,
paired with a second recording of the same calls); a value the real server made up (an id a
create answered) that a later call passes back is sent as the simulator's own value at the same
place of its answer, and read back as the real one when the answers are compared (:mod:`.carry`).
Every simulated answer is compared with the recorded (real) one on its data (see :mod:`.fidelity`:
wrappers taken off, JSON text parsed):

* **value agreement**: every value of the real answer that the episode determined (from the
  call's arguments, an earlier real answer, the world's seed) is in the simulated answer at the
  same key path (a list's items in any order); prose must mention the same determined values;
* **isError agreement**: both answers succeed, both fail with ``isError``, or both fail in band
  (an ordinary answer that says it failed);
* **key recall / precision**: the key paths (``entities[].name``), at every depth, the real answer
  has that the simulated one has too, and the other way round;
* **type agreement**: the real answer's leaves with a leaf of the same JSON type at the same path
  (fresh ids and timestamps need not be equal, but should be of the same kind);
* **carried values**: a value that the real answer of an earlier turn introduced (it was in
  no earlier arguments) and a later turn's arguments reuse (an id, a name, a path) counts
  as agreed when the simulator's earlier answers introduced it too, or the replay carried the
  simulator's own value in its place, so an agent playing against the simulation could have
  carried it the same way;
* **text similarity**: difflib's ratio between the two texts, where the real answer is prose.

Beside the figures, ``provenance`` (per tool and overall) says where each scalar value of the real
JSON answers came from and how many the simulated answer has at the same path: ``argument`` (copied
from the call), ``lookup`` (from an earlier answer, an earlier call or the seed), ``counter`` (a fresh
id or number under an id-like key), ``constant`` (the same at that path in every recorded answer of
the tool) and ``derived`` (the rest: counts, sums, timestamps, computed text), each as
``{"checked": n, "agreed": m}``. A kind with few agreed values names what to record more of.

The ``score`` (per tool and overall) is the value agreement times the mean of the other figures
that apply (the mean alone where no value was determined): an answer of the right shape with
the wrong values is worth as little as its values.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, UnknownToolError
from .carry import Call, mapped_back, replay_turns
from .fidelity import Answer, Known, answer_of, canonical, leaves, outcome, type_agreement, value_marks
from .judge import DIMENSIONS, Judge
from .proxy import JSONRPC_ERROR, error_result
from ..trajectories.record import read_trajectory
from ..world.world import World, load_world

JSONDict = dict[str, Any]
METRICS = ("is_error_agreement", "value_agreement", "key_recall", "key_precision", "type_agreement", "carried_values",
           "text_similarity")
#: Texts longer than this are compared on their first part (difflib is quadratic).
TEXT_LIMIT = 4000


@dataclass
class RecordedTurn:
    """One recorded call: what was asked and what the server answered."""

    episode: str
    index: int
    tool: str
    arguments: JSONDict
    result: JSONDict


def turn_of(line: JSONDict) -> RecordedTurn | None:
    """The call a trajectory line records, in either format: the AgentWorldBench sample with the turn
    under ``agentworld``, or one flat line per turn (``episode``, ``turn``, ``tool``, ``arguments``,
    ``result``). None for a line that records no call (a simulator failure, a header). A JSON-RPC error
    the server answered (``result.jsonrpc_error``, ``proxy --record``) reads as an ``isError`` failure
    with the error's message as its text: a simulated ``isError`` answer agrees with it."""
    nested = line.get("agentworld")
    raw: JSONDict = nested if isinstance(nested, dict) else line
    tool, result = raw.get("tool"), raw.get("result")
    if not isinstance(tool, str) or not isinstance(result, dict):
        return None
    if "agentworld/simulator_error" in (result.get("_meta") or {}):
        return None
    if isinstance(result.get(JSONRPC_ERROR), dict) and "content" not in result:  # a bare JSON-RPC error: a refusal
        result = {**result, **error_result(result[JSONRPC_ERROR])}
    episode = raw.get("episode") or line.get("episode") or line.get("id") or "default"
    index = raw.get("turn", raw.get("turn_index", line.get("turn_idx", 0)))
    return RecordedTurn(str(episode), int(index or 0), tool, dict(raw.get("arguments") or {}), result)


def read_episodes(paths: list[str | os.PathLike[str]]) -> dict[str, list[RecordedTurn]]:
    """Every recorded episode's calls in turn order (keyed ``file:episode``; a turn recorded twice counts once)."""
    episodes: dict[str, dict[int, RecordedTurn]] = defaultdict(dict)
    for path in paths:
        for position, line in enumerate(read_trajectory(path)):
            turn = turn_of(line)
            if turn is not None:
                turn.index = turn.index or position + 1  # lines without a turn number pair by position
                episodes[f"{Path(path).name}:{turn.episode}"][turn.index or position + 1] = turn
    return {key: [turns[i] for i in sorted(turns)] for key, turns in episodes.items()}


def recorded_catalog(paths: list[str | os.PathLike[str]]) -> World:
    """The catalog recorded beside the first recording that has one (``FILE.tools.json``)."""
    from .proxy import catalog_path

    for path in paths:
        sidecar = catalog_path(path)
        if sidecar.exists():
            return load_world(sidecar)
    raise ConfigError(f"no recorded catalog beside {paths[0]} ({catalog_path(paths[0]).name}, written by "
                      "`proxy --record`); give the world or catalog with --world (learn: --catalog)")


# -- comparing two answers --------------------------------------------------------------------


def text_of(result: JSONDict) -> str:
    return "\n".join(str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict)
                     and c.get("type") == "text")


def json_of(result: JSONDict) -> Any:
    """The answer as JSON: structuredContent, else the text when it is JSON, else None."""
    if isinstance(result.get("structuredContent"), (dict, list)):
        return result["structuredContent"]
    text = text_of(result).strip()
    if text[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return None
    return None


def listed_items(result: JSONDict) -> list[Any] | None:
    """The list a FastMCP (MCP SDK) tool returned, where it printed one text block per item
    (``structuredContent: {"result": [...]}``); else None."""
    structured = result.get("structuredContent")
    if not isinstance(structured, dict) or list(structured) != ["result"] or not isinstance(structured["result"], list):
        return None
    items = structured["result"]
    blocks = [c.get("text") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
    if not items or len(blocks) != len(items):
        return None
    for block, item in zip(blocks, items):
        if block != item and _loaded(block) != item:
            return None
    return items


def _loaded(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """``{"a": [{"b": 1}]}`` -> ``{"a", "a[].b"}``: the keys of every object, list items merged."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            paths.add(path)
            paths |= key_paths(sub, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, prefix + "[]")
    return paths


def scalars(value: Any, min_length: int = 3) -> set[str]:
    """The leaf values of arguments that could be carried from an earlier answer (ids, names, paths)."""
    out: set[str] = set()
    if isinstance(value, dict):
        for sub in value.values():
            out |= scalars(sub, min_length)
    elif isinstance(value, list):
        for sub in value:
            out |= scalars(sub, min_length)
    elif isinstance(value, int) and not isinstance(value, bool):
        out.add(str(value))  # a number is an id however short; it is matched as a whole token
    elif isinstance(value, str) and len(value) >= min_length and not value.isspace():
        out.add(value)
    return out


def mentions(text: str, value: str) -> bool:
    """``value`` appears in ``text`` as a whole token (``4`` is not in ``42``)."""
    return re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-])", text) is not None


def _answer_text(result: JSONDict) -> str:
    structured = result.get("structuredContent")
    return text_of(result) + ("\n" + json.dumps(structured, ensure_ascii=False) if structured is not None else "")


def compare(real: JSONDict, sim: JSONDict, known: Known | None = None) -> JSONDict:
    """The per-turn figures (a figure that does not apply is absent); ``known``: the values the
    episode determined before this answer (its arguments included), without which no value is."""
    figures: JSONDict = {"is_error_agreement": float(outcome(real) == outcome(sim))}
    real_answer, sim_answer = answer_of(real), answer_of(sim)
    marks = value_marks(real_answer, sim_answer, known or Known())
    if marks:
        figures["value_agreement"] = sum(marks) / len(marks)
        figures["value_checks"] = len(marks)
    real_keys = key_paths(real_answer.data) if real_answer.is_json else set()
    if real_keys:
        sim_keys = key_paths(sim_answer.data) if sim_answer.is_json else set()
        both = real_keys & sim_keys
        figures["key_recall"] = len(both) / len(real_keys)
        figures["key_precision"] = len(both) / len(sim_keys) if sim_keys else 0.0
    types = type_agreement(real_answer, sim_answer)
    if types is not None:
        figures["type_agreement"] = types
    else:  # prose: how alike the texts read
        a = real_answer.text[:TEXT_LIMIT]
        b = (sim_answer.text if not sim_answer.is_json else text_of(sim))[:TEXT_LIMIT]
        figures["text_similarity"] = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() if a or b else 1.0
    return figures


def carried(turns: list[RecordedTurn], sim_results: list[JSONDict], linked: list[set[str]] | None = None
            ) -> list[list[float]]:
    """Per turn, one 0/1 per value its arguments carry from an earlier real answer (see the module doc);
    ``linked``: per turn, the real values the replay carried as the simulator's own (:mod:`.carry`)."""
    out: list[list[float]] = []
    given = ""  # every earlier argument as text: a value typed in before was not carried
    for i, turn in enumerate(turns):
        marks: list[float] = []
        for value in sorted(v for v in scalars(turn.arguments) if not mentions(given, v)):
            if any(mentions(_answer_text(turns[j].result), value) for j in range(i)):
                marks.append(float(value in (linked[i] if linked else ())
                                   or any(mentions(_answer_text(sim_results[j]), value) for j in range(i))))
        out.append(marks)
        given += "\n".join(scalars(turn.arguments, 1)) + "\n"
    return out


# -- provenance: where each value of a real answer came from ---------------------------------------

PROVENANCE = ("argument", "lookup", "counter", "constant", "derived")
_ID_KEY = re.compile(r"(?:^|[._\[\]])(?:id|[a-z0-9]+_id|[a-z][A-Za-z0-9]*Id|number|[a-z]+Number)$")


def constant_paths(episodes: dict[str, list[RecordedTurn]]) -> dict[str, dict[str, str]]:
    """Per tool, the leaf paths whose value is the same in every successful recorded answer (two at least)."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    answered: dict[str, int] = defaultdict(int)
    for turns in episodes.values():
        for turn in turns:
            answer = answer_of(turn.result)
            if not answer.is_json or outcome(turn.result) != "ok":
                continue
            answered[turn.tool] += 1
            for path, value in leaves(answer.data):
                form = canonical(value)
                if form is not None:
                    seen[turn.tool][path].add(form)
    return {tool: {path: next(iter(forms)) for path, forms in paths.items() if len(forms) == 1}
            for tool, paths in seen.items() if answered[tool] >= 2}


def provenance_marks(real: Answer, sim: Answer, arguments: JSONDict, known: Known,
                     constants: dict[str, str]) -> list[tuple[str, float]]:
    """One ``(kind, agreed)`` per scalar leaf of a real JSON answer (see the module doc); a leaf agrees when
    the simulated answer has the same value at the same path (a list's items in any order)."""
    if not real.is_json:
        return []
    given = {form for _, v in leaves(arguments) if (form := canonical(v)) is not None}
    pool: dict[str, list[str]] = defaultdict(list)
    if sim.is_json:
        for path, value in leaves(sim.data):
            if (form := canonical(value)) is not None:
                pool[path].append(form)
    marks: list[tuple[str, float]] = []
    for path, value in leaves(real.data):
        form = canonical(value)
        if form is None:
            continue
        if form in given:
            kind = "argument"
        elif known.determines(value):
            kind = "lookup"
        elif _ID_KEY.search(path) and (isinstance(value, int) or any(c.isdigit() for c in form)):
            kind = "counter"
        elif constants.get(path) == form:
            kind = "constant"
        else:
            kind = "derived"
        found = form in pool[path]
        if found:
            pool[path].remove(form)
        marks.append((kind, float(found)))
    return marks


def _provenance(marks: list[tuple[str, float]]) -> JSONDict:
    out: JSONDict = {}
    for kind in PROVENANCE:
        agreed = [m for k, m in marks if k == kind]
        if agreed:
            out[kind] = {"checked": len(agreed), "agreed": int(sum(agreed))}
    return out


# -- replaying ------------------------------------------------------------------------------


async def replay(world: World, episodes: dict[str, list[RecordedTurn]], *, backend: str | None = None,
                 seed: int | None = None) -> JSONDict:
    """Replay every episode in a fresh simulator episode; the report (per tool, overall, per turn)."""
    return evaluate(world.name, episodes, await simulate(world, episodes, backend=backend, seed=seed),
                    world_seed=world.seed)


async def simulate(world: World, episodes: dict[str, list[RecordedTurn]], *, backend: str | None = None,
                   seed: int | None = None) -> dict[str, list[JSONDict]]:
    """The simulator's answers to every episode's calls, each episode replayed in a fresh one."""
    from ..pipeline.engine import Simulator

    answers: dict[str, list[JSONDict]] = {}
    async with Simulator.from_world(world, backend=backend, seed=seed) as sim:
        for number, (key, turns) in enumerate(episodes.items(), 1):
            answers[key] = await replay_turns(turns, simulator_call(sim, f"score-{number}"), seed=world.seed)
    return answers


def simulator_call(sim: Any, episode: str) -> Call:
    """``call(tool, arguments)`` for :func:`.carry.replay_turns`: ``sim``'s answer as CallToolResult JSON
    (an unknown tool answers an error, as a server would)."""

    async def call(tool: str, arguments: JSONDict) -> JSONDict:
        try:
            return dict((await sim.run(tool, arguments, episode=episode)).result.to_dict())
        except UnknownToolError as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}

    return call


def against(episodes: dict[str, list[RecordedTurn]], predictions: dict[str, list[RecordedTurn]]) -> JSONDict:
    """The report for predictions recorded beside the real calls (``proxy --shadow``), nothing replayed:
    a prediction pairs with the real call of the same episode and turn."""
    return evaluate("shadow", *paired(episodes, predictions))


def paired(episodes: dict[str, list[RecordedTurn]], predictions: dict[str, list[RecordedTurn]]
           ) -> tuple[dict[str, list[RecordedTurn]], dict[str, list[JSONDict]]]:
    """The recorded calls that have a prediction, and those predictions in the same places: the same
    episode and turn (``proxy --shadow``); an episode none of whose turns pairs so takes the next
    unused episode of ``predictions`` in file order, turn by turn where the tools agree (two
    recordings of the same calls under their own episode ids, ``serve --record``)."""
    predicted = {(t.episode, t.index): t.result for turns in predictions.values() for t in turns}
    exact = {(t.episode, t.index) for turns in episodes.values() for t in turns} & set(predicted)
    used = {episode for episode, _ in exact}
    spare = [turns for turns in predictions.values() if turns and turns[0].episode not in used]
    kept: dict[str, list[RecordedTurn]] = {}
    answers: dict[str, list[JSONDict]] = {}
    for key, turns in episodes.items():
        both = [(t, predicted[(t.episode, t.index)]) for t in turns if (t.episode, t.index) in exact]
        if not both and spare:
            both = [(t, p.result) for t, p in zip(turns, spare.pop(0)) if t.tool == p.tool]
        if both:
            kept[key], answers[key] = [t for t, _ in both], [p for _, p in both]
    return kept, answers


def evaluate(name: str, episodes: dict[str, list[RecordedTurn]], answers: dict[str, list[JSONDict]], *,
             world_seed: dict[str, list[JSONDict]] | None = None) -> JSONDict:
    """Compare each recorded answer with the simulated one at the same place of ``answers``; ``world_seed``
    (the world's seed entities) counts as determined, as the episodes' own arguments and earlier answers do."""
    per_tool: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    origins: dict[str, list[tuple[str, float]]] = defaultdict(list)
    constants = constant_paths(episodes)
    rows: list[JSONDict] = []
    for key, turns in episodes.items():
        # the simulator's own carried values read as the real ones (see .carry): its ids are not penalised
        mapped = mapped_back(turns, answers[key], seed=world_seed)
        sim_results = [answer for answer, _ in mapped]
        known = Known()
        known.add_data(world_seed or {})
        marks_of = carried(turns, sim_results, [linked for _, linked in mapped])
        for turn, sim_result, marks in zip(turns, sim_results, marks_of):
            origins[turn.tool] += provenance_marks(answer_of(turn.result), answer_of(sim_result), turn.arguments,
                                                   known, constants.get(turn.tool, {}))
            known.add_data(turn.arguments)
            figures = compare(turn.result, sim_result, known)
            known.add_answer(turn.result)
            if marks:
                figures["carried_values"] = sum(marks) / len(marks)
            for figure, value in figures.items():
                per_tool[turn.tool][figure].append(value)
            rows.append({"episode": key, "turn": turn.index, "tool": turn.tool, **figures})
    tools = {tool: {**_summary(figs), "provenance": _provenance(origins[tool])} for tool, figs in sorted(per_tool.items())}
    overall_figs: dict[str, list[float]] = defaultdict(list)
    for figs in per_tool.values():
        for figure, values in figs.items():
            overall_figs[figure].extend(values)
    overall = {**_summary(overall_figs), "provenance": _provenance([m for marks in origins.values() for m in marks])}
    return {"world": name, "episodes": len(episodes), "calls": len(rows), "tools": tools,
            "overall": overall, "turns": rows}


def _summary(figs: dict[str, list[float]]) -> JSONDict:
    out: JSONDict = {"calls": len(figs.get("is_error_agreement", []))}
    for name in METRICS:
        values = figs.get(name)
        out[name] = round(sum(values) / len(values), 4) if values else None
    out["value_checks"] = int(sum(figs.get("value_checks", [])))
    out["score"] = combined(out)
    return out


def combined(summary: JSONDict) -> float:
    """The value agreement times the mean of the other figures that apply (see the module doc)."""
    others = [summary[name] for name in METRICS if name != "value_agreement" and summary.get(name) is not None]
    mean = sum(others) / len(others) if others else 0.0
    values = summary.get("value_agreement")
    return round(mean * values if values is not None else mean, 4)


async def score_files(paths: list[str], *, world: str | os.PathLike[str] | World | None = None,
                      backend: str | None = None, seed: int | None = None,
                      shadow: list[str] | None = None, judge: Judge | None = None) -> JSONDict:
    """``agentworld-mcp score``: the report for the recordings at ``paths`` against ``world``
    (default: the catalog recorded beside them), or against the ``shadow`` predictions recorded
    beside them; with ``judge``, the judge model's five AgentWorldBench scores too."""
    episodes = read_episodes(list(paths))
    if not episodes:
        raise ConfigError(f"no recorded calls in {', '.join(map(str, paths))}; record some with "
                          "`agentworld-mcp proxy --record FILE.jsonl -- CMD ARGS...`")
    loaded = world if isinstance(world, World) else load_world(world) if world is not None else None
    if shadow:
        name = "shadow"
        episodes, answers = paired(episodes, read_episodes(list(shadow)))
        if not episodes:
            raise ConfigError(f"no call of {', '.join(map(str, paths))} pairs with one of {', '.join(shadow)}: "
                              "--against wants a recording of the same calls (the same episode and turn, or "
                              "the same tools in the same order)")
    else:
        loaded = loaded or recorded_catalog(list(paths))
        name, answers = loaded.name, await simulate(loaded, episodes, backend=backend, seed=seed)
    report = evaluate(name, episodes, answers, world_seed=loaded.seed if loaded is not None else None)
    if judge is not None:
        await add_judgement(report, episodes, answers, judge)
    return report


async def add_judgement(report: JSONDict, episodes: dict[str, list[RecordedTurn]],
                        answers: dict[str, list[JSONDict]], judge: Judge) -> None:
    """Ask ``judge`` to rate every simulated answer; add its means per tool and overall to ``report``."""
    import httpx

    from .judge import summarize

    per_tool: dict[str, list[JSONDict]] = defaultdict(list)
    async with httpx.AsyncClient(timeout=judge.timeout) as client:
        for key, turns in episodes.items():
            for turn, simulated in zip(turns, answers[key]):
                scores = await judge.rate(client, turn.tool, turn.arguments, _answer_text(turn.result),
                                          _answer_text(simulated))
                if scores is not None:
                    per_tool[turn.tool].append(scores)
    for tool, summary in report["tools"].items():
        summary["judge"] = summarize(per_tool.get(tool, []))
    report["overall"]["judge"] = summarize([r for ratings in per_tool.values() for r in ratings])
    report["judge"] = {"model": judge.model, "base_url": judge.base_url, "unparsed": judge.unparsed}


def format_table(report: JSONDict) -> str:
    """The report as a table a person reads: one row per tool, then the overall row."""
    header = ("TOOL", "CALLS", "ISERROR", "VALUES", "KEY-RECALL", "KEY-PREC", "TYPES", "CARRIED", "TEXT-SIM", "SCORE")
    rows = [(tool, s) for tool, s in report["tools"].items()] + [("overall", report["overall"])]

    def cell(value: Any) -> str:
        return "-" if value is None else f"{value:.2f}"

    table = [header] + [(name, str(s["calls"]), *(cell(s[m]) for m in METRICS), cell(s["score"])) for name, s in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in table]
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    done = "compared" if report["world"] == "shadow" else "replayed"
    text = (f"world {report['world']}: {report['episodes']} episode(s), {report['calls']} call(s) {done}\n"
            + "\n".join(lines) + f"\nscore: {report['overall']['score']:.3f}")
    origins = report["overall"].get("provenance") or {}
    if origins:  # where the values came from, agreed/checked: the kinds to record more of
        text += "\nvalues by provenance (agreed/checked): " + ", ".join(
            f"{kind} {origins[kind]['agreed']}/{origins[kind]['checked']}" for kind in PROVENANCE if kind in origins)
    verdict = report["overall"].get("judge")
    if "judge" in report:
        dims = ", ".join(f"{d} {verdict[d]:.2f}" for d in DIMENSIONS) if verdict else "no answer rated"
        overall = f"; overall {verdict['overall']:.1f}/100 ({verdict['rated']} rated" if verdict else " ("
        text += (f"\njudge {report['judge']['model']}: {dims}{overall}, "
                 f"{report['judge']['unparsed']} unparsed)")
    return text


__all__ = ["METRICS", "PROVENANCE", "RecordedTurn", "constant_paths", "provenance_marks", "against", "combined", "compare", "evaluate", "format_table", "key_paths", "read_episodes", "replay",
           "score_files", "simulator_call", "simulate", "turn_of"]
