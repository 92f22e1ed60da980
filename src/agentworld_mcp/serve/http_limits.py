"""Connection limits for the HTTP server: slow and idle clients cannot use up the process.

uvicorn (the server under the MCP endpoint) bounds the idle time between requests
(``timeout_keep_alive``) and the size of a request head (``h11_max_incomplete_event_size``),
but not the time a client takes to send a request, nor the number of open connections: a
client dripping one header line every few seconds held its connection forever, and a
thousand of them used up the process's file descriptors. The protocol classes here (over
httptools, a C parser, where the ``fast`` extra installed it; over h11 otherwise) add:

* a bound on the request head (h11 has one; over httptools it is counted here);
* a read timeout: a request (head and body) must arrive within ``read_timeout`` seconds of
  its first byte (or of the connection, for a client that sends nothing); past it the
  connection is answered 408 when no request is under way and closed;
* a connection cap: at ``max_connections`` open connections, a new one closes the
  connection that has waited longest on its client (a slow request, an idle keep-alive);
  only when every connection is busy (a request being answered, an event stream) is the
  new one answered 503 and closed, at once, so its file descriptor is freed.

And :func:`fd_headroom` raises the process's soft file-descriptor limit to fit the cap.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("agentworld_mcp.server")

#: Connections the kernel queues for accepting; the event loop accepts up to this many at once,
#: before any of them can be closed, so the open-file limit keeps room for them too.
BACKLOG = 256
#: File descriptors kept for the process itself (listening socket, state file, logs...) and a backlog.
FD_RESERVE = 64 + BACKLOG


@dataclass(frozen=True)
class ConnectionLimits:
    read_timeout: float = 20.0
    keep_alive_timeout: float = 5.0
    max_connections: int = 1000
    #: Largest request head (request line and headers), in bytes: past it, 400.
    max_header_bytes: int = 64 * 1024

    def uvicorn_options(self) -> dict[str, Any]:
        """Keyword arguments for ``uvicorn.Config``."""
        return {"http": guarded_protocol(self), "timeout_keep_alive": self.keep_alive_timeout,
                "h11_max_incomplete_event_size": self.max_header_bytes, "backlog": BACKLOG}


def _raw_response(status: str, text: str) -> bytes:
    body = text.encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            f"content-length: {len(body)}\r\n\r\n").encode() + body


class _Guarded(asyncio.Protocol):
    """The limits, over either of uvicorn's HTTP protocols (a mixin: each subclass says when a
    request is still arriving, and when nothing of one has been read)."""

    limits: ConnectionLimits = ConnectionLimits()
    _read_timer: asyncio.TimerHandle | None = None
    _waiting_since = 0.0  # when it began waiting on its client (monotonic): the oldest is closed first
    # uvicorn's protocol attributes, which both subclasses have
    connections: set[Any]
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any
    timeout_keep_alive_task: asyncio.TimerHandle | None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections and not self._make_room():
            log.warning("refusing a connection: %d connections open, all busy (--max-connections)",
                        len(self.connections) - 1)
            transport.write(_raw_response("503 Service Unavailable", "too many connections, all busy; retry later"))
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._arriving():  # a request still arriving
            if self._read_timer is None:
                self._arm()
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._waiting_since = time.monotonic()  # idle keep-alive from now (uvicorn times it out)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arriving(self) -> bool:
        raise NotImplementedError

    def _nothing_read(self) -> bool:
        """No request head read yet (so a 408 may be sent without cutting into a request)."""
        raise NotImplementedError

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = time.monotonic()
        self._read_timer = self.loop.call_later(self.limits.read_timeout, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _waiting(self) -> bool:
        """Waiting on its client: a request still arriving, or idle between requests."""
        return self._read_timer is not None or self.timeout_keep_alive_task is not None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        log.info("closing a connection that sent no complete request in %ss (--read-timeout)",
                 self.limits.read_timeout)
        if self._nothing_read() and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(_raw_response("408 Request Timeout", "request not received in time"))
        self.transport.close()

    def _make_room(self) -> bool:
        """Close the connection that has waited longest on its client; False if none waits."""
        waiting = [c for c in self.connections if c is not self and isinstance(c, _Guarded) and c._waiting()
                   and not c.transport.is_closing()]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c._waiting_since)
        log.info("at --max-connections: closing the connection that waited longest on its client")
        oldest._disarm()
        oldest.transport.close()
        oldest.connections.discard(oldest)  # its slot is free now, not when the loop reports it closed
        return True


class GuardedH11Protocol(_Guarded, H11Protocol):
    """uvicorn's pure-Python protocol (h11), with the limits."""

    conn: h11.Connection

    def _arriving(self) -> bool:
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def _nothing_read(self) -> bool:
        return self.conn.their_state is h11.IDLE


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools not installed (the ``fast`` extra): h11 it is
    HttpToolsProtocol = None  # type: ignore[assignment, misc]


if HttpToolsProtocol is not None:

    class GuardedHttpToolsProtocol(_Guarded, HttpToolsProtocol):
        """uvicorn's protocol over httptools (a C parser, several times cheaper than h11), with the
        limits; the request head is bounded here, as h11 bounds it there."""

        _in_message = False  # between a request's first byte and its last
        _head_read = False  # the current request's head is complete
        _head_bytes = 0

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._in_message and not self._head_read and not self.transport.is_closing():
                self._head_bytes += len(data)  # still inside a head, which httptools buffers: bounded here
                if self._head_bytes > self.limits.max_header_bytes:
                    log.info("refusing a request head larger than %d bytes", self.limits.max_header_bytes)
                    self._disarm()
                    self.send_400_response("Request head too large.")

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_message, self._head_read, self._head_bytes = True, False, 0

        def on_headers_complete(self) -> None:
            self._head_read = True
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._in_message, self._head_read = False, False
            super().on_message_complete()

        def _arriving(self) -> bool:
            return self._in_message

        def _nothing_read(self) -> bool:
            return not self._head_read

    GuardedProtocol: type[_Guarded] = GuardedHttpToolsProtocol
else:  # pragma: no cover - the fast extra is part of the test environment
    GuardedProtocol = GuardedH11Protocol


def guarded_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with ``limits`` (uvicorn builds one per connection from the class):
    over httptools where it is installed, else h11."""
    return type(GuardedProtocol.__name__, (GuardedProtocol,), {"limits": limits})


#: The protocol with the default limits, by name (worker processes import it).
DEFAULT_PROTOCOL = f"{__name__}:GuardedProtocol"


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where the ``fast`` extra installed it (what uvicorn's workers pick by
    themselves), else None: asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def fd_headroom(max_connections: int) -> int:
    """Raise the soft limit on open files to fit ``max_connections`` (up to the hard limit);
    the number of connections that fit."""
    try:
        import resource
    except ImportError:  # not on POSIX: nothing to raise
        return max_connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, new, exc)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        fits = max(1, soft - FD_RESERVE)
        log.warning("--max-connections %d lowered to %d: the open-file limit is %d (ulimit -n)", max_connections,
                    fits, soft)
        return fits
    return max_connections


__all__ = ["BACKLOG", "ConnectionLimits", "DEFAULT_PROTOCOL", "FD_RESERVE", "GuardedH11Protocol", "GuardedProtocol",
           "event_loop_factory", "fd_headroom", "guarded_protocol"]
