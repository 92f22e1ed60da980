"""Perturbation policies: what to inject, into which tools, on which calls.

A policy is pure data (pydantic models at the edge), written in a world file's
``perturbations:`` key, a ``--perturb FILE``, a preset name, or passed per episode / per
call. Every value here is JSON, so a policy travels in MCP ``_meta`` and in episode state.

Accepted shapes, everywhere a policy is accepted:

* ``None`` / ``false`` / ``"none"`` / ``"off"``: no perturbations;
* a preset name (``"flaky-network"``), see :mod:`.presets`;
* a list of rules;
* a single rule (a mapping with ``kind``);
* a policy mapping: ``{preset, rules, style, inherit, scope}``.
"""

from __future__ import annotations

import fnmatch
from functools import cached_property
import hashlib
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import PerturbationPolicyError
from ..world.roles import ToolRole
from .presets import PRESETS

JSONDict = dict[str, Any]

ERROR_KINDS = (
    "rate_limit", "timeout", "unavailable", "server_error", "not_found", "permission_denied", "conflict", "validation",
)
Kind = Literal[
    "rate_limit", "timeout", "unavailable", "server_error", "not_found", "permission_denied", "conflict",
    "validation", "latency", "paginate", "instruct", "protocol_error", "hang",
]
RoleName = Literal["read", "write", "list", "create", "update", "delete", "move", "search", "action"]
Style = Literal["auto", "http", "fs", "sql"]
OFF = ("none", "off", "")

#: Named JSON-RPC codes a ``protocol_error`` rule may use (or give an integer).
RPC_CODES: dict[str, int] = {
    "parse_error": -32700, "invalid_request": -32600, "method_not_found": -32601, "invalid_params": -32602,
    "internal_error": -32603, "server_error": -32000, "server_overloaded": -32001, "request_timeout": -32002,
}


class Rule(BaseModel):
    """One perturbation: which calls it selects, when it fires, what it does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    name: str | None = None
    # -- selection
    tools: tuple[str, ...] = ("*",)
    roles: tuple[RoleName, ...] = ()
    # -- schedule (all given conditions must hold; none given: every selected call)
    probability: float | None = Field(default=None, ge=0, le=1)
    calls: tuple[int, ...] | None = None
    every: int | None = Field(default=None, ge=1)
    turns: tuple[int, ...] | None = None
    max_fires: int | None = Field(default=None, ge=1)
    # -- effects
    delay: float | tuple[float, float] | None = None
    message: str | None = None
    status: int | None = Field(default=None, ge=400, le=599)
    retry_after: float = Field(default=1.0, gt=0)
    limit: int | None = Field(default=None, ge=1)
    window: float | None = Field(default=None, gt=0)
    #: rate_limit: what ``retry_after``/``window`` count. ``wall`` (default): real seconds, as a real
    #: service; ``turns``: calls of the episode (one a second), so a slow machine sees the same run.
    clock: Literal["wall", "turns"] = "wall"
    page_size: int = Field(default=10, ge=1)
    text: str | None = None
    persist: bool = True
    code: int | str = "internal_error"
    seconds: float = Field(default=300.0, gt=0)

    @field_validator("tools", "roles", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("calls", "turns")
    @classmethod
    def _positive(cls, value: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if value is not None and any(v < 1 for v in value):
            raise ValueError("call and turn numbers start at 1")
        return value

    @field_validator("delay")
    @classmethod
    def _delay(cls, value: Any) -> Any:
        low, high = (value, value) if isinstance(value, (int, float)) else (value or (0, 0))
        if low < 0 or high < low:
            raise ValueError("delay is seconds >= 0, or [min, max] with min <= max")
        return value

    @model_validator(mode="after")
    def _per_kind(self) -> Rule:
        if self.kind == "instruct" and not self.text:
            raise ValueError("an 'instruct' rule needs 'text': the event to tell the world model")
        if self.kind == "protocol_error" and isinstance(self.code, str) and self.code not in RPC_CODES:
            raise ValueError(f"unknown JSON-RPC code name {self.code!r}; use one of {sorted(RPC_CODES)} or an integer")
        if (self.limit is None) != (self.window is None):
            raise ValueError("'limit' and 'window' go together: at most 'limit' calls per 'window' seconds")
        if self.limit is not None and self.kind != "rate_limit":
            raise ValueError("'limit'/'window' quotas only apply to 'rate_limit' rules")
        return self

    @cached_property
    def key(self) -> str:
        """Stable id of the rule in episode state (counters, windows): its name, or a digest."""
        if self.name:
            return self.name
        body = json.dumps(self.model_dump(mode="json", exclude_defaults=True), sort_keys=True)
        return f"{self.kind}-{hashlib.sha1(body.encode()).hexdigest()[:8]}"

    @property
    def rpc_code(self) -> int:
        return self.code if isinstance(self.code, int) else RPC_CODES[self.code]

    def selects(self, tool: str, role: ToolRole) -> bool:
        if not any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.tools):
            return False
        return not self.roles or any(_role_matches(r, role) for r in self.roles)


def _role_matches(name: str, role: ToolRole) -> bool:
    if name == "read":
        return role.is_read
    if name == "write":
        return role.is_write
    if name == "list":
        return role.kind in ("list", "search")
    return role.kind == name


class Policy(BaseModel):
    """A set of rules, optionally built on presets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    #: How injected errors are worded: like a REST API (http), a file system (fs), a database (sql);
    #: ``auto`` picks per tool.
    style: Style = "auto"
    #: Add these rules to the policy below (world file < run < episode < call) instead of replacing it.
    inherit: bool = False
    #: For overrides sent with a call: ``episode`` keeps the policy for the rest of the episode.
    scope: Literal["call", "episode"] = "call"

    @field_validator("preset", mode="before")
    @classmethod
    def _presets(cls, value: Any) -> Any:
        value = (value,) if isinstance(value, str) else value
        for name in value or ():
            if name not in PRESETS:
                raise ValueError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        return value

    def all_rules(self) -> tuple[Rule, ...]:
        """Preset rules first, then the policy's own."""
        inherited: tuple[Rule, ...] = ()
        for name in self.preset:
            inherited += preset_policy(name).all_rules()
        return inherited + self.rules

    def over(self, lower: Policy | None) -> Policy:
        """This policy applied on top of ``lower``."""
        if lower is None or not self.inherit:
            return self
        return Policy(rules=lower.all_rules() + self.all_rules(), style=self.style if self.style != "auto" else lower.style)


EMPTY = Policy()


def parse_policy(value: Any, *, source: str = "perturbations") -> Policy:
    """Any accepted policy shape -> :class:`Policy`. Raises :class:`PerturbationPolicyError`."""
    if isinstance(value, Policy):
        return value
    if value is None or value is False or (isinstance(value, str) and value.strip().lower() in OFF):
        return EMPTY
    if isinstance(value, str):
        value = {"preset": value.strip()}
    elif isinstance(value, list):
        value = {"rules": value}
    elif isinstance(value, dict) and "kind" in value:
        value = {"rules": [value]}
    if not isinstance(value, dict):
        raise PerturbationPolicyError(source, [f"a policy is a preset name, a rule, a list of rules or a mapping, not {type(value).__name__}"])
    try:
        return Policy.model_validate(value)
    except ValidationError as exc:
        raise PerturbationPolicyError(source, [_describe(e) for e in exc.errors()]) from None


@lru_cache(maxsize=256)
def _parse_json(text: str) -> Policy:
    return parse_policy(json.loads(text), source="per-call perturbation override")


def parse_cached(value: Any) -> Policy:
    """:func:`parse_policy` for values that repeat (per-call ``_meta``, episode state): parsed once."""
    if value is None or isinstance(value, (str, Policy)):
        return parse_policy(value, source="per-call perturbation override")
    return _parse_json(json.dumps(value, sort_keys=True))


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"] if not str(p).startswith("function-")) or "(policy)"
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}"


def load_policy_arg(arg: str) -> Policy:
    """``--perturb`` on the command line: a preset name, a policy file, or inline JSON/YAML."""
    text = arg.strip()
    if text in PRESETS or text.lower() in OFF:
        return parse_policy(text, source="--perturb")
    if text.startswith(("{", "[")):
        return parse_policy(_yaml(text, "--perturb"), source="--perturb")
    path = Path(text)
    if path.is_file():
        data = _yaml(path.read_text(encoding="utf-8"), str(path))
        if isinstance(data, dict) and "perturbations" in data and "kind" not in data:
            data = data["perturbations"]  # a world file, or a file holding just the key
        return parse_policy(data, source=str(path))
    raise PerturbationPolicyError("--perturb", [
        f"{arg!r} is neither a preset ({', '.join(PRESETS)}) nor an existing policy file; "
        "pass a preset name, the path of a .yaml/.json policy, or inline JSON"
    ])


def _yaml(text: str, source: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PerturbationPolicyError(source, [f"invalid YAML/JSON: {exc}"]) from None


@cache
def preset_policy(name: str) -> Policy:
    """The preset ``name`` as a :class:`Policy` (parsed once)."""
    return parse_policy(PRESETS[name], source=f"preset {name!r}")
