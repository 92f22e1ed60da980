"""The answer to a tool that is not a read, list, create, update or delete of a record: an action.

What the world's state holds for it comes first (:mod:`.environment`; a switch its verb makes,
:mod:`.env_state_verbs`), then what its
outputSchema, the call and the standing state determine (:mod:`.determined`); a call whose
arguments set fields of the standing state answers them as it leaves them; only a tool with none of
these acknowledges.
"""

from __future__ import annotations

from ...world import values
from ...world.roles import ToolRole
from ...state.ledger import Effect
from ..base import Prediction, Step
from . import determined, records
from .bare_answers import bare_answer
from .call_history import from_history
from .env_state_verbs import state_switch
from .environment import environment_answer


def action_answer(step: Step, role: ToolRole) -> Prediction:
    """An action's answer: what the world's state holds for it (:mod:`.environment`: a record its
    arguments address, state its answer names, arithmetic its description states), else its
    outputSchema with what the call and the standing state determine; only a tool with neither
    an outputSchema nor state to read acknowledges."""
    out = step.tool.output_schema
    if not out and (switched := state_switch(step)) is not None:  # ``startPump``: ``pumpState: running``
        answer = environment_answer(step, role) or bare_answer(step, role)
        body = answer.observation if answer is not None else {}
        if answer is None or not answer.is_error and isinstance(body, dict):
            effects = [*(answer.effects or [] if answer is not None else []), switched.effect()]
            return Prediction({**body, switched.field: switched.new}, effects=effects)
    if (from_state := environment_answer(step, role)) is not None:
        return from_state
    if out:
        # what the call and the world's standing state determine is answered, not invented
        known = determined.known_values(step)
        body = determined.settle(values.generate(out, step.rng), out, known)
        body = from_history(step, body, out, set(known))  # counts and lists of this tool's earlier calls
        return Prediction(body, effects=determined.applied(step))
    if (promised := bare_answer(step, role)) is not None:  # the data its name and description promise
        return promised
    if role.kind in ("action", "update") and (set_fields := _standing_changes(step)):
        # ``set_route(destination)``: the state as the call leaves it (a delete's key names what goes)
        return Prediction({k: v for e in set_fields for k, v in e.fields.items()}, effects=set_fields)
    args = ", ".join(f"{k}={v!r}" for k, v in step.arguments.items())
    return Prediction(f"{step.tool.name} completed successfully" + (f" ({args})" if args else "") + ".", effects=[])


def _standing_changes(step: Step) -> list[Effect]:
    """What the call's arguments set in the program's standing state: never in a record of a collection some tool
    creates (``notify_item(id, priority)`` on the one item made so far sends something; it edits nothing)."""
    created = step.derived("created_collections", lambda: frozenset(  # once per catalog
        r.collection for r in records.model(step).roles.values() if r.kind == "create"))
    return [e for e in determined.applied(step) if e.collection not in created]
