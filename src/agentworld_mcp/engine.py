"""The step pipeline: the one thing that answers a tool call (see DESIGN.md).

    validate args -> perturb (before) -> world model predicts -> validate output
    -> ledger reconcile -> perturb (after) -> record the turn -> ToolResult

Every entry point (MCP server, LangGraph adapter, pytest plugin, CLI) calls
:meth:`Simulator.call`.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from .backends.base import Prediction, Step, WorldModel
from .catalog import Catalog, ToolSpec
from .episode import DEFAULT_EPISODE, Episode, Turn
from .errors import InjectedFault, SimulatorError, UnknownToolError
from .ledger import Effect
from .result import SIMULATOR_ERROR_META, ToolResult, dump_json
from .store import EpisodeStore, open_store
from .world import World

log = logging.getLogger("agentworld_mcp")
JSONDict = dict[str, Any]


class Perturber(Protocol):
    """The perturbation stage (errors, latency, pagination); see :mod:`agentworld_mcp.perturb`."""

    async def before(self, step: Step, fired: list[JSONDict], overrides: Any = None) -> ToolResult | None: ...

    def after(self, step: Step, result: ToolResult, fired: list[JSONDict]) -> ToolResult: ...


class Recorder(Protocol):
    """Receives every completed turn (trajectory files)."""

    def record(self, world: World, episode: Episode, turn: Turn) -> None: ...


@dataclass
class Stats:
    """Counters a person (or a test) can read to see how the simulation went."""

    calls: int = 0
    tool_errors: int = 0
    simulator_errors: Counter[str] = field(default_factory=Counter)
    repairs: int = 0
    perturbations: Counter[str] = field(default_factory=Counter)


class Simulator:
    """A world, a world model and the episodes being played in it."""

    def __init__(
        self,
        world: World,
        *,
        backend: WorldModel | None = None,
        seed: int = 0,
        store: EpisodeStore | str | os.PathLike[str] | None = None,
        perturber: Perturber | None = None,
        recorders: list[Recorder] | None = None,
    ) -> None:
        from .backends.schema import SchemaWorldModel

        self.world = world
        self.catalog = Catalog(world).warm()
        self.backend: WorldModel = backend or SchemaWorldModel()
        self.seed = seed
        self.store: EpisodeStore = open_store(store, world)  # a path means a SQLite state file
        if perturber is None:  # the world file's policy; per-episode/per-call overrides need it too
            from .perturb import perturber_for

            perturber = perturber_for(world)
        self.perturber: Perturber = perturber
        self.recorders: list[Recorder] = list(recorders or [])
        self.stats = Stats()

    # -- the pipeline --------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: JSONDict | None = None,
        *,
        episode: str | None = None,
        perturb: Any = None,
    ) -> ToolResult:
        """Answer one tool call in ``episode`` (the shared world when None).

        Raises :class:`UnknownToolError` for a tool the world does not have; every other
        outcome, including simulator failures, is a :class:`ToolResult`.
        """
        spec = self.catalog.get(tool)
        if spec is None:
            raise UnknownToolError(tool, self.world.tool_names)
        arguments = {} if arguments is None else arguments
        async with self.store.session(episode or DEFAULT_EPISODE, self._new_episode) as ep:
            started, t0 = time.time(), time.perf_counter()
            index = ep.next_turn
            fired: list[JSONDict] = []
            info: JSONDict = {}
            fault: InjectedFault | None = None
            problems = spec.argument_problems(arguments)
            if problems:
                result = _invalid_arguments(spec, problems)
            else:
                step = Step(self.world, spec, arguments, ep, index, ep.rng(index, tool))
                try:
                    result = await self.perturber.before(step, fired, perturb)
                except InjectedFault as exc:  # recorded now, delivered outside the episode lock
                    fault, result = exc, exc.result  # type: ignore[assignment]
                if result is None:
                    result = await self._predict(step, info)
                    result = self.perturber.after(step, result, fired)
            turn = Turn(
                index, tool, arguments, result.to_dict(), self.backend.name, fired, started,
                round((time.perf_counter() - t0) * 1000, 3), info,
            )
            ep.turns.append(turn)
            for recorder in self.recorders:
                recorder.record(self.world, ep, turn)
        self._count(result, fired, info)
        if fault is not None:
            return await fault.deliver()  # type: ignore[return-value]
        return result

    async def _predict(self, step: Step, info: JSONDict) -> ToolResult:
        try:
            prediction = await self.backend.predict(step)
        except SimulatorError as exc:
            return self._simulator_error(step.tool, exc, info)
        info.update(prediction.info)
        result = self._to_result(step.tool, prediction)
        if isinstance(result, SimulatorError):
            return self._simulator_error(step.tool, result, info)
        if not result.is_error:
            effects = prediction.effects if prediction.effects is not None else self._infer_effects(step, prediction)
            step.episode.ledger.apply(effects, step.turn)
        return result

    def _to_result(self, spec: ToolSpec, prediction: Prediction) -> ToolResult | SimulatorError:
        observation = prediction.observation
        if prediction.is_error or spec.output_schema is None:
            if prediction.text is not None:
                return ToolResult.from_text(prediction.text, is_error=prediction.is_error)
            return ToolResult.from_json(observation, structured=False, is_error=prediction.is_error)
        problems = spec.output_problems(observation)
        if problems:  # the final guard: never return structuredContent that fails the schema
            from .errors import InvalidObservationError

            return InvalidObservationError(
                f"the world model's observation for {spec.name!r} does not match its outputSchema: {problems[0]}",
                hint="check the backend's output or use a stronger world model",
            )
        if prediction.text is not None:  # what the real server prints beside its structured result
            return ToolResult([{"type": "text", "text": prediction.text}], observation)
        # Otherwise the text block is the same JSON as structuredContent (MCP's compatibility rule).
        return ToolResult.from_json(observation, structured=True)

    def _infer_effects(self, step: Step, prediction: Prediction) -> list[Effect]:
        from .reconcile import infer_effects

        return infer_effects(step, prediction)

    def _simulator_error(self, spec: ToolSpec, exc: SimulatorError, info: JSONDict) -> ToolResult:
        self.stats.simulator_errors[exc.kind] += 1
        info["simulator_error"] = {"kind": exc.kind, "message": str(exc)}
        log.error("simulator error on %s (%s): %s", spec.name, exc.kind, exc, exc_info=exc.__cause__ is not None)
        hint = f" {exc.hint}" if exc.hint else ""
        text = f"[agentworld-mcp simulator error: {exc.kind}] {exc}.{hint} (This error comes from the simulator, not from the simulated tool.)"
        return ToolResult.from_text(text, is_error=True, meta={SIMULATOR_ERROR_META: exc.kind})

    def _count(self, result: ToolResult, fired: list[JSONDict], info: JSONDict) -> None:
        self.stats.calls += 1
        self.stats.tool_errors += result.is_error and not result.is_simulator_error
        self.stats.repairs += len(info.get("repairs", ()))
        for item in fired:
            self.stats.perturbations[str(item.get("kind", "?"))] += 1

    # -- episodes --------------------------------------------------------------------

    def _new_episode(self, episode_id: str) -> Episode:
        return Episode.new(self.world, episode_id, self.seed)

    async def episode(self, episode_id: str = DEFAULT_EPISODE) -> Episode:
        """The episode's current state (created, with seed state, if it does not exist yet)."""
        async with self.store.session(episode_id, self._new_episode) as ep:
            return ep

    async def trajectory(self, episode_id: str = DEFAULT_EPISODE) -> list[Turn]:
        return list((await self.episode(episode_id)).turns)

    async def state(self, episode_id: str = DEFAULT_EPISODE) -> JSONDict:
        """A snapshot of the episode's ledger: live entities by collection."""
        return (await self.episode(episode_id)).ledger.snapshot()

    async def reset(self, episode_id: str = DEFAULT_EPISODE) -> None:
        """Start the episode afresh from the world's seed state."""
        async with self.store.session(episode_id, self._new_episode) as ep:
            fresh = self._new_episode(episode_id)
            ep.ledger, ep.turns, ep.state = fresh.ledger, fresh.turns, fresh.state

    async def aclose(self) -> None:
        await self.backend.aclose()
        close = getattr(self.store, "close", None)
        if close is not None:
            await close()
        for recorder in self.recorders:
            closer = getattr(recorder, "close", None)
            if closer is not None:
                closer()

    async def __aenter__(self) -> Simulator:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _invalid_arguments(spec: ToolSpec, problems: list[str]) -> ToolResult:
    detail = "\n".join(problems)
    return ToolResult.from_text(f"Input validation error: invalid arguments for tool {spec.name}:\n{detail}", is_error=True)


__all__ = ["Simulator", "Stats", "Perturber", "Recorder", "dump_json"]
