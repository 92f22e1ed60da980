"""Cassettes: record a language world model's answers once, replay them with no model at all.

CI can then run LLM episodes without a GPU, byte for byte. Recording happens at the
model-request level: each chat completion request is normalised (model, messages,
sampling settings; never credentials or endpoints) and hashed; the response is stored
under that hash. A replayed episode sends the same requests, so it gets the same answers,
and everything after the model (parsing, validation, the guard) runs again for real.

Record modes mean what they mean in VCR.py:

* ``once``: record if the cassette file does not exist yet, otherwise replay only;
* ``new_episodes``: replay what is recorded, record what is not;
* ``none``: replay only; a request not recorded is an error (no model is contacted);
* ``all``: always ask the model and record (re-record) every answer.

The same request may be sent several times (two episodes that begin alike, at a
non-zero temperature): its recorded answers are replayed in order, the last one repeating.
"""

from __future__ import annotations

import asyncio
import copy
import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..world.kinds import RecordMode
from ..world.writer import replace_file
from ..errors import CassetteMissError, ConfigError
from .base import Prediction, Step
from .llm import Completer, LLMWorldModel

JSONDict = dict[str, Any]
FORMAT_VERSION = 1

#: Request keys that take part in the match; anything else (credentials, timeouts) never does.
_MATCH_KEYS = ("model", "messages", "temperature", "top_p", "max_tokens", "response_format", "extra_body")
_SECRET_WORDS = ("key", "token", "secret", "authorization", "auth", "password", "cookie")


def normalise(request: JSONDict) -> JSONDict:
    """The parts of a request that decide the answer, without anything secret."""
    out = {k: copy.deepcopy(request[k]) for k in _MATCH_KEYS if request.get(k) is not None}
    if "extra_body" in out:
        out["extra_body"] = _scrub(out["extra_body"])
        if not out["extra_body"]:
            del out["extra_body"]
    return out


def request_key(request: JSONDict) -> str:
    canonical = json.dumps(normalise(request), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if not any(w in k.lower() for w in _SECRET_WORDS)}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


@dataclass
class Interaction:
    key: str
    request: JSONDict
    responses: list[JSONDict]
    meta: JSONDict = field(default_factory=dict)

    def to_dict(self) -> JSONDict:
        return {"key": self.key, "meta": self.meta, "request": self.request, "responses": self.responses}


class Cassette:
    """A file of recorded model interactions and the policy for using it."""

    def __init__(self, path: str | Path, mode: RecordMode | str = RecordMode.ONCE) -> None:
        self.path = Path(path)
        self.mode = RecordMode.parse(mode, f"cassette {path}")
        self.interactions: dict[str, Interaction] = {}
        self._existed = self.path.exists()
        self._plays: dict[str, int] = {}
        self._rerecorded: set[str] = set()
        self._lock = asyncio.Lock()
        self._dirty = False
        self.hits = 0
        self.recorded = 0
        if self._existed:
            self._load()
        elif mode == "none":
            raise ConfigError(f"cassette {self.path} does not exist and record mode is 'none' (replay only); "
                              "record it first with --record-mode once")

    # -- the Interceptor protocol ----------------------------------------------------
    def default_model(self) -> str | None:
        """The model recorded in the cassette, when replaying and it holds exactly one."""
        if not self._replays:
            return None
        models = {i.request.get("model") for i in self.interactions.values()}
        return models.pop() if len(models) == 1 else None

    async def complete(self, request: JSONDict, forward: Completer, meta: JSONDict) -> JSONDict:
        key = request_key(request)
        recorded = self.interactions.get(key)
        if recorded is not None and self.mode != "all":
            n = self._plays.get(key, 0)
            self._plays[key] = n + 1
            if n < len(recorded.responses) or not self._records:
                self.hits += 1
                return copy.deepcopy(recorded.responses[min(n, len(recorded.responses) - 1)])
        if not self._records:
            raise self._miss(request, meta)
        response = await forward(request)
        await self._record(key, request, response, meta)
        return copy.deepcopy(response)

    async def aclose(self) -> None:
        self.save()

    # -- policy ---------------------------------------------------------------------
    @property
    def _replays(self) -> bool:
        return self.mode in ("none", "new_episodes") or (self.mode == "once" and self._existed)

    @property
    def _records(self) -> bool:
        return self.mode in ("new_episodes", "all") or (self.mode == "once" and not self._existed)

    async def _record(self, key: str, request: JSONDict, response: JSONDict, meta: JSONDict) -> None:
        async with self._lock:
            current = self.interactions.get(key)
            if self.mode == "all" and key not in self._rerecorded:
                current = None  # re-record: forget what an older run stored under this key
                self._rerecorded.add(key)
            if current is None:
                current = self.interactions[key] = Interaction(key, normalise(request), [], _scrub(dict(meta)))
            current.responses.append(copy.deepcopy(response))
            self._plays[key] = len(current.responses)
            self.recorded += 1
            self._dirty = True
            self.save()

    def _miss(self, request: JSONDict, meta: JSONDict) -> CassetteMissError:
        tool = meta.get("tool")
        last = _last_user(request)
        scored = []
        for item in self.interactions.values():
            same_tool = item.meta.get("tool") == tool
            ratio = difflib.SequenceMatcher(None, last, _last_user(item.request), autojunk=False).quick_ratio()
            scored.append((same_tool, ratio, item))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        closest = "; ".join(
            f"{i.key[:12]} (tool {i.meta.get('tool')!r}, turn {i.meta.get('turn')}, {ratio:.0%} similar)"
            for _, ratio, i in scored[:3]
        ) or "none (the cassette is empty)"
        return CassetteMissError(
            f"cassette {self.path} has no recorded answer for tool {tool!r} at turn {meta.get('turn')} "
            f"(request {request_key(request)[:12]}); closest recorded: {closest}",
            hint="the episode differs from the recorded one (calls, arguments, world file, model or sampling "
                 "settings); re-record with --record-mode new_episodes (add) or all (replace)",
        )

    # -- file -------------------------------------------------------------------------
    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
            data = yaml.safe_load(text) if self.path.suffix in (".yaml", ".yml") else json.loads(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read cassette {self.path}: {exc}; delete it to record afresh") from None
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            found = data.get("version") if isinstance(data, dict) else None
            raise ConfigError(f"cassette {self.path} has format version {found!r}, this agentworld-mcp reads "
                              f"version {FORMAT_VERSION}; re-record it with --record-mode all")
        for item in data.get("interactions", []):
            self.interactions[item["key"]] = Interaction(item["key"], item["request"], list(item["responses"]),
                                                         dict(item.get("meta") or {}))

    def to_dict(self) -> JSONDict:
        return {"version": FORMAT_VERSION, "generator": "agentworld-mcp",
                "interactions": [i.to_dict() for i in self.interactions.values()]}

    def save(self) -> None:
        """Write the file atomically (temp file, then rename): a crash never leaves half a cassette."""
        if not self._dirty:
            return
        data = self.to_dict()
        if self.path.suffix in (".yaml", ".yml"):
            text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        else:
            text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        replace_file(self.path, text)
        self._dirty = False


def _last_user(request: JSONDict) -> str:
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class CassetteWorldModel:
    """A language world model whose model requests go through a cassette."""

    def __init__(self, inner: LLMWorldModel, cassette: Cassette) -> None:
        self.inner = inner
        self.cassette = cassette
        inner.interceptor = cassette
        self.name = f"cassette({inner.name})"

    async def predict(self, step: Step) -> Prediction:
        prediction = await self.inner.predict(step)
        prediction.info["cassette"] = {"path": str(self.cassette.path), "mode": self.cassette.mode}
        return prediction

    async def aclose(self) -> None:
        try:
            await self.cassette.aclose()
        finally:
            await self.inner.aclose()
