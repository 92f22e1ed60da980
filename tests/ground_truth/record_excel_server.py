"""Record a real spreadsheet server's answers (ground truth for tests/test_engine_workbook.py).

Runs PyPI's ``excel-mcp-server`` over stdio with a fresh, empty directory as its only
allowed directory and working directory (workbooks are named relative to it, so the
recording does not depend on where it was made), speaking raw JSON-RPC (no MCP library
in between), and writes

* ``tests/catalogs/excel_server.json``: its ``tools/list`` as a world file;
* ``tests/ground_truth/excel_server.jsonl`` (:data:`EPISODE`) and ``excel_server_edges.jsonl``
  (:data:`EDGES`): a header line, then one line per call, ``{"tool", "arguments", "result"}``
  with the ``CallToolResult`` it sent.

The server pins its own ``mcp``, so it lives in its own venv::

    python -m venv /tmp/xlsrv && /tmp/xlsrv/bin/pip install excel-mcp-server==2.2.2
    python tests/ground_truth/record_excel_server.py /tmp/xlsrv/bin/excel-mcp-server stdio
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CATALOG = HERE.parent / "catalogs" / "excel_server.json"
PACKAGE = "excel-mcp-server==2.2.2"
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-json-rpc", "version": "0"}}

_W = "sales.xlsx"
_S = "Sheet1"
#: create -> write -> read back -> formulas -> find -> format -> copy/clear -> sheet ops -> errors.
EPISODE: list[tuple[str, dict[str, Any]]] = [
    ("list_workbooks", {}),
    ("create_workbook", {"path": _W}),
    ("create_workbook", {"path": _W}),
    ("describe_workbook", {"path": _W}),
    ("write_range", {"path": _W, "sheet": _S, "at": "A1",
                     "rows": [["Region", "Q1", "Q2", "Total"], ["North", 120, 135, "=B2+C2"],
                              ["South", 95, 101, "=B3+C3"], ["East", 80, 92.5, "=SUM(B4:C4)"]]}),
    ("read_range", {"path": _W, "sheet": _S}),
    ("read_range", {"path": _W, "sheet": _S, "range": "A1:D4", "mode": "formulas"}),
    ("write_range", {"path": _W, "sheet": _S, "at": "A5",
                     "rows": [["Total", "=SUM(B2:B4)", "=SUM(C2:C4)", "=SUM(D2:D4)"]]}),
    ("read_range", {"path": _W, "sheet": _S, "range": "B5:D5"}),
    ("write_range", {"path": _W, "sheet": _S, "at": "F1",
                     "rows": [["Average Q1", "Best"], ["=AVERAGE(B2:B4)", "=MAX(D2:D4)"], ["=ROUND(F2/3,2)", None]]}),
    ("read_range", {"path": _W, "sheet": _S, "range": "F1:G3"}),
    ("find_cells", {"path": _W, "query": "North"}),
    ("find_cells", {"path": _W, "query": "th", "sheet": _S}),
    ("find_cells", {"path": _W, "query": "zebra"}),
    ("format_range", {"path": _W, "sheet": _S, "range": "A1:D1", "style": {"bold": True, "fill_color": "#DDEBF7"}}),
    ("read_range", {"path": _W, "sheet": _S, "range": "A1:D1"}),
    ("create_sheet", {"path": _W, "new_name": "Summary"}),
    ("create_sheet", {"path": _W, "new_name": "Summary"}),
    ("copy_range", {"path": _W, "sheet": _S, "range": "A1:B3", "at": "A1", "to_sheet": "Summary"}),
    ("read_range", {"path": _W, "sheet": "Summary"}),
    ("copy_range", {"path": _W, "sheet": _S, "range": "D2:D3", "at": "E2"}),
    ("read_range", {"path": _W, "sheet": _S, "range": "E2:E3", "mode": "formulas"}),
    ("clear_range", {"path": _W, "sheet": _S, "range": "E2:E3"}),
    ("read_range", {"path": _W, "sheet": _S, "range": "A1:G5"}),
    ("rename_sheet", {"path": _W, "sheet": "Summary", "new_name": "Overview"}),
    ("describe_workbook", {"path": _W}),
    ("read_range", {"path": _W, "sheet": "Summary"}),
    ("write_range", {"path": _W, "sheet": "Nope", "at": "A1", "rows": [["x"]]}),
    ("copy_sheet", {"path": _W, "sheet": _S, "new_name": "Backup"}),
    ("delete_sheet", {"path": _W, "sheet": "Overview"}),
    ("delete_sheet", {"path": _W, "sheet": "Nope"}),
    ("read_range", {"path": "missing.xlsx", "sheet": _S}),
    ("read_range", {"path": _W, "sheet": _S, "range": "not a range"}),
    ("replace_cells", {"path": _W, "query": "South", "replacement": "West", "sheet": _S}),
    ("find_cells", {"path": _W, "query": "West"}),
    ("describe_sheet", {"path": _W, "sheet": "Backup"}),
    ("describe_workbook", {"path": _W}),
    ("list_workbooks", {}),
]

#: Held out while the engine was written: edge cases (errors as values, uncomputable formulas,
#: circular references, whole columns and rows, paging, bad names and paths).
EDGES: list[tuple[str, dict[str, Any]]] = [
    ("create_workbook", {"path": "a.xlsx"}),
    ("write_range", {"path": "a.xlsx", "sheet": _S, "at": "A1",
                     "rows": [[1, 0, "=A1/B1", "=NOSUCHFN(1)", "=2*3", "=A1&\"x\"", "=C1+1", "2026-01-31", "00123",
                               True, "=D1", "=A1>0"]]}),
    ("read_range", {"path": "a.xlsx", "sheet": _S}),
    ("write_range", {"path": "a.xlsx", "sheet": _S, "at": "A2", "rows": [["=SUM("]]}),
    ("write_range", {"path": "a.xlsx", "sheet": _S, "at": "A3", "rows": [["=A3+1"]]}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "A1:A3"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "B:B"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "2:3"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "Sheet1!A1"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "Z100"}),
    ("find_cells", {"path": "a.xlsx", "query": "1"}),
    ("find_cells", {"path": "a.xlsx", "query": "A1", "mode": "formulas"}),
    ("create_sheet", {"path": "a.xlsx", "new_name": "bad/name"}),
    ("create_sheet", {"path": "a.xlsx", "new_name": "sheet1"}),
    ("create_sheet", {"path": "a.xlsx", "new_name": "Second", "position": 1}),
    ("describe_workbook", {"path": "a.xlsx"}),
    ("delete_sheet", {"path": "a.xlsx", "sheet": "sheet1"}),
    ("delete_sheet", {"path": "a.xlsx", "sheet": "Second"}),
    ("delete_sheet", {"path": "a.xlsx", "sheet": _S}),
    ("create_workbook", {"path": "dir/b.xlsx"}),
    ("create_workbook", {"path": "c.txt"}),
    ("create_workbook", {"path": "d.xlsx", "sheets": ["One", "Two"]}),
    ("describe_workbook", {"path": "d.xlsx"}),
    ("clear_range", {"path": "a.xlsx", "sheet": _S, "range": "A1:B1"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "A1:E1"}),
    ("copy_range", {"path": "a.xlsx", "sheet": _S, "range": "A1:C1", "at": "A5", "paste": "values"}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "A5:C5", "mode": "formulas"}),
    ("copy_range", {"path": "a.xlsx", "sheet": _S, "range": "E1:G1", "at": "A7", "transpose": True}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "A7:A9", "mode": "formulas"}),
    ("format_range", {"path": "a.xlsx", "sheet": _S, "range": "A1", "style": {"number_format": "0.00"}}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "A1:L1", "max_cells": 5}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "H1:I9", "max_cells": 6}),
    ("list_workbooks", {}),
    ("list_workbooks", {"recursive": True}),
    ("write_range", {"path": "a.xlsx", "sheet": _S, "at": "A1", "rows": []}),
    ("write_range", {"path": "a.xlsx", "sheet": _S, "at": "bad", "rows": [[1]]}),
    ("replace_cells", {"path": "a.xlsx", "query": "zzz", "replacement": "y"}),
    ("replace_cells", {"path": "a.xlsx", "query": "00", "replacement": ""}),
    ("read_range", {"path": "a.xlsx", "sheet": _S, "range": "I1"}),
    ("find_cells", {"path": "a.xlsx", "query": "q", "sheet": "Nope"}),
    ("find_cells", {"path": "a.xlsx", "query": "x", "exact": True}),
    ("rename_sheet", {"path": "a.xlsx", "sheet": _S, "new_name": "Data"}),
    ("read_range", {"path": "a.xlsx", "sheet": "Data", "range": "F1:G1"}),
    ("describe_workbook", {"path": "missing.xlsx"}),
]
#: Each recording's name and its calls.
EPISODES = {"excel_server": EPISODE, "excel_server_edges": EDGES}


class _Server:
    """The server over stdio; lines on stdout that are not JSON (its startup prints) are skipped."""

    def __init__(self, command: list[str], cwd: str) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=cwd)
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout before answering {method}")
            if not line.startswith("{"):
                continue
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result") or {"jsonrpc_error": message.get("error")}

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def record(command: list[str], episode: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]],
                                                                                 list[dict[str, Any]]]:
    """The server's tools and its answer to every call of ``episode``, in order (a fresh directory each)."""
    with tempfile.TemporaryDirectory() as tmp:
        server = _Server([*command, "--allow-dir", tmp], tmp)
        try:
            server.request("initialize", _INIT)
            server.notify("notifications/initialized")
            tools = server.request("tools/list", {})["tools"]
            lines = [{"tool": tool, "arguments": arguments,
                      "result": server.request("tools/call", {"name": tool, "arguments": arguments})}
                     for tool, arguments in episode]
        finally:
            server.close()
        # The temporary directory must not show in the recording: answers quote paths relative to it.
        text = json.dumps(lines).replace(tmp + "/", "").replace(tmp, ".")
    return tools, json.loads(text)


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    header = {"header": True, "server": PACKAGE, "note": "run with a fresh empty directory as --allow-dir and cwd"}
    for name, episode in EPISODES.items():
        tools, lines = record(argv, episode)
        out = HERE / f"{name}.jsonl"
        out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in [header, *lines]),
                       encoding="utf-8")
        print(f"wrote {len(lines)} answers to {out}", file=sys.stderr)
    CATALOG.write_text(json.dumps({"name": "excel_server", "scenario": "", "tools": tools}, indent=1,
                                  ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(tools)} tools to {CATALOG}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
