"""Record real servers of two engine domains (arithmetic, an embedded analytics SQL engine) as ground truth.

    python tests/ground_truth/record_engine_servers.py calculator -- /tmp/calc/bin/mcp-server-calculator
    python tests/ground_truth/record_engine_servers.py duckdb -- /tmp/duck/bin/mcp-server-duckdb --db-path DB

Each server runs behind ``agentworld-mcp proxy --record`` (so the recording is in the
trajectory format ``score`` and ``learn`` read), driven by raw JSON-RPC over stdio through
:data:`EPISODES`. Writes ``tests/ground_truth/<name>_server.jsonl`` and the catalog the proxy
listed as ``tests/catalogs/<name>_server.json``. The servers live in throwaway venvs
(``python -m venv /tmp/calc && /tmp/calc/bin/pip install mcp-server-calculator``; likewise
``mcp-server-duckdb``), with a fresh database file for the SQL one.
"""

from __future__ import annotations

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

CALCULATOR: list[tuple[str, dict[str, Any]]] = [
    ("calculate", {"expression": "2 + 3"}),
    ("calculate", {"expression": "10 / 4"}),
    ("calculate", {"expression": "(1 + 2) * 3 - 4"}),
    ("calculate", {"expression": "2 ** 10"}),
    ("calculate", {"expression": "2^8"}),
    ("calculate", {"expression": "7 // 2 + 7 % 3"}),
    ("calculate", {"expression": "0.1 + 0.2"}),
    ("calculate", {"expression": "sqrt(16)"}),
    ("calculate", {"expression": "log(100, 10)"}),
    ("calculate", {"expression": "pi * 2"}),
    ("calculate", {"expression": "factorial(5)"}),
    ("calculate", {"expression": "6 × 7 ÷ 2"}),
    ("calculate", {"expression": "-5 + 2.5"}),
    ("calculate", {"expression": "1 / 0"}),
    ("calculate", {"expression": "hello + 1"}),
    ("calculate", {"expression": "2 +"}),
    ("calculate", {"expression": "3 > 2"}),
    ("calculate", {"expression": "sqrt(-1)"}),
]

DUCKDB: list[tuple[str, dict[str, Any]]] = [
    ("query", {"query": "CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, active BOOLEAN, "
                        "added DATE, price DECIMAL(8,2))"}),
    ("query", {"query": "INSERT INTO items VALUES (1, 'kettle', true, '2024-01-15', 24.5), "
                        "(2, 'mug', false, '2024-02-01', 6)"}),
    ("query", {"query": "SELECT * FROM items ORDER BY id"}),
    ("query", {"query": "SELECT name FROM items WHERE active"}),
    ("query", {"query": "SELECT count(*) FROM items"}),
    ("query", {"query": "INSERT INTO items (id, name, active) VALUES (3, 'teapot', NULL)"}),
    ("query", {"query": "UPDATE items SET price = 7.25 WHERE id = 2"}),
    ("query", {"query": "SELECT id, price FROM items WHERE id = 2"}),
    ("query", {"query": "SELECT id, name, added FROM items WHERE added >= '2024-01-20'"}),
    ("query", {"query": "SELECT 1 + 1 AS two, 'x' AS letter, 2.5 AS half"}),
    ("query", {"query": "SELECT id FROM items WHERE active IS NULL"}),
    ("query", {"query": "DELETE FROM items WHERE id = 3"}),
    ("query", {"query": "SELECT count(*) AS n, max(price) AS top FROM items"}),
    ("query", {"query": "SELECT * FROM missing"}),
    ("query", {"query": "INSERT INTO items (id, name) VALUES (1, 'again')"}),
    ("query", {"query": "INSERT INTO items (id) VALUES (9)"}),
    ("query", {"query": "SELECT * FROM"}),
    ("query", {"query": "CREATE TABLE events (id INTEGER, happened_at TIMESTAMP, note VARCHAR)"}),
    ("query", {"query": "INSERT INTO events VALUES (1, '2024-03-01 10:30:00', 'start')"}),
    ("query", {"query": "SELECT * FROM events"}),
    ("query", {"query": "SELECT name FROM items ORDER BY name"}),
    ("query", {"query": "DROP TABLE events"}),
]

EPISODES = {"calculator": CALCULATOR, "duckdb": DUCKDB}


def record(name: str, command: list[str]) -> None:
    """Play ``name``'s episode through the recording proxy in front of ``command``."""
    out = HERE / f"{name}_server.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        recording = Path(tmp) / "recording.jsonl"
        proc = subprocess.Popen(["agentworld-mcp", "proxy", "--record", str(recording), "--episode", name,
                                 "--", *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
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
                    return dict(message.get("result") or {"jsonrpc_error": message.get("error")})

        try:
            request("initialize", _INIT)
            stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            stdin.flush()
            for tool, arguments in EPISODES[name]:
                request("tools/call", {"name": tool, "arguments": arguments})
        finally:
            stdin.close()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        shutil.copyfile(recording, out)
        catalog = json.loads(recording.with_name("recording.tools.json").read_text(encoding="utf-8"))
    (CATALOGS / f"{name}_server.json").write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
    print(f"{len(EPISODES[name])} calls -> {out}")


def main(argv: list[str]) -> int:
    split = argv.index("--") if "--" in argv else len(argv)
    if split != 1 or argv[0] not in EPISODES or not argv[split + 1:]:
        print(__doc__, file=sys.stderr)
        return 2
    record(argv[0], argv[split + 1:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
