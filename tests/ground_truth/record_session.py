"""Record a real MCP server's answers to a scripted session, as ground truth for ``score``.

    python -m tests.ground_truth.record_session NAME [--workdir DIR] -- COMMAND ARGS...

plays ``sessions/NAME.json`` (a list of ``[tool, arguments]`` calls) through
``agentworld-mcp proxy --record`` in front of the real server ``COMMAND``, with raw JSON-RPC
over stdio (no MCP library between us and the server), and writes the recording to
``NAME_server.jsonl`` (the trajectory format ``score`` and ``learn`` read) and the catalog the
server listed to ``../catalogs/NAME_server.json``. ``--workdir`` runs the server in a fresh
copy of that directory's state: the directory is emptied and recreated first, so a
re-recording starts where the committed one did. The command used for each committed
recording is in ``../realism/catalogs/SOURCES.md``. ``--heldout`` plays
``sessions/heldout/NAME.json`` instead and writes only ``heldout/NAME.jsonl`` (a held-out session
for ``benchmarks/learn_fidelity.py``): the training recording and the catalog stay untouched.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CATALOGS = HERE.parent / "catalogs"
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-json-rpc", "version": "0"}}


def play(command: list[str], calls: list[list[Any]], recording: Path, episode: str, cwd: Path | None) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "agentworld_mcp", "proxy", "--record", str(recording),
                             "--episode", episode, "--", *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def request(ident: int, method: str, params: dict[str, Any]) -> None:
        send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:  # skip notifications and the server's own requests
            line = stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout before answering {method}")
            message = json.loads(line)
            if message.get("id") == ident and "method" not in message:
                return

    try:
        request(0, "initialize", _INIT)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for ident, (tool, arguments) in enumerate(calls, start=1):
            request(ident, "tools/call", {"name": tool, "arguments": arguments})
    finally:
        stdin.close()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--workdir", type=Path, help="emptied and recreated first; the server runs in it")
    parser.add_argument("--setup", help="a shell command run in --workdir before the server starts")
    parser.add_argument("--heldout", action="store_true",
                        help="play sessions/heldout/NAME.json into heldout/NAME.jsonl; write no catalog")
    split = argv.index("--") if "--" in argv else len(argv)
    args, command = parser.parse_args(argv[:split]), argv[split + 1:]
    if not command:
        parser.error("give the server's command after --")
    sessions, out = (HERE / "sessions" / "heldout", HERE / "heldout" / f"{args.name}.jsonl") if args.heldout \
        else (HERE / "sessions", HERE / f"{args.name}_server.jsonl")
    calls = json.loads((sessions / f"{args.name}.json").read_text(encoding="utf-8"))
    if args.workdir is not None:
        shutil.rmtree(args.workdir, ignore_errors=True)
        args.workdir.mkdir(parents=True)
        if args.setup:
            subprocess.run(["sh", "-c", args.setup], cwd=args.workdir, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        recording = Path(tmp) / "recording.jsonl"
        play(command, calls, recording, args.name, args.workdir)
        shutil.copyfile(recording, out)
        catalog = json.loads(recording.with_name("recording.tools.json").read_text(encoding="utf-8"))
    if not args.heldout:
        (CATALOGS / f"{args.name}_server.json").write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n",
                                                          encoding="utf-8")
    print(f"{len(calls)} calls -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
