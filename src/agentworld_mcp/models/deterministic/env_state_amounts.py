"""Arithmetic the descriptions state: an amount a call adds to or takes from a number the state holds.

A numeric argument named as an amount (``waterAmount``, ``amount``) changes the standing state's
numeric field it names: ``waterAmount`` -> ``waterLevel``; a bare ``amount`` the field the answer
names (``new_balance`` -> ``balance``), else the one the tool's name or description names
(``Take credit from the member balance``; ``top_up_wallet`` -> ``wallet_info.balance``). The
field may sit one level down, in an object of the standing state (``account_info: {balance: ...}``).
Filling verbs (fill, add, fund, deposit, top up...) add, spending verbs (withdraw, spend, use...)
take away; a capacity the description states (``can hold up to 40 liters``) caps an addition.
Identifier-like fields (``account_id``, ``card_number``) are never amounts.

Pure functions of the step: the change is returned as an update effect, never applied here.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from ...state.ledger import Effect, Entity, identity
from ...world.roles import collection_name, singular, words
from ..base import Step
from .determined import name_key, standing

_ADDING = frozenset({"fill", "add", "fund", "deposit", "top", "refill", "increase", "charge", "credit", "load",
                     "raise", "increment", "recharge", "topup", "boost"})
_TAKING = frozenset({"withdraw", "spend", "use", "decrease", "debit", "reduce", "consume", "drain", "subtract",
                     "lower", "decrement", "pay", "deduct"})
_AMOUNT_WORDS = frozenset({"amount", "quantity", "delta", "by", "value", "volume", "qty"})
#: Words of a field that names a thing rather than holds a quantity.
_IDENTIFYING = frozenset({"id", "key", "number", "no", "code", "card", "counter", "index", "zip", "phone"})
_CAPACITY = re.compile(r"(?:up to|at most|maximum(?: of)?|max(?:imum)? capacity(?: of)?|capacity of|"
                       r"cannot exceed|no more than)\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    """A standing number the call changes: where it is (a field, or a field of an object field) and its new value."""

    entity: Entity
    path: tuple[str, ...]
    new: float

    @property
    def field(self) -> str:
        return self.path[-1]

    #: the record the ledger keeps of the object field too (``account: {member_id: 77, ...}`` is also
    #: an ``accounts`` record): it changes with it, or a later read would show the old value
    mirror: Entity | None = None

    def effects(self) -> list[Effect]:
        if len(self.path) == 1:
            return [Effect("update", self.entity.collection, self.entity.key, {self.field: self.new})]
        outer = copy.deepcopy(self.entity.fields.get(self.path[0]) or {})
        outer[self.path[1]] = self.new
        found = [Effect("update", self.entity.collection, self.entity.key, {self.path[0]: outer})]
        if self.mirror is not None:
            found.append(Effect("update", self.mirror.collection, self.mirror.key, {self.field: self.new}))
        return found


def _numbers(step: Step) -> list[tuple[Entity, tuple[str, ...], float]]:
    """The standing state's numeric fields, and those of its object fields, that are not identifiers
    (a record that only mirrors an object field counts once, as that field)."""
    found: list[tuple[Entity, tuple[str, ...], float]] = []
    mirrors = {(m.collection, m.key) for _, _, m in _objects(step)}
    for entity in standing(step):
        if (entity.collection, entity.key) in mirrors:
            continue
        for field, value in entity.fields.items():
            if _is_number(value):
                found.append((entity, (field,), value))
            elif isinstance(value, dict):
                found += [(entity, (field, sub), v) for sub, v in value.items() if _is_number(v)]
    return [t for t in found if not set(words(t[1][-1])) & _IDENTIFYING]


def _objects(step: Step) -> list[tuple[Entity, str, Entity]]:
    """Object fields of the standing state that the ledger also keeps as records of their own."""
    ledger = step.episode.ledger
    found = []
    for entity in standing(step):
        for field, value in entity.fields.items():
            ident = identity(value) if isinstance(value, dict) else None
            mirror = ledger.get(collection_name(field), ident[1]) if ident else None
            if mirror is not None:
                found.append((entity, field, mirror))
    return found


def _mirror(step: Step, entity: Entity, path: tuple[str, ...]) -> Entity | None:
    return next((m for e, f, m in _objects(step) if e is entity and f == path[0]), None) if len(path) > 1 else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def arithmetic(step: Step) -> dict[str, Change]:
    """Standing numeric fields the call changes by an amount: answer name key -> the change."""
    tokens = words(step.tool.name)
    # the first verb decides (``spend_credit`` spends, though ``credit`` can be a verb too)
    verb = next((t for t in tokens if t in _ADDING | _TAKING), None)
    if verb is None:
        return {}
    sign = 1 if verb in _ADDING else -1
    amounts = {n: v for n, v in step.arguments.items() if _is_number(v) and set(words(n)) & _AMOUNT_WORDS}
    if len(amounts) != 1:
        return {}
    (arg, amount), = amounts.items()
    stem = set(words(arg)) - _AMOUNT_WORDS  # ``waterAmount`` -> water
    out_names = list((step.tool.output_schema or {}).get("properties") or {})
    numeric = _numbers(step)
    # the field the argument names (``waterAmount`` -> ``waterLevel``), else the one the answer names,
    # else the one the description names by its own name, else the one whose path holds a noun of the tool
    told = set(words((step.tool.description or "").split("Tool description:")[-1]))
    nouns = {singular(t) for t in tokens if t != verb}
    named = ([t for t in numeric if stem & set(words(t[1][-1]))]
             or [t for t in numeric if any(_names_field(o, t[1][-1]) for o in out_names)]
             or [t for t in numeric if name_key(t[1][-1]) in told]
             or [t for t in numeric if nouns & {singular(w) for p in t[1] for w in words(p)}])
    if len({(e.key, p) for e, p, _ in named}) != 1:
        return {}
    entity, path, value = named[0]
    new = value + sign * amount
    cap = _capacity(step)
    if cap is not None and sign > 0:
        new = min(new, cap)
    new = float(new) if isinstance(value, float) or isinstance(amount, float) else new
    answer = next((o for o in out_names if _names_field(o, path[-1])), None)
    return {name_key(answer or path[-1]): Change(entity, path, new, _mirror(step, entity, path))}


#: Fields holding a quantity that cannot go below zero: what is taken must be there.
_NON_NEGATIVE = frozenset({"balance", "fuel", "level", "stock", "quantity", "credit", "credits", "funds", "points",
                           "inventory", "count", "remaining", "battery", "charge", "tokens", "budget", "cash",
                           "wallet", "water", "supply", "units"})
_INSUFFICIENT = re.compile(r"insufficient|not enough|exceeds? the (?:available|current)|cannot go below|"
                           r"more than (?:the|is) (?:available|balance)", re.IGNORECASE)
_OVERDRAFT = re.compile(r"overdraft|negative (?:balance|values?) (?:is|are) allowed|may go negative", re.IGNORECASE)


def overdrawn(step: Step, changes: dict[str, Change]) -> str | None:
    """The refusal of a call that takes more than a quantity holds (``withdraw(500)`` from a balance of
    150): where the field cannot go below zero by its name or the description says the call fails so;
    else None. Worded as such services word it: ``Insufficient balance: 150.0 available, 500 requested``."""
    description = step.tool.description or ""
    if _OVERDRAFT.search(description):
        return None
    for change in changes.values():
        old = _held(change)
        if not _is_number(old) or old < 0 or change.new >= 0 or change.new >= old:
            continue
        if set(words(change.field)) & _NON_NEGATIVE or _INSUFFICIENT.search(description):
            wanted = old - change.new
            shown = int(wanted) if float(wanted).is_integer() else wanted
            return f"Insufficient {change.field.replace('_', ' ')}: {old} available, {shown} requested"
    return None


def _held(change: Change) -> Any:
    value: Any = change.entity.fields
    for part in change.path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _names_field(answer_name: str, field: str) -> bool:
    """``new_balance``, ``updated_balance``, ``balance`` all name ``balance``."""
    bare = [w for w in words(answer_name) if w not in ("new", "updated", "current", "remaining", "final", "after")]
    return bool(bare) and name_key("_".join(bare)) == name_key(field)


def _capacity(step: Step) -> float | None:
    found = _CAPACITY.search(step.tool.description or "")
    return float(found.group(1)) if found else None


__all__ = ["Change", "arithmetic", "overdrawn"]
