"""The HTTP server's front door: who may call, from where, and what a message may look like.

One ASGI middleware in front of the MCP endpoint and the admin routes:

* ``Authorization: Bearer TOKEN`` when the server has a token (``--auth-token`` or
  ``AGENTWORLD_AUTH_TOKEN``): 401 otherwise;
* the ``Host`` header must name an allowed host (loopback names by default, the same rule
  as the MCP SDK's DNS-rebinding protection): 421 otherwise; an ``Origin``, when a browser
  sends one, must be allowed (loopback origins by default): 403 otherwise;
* admin routes refuse cross-site requests outright (``Sec-Fetch-Site: cross-site``) and
  the bodies a page may send cross-site without a preflight (forms, ``text/plain``), so a
  page on another site cannot reset an episode;
* WebSocket upgrades (OpenEnv's ``/ws``) pass the same Host, Origin and token checks; a refused
  upgrade is answered with the same status when the server supports denial responses, else 403;
* every POST to the MCP endpoint is screened (:mod:`agentworld_mcp.serve.screening`) and bounded
  in size: a parse error, a nesting past the limit or an unknown method is answered with
  the JSON-RPC error and HTTP 400, never a 500 (when ``methods`` is given: OpenEnv's app has
  routes of its own and is not screened).

Host names are compared whole: ``127.0.0.1.evil.com`` is not loopback, ``127.0.0.2`` is.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import Any
from urllib.parse import urlsplit

from .fast_path import MESSAGE_KEY
from .screening import MAX_MESSAGE_BYTES, screen

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
#: Content types a browser sends cross-site without a CORS preflight (a form, a text/plain fetch).
_SIMPLE_CONTENT_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
#: Largest request body accepted on the MCP endpoint.
MAX_BODY = MAX_MESSAGE_BYTES  # one limit for a message, over HTTP and stdio alike


#: How many distinct Host and Origin values a guard remembers its verdict on: a client names the
#: same few on every request, and a stranger sending a new one each time cannot grow the memo.
_VERDICTS_KEPT = 64
#: A Host header: a name or dotted quad, or a bracketed IPv6 literal, then an optional port.
_HOST_HEADER = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?")


def is_loopback(host: str) -> bool:
    """``localhost``, or a literal loopback address (127.0.0.0/8, ``::1``, bracketed or not).

    The whole name is compared: a DNS name that merely starts with ``127.`` can point anywhere.
    """
    name = host.strip().lower()
    if name == "localhost":
        return True
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header as (name, port); IPv6 names keep their brackets. None when malformed."""
    match = _HOST_HEADER.fullmatch(value.strip().lower())
    if match is None:
        return None
    name = f"[{match['v6']}]" if match["v6"] else match["name"]
    return name, int(match["port"]) if match["port"] else None


class HttpGuard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        methods: Collection[str] | None,
        mcp_path: str = "/mcp",
        admin_prefix: str = "/admin",
        token: str | None = None,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.methods = frozenset(methods) if methods is not None else None
        self.mcp_path = mcp_path.rstrip("/")
        self.admin_prefix = admin_prefix
        self.token = token.encode() if token else None
        self.hosts = {h.lower() for h in allowed_hosts}
        self.origins = {o.lower().rstrip("/") for o in allowed_origins}
        # Verdicts by header value, so a Host is parsed as an address once, not on every request:
        # pure functions of the value and the settings above, which never change.
        self._host_verdicts: dict[str, bool] = {}
        self._origin_verdicts: dict[str, bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, message, extra = refusal
            if scope["type"] == "websocket":
                await _deny_websocket(scope, send, status, {"error": message}, extra)
            else:
                await _respond(send, status, {"error": message}, extra)
            return
        path = scope.get("path", "").rstrip("/")
        if self.methods is not None and path == self.mcp_path and scope.get("method") == "POST":
            body = await _read_body(receive, MAX_BODY)
            if body is None:
                await _respond(send, 413, {"error": f"request body larger than {MAX_BODY} bytes"})
                return
            message, problem = screen(body, self.methods)
            if problem is not None:
                await _respond(send, 400, problem)
                return
            scope[MESSAGE_KEY] = message  # parsed once: the lean tools/call path answers from it
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        host = headers.get("host", "")
        if not self._host_allowed(host):
            return 421, f"host {host!r} is not allowed; start the server with --allow-host {_bare(host)}", []
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            return 403, f"origin {origin!r} is not allowed; start the server with --allow-origin {origin}", []
        if self.token is not None:
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), self.token):
                return 401, "missing or wrong bearer token (Authorization: Bearer TOKEN)", [
                    (b"www-authenticate", b'Bearer realm="agentworld-mcp"')]
        if scope["type"] == "http" and scope.get("path", "").startswith(self.admin_prefix):
            if headers.get("sec-fetch-site") == "cross-site":
                return 403, "cross-site requests to admin routes are refused", []
            unsafe = scope.get("method") not in ("GET", "HEAD", "OPTIONS")
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if unsafe and kind in _SIMPLE_CONTENT_TYPES:  # what a cross-site page may send without asking
                return 415, f"admin routes refuse {kind} bodies; send application/json or no body", []
        return None

    def _host_allowed(self, host: str) -> bool:
        return _remembered(self._host_verdicts, host, self._judge_host)

    def _origin_allowed(self, origin: str) -> bool:
        return _remembered(self._origin_verdicts, origin, self._judge_origin)

    def _judge_host(self, host: str) -> bool:
        if "*" in self.hosts:
            return True
        parsed = split_host(host)
        if parsed is None:  # empty, or not a host at all (``evil.com@127.0.0.1``, a path...)
            return False
        name, _ = parsed
        return is_loopback(name) or name in self.hosts or host.strip().lower() in self.hosts

    def _judge_origin(self, origin: str) -> bool:
        if "*" in self.origins:
            return True
        lowered = origin.lower().rstrip("/")
        if lowered in self.origins:
            return True
        parts = urlsplit(lowered)
        if parts.scheme not in ("http", "https") or parts.username is not None or parts.password is not None:
            return False
        return is_loopback(parts.hostname or "")


def _remembered(verdicts: dict[str, bool], value: str, judge: Callable[[str], bool]) -> bool:
    """``judge(value)``, remembered for the first :data:`_VERDICTS_KEPT` values seen."""
    verdict = verdicts.get(value)
    if verdict is None:
        verdict = judge(value)
        if len(verdicts) < _VERDICTS_KEPT:
            verdicts[value] = verdict
    return verdict


def _bare(host: str) -> str:
    parsed = split_host(host)
    return parsed[0] if parsed else "HOST"


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body already read, then the real channel (which reports the client's disconnect)."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _deny_websocket(scope: Scope, send: Send, status: int, payload: Any,
                          extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """Refuse an upgrade before accepting it: with ``status`` where the server can say so, else 403."""
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


async def _respond(send: Send, status: int, payload: Any, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


__all__ = ["HttpGuard", "LOOPBACK_HOSTS", "MAX_BODY", "is_loopback", "split_host"]
