"""Record a real word-processing document server's answers (ground truth for tests/test_engine_document.py).

Runs PyPI's ``office-word-mcp-server`` over stdio in a fresh, empty working directory
(documents are named relative to it, so the recording does not depend on where it was
made), speaking raw JSON-RPC (no MCP library in between), and writes

* ``tests/catalogs/word_server.json``: its ``tools/list`` as a world file;
* ``tests/ground_truth/word_server.jsonl``: a header line, then one line per call of
  :data:`EPISODE`, ``{"tool", "arguments", "result"}`` with the ``CallToolResult`` it sent.

The server pins its own ``mcp``/``fastmcp``, so it lives in its own venv::

    python -m venv /tmp/wordsrv && /tmp/wordsrv/bin/pip install office-word-mcp-server==1.1.11
    python tests/ground_truth/record_word_server.py /tmp/wordsrv/bin/word_mcp_server
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CATALOG = HERE.parent / "catalogs" / "word_server.json"
GROUND_TRUTH = HERE / "word_server.jsonl"
PACKAGE = "office-word-mcp-server==1.1.11"
_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-json-rpc", "version": "0"}}

_R = "report.docx"
#: create -> write headings, paragraphs, a table -> read back -> find/replace -> format -> delete -> errors.
EPISODE: list[tuple[str, dict[str, Any]]] = [
    ("list_available_documents", {}),
    ("create_document", {"filename": _R, "title": "Quarterly Report", "author": "Ada Lovelace"}),
    ("create_document", {"filename": "notes"}),
    ("get_document_text", {"filename": _R}),
    ("add_heading", {"filename": _R, "text": "Quarterly Report", "level": 1}),
    ("add_paragraph", {"filename": _R, "text": "Sales grew in the north region this quarter. "
                                               "The north team closed twelve new accounts."}),
    ("add_heading", {"filename": _R, "text": "Regional results", "level": 2}),
    ("add_paragraph", {"filename": _R, "text": "North: 120 units", "style": "List Bullet"}),
    ("add_paragraph", {"filename": _R, "text": "South: 95 units", "style": "Fancy Style"}),
    ("add_paragraph", {"filename": _R, "text": "Figures are unaudited.", "italic": True, "font_size": 9}),
    ("add_table", {"filename": _R, "rows": 3, "cols": 2,
                   "data": [["Region", "Units"], ["north", "120"], ["south", "95"]]}),
    ("add_page_break", {"filename": _R}),
    ("add_heading", {"filename": _R, "text": "Appendix", "level": 12}),
    ("add_heading", {"filename": _R, "text": "Appendix", "level": 2}),
    ("get_document_text", {"filename": _R}),
    ("get_document_info", {"filename": _R}),
    ("get_document_outline", {"filename": _R}),
    ("get_paragraph_text_from_document", {"filename": _R, "paragraph_index": 1}),
    ("get_paragraph_text_from_document", {"filename": _R, "paragraph_index": 2}),
    ("get_paragraph_text_from_document", {"filename": _R, "paragraph_index": 40}),
    ("find_text_in_document", {"filename": _R, "text_to_find": "north"}),
    ("search_and_replace", {"filename": _R, "find_text": "north", "replace_text": "North"}),
    ("search_and_replace", {"filename": _R, "find_text": "zebra", "replace_text": "lion"}),
    ("get_document_text", {"filename": _R}),
    ("format_text", {"filename": _R, "paragraph_index": 1, "start_pos": 0, "end_pos": 5, "bold": True}),
    ("format_text", {"filename": _R, "paragraph_index": 30, "start_pos": 0, "end_pos": 5, "bold": True}),
    ("get_paragraph_text_from_document", {"filename": _R, "paragraph_index": 1}),
    ("delete_paragraph", {"filename": _R, "paragraph_index": 4}),
    ("delete_paragraph", {"filename": _R, "paragraph_index": 25}),
    ("get_document_outline", {"filename": _R}),
    ("get_document_info", {"filename": _R}),
    ("get_document_text", {"filename": "missing.docx"}),
    ("add_paragraph", {"filename": "missing.docx", "text": "Nobody reads this."}),
    ("delete_paragraph", {"filename": "missing", "paragraph_index": 0}),
    ("add_paragraph", {"filename": "notes", "text": "Call the printer about toner."}),
    ("add_paragraph", {"filename": "notes.docx", "text": "Book the meeting room."}),
    ("get_document_text", {"filename": "notes"}),
    ("search_and_replace", {"filename": "notes.docx", "find_text": "o", "replace_text": "0"}),
    ("get_document_text", {"filename": "notes.docx"}),
    ("copy_document", {"source_filename": _R, "destination_filename": "report-copy.docx"}),
    ("get_document_info", {"filename": "notes.docx"}),
    ("list_available_documents", {}),
]


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


def record(command: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The server's tools and its answer to every call of :data:`EPISODE`, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        server = _Server(command, tmp)
        try:
            server.request("initialize", _INIT)
            server.notify("notifications/initialized")
            tools = server.request("tools/list", {})["tools"]
            lines = [{"tool": tool, "arguments": arguments,
                      "result": server.request("tools/call", {"name": tool, "arguments": arguments})}
                     for tool, arguments in EPISODE]
        finally:
            server.close()
    return tools, lines


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    tools, lines = record(argv)
    CATALOG.write_text(json.dumps({"name": "word_server", "scenario": "", "tools": tools}, indent=1,
                                  ensure_ascii=False) + "\n", encoding="utf-8")
    header = {"header": True, "server": PACKAGE, "note": "run in a fresh empty working directory"}
    GROUND_TRUTH.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in [header, *lines]),
                            encoding="utf-8")
    print(f"wrote {len(tools)} tools to {CATALOG} and {len(lines)} answers to {GROUND_TRUTH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
