"""The step pipeline: the one thing that answers a tool call (see docs/architecture.md).

    validate arguments -> perturb (before) -> world model predicts -> check output
    -> reconcile (work out the ledger changes) -> perturb (after) -> record the turn, then commit
    its changes -> deliver

Each stage is one method below that takes what the previous one returns. Every entry point
(MCP server, LangGraph adapter, pytest plugin, CLI) builds its simulator with
:meth:`Simulator.from_world` and calls :meth:`Simulator.call`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from ..models.base import WorldModel
from ..world.catalog import Catalog, ToolSpec
from .config import DEFAULT_DEADLINE, SimulatorConfig
from ..state.episode import DEFAULT_EPISODE, Episode, Turn, episode_id
from ..errors import (
    ConfigError, DeadlineExceededError, InvalidObservationError, SimulatorBugError, SimulatorError, StateStoreError,
    UnknownToolError,
)
from ..state.ledger import Effect
from ..state.result import SIMULATOR_ERROR_META, ToolResult, dump_json, item_blocks
from ..state.step import Gate, Prediction, Step
from ..state.store import EpisodeStore
from ..state.stores import open_store
from ..world.world import World

log = logging.getLogger("agentworld_mcp")
#: One line per call at INFO (``-v``): time, episode, tool, short arguments, outcome, perturbations, latency.
calls_log = logging.getLogger("agentworld_mcp.calls")
JSONDict = dict[str, Any]

#: The stages of :meth:`Simulator.run`, in order (an outcome lists those it went through).
STAGES = ("validate", "perturb_before", "predict", "check_output", "reconcile", "perturb_after", "record")


class Perturber(Protocol):
    """The perturbation stage (errors, latency, pagination); see :mod:`agentworld_mcp.perturb`."""

    async def before(self, step: Step, overrides: Any = None) -> Gate: ...

    def after(self, step: Step, result: ToolResult, gate: Gate) -> ToolResult: ...


class TurnSink(Protocol):
    """Receives every completed turn (trajectory files, the pytest plugin's call log)."""

    def record(self, catalog: Catalog, episode: Episode, turn: Turn) -> None: ...


@dataclass
class Stats:
    """Counters a person (or a test) can read to see how the simulation went."""

    calls: int = 0
    tool_errors: int = 0
    simulator_errors: Counter[str] = field(default_factory=Counter)
    repairs: int = 0
    perturbations: Counter[str] = field(default_factory=Counter)


@dataclass
class Outcome:
    """Everything one call produced: the result, what fired, what the world model said about it."""

    result: ToolResult
    gate: Gate = field(default_factory=Gate)
    info: JSONDict = field(default_factory=dict)
    #: The stages the call went through, in order (a subset of :data:`STAGES`).
    stages: list[str] = field(default_factory=list)
    turn: Turn | None = None
    #: The ledger changes of a successful call, committed by the record stage once the turn is recorded.
    effects: list[Effect] = field(default_factory=list)

    @property
    def fired(self) -> list[JSONDict]:
        return self.gate.fired


class Simulator:
    """A world, a world model and the episodes being played in it.

    ``Simulator(world)`` takes the world file's settings (backend, seed, perturbations) and
    the environment's; :meth:`from_world` also takes overrides by name, as the CLI's flags.
    """

    def __init__(
        self,
        world: World,
        *,
        backend: WorldModel | None = None,
        seed: int | None = None,
        store: EpisodeStore | str | os.PathLike[str] | None = None,
        perturber: Perturber | str | Mapping[str, Any] | None = None,
        recorders: list[TurnSink] | None = None,
        config: SimulatorConfig | None = None,
    ) -> None:
        config = config or SimulatorConfig.resolve(world)
        if perturber is None or hasattr(perturber, "before"):
            stage = cast("Perturber | None", perturber)
        else:  # a preset name, a policy mapping, a Policy or a policy file: the run-level policy
            stage = dataclasses.replace(config, perturb=perturber).make_perturber(world)
        self.world = world
        self.config = config
        self.catalog = Catalog(world).warm()
        self.backend: WorldModel = backend or config.make_backend(world)
        prepare = getattr(self.backend, "prepare", None)  # optional: a model's one-time set-up for this catalog
        if callable(prepare):
            prepare(self.catalog)
        self.seed = config.seed if seed is None else seed
        self.store: EpisodeStore = open_store(store, world)  # a path: SQLite; redis://: Redis
        # The world file's policy at least: per-episode and per-call overrides need the stage too.
        self.perturber: Perturber = stage or config.make_perturber(world)
        self.recorders: list[TurnSink] = list(recorders or [])
        self.stats = Stats()

    @classmethod
    def from_world(
        cls,
        world: World,
        *,
        backend: WorldModel | str | None = None,
        store: EpisodeStore | str | os.PathLike[str] | None = None,
        recorders: list[TurnSink] | None = None,
        env: Any = None,
        **overrides: Any,
    ) -> Simulator:
        """The simulator for ``world``: world file < environment < ``overrides``.

        ``overrides`` are the settings of :meth:`SimulatorConfig.resolve
        <agentworld_mcp.pipeline.config.SimulatorConfig.resolve>` (``seed``, ``perturb``, ``cassette``,
        ``record_mode``, and llm settings such as ``base_url`` or ``model``); None means not
        given. ``backend`` is a kind (``"schema"``, ``"llm"``) or a world model object.
        """
        kind = backend if isinstance(backend, str) or backend is None else None
        config = SimulatorConfig.resolve(world, env=env, backend=kind, **overrides)
        model = backend if backend is not None and not isinstance(backend, str) else None
        return cls(world, backend=model, store=store, recorders=recorders, config=config)

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

        Raises :class:`UnknownToolError` for a tool the world does not have (and an injected
        protocol fault raises its :class:`InjectedProtocolError`); every other outcome,
        including simulator failures, is a :class:`ToolResult`.
        """
        return await self.deliver(await self.run(tool, arguments, episode=episode, perturb=perturb))

    async def run(
        self,
        tool: str,
        arguments: JSONDict | None = None,
        *,
        episode: str | None = None,
        perturb: Any = None,
    ) -> Outcome:
        """Run the pipeline for one call and return its whole :class:`Outcome` (nothing delivered yet)."""
        spec = self._tool(tool)
        arguments = {} if arguments is None else arguments
        selected = episode_id(episode) or DEFAULT_EPISODE
        held: list[Any] = []  # recorders whose line waits for the store's commit (TrajectoryRecorder.begin)
        try:
            async with self.store.session(selected, self._new_episode) as ep:
                started, t0 = time.time(), time.perf_counter()
                try:
                    outcome = await self._answer(spec, arguments, ep, perturb)
                except ConfigError:
                    raise  # the caller's own settings (a bad per-call policy): theirs to fix, as an error
                except Exception as exc:  # any other failure is the simulator's: a named result, never a crash
                    outcome = Outcome(self._simulator_error(spec, _as_simulator_error(exc, spec)), stages=["failed"])
                try:
                    outcome.turn = await self._record(ep, spec, arguments, outcome, started, t0, held)
                except Exception as exc:  # a bug while committing the changes: the turn is that failure
                    _settle(held, committed=False)
                    outcome = Outcome(self._simulator_error(spec, _as_simulator_error(exc, spec)), stages=["failed"])
                    outcome.turn = await self._record(ep, spec, arguments, outcome, started, t0, held)
        except StateStoreError as exc:  # the file or the server under the episodes failed: nothing committed
            _settle(held, committed=False)
            outcome = Outcome(self._simulator_error(spec, exc), stages=["failed"])
        except BaseException:
            _settle(held, committed=False)
            raise
        _settle(held, committed=True)
        self._count(outcome)
        if calls_log.isEnabledFor(logging.INFO):
            _log_call(selected, outcome)
        return outcome

    async def deliver(self, outcome: Outcome) -> ToolResult:
        """The result for the caller, after the episode is released (an injected hang waits here)."""
        fault = outcome.gate.fault
        if fault is not None:
            return await fault.deliver()  # type: ignore[return-value]
        return outcome.result

    def _tool(self, name: str) -> ToolSpec:
        spec = self.catalog.get(name)
        if spec is None:
            raise UnknownToolError(name, self.world.tool_names)
        return spec

    async def _answer(self, spec: ToolSpec, arguments: JSONDict, ep: Episode, perturb: Any) -> Outcome:
        stages = ["validate"]
        problems = spec.argument_problems(arguments)
        if problems:
            return Outcome(_invalid_arguments(spec, problems), stages=stages)
        step = Step(self.world, spec, arguments, ep, ep.next_turn, ep.rng(ep.next_turn, spec.name), catalog=self.catalog)
        stages.append("perturb_before")
        gate = await self.perturber.before(step, perturb)
        if gate.result is not None:
            return Outcome(gate.result, gate, stages=stages)
        step.whole_listing = gate.paginate is not None  # the perturbation stage cuts the pages, from the whole listing
        stages.append("predict")
        prediction = await self._predict(step)
        stages.append("check_output")
        result = self._check_output(step, prediction)
        effects: list[Effect] = []
        if isinstance(prediction, Prediction) and not result.is_error:
            stages.append("reconcile")
            effects = self._reconcile(step, prediction)
        stages.append("perturb_after")
        result = self.perturber.after(step, result, gate)
        info = prediction.info if isinstance(prediction, Prediction) else _error_info(prediction)
        return Outcome(result, gate, info, stages, effects=effects)

    async def _predict(self, step: Step) -> Prediction | SimulatorError:
        """The world model's prediction, or the simulator failure that stood in its way.

        Bounded by the deadline: a CPU-bound model (the deterministic one) runs in a worker
        thread, so the event loop keeps serving other sessions; an async one (the llm backend)
        stays on the loop and is cancelled at the deadline, when one is set. A Python thread
        cannot be killed: a prediction past its deadline finishes in the background (the SQL
        engine's own limits end a runaway query) and its answer is dropped. Predictions never
        change the episode, and the episode is committed with the deadline error, not with it.
        """
        model = _model_for(self.backend, step)
        try:
            if _cpu_bound(model):
                deadline = self.config.deadline or DEFAULT_DEADLINE
                if getattr(model, "cpu_bound", None) or _heavy(step):  # e.g. a real query: off the loop
                    return await self._in_thread(model.predict(step), deadline)
                # Microseconds of Python: a thread would cost more than the answer (bench_roundtrip),
                # and could not free the loop anyway while it holds the GIL. Checked after the fact.
                started = time.perf_counter()
                prediction = await model.predict(step)
                if time.perf_counter() - started > deadline:
                    raise _deadline_error(deadline)
                return prediction
            if self.config.deadline is None:
                return await model.predict(step)
            try:
                async with asyncio.timeout(self.config.deadline):
                    return await model.predict(step)
            except TimeoutError:
                return _deadline_error(self.config.deadline)
        except Exception as exc:  # a bug must reach the client as a named tool error, never a protocol error
            return _as_simulator_error(exc, step.tool)

    async def _in_thread(self, prediction: Coroutine[Any, Any, Prediction], deadline: float) -> Prediction | SimulatorError:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Prediction] = loop.create_future()
        # A daemon thread per call (not a pool): a runaway one never holds up others queued behind
        # it, nor the process's exit (a pool's threads are joined at exit).
        threading.Thread(target=_run_to_end, args=(prediction, loop, future), name="agentworld-predict",
                         daemon=True).start()
        done, _ = await asyncio.wait({future}, timeout=deadline)
        if future in done:
            return future.result()
        future.add_done_callback(_late)  # its answer, or its failure, goes nowhere
        raise _deadline_error(deadline)

    def _check_output(self, step: Step, prediction: Prediction | SimulatorError) -> ToolResult:
        """The tool result for the prediction: the final guard that structuredContent fits the schema."""
        if isinstance(prediction, SimulatorError):
            return self._simulator_error(step.tool, prediction)
        spec, observation = step.tool, prediction.observation
        if prediction.is_error or spec.output_schema is None:
            if prediction.is_error and spec.output_schema is not None and prediction.text is not None \
                    and isinstance(observation, dict):  # a refusal the server worded and structured (a recording's)
                return ToolResult([{"type": "text", "text": prediction.text}], observation, True)
            if prediction.text is not None:
                return ToolResult.from_text(prediction.text, is_error=prediction.is_error)
            return ToolResult.from_json(observation, structured=False, is_error=prediction.is_error)
        problems = [] if prediction.checked else spec.output_problems(observation)
        if problems:
            bad = InvalidObservationError(
                f"the world model's observation for {spec.name!r} does not match its outputSchema: {problems[0]}",
                hint="check the backend's output or use a stronger world model",
            )
            prediction.info["simulator_error"] = {"kind": bad.kind, "message": str(bad)}
            return self._simulator_error(spec, bad)
        if prediction.text is not None:  # what the real server prints beside its structured result
            blocks = item_blocks(spec.output_schema, observation, prediction.text) or [prediction.text]
            return ToolResult([{"type": "text", "text": block} for block in blocks], observation)
        # Otherwise the text block is the same JSON as structuredContent (MCP's compatibility rule).
        return ToolResult.from_json(observation, structured=True)

    def _reconcile(self, step: Step, prediction: Prediction) -> list[Effect]:
        """The call's effects on the ledger (only for successful results); :meth:`_record` applies them."""
        effects = prediction.effects
        if effects is None:  # a world model that does not say what it changed
            from .reconcile import infer_effects

            effects = infer_effects(step, prediction)
        return effects

    async def _record(self, ep: Episode, spec: ToolSpec, arguments: JSONDict, outcome: Outcome, started: float,
                      t0: float, held: list[Any]) -> Turn:
        """Give the turn to the recorders, then commit it: its ledger changes and the episode's turns.

        Recorded first, so a turn the episode keeps is in the trajectory file too. A recorder that
        fails (a full disk under ``--record``) leaves the call uncommitted: the caller gets the
        named simulator error (``record_error``), the ledger keeps none of the call's changes, and
        the episode keeps that error as the turn, which trajectory files leave out like every
        simulator failure. Whatever store holds the episode, state and file then agree.

        With a persistent store, a trajectory file's line and the store's commit are one unit
        (``held``, settled by :meth:`run` once the store has committed or failed), so a crash
        never leaves a line for a turn the state lacks.
        """
        outcome.stages.append("record")
        turn = self._turn(ep, spec, arguments, outcome, started, t0)
        committed = getattr(self.store, "committed_turns", None)
        try:
            for recorder in self.recorders:
                begin = getattr(recorder, "begin", None)
                if committed is not None and begin is not None:
                    await begin(self.catalog, ep, turn, committed)
                    held.append(recorder)
                else:
                    recorder.record(self.catalog, ep, turn)
        except Exception as exc:  # noqa: BLE001 - a failed write is the simulator's, never the tool's
            _settle(held, committed=False)
            failure = _as_simulator_error(exc, spec)
            outcome.result, outcome.effects = self._simulator_error(spec, failure), []
            outcome.info = {**outcome.info, **_error_info(failure)}
            turn = self._turn(ep, spec, arguments, outcome, started, t0)
            for recorder in self.recorders:  # the call log sees the failure; trajectory files skip it
                try:
                    recorder.record(self.catalog, ep, turn)
                except Exception:  # noqa: BLE001 - already reported as this call's result
                    log.debug("recorder %r failed again on the failed turn", recorder, exc_info=True)
        ep.ledger.apply(outcome.effects, turn.index)
        ep.turns.append(turn)
        return turn

    def _turn(self, ep: Episode, spec: ToolSpec, arguments: JSONDict, outcome: Outcome, started: float,
              t0: float) -> Turn:
        return Turn(
            ep.next_turn, spec.name, arguments, outcome.result.to_dict(), self.backend.name, outcome.gate.fired,
            started, round((time.perf_counter() - t0) * 1000, 3), outcome.info,
        )

    def _simulator_error(self, spec: ToolSpec, exc: SimulatorError) -> ToolResult:
        self.stats.simulator_errors[exc.kind] += 1
        # the cause's traceback (this runs outside the except block that caught it)
        log.error("simulator error on %s (%s): %s", spec.name, exc.kind, exc, exc_info=exc.__cause__)
        hint = f" {exc.hint}" if exc.hint else ""
        text = f"[agentworld-mcp simulator error: {exc.kind}] {exc}.{hint} (This error comes from the simulator, not from the simulated tool.)"
        return ToolResult.from_text(text, is_error=True, meta={SIMULATOR_ERROR_META: exc.kind})

    def _count(self, outcome: Outcome) -> None:
        result = outcome.result
        self.stats.calls += 1
        self.stats.tool_errors += result.is_error and not result.is_simulator_error
        self.stats.repairs += len(outcome.info.get("repairs", ()))
        for item in outcome.gate.fired:
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


def _log_call(episode: str, outcome: Outcome) -> None:
    turn, result = outcome.turn, outcome.result
    if turn is None:
        return
    args = json.dumps(turn.arguments, ensure_ascii=False, default=str)
    args = args if len(args) <= 80 else args[:77] + "..."
    status = "simulator error" if result.is_simulator_error else "error" if result.is_error else "ok"
    first = result.text.strip().splitlines()[0][:80] if result.is_error and result.text.strip() else ""
    fired = ",".join(str(f.get("kind")) for f in outcome.gate.fired)
    calls_log.info("episode=%s turn=%d %s %s -> %s%s%s (%.1f ms)", episode, turn.index, turn.tool, args, status, f": {first}" if first else "",
                   f" [perturbed: {fired}]" if fired else "", turn.duration_ms)


def _settle(held: list[Any], *, committed: bool) -> None:
    """Tell the recorders holding a line whether the store committed its turn (and empty ``held``)."""
    while held:
        held.pop().end(committed)


def _model_for(backend: WorldModel, step: Step) -> WorldModel:
    """The model that answers ``step`` (a per-tool world model delegates by tool)."""
    model_for = getattr(backend, "model_for", None)
    return model_for(step.tool.name) if model_for is not None else backend


def _cpu_bound(model: WorldModel) -> bool:
    """Whether the model computes its answer itself rather than awaiting I/O: a model that says
    ``cpu_bound = True`` always runs in a thread; the deterministic one does for its heavy calls."""
    flag = getattr(model, "cpu_bound", None)
    if flag is not None:
        return bool(flag)
    from ..models.deterministic.schema import SchemaWorldModel

    return isinstance(model, SchemaWorldModel)


def _deadline_error(deadline: float) -> DeadlineExceededError:
    return DeadlineExceededError(
        f"the world model took longer than the {deadline:g}s deadline for this call; the call changed nothing",
        hint="simplify the call (a smaller query, a simpler pattern), or raise --deadline / AGENTWORLD_DEADLINE",
    )


def _heavy(step: Step) -> bool:
    """Whether the deterministic answer runs a real query engine (the SQL style), worth a thread."""
    try:
        return step.role.style == "sql"
    except Exception:  # noqa: BLE001 - a role that cannot be worked out is answered (and fails) inline
        return False


def _run_to_end(prediction: Coroutine[Any, Any, Prediction], loop: asyncio.AbstractEventLoop,
                future: asyncio.Future[Prediction]) -> None:
    """Run a coroutine that never waits on I/O to its end in this (worker) thread, one step, and
    hand its answer or its failure to ``future`` on the loop."""
    try:
        try:
            prediction.send(None)
        except StopIteration as done:
            outcome: Any = done.value
            setter: Any = future.set_result
        else:
            prediction.close()
            outcome = SimulatorBugError("a CPU-bound world model awaited I/O",
                                        hint="set cpu_bound = False on the world model")
            setter = future.set_exception
    except BaseException as exc:  # noqa: BLE001 - handed to the caller, which names it
        outcome, setter = exc, future.set_exception
    with contextlib.suppress(RuntimeError):  # the loop closed while this ran past its deadline
        loop.call_soon_threadsafe(_settle_future, future, setter, outcome)


def _settle_future(future: asyncio.Future[Any], setter: Any, outcome: Any) -> None:
    if not future.done():
        setter(outcome)


def _late(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.debug("a prediction past its deadline failed later: %r", future.exception())


def _as_simulator_error(exc: Exception, spec: ToolSpec) -> SimulatorError:
    if isinstance(exc, SimulatorError):
        return exc
    bug = SimulatorBugError(f"{type(exc).__name__}: {exc}",
                            hint="this is a bug in agentworld-mcp; please report it with the world file")
    bug.__cause__ = exc
    return bug


def _error_info(exc: SimulatorError) -> JSONDict:
    return {"simulator_error": {"kind": exc.kind, "message": str(exc)}}


__all__ = ["STAGES", "Outcome", "Perturber", "Simulator", "Stats", "TurnSink", "dump_json"]
