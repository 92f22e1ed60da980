"""Every call a real server accepted is accepted by the simulator of its catalog, and answered.

For each recorded real server (benchmarks/real_servers.json: 28 servers, of which ten were
recorded for this check and never developed against), the recorded session is replayed through
a real MCP client over stdio against ``agentworld-mcp serve CATALOG``. Where the real server
answered without ``isError``, the call was valid; the simulator must then not refuse its
arguments (an input-validation error), must answer with non-empty content, and any
``structuredContent`` must validate against the tool's outputSchema. Whether the answer is
*right* is what ``benchmarks/real_servers.py`` measures; this is the floor under it: no
simulator error on a valid call, on catalogs nobody tuned for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentworld_mcp.sim2real.score import read_episodes

from .conftest import stdio_session

ROOT = Path(__file__).resolve().parents[1]
SERVERS = json.loads((ROOT / "benchmarks" / "real_servers.json").read_text(encoding="utf-8"))["servers"]


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") or "" for block in result.content)


@pytest.mark.parametrize("server", SERVERS, ids=lambda s: s["name"])
async def test_calls_the_real_server_accepted_are_accepted_and_answered(server: dict[str, Any]) -> None:
    catalog = json.loads((ROOT / server["catalog"]).read_text(encoding="utf-8"))
    outputs = {t["name"]: t.get("outputSchema") for t in catalog["tools"]}
    episodes = read_episodes([ROOT / server["recording"]])
    problems: list[str] = []
    async with stdio_session(str(ROOT / server["catalog"])) as session:
        for turns in episodes.values():
            for turn in turns:
                real_failed = bool(turn.result.get("isError"))
                answer = await session.call_tool(turn.tool, turn.arguments)
                call = f"{turn.tool}({json.dumps(turn.arguments)[:120]})"
                text = _text(answer)
                if answer.isError and "Input validation error" in text and not real_failed:
                    problems.append(f"{call}: a valid call refused: {text[:200]}")
                if not answer.content:
                    problems.append(f"{call}: no content")
                schema = outputs.get(turn.tool)
                if schema and answer.structuredContent is not None and not answer.isError:
                    try:
                        jsonschema.validate(answer.structuredContent, schema)
                    except jsonschema.ValidationError as bad:
                        problems.append(f"{call}: structuredContent breaks the outputSchema: {bad.message[:160]}")
    assert not problems, "\n".join(problems)
