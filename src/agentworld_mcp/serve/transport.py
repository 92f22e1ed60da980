"""Everything that touches the MCP Python SDK lives here.

The SDK is pinned ``>=1.24,<2`` (langchain-mcp-adapters needs ``<2``); keeping every SDK
call in this one module makes the move to 2.x a one-file change. The engine and the
backends never see MCP types.

Two departures from a stock SDK server, both on purpose:

* tools/call is registered as a raw request handler, not through ``@server.call_tool``:
  the decorator rebuilds a jsonschema validator on every call (most of a small tool's
  round trip); the engine validates with validators compiled once per world. It also
  lets an unknown tool be the protocol's error (-32602) rather than an ``isError`` result.
* stdio reads messages with a fallback parser: the SDK's parser gives up on arguments
  nested ~200 deep and drops the message, so the client would wait forever. Every request
  here gets an answer, malformed ones included (``null``, a batch, an id that is an object...),
  and a line longer than :data:`~agentworld_mcp.serve.screening.MAX_MESSAGE_BYTES` is refused
  without being held in memory whole.
* a tool answer larger than :data:`MAX_RESULT_BYTES` becomes a simulator-error result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import json
import logging
import math
import sys
import typing
from collections.abc import AsyncIterator, Awaitable, Callable
from io import TextIOWrapper
from typing import Any

import anyio
import httpx
import mcp.types as types
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from pydantic import BaseModel, RootModel, ValidationError

from .. import __version__
from ..pipeline.engine import Simulator
from ..state.episode import EPISODE_HEADER, EPISODE_QUERY, META_EPISODE, META_PERTURB
from ..state.result import SIMULATOR_ERROR_META
from ..errors import ConfigError, InjectedProtocolError, UnknownToolError
from .screening import MAX_MESSAGE_BYTES, METHOD_NOT_FOUND, screen, too_large

if typing.TYPE_CHECKING:
    from .http_limits import ConnectionLimits

log = logging.getLogger("agentworld_mcp.server")
JSONDict = dict[str, Any]

TOOLS_PAGE_SIZE = 500
#: Largest tool answer sent, in bytes of JSON: four times the largest message the server reads,
#: because an answer echoes its arguments (a created record, its text block, a structured copy).
#: A bigger simulated answer becomes a simulator-error result: a cut answer would pass for the
#: tool's own, and cut JSON would not match the tool's output schema.
MAX_RESULT_BYTES = 4 * MAX_MESSAGE_BYTES


def build_server(sim: Simulator, *, default_episode: str | None = None) -> Server:
    """A low-level MCP server whose tools are the world's catalog, answered by ``sim``."""
    world = sim.world
    server: Server = Server(f"agentworld-{world.name}", version=__version__, instructions=world.scenario or None)
    for t in world.tools:  # a tool the SDK's model rejects fails here, at start-up, not in a client
        types.Tool.model_validate(t)
    tools = world.tools

    async def list_tools(request: types.ListToolsRequest | None) -> types.ServerResult:
        cursor = request.params.cursor if request is not None and request.params is not None else None
        try:
            start = int(cursor) if cursor else 0
        except ValueError:
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=f"Invalid cursor: {cursor}")) from None
        page: JSONDict = {"tools": tools[start : start + TOOLS_PAGE_SIZE]}
        if start + TOOLS_PAGE_SIZE < len(tools):
            page["nextCursor"] = str(start + TOOLS_PAGE_SIZE)
        return _Verbatim(page)  # type: ignore[return-value]

    call = tool_caller(sim, default_episode=default_episode)

    async def call_tool(request: types.CallToolRequest) -> types.ServerResult:
        result = await call(request, _episode_from_http(server))
        return types.ServerResult(_bounded(request.params.name, result)[0])

    _register(server, types.ListToolsRequest, list_tools)
    _register(server, types.CallToolRequest, call_tool)
    return server


ToolCaller = Callable[[types.CallToolRequest, "str | None"], Awaitable[types.CallToolResult]]


def tool_caller(sim: Simulator, *, default_episode: str | None = None) -> ToolCaller:
    """The tools/call handler: a validated request (and the episode its HTTP request names) to its
    result, checked by the SDK's model (the size bound, :func:`_bounded`, comes after).

    The SDK's server calls it (:func:`build_server`), and so does the lean HTTP path
    (:func:`_fast_answer`): one handler, one answer, whichever path a call takes.
    """

    async def call(request: types.CallToolRequest, http_episode: str | None) -> types.CallToolResult:
        params = request.params
        meta = (params.meta.model_extra or {}) if params.meta is not None else {}
        episode = meta.get(META_EPISODE)
        if episode is None:
            episode = http_episode or default_episode
        try:
            result = await sim.call(params.name, params.arguments or {}, episode=episode, perturb=meta.get(META_PERTURB))
        except (UnknownToolError, ConfigError) as exc:  # the request's own fault: a tool, episode or policy
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))) from None
        except InjectedProtocolError as exc:  # a perturbation asked for a JSON-RPC error
            raise McpError(types.ErrorData(code=exc.code, message=exc.message)) from None
        return types.CallToolResult.model_validate(result.to_dict())

    return call


def _result_json(result: types.CallToolResult) -> bytes:
    """The result's JSON as the SDK sends it (its model's serializer, aliases, no nulls)."""
    return result.__pydantic_serializer__.to_json(result, by_alias=True, exclude_none=True)


def _bounded(tool: str, result: types.CallToolResult) -> tuple[types.CallToolResult, bytes]:
    """``result`` and its JSON, or the simulator-error result saying it is larger than
    :data:`MAX_RESULT_BYTES`, and that one's JSON. The size measured is that of the JSON sent."""
    encoded = _result_json(result)
    size = len(encoded)
    if size <= MAX_RESULT_BYTES:
        return result, encoded
    log.error("the answer to %s is %d bytes, past the %d-byte limit: sent as a simulator error", tool, size,
              MAX_RESULT_BYTES)
    text = (f"[agentworld-mcp simulator error: result_too_large] the simulated answer to {tool} is {size} bytes, "
            f"larger than the limit of {MAX_RESULT_BYTES} bytes for one tool result; ask for less (a narrower "
            "query, a smaller page). (This error comes from the simulator, not from the simulated tool.)")
    refused = types.CallToolResult.model_validate({"content": [{"type": "text", "text": text}], "isError": True,
                                                   "_meta": {SIMULATOR_ERROR_META: "result_too_large"}})
    return refused, _result_json(refused)


def _register(server: Server, request_type: type, handler: Callable[[Any], Any]) -> None:
    """Install a raw request handler (the SDK 1.x registration point its decorators use too).

    The decorators (``@server.list_tools()``, ``@server.call_tool()``) are bypassed on purpose:
    they would reorder tool keys, rebuild a validator per call and turn an unknown tool into an
    ``isError`` result. MCP SDK 2.x: handlers are registered on the server's constructor
    (``on_call_tool=...``) and the lowlevel module moves; this function and :func:`build_server`
    are what changes, nothing outside this module.
    """
    server.request_handlers[request_type] = handler


def _episode_from_http(server: Server) -> str | None:
    try:
        request = server.request_context.request
    except LookupError:
        return None
    if request is None or not hasattr(request, "headers"):
        return None
    return request.headers.get(EPISODE_HEADER) or request.query_params.get(EPISODE_QUERY) or None


class _Verbatim(RootModel[JSONDict]):
    """A result sent exactly as given: the SDK's ``Tool`` model would reorder each tool's keys
    (and a world's tools are served byte-for-byte as loaded, see ``tools/list``)."""


class _RawToolsPage(BaseModel):
    """A tools/list page kept as the server's JSON objects (key order and unknown fields)."""

    tools: list[JSONDict]
    nextCursor: str | None = None


def _init_options(server: Server) -> InitializationOptions:
    return server.create_initialization_options(NotificationOptions(tools_changed=False))


# -- stdio -----------------------------------------------------------------------------


async def serve_stdio(sim: Simulator, *, default_episode: str | None = None) -> None:
    server = build_server(sim, default_episode=default_episode)
    async with _stdio_streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, _init_options(server))


#: Every request method of the MCP protocol (anything else is -32601 Method not found).
CLIENT_METHODS = frozenset(
    m.model_fields["method"].annotation.__args__[0]
    for m in typing.get_args(types.ClientRequest.model_fields["root"].annotation)
)


def _parse_message(raw: bytes) -> types.JSONRPCMessage | JSONDict:
    """A JSON-RPC message, or the JSON-RPC error to answer it with."""
    try:  # the SDK's parser: fast, but limited in nesting depth
        message = types.JSONRPCMessage.model_validate_json(raw)
    except Exception:  # not UTF-8, not JSON, nested too deep or not JSON-RPC: screening says which
        message = None
    if message is not None:
        root = message.root
        if isinstance(root, types.JSONRPCRequest) and root.method not in CLIENT_METHODS:
            return _rpc_error(root.id, METHOD_NOT_FOUND, f"Method not found: {root.method}")
        if not (isinstance(root, types.JSONRPCNotification) and "id" in (root.model_extra or {})):
            return message
        # else a request whose id is not a string or an integer: the SDK takes it for a notification
    data, problem = screen(raw, CLIENT_METHODS)
    if problem is not None:
        return problem  # type: ignore[return-value]
    try:
        return types.JSONRPCMessage.model_validate(data)
    except Exception as exc:
        request_id = data.get("id") if isinstance(data, dict) else None
        return _rpc_error(request_id, types.INVALID_REQUEST, f"Invalid request: {str(exc).splitlines()[0]}")


def _rpc_error(request_id: Any, code: int, message: str) -> JSONDict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


#: How much of an oversized line is read at a time while it is skipped.
_SKIP_CHUNK = 1024 * 1024


async def _bounded_lines(stdin: typing.BinaryIO) -> AsyncIterator[bytes | JSONDict]:
    """The lines of ``stdin``, each at most :data:`MAX_MESSAGE_BYTES` long; for a longer one, its
    ``-32600`` answer: the rest is read in chunks and dropped, so memory stays bounded."""
    while True:
        line = await anyio.to_thread.run_sync(stdin.readline, MAX_MESSAGE_BYTES + 1)
        if not line:
            return
        if len(line) <= MAX_MESSAGE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        head, tail, size = line[:4096], line[-512:], len(line)
        del line
        while not tail.endswith(b"\n"):
            chunk = await anyio.to_thread.run_sync(stdin.readline, _SKIP_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            tail = (tail + chunk)[-512:]
        stripped = tail.rstrip(b"\r\n")
        yield too_large(head, stripped, size - (len(tail) - len(stripped)))


@contextlib.asynccontextmanager
async def _stdio_streams() -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[Any]]]:
    stdin = sys.stdin.buffer  # bytes: invalid UTF-8 is a parse error, not a replaced character
    stdout = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    out_lock = anyio.Lock()

    async def emit(text: str) -> None:
        async with out_lock:
            await stdout.write(text + "\n")
            await stdout.flush()

    async def reader() -> None:
        async with read_writer:
            async for line in _bounded_lines(stdin):
                if isinstance(line, bytes) and not line.strip():
                    continue
                message = _parse_message(line) if isinstance(line, bytes) else line
                if isinstance(message, dict):  # every malformed message is answered, with id null if need be
                    log.warning("answering an unparsable message: %s", message["error"]["message"][:200])
                    await emit(json.dumps(message))
                    continue
                await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                await emit(session_message.message.model_dump_json(by_alias=True, exclude_none=True))

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_stream, write_stream
        tg.cancel_scope.cancel()


# -- streamable HTTP -------------------------------------------------------------------


def http_app(
    sim: Simulator,
    *,
    default_episode: str | None = None,
    path: str = "/mcp",
    extra_routes: list[Any] | None = None,
    auth_token: str | None = None,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    stateless: bool = False,
    on_shutdown: Callable[[], Awaitable[None]] | None = None,
    session_idle_timeout: float | None = 300.0,
    max_sessions: int | None = 1000,
    freeze_heap: bool = False,
) -> Any:
    """A Starlette app serving the MCP endpoint at ``path`` (plus optional extra routes).

    ``stateless``: no MCP session kept between requests (any worker process can answer any
    request; episodes are chosen per request, never per process). Behind :class:`~agentworld_mcp.serve.http_guard.HttpGuard`: bearer token, Host and Origin checks,
    admin routes closed to cross-site requests, every message screened. ``freeze_heap``: once
    started, keep the heap built so far out of the garbage collector's scans
    (:func:`~agentworld_mcp.serve.heap.freeze_startup_heap`); for a process that is only this
    server (``serve`` sets it), never for an app embedded in someone else's process.
    """
    from .http_guard import HttpGuard

    _quiet_disconnects()

    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    from .fast_path import FastToolCalls
    from .heap import freeze_startup_heap

    server = build_server(sim, default_episode=default_episode)
    manager = _session_manager(server, stateless=stateless, session_idle_timeout=session_idle_timeout,
                               max_sessions=max_sessions, json_response=True)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        try:
            async with manager.run():
                if freeze_heap:  # the p99: full collections stop scanning what start-up built
                    freeze_startup_heap()
                yield
        finally:
            if on_shutdown is not None:
                await on_shutdown()

    routes: list[Any] = [*(extra_routes or []), Route(path, endpoint=_Asgi(handle), methods=["GET", "POST", "DELETE"])]
    routes.append(Mount(path, app=handle))
    app = Starlette(routes=routes, lifespan=lifespan)
    fast = FastToolCalls(
        app,  # type: ignore[arg-type]  # Starlette types its scopes as MutableMapping
        mcp_path=path, answer=_fast_answer(tool_caller(sim, default_episode=default_episode)),
        session_gate=_session_gate(manager, session_idle_timeout), protocol_versions=SUPPORTED_PROTOCOL_VERSIONS,
    )
    guarded = HttpGuard(
        fast, methods=CLIENT_METHODS, mcp_path=path, token=auth_token,
        allowed_hosts=allowed_hosts or (), allowed_origins=allowed_origins or (),
    )
    guarded.router = app.router  # type: ignore[attr-defined]  # lifespan and routes stay reachable
    return guarded


def _fast_answer(call: ToolCaller) -> Callable[[JSONDict, str | None], Awaitable[bytes | None]]:
    """The lean path's answer to a screened tools/call message: the JSON-RPC response's bytes as the
    SDK's server would send them, or None (a message the SDK's model refuses: the SDK answers it)."""

    async def answer(message: JSONDict, http_episode: str | None) -> bytes | None:
        try:
            request = types.CallToolRequest.model_validate({"method": message["method"], "params": message.get("params")})
        except ValidationError:
            return None
        request_id = message["id"]
        reply: types.JSONRPCResponse | types.JSONRPCError
        try:
            result, encoded = _bounded(request.params.name, await call(request, http_episode))
            if type(request_id) in (int, str):  # noqa: E721 - a bool id is the model's to judge
                # The bytes the SDK's JSONRPCResponse would make, without turning the result back into
                # a dict and serialising it a second time (a tenth of the lean path's own cost).
                return b'{"jsonrpc":"2.0","id":' + pydantic_core.to_json(request_id) + b',"result":' + encoded + b"}"
            reply = types.JSONRPCResponse(jsonrpc="2.0", id=request_id,
                                          result=result.model_dump(by_alias=True, mode="json", exclude_none=True))
        except McpError as exc:
            reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=exc.error)
        except Exception as exc:  # what the SDK's server answers for a handler that fails (the engine does not)
            log.exception("tools/call failed outside the simulator")
            reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=0, message=str(exc)))
        return types.JSONRPCMessage(reply).model_dump_json(by_alias=True, exclude_none=True).encode()

    return answer


def _session_gate(manager: Any, idle_timeout: float | None) -> Callable[[str | None], Any]:
    """Which requests the lean path may answer, by session: any, on a stateless server; on a stateful
    one, only those of a live session, which is held busy meanwhile as the SDK holds it (its idle
    countdown stopped, restarted when its last request ends). Anything else is the SDK's to answer
    (an unknown session: 404; no session: a new one must begin with initialize)."""
    from .fast_path import no_session

    if manager.stateless:
        return lambda session_id: no_session()

    def gate(session_id: str | None) -> Any:
        transport = manager._server_instances.get(session_id) if session_id is not None else None
        if (transport is None or transport.is_terminated or manager._session_owners.get(session_id) is not None
                or not hasattr(transport, "_requests_in_flight")):
            return None
        scope = transport.idle_scope
        if scope is not None and scope.cancel_called:
            return None
        return _busy(transport, idle_timeout)

    return gate


@contextlib.asynccontextmanager
async def _busy(transport: Any, idle_timeout: float | None) -> AsyncIterator[None]:
    """The session held busy for one request (what the SDK's ``handle_request`` does around its own)."""
    scope = transport.idle_scope
    if scope is None or idle_timeout is None:
        yield
        return
    transport._requests_in_flight += 1
    scope.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            scope.deadline = anyio.current_time() + idle_timeout


def _session_manager(server: Server, *, stateless: bool, session_idle_timeout: float | None,
                     max_sessions: int | None, json_response: bool = False) -> Any:
    """The SDK's session manager, bounded: at ``max_sessions`` a new session closes the idlest one.

    The SDK (mcp >= 1.26) answers 503 at its limit instead, so a thousand idle clients would
    lock new ones out until the idle timeout; here the least recently active session goes (a
    session with a request in flight or an open event stream only when every one has). Its
    client gets 404 on its next request, which MCP clients answer by starting a new session.
    """
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    class BoundedSessions(StreamableHTTPSessionManager):
        def _admit_session(self, requestor: Any) -> Any:
            sessions: dict[str, Any] = self._server_instances
            if self.max_sessions is not None and len(sessions) >= self.max_sessions and self._task_group is not None:
                session_id = min(sessions, key=lambda sid: _idle_since(sessions[sid]))
                log.info("at --max-sessions %d: closing the idlest session to open a new one", self.max_sessions)
                transport = sessions.pop(session_id)  # gone now: the admission below has its slot
                self._task_group.start_soon(self._discard_session, session_id, transport)
            return super()._admit_session(requestor)

    bounds: dict[str, Any] = {"session_idle_timeout": session_idle_timeout, "max_sessions": max_sessions}
    supported = inspect.signature(StreamableHTTPSessionManager).parameters  # mcp >= 1.26 bounds sessions
    kind = BoundedSessions if hasattr(StreamableHTTPSessionManager, "_admit_session") else StreamableHTTPSessionManager
    return kind(app=server, stateless=stateless, json_response=json_response,
                **{k: v for k, v in bounds.items() if k in supported})


def _idle_since(transport: Any) -> float:
    """When the session's idle countdown started (its deadline): infinite while a request is in
    flight; sessions without a countdown count as busy (the oldest of them goes first)."""
    scope = getattr(transport, "idle_scope", None)
    return float(scope.deadline) if scope is not None else math.inf


class _DisconnectFilter(logging.Filter):
    """A client that hangs up is not a server error: the SDK logs it with a traceback at ERROR."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        if exc is not None and isinstance(exc, _DISCONNECTS):
            log.debug("client disconnected: %s", record.getMessage())
            return False
        return True


_DISCONNECTS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)


def _quiet_disconnects() -> None:
    sdk = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, _DisconnectFilter) for f in sdk.filters):
        sdk.addFilter(_DisconnectFilter())


class _Asgi:
    """Starlette calls a Route endpoint class with (scope, receive, send): a raw ASGI app."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


async def serve_http(
    sim: Simulator,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    default_episode: str | None = None,
    extra_routes: list[Any] | None = None,
    on_ready: Callable[[str], None] | None = None,
    auth_token: str | None = None,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    session_idle_timeout: float | None = 300.0,
    max_sessions: int | None = 1000,
    limits: ConnectionLimits | None = None,
) -> None:
    """``limits``: read timeout, keep-alive and connection cap (:mod:`.http_limits`; defaults if None)."""
    import uvicorn

    from .http_limits import ConnectionLimits

    limits = _fitted(limits or ConnectionLimits())
    hosts = list(allowed_hosts or [])
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)  # the address it was asked to bind is a name its clients use
    app = http_app(sim, default_episode=default_episode, extra_routes=extra_routes, auth_token=auth_token,
                   allowed_hosts=hosts, allowed_origins=allowed_origins, session_idle_timeout=session_idle_timeout,
                   max_sessions=max_sessions, freeze_heap=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", **limits.uvicorn_options())
    userver = uvicorn.Server(config)
    if on_ready is not None:
        on_ready(f"http://{host}:{port}/mcp")
    await userver.serve()


def serve_http_workers(factory: str, *, workers: int, host: str, port: int) -> None:
    """Run ``workers`` processes of the app built by ``factory`` (``module:function``) on one port."""
    import uvicorn

    from .http_limits import DEFAULT_PROTOCOL, ConnectionLimits

    limits = _fitted(ConnectionLimits())  # each worker process: the default limits
    options = {**limits.uvicorn_options(), "http": DEFAULT_PROTOCOL}  # a class by name: workers import it
    uvicorn.run(factory, factory=True, workers=workers, host=host, port=port, log_level="warning", lifespan="on",
                **options)


def _fitted(limits: ConnectionLimits) -> ConnectionLimits:
    """``limits`` with the connection cap lowered to what the open-file limit allows."""
    from .http_limits import fd_headroom

    fits = fd_headroom(limits.max_connections)
    return limits if fits == limits.max_connections else dataclasses.replace(limits, max_connections=fits)


# -- client (catalog mirroring) -------------------------------------------------------


async def fetch_tools(*, command: list[str] | None = None, url: str | None = None, env: dict[str, str] | None = None) -> list[JSONDict]:
    """Connect to a live MCP server and page through ``tools/list``.

    Tools are returned as the JSON objects the server sent (not through the SDK's ``Tool``
    model, which would reorder keys), so a mirror's catalog is the server's own.
    """
    from mcp import ClientSession

    async with _client_streams(command=command, url=url, env=env) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools: list[JSONDict] = []
            cursor: str | None = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                request = types.ClientRequest(types.ListToolsRequest(params=params))
                page = await session.send_request(request, _RawToolsPage)
                tools.extend(page.tools)
                cursor = page.nextCursor
                if not cursor:
                    return tools


@contextlib.asynccontextmanager
async def _client_streams(*, command: list[str] | None, url: str | None, env: dict[str, str] | None,
                          headers: dict[str, str] | None = None) -> AsyncIterator[Any]:
    if url is not None:
        from mcp.client import streamable_http

        if hasattr(streamable_http, "streamable_http_client"):
            from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

            # The SDK's client defaults, plus headers, plus HTTP failures answered in band.
            http = httpx.AsyncClient(timeout=httpx.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                                     headers=headers, transport=_InBandFailures(httpx.AsyncHTTPTransport()))
            async with http, streamable_http.streamable_http_client(url, http_client=http) as (read, write, _):
                yield read, write
        else:  # mcp < 1.25
            async with streamable_http.streamablehttp_client(url, headers=headers) as (read, write, _):
                yield read, write
    elif command:
        import os

        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **(env or {})})
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            yield read, write
    else:
        raise ValueError("fetch_tools needs a command or a url")


class _InBandFailures(httpx.AsyncBaseTransport):
    """The upstream client's HTTP transport, answering what the server fails at the HTTP level.

    The SDK's streamable-HTTP client (mcp 1.x) raises inside its task group on a 5xx, a reset or
    a read timeout, which ends the whole session (and the proxy with it), and leaves a request
    answered 200 with a page that is not JSON waiting forever. Here such a request gets a
    JSON-RPC error for its id instead (``-32603``, saying what the server did), which the proxy
    passes on like any error of the server's; the session serves the next call.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request_id = _request_id(request.content) if request.method == "POST" else None
        if request_id is None:  # notifications, the GET stream, session ends: the SDK copes
            return await self.inner.handle_async_request(request)
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as exc:  # refused, reset, timed out
            return _error_response(request, request_id, f"{type(exc).__name__}: {str(exc) or 'no detail'}")
        kind = response.headers.get("content-type", "").lower()
        if response.status_code in (202, 404) or (response.status_code < 400 and kind.startswith("text/event-stream")):
            return response  # the SDK's own cases: accepted, session expired, a stream of messages
        try:
            body = await response.aread()
        except httpx.TransportError as exc:
            return _error_response(request, request_id, f"{type(exc).__name__} while reading the answer: {exc}")
        finally:
            await response.aclose()
        answer = _json(body) if kind.startswith("application/json") else None
        if isinstance(answer, dict) and answer.get("jsonrpc") == "2.0" and (response.status_code < 400 or "error" in answer):
            # JSON-RPC as sent (a 4xx carrying a JSON-RPC error reaches the caller as that error)
            return httpx.Response(200, headers=response.headers, content=body, request=request)
        shown = body[:200].decode("utf-8", "replace")
        return _error_response(request, request_id, f"HTTP {response.status_code} ({kind or 'no content type'}): {shown}")

    async def aclose(self) -> None:
        await self.inner.aclose()


def _request_id(content: bytes) -> Any:
    message = _json(content)
    return message.get("id") if isinstance(message, dict) and "method" in message else None


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


#: How the proxy's own JSON-RPC error for an HTTP-level failure of the upstream server begins.
_HTTP_FAILURE = "the upstream MCP server failed at the HTTP level"


def _error_response(request: httpx.Request, request_id: Any, what: str) -> httpx.Response:
    message = f"{_HTTP_FAILURE}: {what}"
    log.warning("%s %s: %s", request.method, request.url, message)
    return httpx.Response(200, json=_rpc_error(request_id, types.INTERNAL_ERROR, message), request=request)


# -- proxy (sim-to-real): an upstream client and a server that forwards to it ------------


class _RawResult(RootModel[JSONDict]):
    """A client-side result kept as the server's JSON (no SDK model reorders or drops a field)."""


def server_error_of(exc: BaseException) -> JSONDict | None:
    """The JSON-RPC error (``{"code", "message", "data"?}``) that ``exc`` carries when the upstream server sent
    it; None for any other exception, and for the errors the client side makes up itself: a timeout, a closed
    connection, an HTTP-level failure (:class:`_InBandFailures`). The proxy records the server's own."""
    if not isinstance(exc, McpError):
        return None
    error = exc.error.model_dump(mode="json", by_alias=True, exclude_none=True)
    message = str(error.get("message") or "")
    if (error.get("code") == httpx.codes.REQUEST_TIMEOUT and message.startswith("Timed out while waiting")
            or error.get("code") == types.CONNECTION_CLOSED and message == "Connection closed"
            or error.get("code") == types.INTERNAL_ERROR and message.startswith(_HTTP_FAILURE)):
        return None
    return error


class Upstream:
    """A client session to a real MCP server, answering in the raw JSON the server sent.

    JSON-RPC errors from the server propagate as the SDK's ``McpError``; the proxy server
    below re-raises them unchanged, so a client sees the same code, message and data.
    """

    def __init__(self, session: Any, initialized: JSONDict) -> None:
        self._session = session
        #: Where the server's notifications go (the proxy's downstream sessions; see build_proxy_server).
        self.notify: Callable[[Any], Any] | None = None
        info = initialized.get("serverInfo") or {}
        self.name: str = str(info.get("name") or "upstream")
        self.version: str = str(info.get("version") or "")
        self.instructions: str | None = initialized.get("instructions")
        #: What the server offers besides tools (``prompts``, ``resources``): the proxy passes those on.
        self.capabilities: JSONDict = dict(initialized.get("capabilities") or {})

    async def forward(self, method: str, params: JSONDict | None) -> JSONDict:
        """A prompts/ or resources/ request passed on as is; the server's JSON answer."""
        request_type = _PASSED_ON[method]
        request = request_type.model_validate({"method": method, **({"params": params} if params else {})})
        result = await self._session.send_request(types.ClientRequest(request), _RawResult)
        return result.root

    async def list_tools_page(self, cursor: str | None) -> JSONDict:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await self._session.send_request(types.ClientRequest(types.ListToolsRequest(params=params)), _RawResult)
        return page.root

    async def list_tools(self) -> list[JSONDict]:
        tools: list[JSONDict] = []
        cursor: str | None = None
        while True:
            page = await self.list_tools_page(cursor)
            tools.extend(page.get("tools") or [])
            cursor = page.get("nextCursor")
            if not cursor:
                return tools

    async def call_tool(self, name: str, arguments: JSONDict, meta: JSONDict | None = None) -> JSONDict:
        params: JSONDict = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = meta
        request = types.CallToolRequest(params=types.CallToolRequestParams.model_validate(params))
        result = await self._session.send_request(types.ClientRequest(request), _RawResult)
        return result.root


@contextlib.asynccontextmanager
async def connect_upstream(*, command: list[str] | None = None, url: str | None = None,
                           env: dict[str, str] | None = None, headers: dict[str, str] | None = None,
                           timeout: float | None = None) -> AsyncIterator[Upstream]:
    """An initialized client session to a real server (stdio ``command`` or streamable HTTP ``url``,
    sent ``headers`` on every request: ``Authorization``...). ``timeout``: the longest wait for
    the answer to one request (then the SDK's JSON-RPC error, code 408; the session goes on)."""
    from datetime import timedelta

    from mcp import ClientSession

    upstream: Upstream | None = None

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and upstream is not None and upstream.notify is not None:
            await upstream.notify(message)

    async with _client_streams(command=command, url=url, env=env, headers=headers) as (read, write):
        limit = timedelta(seconds=timeout) if timeout is not None else None
        async with ClientSession(read, write, read_timeout_seconds=limit, message_handler=on_message) as session:
            initialized = await session.initialize()
            upstream = Upstream(session, initialized.model_dump(mode="json", by_alias=True, exclude_none=True))
            yield upstream


def build_proxy_server(handler: Any) -> Server:
    """A server answering tools/list and tools/call with what ``handler`` returns, verbatim.

    ``handler`` (see :class:`agentworld_mcp.sim2real.proxy.Proxy`) has ``name``, ``version``,
    ``instructions``, ``list_tools_page(cursor)`` and ``call_tool(name, arguments, meta)``;
    an upstream ``McpError`` raised through it reaches the client as the same JSON-RPC error.
    """
    server: Server = Server(handler.name, version=handler.version or __version__, instructions=handler.instructions)
    # The real server's notifications reach the client: progress to the session whose call carries
    # its token, anything else (logging, list changes) to the session that called last.
    by_token: dict[Any, tuple[Any, Any]] = {}
    last: list[tuple[Any, Any]] = []  # at most one: the latest caller

    async def forward(notification: types.ServerNotification) -> None:
        root = notification.root
        token = getattr(getattr(root, "params", None), "progressToken", None)
        target = by_token.get(token) if isinstance(root, types.ProgressNotification) else (last[-1] if last else None)
        if target is None:
            return
        data = root.model_dump(by_alias=True, mode="json", exclude_none=True)
        data.pop("jsonrpc", None)  # the received message's envelope, kept as an extra field
        try:
            await target[0].send_notification(types.ServerNotification.model_validate(data),
                                              related_request_id=target[1])
        except Exception as exc:  # a client gone away misses a notification, nothing more
            log.debug("could not forward %s: %s", type(root).__name__, exc)

    upstream = getattr(handler, "upstream", None)
    if upstream is not None and hasattr(upstream, "notify"):
        upstream.notify = forward

    async def list_tools(request: types.ListToolsRequest | None) -> types.ServerResult:
        cursor = request.params.cursor if request is not None and request.params is not None else None
        return _Verbatim(await handler.list_tools_page(cursor))  # type: ignore[return-value]

    async def call_tool(request: types.CallToolRequest) -> types.ServerResult:
        params = request.params
        meta = (params.meta.model_dump(mode="json", by_alias=True, exclude_none=True)
                if params.meta is not None else None)
        context = server.request_context
        target = (context.session, context.request_id)
        token = (meta or {}).get("progressToken")
        last[:] = [(context.session, None)]
        if token is not None:
            by_token[token] = target
        try:
            result = await handler.call_tool(params.name, params.arguments or {}, meta)
        except (UnknownToolError, ConfigError) as exc:  # a call routed to a simulated world that lacks the tool
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))) from None
        finally:
            by_token.pop(token, None)
        return _Verbatim(result)  # type: ignore[return-value]

    _register(server, types.ListToolsRequest, list_tools)
    _register(server, types.CallToolRequest, call_tool)
    offered = getattr(upstream, "capabilities", None) or {}
    for method, request_type in _PASSED_ON.items():  # only what the real server offers is advertised
        if method.split("/")[0] in offered:
            _register(server, request_type, _passing_on(handler, method))
    return server


#: The requests besides tools that the proxy passes on to the real server, as it answers them.
_PASSED_ON: dict[str, Any] = {
    "prompts/list": types.ListPromptsRequest, "prompts/get": types.GetPromptRequest,
    "resources/list": types.ListResourcesRequest, "resources/templates/list": types.ListResourceTemplatesRequest,
    "resources/read": types.ReadResourceRequest,
}


def _passing_on(handler: Any, method: str) -> Callable[[Any], Any]:
    async def forward(request: Any) -> types.ServerResult:
        params = (request.params.model_dump(mode="json", by_alias=True, exclude_none=True)
                  if request.params is not None else None)
        return _Verbatim(await handler.forward(method, params))  # type: ignore[return-value]

    return forward


async def serve_proxy_stdio(handler: Any) -> None:
    server = build_proxy_server(handler)
    async with _stdio_streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, _init_options(server))


async def serve_proxy_http(handler: Any, *, host: str = "127.0.0.1", port: int = 8765, path: str = "/mcp",
                           on_ready: Callable[[str], None] | None = None, auth_token: str | None = None) -> None:
    """The proxy over streamable HTTP, behind the same guard as ``serve`` (token, Host and Origin checks)."""
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    from .http_guard import HttpGuard
    from .http_limits import ConnectionLimits

    _quiet_disconnects()
    manager = StreamableHTTPSessionManager(app=build_proxy_server(handler), stateless=False)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Route(path, endpoint=_Asgi(handle), methods=["GET", "POST", "DELETE"]),
                            Mount(path, app=handle)], lifespan=lifespan)
    hosts = [host] if host not in ("0.0.0.0", "::", "") else []
    guarded = HttpGuard(typing.cast(Any, app), methods=CLIENT_METHODS, mcp_path=path, token=auth_token, allowed_hosts=hosts,
                        allowed_origins=())
    guarded.router = app.router  # type: ignore[attr-defined]
    userver = uvicorn.Server(uvicorn.Config(guarded, host=host, port=port, log_level="warning", lifespan="on",
                                           **_fitted(ConnectionLimits()).uvicorn_options()))
    if on_ready is not None:
        on_ready(f"http://{host}:{port}{path}")
    await userver.serve()
