"""Record what the real reference MCP servers answer to a scripted episode.

    python tests/ground_truth/record.py            # filesystem, memory, fastmcp_notes
    python tests/ground_truth/record.py memory     # one
    FASTMCP_PYTHON=/path/to/python-with-fastmcp python tests/ground_truth/record.py fastmcp2_notes

Runs @modelcontextprotocol/server-filesystem and server-memory (installed by
``npm install --prefix tests/node``) offline, drives each through the episode below over
raw JSON-RPC on stdio (no MCP library in between, so the results are byte for byte what
the server wrote), and writes ``tests/ground_truth/<server>.jsonl``: a header line, then
one line per call ``{"tool", "arguments", "result"}``.

The filesystem server runs on a fresh temporary directory; every occurrence of that
directory is replaced by :data:`ROOT` in arguments and results, so the recording does not
depend on where it was made. Nothing else is edited: timestamps, directory sizes and the
order the operating system lists a directory in stay as recorded, and the replay test
(``tests/test_ground_truth.py``) says which of those it normalises and why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NODE_BIN = HERE.parent / "node" / "node_modules" / ".bin"
SERVER_DIR = HERE.parent / "servers"
#: The placeholder for the filesystem server's allowed directory in recordings.
ROOT = "/workspace"
JSONDict = dict[str, Any]
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ground-truth", "version": "0"}}

# -- the episodes: (tool, arguments); "{root}" stands for the allowed directory -------------------------

FILESYSTEM: list[tuple[str, JSONDict]] = [
    ("list_allowed_directories", {}),
    ("list_directory", {"path": "{root}"}),
    ("create_directory", {"path": "{root}/src"}),
    ("create_directory", {"path": "{root}/docs/guides"}),
    ("create_directory", {"path": "{root}/src"}),
    ("write_file", {"path": "{root}/README.md", "content": "# Rocket\n\nLaunch software.\n"}),
    ("write_file", {"path": "{root}/src/app.py",
                    "content": "def countdown(n):\n    return list(range(n, 0, -1))\n\n\nprint(countdown(3))\n"}),
    ("write_file", {"path": "{root}/docs/guides/intro.md", "content": "Intro\n=====\n\nStart here.\nThen go on.\nEnd."}),
    ("write_file", {"path": "{root}/notes.txt", "content": "one\ntwo\nthree\nfour\nfive\n"}),
    ("read_text_file", {"path": "{root}/README.md"}),
    ("read_file", {"path": "{root}/src/app.py"}),
    ("read_text_file", {"path": "{root}/notes.txt", "head": 2}),
    ("read_text_file", {"path": "{root}/notes.txt", "tail": 2}),
    ("read_text_file", {"path": "{root}/docs/guides/intro.md", "tail": 2}),
    ("read_text_file", {"path": "{root}/missing.txt"}),
    ("read_text_file", {"path": "{root}/src"}),
    ("read_multiple_files", {"paths": ["{root}/README.md", "{root}/missing.txt", "{root}/notes.txt"]}),
    ("edit_file", {"path": "{root}/src/app.py", "dryRun": True,
                   "edits": [{"oldText": "print(countdown(3))", "newText": "print(countdown(10))"}]}),
    ("read_text_file", {"path": "{root}/src/app.py"}),
    ("edit_file", {"path": "{root}/src/app.py",
                   "edits": [{"oldText": "def countdown(n):", "newText": "def countdown(n: int) -> list[int]:"},
                             {"oldText": "print(countdown(3))", "newText": "print(countdown(10))"}]}),
    ("read_text_file", {"path": "{root}/src/app.py"}),
    ("edit_file", {"path": "{root}/notes.txt", "edits": [{"oldText": "six", "newText": "seven"}]}),
    ("edit_file", {"path": "{root}/docs/guides/intro.md", "edits": [{"oldText": "End.", "newText": "The end."}]}),
    ("list_directory", {"path": "{root}"}),
    ("list_directory", {"path": "{root}/docs"}),
    ("list_directory", {"path": "{root}/nowhere"}),
    ("list_directory_with_sizes", {"path": "{root}"}),
    ("list_directory_with_sizes", {"path": "{root}", "sortBy": "size"}),
    ("directory_tree", {"path": "{root}"}),
    ("directory_tree", {"path": "{root}", "excludePatterns": ["docs"]}),
    ("search_files", {"path": "{root}", "pattern": "*.md"}),
    ("search_files", {"path": "{root}", "pattern": "**/*.md"}),
    ("search_files", {"path": "{root}", "pattern": "*.rs"}),
    ("get_file_info", {"path": "{root}/README.md"}),
    ("get_file_info", {"path": "{root}/docs"}),
    ("get_file_info", {"path": "{root}/nothing.txt"}),
    ("move_file", {"source": "{root}/notes.txt", "destination": "{root}/docs/notes.txt"}),
    ("move_file", {"source": "{root}/README.md", "destination": "{root}/docs/notes.txt"}),
    ("move_file", {"source": "{root}/gone.txt", "destination": "{root}/here.txt"}),
    ("move_file", {"source": "{root}/docs/guides", "destination": "{root}/guides"}),
    ("read_text_file", {"path": "{root}/guides/intro.md"}),
    ("read_text_file", {"path": "{root}/notes.txt"}),
    ("write_file", {"path": "{root}/README.md", "content": "# Rocket\n\nRewritten.\n"}),
    ("read_text_file", {"path": "{root}/README.md"}),
    ("read_media_file", {"path": "{root}/README.md"}),
    ("search_files", {"path": "{root}", "pattern": "**/*.md", "excludePatterns": ["guides/**"]}),
    ("list_directory", {"path": "{root}"}),
    ("directory_tree", {"path": "{root}"}),
    # relative paths resolve against the allowed directory; paths outside it are refused
    ("read_text_file", {"path": "README.md"}),
    ("write_file", {"path": "docs/todo.txt", "content": "- fuel\n- weather\n"}),
    ("edit_file", {"path": "docs/todo.txt", "edits": [{"oldText": "- fuel", "newText": "- fuel (done)"}]}),
    ("read_text_file", {"path": "{root}/docs/todo.txt"}),
    ("read_text_file", {"path": "{root}//docs/./missing.txt"}),
    ("write_file", {"path": "/etc/agentworld-ground-truth.txt", "content": "no"}),
    ("read_text_file", {"path": "/etc/hostname"}),
    ("list_directory", {"path": "/"}),
    ("read_multiple_files", {"paths": ["docs/todo.txt", "/etc/hostname"]}),
    ("move_file", {"source": "{root}/docs/todo.txt", "destination": "/etc/todo.txt"}),
]

_ADA = {"name": "Ada", "entityType": "person", "observations": ["writes programs", "likes tea"]}
_ENGINE = {"name": "Analytical Engine", "entityType": "machine", "observations": ["designed by Babbage"]}
_BABBAGE = {"name": "Babbage", "entityType": "person", "observations": []}
_WORKS_ON = {"from": "Ada", "to": "Analytical Engine", "relationType": "works_on"}
_DESIGNED = {"from": "Babbage", "to": "Analytical Engine", "relationType": "designed"}
_KNOWS = {"from": "Ada", "to": "Babbage", "relationType": "knows"}

MEMORY: list[tuple[str, JSONDict]] = [
    ("read_graph", {}),
    ("create_entities", {"entities": [_ADA, _ENGINE]}),
    ("create_entities", {"entities": [_ADA, _BABBAGE]}),
    ("create_entities", {"entities": [_ADA]}),
    ("create_relations", {"relations": [_WORKS_ON, _DESIGNED]}),
    ("create_relations", {"relations": [_WORKS_ON, _KNOWS]}),
    ("add_observations", {"observations": [{"entityName": "Ada", "contents": ["likes tea", "born 1815"]},
                                           {"entityName": "Babbage", "contents": ["mathematician"]}]}),
    ("add_observations", {"observations": [{"entityName": "Nobody", "contents": ["exists"]}]}),
    ("open_nodes", {"names": ["Ada"]}),
    ("open_nodes", {"names": ["Babbage", "Nobody"]}),
    ("search_nodes", {"query": "person"}),
    ("search_nodes", {"query": "TEA"}),
    ("search_nodes", {"query": "engine"}),
    ("search_nodes", {"query": "zebra"}),
    ("read_graph", {}),
    ("delete_observations", {"deletions": [{"entityName": "Ada", "observations": ["likes tea", "never said"]},
                                           {"entityName": "Nobody", "observations": ["x"]}]}),
    ("open_nodes", {"names": ["Ada"]}),
    ("delete_relations", {"relations": [_KNOWS, {"from": "Ada", "to": "Nobody", "relationType": "knows"}]}),
    ("read_graph", {}),
    ("delete_entities", {"entityNames": ["Analytical Engine", "Nobody"]}),
    ("read_graph", {}),
    ("create_entities", {"entities": [_ENGINE]}),
    ("search_nodes", {"query": "babbage"}),
    # arguments the advertised inputSchema refuses: what the server really does with them
    ("open_nodes", {}),
    ("create_entities", {"entities": [{"name": "Lovelace", "entityType": "person", "observations": [], "born": 1815}]}),
]

NOTES: list[tuple[str, JSONDict]] = [
    ("count_notes", {}),
    ("create_note", {"title": "Milk", "body": "two litres, semi-skimmed", "tags": ["home"]}),
    ("create_note", {"title": "Café", "body": "pay the bill"}),
    ("get_note", {"note_id": 1}),
    ("get_note", {"note_id": 9}),
    ("list_notes", {}),
    ("list_notes", {"tag": "home"}),
    ("count_notes", {}),
    ("delete_note", {"note_id": 2}),
    ("delete_note", {"note_id": 2}),
    ("count_notes", {}),
    ("list_notes", {}),
]


# -- a raw JSON-RPC client over stdio ---------------------------------------------------------------------


class RawServer:
    """One stdio MCP server process; :meth:`call` returns ``tools/call`` results as the server wrote them."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: str) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env={**os.environ, **env}, cwd=cwd)
        self.next_id = 0
        self.request("initialize", _INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: JSONDict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: JSONDict) -> JSONDict:
        assert self.proc.stdout is not None
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout before answering {method}")
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method} failed: {message['error']}")
                return message["result"]

    def call(self, tool: str, arguments: JSONDict) -> JSONDict:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def _replace(value: Any, old: str, new: str) -> Any:
    """``value`` with every ``old`` in its strings replaced by ``new`` (keys included)."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace(v, old, new) for v in value]
    if isinstance(value, dict):
        return {_replace(k, old, new): _replace(v, old, new) for k, v in value.items()}
    return value


def _version(package: str) -> str:
    meta = json.loads((HERE.parent / "node" / "node_modules" / package / "package.json").read_text())
    return f"{package}@{meta['version']}"


def record(name: str, episode: list[tuple[str, JSONDict]], start: Callable[[Path], tuple[list[str], dict[str, str]]],
           package: str) -> Path:
    """Run ``episode`` against a fresh server and write ``<name>.jsonl``; returns its path."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp).resolve() / "ws"
        work.mkdir()
        command, env = start(work)
        server = RawServer(command, {"TZ": "UTC", **env}, cwd=tmp)
        real_root = str(work)
        lines: list[JSONDict] = [{"header": True, "server": package, "root": ROOT,
                                  "note": f"the server's directory is written {ROOT}"}]
        try:
            for tool, arguments in episode:
                sent = _replace(arguments, "{root}", real_root)
                result = server.call(tool, sent)
                lines.append({"tool": tool, "arguments": _replace(arguments, "{root}", ROOT),
                              "result": _replace(result, real_root, ROOT)})
        finally:
            server.close()
    out = HERE / f"{name}.jsonl"
    out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return out


def _python_version(module: str, python: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({module!r}))"
    return f"{module} (Python) {subprocess.check_output([python, '-c', code], text=True).strip()}"


def _fastmcp_python() -> str:
    """A Python with jlowin/fastmcp installed (the project does not depend on it)."""
    python = os.environ.get("FASTMCP_PYTHON")
    if not python:
        raise SystemExit("set FASTMCP_PYTHON to a python that has `pip install fastmcp` to record fastmcp2_notes")
    return python


def _filesystem(work: Path) -> tuple[list[str], dict[str, str]]:
    return [str(NODE_BIN / "mcp-server-filesystem"), str(work)], {}


def _memory(work: Path) -> tuple[list[str], dict[str, str]]:
    return [str(NODE_BIN / "mcp-server-memory")], {"MEMORY_FILE_PATH": str(work / "memory.jsonl")}


SERVERS: dict[str, tuple[list[tuple[str, JSONDict]], Callable[[Path], tuple[list[str], dict[str, str]]],
                         Callable[[], str]]] = {
    "filesystem": (FILESYSTEM, _filesystem, lambda: _version("@modelcontextprotocol/server-filesystem")),
    "memory": (MEMORY, _memory, lambda: _version("@modelcontextprotocol/server-memory")),
    # FastMCP servers wrap non-object results in {"result": ...}: the MCP Python SDK's and jlowin's.
    "fastmcp_notes": (NOTES, lambda _: ([sys.executable, str(SERVER_DIR / "fastmcp_notes.py")], {}),
                      lambda: _python_version("mcp", sys.executable)),
    "fastmcp2_notes": (NOTES, lambda _: ([_fastmcp_python(), str(SERVER_DIR / "fastmcp2_notes.py")], {}),
                       lambda: _python_version("fastmcp", _fastmcp_python())),
}
#: Recorded when asked by name only (they need a Python with fastmcp).
_ON_REQUEST = ("fastmcp2_notes",)


def main(argv: list[str]) -> int:
    names = argv or [n for n in SERVERS if n not in _ON_REQUEST]
    for name in names:
        episode, start, version = SERVERS[name]
        path = record(name, episode, start, version())
        print(f"wrote {path} ({len(episode)} calls)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
