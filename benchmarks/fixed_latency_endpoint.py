"""A cheap OpenAI-compatible endpoint with a fixed latency, for throughput benchmarks.

tests/fake_openai.py (uvicorn + Starlette) is the scripted test double; it spends about
0.6 ms of CPU a request, which on a 2-core machine is CPU taken from the client being
measured. This one is a bare asyncio protocol (HTTP/1.1 keep-alive, Content-Length bodies
only: what the openai and aiohttp clients send) that spends a small fraction of that, so a
benchmark's "ideal" (every call taking exactly the latency) is not made unfair by the
endpoint competing for the cores. It answers ``POST /v1/chat/completions`` with
``responder(body) -> content`` after ``latency`` seconds, and ``GET /v1/models``.

Run in its own process with :func:`start` (returns the base URL and the process).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
from collections.abc import Callable
from typing import Any

Responder = Callable[[dict[str, Any]], str]
_HEAD_END = b"\r\n\r\n"


class _Connection(asyncio.Protocol):
    def __init__(self, responder: Responder, latency: float) -> None:
        self.responder = responder
        self.latency = latency
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()
        self.count = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(_HEAD_END)
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            total = end + 4 + length
            if len(self.buffer) < total:
                return
            body = bytes(self.buffer[end + 4:total])
            del self.buffer[:total]
            method, path = head.split(" ", 2)[:2]
            self.loop.call_later(self.latency, self._answer, method, path, body)

    def _answer(self, method: str, path: str, body: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.count += 1
        if method == "GET" and path.endswith("/models"):
            payload: dict[str, Any] = {"object": "list", "data": [{"id": "fake", "object": "model"}]}
            status = "200 OK"
        elif method == "POST" and path.endswith("/chat/completions"):
            request = json.loads(body)
            content = self.responder(request)
            payload = {"id": f"chatcmpl-{self.count}", "object": "chat.completion", "created": 0,
                       "model": request.get("model", "fake"),
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": len(body) // 4, "completion_tokens": len(content) // 4}}
            status = "200 OK"
        else:
            payload, status = {"error": {"message": f"no route {method} {path}"}}, "404 Not Found"
        data = json.dumps(payload).encode()
        self.transport.write(f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
                             f"content-length: {len(data)}\r\n\r\n".encode() + data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


async def _serve(responder: Responder, latency: float, ready: Any) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Connection(responder, latency), "127.0.0.1", 0, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    ready.put(f"http://127.0.0.1:{port}/v1")
    async with server:
        await server.serve_forever()


def _main(responder: Responder, latency: float, ready: Any) -> None:
    asyncio.run(_serve(responder, latency, ready))


def start(responder: Responder, latency: float) -> tuple[str, multiprocessing.process.BaseProcess]:
    """The endpoint in its own process: ``(base_url, process)``; terminate the process when done."""
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Queue()
    proc = ctx.Process(target=_main, args=(responder, latency, ready), daemon=True)
    proc.start()
    return ready.get(timeout=30), proc


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc), to report the endpoint's share."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
