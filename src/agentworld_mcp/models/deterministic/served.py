"""The deterministic answer as the service serves it: wrapped results, failures in band.

Two things about a tool change how any answer of the record, file and graph models is
served: FastMCP's ``{"result": ...}`` wrapper (:mod:`.wrapping`) and a catalog that
reports failures as ordinary answers (:mod:`.failures`). Both are read from the catalog
once per tool. The models answer the plain tool (the wrapped tool without its wrapper,
so records are kept as records), and :func:`predict_as_served` serves their answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from ...world.catalog import Catalog, ToolSpec
from ...world.world import World
from ..base import Prediction, Step
from .failures import Convention, convention_for, in_band, reads_as_failure
from .wrapping import wrap, wrapped_schema

_CACHE = "_agentworld_serving"
_PLAIN = "_agentworld_plain"


@dataclass(frozen=True)
class Serving:
    """How one tool's answers are served."""

    plain: ToolSpec
    wrapped: bool
    convention: Convention
    #: The catalog the plain tool belongs to (the bare catalog for a wrapped tool).
    catalog: Catalog | None = None


def serving(step: Step) -> Serving | None:
    """How ``step``'s tool serves its answers; None when the models' answer is served as it is (cached)."""
    spec = step.tool
    cached = spec.__dict__.get(_CACHE, False)
    if cached is not False:
        return cached
    found = None
    if not spec.__dict__.get(_PLAIN):
        wrapped = wrapped_schema(spec.definition) is not None
        convention = convention_for(step.world, spec.definition)
        if wrapped or convention.in_band:
            bare = step.derived("bare_catalog", lambda: bare_catalog(step.world))  # once per catalog
            plain = dataclasses.replace(bare[spec.name] if wrapped else spec)
            plain.__dict__[_PLAIN] = True
            found = Serving(plain, wrapped, convention, bare if wrapped else None)
    spec.__dict__[_CACHE] = found
    return found


def bare_catalog(world: World) -> Catalog:
    """The world's catalog with every FastMCP wrapper taken off: roles, keys and entities read from
    the tools as the records they return (``create_note`` keyed by ``note_id``)."""
    tools = [{k: v for k, v in t.items() if k != "outputSchema"} if wrapped_schema(t) is not None else t
             for t in world.tools]
    return Catalog(World.model_validate({**world.model_dump(by_alias=True), "tools": tools}))


def predict_as_served(step: Step, predict: Callable[[Step], Prediction]) -> Prediction | None:
    """``predict`` of the plain tool, served as the tool serves it; None for tools served as they are.
    A rule learned from a real session (:mod:`.learned_rules`) comes first."""
    from .learned_rules import learned_answer

    if (ruled := learned_answer(step, predict)) is not None:
        return ruled
    how = serving(step)
    if how is None:
        return None
    plain_step = dataclasses.replace(step, tool=how.plain)
    if how.catalog is not None and hasattr(step, "catalog"):
        plain_step = dataclasses.replace(plain_step, catalog=how.catalog)
    answer = predict(plain_step)
    if answer.is_error:
        role = how.plain.role
        named = (step.arguments.get(a) for a in role.key_args)
        key = next((str(v) for v in named if isinstance(v, (str, int)) and not isinstance(v, bool)), None)
        return in_band(step, answer, how.convention, role.noun, key)
    if not how.wrapped:
        return answer
    said = answer.text if answer.text is not None else answer.observation
    if isinstance(said, str) and reads_as_failure(said):  # a failure the tool caught and returned
        answer = dataclasses.replace(answer, info={**answer.info, "failure": True})
    return wrap(step, plain_step, answer)


__all__ = ["Serving", "predict_as_served", "serving"]
