"""Word-processing documents are held by python-docx and answered as a real document server answers.

The catalog is mirrored from PyPI's ``office-word-mcp-server`` 1.1.11 (``tests/catalogs/word_server.json``);
its real answers to a 42-call episode are in ``tests/ground_truth/word_server.jsonl``
(``tests/ground_truth/record_word_server.py`` re-records both). Every test drives
``agentworld-mcp serve`` with a real MCP client over stdio; the real server is not needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.models.deterministic.engines import document
from agentworld_mcp.models.deterministic.engines.document_body import MAX_CELLS, MAX_CHARS
from agentworld_mcp.sim2real.score import evaluate
from agentworld_mcp.world.catalog import ToolSpec
from agentworld_mcp.world.world import load_world

from .conftest import ROOT, replayed, stdio_session

CATALOG = ROOT / "tests" / "catalogs" / "word_server.json"
GROUND_TRUTH = ROOT / "tests" / "ground_truth" / "word_server.jsonl"
#: The honest score of the recorded episode replayed, measured 0.999 (0.089 before the engine); the floor leaves room.
SCORE_FLOOR = 0.95


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def _call(session: Any, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, _text(result)
    return _text(result)


async def test_paragraphs_added_to_a_document_are_read_back_as_its_text_and_counted() -> None:
    async with stdio_session(str(CATALOG)) as session:
        assert await _call(session, "create_document", filename="minutes", title="Minutes") == (
            "Document minutes.docx created successfully")
        assert await _call(session, "add_heading", filename="minutes.docx", text="Board meeting", level=1) == (
            "Heading 'Board meeting' (level 1) added to minutes.docx")
        assert await _call(session, "add_paragraph", filename="minutes.docx", text="Present: Ada, Grace.") == (
            "Paragraph added to minutes.docx")
        await _call(session, "add_paragraph", filename="minutes", text="The budget was approved.")
        await _call(session, "add_table", filename="minutes.docx", rows=2, cols=2,
                    data=[["Item", "Owner"], ["Budget", "Ada"]])
        assert await _call(session, "get_document_text", filename="minutes.docx") == (
            "Board meeting\nPresent: Ada, Grace.\nThe budget was approved.\nItem\nOwner\nBudget\nAda")
        info = json.loads(await _call(session, "get_document_info", filename="minutes.docx"))
        assert (info["title"], info["paragraph_count"], info["table_count"], info["word_count"]) == (
            "Minutes", 3, 1, 9)
        second = json.loads(await _call(session, "get_paragraph_text_from_document", filename="minutes.docx",
                                        paragraph_index=0))
        assert second == {"index": 0, "text": "Board meeting", "style": "Heading 1", "is_heading": True}
        assert await _call(session, "delete_paragraph", filename="minutes.docx", paragraph_index=1) == (
            "Paragraph at index 1 deleted successfully.")
        outline = json.loads(await _call(session, "get_document_outline", filename="minutes.docx"))
        assert [p["text"] for p in outline["paragraphs"]] == ["Board meeting", "The budget was approved."]
        assert outline["tables"] == [{"index": 0, "rows": 2, "columns": 2,
                                      "preview": [["Item", "Owner"], ["Budget", "Ada"]]}]


async def test_search_and_replace_counts_the_replacements_it_really_made() -> None:
    async with stdio_session(str(CATALOG)) as session:
        await _call(session, "create_document", filename="memo.docx")
        for text in ("Ship the draft on Monday.", "Monday is a holiday, so Monday it is not.", "Nothing here."):
            await _call(session, "add_paragraph", filename="memo.docx", text=text)
        # python-docx replaces run by run: each paragraph written at once is one run, and counts once.
        assert await _call(session, "search_and_replace", filename="memo.docx", find_text="Monday",
                           replace_text="Tuesday") == "Replaced 2 occurrence(s) of 'Monday' with 'Tuesday'."
        assert await _call(session, "search_and_replace", filename="memo.docx", find_text="Friday",
                           replace_text="Saturday") == "No occurrences of 'Friday' found."
        assert await _call(session, "get_document_text", filename="memo.docx") == (
            "Ship the draft on Tuesday.\nTuesday is a holiday, so Tuesday it is not.\nNothing here.")
        found = json.loads(await _call(session, "find_text_in_document", filename="memo.docx", text_to_find="Tuesday"))
        assert found["total_count"] == 3
        # Formatting splits the runs and changes no text; a later replacement counts the runs it touched.
        assert await _call(session, "format_text", filename="memo.docx", paragraph_index=1, start_pos=0, end_pos=7,
                           bold=True) == "Text 'Tuesday' formatted successfully in paragraph 1."
        assert await _call(session, "search_and_replace", filename="memo.docx", find_text="Tuesday",
                           replace_text="Wednesday") == "Replaced 3 occurrence(s) of 'Tuesday' with 'Wednesday'."


async def test_missing_documents_and_paragraphs_out_of_range_fail_in_band_as_the_server_words_them() -> None:
    async with stdio_session(str(CATALOG)) as session:
        assert await _call(session, "get_document_text", filename="ghost.docx") == "Document ghost.docx does not exist"
        assert await _call(session, "add_paragraph", filename="ghost", text="x") == "Document ghost.docx does not exist"
        await _call(session, "create_document", filename="one.docx")
        await _call(session, "add_paragraph", filename="one.docx", text="Only paragraph.")
        assert await _call(session, "delete_paragraph", filename="one.docx", paragraph_index=3) == (
            "Invalid paragraph index. Document has 1 paragraphs (0-0).")
        assert json.loads(await _call(session, "get_paragraph_text_from_document", filename="one.docx",
                                      paragraph_index=5)) == {
            "error": "Invalid paragraph index: 5. Document has 1 paragraphs."}
        assert await _call(session, "add_heading", filename="one.docx", text="x", level=0) == (
            "Invalid heading level: 0. Level must be between 1 and 9.")
        assert await _call(session, "add_paragraph", filename="one.docx", text="x", style="No Such Style") == (
            "Style 'No Such Style' not found, paragraph added with default style to one.docx")


async def test_sizes_are_bounded_and_a_refused_change_leaves_the_document_as_it_was() -> None:
    async with stdio_session(str(CATALOG)) as session:
        await _call(session, "create_document", filename="big.docx")
        await _call(session, "add_paragraph", filename="big.docx", text="a" * 10_000)
        grown = await _call(session, "search_and_replace", filename="big.docx", find_text="a",
                            replace_text="b" * (MAX_CHARS // 10_000 + 1))
        assert grown.startswith("Failed to modify document") and str(MAX_CHARS) in grown
        assert await _call(session, "get_document_text", filename="big.docx") == "a" * 10_000
        huge = await _call(session, "add_table", filename="big.docx", rows=MAX_CELLS, cols=2)
        assert huge.startswith("Failed to modify document") and str(MAX_CELLS) in huge
        assert (await _call(session, "add_table", filename="big.docx", rows=10**9, cols=0)).startswith(
            "Failed to modify document")
        # Text XML cannot hold is refused by python-docx, and reported as the server reports it.
        nul = await _call(session, "add_paragraph", filename="big.docx", text="a\x00b")
        assert nul.startswith("Failed to add paragraph: All strings must be XML compatible")
        assert await _call(session, "get_document_text", filename="big.docx") == "a" * 10_000


async def test_documents_are_seeded_from_the_world_and_kept_across_serve_processes(tmp_path: Path) -> None:
    world = json.loads(CATALOG.read_text())
    world["seed"] = {"documents": [{"path": "brief.docx", "title": "Brief",
                                    "paragraphs": [{"text": "Scope", "style": "Heading 1"}, "Deliver by June."]}]}
    path = tmp_path / "word.json"
    path.write_text(json.dumps(world))
    state = tmp_path / "state.sqlite"
    async with stdio_session(str(path), "--state", str(state)) as session:
        assert await _call(session, "get_document_text", filename="brief") == "Scope\nDeliver by June."
        await _call(session, "add_paragraph", filename="brief.docx", text="Budget: 10k.")
    async with stdio_session(str(path), "--state", str(state)) as session:
        assert await _call(session, "get_document_text", filename="brief.docx") == (
            "Scope\nDeliver by June.\nBudget: 10k.")
        listing = await _call(session, "list_available_documents")
        assert listing.startswith("Found 1 Word documents in .:\n- brief.docx (")


def test_only_word_processing_catalogs_are_claimed_and_only_their_document_tools() -> None:
    word = load_world(CATALOG)
    claimed = {t["name"] for t in word.tools if document.claims(word, ToolSpec(t))}
    assert claimed == {"create_document", "copy_document", "get_document_info", "get_document_text",
                       "get_document_outline", "list_available_documents", "add_paragraph", "add_heading",
                       "add_table", "add_page_break", "delete_paragraph", "search_and_replace", "format_text",
                       "get_paragraph_text_from_document", "find_text_in_document"}
    others = sorted((ROOT / "tests" / "realism" / "catalogs").glob("*.json")) + [
        p for p in sorted((ROOT / "tests" / "catalogs").glob("*.json")) if p != CATALOG]
    assert others
    for path in others:
        world = load_world(path)
        assert not any(document.claims(world, ToolSpec(t)) for t in world.tools), path.name


async def test_the_recorded_real_session_replayed_over_stdio_scores_above_the_measured_floor() -> None:
    episodes, answers = await replayed(CATALOG, [GROUND_TRUTH])
    (turns,) = episodes.values()
    report = evaluate("word_server", episodes, answers)
    assert len(turns) == 42
    assert report["overall"]["is_error_agreement"] == 1.0
    assert report["overall"]["score"] >= SCORE_FLOOR, json.dumps(report["tools"], indent=1)
