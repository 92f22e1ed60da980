"""A knowledge graph of named entities, answered like the official memory MCP server.

Entities (``{"name", "entityType", "observations"}``) are keyed by name in ``entities``;
relations (``{"from", "to", "relationType"}``) by all three fields in ``relations``.
Behaviour follows the reference server: creating an existing name is skipped, adding
observations to an unknown entity fails with ``Entity with name X not found``, deleting
an entity removes its relations, deletes of unknown names succeed silently, and reads
(``open_nodes``, ``search_nodes``, ``read_graph``) return entities with every relation
that touches them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...state.ledger import Effect, compound_key
from ...state.result import dump_json
from ...world.roles import ToolRole
from ..base import Prediction, Step
from .common import conform, not_found, structured_text

JSONDict = dict[str, Any]
_RELATION = ("from", "relationType", "to")


def predict_graph(step: Step, role: ToolRole) -> Prediction:
    handler = _OPS.get(role.op or "", _read_graph)
    return handler(step, role)


def _answer(step: Step, structured: JSONDict, text_value: Any) -> Prediction:
    """Structured content as the schema has it; the text block what the reference server prints
    (``JSON.stringify(result, null, 2)`` of the bare result: ``[...]`` where structured is ``{entities: [...]}``)."""
    text = text_value if isinstance(text_value, str) else dump_json(text_value)
    out = step.tool.output_schema
    if not out:
        return Prediction(text, effects=[])
    return Prediction(conform(structured, out, step.rng), effects=[], text=text)


def _relation_key(relation: JSONDict) -> str:
    return compound_key(*(relation.get(f, "") for f in _RELATION))


def _items(step: Step, role: ToolRole) -> list[Any]:
    value = step.arguments.get(role.batch_arg or "")
    return value if isinstance(value, list) else []


def _entity_fields(item: JSONDict) -> JSONDict:
    fields = {"name": item.get("name"), "entityType": item.get("entityType", ""),
              "observations": list(item.get("observations") or [])}
    fields.update({k: copy.deepcopy(v) for k, v in item.items() if k not in fields})
    return fields


# -- writes -------------------------------------------------------------------------------------


def _create_new(step: Step, role: ToolRole, collection: str, key_of: Callable[[JSONDict], str | None],
                fields_of: Callable[[JSONDict], JSONDict]) -> Prediction:
    """Create each item whose key is new (the memory server skips existing ones, and repeats)."""
    ledger, created, effects, seen = step.episode.ledger, [], [], set()
    for item in _items(step, role):
        key = key_of(item) if isinstance(item, dict) else None
        if key is None or key in seen or ledger.get(collection, key) is not None:
            continue
        seen.add(key)
        fields = fields_of(item)
        created.append(fields)
        effects.append(Effect("create", collection, key, fields))
    answer = _answer(step, {collection: created}, created)
    answer.effects = effects
    return answer


def _create_entities(step: Step, role: ToolRole) -> Prediction:
    def name_of(item: JSONDict) -> str | None:
        name = item.get("name")
        return name if isinstance(name, str) else None

    return _create_new(step, role, "entities", name_of, _entity_fields)


def _create_relations(step: Step, role: ToolRole) -> Prediction:
    def fields_of(item: JSONDict) -> JSONDict:
        return {"from": item.get("from"), "to": item.get("to"), "relationType": item.get("relationType")}

    return _create_new(step, role, "relations", _relation_key, fields_of)


def _add_observations(step: Step, role: ToolRole) -> Prediction:
    ledger, results, effects = step.episode.ledger, [], []
    pending: dict[str, list[str]] = {}
    for item in _items(step, role):
        name = item.get("entityName") if isinstance(item, dict) else None
        entity = ledger.get("entities", name) if isinstance(name, str) else None
        if entity is None or not isinstance(name, str):
            return not_found(step, role, str(name))
        current = pending.get(name, list(entity.fields.get("observations") or []))
        added = [c for c in item.get("contents") or [] if c not in current]
        pending[name] = current + added
        results.append({"entityName": name, "addedObservations": added})
    effects = [Effect("update", "entities", name, {"observations": obs}) for name, obs in pending.items()]
    answer = _answer(step, {"results": results}, results)
    answer.effects = effects
    return answer


def _delete_observations(step: Step, role: ToolRole) -> Prediction:
    ledger, pending = step.episode.ledger, dict[str, list[str]]()
    for item in _items(step, role):
        name = item.get("entityName") if isinstance(item, dict) else None
        entity = ledger.get("entities", name) if isinstance(name, str) else None
        if entity is None or not isinstance(name, str):
            continue  # the reference server skips unknown entities here
        current = pending.get(name, list(entity.fields.get("observations") or []))
        gone = set(item.get("observations") or [])
        pending[name] = [o for o in current if o not in gone]
    effects = [Effect("update", "entities", n, {"observations": obs}) for n, obs in pending.items()]
    return _done(step, "Observations deleted successfully", effects)


def _delete_entities(step: Step, role: ToolRole) -> Prediction:
    ledger = step.episode.ledger
    names = {str(n) for n in step.arguments.get(role.batch_arg or "entityNames") or []}
    effects = [Effect("delete", "entities", n) for n in sorted(names) if ledger.get("entities", n) is not None]
    effects += [Effect("delete", "relations", r.key) for r in ledger.items("relations")
                if r.fields.get("from") in names or r.fields.get("to") in names]
    return _done(step, "Entities deleted successfully", effects)


def _delete_relations(step: Step, role: ToolRole) -> Prediction:
    ledger = step.episode.ledger
    keys = {_relation_key(r) for r in _items(step, role) if isinstance(r, dict)}
    effects = [Effect("delete", "relations", k) for k in sorted(keys) if ledger.get("relations", k) is not None]
    return _done(step, "Relations deleted successfully", effects)


def _done(step: Step, message: str, effects: list[Effect]) -> Prediction:
    out = step.tool.output_schema
    if out and "message" in (out.get("properties") or {}):
        return Prediction(conform({"success": True, "message": message}, out, step.rng), effects=effects, text=message)
    return structured_text(step, message, effects=effects)


# -- reads --------------------------------------------------------------------------------------


def _graph(step: Step, entities: list[JSONDict]) -> Prediction:
    names = {e["name"] for e in entities}
    relations = [copy.deepcopy(r.fields) for r in step.episode.ledger.items("relations")
                 if r.fields.get("from") in names or r.fields.get("to") in names]
    graph = {"entities": entities, "relations": relations}
    return _answer(step, graph, graph)


def _read_graph(step: Step, role: ToolRole) -> Prediction:
    ledger = step.episode.ledger
    entities = [copy.deepcopy(e.fields) for e in ledger.items("entities")]
    graph = {"entities": entities, "relations": [copy.deepcopy(r.fields) for r in ledger.items("relations")]}
    return _answer(step, graph, graph)


def _search(step: Step, role: ToolRole) -> Prediction:
    query = str(step.arguments.get(role.query_arg or "query", "")).lower()
    found = []
    for entity in step.episode.ledger.items("entities"):
        fields = entity.fields
        texts = [str(fields.get("name", "")), str(fields.get("entityType", ""))]
        texts += [str(o) for o in fields.get("observations") or []]
        if any(query in t.lower() for t in texts):
            found.append(copy.deepcopy(fields))
    return _graph(step, found)


def _open(step: Step, role: ToolRole) -> Prediction:
    wanted = {str(n) for n in step.arguments.get(role.batch_arg or "names") or []}
    found = [copy.deepcopy(e.fields) for e in step.episode.ledger.items("entities") if e.key in wanted]
    return _graph(step, found)


_OPS = {
    "create_entities": _create_entities, "create_relations": _create_relations,
    "add_observations": _add_observations, "delete_observations": _delete_observations,
    "delete_entities": _delete_entities, "delete_relations": _delete_relations,
    "read_graph": _read_graph, "search": _search, "open": _open,
}
