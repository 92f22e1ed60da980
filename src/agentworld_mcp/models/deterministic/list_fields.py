"""Tools that add or remove values of a list field on existing entities.

``add_tags(paths=[...], tags=[...])``, ``remove_labels(issue_id, labels)``, ``tag_note(path, tags)``:
the name is a verb (add, remove, set; or the noun's own verb, ``tag``/``untag``) and a plural noun,
the arguments name entities the episode already holds by key (one key or a list of keys) and carry
the values (a list, or one value, named like the noun). The role model reads such a tool as creating
records of a ``tags`` collection, so the entities never change; here they do: each named entity's
field named like the noun (``tags``, ``labels``) gets the values added, removed or set. The answer
stays the model's (its shape is the catalog's); only the effects are this module's.

Two other spellings of the same change: the verb in an argument (``manage_tags(path, operation="add",
tags)``: a tool named manage/update/edit/modify and the plural noun, whose operation/action/mode/op
argument says add, remove or set), and a rename of one value wherever it is held
(``rename_tag(old_tag, new_tag)``: every stored entity whose ``tags`` hold the old value gets the new one).

A note whose tags live in its Markdown front matter starts from those tags; what later reads show is
the entity's ``tags`` field (text search's tag mode reads it), the note's text is left as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ...state.ledger import Effect, Entity
from ...world.roles import collection_name, id_stem, is_id_name, normalise_path, plural, singular, words
from ..base import Prediction, Step
from .text_search import front_matter

JSONDict = dict[str, Any]
Change = Literal["add", "remove", "set"]

_VERBS: dict[str, Change] = {
    "add": "add", "append": "add", "attach": "add", "apply": "add", "assign": "add",
    "remove": "remove", "delete": "remove", "detach": "remove", "unassign": "remove", "strip": "remove",
    "set": "set", "replace": "set",
}
#: Tool-name verbs that leave the change to an argument (``manage_tags(operation="add")``).
_OPEN_VERBS = ("manage", "update", "edit", "modify", "change")
_VERB_ARGS = ("operation", "action", "mode", "op")
#: Argument names that hold keys of several entities at once.
_KEY_LISTS = ("paths", "ids", "keys", "files", "notes", "names", "filenames")
_TEXT_FIELDS = ("content", "body", "text", "markdown", "contents")


@dataclass(frozen=True)
class ListChange:
    """What one call does: ``change`` the ``field`` of the entities under ``keys`` by ``values``."""

    change: Change | None
    field: str
    values_arg: str
    keys_arg: str
    #: The argument that names the change when the tool's name does not (``operation``).
    verb_arg: str | None = None

    def change_of(self, arguments: JSONDict) -> Change | None:
        """The change this call asks for: the name's verb, else the verb argument's value."""
        if self.change is not None or self.verb_arg is None:
            return self.change
        given = arguments.get(self.verb_arg)
        return _VERBS.get(given.strip().casefold()) if isinstance(given, str) else None


@dataclass(frozen=True)
class Rename:
    """``rename_tag(old_tag, new_tag)``: the value under ``old_arg`` becomes ``new_arg``'s in ``field``."""

    field: str
    old_arg: str
    new_arg: str


def predict_list_field(step: Step, rest: Callable[[Step], Prediction]) -> Prediction | None:
    """The model's answer to a list-field change, with effects on the named entities; None for other tools
    or when a named entity is not in the episode (the model then answers as it would)."""
    found = _list_change(step)
    if isinstance(found, Rename):
        return _predict_rename(step, found, rest)
    change = found.change_of(step.arguments) if found is not None else None
    if found is None or change is None:
        return None
    values = step.arguments.get(found.values_arg)
    values = values if isinstance(values, list) else [values]
    if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
        return None
    targets = _targets(step, found.keys_arg)
    if not targets:
        return None
    answer = rest(step)
    effects = [Effect("update", e.collection, e.key, {found.field: _changed(_current(e, found.field), values, change)})
               for e in targets]
    if answer.is_error:
        if found.verb_arg is None:
            return answer
        # the role model looks for a record of the noun under the entity's key; the entities are known here
        lists = [effect.fields[found.field] for effect in effects]
        answer = Prediction({found.keys_arg: step.arguments[found.keys_arg],
                             found.field: lists[0] if len(lists) == 1 else lists})
    return dataclasses.replace(answer, effects=effects)


def _predict_rename(step: Step, found: Rename, rest: Callable[[Step], Prediction]) -> Prediction | None:
    """The model's answer to a rename, with every entity holding the old value changed; None when the
    values are not two different strings or no stored entity holds the old one (the model answers)."""
    old, new = (step.arguments.get(found.old_arg), step.arguments.get(found.new_arg))
    if not (isinstance(old, str) and isinstance(new, str) and old.strip() and new.strip()) or old == new:
        return None
    ledger = step.episode.ledger
    holders = [(e, have) for c in ledger.collections() for e in ledger.items(c)
               if _holds(have := _current(e, found.field), old)]
    if not holders:
        return None
    answer = rest(step)
    if answer.is_error:  # no record of the value under its own name: the holders answer for it
        answer = Prediction({found.old_arg: old, found.new_arg: new, "updated": len(holders)}, effects=[])
    ours = {(e.collection, e.key) for e, _ in holders}
    effects = [e for e in answer.effects or [] if (e.collection, e.key) not in ours]
    effects += [Effect("update", e.collection, e.key, {found.field: _renamed(have, old, new)}) for e, have in holders]
    return dataclasses.replace(answer, effects=effects)


def _list_change(step: Step) -> ListChange | Rename | None:
    """The verb, the list field and the arguments a tool's name and inputs show, if it is such a tool."""
    cached: ListChange | Rename | None | bool = step.tool.__dict__.get("_agentworld_list_change", False)
    if cached is not False:
        return cached if isinstance(cached, (ListChange, Rename)) else None
    found = _read_tool(step) or _read_rename(step)
    step.tool.__dict__["_agentworld_list_change"] = found
    return found


def _read_tool(step: Step) -> ListChange | None:
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    tokens = words(step.tool.name)
    for at, word in enumerate(tokens):
        noun = word if word.endswith("s") and singular(word) != word else None
        verb = next((_VERBS[t] for t in tokens[:at] if t in _VERBS), None)
        verb_arg = None
        if verb is None and any(t in _OPEN_VERBS for t in tokens[:at]):
            verb_arg = next((a for a in _VERB_ARGS if a in props and _may_say_verb(props[a])), None)
        if noun is None and at == len(tokens) - 2 and word in ("tag", "label", "untag", "unlabel"):
            noun, verb = word.removeprefix("un") + "s", "remove" if word.startswith("un") else "add"
        if noun is None or (verb is None and verb_arg is None):
            continue
        values_arg = next((a for a in (noun, singular(noun)) if a in props), None)
        if values_arg is None or _is_array_of_objects(props[values_arg]):
            continue
        keys_arg = next((a for a in props if a != values_arg and _names_entities(a, props[a])), None)
        if keys_arg is not None:
            return ListChange(verb, noun, values_arg, keys_arg, verb_arg)
    return None


def _may_say_verb(schema: Any) -> bool:
    """Whether an operation argument can say add/remove/set: a string, and if enumerated, with such a value."""
    if not isinstance(schema, dict) or schema.get("type", "string") != "string":
        return False
    listed = schema.get("enum")
    return not isinstance(listed, list) or any(isinstance(v, str) and v.casefold() in _VERBS for v in listed)


def _read_rename(step: Step) -> Rename | None:
    """``rename_tag(old_tag, new_tag)``, ``rename_label(from, to)``: a rename verb before a tag-like noun and
    two string arguments, one for the old value and one for the new."""
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    tokens = words(step.tool.name)
    if "rename" not in tokens[:-1]:
        return None
    noun = singular(tokens[tokens.index("rename") + 1])
    old_arg = next((a for a in props if _side(a, noun) == "old"), None)
    new_arg = next((a for a in props if _side(a, noun) == "new"), None)
    if old_arg is None or new_arg is None or not all(
            isinstance(props[a], dict) and props[a].get("type", "string") == "string" for a in (old_arg, new_arg)):
        return None
    return Rename(plural(noun), old_arg, new_arg)


def _side(arg: str, noun: str) -> Literal["old", "new"] | None:
    """Which value an argument holds: ``old_tag``/``from``/``old_name`` the old, ``new_tag``/``to`` the new."""
    said = words(arg)
    rest = said[1:]
    if not said or rest not in ([], [noun], ["name"], [noun, "name"]):
        return None
    return "old" if said[0] in ("old", "from", "current") else "new" if said[0] in ("new", "to") else None


def _is_array_of_objects(schema: Any) -> bool:
    items = schema.get("items") if isinstance(schema, dict) else None
    return isinstance(items, dict) and (items.get("type") == "object" or "properties" in items)


def _names_entities(arg: str, schema: Any) -> bool:
    """Whether ``arg`` holds an entity's key (``issue_id``, ``path``) or a list of keys (``paths``, ``ids``)."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "array":
        return arg in _KEY_LISTS or (arg.endswith(("_ids", "Ids")) and not _is_array_of_objects(schema))
    return kind in ("string", "integer", None) and is_id_name(arg)


def _targets(step: Step, keys_arg: str) -> list[Entity]:
    """The live entities the call names, all found in one collection; empty when any is unknown."""
    given = step.arguments.get(keys_arg)
    keys = [str(k) for k in given] if isinstance(given, list) else [str(given)] if given is not None else []
    if not keys:
        return []
    ledger = step.episode.ledger
    stem = id_stem(keys_arg)
    preferred = [collection_name(stem)] if stem else []
    for collection in preferred + [c for c in ledger.collections() if c not in preferred]:
        found = [_lookup(ledger, collection, k) for k in keys]
        if all(e is not None for e in found):
            return [e for e in found if e is not None]
    return []


def _lookup(ledger: Any, collection: str, key: str) -> Entity | None:
    """The entity under ``key``; a path also as the file store keeps it (normalised, from the root)."""
    entity: Entity | None = ledger.get(collection, key)
    if entity is None and ("/" in key or "." in key):
        path = normalise_path(key)
        entity = ledger.get(collection, path) or ledger.get(collection, "/" + path.lstrip("/"))
    return entity


def _current(entity: Entity, field: str) -> list[Any]:
    """The entity's list as it stands: its field, else the tags of its Markdown front matter."""
    have = entity.fields.get(field)
    if isinstance(have, list):
        return list(have)
    if isinstance(have, str) and have.strip():
        return [have]
    text = next((entity.fields[f] for f in _TEXT_FIELDS if isinstance(entity.fields.get(f), str)), None)
    return _front_matter_list(text, field) if text else []


def _front_matter_list(text: str, field: str) -> list[Any]:
    listed = front_matter(text)[0].get(field)
    if isinstance(listed, str):
        return [t for t in listed.replace(",", " ").split() if t]
    return [v for v in listed if isinstance(v, (str, int))] if isinstance(listed, list) else []

def _label(item: Any) -> str:
    """How list items compare: objects (``{name: bug}``) by their name, a tag without its leading ``#``."""
    if isinstance(item, dict):
        item = item.get("name", item.get("id", item.get("label", "")))
    return str(item).lstrip("#").casefold()


def _holds(have: list[Any], value: str) -> bool:
    return _label(value) in {_label(h) for h in have}


def _renamed(have: list[Any], old: str, new: str) -> list[Any]:
    """``have`` with ``old`` replaced by ``new`` where it stood (an object keeps its other fields), once."""
    out: list[Any] = []
    for item in have:
        if _label(item) == _label(old):
            item = {**item, "name": new.lstrip("#")} if isinstance(item, dict) and "name" in item else new.lstrip("#")
        if _label(item) not in {_label(o) for o in out}:
            out.append(item)
    return out


def _changed(have: list[Any], values: list[Any], change: Change) -> list[Any]:
    """``have`` with ``values`` added (once each, in order), removed, or in its place. Items that are
    objects (``{name: bug}``) compare by their name; a leading ``#`` on a tag is not part of it."""

    label = _label
    wanted = [v.lstrip("#") if isinstance(v, str) else v for v in values]
    if change == "set":
        return list(dict.fromkeys(wanted))
    if change == "remove":
        gone = {label(v) for v in wanted}
        return [h for h in have if label(h) not in gone]
    known = {label(h) for h in have}
    added = []
    for value in wanted:
        if label(value) not in known:
            known.add(label(value))
            added.append({"name": value} if have and all(isinstance(h, dict) for h in have) else value)
    return have + added
