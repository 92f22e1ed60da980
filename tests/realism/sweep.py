"""Every tool of a catalog, called with generated valid arguments, over stdio.

One ``agentworld-mcp serve CATALOG.json`` process per catalog; each tool gets ``CALLS``
calls whose arguments are generated from its ``inputSchema`` with a seed
(:func:`agentworld_mcp.world.values.generate`). What can go wrong is counted by kind:

* ``protocol``: a JSON-RPC error instead of a tool result;
* ``hang``: no answer within ``CALL_TIMEOUT_S``;
* ``schema``: ``structuredContent`` that does not validate against the ``outputSchema``
  (checked here with jsonschema);
* ``simulator``: an ``isError`` result saying the simulator itself failed (a bug the engine
  caught and named, so the client got a tool error instead of a JSON-RPC error).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from mcp import types
from mcp.shared.exceptions import McpError

from agentworld_mcp.world import values

from ..conftest import stdio_session
from .harness import catalog_path

CALLS = 10
CALL_TIMEOUT_S = 10.0
#: How the engine words a failure of its own (pipeline/engine.py), as opposed to the simulated tool's.
SIMULATOR_ERROR = "[agentworld-mcp simulator error"
JSONDict = dict[str, Any]


@dataclass(frozen=True)
class Problem:
    kind: str  # protocol | hang | schema | simulator
    tool: str
    arguments: JSONDict
    detail: str

    def __str__(self) -> str:
        args = json.dumps(self.arguments, default=str)
        return f"{self.kind}: {self.tool}({args[:200]}): {self.detail[:300]}"


@dataclass
class SweepReport:
    catalog: str
    calls: int = 0
    tool_errors: int = 0  # isError results (not found, refused): answers, not problems
    #: calls whose generated arguments do not validate against the inputSchema (a limit of
    #: values.generate, e.g. patterns with groups): sent all the same, refused as invalid
    invalid_arguments: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(p.kind == kind for p in self.problems)

    def summary(self) -> str:
        counts = Counter(p.kind for p in self.problems)
        return (f"{self.catalog}: {self.calls} calls, {counts['protocol']} protocol errors, "
                f"{counts['hang']} hangs, {counts['schema']} schema-invalid structuredContent, "
                f"{counts['simulator']} simulator errors "
                f"({self.tool_errors} isError answers; {sum(self.invalid_arguments.values())} calls with arguments "
                f"the generator could not make valid)")


def tools_of(catalog: str) -> list[JSONDict]:
    return list(json.loads(catalog_path(catalog).read_text())["tools"])


def arguments_for(catalog: str, tool: JSONDict, index: int) -> JSONDict:
    """Seeded valid arguments: the same catalog, tool and index always give the same call."""
    schema = tool.get("inputSchema") or {"type": "object"}
    rng = random.Random(f"sweep:{catalog}:{tool['name']}:{index}")
    generated = values.generate(schema, rng, tool["name"], root=schema)
    return generated if isinstance(generated, dict) else {}


async def sweep(catalog: str, only: set[str] | None = None, skip: set[str] | None = None, *,
                calls: int = CALLS, make: Callable[[str, JSONDict, int], JSONDict] | None = None) -> SweepReport:
    """``calls`` calls to every tool of ``catalog`` (those in ``only``, less ``skip``), with the
    arguments ``make`` gives (default: :func:`arguments_for`, valid generated ones)."""
    make = make or arguments_for
    report = SweepReport(catalog)
    tools = [t for t in tools_of(catalog)
             if (only is None or t["name"] in only) and t["name"] not in (skip or set())]
    async with stdio_session(str(catalog_path(catalog))) as session:
        for tool in tools:  # a tool's calls go out together, as a busy client sends them
            sent = [make(catalog, tool, index) for index in range(calls)]
            report.calls += len(sent)
            checker = jsonschema.validators.validator_for(tool["inputSchema"])(tool["inputSchema"])
            report.invalid_arguments[tool["name"]] += sum(not checker.is_valid(a) for a in sent)
            schema = tool.get("outputSchema")
            validator = jsonschema.validators.validator_for(schema)(schema) if schema else None
            outcomes = await asyncio.gather(*(_call(session, tool, arguments, validator) for arguments in sent))
            report.problems.extend(p for p in outcomes if isinstance(p, Problem))
            report.tool_errors += sum(p is True for p in outcomes)
    return report


async def _call(session: Any, tool: JSONDict, arguments: JSONDict, validator: Any) -> Problem | bool:
    """A problem, or whether the answer was an ``isError`` result."""
    name = tool["name"]
    # The request itself, not ClientSession.call_tool: that one re-lists the tools for any tool
    # not on the first page and recompiles the outputSchema on every call (seconds on 198-tool
    # catalogs); the schema is checked below, with one compiled validator per tool.
    request = types.ClientRequest(types.CallToolRequest(params=types.CallToolRequestParams(name=name,
                                                                                           arguments=arguments)))
    try:
        result = await asyncio.wait_for(session.send_request(request, types.CallToolResult), CALL_TIMEOUT_S)
    except TimeoutError:
        return Problem("hang", name, arguments, f"no answer in {CALL_TIMEOUT_S:.0f} s")
    except McpError as exc:
        return Problem("protocol", name, arguments, str(exc))
    text = " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
    if result.isError and text.startswith(SIMULATOR_ERROR):
        return Problem("simulator", name, arguments, text)
    if validator is not None and not result.isError:
        if result.structuredContent is None:
            return Problem("schema", name, arguments, "no structuredContent though the tool has an outputSchema")
        error = jsonschema.exceptions.best_match(validator.iter_errors(result.structuredContent))
        if error is not None:
            return Problem("schema", name, arguments, error.message)
    return bool(result.isError)
