"""Screening of raw JSON-RPC messages before the MCP SDK parses them.

Every request gets the answer the JSON-RPC spec gives it, on stdio and HTTP alike:

* bytes that are not UTF-8, or not JSON: ``-32700 Parse error``;
* JSON nested deeper than :data:`MAX_DEPTH` (arguments included): ``-32700``, with the
  limit in the message (past it, parsers recurse until they fail, HTTP servers answer 500);
* a request for a method the MCP protocol does not have: ``-32601 Method not found``;
* JSON that is not a JSON-RPC message (``null``, ``42``, an id that is an object, ``true``,
  ``null`` or ``1.5``, no ``method`` and no ``result``...): ``-32600 Invalid Request``, with the
  id when it can be read, else id null; a batch (an array) is one ``-32600``: MCP 2025-06-18
  removed JSON-RPC batching;
* a message longer than :data:`MAX_MESSAGE_BYTES`: ``-32600``, naming the limit.

No MCP types here: the transport passes in the protocol's method names.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Collection
from typing import Any

JSONDict = dict[str, Any]

#: Deepest JSON nesting accepted in one message, counting the envelope (objects and arrays).
#: The MCP SDK's own validation gives up just past it; real tool calls stay far below.
MAX_DEPTH = 257
#: Largest message accepted, in bytes: an HTTP body, a line on stdio (the same limit on both).
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601

_TOKENS = re.compile(rb'[\[\]{}"\\]')


def rpc_error(request_id: Any, code: int, message: str) -> JSONDict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def nesting_depth(raw: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep ``raw`` (JSON text) nests, counted up to ``limit + 1`` (brackets inside strings ignored)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return 0  # cannot be deeper than the limit: skip the scan
    depth = deepest = 0
    in_string = False
    skip = -1
    for match in _TOKENS.finditer(raw):
        pos = match.start()
        if pos == skip:
            continue
        token = raw[pos : pos + 1]
        if in_string:
            if token == b"\\":
                skip = pos + 1  # the escaped character is not a token
            elif token == b'"':
                in_string = False
            continue
        if token == b'"':
            in_string = True
        elif token in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def screen(raw: bytes, methods: Collection[str]) -> tuple[Any, JSONDict | list[JSONDict] | None]:
    """``(parsed, None)`` for a message the SDK may handle, else ``(None, the error answer)``.

    A batch answers per member; members that are fine are left to the SDK only when all are.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, rpc_error(None, PARSE_ERROR, f"Parse error: the message is not valid UTF-8 ({exc.reason} at byte "
                                                  f"{exc.start})")
    # Parsed first (C speed), the depth measured on the result: three times faster on a large
    # body than scanning the text (docs/server.md, the HTTP body parsed twice).
    try:
        data = json.loads(text)
    except RecursionError:  # far past the limit: the parser gave up
        return None, _too_deep(None)
    except json.JSONDecodeError as exc:
        return None, (_too_deep(None) if nesting_depth(raw) > MAX_DEPTH
                      else rpc_error(None, PARSE_ERROR, f"Parse error: {exc}"))
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _deeper_than(data, MAX_DEPTH):
        # The id, so a client is never left waiting.
        return None, _too_deep(_id_of(data))
    problem = invalid_envelope(data) or _unknown_method(data, methods)
    return (data, None) if problem is None else (None, problem)


_JSON_TYPES = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}


def invalid_envelope(data: Any) -> JSONDict | None:
    """The ``-32600`` answer for parsed JSON that is not one JSON-RPC message MCP accepts, else None."""
    if isinstance(data, list):
        return rpc_error(None, INVALID_REQUEST, "Invalid request: a batch (JSON array); MCP (2025-06-18 and later) "
                                                "does not accept batches: send each message on its own")
    if not isinstance(data, dict):
        return rpc_error(None, INVALID_REQUEST, f"Invalid request: a JSON-RPC message is an object, not "
                                                f"{_JSON_TYPES.get(type(data), 'null')}")
    request_id = _id_of(data)
    if "id" in data and request_id is None and ("method" in data or data.get("id") is not None):
        # A response to a request we could not read may carry id null; nothing else may.
        return rpc_error(None, INVALID_REQUEST, f"Invalid request: the id must be a string or an integer, not "
                                                f"{json.dumps(data['id'])[:60]}")
    if data.get("jsonrpc") != "2.0":
        return rpc_error(request_id, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
    if "method" in data:
        if not isinstance(data["method"], str):
            return rpc_error(request_id, INVALID_REQUEST, 'Invalid request: "method" must be a string')
        if "params" in data and not isinstance(data["params"], dict):
            return rpc_error(request_id, INVALID_REQUEST, 'Invalid request: "params" must be an object')
        return None
    if "id" not in data or ("result" in data) == ("error" in data):
        return rpc_error(request_id, INVALID_REQUEST, 'Invalid request: a message needs a "method" (a request or '
                                                      'notification), or an "id" and one of "result" and "error"')
    return None


#: The id as the first member (after "jsonrpc") or the last of the top-level object: in
#: well-formed JSON, a member followed only by the final ``}`` belongs to the outermost object.
_HEAD_ID = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]')
_TAIL_ID = re.compile(rb',\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\Z')


def too_large(head: bytes, tail: bytes, size: int) -> JSONDict:
    """The answer to a message of ``size`` bytes past :data:`MAX_MESSAGE_BYTES`, read only in part.

    Its id, when it is the first or last member (where MCP clients put it), is found in the
    ``head`` or ``tail`` kept while the rest was skipped, so the client is not left waiting.
    """
    match = _HEAD_ID.match(head) or _TAIL_ID.search(tail)
    request_id = None
    if match is not None:
        with contextlib.suppress(ValueError):
            request_id = json.loads(match.group(1))
    return rpc_error(request_id, INVALID_REQUEST, f"Invalid request: the message is {size} bytes, larger than "
                                                  f"agentworld-mcp's limit of {MAX_MESSAGE_BYTES} bytes for one "
                                                  "message; send smaller arguments")


def _too_deep(request_id: Any) -> JSONDict:
    return rpc_error(request_id, PARSE_ERROR, f"Parse error: JSON nested deeper than {MAX_DEPTH} "
                                              "levels (agentworld-mcp's limit for one message)")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether parsed JSON nests past ``limit`` objects and arrays (the envelope is level 1)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _id_of(data: Any) -> Any:
    """The id if it is one MCP allows (a string or an integer, not a boolean), else None."""
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


def _unknown_method(data: Any, methods: Collection[str]) -> JSONDict | None:
    if not isinstance(data, dict) or "id" not in data or not isinstance(data.get("method"), str):
        return None  # responses, notifications and malformed requests: the SDK answers those
    method = data["method"]
    if method in methods:
        return None
    return rpc_error(data["id"], METHOD_NOT_FOUND, f"Method not found: {method}")


__all__ = ["INVALID_REQUEST", "MAX_DEPTH", "MAX_MESSAGE_BYTES", "METHOD_NOT_FOUND", "PARSE_ERROR", "invalid_envelope",
           "nesting_depth", "rpc_error", "screen", "too_large"]
