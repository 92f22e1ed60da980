"""A scripted OpenAI-compatible server on loopback: a test double of vLLM.

Each test scripts what the "model server" does, one entry per incoming chat completion
request (a 429, a 500, a hang, garbage content, reasoning split out...); when the script
runs out, ``default`` answers. Every request body is kept for assertions.

    with FakeOpenAI(script=[Reply(status=429), Reply(content='{"id": 1}')]) as server:
        ... LLMSettings(base_url=server.url, model="fake") ...
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

JSONDict = dict[str, Any]


@dataclass
class Reply:
    """What the server does with one request."""

    content: str | None = ""
    reasoning_content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds to wait before answering (a slow or hung server).
    delay: float = 0.0
    finish_reason: str = "stop"
    error: str = "scripted failure"


Responder = Callable[[JSONDict], Reply]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeOpenAI:
    """The server; use as a context manager (it runs uvicorn in a thread)."""

    def __init__(self, script: list[Reply] | None = None, default: Responder | Reply | None = None,
                 model: str = "fake-world-model", latency: float = 0.0, host: str = "127.0.0.1") -> None:
        self.script = list(script or [])
        self.default = default if default is not None else Reply(content="ok")
        self.model = model
        self.latency = latency
        self.requests: list[JSONDict] = []
        self.headers: list[dict[str, str]] = []
        self.port = free_port()
        self.url = f"http://{host}:{self.port}/v1"
        self._lock = threading.Lock()
        app = Starlette(routes=[
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
        ])
        config = uvicorn.Config(app, host=host, port=self.port, log_level="error", lifespan="off",
                                backlog=4096, limit_concurrency=None, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the fake OpenAI server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    def _next(self, body: JSONDict) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.pop(0)
        return self.default(body) if callable(self.default) else self.default

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "test"}]})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.headers.append(dict(request.headers))
        reply = self._next(body)
        if self.latency or reply.delay:
            await asyncio.sleep(self.latency + reply.delay)
        if reply.status != 200:
            return JSONResponse({"error": {"message": reply.error, "type": "server_error", "code": reply.status}},
                                status_code=reply.status, headers=reply.headers)
        message: JSONDict = {"role": "assistant", "content": reply.content}
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
        return JSONResponse({
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(reply.content or "") // 4,
                      "total_tokens": (prompt_chars + len(reply.content or "")) // 4},
        }, headers=reply.headers)


def json_reply(value: Any, **kwargs: Any) -> Reply:
    return Reply(content=json.dumps(value), **kwargs)
