"""``agentworld-mcp export``: AgentWorldBench samples from a per-turn trajectory file.

    agentworld-mcp export TRAJ.jsonl --format agentworldbench [-o OUT.jsonl]

Qwen-AgentWorld's benchmark (``eval/eval.py`` in QwenLM/Qwen-AgentWorld) reads samples with
``task``, ``id``, ``system_str``, the ``prompt`` and ``response`` lists (one entry per turn),
``current_prompt``, the 1-indexed ``turn_idx`` and ``total_turns``. Each turn of the file
becomes one sample holding the episode's turns up to and including it (``total_turns ==
turn_idx``, ``response[turn_idx - 1]`` is what the agent got), plus the turn itself under
``agentworld``: the lines ``--record`` wrote before it recorded one line per turn, byte for
byte. A reset episode (its turn numbers start again) starts a new history. Lines already in
the sample format pass through unchanged. Every line is redacted as it is read (``redaction.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ..errors import ConfigError
from ..models.prompt import assistant_turn, user_turn
from .record import TASK, is_header, read_trajectory
from .redaction import redact_line, secrets_in

JSONDict = dict[str, Any]
FORMATS = ("agentworldbench",)


def sample(task: str, system_str: str, turn: JSONDict, prompts: list[str], responses: list[str]) -> JSONDict:
    """One AgentWorldBench sample: the trajectory so far, evaluated at its last turn."""
    return {
        "task": task,
        "id": f"{turn['world']}/{turn['episode']}",
        "system_str": system_str,
        "prompt": prompts,
        "response": responses,
        "current_prompt": prompts[-1],
        "turn_idx": len(prompts),
        "total_turns": len(prompts),
        "agentworld": turn,
    }


def agentworldbench(lines: Iterable[JSONDict]) -> Iterator[JSONDict]:
    """The samples of per-turn lines, in file order."""
    headers: dict[str, JSONDict] = {}
    # Per (world, episode): the indexes, prompts and responses of its turns so far.
    history: dict[tuple[str, str], tuple[list[int], list[str], list[str]]] = {}
    for number, line in enumerate(lines, 1):
        if is_header(line):
            headers[str(line.get("world"))] = line
            continue
        if "prompt" in line and "agentworld" in line:
            yield line  # already a sample (a file recorded before per-turn lines)
            continue
        world, episode, index = line.get("world"), line.get("episode"), line.get("turn")
        if not isinstance(world, str) or not isinstance(episode, str) or not isinstance(index, int):
            raise ConfigError(f"line {number} is not a trajectory turn (it needs world, episode and turn)")
        header = headers.get(world)
        if header is None:
            raise ConfigError(f"line {number}: no header line for world {world!r} before its first turn "
                              "(the file was not written by --record, or was cut at its start)")
        indexes, prompts, responses = history.setdefault((world, episode), ([], [], []))
        keep = sum(1 for i in indexes if i < index)  # a turn number seen again: the episode was reset
        del indexes[keep:], prompts[keep:], responses[keep:]
        indexes.append(index)
        prompts.append(user_turn(index, line["tool"], line["arguments"]))
        responses.append(assistant_turn(line["result"]))
        yield sample(str(header.get("task") or TASK), header["system_str"], line, list(prompts), list(responses))


def redacted(lines: Iterable[JSONDict]) -> Iterator[JSONDict]:
    """Each line redacted, and every secret argument of the lines before it wherever it shows up again."""
    known: dict[str, None] = {}
    for line in lines:
        nested = line.get("agentworld")
        known.update(dict.fromkeys(secrets_in((nested if isinstance(nested, dict) else line).get("arguments"))))
        yield redact_line(line, tuple(known))


def export(source: str | Path, out: TextIO, fmt: str = "agentworldbench") -> int:
    """Write ``source``'s samples to ``out``; returns how many."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    lines = redacted(read_trajectory(source))  # a recording made before redaction is safe to share too
    count = 0
    for item in agentworldbench(lines):
        out.write(json.dumps(item, ensure_ascii=False, default=str) + "\n")
        count += 1
    return count


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "export", help="turn a --record file into AgentWorldBench samples (full history per line)",
        description="Write one AgentWorldBench MCP sample per recorded turn (task, id, system_str, prompt, response, "
        "current_prompt, turn_idx, total_turns), as eval.py from QwenLM/Qwen-AgentWorld reads them.",
    )
    p.add_argument("trajectory", help="a JSONL file written by --record")
    p.add_argument("--format", default="agentworldbench", choices=FORMATS, help="the output format")
    p.add_argument("-o", "--output", default=None, metavar="OUT", help="write here (default: standard output)")


def run(args: argparse.Namespace) -> int:
    if args.output is None:
        count = export(args.trajectory, sys.stdout, args.format)
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            count = export(args.trajectory, out, args.format)
    print(f"agentworld-mcp: exported {count} sample(s) from {args.trajectory}", file=sys.stderr)
    return 0


__all__ = ["FORMATS", "add_parser", "agentworldbench", "export", "run", "sample"]
