"""A model endpoint that misbehaves at the HTTP level, written on raw sockets for the tests.

FakeOpenAI (uvicorn) scripts what a well-formed server says; this one does what a broken
server, a proxy or the network does: hang after the request, drip the body a byte at a
time, answer 500 forever, answer 200 with an HTML page, reset the connection, send a body
of many megabytes. ``mode`` can be changed between calls, so a test can show that the
simulator serves the next call once the endpoint recovers ("ok" answers ``content``).

    with FaultEndpoint("hang") as endpoint:
        ... LLMSettings(base_url=endpoint.url, model="fake", timeout=2) ...
        endpoint.mode = "ok"
"""

from __future__ import annotations

import json
import socket
import socketserver
import struct
import threading
import time
from typing import Any

MODES = ("ok", "hang", "drip", "500", "429", "non_json", "not_completion", "reset", "huge")


class FaultEndpoint:
    def __init__(self, mode: str = "ok", *, content: str = "ok", retry_after: str = "30",
                 huge_bytes: int = 8 << 20, drip_every: float = 0.1) -> None:
        assert mode in MODES, mode
        self.mode = mode
        self.content = content
        self.retry_after = retry_after
        self.huge_bytes = huge_bytes
        self.drip_every = drip_every
        self.requests = 0
        self._stop = threading.Event()
        endpoint = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                endpoint._handle(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=True)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FaultEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # hung and dripping handlers end
        self._server.shutdown()
        self._server.server_close()

    # -- one connection: read each request, act on it --------------------------------------

    def _handle(self, sock: socket.socket) -> None:
        reader = sock.makefile("rb")
        try:
            while not self._stop.is_set():
                if not self._read_request(reader):
                    return
                self.requests += 1
                if not self._act(sock, self.mode):
                    return
        except OSError:
            return
        finally:
            reader.close()

    @staticmethod
    def _read_request(reader: Any) -> bool:
        length = 0
        line = reader.readline()
        if not line:
            return False
        while True:
            line = reader.readline()
            if not line or line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        reader.read(length)
        return True

    def _act(self, sock: socket.socket, mode: str) -> bool:
        """Answer one request; False closes the connection."""
        if mode == "hang":
            self._stop.wait()
            return False
        if mode == "reset":  # SO_LINGER 0: close() sends a TCP RST, the client sees "connection reset"
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
            return False
        if mode == "500":
            body = json.dumps({"error": {"message": "internal error", "type": "server_error"}}).encode()
            sock.sendall(_head(500, "Internal Server Error", len(body)) + body)
            return True
        if mode == "429":
            body = json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}).encode()
            sock.sendall(_head(429, "Too Many Requests", len(body), {"Retry-After": self.retry_after}) + body)
            return True
        if mode == "non_json":
            body = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
            sock.sendall(_head(200, "OK", len(body), content_type="text/html") + body)
            return True
        if mode == "not_completion":
            body = json.dumps({"status": "ok", "version": "1.2"}).encode()
            sock.sendall(_head(200, "OK", len(body)) + body)
            return True
        if mode == "huge":  # chunked: no Content-Length to refuse it by
            sock.sendall(_head(200, "OK", None))
            block = b'{"pad": "' + b"x" * 65536
            sent = 0
            while sent < self.huge_bytes and not self._stop.is_set():
                sock.sendall(b"%x\r\n%s\r\n" % (len(block), block))
                sent += len(block)
            sock.sendall(b"0\r\n\r\n")
            return True
        body = completion(self.content)
        if mode == "drip":  # a byte at a time, each well inside any read timeout
            sock.sendall(_head(200, "OK", len(body)))
            for i in range(len(body)):
                if self._stop.wait(self.drip_every):
                    return False
                sock.sendall(body[i : i + 1])
            return True
        sock.sendall(_head(200, "OK", len(body)) + body)
        return True


def completion(content: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-fault", "object": "chat.completion", "created": int(time.time()), "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }).encode()


def _head(status: int, reason: str, length: int | None, headers: dict[str, str] | None = None, *,
          content_type: str = "application/json") -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}"]
    lines.append(f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class FaultyUpstream:
    """A real MCP server over streamable HTTP behind a TCP relay that can start misbehaving.

    Every request is relayed to ``target`` (``http://127.0.0.1:PORT/mcp``) until ``mode`` says
    otherwise; then each ``tools/call`` (only those: the session stays up) hangs, has its real
    answer dripped a byte at a time, is answered 500 or with an HTML page, or has its connection
    reset. ``mode = "ok"`` relays again. For the proxy's upstream what FaultEndpoint is for the
    model endpoint.
    """

    MODES = ("ok", "hang", "drip", "500", "non_json", "reset")

    def __init__(self, target: str, mode: str = "ok", *, drip_every: float = 0.1) -> None:
        assert mode in self.MODES, mode
        self.mode = mode
        self.drip_every = drip_every
        self.calls = 0
        host_port = target.split("//", 1)[1].split("/", 1)[0]
        self._target = (host_port.rsplit(":", 1)[0], int(host_port.rsplit(":", 1)[1]))
        self._path = "/" + target.split("//", 1)[1].split("/", 1)[1]
        self._faults = FaultEndpoint("ok")
        self._stop = self._faults._stop
        relay = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                relay._handle(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=True)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}{self._path}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FaultyUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._faults._server.server_close()  # only its way of answering was used

    def _handle(self, sock: socket.socket) -> None:
        """One request per connection (``Connection: close`` both ways), relayed or faulted."""
        reader = sock.makefile("rb")
        try:
            head, body = _read_raw_request(reader)
            if head is None:
                return
            mode = self.mode
            if b'"tools/call"' in body:
                self.calls += 1
                if mode in ("hang", "reset"):
                    self._faults._act(sock, mode)
                    return
                if mode in ("500", "non_json"):  # as FaultEndpoint answers, saying the connection ends
                    status, reason, kind, body = ((500, "Internal Server Error", "application/json",
                                                   b'{"error": {"message": "internal error"}}') if mode == "500" else
                                                  (200, "OK", "text/html", b"<html><body><h1>502 Bad Gateway</h1></body></html>"))
                    sock.sendall(_head(status, reason, len(body), {"Connection": "close"}, content_type=kind) + body)
                    return
            with socket.create_connection(self._target) as upstream:
                upstream.sendall(_close_after(head) + body)
                if b'"tools/call"' in body and mode == "drip":
                    answer = _read_all(upstream)
                    for i in range(len(answer)):
                        if self._stop.wait(self.drip_every):
                            return
                        sock.sendall(answer[i : i + 1])
                    return
                while chunk := upstream.recv(65536):  # an SSE stream too, until the server ends it
                    sock.sendall(chunk)
        except OSError:
            return
        finally:
            reader.close()


def _read_raw_request(reader: Any) -> tuple[bytes | None, bytes]:
    lines = []
    length = 0
    while True:
        line = reader.readline()
        if not line:
            return None, b""
        lines.append(line)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    return b"".join(lines), reader.read(length) if length else b""


def _close_after(head: bytes) -> bytes:
    kept = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
    return b"\r\n".join(kept[:1] + [b"Connection: close"] + kept[1:])


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
