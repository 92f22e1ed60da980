"""The values that flow through the step pipeline (see docs/architecture.md).

``Step`` is what every stage sees of one call; ``Prediction`` is what a world model
answers; ``Gate`` is what the perturbation stage decides before the world model is asked.
They live below both the world models (:mod:`agentworld_mcp.models`) and the
perturbation stage (:mod:`agentworld_mcp.perturb`), which import them and never each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

from ..world.catalog import ToolSpec
from .episode import Episode
from .ledger import Effect
from ..world.roles import ToolRole
from ..world.world import World

if TYPE_CHECKING:
    from ..world.catalog import Catalog
    from ..errors import InjectedFault
    from .result import ToolResult

JSONDict = dict[str, Any]
T = TypeVar("T")


@dataclass
class Step:
    """Everything a world model may use to predict one observation."""

    world: World
    tool: ToolSpec
    arguments: JSONDict
    episode: Episode
    turn: int
    rng: random.Random
    #: Plain-language events for the world model (instructed perturbations).
    instructions: list[str] = field(default_factory=list)
    #: The compiled catalog the tool belongs to (catalog-wide knowledge: entities, prompts).
    catalog: Catalog | None = None
    #: Only the effects are wanted (reconciling a language model's answer): skip rendering the answer.
    effects_only: bool = False
    #: The perturbation stage pages this listing itself: the world model returns every match, not the asked page.
    whole_listing: bool = False

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """A value derived once per catalog (see :meth:`Catalog.derived`); without one, built each time."""
        return self.catalog.derived(key, build) if self.catalog is not None else build()

    @cached_property
    def role(self) -> ToolRole:
        """What this call does: the tool's role, or the one its action argument selects."""
        role_for = getattr(self.tool, "role_for", None)
        return role_for(self.arguments) if role_for is not None else self.tool.role


@dataclass
class Prediction:
    """A world model's answer to a step.

    ``observation`` is the tool's response: a JSON value for tools with an outputSchema
    (or JSON-ish tools), text otherwise. ``text``, when given, is the text block exactly as
    the real server prints it (``Successfully wrote to /a.txt``), independent of the
    structured ``observation``; without it the text block is the observation (JSON rendered).
    ``effects`` are the changes the call makes to the world; ``None`` lets the engine infer
    them from the arguments and the observation. ``checked`` says the backend already
    validated ``observation`` against the outputSchema (the engine then does not again).
    """

    observation: Any
    is_error: bool = False
    effects: list[Effect] | None = None
    info: JSONDict = field(default_factory=dict)
    text: str | None = None
    checked: bool = False


@dataclass
class Gate:
    """What the perturbation stage decided before the world model is asked.

    ``result`` answers the call without the world model (an injected error, a later page);
    ``fault`` is delivered after the episode is released (a JSON-RPC error, a hang);
    ``paginate`` asks the after-stage to cut the world model's listing into pages.
    """

    fired: list[JSONDict] = field(default_factory=list)
    result: ToolResult | None = None
    fault: InjectedFault | None = None
    paginate: JSONDict | None = None


#: The gate of a call nothing perturbs (shared: never mutated).
OPEN = Gate()
