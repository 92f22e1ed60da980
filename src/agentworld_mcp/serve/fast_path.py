"""The lean HTTP path: a single ``tools/call`` POST answered as ``application/json`` in one step.

The MCP SDK's streamable-HTTP transport answers every POST through a server session: in
stateless mode it builds one per request (a session object, a task group, memory streams),
and in either mode the message goes through those streams to a task and back. For the call
RL rollouts make thousands of times, a ``tools/call`` of a client that needs nothing else
(a stateless server, or a session that already exists), this app answers it directly: the
request validated with the SDK's own model and answered by the same handler the SDK's
server would call (both handed in by :mod:`agentworld_mcp.serve.transport`, which alone
imports the SDK), the JSON-RPC response sent as one ``application/json`` body, as the spec
allows. Anything else (``initialize``, notifications, other methods, a message the SDK's
model refuses, a header the SDK would refuse, an unknown session) goes to ``fallback``:
the SDK's session manager, which answers it as before.

It sits behind :class:`~agentworld_mcp.serve.http_guard.HttpGuard`, so the Host, Origin and
token checks, the body limit and the screening have run before it sees a request (the
guard hands over the message it parsed, under :data:`MESSAGE_KEY`); the connection limits
are the HTTP protocol's, below both; the deadline and the result cap are the handler's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Collection
from contextlib import AbstractAsyncContextManager
from typing import Any
from urllib.parse import parse_qs

from ..state.episode import EPISODE_HEADER, EPISODE_QUERY

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
#: Answers a tools/call message (with the episode the HTTP request names, or None): the
#: response's JSON bytes, or None when the SDK's path should answer it instead.
Answer = Callable[[dict[str, Any], "str | None"], Awaitable["bytes | None"]]
#: For a session id (None: the request named none), a context holding that session busy while
#: the call is answered, or None when the request is not the fast path's to answer.
SessionGate = Callable[["str | None"], "AbstractAsyncContextManager[Any] | None"]

#: Where the guard leaves the message it parsed, in the request's ASGI scope.
MESSAGE_KEY = "agentworld.message"
_SESSION = b"mcp-session-id"
_VERSION = b"mcp-protocol-version"
_EPISODE = EPISODE_HEADER.lower().encode()


class FastToolCalls:
    """ASGI app: a single tools/call POST to ``mcp_path`` answered directly, the rest by ``fallback``."""

    def __init__(self, fallback: ASGIApp, *, mcp_path: str, answer: Answer, session_gate: SessionGate,
                 protocol_versions: Collection[str]) -> None:
        self.fallback = fallback
        self.mcp_path = mcp_path.rstrip("/")
        self.answer = answer
        self.session_gate = session_gate
        self.versions = frozenset(protocol_versions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = scope.get(MESSAGE_KEY)
        if (scope["type"] != "http" or not isinstance(message, dict) or message.get("method") != "tools/call"
                or "id" not in message or scope.get("method") != "POST"
                or scope.get("path", "").rstrip("/") != self.mcp_path):
            await self.fallback(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        session = headers.get(_SESSION)
        gate = self.session_gate(session.decode("latin-1") if session is not None else None)
        if gate is None or not self._acceptable(headers):
            await self.fallback(scope, receive, send)  # the SDK says what is wrong (404, 406, 415, 400)
            return
        async with gate:
            body = await self.answer(message, _episode(headers, scope.get("query_string", b"")))
        if body is None:
            await self.fallback(scope, receive, send)
            return
        out = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if session is not None:
            out.append((_SESSION, session))
        await send({"type": "http.response.start", "status": 200, "headers": out})
        await send({"type": "http.response.body", "body": body})

    def _acceptable(self, headers: dict[bytes, bytes]) -> bool:
        """What the SDK's transport checks before it reads a message: JSON in, JSON accepted, a known version."""
        kind = headers.get(b"content-type", b"").split(b";")[0]
        if b"application/json" not in (part.strip() for part in kind.split(b",")):
            return False
        accepted = (part.strip() for part in headers.get(b"accept", b"").split(b","))
        if not any(part.startswith(b"application/json") for part in accepted):
            return False
        version = headers.get(_VERSION)
        return version is None or version.decode("latin-1") in self.versions


def _episode(headers: dict[bytes, bytes], query: bytes) -> str | None:
    """The episode the HTTP request names (header first, then the query string), as the SDK's path reads it."""
    named = headers.get(_EPISODE)
    if named:
        return named.decode("latin-1")
    if query:
        values = parse_qs(query.decode("latin-1")).get(EPISODE_QUERY)
        if values:
            return values[-1]  # the last one, as Starlette's query_params reads it
    return None


@contextlib.asynccontextmanager
async def no_session() -> Any:
    """The gate of a stateless server: nothing to hold."""
    yield


__all__ = ["MESSAGE_KEY", "FastToolCalls", "no_session"]
