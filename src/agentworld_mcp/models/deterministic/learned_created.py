"""The state a new entity starts in, as later answers of a recording showed it (``sim2real/learn_created.py``).

``learn`` writes per create tool, under ``_meta``, each field's starting value::

    "agentworld/created": {"done": {"value": false}, "done_at": {"value": null},
                           "all_day": {"date_of": "start"}, "recurring": {"value": true, "only_with": "rrule"}}

``value``: every entity the recording created showed it; ``date_of``: true exactly when that
argument is a date, not a date-time; ``only_with``: only when that argument was given
(``recurring: true`` for a series); ``tags_of``: the list argument of the field's name, then the ``#tags``
written in that text argument, then the words ``plus`` the server adds to each. The create's entity stores them where the call and the model
left them unset, so a later listing shows them as the server does instead of invented ones.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING, Any

from .learned_instants import parsed

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a create tool holding its entities' learned starting fields.
CREATED_META = "agentworld/created"


def merged_tags(given: Any, text: Any) -> list[str]:
    """The list argument's words, then the ``#tags`` written in ``text`` it lacks, each once."""
    from .inline_tags import inline_tags

    listed = [t for t in given if isinstance(t, str)] if isinstance(given, list) else []
    return list(dict.fromkeys([*listed, *(inline_tags(text) if isinstance(text, str) else [])]))


def _value(rule: JSONDict, arguments: JSONDict, name: str = "") -> tuple[bool, Any]:
    if isinstance(rule.get("tags_of"), str):
        plus = [t for t in rule.get("plus") or () if isinstance(t, str)]
        return True, list(dict.fromkeys([*merged_tags(arguments.get(name), arguments.get(rule["tags_of"])), *plus]))
    needed = rule.get("only_with")
    if isinstance(needed, str) and arguments.get(needed) in (None, ""):
        return False, None
    if "value" in rule:
        return True, rule["value"]
    argument = rule.get("date_of")
    if isinstance(argument, str) and argument in arguments:
        found = parsed(arguments[argument])
        return found is not None, isinstance(found, dt.date) and not isinstance(found, dt.datetime)
    return False, None


def with_created(step: Step, answer: Prediction) -> Prediction:
    """``answer`` whose created entity holds the learned starting fields (see the module doc)."""
    rules = (step.tool.definition.get("_meta") or {}).get(CREATED_META)
    if not isinstance(rules, dict) or not rules or answer.is_error or not answer.effects:
        return answer
    given = set(step.arguments)
    effects = []
    for effect in answer.effects:
        if effect.op == "create" and effect.collection == step.role.collection:
            fields = dict(effect.fields)
            for name, rule in rules.items():
                known, value = _value(rule, step.arguments, name) if isinstance(rule, dict) else (False, None)
                if known and (name not in given or "tags_of" in rule):
                    fields[name] = value
            effect = dataclasses.replace(effect, fields=fields)
        effects.append(effect)
    return dataclasses.replace(answer, effects=effects)


__all__ = ["CREATED_META", "merged_tags", "with_created"]
