"""What a recording shows of the keys an environment's answers hold (``learn``; served by
``models/deterministic/learned_environment.py``).

Two things, per tool, from its successful JSON answers:

* **unwrap**: the outputSchema declares one object field (``status``, ``soilMoisture``) whose
  properties the answers hold at their top level, and no answer holds the field itself: the server
  answers with the object's fields alone;
* **keys**: the answer's top-level keys are a function of one string argument's value
  (``option: "vents"`` -> ``ventStatus``, ``option: "water"`` -> ``waterLevel``): the same value always
  gave the same keys, and either two values gave different keys, or the keys carry the value's words
  (one value seen: ``vents`` names ``ventStatus``). An identifier argument never keys a table;
* **fields**: for a tool with an outputSchema, every top-level key its answers held: an answer key
  neither the schema lists nor the recording showed is the model's own (``items`` beside a declared
  ``plant_list``) and is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..models.deterministic.learned_environment import ENVIRONMENT_META
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from ..world.conventions import described_enum
from ..world.roles import singular, words
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
_ID_NAME = re.compile(r"(?:id|[a-z0-9]+_id|[a-z][A-Za-z0-9]*Id|uuid|key|path|url|name|query|text)")
#: Words of an argument that names a thing rather than picks an option.
_NAMING = frozenset({"id", "key", "number", "no", "code", "name", "path", "url", "query", "text", "title"})
#: A value that can key a table: a code-like word, no prose, no serial number.
_WORD = re.compile(r"[A-Za-z][A-Za-z_ -]{0,39}")


def _answers(turns: list[RecordedTurn]) -> list[tuple[JSONDict, JSONDict]]:
    """``(arguments, answer)`` of every successful answer that is a JSON object."""
    out = []
    for turn in turns:
        if failed(turn.result):
            continue
        data = answer_data(turn.result)
        if isinstance(data, dict) and data:
            out.append((dict(turn.arguments), data))
    return out


def learn_unwrap(output_schema: JSONDict | None, answers: list[JSONDict]) -> str | None:
    """The declared object field whose properties the answers hold at their top level (see the module doc)."""
    props = (output_schema or {}).get("properties") or {}
    if not answers or not isinstance(props, dict):
        return None
    keys = {k for a in answers for k in a}
    for name, sub in props.items():
        inner = sub.get("properties") if isinstance(sub, dict) else None
        if not isinstance(inner, dict) or any(name in a for a in answers):
            continue
        if keys <= set(inner) and not keys <= set(props):
            return str(name)
    return None


def _named_by(value: str, keys: set[str]) -> bool:
    wanted = {singular(w) for w in words(value)}
    return bool(wanted) and any(wanted <= {singular(w) for w in words(k)} for k in keys)


def _quantities(answer: JSONDict) -> bool:
    """Whether an answer holds quantities: scalars, or objects of scalars (a map of doors), no records' lists."""
    return all(not isinstance(v, (dict, list)) or isinstance(v, dict) and all(
        not isinstance(s, (dict, list)) for s in v.values()) for v in answer.values())


def learn_keys(answers: list[tuple[JSONDict, JSONDict]], options: dict[str, list[str]] | None = None
               ) -> JSONDict | None:
    """The string argument whose value decides the answer's top-level keys, and the table (see the module doc);
    ``options``: the values each argument lists (a lone value seen counts for an argument that lists values)."""
    if not answers or not all(_quantities(a) for _, a in answers):
        return None
    names = sorted({n for args, _ in answers for n in args})
    for name in names:
        if _ID_NAME.fullmatch(name) or name.endswith(("_id", "Id", "_ids", "Ids")) or set(words(name)) & _NAMING:
            continue
        table: dict[str, frozenset[str]] = {}
        seen: Counter[str] = Counter()
        function = True
        for args, answer in answers:
            value = args.get(name)
            if not isinstance(value, str) or not _WORD.fullmatch(value):
                function = False
                break
            keys = frozenset(answer)
            if table.setdefault(value, keys) != keys:
                function = False
                break
            seen[value] += 1
        if not function or not table:
            continue
        listed = set((options or {}).get(name) or ())
        # a value the argument lists, or one seen twice: an option, not an identifier met once
        optional = set(table) <= listed or max(seen.values()) >= 2
        differs = len(set(table.values())) >= 2
        named = all(_named_by(value, set(keys)) for value, keys in table.items())
        if optional and (differs or named and set(table) <= listed):
            return {"argument": name, "cases": [[value, sorted(keys)] for value, keys in table.items()]}
    return None


def learn_environment(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its environment statistics (see the module doc)."""
    by_tool: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            by_tool.setdefault(turn.tool, []).append(turn)
    out: dict[str, JSONDict] = {}
    for tool, turns in by_tool.items():
        spec = catalog.get(tool)
        if spec is None:
            continue
        answers = _answers(turns)
        found: JSONDict = {}
        if (wrapper := learn_unwrap(spec.output_schema, [a for _, a in answers])) is not None:
            found["unwrap"] = wrapper
        props = spec.input_schema.get("properties") or {}
        options = {n: described_enum(p) for n, p in props.items() if described_enum(p)}
        if (keys := learn_keys(answers, options)) is not None:
            found["keys"] = keys
        if (spec.output_schema or {}).get("properties") and answers:
            found["fields"] = sorted({k for _, a in answers for k in a})
        if found:
            out[tool] = found
    return out


def add_environment_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's environment statistics under its ``_meta``; the number of tools written."""
    learned = learn_environment(episodes, catalog)
    write_meta(data, ENVIRONMENT_META, {name: found for name, found in learned.items() if found})
    return len(learned)


__all__ = ["add_environment_meta", "learn_environment", "learn_keys", "learn_unwrap"]
