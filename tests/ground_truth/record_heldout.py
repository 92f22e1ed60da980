"""Record a second, held-out session of a real server, for ``benchmarks/learn_fidelity.py`` (issue 22).

    python -m tests.ground_truth.record_heldout NAME [NAME ...]

plays ``sessions/heldout/NAME.json`` (a list of ``[tool, arguments]`` calls, ``{root}`` standing for
the server's fresh working directory) against a fresh copy of the real server, from its initial
state, with :mod:`.record`'s raw JSON-RPC client, and writes ``heldout/NAME.jsonl``. A world is
learned from the server's committed recording (the training session) and scored on this one, which
it never saw: other entities, other values, the same server. The servers run from the throwaway
venvs and ``tests/node`` packages named in ``tests/realism/catalogs/SOURCES.md``; set
``HELDOUT_VENVS`` to the folder holding them (default ``/tmp``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .record import HERE, NODE_BIN, SERVER_DIR, record

VENVS = Path(os.environ.get("HELDOUT_VENVS", "/tmp"))
Start = Callable[[Path], tuple[list[str], dict[str, str]]]


def _git(work: Path) -> tuple[list[str], dict[str, str]]:
    script = ('git init -q -b main && git config user.email ada@example.com && git config user.name "Ada Lovelace" '
              '&& printf "# Shop\\n" > README.md && git add README.md && git commit -qm "Initial commit" '
              '&& printf "buy milk\\n" > todo.txt')
    subprocess.run(["sh", "-c", script], cwd=work, check=True)
    return [str(VENVS / "rs-mcp-server-git" / "bin" / "mcp-server-git")], {}


SERVERS: dict[str, tuple[Start, str]] = {
    "calculator": (lambda _: ([str(VENVS / "calcvenv" / "bin" / "mcp-server-calculator")], {}),
                   "mcp-server-calculator 0.2.1 (PyPI)"),
    "duckdb": (lambda w: ([str(VENVS / "duckvenv" / "bin" / "mcp-server-duckdb"), "--db-path", str(w / "gt.db")], {}),
               "mcp-server-duckdb 1.1.0 (PyPI)"),
    "git": (_git, "mcp-server-git (PyPI)"),
    "sequential_thinking": (lambda _: (["npx", "-y", "@modelcontextprotocol/server-sequential-thinking@2026.8.31"], {}),
                            "@modelcontextprotocol/server-sequential-thinking@2026.8.31"),
    "fastmcp_notes": (lambda _: ([sys.executable, str(SERVER_DIR / "fastmcp_notes.py")], {}), "mcp (Python)"),
    "memory": (lambda w: ([str(NODE_BIN / "mcp-server-memory")], {"MEMORY_FILE_PATH": str(w / "memory.jsonl")}),
               "@modelcontextprotocol/server-memory"),
    "filesystem": (lambda w: ([str(NODE_BIN / "mcp-server-filesystem"), str(w)], {}),
                   "@modelcontextprotocol/server-filesystem"),
    "taskmanager": (lambda w: ([str(NODE_BIN / "mcp-taskmanager")], {"TASK_MANAGER_FILE_PATH": str(w / "tasks.json")}),
                    "@kazuph/mcp-taskmanager"),
}


def main(argv: list[str]) -> int:
    for name in argv or list(SERVERS):
        start, package = SERVERS[name]
        calls = json.loads((HERE / "sessions" / "heldout" / f"{name}.json").read_text(encoding="utf-8"))
        path = record(f"heldout/{name}", [(tool, arguments) for tool, arguments in calls], start, package)
        print(f"wrote {path} ({len(calls)} calls)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
