"""Arithmetic and statistics tools are computed, as real calculator servers compute them.

Ground truth: PyPI's ``mcp-server-calculator`` (one ``calculate(expression)`` tool), its
``tools/list`` and an 18-call session recorded through ``agentworld-mcp proxy --record`` by
``tests/ground_truth/record_session.py`` (the calls: ``sessions/*.json``). Every call goes through a real MCP client to
``agentworld-mcp serve`` over stdio; the recording is scored with the honest score.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld_mcp.models.deterministic.engines import arithmetic
from agentworld_mcp.sim2real.score import evaluate
from agentworld_mcp.world.catalog import Catalog
from agentworld_mcp.world.world import World

from .conftest import replayed, stdio_session

HERE = Path(__file__).resolve().parent
CATALOG = HERE / "catalogs" / "calculator_server.json"
RECORDING = HERE / "ground_truth" / "calculator_server.jsonl"


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _number_tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": list(properties)},
            "outputSchema": {"type": "object", "properties": {"result": {"type": "number"}}}}


NUMBERS = {"type": "array", "items": {"type": "number"}}
NUMBER = {"type": "number"}


async def test_a_calculator_session_scores_as_the_real_calculator_server_did() -> None:
    episodes, answers = await replayed(CATALOG, [RECORDING])
    report = evaluate("calculator", episodes, answers)
    identical = sum(ours["content"] == t.result["content"] and ours["isError"] == t.result["isError"]
                    for key, turns in episodes.items() for t, ours in zip(turns, answers[key]))
    assert report["calls"] == 18
    # Before the engine: 0.068 (expressions acknowledged with invented text); measured after: 1.000, 18/18.
    assert report["overall"]["score"] >= 0.99
    assert identical == 18


async def test_statistics_logarithms_and_unit_conversions_are_computed(tmp_path: Path) -> None:
    world = tmp_path / "maths.json"
    world.write_text(json.dumps({"name": "maths", "tools": [
        _number_tool("mean", "Calculate the mean of a list of numbers.", {"numbers": NUMBERS}),
        _number_tool("standard_deviation", "Calculate the standard deviation.", {"numbers": NUMBERS}),
        _number_tool("divide", "Divide one number by another.", {"a": NUMBER, "b": NUMBER}),
        _number_tool("percentage", "Percentage of a part relative to a whole, rounded to 2 decimal places.",
                     {"part": NUMBER, "whole": NUMBER}),
        _number_tool("logarithm", "Logarithm with adjustable precision.",
                     {"value": NUMBER, "base": NUMBER, "precision": {"type": "integer"}}),
        {"name": "convert_units", "description": "Convert a value between units.",
         "inputSchema": {"type": "object", "properties": {"value": NUMBER, "from_unit": {"type": "string"},
                                                          "to_unit": {"type": "string"}}}},
    ]}))
    async with stdio_session(str(world)) as session:
        mean = await session.call_tool("mean", {"numbers": [100, 95, 85, 90, 88, 92]})
        assert mean.structuredContent == {"result": 91.66666666666667}
        spread = await session.call_tool("standard_deviation", {"numbers": [100, 95, 85, 90, 88, 92]})
        assert spread.structuredContent == {"result": 4.85340659285368}  # population, as servers compute it
        assert (await session.call_tool("divide", {"a": 7, "b": 2})).structuredContent == {"result": 3.5}
        zero = await session.call_tool("divide", {"a": 7, "b": 0})
        assert zero.isError and _text(zero) == '{"error": "Cannot divide by zero"}'
        assert (await session.call_tool("percentage", {"part": 1, "whole": 3})).structuredContent == {"result": 33.33}
        log = await session.call_tool("logarithm", {"value": 980.0, "base": 20, "precision": 10})
        assert log.structuredContent == {"result": 2.299121531}  # ten digits asked for, a JSON number (the schema)
        miles = await session.call_tool("convert_units", {"value": 10, "from_unit": "km", "to_unit": "miles"})
        assert float(_text(miles)) == 10000 / 1609.344
        boiling = await session.call_tool("convert_units", {"value": 100, "from_unit": "celsius", "to_unit": "F"})
        assert float(_text(boiling)) == 212.0
        apples = await session.call_tool("convert_units", {"value": 1, "from_unit": "kg", "to_unit": "km"})
        assert apples.isError and _text(apples) == "Conversion from 'kg' to 'km' is not supported"


async def test_an_expression_is_evaluated_without_running_anything_else() -> None:
    async with stdio_session(str(CATALOG)) as session:
        async def calculate(expression: str) -> tuple[str, bool]:
            result = await session.call_tool("calculate", {"expression": expression})
            return _text(result), bool(result.isError)

        assert await calculate("__import__('os')") == (
            "Error executing tool calculate: Unknown identifier: __import__", True)
        assert (await calculate("__import__('os').system('touch /tmp/pwned')"))[0].startswith(
            "Error executing tool calculate: Unsupported operation: Attribute(")
        assert (await calculate("().__class__"))[1]
        assert await calculate("9 ** 9 ** 9") == ("Error executing tool calculate: result too large", True)
        assert await calculate("factorial(10 ** 9)") == ("Error executing tool calculate: result too large", True)
        assert (await calculate("'a' * 10"))[0].startswith("Error executing tool calculate: Unsupported operation")
        assert (await calculate("(" * 300 + "1" + ")" * 300))[1]
        assert await calculate("x" * 2000) == (
            "Error executing tool calculate: expression too long (at most 1000 characters)", True)
        assert await calculate("2 ** 0.5") == ("1.4142135623730951", False)


def test_tools_that_only_look_numeric_are_not_claimed() -> None:
    def spec(name: str, properties: dict[str, Any]) -> Any:
        tool = {"name": name, "description": "", "inputSchema": {"type": "object", "properties": properties}}
        return Catalog(World.model_validate({"name": "w", "tools": [tool]}))[name]

    world = World.model_validate({"name": "w", "tools": []})
    text = {"type": "string"}
    for name, properties in [("add_contact", {"name": text}), ("calculate_total_price", {"order_id": text}),
                             ("product", {"id": NUMBER}), ("get_average_rating", {"product_id": NUMBER}),
                             ("convert", {"amount": NUMBER, "from_currency": text, "to_currency": text}),
                             ("set_mode", {"mode": text}), ("add", {"a": NUMBER, "note": text})]:
        assert not arithmetic.claims(world, spec(name, properties)), name
    for name, properties in [("add", {"a": NUMBER, "b": NUMBER}), ("squareRoot", {"number": NUMBER}),
                             ("sum_values", {"numbers": NUMBERS}), ("calculate", {"expression": text}),
                             ("unit_conversion", {"value": NUMBER, "unit_in": text, "unit_out": text})]:
        assert arithmetic.claims(world, spec(name, properties)), name
