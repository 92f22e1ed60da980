"""Whole ``SELECT ... FROM object`` statements of object-query and work-item query languages.

A tool whose argument the catalog calls an object query ("Run a SOQL query") or a work-item
query ("WIQL") reads the episode's records, not a SQL database: ``FROM Account`` is the
collection of that name (plural or singular, any case or separator), the ``WHERE`` clause is
evaluated over each record (:mod:`.query_eval`), ``ORDER BY``/``LIMIT``/``OFFSET`` apply,
and the listed fields are selected (``COUNT()`` counts). The answer has the language's
documented shape: ``{totalSize, done, records: [{attributes: {type}, ...fields}]}`` for an
object query, ``{queryType, columns, workItems: [{id}]}`` for a work-item query.

A statement the grammar does not read, a field no record of the object has and the catalog
does not declare, or (when the world holds records) an object nobody has heard of, is an
error in the language's words (:mod:`.query_errors`), never the whole collection.
"""

from __future__ import annotations

from typing import Any

from ...world.roles import singular
from ..base import Prediction, Step
from . import records
from .common import clock, error, now_iso
from .query_detect import Language, declared
from .query_errors import QueryError, worded
from .query_eval import MISSING, Evaluator, has_field, resolve
from .query_parse import Parsed, parse

JSONDict = dict[str, Any]


def predict_statement(step: Step) -> Prediction | None:
    """The answer to a statement-language query tool's call, or None (not such a tool, or no statement given)."""
    found = step.derived(("query-statement", step.tool.name), lambda: _statement_arg(step.tool.definition))
    if found is None:
        return None
    arg, language = found
    text = step.arguments.get(arg)
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        parsed = parse(language, text)
        return Prediction(_answer(step, language, parsed), effects=[])
    except QueryError as problem:
        entity = problem.detail if problem.kind == "object" else _source(text)
        return error(worded(language, problem, text, entity))


def _statement_arg(tool: JSONDict) -> tuple[str, Language] | None:
    for arg in (tool.get("inputSchema") or {}).get("properties") or {}:
        language = declared(tool, arg)
        if language is not None and language.statement:
            return arg, language
    return None


def _answer(step: Step, language: Language, parsed: Parsed) -> JSONDict:
    assert parsed.source is not None
    collection = _collection(step, parsed.source)
    items = [e.fields for e in step.episode.ledger.items(collection)] if collection else []
    entity = records.model(step).entity(collection) if collection else None
    known = set(entity.fields) if entity is not None else set()
    if items or known:
        unknown = next((f for f in sorted(parsed.fields) if not has_field(items, known, f)), None)
        if unknown is not None:
            raise QueryError("field", unknown)
    evaluator = Evaluator(language, clock(step.turn), step.arguments)
    kept = [item for item in items if evaluator.holds(parsed.condition, item)]
    kept = evaluator.ordered(kept, parsed.order, lambda item: item)[parsed.offset:]
    if parsed.limit is not None:
        kept = kept[:parsed.limit]
    if language.shape == "work_items":
        return _work_items(step, parsed, kept)
    if parsed.count is not None:
        if parsed.count == "":
            return {"totalSize": len(kept), "done": True, "records": []}
        counted = sum(1 for item in kept if _present(resolve(item, parsed.count)))
        return {"totalSize": 1, "done": True, "records": [{"attributes": {"type": "AggregateResult"},
                                                           "expr0": counted}]}
    rows = [{"attributes": {"type": parsed.source}, **_selected(item, parsed.columns)} for item in kept]
    return {"totalSize": len(rows), "done": True, "records": rows}


def _work_items(step: Step, parsed: Parsed, kept: list[JSONDict]) -> JSONDict:
    columns = [{"referenceName": c, "name": c.rsplit(".", 1)[-1]} for c in parsed.columns or ()]
    ids = [resolve(item, "id") for item in kept]
    return {"queryType": "flat", "queryResultType": "workItem", "asOf": now_iso(step.turn), "columns": columns,
            "workItems": [{"id": i} for i in ids if _present(i)]}


def _selected(item: JSONDict, columns: tuple[str, ...] | None) -> JSONDict:
    if columns is None:
        return dict(item)
    row: JSONDict = {}
    for column in columns:
        value = resolve(item, column)
        value = None if not _present(value) else value
        if "." in column and not isinstance(value, dict):  # ``Owner.Name`` -> {"Owner": {"Name": ...}}
            head, rest = column.split(".", 1)
            row.setdefault(head, {}).update(_selected({rest: value}, (rest,)) if value is not None else {rest: None})
            continue
        own = next((k for k in item if k.casefold() == column.casefold()), column)
        row[own] = value
    return row


def _present(value: Any) -> bool:
    return value is not None and value is not MISSING


def _collection(step: Step, name: str) -> str | None:
    """The ledger collection (or catalog entity) a ``FROM`` object names, else None."""
    wanted = _normal(name)
    candidates = list(step.episode.ledger.collections()) + list(records.model(step).entities)
    for collection in candidates:
        if wanted in (_normal(collection), _normal(singular(collection))):
            return collection
    if step.episode.ledger.collections():
        raise QueryError("object", name)
    return None


def _normal(name: str) -> str:
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def _source(text: str) -> str | None:
    words = text.split()
    lowered = [w.casefold() for w in words]
    return words[lowered.index("from") + 1].strip("[]") if "from" in lowered[:-1] else None


__all__ = ["predict_statement"]
