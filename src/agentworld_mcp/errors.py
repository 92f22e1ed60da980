"""The simulator's own errors.

Two kinds of failure are never mixed (see docs/architecture.md):

* a *simulated* tool failure (invalid arguments, not found, an injected 429) is not an
  exception at all: it is a :class:`~agentworld_mcp.state.result.ToolResult` with ``is_error=True``;
* a bug or misconfiguration of the simulator itself is one of the exceptions below. Each
  message says what is wrong and what to do about it.
"""

from __future__ import annotations


class AgentWorldError(Exception):
    """Base class of every error raised by agentworld-mcp."""


class WorldFileError(AgentWorldError):
    """A world file is missing, unparsable or does not match ``world.schema.json``.

    ``problems`` lists one human-readable line per problem, each starting with the
    location (``file:line: path.to.key``) where it is known.
    """

    #: The closing advice for problems with keys and values (a syntax error gets its own).
    KEYS_HINT = ("Fix the keys above (the schema is schemas/world.schema.json), "
                 "then check with `agentworld-mcp validate FILE`.")

    def __init__(self, source: str, problems: list[str], *, hint: str = KEYS_HINT) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid world file {source}:\n{lines}\n{hint}")


class UnknownToolError(AgentWorldError):
    """A call named a tool the world does not have (a protocol error, not a tool result)."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"Unknown tool: {name}")


class ConfigError(AgentWorldError):
    """Settings that cannot work together (bad backend options, a missing extra...)."""


class MissingExtraError(ConfigError, ImportError):
    """An optional feature was used without its extra installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.extra = extra
        super().__init__(
            f"{feature} needs the optional dependency {module!r}: "
            f"install it with `pip install -e '.[{extra}]'` in a clone of agentworld-mcp (not on PyPI yet)."
        )


class OpenAPISpecError(ConfigError):
    """An OpenAPI description that cannot be read: not found, too large, not YAML/JSON, not OpenAPI."""

    def __init__(self, source: str, problem: str, *, hint: str = "") -> None:
        self.source = source
        super().__init__(f"OpenAPI spec {source}: {problem}" + (f"\n{hint}" if hint else ""))


class SimulatorError(AgentWorldError):
    """The world model could not produce an observation (endpoint down, garbage output...).

    Raised by backends; the engine turns it into an ``isError`` result that says it came
    from the simulator, logs it with its cause and counts it.
    """

    kind: str = "simulator_error"

    def __init__(self, message: str, *, hint: str = "") -> None:
        self.hint = hint
        super().__init__(message)


class ModelEndpointError(SimulatorError):
    """The OpenAI-compatible endpoint was unreachable or kept failing after retries."""

    kind = "endpoint_error"


class InvalidObservationError(SimulatorError):
    """The world model's output could not be parsed or did not match the tool's outputSchema."""

    kind = "invalid_observation"


class ResponseTooLargeError(InvalidObservationError):
    """The model endpoint's response was larger than the backend's ``max_response_bytes``."""

    kind = "response_too_large"


class TrajectoryWriteError(SimulatorError):
    """A ``--record`` line could not be written (a full disk, a file size limit); nothing of it was left."""

    kind = "record_error"


class DeadlineExceededError(SimulatorError):
    """The world model took longer than the per-call deadline (``--deadline``); the call changed nothing."""

    kind = "deadline"


class StateStoreError(SimulatorError):
    """The episode store (a SQLite file, Redis) failed during a call: a full disk, a refused connection.

    The message names the store; the call changed nothing that a later call will see.
    """

    kind = "store_error"


class CassetteMissError(SimulatorError):
    """Replay-only mode met a request that the cassette has not recorded."""

    kind = "cassette_miss"


class SimulatorBugError(SimulatorError):
    """An unexpected exception inside the simulator while answering a call (a bug: please report it).

    The engine turns it into the same named simulator-error result as any other
    :class:`SimulatorError`, logged with its traceback, so a client never gets a protocol
    error for a simulator bug.
    """

    kind = "internal_error"


class EpisodeNotFoundError(AgentWorldError):
    """An inspection or reset named an episode the store does not hold."""


class StateFileError(ConfigError):
    """A ``--state`` file that cannot be used: not SQLite, another format, or another world's."""


class EpisodeConflictError(AgentWorldError):
    """An episode changed in the state file behind this process's back; the call was not saved."""


class SimulatorFailedError(AgentWorldError):
    """A tool call made in process (LangGraph adapter, pytest plugin) got a simulator error.

    The MCP server can only hand those to the client as ``isError`` results; in process
    they are raised instead, so a test or a training run never takes a broken simulator
    (endpoint down, cassette miss) for the simulated tool's behaviour.
    """

    def __init__(self, tool: str, kind: str, message: str) -> None:
        self.tool = tool
        self.kind = kind
        super().__init__(f"simulating {tool!r} failed ({kind}): {message}")


class InvalidSelectorError(ConfigError):
    """A call named its episode (or another selector) with a value of the wrong kind."""


class PerturbationPolicyError(ConfigError):
    """A perturbation policy (world file, ``--perturb``, episode or call override) is invalid."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"invalid perturbation policy ({source}):\n{lines}\n"
            "A policy is a preset name (flaky-network, rate-limited, paginated, chaos), a list of rules or a "
            "mapping with 'rules'; see docs/perturbations.md."
        )


class InjectedFault(AgentWorldError):
    """A perturbation that is not a tool result (a protocol error, a hang).

    Raised by the perturbation stage; the engine records the turn, leaves the episode, then
    calls :meth:`deliver`, so a hung call never holds the episode up.
    """

    #: What the turn records (a ``ToolResult``).
    result: object = None

    async def deliver(self) -> object:
        raise self


class InjectedProtocolError(InjectedFault):
    """An injected JSON-RPC error: the MCP server answers the request with ``code``/``message``."""

    def __init__(self, code: int, message: str, result: object = None) -> None:
        self.code = code
        self.message = message
        super().__init__(f"injected JSON-RPC error {code}: {message}")
        #: What the turn records in place of a result (built by the perturbation stage).
        self.result = result


class InjectedHang(InjectedFault):
    """An injected hang: no answer for ``seconds`` (longer than a client's timeout), then ``result``."""

    def __init__(self, seconds: float, result: object) -> None:
        self.seconds = seconds
        self.result = result
        super().__init__(f"injected hang of {seconds}s")

    async def deliver(self) -> object:
        import asyncio

        await asyncio.sleep(self.seconds)
        return self.result
