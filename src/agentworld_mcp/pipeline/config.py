"""One configuration path for every entry point (CLI, Python API, LangGraph, pytest plugin).

A simulator's settings come from three sources, later ones winning:

1. the world file (``backend: {type, seed, cassette, record_mode, base_url, ...}`` and
   ``perturbations:``);
2. the environment (``AGENTWORLD_BACKEND``, ``AGENTWORLD_SEED``, ``AGENTWORLD_PERTURB``,
   ``AGENTWORLD_CASSETTE``, ``AGENTWORLD_RECORD_MODE``, ``AGENTWORLD_DEADLINE``; the llm backend also reads
   ``AGENTWORLD_BASE_URL``, ``AGENTWORLD_MODEL`` and ``OPENAI_API_KEY``);
3. explicit overrides (command-line flags, keyword arguments, pytest options and markers).

:meth:`SimulatorConfig.resolve` merges them once; :meth:`Simulator.from_world
<agentworld_mcp.pipeline.engine.Simulator.from_world>` is the one constructor every entry point
uses, so the same world file gives the same simulator everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..world.kinds import BackendKind, RecordMode

if TYPE_CHECKING:
    from ..models.base import WorldModel
    from ..world.world import World

JSONDict = dict[str, Any]


#: Environment variables of the simulator-wide settings (llm settings: see LLMSettings).
ENV_VARS = {
    "backend": "AGENTWORLD_BACKEND",
    "seed": "AGENTWORLD_SEED",
    "perturb": "AGENTWORLD_PERTURB",
    "cassette": "AGENTWORLD_CASSETTE",
    "record_mode": "AGENTWORLD_RECORD_MODE",
    "deadline": "AGENTWORLD_DEADLINE",
}

#: Seconds the deterministic world model may take for one call when no deadline is given: far
#: above any real answer (milliseconds), short enough that a hostile call is answered quickly.
DEFAULT_DEADLINE = 5.0


@dataclass(frozen=True)
class SimulatorConfig:
    """The merged settings of one simulator (world file < environment < overrides)."""

    backend: BackendKind = BackendKind.SCHEMA
    seed: int = 0
    #: A run-level perturbation policy over the world file's (a preset name, a policy file or
    #: inline JSON as given on the command line, or a policy mapping); None: the world's own.
    perturb: Any = None
    cassette: str | None = None
    record_mode: RecordMode = RecordMode.ONCE
    #: llm settings given as overrides (``base_url``, ``model``, ``temperature``...).
    llm: JSONDict = field(default_factory=dict)
    #: Seconds one prediction may take (``--deadline``); None: :data:`DEFAULT_DEADLINE` for the
    #: deterministic model, and for the llm backend its own ``--timeout`` alone.
    deadline: float | None = None

    @classmethod
    def resolve(
        cls,
        world: World,
        *,
        env: Mapping[str, str] | None = None,
        backend: str | BackendKind | None = None,
        seed: int | str | None = None,
        perturb: Any = None,
        cassette: str | os.PathLike[str] | None = None,
        record_mode: str | RecordMode | None = None,
        deadline: float | str | None = None,
        **llm: Any,
    ) -> SimulatorConfig:
        """Merge the world file, ``env`` (default ``os.environ``) and the overrides given (None = not given)."""
        env = os.environ if env is None else env
        file = world.backend or {}
        where = f"{world.source or world.name}: backend"

        def pick(name: str, given: Any) -> tuple[Any, str]:
            if given is not None:
                return given, name
            if env.get(ENV_VARS[name]):
                return env[ENV_VARS[name]], ENV_VARS[name]
            if name == "perturb":
                return None, "world file"
            return file.get("type" if name == "backend" else name), f"{where}.{'type' if name == 'backend' else name}"

        kind, kind_from = pick("backend", backend)
        seed_value, seed_from = pick("seed", seed)
        mode, mode_from = pick("record_mode", record_mode)
        tape, _ = pick("cassette", cassette)
        policy, _ = pick("perturb", perturb)
        limit, limit_from = pick("deadline", deadline)
        return cls(
            backend=BackendKind.parse(kind, kind_from) if kind is not None else BackendKind.SCHEMA,
            seed=_seed(seed_value, seed_from),
            perturb=policy,
            cassette=str(tape) if tape is not None else None,
            record_mode=RecordMode.parse(mode, mode_from) if mode is not None else RecordMode.ONCE,
            llm={k: v for k, v in llm.items() if v not in (None, [])},
            deadline=_deadline(limit, limit_from),
        )

    def make_backend(self, world: World) -> WorldModel:
        """The world model these settings ask for."""
        from ..models import make_backend

        return make_backend(world, kind=self.backend.value, cassette=self.cassette,
                            record_mode=self.record_mode.value, **self.llm)

    def make_perturber(self, world: World) -> Any:
        """The perturbation stage: the world file's policy, with the run-level one on top."""
        from ..perturb import load_policy_arg, perturber_for

        policy = load_policy_arg(str(self.perturb)) if isinstance(self.perturb, (str, Path)) else self.perturb
        return perturber_for(world, policy)


def _deadline(value: Any, source: str) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise ConfigError(f"deadline must be a positive number of seconds, got {value!r} ({source})")
    return seconds


def _seed(value: Any, source: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise ConfigError(f"seed must be an integer, got {value!r} ({source})")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"seed must be an integer, got {value!r} ({source})") from None


__all__ = ["DEFAULT_DEADLINE", "ENV_VARS", "SimulatorConfig"]
