"""A verb that switches a thing's state sets the standing state's field for that thing's state.

``startPump(pumpMode="START")`` on a plant whose standing state holds ``pumpState: "stopped"``
leaves it ``running``, and ``pumpMode="STOP"`` ``stopped``: the tool's verb (or an argument whose value is
itself such a verb, which says which way) names the state, the rest of its name names the thing, and the field
is the thing's ``State``/``Status`` (``pumpState``, ``pump_status``). The new value keeps the casing and the
vocabulary of the old one (``RUNNING`` beside ``STOPPED``, ``on`` beside ``off``). Only a field the standing
state already holds changes: nothing is invented for a thing the world does not have. A login or logout sets
the session flag the standing state holds (``authenticated: false`` after ``shop_logout``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...state.ledger import Effect
from ...world.roles import state_after, words
from .determined import name_key, standing

if TYPE_CHECKING:
    from ..base import Step

#: Verbs that switch a thing on or off, and the state each leaves it in (lifecycle verbs: ``roles.state_after``).
_SWITCHES = {"open": "open", "start": "running", "stop": "stopped", "run": "running", "pause": "paused",
             "resume": "running", "enable": "enabled", "disable": "disabled", "engage": "engaged", "release": "released",
             "turnon": "on", "turnoff": "off", "on": "on", "off": "off"}
_STATE_WORDS = ("state", "status")


#: Words of a name that open or close a session, and the session flag each leaves (``shop_logout``).
_SESSION_WORDS = {"login": True, "logon": True, "signin": True, "logout": False, "logoff": False, "signout": False}
#: Flags of a session the standing state holds.
_SESSION_FLAGS = frozenset({"authenticated", "isauthenticated", "loggedin", "isloggedin", "signedin", "sessionactive"})


@dataclass(frozen=True)
class StateSwitch:
    collection: str
    key: str
    field: str
    new: str | bool

    def effect(self) -> Effect:
        return Effect("update", self.collection, self.key, {self.field: self.new})


def _state_of(verb: str) -> str | None:
    return _SWITCHES.get(verb) or state_after(verb)


def state_switch(step: Step) -> StateSwitch | None:
    """The standing state's field the call switches, and its new value; None when the call switches nothing."""
    tokens = [t.lower() for t in words(step.tool.name)]
    if (session := _session_switch(step, tokens)) is not None:
        return session
    if len(tokens) < 2:
        return None
    verb, thing = tokens[0], name_key("".join(tokens[1:]))
    for value in step.arguments.values():  # ``pumpMode: STOP`` says which way a ``startPump`` goes
        if isinstance(value, str) and _state_of(name_key(value)) is not None:
            verb = name_key(value)
            break
    state = _state_of(verb)
    if state is None:
        return None
    for entity in standing(step):
        for field, old in entity.fields.items():
            if isinstance(old, str) and name_key(field) in {thing + w for w in _STATE_WORDS}:
                return StateSwitch(entity.collection, entity.key, field, _cased(state, old))
    return None


def _session_switch(step: Step, tokens: list[str]) -> StateSwitch | None:
    """A login or logout (``log_out``, ``shop_logout``) of a session whose flag the standing state holds."""
    joined = ["".join(tokens[i:i + 2]) for i in range(len(tokens))] + tokens
    opened = next((_SESSION_WORDS[w] for w in joined if w in _SESSION_WORDS), None)
    if opened is None:
        return None
    for entity in standing(step):
        for field, old in entity.fields.items():
            if isinstance(old, bool) and name_key(field) in _SESSION_FLAGS:
                return StateSwitch(entity.collection, entity.key, field, opened)
    return None


#: The same switch in an on/off vocabulary (a heater ``off`` that starts is ``on``).
_ON_OFF = {"running": "on", "stopped": "off", "enabled": "on", "disabled": "off", "paused": "off"}


def _cased(state: str, like: str) -> str:
    if like.lower() in ("on", "off"):
        state = _ON_OFF.get(state, state)
    if like.isupper():
        return state.upper()
    return state.capitalize() if like[:1].isupper() else state


__all__ = ["StateSwitch", "state_switch"]
