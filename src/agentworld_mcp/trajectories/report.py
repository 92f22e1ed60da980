"""``agentworld-mcp report``: one self-contained HTML page of what agents did in simulated worlds.

    agentworld-mcp report trajectories.jsonl -o report.html [--world WORLD]
    agentworld-mcp report --state state.db [EPISODE...] -o report.html

A section per episode: the timeline of calls (arguments, result text, structuredContent
folded in ``<details>``), errors highlighted, injected perturbations, the entities each call
created, changed or deleted, and the fidelity score per tool when turns carry one. Inline
CSS, no script, no network: the file can be mailed or attached to a CI run. Everything that
came from a tool or an agent is HTML-escaped (tool output is untrusted), and redacted
(``redaction.py``): no secret of a recording or a state file reaches the page.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..world.catalog import Catalog
from ..errors import EpisodeNotFoundError, StateFileError
from .redaction import redact, redact_call, secrets_in
from .trail import (Change, Trail, clock, fidelity_of, outcome, perturbation_label, replay,
                    result_text, short, short_args, trail_of_episode, trails_from_lines)

JSONDict = dict[str, Any]


# -- building trails -------------------------------------------------------------------------------

def trails_from_files(paths: Iterable[str | Path], catalog: Catalog | None = None) -> list[Trail]:
    """Trails of trajectory files; with the world's catalog, each turn's changes by replay."""
    from .record import read_trajectory

    trails: list[Trail] = []
    for path in paths:
        trails.extend(trails_from_lines(read_trajectory(path), source=str(path)))
    if catalog is not None:
        for trail in trails:
            if trail.world == catalog.world.name or len({t.world for t in trails}) == 1:
                trail.changes, trail.ledger = replay(catalog, trail.turns, episode=trail.episode.split(" ")[0],
                                                     seed=_seed(catalog))
    return trails


def _seed(catalog: Catalog) -> int:
    backend = catalog.world.backend if isinstance(getattr(catalog.world, "backend", None), dict) else {}
    seed = backend.get("seed", 0)
    return seed if isinstance(seed, int) else 0


# -- HTML ------------------------------------------------------------------------------------------

CSS = """
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#f6f8fa; --err:#cf222e; --errbg:#ffebe9;
        --ok:#1a7f37; --warn:#9a6700; --warnbg:#fff8c5; --accent:#0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg);
       margin: 0; background: #fff; }
header.page { padding: 18px 28px; border-bottom: 1px solid var(--line); background: var(--bg); }
header.page h1 { font-size: 20px; margin: 0 0 4px; }
header.page p { margin: 0; color: var(--muted); }
main { padding: 8px 28px 40px; max-width: 1200px; }
section.episode { margin-top: 22px; }
section.episode > h2 { font-size: 17px; margin: 0 0 6px; }
.stats { color: var(--muted); margin: 0 0 10px; }
.stats b { color: var(--fg); }
.stats .bad { color: var(--err); }
table { border-collapse: collapse; margin: 6px 0 14px; }
th, td { border: 1px solid var(--line); padding: 3px 10px; text-align: left; }
th { background: var(--bg); font-weight: 600; }
ol.timeline { list-style: none; margin: 0; padding: 0; }
li.turn { border: 1px solid var(--line); border-left: 4px solid var(--ok); border-radius: 6px;
          margin: 8px 0; padding: 8px 12px; }
li.turn.error { border-left-color: var(--err); background: var(--errbg); }
.turn-head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
.idx { font-weight: 700; color: var(--muted); min-width: 2.2em; }
.tool { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 700; }
.time, .dur, .backend { color: var(--muted); font-size: 12px; }
.outcome { font-size: 12px; font-weight: 600; padding: 0 6px; border-radius: 10px; }
.outcome.ok { color: var(--ok); border: 1px solid var(--ok); }
.outcome.err { color: #fff; background: var(--err); }
.fid { font-size: 12px; color: var(--accent); }
table.summary { width: 100%; font-size: 13px; }
table.summary td { vertical-align: top; }
table.summary tr.error td { background: var(--errbg); }
table.summary tr.error td.said { color: var(--err); font-weight: 600; }
table.summary td.args, table.summary td.delta { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
                                                word-break: break-word; }
table.summary td.delta span { white-space: nowrap; }
table.summary td.inj { color: var(--warn); }
table.summary td.idx, table.summary td.time { color: var(--muted); white-space: nowrap; }
table.summary td.idx a { color: var(--accent); text-decoration: none; }
details.calls > summary { font-size: 14px; font-weight: 600; color: var(--fg); margin: 8px 0 0; }
.io { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 12px; }
pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--bg);
      border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0;
      white-space: pre-wrap; word-break: break-word; max-height: 200px; overflow: auto; }
li.turn.error pre.result { border-color: var(--err); background: #fff; }
.label { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-top: 6px; }
ul.perturbations, ul.changes { margin: 4px 0; padding-left: 0; list-style: none; }
li.perturbation { display: inline-block; background: var(--warnbg); color: var(--warn); border: 1px solid #d4a72c;
                  border-radius: 10px; padding: 0 8px; margin: 2px 4px 2px 0; font-size: 12px; }
li.change { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; margin: 2px 0; }
li.change .op { display: inline-block; width: 5.5em; font-weight: 700; }
li.change.created .op { color: var(--ok); }
li.change.updated .op { color: var(--accent); }
li.change.deleted .op { color: var(--err); }
details summary { cursor: pointer; color: var(--accent); font-size: 12px; margin-top: 4px; }
.none { color: var(--muted); font-style: italic; }
"""


def render(trails: list[Trail], *, title: str = "agentworld-mcp episode report", note: str = "") -> str:
    """The whole page (a string of HTML, UTF-8, with no external resource)."""
    e = html.escape
    calls = sum(len(t.turns) for t in trails)
    errors = sum(t.errors for t in trails)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>",
        f'<header class="page"><h1>{e(title)}</h1>',
        f"<p>{len(trails)} episode(s), {calls} call(s), {errors} error(s)"
        + (f" &middot; {e(note)}" if note else "") + "</p></header><main>",
    ]
    if not trails:
        parts.append('<p class="none">No turns found.</p>')
    for n, trail in enumerate(trails, 1):
        parts.append(_episode(_redacted(trail), n))
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _redacted(trail: Trail) -> Trail:
    """The trail as the page shows it, its secrets out (again: a recording made before redaction, a state
    file's episodes): in arguments, results, changed entities, and wherever a secret argument shows up again."""
    known = [secret for turn in trail.turns for secret in secrets_in(turn.arguments)]
    turns = []
    for turn in trail.turns:
        arguments, result = redact_call(turn.arguments, turn.result, known)
        turns.append(replace(turn, arguments=arguments, result=result))
    changes = None if trail.changes is None else [
        [replace(change, fields=redact(change.fields, known)) for change in per_turn] for per_turn in trail.changes]
    return replace(trail, turns=turns, changes=changes,
                   ledger=redact(trail.ledger, known) if trail.ledger is not None else None)


def _episode(trail: Trail, n: int) -> str:
    e = html.escape
    out = [f'<section class="episode" id="episode-{n}" data-episode="{e(trail.episode)}">',
           f"<h2>Episode <code>{e(trail.episode)}</code>" + (f" &middot; world <code>{e(trail.world)}</code>"
                                                              if trail.world else "") + "</h2>"]
    bad = ' class="bad"' if trail.errors else ""
    seconds = sum(t.duration_ms for t in trail.turns) / 1000
    out.append(f'<p class="stats"><b>{len(trail.turns)}</b> call(s) &middot; <b{bad}>{trail.errors}</b> error(s) '
               f"&middot; <b>{trail.perturbations}</b> perturbation(s) &middot; {seconds:.3f} s in the simulator"
               + (f" &middot; from {e(trail.source)}" if trail.source else "") + "</p>")
    out.append(_fidelity(trail))
    out.append(_summary(trail, n))
    out.append('<details class="calls" open><summary>Calls in full</summary><ol class="timeline">')
    for i, turn in enumerate(trail.turns):
        changes = trail.changes[i] if trail.changes is not None and i < len(trail.changes) else None
        out.append(_turn(turn, changes, f"e{n}-t{i + 1}"))
    out.append("</ol></details>")
    if trail.changes is None:
        out.append('<p class="none">Entity changes not shown: pass the world (<code>--world WORLD</code>) '
                   "or the state file (<code>--state FILE</code>) to replay the turns.</p>")
    if trail.ledger is not None:
        count = sum(len(v) for v in trail.ledger.values())
        out.append(f"<details class=\"ledger\"><summary>World state at the end ({count} entities)</summary>"
                   f"<pre>{e(_json(trail.ledger))}</pre></details>")
    out.append("</section>")
    return "\n".join(out)


def _summary(trail: Trail, n: int) -> str:
    """The timeline at a glance: one row per call, linking to the call in full."""
    e = html.escape
    rows = []
    for i, turn in enumerate(trail.turns):
        changes = trail.changes[i] if trail.changes is not None and i < len(trail.changes) else []
        error = " error" if turn.result.get("isError") else ""
        said = outcome(turn)
        rows.append(
            f'<tr class="row{error}"><td class="idx"><a href="#e{n}-t{i + 1}">{turn.index}</a></td><td class="time">{e(clock(turn.started_at))}</td>'
            f'<td class="tool">{e(turn.tool)}</td><td class="args">{e(short_args(turn.arguments, 80))}</td>'
            f'<td class="said">{e(said)}</td>'
            f'<td class="delta">{" ".join(f"<span>{e(c.summary())}</span>" for c in changes)}</td>'
            f'<td class="inj">{e(", ".join(str(p.get("kind", "?")) for p in turn.perturbations))}</td></tr>')
    return ('<table class="summary"><tr><th>#</th><th>time (UTC)</th><th>tool</th><th>arguments</th><th>outcome</th>'
            "<th>changed</th><th>injected</th></tr>" + "".join(rows) + "</table>")


def _fidelity(trail: Trail) -> str:
    scores: dict[str, list[float]] = {}
    for turn in trail.turns:
        score = fidelity_of(turn)
        if score is not None:
            scores.setdefault(turn.tool, []).append(score)
    if not scores:
        return ""
    rows = "".join(f"<tr><td class=\"tool\">{html.escape(tool)}</td><td>{len(values)}</td>"
                   f"<td>{sum(values) / len(values):.3f}</td><td>{min(values):.3f}</td></tr>"
                   for tool, values in sorted(scores.items()))
    return ('<table class="fidelity"><caption class="label">Fidelity per tool</caption>'
            f"<tr><th>tool</th><th>scored turns</th><th>mean</th><th>min</th></tr>{rows}</table>")


def _turn(turn: Any, changes: list[Change] | None, anchor: str) -> str:
    e = html.escape
    result = turn.result
    is_error = bool(result.get("isError"))
    said = outcome(turn)
    badge = f'<span class="outcome err">{e(said.split(":")[0])}</span>' if is_error else \
        '<span class="outcome ok">ok</span>'
    score = fidelity_of(turn)
    head = (f'<div class="turn-head"><span class="idx">#{turn.index}</span>'
            f'<span class="time">{e(clock(turn.started_at))}</span><span class="tool">{e(turn.tool)}</span>{badge}'
            f'<span class="dur">{turn.duration_ms:.1f} ms</span>'
            + (f'<span class="backend">{e(turn.backend)}</span>' if turn.backend else "")
            + (f'<span class="fid">fidelity {score:.3f}</span>' if score is not None else "") + "</div>")
    body = [f'<li id="{anchor}" class="turn{" error" if is_error else ""}" data-turn="{turn.index}" data-tool="{e(turn.tool)}">',
            head, '<div class="io"><div><div class="label">arguments</div>',
            f'<pre class="arguments">{e(_json(turn.arguments))}</pre></div>',
            '<div><div class="label">result</div>', f'<pre class="result">{e(result_text(result))}</pre></div></div>']
    if "structuredContent" in result:
        body.append(f'<details class="structured"><summary>structuredContent</summary>'
                    f'<pre>{e(_json(result["structuredContent"]))}</pre></details>')
    if turn.perturbations:
        items = "".join(f'<li class="perturbation" data-kind="{e(str(p.get("kind", "?")))}">'
                        f"{e(perturbation_label(p))}</li>" for p in turn.perturbations)
        body.append(f'<div class="label">injected</div><ul class="perturbations">{items}</ul>')
    if changes:
        body.append('<div class="label">changed</div><ul class="changes">'
                    + "".join(_change(c) for c in changes) + "</ul>")
    body.append("</li>")
    return "\n".join(body)


def _change(change: Change) -> str:
    e = html.escape
    if change.op == "updated" and change.fields:
        detail = ", ".join(f"{k}: {short(old, 40)} \u2192 {short(new, 40)}" for k, (old, new) in change.fields.items())
    elif change.op == "created":
        detail = short(change.fields, 120)
    else:
        detail = ""
    return (f'<li class="change {e(change.op)}" data-collection="{e(change.collection)}" data-key="{e(change.key)}">'
            f'<span class="op">{e(change.op)}</span>{e(change.collection)}/{e(change.key)}'
            + (f" &nbsp;{e(detail)}" if detail else "") + "</li>")


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


# -- the command -----------------------------------------------------------------------------------

def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report", help="write a self-contained HTML page of recorded episodes",
        description="Render trajectory files (serve --record) or the episodes of a state file (--state) as one "
        "HTML page: calls, results, errors, perturbations and the entities each call changed.",
    )
    p.add_argument("inputs", nargs="*", metavar="TRAJ.jsonl|EPISODE",
                   help="trajectory files; with --state, episode ids (default: every episode in the file)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write")
    p.add_argument("--world", default=None, help="the world file, to show what each call changed")
    p.add_argument("--state", default=None, metavar="PATH", help="read the episodes from this SQLite state file")
    p.add_argument("--title", default=None, help="the page title")


def run(args: argparse.Namespace) -> int:
    from ..world.world import load_world

    world = load_world(args.world) if args.world else None
    if world is None and not args.state and args.inputs:
        world = _world_of_headers(args.inputs)
    if args.state:
        trails = asyncio.run(_state_trails(args, world))
    else:
        if not args.inputs:
            print("agentworld-mcp report: give trajectory files (serve --record FILE) or --state FILE",
                  file=sys.stderr)
            return 2
        trails = trails_from_files(args.inputs, Catalog(world) if world is not None else None)
    title = args.title or f"agentworld-mcp report: {', '.join(sorted({t.world for t in trails if t.world})) or 'episodes'}"
    Path(args.output).write_text(render(trails, title=title), encoding="utf-8")
    print(f"agentworld-mcp: wrote {args.output} ({len(trails)} episode(s), "
          f"{sum(len(t.turns) for t in trails)} call(s))", file=sys.stderr)
    return 0


def _world_of_headers(paths: list[str]) -> Any:
    """The world the trajectories' lines name, when it is found by name (a bundled world,
    or ``NAME.yaml`` beside a trajectory file); None, with a hint, when it is not."""
    from ..errors import WorldFileError
    from ..world.world import find_world, load_world
    from .record import read_trajectory

    names: dict[str, Path] = {}
    for path in paths:
        for line in read_trajectory(path):  # headers and turns name their world
            if isinstance(line.get("world"), str):
                names.setdefault(line["world"], Path(path).parent)
    if len(names) == 1:
        name, folder = next(iter(names.items()))
        for spec in (name, f"{name}.yaml", f"{name}.json"):
            with contextlib.suppress(WorldFileError):
                return load_world(find_world(spec, near=[folder]))
    if names:
        print(f"agentworld-mcp report: the world {', '.join(sorted(names))} was not found by name; pass "
              "--world FILE to show what each call changed", file=sys.stderr)
    return None


async def _state_trails(args: argparse.Namespace, world: Any) -> list[Trail]:
    from ..state.store import SqliteStore
    from ..world.world import load_world_data

    if not Path(args.state).is_file():
        raise StateFileError(f"no state file at {args.state}; it is created by `agentworld-mcp serve --state PATH`")
    store = SqliteStore(args.state, world)
    try:
        if world is None:
            document = store.stored_world()
            world = load_world_data(document, source=f"{args.state} (stored world)") if document else None
        catalog = Catalog(world) if world is not None else None
        ids = args.inputs or [i.id for i in await store.info()]
        trails = []
        for episode_id in ids:
            episode = await store.get(episode_id)
            if episode is None:
                raise EpisodeNotFoundError(f"no episode {episode_id!r} in {args.state}; "
                                           f"list them with `agentworld-mcp episodes list --state {args.state}`")
            trails.append(trail_of_episode(episode, catalog, source=args.state))
        return trails
    finally:
        await store.close()


__all__ = ["add_parser", "render", "run", "trail_of_episode", "trails_from_files"]
