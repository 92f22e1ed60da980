"""What a tool call returns, independent of any transport.

The MCP server turns a :class:`ToolResult` into ``mcp.types.CallToolResult``; the
LangGraph adapter into a ``ToolMessage``. Keeping this type free of the SDK keeps the
engine usable (and testable) without a protocol hop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import SimulatorFailedError

JSONDict = dict[str, Any]

#: ``_meta`` key set on results produced by the simulator itself, not by the simulated tool.
SIMULATOR_ERROR_META = "agentworld/simulator_error"


def dump_json(value: Any) -> str:
    """The one JSON rendering used for text content (stable, human-readable, unicode kept)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def item_blocks(output_schema: JSONDict | None, structured: Any, text: str) -> list[str] | None:
    """The text blocks a list result is printed in by the MCP Python SDK's FastMCP (``{"result": [...]}``
    under an outputSchema of that one field, without jlowin/fastmcp's wrap marker): one block per item, a
    string as it is, anything else as JSON indented by 2. None unless ``text`` is exactly those blocks joined
    (a text some answer worded otherwise stays one block), or the list is empty."""
    props = (output_schema or {}).get("properties") or {}
    if set(props) != {"result"} or (output_schema or {}).get("x-fastmcp-wrap-result") is True \
            or not isinstance(structured, dict) or not isinstance(structured.get("result"), list) \
            or not structured["result"]:
        return None
    blocks = [item if isinstance(item, str) else dump_json(item) for item in structured["result"]]
    return blocks if len(blocks) > 1 and "\n".join(blocks) == text else None


@dataclass(slots=True)
class ToolResult:
    content: list[JSONDict]
    structured: JSONDict | None = None
    is_error: bool = False
    meta: JSONDict = field(default_factory=dict)

    @classmethod
    def from_text(cls, text: str, *, is_error: bool = False, meta: JSONDict | None = None) -> ToolResult:
        return cls([{"type": "text", "text": text}], None, is_error, meta or {})

    @classmethod
    def from_json(cls, value: Any, *, structured: bool, is_error: bool = False) -> ToolResult:
        text = value if isinstance(value, str) else dump_json(value)
        return cls([{"type": "text", "text": text}], value if structured else None, is_error)

    @property
    def text(self) -> str:
        return "\n".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def is_simulator_error(self) -> bool:
        return SIMULATOR_ERROR_META in self.meta

    def raise_for_simulator_error(self, tool: str) -> ToolResult:
        """Raise :class:`SimulatorFailedError` if the simulator (not the tool) failed; else ``self``.

        In process (LangGraph, pytest) a broken simulator must never pass for the tool's behaviour.
        """
        if self.is_simulator_error:
            raise SimulatorFailedError(tool, str(self.meta.get(SIMULATOR_ERROR_META)), self.text)
        return self

    def to_dict(self) -> JSONDict:
        """The result as MCP's ``CallToolResult`` JSON."""
        out: JSONDict = {"content": self.content, "isError": self.is_error}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        if self.meta:
            out["_meta"] = self.meta
        return out

    @classmethod
    def from_dict(cls, data: JSONDict) -> ToolResult:
        return cls(
            list(data.get("content") or []),
            data.get("structuredContent"),
            bool(data.get("isError")),
            dict(data.get("_meta") or {}),
        )
