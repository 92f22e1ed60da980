"""The notes server of ``fastmcp_notes.py`` written with jlowin/fastmcp (``pip install fastmcp``).

jlowin/fastmcp marks its wrapped outputSchemas with ``x-fastmcp-wrap-result`` and prints
non-str results as compact JSON. Its catalog is ``tests/catalogs/fastmcp2_notes.json``
(``agentworld-mcp mirror``) and its answers to a scripted episode are
``tests/ground_truth/fastmcp2_notes.jsonl`` (``FASTMCP_PYTHON=... python
tests/ground_truth/record.py fastmcp2_notes``); the test suite does not need fastmcp.
"""

from __future__ import annotations

import json
from typing import Any

from fastmcp import FastMCP

mcp = FastMCP("notes")
_notes: dict[int, dict[str, Any]] = {}


@mcp.tool
def create_note(title: str, body: str, tags: list[str] | None = None) -> str:
    """Create a note. Returns the note as JSON with its note_id."""
    note_id = len(_notes) + 1
    _notes[note_id] = {"note_id": note_id, "title": title, "body": body, "tags": tags or []}
    return json.dumps(_notes[note_id])


@mcp.tool
def get_note(note_id: int) -> str:
    """Get a note by its note_id, as JSON."""
    if note_id not in _notes:
        return f"Note {note_id} not found"
    return json.dumps(_notes[note_id])


@mcp.tool
def list_notes(tag: str | None = None) -> list[dict[str, Any]]:
    """List notes, optionally only those with a tag."""
    return [n for n in _notes.values() if tag is None or tag in n["tags"]]


@mcp.tool
def count_notes() -> int:
    """How many notes there are."""
    return len(_notes)


@mcp.tool
def delete_note(note_id: int) -> bool:
    """Delete a note. Returns whether it existed."""
    return _notes.pop(note_id, None) is not None


if __name__ == "__main__":
    mcp.run(show_banner=False)
