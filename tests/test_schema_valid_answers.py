"""A valid call always gets an answer that validates against the tool's outputSchema.

Published specs are stricter than what a call carries: a channel pattern the agent's
argument does not follow, ids with optional prefixes, logs that must not be empty. The
deterministic model repairs each failing part of its answer from the schema, so the call is
answered, never refused with a simulator error.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema

from agentworld_mcp.world import values

from .conftest import stdio_session

STRICT = {
    "name": "strict-chat",
    "tools": [{
        "name": "post_message",
        "description": "Post a message to a channel.",
        "inputSchema": {"type": "object", "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
                        "required": ["channel", "text"]},
        "outputSchema": {"type": "object", "required": ["ok", "channel", "app_id", "log"], "properties": {
            "ok": {"type": "boolean"},
            "channel": {"type": "string", "pattern": "^[CGD][A-Z0-9]{8,}$"},
            "app_id": {"type": "string", "pattern": "^(A[A-Z0-9]{1,})?$"},
            "log": {"type": "array", "minItems": 2, "items": {"type": "string"}}}},
    }],
}


async def test_an_answer_whose_echoed_argument_breaks_the_output_pattern_is_repaired_not_refused(
        tmp_path: Path) -> None:
    world = tmp_path / "strict.json"
    world.write_text(json.dumps(STRICT), encoding="utf-8")
    schema = STRICT["tools"][0]["outputSchema"]  # type: ignore[index]
    async with stdio_session(str(world)) as session:
        result = await session.call_tool("post_message", {"channel": "general", "text": "hello"})
    assert not result.isError, result.content
    answer = result.structuredContent
    jsonschema.validate(answer, schema)
    assert answer["app_id"], "an optional-group id pattern gives a real id, not an empty string"


def test_values_follow_patterns_with_groups_and_alternatives() -> None:
    for pattern in ("^(gid://shop/)?Product/\\d+$", "^(?:cus|acct)_[a-zA-Z0-9]{14}$", "^[^@]+@[^@]+$"):
        for seed in range(5):
            value = values.generate({"type": "string", "pattern": pattern}, random.Random(seed), "product_id")
            assert re.search(pattern, value), (pattern, value)
