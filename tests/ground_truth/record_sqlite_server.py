"""Record the reference SQLite MCP server's real answers (ground truth for tests/test_sql_tools.py).

Runs PyPI's ``mcp-server-sqlite`` over stdio with a fresh database, speaking raw
JSON-RPC (no MCP library in between), and writes

* ``tests/catalogs/sqlite.json``: its ``tools/list``, byte for byte as JSON;
* ``tests/ground_truth/sqlite_server.jsonl``: one line per call of :data:`EPISODE`,
  ``{"tool", "arguments", "result"}`` with the ``CallToolResult`` it sent.

The server needs an older ``mcp`` than this project, so it lives in its own venv::

    python -m venv /tmp/sqlite-ref && /tmp/sqlite-ref/bin/pip install mcp-server-sqlite "mcp>=1.20,<2"
    python tests/ground_truth/record_sqlite_server.py /tmp/sqlite-ref/bin/mcp-server-sqlite
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CATALOG = HERE.parent / "catalogs" / "sqlite.json"
GROUND_TRUTH = HERE / "sqlite_server.jsonl"
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-json-rpc", "version": "0"}}

#: create a table -> insert -> select -> update -> describe -> errors -> delete -> list.
EPISODE: list[tuple[str, dict[str, Any]]] = [
    ("list_tables", {}),
    ("create_table", {"query": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                               "email TEXT UNIQUE, score REAL)"}),
    ("create_table", {"query": "CREATE TABLE users (id INTEGER)"}),
    ("create_table", {"query": "DROP TABLE users"}),
    ("write_query", {"query": "INSERT INTO users (name, email, score) VALUES ('Ada Lovelace', 'ada@example.com', 9.5)"}),
    ("write_query", {"query": "INSERT INTO users (name, email) VALUES ('Grace', 'grace@example.com'), "
                              "('Linus', 'linus@example.com')"}),
    ("write_query", {"query": "INSERT INTO users (name, email) VALUES ('Ada again', 'ada@example.com')"}),
    ("write_query", {"query": "INSERT INTO users (email) VALUES ('nobody@example.com')"}),
    ("read_query", {"query": "SELECT * FROM users ORDER BY id"}),
    ("read_query", {"query": "DELETE FROM users"}),
    ("write_query", {"query": "SELECT 1"}),
    ("write_query", {"query": "UPDATE users SET name = 'Grace Hopper', score = 8 WHERE id = 2"}),
    ("read_query", {"query": "SELECT id, name, score FROM users WHERE id = 2"}),
    ("describe_table", {"table_name": "users"}),
    ("describe_table", {"table_name": "missing"}),
    ("read_query", {"query": "SELECT * FROM missing"}),
    ("read_query", {"query": "SELECT nme FROM users"}),
    ("read_query", {"query": "SELECT * FROM"}),
    ("read_query", {"query": "SELECT 1; SELECT 2"}),
    ("write_query", {"query": "DELETE FROM users WHERE id = 3"}),
    ("write_query", {"query": "UPDATE users SET name = 'x' WHERE id = 99"}),
    ("read_query", {"query": "SELECT COUNT(*) AS n, MAX(score) FROM users"}),
    ("write_query", {"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT)"}),
    ("write_query", {"query": "INSERT INTO notes (body) VALUES ('first'), ('second')"}),
    ("list_tables", {}),
    ("read_query", {"query": "select name from users order by name"}),
]


def record(command: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The server's tools and its answer to every call of :data:`EPISODE`, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([*command, "--db-path", str(Path(tmp) / "reference.db")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout
        next_id = 0

        def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
            nonlocal next_id
            next_id += 1
            stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n")
            stdin.flush()
            while True:
                message = json.loads(stdout.readline())
                if message.get("id") == next_id and "method" not in message:
                    return message.get("result") or {"jsonrpc_error": message.get("error")}

        try:
            request("initialize", _INIT)
            stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            stdin.flush()
            tools = request("tools/list", {})["tools"]
            calls = [{"tool": name, "arguments": args, "result": request("tools/call", {"name": name, "arguments": args})}
                     for name, args in EPISODE]
        finally:
            proc.kill()
            proc.wait(10)
    return tools, calls


def main(argv: list[str]) -> int:
    tools, calls = record(argv or ["mcp-server-sqlite"])
    CATALOG.write_text(json.dumps({"tools": tools}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    GROUND_TRUTH.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in calls), encoding="utf-8")
    print(f"{len(tools)} tools -> {CATALOG}; {len(calls)} calls -> {GROUND_TRUTH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
