"""The language world model: every tool call answered by a model behind an OpenAI-compatible API.

Qwen-AgentWorld-35B-A3B is trained for this job and served by vLLM or SGLang; any other
OpenAI-compatible model works too (llama.cpp serves the small models the tests use). The
prompt follows Qwen-AgentWorld's MCP protocol (:mod:`.prompt`); the answer is made
schema-true (parsed, validated, re-asked once with the validator's message, else a
simulator error) and checked against the episode's ledger (:mod:`.guard`).

Scale lives on the model server (tensor/data parallel, replicas), so this client stays
thin: an ``asyncio.Semaphore`` bounds requests per endpoint, replicas are used round-robin,
and transient failures (429, 5xx, connection errors, timeouts) are retried with backoff on
the next replica. ``openai`` is imported here only, and only when a request is sent.

``--timeout`` is a deadline for the whole call to the model: every attempt, the backoff and
Retry-After waits between them, and reading the body (a server that drips its answer a byte
at a time is cut off at the deadline like one that hangs). The body is read as a stream and
refused past ``max_response_bytes``; a body that is not a chat completion is an endpoint error.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import json
import logging
import os
import random
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from ..world.catalog import ToolSpec
from ..errors import (
    ConfigError, InvalidObservationError, MissingExtraError, ModelEndpointError, ResponseTooLargeError,
)
from . import guard, llm_http
from .base import Prediction, Step
from .prompt import (
    Message, ParseError, PromptOptions, build_messages, catalog_system_prompt, parse_observation, strip_thinking,
    system_prompt,
)

JSONDict = dict[str, Any]
logger = logging.getLogger("agentworld_mcp.llm")

#: Keys of ``world.backend`` that belong to other parts of the simulator, not to this client.
_NOT_LLM_KEYS = {"type", "seed", "cassette", "record_mode", "kind"}


class LLMSettings(BaseModel):
    """Settings of the llm backend. Sources, later ones winning: defaults, the world file's
    ``backend`` mapping, environment (``AGENTWORLD_BASE_URL``, ``AGENTWORLD_MODEL``,
    ``OPENAI_API_KEY``), explicit options (CLI flags)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    base_urls: list[str] = Field(default_factory=list, alias="base_url")
    #: ``None``: ask the server (``GET /models``) and use the first model it serves.
    model: str | None = None
    api_key: SecretStr | None = None
    temperature: float = 0.6  # as in Qwen-AgentWorld's own evaluation
    top_p: float | None = None
    max_tokens: int = 2048
    #: Seconds for the whole call to the model: every attempt, backoff and Retry-After wait, the body.
    timeout: float = Field(default=120.0, gt=0)
    #: Seconds for one attempt (``None``: whatever is left of ``timeout``), so a hang can be retried.
    attempt_timeout: float | None = Field(default=None, gt=0)
    #: The longest Retry-After honoured, in seconds (never past the call's deadline).
    max_retry_after: float = Field(default=10.0, ge=0)
    #: The largest response body read from the endpoint, in bytes; a larger one is a simulator error.
    max_response_bytes: int = Field(default=1 << 20, gt=0)
    #: Extra attempts after a 429, 5xx, timeout or connection error.
    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 20.0
    #: Concurrent requests per endpoint (base URL).
    max_concurrency: int = 64
    #: Send ``response_format: json_schema`` for tools with an outputSchema (vLLM, SGLang and
    #: llama.cpp support it). Dropped automatically if the server rejects it.
    structured_outputs: bool = True
    #: Re-ask once, with the validator's message, when the answer is not schema-valid.
    reask: bool = True
    #: Check observations against the ledger and repair contradictions.
    guard: bool = True
    #: History size (estimated tokens) past which older turns are folded into summaries.
    history_budget_tokens: int | None = 6000
    #: Send chat completions over aiohttp when it is installed (about 8x less CPU per call than the
    #: openai SDK's client, see benchmarks/bench_llm.py); false keeps every request on the SDK.
    fast_http: bool = True
    #: Vendor parameters passed as they are (``chat_template_kwargs``, ``top_k``...).
    extra_body: JSONDict = Field(default_factory=dict)

    @field_validator("base_urls", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [u.strip() for u in value.split(",") if u.strip()]
        return value

    @field_validator("base_urls")
    @classmethod
    def _check_urls(cls, value: list[str]) -> list[str]:
        for url in value:
            if not re.match(r"^https?://", url):
                raise ValueError(f"{url!r} is not an http(s) URL; pass the server's API root, e.g. http://localhost:8000/v1")
        return [u.rstrip("/") for u in value]

    @classmethod
    def resolve(
        cls,
        world_backend: Mapping[str, Any] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> LLMSettings:
        """Merge the sources; raises :class:`ConfigError` naming the bad setting.

        ``OPENAI_API_KEY`` goes only where the user sent it: to a base URL from a flag, a keyword
        argument or ``AGENTWORLD_BASE_URL``, to a loopback one, or to any when
        ``AGENTWORLD_TRUST_WORLD_BASE_URL=1``. A world file that names a remote endpoint of its
        own gets requests without the key (and a warning that says how to allow it).
        """
        env = os.environ if env is None else env
        data: JSONDict = {k: v for k, v in (world_backend or {}).items() if k not in _NOT_LLM_KEYS}
        from_world = "base_url" in data or "base_urls" in data
        if env.get("AGENTWORLD_BASE_URL"):
            data["base_url"] = env["AGENTWORLD_BASE_URL"]
            from_world = False
        if env.get("AGENTWORLD_MODEL"):
            data["model"] = env["AGENTWORLD_MODEL"]
        env_key = env.get("OPENAI_API_KEY")
        for key, value in overrides.items():
            if value is None or value == []:
                continue
            if key in ("base_url", "base_urls"):
                data.pop("base_urls", None)
                key, from_world = "base_url", False
            data[key] = value
        if "base_urls" in data:
            data["base_url"] = data.pop("base_urls")
        try:
            settings = cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'backend'}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"invalid llm backend settings: {problems}. "
                              "Fix the world file's `backend:` mapping or the --base-url/--model flags.") from None
        if env_key and overrides.get("api_key") is None:
            untrusted = [u for u in settings.base_urls if not _is_loopback_url(u)] if from_world else []
            if untrusted and env.get(TRUST_WORLD_BASE_URL_ENV, "").lower() not in ("1", "true", "yes"):
                logger.warning(
                    "the world file's backend.base_url (%s) is not on this machine: OPENAI_API_KEY is not sent "
                    "to it. Pass --base-url (or set AGENTWORLD_BASE_URL) to use that endpoint with your key, or "
                    "set %s=1 to trust the world file's endpoints", ", ".join(untrusted), TRUST_WORLD_BASE_URL_ENV)
            else:
                settings.api_key = SecretStr(env_key)
        return settings


#: Set to 1 to send ``OPENAI_API_KEY`` to the base URL a world file names, wherever it is.
TRUST_WORLD_BASE_URL_ENV = "AGENTWORLD_TRUST_WORLD_BASE_URL"


def _is_loopback_url(url: str) -> bool:
    """Whether ``url`` names this machine (``localhost`` or a literal loopback address): a key sent there stays here."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- transport -------------------------------------------------------------------------

#: A completion: the request as sent (minus credentials), normalised response back.
Completer = Callable[[JSONDict], Awaitable[JSONDict]]


class Interceptor(Protocol):
    """Sits around every completion request (a cassette records or replays it)."""

    async def complete(self, request: JSONDict, forward: Completer, meta: JSONDict) -> JSONDict: ...

    def default_model(self) -> str | None: ...

    async def aclose(self) -> None: ...


class _Endpoint:
    def __init__(self, base_url: str, settings: LLMSettings) -> None:
        try:
            import openai
        except ImportError:
            raise MissingExtraError("the llm backend", "llm", "openai") from None
        key = settings.api_key.get_secret_value() if settings.api_key else "EMPTY"
        self.base_url = base_url
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=key, timeout=settings.timeout, max_retries=0)
        #: Chat completions over aiohttp when installed: a fraction of the SDK's CPU per call (llm_http).
        self.fast = llm_http.AiohttpSender(base_url, key, connections=settings.max_concurrency) \
            if settings.fast_http and llm_http.available() else None
        self.semaphore = asyncio.Semaphore(settings.max_concurrency)
        self.structured = True
        #: Whether it has answered once: until then a slow answer is probably a model still loading.
        self.answered = False


class OpenAITransport:
    """Sends chat completions to one or more OpenAI-compatible replicas, with retries."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._endpoints: list[_Endpoint] | None = None
        self._cycle: Any = None
        self._model: str | None = settings.model
        self._model_lock = asyncio.Lock()

    def _ensure(self) -> list[_Endpoint]:
        if self._endpoints is None:
            if not self.settings.base_urls:
                raise ModelEndpointError(
                    "the llm backend has no endpoint to ask",
                    hint="pass --base-url http://HOST:PORT/v1 (or set AGENTWORLD_BASE_URL, or `backend: "
                         "{base_url: ...}` in the world file); with a cassette in `none` mode no endpoint is needed",
                )
            self._endpoints = [_Endpoint(u, self.settings) for u in self.settings.base_urls]
            self._cycle = itertools.cycle(range(len(self._endpoints)))
        return self._endpoints

    def _next(self) -> _Endpoint:
        endpoints = self._ensure()
        return endpoints[next(self._cycle)]

    async def model_name(self) -> str:
        if self._model:
            return self._model
        async with self._model_lock:
            if self._model is None:
                models = await self._call(lambda ep, timeout: ep.client.models.list(timeout=timeout), "list models")
                try:
                    ids = [m.id for m in models.data]
                except (AttributeError, TypeError) as exc:
                    raise ModelEndpointError(f"the endpoint's model list is not an OpenAI model list: {exc}",
                                             hint="check --base-url (it should end in /v1), or pass --model NAME") from None
                if not ids:
                    raise ModelEndpointError("the endpoint serves no model", hint="pass --model NAME")
                self._model = ids[0]
        return self._model

    async def complete(self, request: JSONDict) -> JSONDict:
        from openai._constants import RAW_RESPONSE_HEADER

        limit = self.settings.max_response_bytes

        async def send(endpoint: _Endpoint, timeout: float) -> JSONDict:
            body = dict(request)
            body.update(body.pop("extra_body", None) or {})
            if not endpoint.structured:
                body.pop("response_format", None)
            if endpoint.fast is not None:
                content = await endpoint.fast.post("/chat/completions", body, timeout=timeout, limit=limit)
                return _completion(content, endpoint.base_url)
            # The low-level post skips the SDK's per-call type transform of the messages, which
            # costs more CPU than everything else in a step (see benchmarks/bench_llm.py); the
            # raw streamed response lets the body be read under a size limit and parsed here.
            raw: Any = await endpoint.client.post(
                "/chat/completions", body=body, cast_to=object,
                options={"headers": {RAW_RESPONSE_HEADER: "stream"}, "timeout": timeout})
            return _completion(await _read_body(raw.http_response, limit, endpoint.base_url), endpoint.base_url)

        result: JSONDict = await self._call(send, "chat completion")
        return result

    async def _call(self, send: Callable[[_Endpoint, float], Awaitable[Any]], what: str) -> Any:
        """``send`` to the endpoints until one answers, all within ``settings.timeout``."""
        self._ensure()  # importing openai and making the clients is not the endpoint's time
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.timeout
        failures: list[Exception] = []
        try:
            async with asyncio.timeout_at(deadline):
                return await self._attempts(send, what, deadline, failures)
        except TimeoutError:
            last = f"; last error: {type(failures[-1]).__name__}: {failures[-1]}" if failures else ""
            raise ModelEndpointError(
                f"the world model endpoint ({', '.join(self.settings.base_urls)}) gave no complete answer to the "
                f"{what} in {len(failures) + 1} attempt(s): Timeout at the {self.settings.timeout:g}s deadline "
                f"(--timeout){last}",
                hint="check that the model server is running and not overloaded, or raise --timeout",
            ) from (failures[-1] if failures else None)

    async def _attempts(self, send: Callable[[_Endpoint, float], Awaitable[Any]], what: str, deadline: float,
                        failures: list[Exception]) -> Any:
        import openai

        loop = asyncio.get_running_loop()
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            endpoint = self._next()
            try:
                async with endpoint.semaphore:
                    left = deadline - loop.time()
                    timeout = min(left, self.settings.attempt_timeout or left)
                    answer = await _with_progress(send(endpoint, max(timeout, 0.001)), endpoint, what)
                    endpoint.answered = True
                    return answer
            except openai.BadRequestError as exc:
                if endpoint.structured and _rejects_structured(exc):
                    logger.warning("%s rejected response_format; sending without structured outputs", endpoint.base_url)
                    endpoint.structured = False
                    failures.append(exc)
                    continue
                raise ModelEndpointError(f"the world model endpoint {endpoint.base_url} refused the {what}: {exc}",
                                         hint="check --model and the server's context length") from exc
            except openai.APIResponseValidationError as exc:
                raise ModelEndpointError(f"the world model endpoint {endpoint.base_url} answered the {what} with "
                                         f"a body that is not an OpenAI response: {exc}",
                                         hint="check --base-url (it should end in /v1)") from exc
            except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
                raise ModelEndpointError(
                    f"the world model endpoint {endpoint.base_url} refused the {what}: {exc}",
                    hint="check --base-url (it should end in /v1), --model and OPENAI_API_KEY (sent only to a "
                         "base URL from --base-url, AGENTWORLD_BASE_URL or loopback; see docs/server.md)") from exc
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError,
                    openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                if isinstance(exc, openai.APIStatusError) and status is not None and status < 500 and status not in (408, 409, 429):
                    raise ModelEndpointError(f"the world model endpoint {endpoint.base_url} answered {status} to the "
                                             f"{what}: {exc}", hint="check the server's log") from exc
                failures.append(exc)
                if attempt + 1 < attempts:
                    delay = self._delay(attempt, exc)
                    if loop.time() + delay >= deadline:
                        break  # waiting would end past the deadline: fail now rather than at it
                    logger.info("%s from %s (attempt %d/%d); retrying in %.2fs", type(exc).__name__,
                                endpoint.base_url, attempt + 1, attempts, delay)
                    await asyncio.sleep(delay)
        last = failures[-1] if failures else None
        urls = ", ".join(self.settings.base_urls)
        raise ModelEndpointError(
            f"the world model endpoint ({urls}) failed {len(failures)} times for a {what} within the "
            f"{self.settings.timeout:g}s deadline; last error: {type(last).__name__}: {last}",
            hint="check that the model server is running and reachable, or raise --timeout / retries",
        ) from last

    def _delay(self, attempt: int, exc: Exception) -> float:
        retry_after = None
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after"))
            except (TypeError, ValueError):
                retry_after = None
        if retry_after is not None:  # the server's word, capped: a Retry-After of an hour is no reason to hang
            return max(0.0, min(retry_after, self.settings.max_retry_after))
        base = self.settings.backoff * (2 ** attempt)
        return min(base + random.uniform(0, self.settings.backoff / 2), self.settings.max_backoff)

    async def aclose(self) -> None:
        for endpoint in self._endpoints or []:
            await endpoint.client.close()
            if endpoint.fast is not None:
                await endpoint.fast.aclose()
        self._endpoints = None


#: Seconds between "still waiting" lines while an endpoint has not answered yet (a model loading).
PROGRESS_EVERY = 10.0


async def _with_progress(request: Awaitable[Any], endpoint: _Endpoint, what: str) -> Any:
    """``request``, saying on stderr every :data:`PROGRESS_EVERY` s that it still waits, until the
    endpoint's first answer: vLLM and llama.cpp servers take minutes to load a model, and a
    simulator that says nothing looks hung."""
    if endpoint.answered:
        return await request
    task = asyncio.ensure_future(request)
    waited = 0.0
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=PROGRESS_EVERY)
            if done:
                return task.result()
            waited += PROGRESS_EVERY
            logger.warning("still waiting for the world model at %s (%s, %.0fs): a server loading its model "
                           "answers once it is ready", endpoint.base_url, what, waited)
    finally:
        task.cancel()


def _rejects_structured(exc: Exception) -> bool:
    text = str(exc).lower()
    return "response_format" in text or "json_schema" in text or "grammar" in text


async def _read_body(response: Any, limit: int, url: str) -> bytes:
    """The response body, read as a stream and refused past ``limit`` bytes (decoded)."""
    import openai

    try:
        declared = int(response.headers.get("content-length") or 0)
    except ValueError:
        declared = 0
    chunks: list[bytes] = []
    size = 0
    try:
        if declared > limit:
            raise _too_large(url, declared, limit)
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise _too_large(url, size, limit)
            chunks.append(chunk)
    except ResponseTooLargeError:
        raise
    except Exception as exc:  # the connection broke mid-body: a connection error, retried like one
        raise openai.APIConnectionError(message=f"reading the response failed: {type(exc).__name__}: {exc}",
                                        request=response.request) from exc
    finally:
        await response.aclose()
    return b"".join(chunks)


def _too_large(url: str, size: int, limit: int) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"the world model endpoint {url} sent a response of more than {limit} bytes ({size} so far); it was not read",
        hint="lower --max-tokens, or raise the backend's max_response_bytes setting",
    )


def _completion(body: bytes, url: str) -> JSONDict:
    """A chat completion body, normalised; anything else is a :class:`ModelEndpointError`."""
    try:
        data = json.loads(body)
    except ValueError:
        preview = body[:120].decode("utf-8", "replace")
        raise ModelEndpointError(
            f"the world model endpoint {url} answered 200 with a body that is not JSON ({len(body)} bytes: {preview!r})",
            hint="check --base-url: it should be an OpenAI-compatible API root ending in /v1, not a web page or proxy",
        ) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choices, list) or (choice is not None and not isinstance(message, dict)):
        raise ModelEndpointError(
            f"the world model endpoint {url} answered 200 with JSON that is not a chat completion "
            f"(keys: {sorted(data)[:8] if isinstance(data, dict) else type(data).__name__})",
            hint="check --base-url: it should be an OpenAI-compatible API root ending in /v1",
        )
    message = message or {}
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ModelEndpointError(f"the world model endpoint {url} answered with non-text content "
                                 f"({type(content).__name__})", hint="use a chat model that answers in text")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
    return {
        "content": content,
        "reasoning_content": message.get("reasoning_content") or message.get("reasoning"),
        "finish_reason": choice.get("finish_reason") if isinstance(choice, dict) else None,
        "usage": {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens")}
        if usage else None,
    }


# -- the world model --------------------------------------------------------------------


class LLMWorldModel:
    """A language world model behind an OpenAI-compatible chat completions API."""

    name = "llm"

    def __init__(self, settings: LLMSettings | None = None, *, interceptor: Interceptor | None = None,
                 transport: OpenAITransport | None = None) -> None:
        self.settings = settings or LLMSettings()
        self.transport = transport or OpenAITransport(self.settings)
        self.interceptor = interceptor
        self.options = PromptOptions(history_budget_tokens=self.settings.history_budget_tokens)

    async def predict(self, step: Step) -> Prediction:
        if step.role.style == "sql":  # a real database answers SQL; a model would only guess the rows
            from .deterministic.schema import predict as from_database

            return from_database(step)
        tool = step.tool
        messages = build_messages(
            step.world, tool, step.arguments, step.turn, step.episode.turns, step.episode.ledger,
            instructions=step.instructions, options=self.options, system=self._system_prompt(step),
        )
        model = await self._model()
        response = await self._complete(self._request(model, messages, tool), tool, step)
        info: JSONDict = {"model": model, "usage": [response.get("usage")], "reasked": False, "repairs": []}
        observation, is_error, problems = self._read(response, tool)
        if problems and self.settings.guard and guard.deleted_target(tool, step.arguments, step.episode.ledger):
            problems = []  # whatever the model meant, the guard answers not found below
        if problems and self.settings.reask:
            info["reasked"] = True
            retry = messages + [
                {"role": "assistant", "content": strip_thinking(response.get("content") or "")},
                {"role": "user", "content": _reask_text(tool, problems)},
            ]
            response = await self._complete(self._request(model, retry, tool), tool, step)
            info["usage"].append(response.get("usage"))
            observation, is_error, problems = self._read(response, tool)
        if problems:
            logger.warning("invalid observation for %s at turn %d: %s", tool.name, step.turn, "; ".join(problems))
            raise InvalidObservationError(
                f"the simulator's world model produced invalid output for tool {tool.name!r}: {'; '.join(problems[:3])}",
                hint="use a model trained for this (Qwen-AgentWorld), keep structured outputs on, "
                     "or raise --max-tokens if the answer was cut off",
            )
        if self.settings.guard:
            checked = guard.check(step, observation, is_error)
            observation, is_error, info["repairs"] = checked.observation, checked.is_error, checked.repairs
            for repair in checked.repairs:
                logger.info("guard repaired %s at turn %d: %s", tool.name, step.turn, repair)
        # _read validated a success against the outputSchema, and the guard never breaks it: no second check.
        valid = tool.output_schema is not None and not is_error
        return Prediction(observation, is_error=is_error, effects=[] if is_error else None, info=info, checked=valid)

    def _system_prompt(self, step: Step) -> str:
        # The static prefix is built once per catalog (shared with the trajectory recorder).
        if step.catalog is not None:
            return catalog_system_prompt(step.catalog, self.options)
        return system_prompt(step.world, self.options)

    async def _model(self) -> str:
        if self.settings.model:
            return self.settings.model
        recorded = self.interceptor.default_model() if self.interceptor else None
        return recorded or await self.transport.model_name()

    def _request(self, model: str, messages: list[Message], tool: ToolSpec) -> JSONDict:
        request: JSONDict = {"model": model, "messages": messages, "temperature": self.settings.temperature,
                             "max_tokens": self.settings.max_tokens}
        if self.settings.top_p is not None:
            request["top_p"] = self.settings.top_p
        if self.settings.structured_outputs and tool.output_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": _schema_name(tool.name), "schema": tool.output_schema},
            }
        if self.settings.extra_body:
            request["extra_body"] = dict(self.settings.extra_body)
        return request

    async def _complete(self, request: JSONDict, tool: ToolSpec, step: Step) -> JSONDict:
        if self.interceptor is None:
            return await self.transport.complete(request)
        meta = {"tool": tool.name, "turn": step.turn, "episode": step.episode.id}
        return await self.interceptor.complete(request, self.transport.complete, meta)

    def _read(self, response: JSONDict, tool: ToolSpec) -> tuple[Any, bool, list[str]]:
        content = response.get("content")
        if response.get("finish_reason") == "length" and not (content or "").strip():
            return None, False, ["the answer was cut off by max_tokens before any observation (raise --max-tokens)"]
        try:
            observation = parse_observation(content, tool)
        except ParseError as exc:
            text = _error_text(content)
            if text is not None:  # the model predicted the tool failing: a realistic error result
                return text, True, []
            cut = " (the answer was cut off by max_tokens: raise --max-tokens)" \
                if response.get("finish_reason") == "length" else ""
            return None, False, [str(exc) + cut]
        if tool.output_schema is None:
            return observation, looks_like_error(observation), []
        problems = tool.output_problems(observation)
        if problems and isinstance(observation, dict) and set(observation) <= {"error", "message", "status", "code"} \
                and any(k in observation for k in ("error",)):
            return observation, True, []  # {"error": ...}: a failure, not a malformed success
        return observation, False, problems

    async def aclose(self) -> None:
        await self.transport.aclose()


_ERROR_START = re.compile(
    r"^(error\b|error:|status: error|\d{3} [A-Z][a-z]+|access denied|permission denied|forbidden|traceback|"
    r"[A-Z][\w ]{0,40} not found\b|failed to\b)", re.IGNORECASE)


def looks_like_error(text: Any) -> bool:
    """Whether a text observation is the tool reporting a failure (its first line says so)."""
    return isinstance(text, str) and bool(_ERROR_START.match(text.strip()))


def _error_text(content: str | None) -> str | None:
    from .prompt import extract_observation

    text = extract_observation(content)
    return text if looks_like_error(text) else None


def _schema_name(tool: str) -> str:
    return (re.sub(r"[^A-Za-z0-9_-]", "_", tool) or "tool")[:60] + "_output"


def _reask_text(tool: ToolSpec, problems: list[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems[:5])
    return (f"That response is not valid for `{tool.name}`:\n{listed}\n\n"
            f"Reply again with only the corrected response: one JSON object that validates against the "
            f"tool's outputSchema.")
