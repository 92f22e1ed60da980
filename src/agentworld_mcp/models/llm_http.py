"""The chat-completion request path of the llm backend over aiohttp, when aiohttp is installed.

The openai SDK's async client spends about 1.7 ms of CPU per chat completion on this
machine (building the request, httpx2's models and its connection pool, which scans every
pooled connection per request); aiohttp sends the same bytes for about 0.2 ms
(``benchmarks/bench_llm.py`` measures both). With 64 rollouts sharing one Python process,
that difference is most of the gap to the endpoint's own latency. So chat completions go
through one keep-alive :class:`aiohttp.ClientSession` per endpoint, with the body encoded
once; listing models and every other request stay on the openai SDK.

Failures are raised as the openai SDK's own exception classes (status errors built from
the response, connection errors, timeouts), so the retry policy in :mod:`.llm` treats the
two paths alike. aiohttp comes with the ``llm`` extra (it is openai's own ``aiohttp``
extra); without it the SDK path is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from ..errors import ResponseTooLargeError

#: Bytes read from the body per chunk.
_CHUNK = 1 << 16
#: Strings at least this long are JSON-encoded once and reused (the system prompt is sent on every call).
_LONG = 1024
_encoded: dict[str, str] = {}


def encode(body: dict[str, Any]) -> bytes:
    """``body`` as JSON, with the long strings of its messages encoded once: a catalog's system
    prompt (kilobytes of tool schemas) is the same on every call, so it is escaped only the first time."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return json.dumps(body, ensure_ascii=False).encode()
    rest = json.dumps({k: v for k, v in body.items() if k != "messages"}, ensure_ascii=False)
    listed = ", ".join(_message(m) for m in messages)
    return (rest[:-1] + (", " if len(rest) > 2 else "") + f'"messages": [{listed}]}}').encode()


def _message(message: Any) -> str:
    if not isinstance(message, dict) or not all(isinstance(v, str) for v in message.values()):
        return json.dumps(message, ensure_ascii=False)
    return "{" + ", ".join(f"{json.dumps(k)}: {_string(v)}" for k, v in message.items()) + "}"


def _string(value: str) -> str:
    if len(value) < _LONG:
        return json.dumps(value, ensure_ascii=False)
    cached = _encoded.get(value)  # a str caches its hash, so a hit costs one comparison
    if cached is None:
        if len(_encoded) >= 256:  # bounded: long strings that are not prompts would otherwise pile up
            _encoded.clear()
        cached = _encoded[value] = json.dumps(value, ensure_ascii=False)
    return cached


def available() -> bool:
    """Whether aiohttp is installed (the fast path is used only then)."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


class AiohttpSender:
    """POSTs JSON bodies to one base URL over a keep-alive pool; one session per event loop."""

    def __init__(self, base_url: str, api_key: str, *, connections: int) -> None:
        self.base_url = base_url
        self.headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
                        "Accept": "application/json", "User-Agent": "agentworld-mcp"}
        self.connections = connections
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proxy: str | None = None

    def _current(self) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            # A session belongs to the loop it was made in; a simulator driven from another loop
            # (a sync caller's background loop, a second asyncio.run) gets its own.
            self._drop()
            connector = aiohttp.TCPConnector(limit=self.connections, limit_per_host=0, ttl_dns_cache=300)
            # Proxies from the environment are read once here: trust_env=True would look up ~/.netrc
            # in a thread on every request, a tenth of the request's CPU.
            self._session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
            self._proxy = _env_proxy(self.base_url)
            self._loop = loop
        return self._session

    async def post(self, path: str, body: dict[str, Any], *, timeout: float, limit: int) -> bytes:
        """The 2xx response body of ``POST base_url + path``, read under ``limit`` bytes;
        anything else raises the openai exception the SDK would have raised."""
        import aiohttp
        import openai

        url = self.base_url + path
        data = encode(body)
        try:
            async with asyncio.timeout(timeout):
                async with self._current().post(url, data=data, headers=self.headers, proxy=self._proxy) as response:
                    content = await _read(response, limit, url)
                    if response.status >= 300:
                        raise _status_error(response.status, list(response.headers.items()), content, url)
                    return content
        except TimeoutError:
            raise openai.APITimeoutError(request=_request(url)) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise openai.APIConnectionError(message=f"{type(exc).__name__}: {exc}", request=_request(url)) from exc

    def _drop(self) -> None:
        """Let go of the session of another loop: closed there if that loop still runs, else its
        connections went with the loop."""
        session, loop, self._session = self._session, self._loop, None
        if session is None or session.closed:
            return
        if loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(session.close(), loop)
        else:
            connector = session.connector
            session.detach()
            if connector is not None:
                # Its transports belong to a closed loop: closed now, with nothing to wait for
                # (close() would return a coroutine for a loop that is gone).
                with contextlib.suppress(Exception):
                    connector._close()

    async def aclose(self) -> None:
        session = self._session
        if session is not None and not session.closed and self._loop is asyncio.get_running_loop():
            self._session = None
            await session.close()
        else:
            self._drop()


def _env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``NO_PROXY``...), as httpx would use."""
    from urllib.parse import urlsplit
    from urllib.request import getproxies, proxy_bypass

    parts = urlsplit(url)
    if not parts.hostname or proxy_bypass(parts.hostname):
        return None
    return getproxies().get(parts.scheme) or getproxies().get("all")


async def _read(response: Any, limit: int, url: str) -> bytes:
    declared = response.content_length or 0
    if declared > limit:
        raise _too_large(url, declared, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise _too_large(url, size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, size: int, limit: int) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"the world model endpoint {url} sent a response of more than {limit} bytes ({size} so far); it was not read",
        hint="lower --max-tokens, or raise the backend's max_response_bytes setting",
    )


def _httpx() -> Any:
    """The HTTP library the installed openai SDK is built on (httpx2 in 3.x, httpx before)."""
    try:
        import httpx2
    except ImportError:
        import httpx

        return httpx
    return httpx2


def _request(url: str) -> Any:
    return _httpx().Request("POST", url)


def _status_error(status: int, headers: list[tuple[str, str]], content: bytes, url: str) -> Exception:
    """The openai exception for a non-2xx answer, worded as the SDK words it."""
    import openai

    response = _httpx().Response(status, headers=headers, content=content, request=_request(url))
    text = content.decode("utf-8", "replace").strip()
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    error = body.get("error", body) if isinstance(body, dict) else body
    message = f"Error code: {status} - {body}"
    classes: dict[int, type[openai.APIStatusError]] = {
        400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
        404: openai.NotFoundError, 409: openai.ConflictError, 422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
    }
    cls = classes.get(status) or (openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(message, response=response, body=error)
