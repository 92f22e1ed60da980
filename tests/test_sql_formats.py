"""SQL answers in the server's own format: an embedded analytics engine's server prints typed tuples.

Ground truth: PyPI's ``mcp-server-duckdb`` (one ``query`` tool), its ``tools/list`` and a
22-call session (tables with booleans, dates, decimals and timestamps; writes; errors)
recorded through ``agentworld-mcp proxy --record`` by ``tests/ground_truth/record_session.py`` (the calls: ``sessions/*.json``).
Its answers are Python's ``str(cursor.fetchall())``: ``[(1, 'kettle', True,
datetime.date(2024, 1, 15), Decimal('24.50'))]``. Nothing names the server to the
simulator: the catalog names its SQL dialect, and demonstrations show how it prints. Every call
goes through a real MCP client to ``agentworld-mcp serve`` over stdio; the recording is scored
with the honest score. The SQLite and Postgres servers' formats are tests/test_sql_tools.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.sim2real.score import RecordedTurn, evaluate, read_episodes

from .conftest import replayed, stdio_session

HERE = Path(__file__).resolve().parent
CATALOG = HERE / "catalogs" / "duckdb_server.json"
RECORDING = HERE / "ground_truth" / "duckdb_server.jsonl"


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _demonstrated_world(tmp_path: Path, turns: list[RecordedTurn]) -> Path:
    """The catalog with four recorded answers as demonstrations: an empty result, a write's count, rows, an error."""
    shown = turns[:3] + [next(t for t in turns if "error" in t.result["content"][0]["text"].lower())]
    demos = [{"tool": t.tool, "arguments": t.arguments, "response": t.result["content"][0]["text"]} for t in shown]
    path = tmp_path / "analytics.json"
    path.write_text(json.dumps({"name": "analytics", "tools": json.loads(CATALOG.read_text())["tools"],
                                "demonstrations": demos}))
    return path


async def _replay(world: Path) -> tuple[dict[str, Any], int]:
    episodes, answers = await replayed(world, [RECORDING])
    identical = sum(ours["content"] == t.result["content"] and ours["isError"] == t.result["isError"]
                    for key, turns in episodes.items() for t, ours in zip(turns, answers[key]))
    return evaluate(world.stem, episodes, answers), identical


async def test_a_session_answers_in_the_demonstrated_tuple_format_with_typed_values(tmp_path: Path) -> None:
    turns = next(iter(read_episodes([RECORDING]).values()))
    report, identical = await _replay(_demonstrated_world(tmp_path, turns))
    assert report["calls"] == 22
    # Before: 0.000 (rows as JSON objects, 1/0 for booleans, errors as isError). Measured after: 0.976, and
    # 18 of 22 answers byte for byte (the four others: a decimal literal, max() of a decimal column, the
    # engine's "Did you mean" suggestion and the duplicate key's value in its error).
    assert report["overall"]["score"] >= 0.95
    assert identical >= 18


async def test_the_catalog_alone_still_answers_from_the_database() -> None:
    report, _ = await _replay(CATALOG)
    # No demonstration: rows and errors print as the named engine family's servers print them
    # (sql_engines.json: typed tuples, errors as "Database error: ..." text). Before: 0.456; after: 0.976.
    assert report["overall"]["score"] >= 0.95


async def test_booleans_dates_decimals_and_timestamps_print_as_the_driver_returns_them(tmp_path: Path) -> None:
    world = tmp_path / "typed.json"
    world.write_text(json.dumps({"name": "typed", "tools": json.loads(CATALOG.read_text())["tools"],
                                 "demonstrations": [{"tool": "query", "arguments": {"query": "SELECT 42"},
                                                     "response": "[(42,)]"}]}))
    async with stdio_session(str(world)) as session:
        async def query(sql: str) -> str:
            return _text(await session.call_tool("query", {"query": sql}))

        assert await query("CREATE TABLE t (id INTEGER, ok BOOLEAN, day DATE, at_time TIMESTAMP, "
                           "amount DECIMAL(10,3), note VARCHAR)") == "[]"
        assert await query("INSERT INTO t VALUES (1, true, '2025-12-31', '2025-12-31 23:59:01', 1.5, NULL), "
                           "(2, false, NULL, NULL, 2, 'it''s')") == "[(2,)]"
        assert await query("SELECT * FROM t ORDER BY id") == (
            "[(1, True, datetime.date(2025, 12, 31), datetime.datetime(2025, 12, 31, 23, 59, 1), "
            "Decimal('1.500'), None), (2, False, None, None, Decimal('2.000'), \"it's\")]")
        assert await query("UPDATE t SET ok = NOT ok") == "[(2,)]"
        assert await query("SELECT id FROM t WHERE ok") == "[(2,)]"
        assert await query("SELECT * FROM nowhere") == (  # the engine family's servers print errors as text
            "Database error: Catalog Error: Table with name nowhere does not exist!\n\nLINE 1: SELECT * FROM nowhere\n"
            "                      ^^^^^^^")
