"""Record a real server's answers to a catalog's episode, as ground truth.

    python -m tests.realism.record_ground_truth NAME [--fresh-dir DIR] -- COMMAND ARGS...

starts the real MCP server COMMAND over stdio, plays the episode of catalog NAME
(``episodes.py``; references resolved against the real answers) with raw JSON-RPC, no MCP
library in between, and writes one line per step to ``ground_truth/NAME.jsonl``:
``{"tool", "arguments", "result"}`` with the ``CallToolResult`` as the server sent it.
``--fresh-dir`` empties and recreates a directory first (the filesystem server's root).
The commands used for the committed recordings are in ``catalogs/SOURCES.md``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .checks import Answer, Context, resolve
from .episodes import EPISODES
from .ground_truth import path_of

JSONDict = dict[str, Any]
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
         "clientInfo": {"name": "agentworld-realism-recorder", "version": "0"}}


class RawClient:
    """JSON-RPC over a subprocess's stdin/stdout, one request at a time."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0

    def request(self, method: str, params: JSONDict) -> JSONDict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:  # skip notifications and the server's own requests
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout before answering {method}")
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:  # a protocol error is recorded as an error result
                    return {"content": [{"type": "text", "text": message["error"].get("message", "")}],
                            "isError": True}
                return message["result"]

    def start(self) -> None:
        self.request("initialize", _INIT)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def record(name: str, command: list[str]) -> list[JSONDict]:
    """The real server's answer to every step of ``name``'s episode."""
    client = RawClient(command)
    lines: list[JSONDict] = []
    ctx = Context()
    try:
        client.start()
        for st in EPISODES[name].steps:
            arguments = resolve(st.arguments, ctx)
            result = client.request("tools/call", {"name": st.tool, "arguments": arguments})
            lines.append({"tool": st.tool, "arguments": arguments, "result": result})
            if st.save:
                ctx.saved[st.save] = Answer.of(result)
    finally:
        client.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", choices=sorted(EPISODES))
    parser.add_argument("--fresh-dir", type=Path, help="directory to empty and recreate before starting")
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    args, command = parser.parse_args(argv[:split]), argv[split + 1:]
    if not command:
        parser.error("give the real server's command after --")
    if args.fresh_dir:
        shutil.rmtree(args.fresh_dir, ignore_errors=True)
        args.fresh_dir.mkdir(parents=True)
    lines = record(args.name, command)
    path_of(args.name).write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    print(f"wrote {len(lines)} answers to {path_of(args.name)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
