"""Answer envelopes learned per tool from a real server's answers (``learn``).

Around the entity it acts on, a tool's answer often carries an envelope of its own:
``{"status": "planned", "requestId": ..., "totalTasks": 3, "tasks": [...], "message":
"Tasks have been successfully added..."}``. What a shape says (the keys and their types) is
not enough to answer like the server: ``status`` is a constant of the tool, ``totalTasks``
counts ``tasks``, and ``message`` is text with the call's values in it. ``learn`` reads that
from the tool's successful answers and writes it under the tool's ``_meta``::

    _meta: {"agentworld/envelope": {
        "constants": {"status": "planned"},
        "counts": {"totalTasks": "tasks"},
        "templates": {"message": "Added {{answer.tasks[*].id}}: {{args.tasks[*].title}}..."}}}

A template is the demonstrated text with every value that came from the call's arguments
(``{{args.PATH}}``) or from the rest of the answer (``{{answer.PATH}}``) put back as a
placeholder; consecutive lines that differ only by the item they show (a table's rows) are
one line over ``[*]``, repeated for each item of this call. The deterministic model answers
as before; :func:`serve_envelope` then keeps only the keys the server's answers have, sets
the constants, recounts and renders the templates. In-band failures are not touched (their
wording comes from :mod:`.failures`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .failures import reads_as_failure  # an in-band failure keeps the wording failures.py gave it
from .learned_state import History, key_of

if TYPE_CHECKING:
    from ..base import Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding its learned envelope.
ENVELOPE_META = "agentworld/envelope"
#: A constant of a tool: a status-like code (``planned``, ``task_marked_done``), not prose or an id.
_CODE = re.compile(r"[a-z][a-z_]{1,40}")
_PLACEHOLDER = re.compile(r"\{\{(args|answer)\.([^{}]+)\}\}")
_ROW = re.compile(r"^\s*(?:\||[-*+] |\d+[.)] )")
#: Argument or answer values shorter than this are not looked for in a text (``a``, ``to``).
_MIN_VALUE = 3


# -- learning -----------------------------------------------------------------------------------


def learn_envelope(samples: list[tuple[JSONDict, Any]], listed: tuple[str, str] | None = None) -> JSONDict:
    """The envelope of a tool from its successful answers (``(arguments, answer)``, answers as JSON).
    ``listed``: for a list tool, the singular of its collection and the field its model lists items in."""
    answers = [(args, answer) for args, answer in samples if isinstance(answer, dict)]
    if not answers:
        return {}
    envelope: JSONDict = {}
    first_args, first = answers[0]
    fields: list[str] = []  # every field a successful answer showed, in the server's order
    for _, answer in answers:
        fields += [k for k in answer if k not in fields]
    envelope["fields"] = fields
    constants = {}
    for name, value in first.items():
        if (isinstance(value, str) and _CODE.fullmatch(value) and value not in _leaves(first_args).values()
                and all(a.get(name) == value for _, a in answers)):
            constants[name] = value
    if constants:
        envelope["constants"] = constants
    counts = {}
    for name, value in first.items():
        if isinstance(value, int) and not isinstance(value, bool):
            lists = [k for k, v in first.items() if isinstance(v, list) and len(v) == value]
            if len(lists) == 1 and all(isinstance(a.get(lists[0]), list) and a.get(name) == len(a[lists[0]])
                                       for _, a in answers):
                counts[name] = lists[0]
    if counts:
        envelope["counts"] = counts
    same = {name: other for name, value in first.items() if isinstance(value, str) and len(value) >= _MIN_VALUE
            and value not in _leaves(first_args).values()
            for other in [next((k for k in first if k != name and first[k] == value), None)]
            if other is not None and list(first).index(other) < list(first).index(name)
            and all(a.get(name) == a.get(other) for _, a in answers)}
    if same:  # ``splitDetails`` repeats ``originalRequest`` when the call gave none
        envelope["same"] = same
    if listed is not None:  # a "next" tool: a list tool answering one item under its singular (``task``)
        noun, items_field = listed
        if all(isinstance(a.get(noun), dict) and not isinstance(a.get(items_field), list) for _, a in answers):
            envelope["first"] = {noun: items_field}
    templates = {}
    for name, value in first.items():
        if isinstance(value, str) and name not in constants and ("\n" in value or " " in value):
            template = _template(value, first_args, {k: v for k, v in first.items() if k != name})
            if _PLACEHOLDER.fullmatch(template):
                continue  # a copy of another field of the answer: the entity's state says it
            if template != value or all(a.get(name) == value for _, a in answers):
                templates[name] = template
    if templates:
        envelope["templates"] = templates
    return envelope


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"tasks": [{"title": "x"}]}`` -> ``{"tasks[0].title": "x"}``: every scalar by its path."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, sub in value.items():
            out.update(_leaves(sub, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out.update(_leaves(sub, f"{prefix}[{i}]"))
    elif prefix:
        out[prefix] = value
    return out


def _template(text: str, arguments: JSONDict, rest: JSONDict) -> str:
    """``text`` with the values of ``arguments`` and ``rest`` (the answer's other fields) as placeholders."""
    found = [(f"{{{{args.{p}}}}}", v) for p, v in _leaves(arguments).items()]
    found += [(f"{{{{answer.{p}}}}}", v) for p, v in _leaves(rest).items()]
    found = [(mark, v) for mark, v in found if isinstance(v, str) and len(v) >= _MIN_VALUE and "{{" not in v]
    found.sort(key=lambda pair: -len(pair[1]))
    parts: list[str | tuple[str]] = [text]  # literal text, or (placeholder,)
    for mark, value in found:
        split: list[str | tuple[str]] = []
        for part in parts:
            if isinstance(part, tuple):
                split.append(part)
                continue
            pieces = part.split(value)
            for i, piece in enumerate(pieces):
                if i:
                    split.append((mark,))
                split.append(piece)
        parts = split
    templated = "".join(p[0] if isinstance(p, tuple) else p for p in parts)
    return _rows("\n".join(_int_cells(line, rest) for line in templated.split("\n")))


def _int_cells(line: str, rest: JSONDict) -> str:
    """A table row showing one listed item (``{{answer.requests[0].requestId}}``): its cells that are the
    item's integers (``3``) as placeholders too, the item's fields taken in their order when numbers repeat."""
    marks = [path for source, path in _PLACEHOLDER.findall(line) if source == "answer"]
    found = re.match(r"(.+\[\d+\])\.", marks[0]) if marks and line.lstrip().startswith("|") else None
    item_path = found.group(1) if found else ""
    item = value_at(rest, item_path) if item_path else None
    if not isinstance(item, dict):
        return line
    numbers = [(k, v) for k, v in item.items() if isinstance(v, int) and not isinstance(v, bool)]
    cells = line.split("|")
    for i, cell in enumerate(cells):
        match = next((kv for kv in numbers if cell.strip() == str(kv[1])), None) if cell.strip() else None
        if match is not None:
            numbers.remove(match)
            cells[i] = cell.replace(cell.strip(), "{{answer." + item_path + "." + match[0] + "}}")
    return "|".join(cells)


def template_text(text: str, arguments: JSONDict) -> str:
    """``text`` with the call's argument values as ``{{args.PATH}}`` placeholders (a wording learned once);
    short values and numbers too where they stand as a whole token (``Note 9 not found``)."""
    templated = _template(text, arguments, {})
    for path, value in _leaves(arguments).items():
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            mark = ("{{args." + path + "}}").replace("\\", "\\\\")
            templated = re.sub(rf"(?<![\w.{{-]){re.escape(str(value))}(?![\w}}-])", mark, templated)
    return templated


def _rows(template: str) -> str:
    """Consecutive lines that differ only by the item index of their placeholders become one ``[*]`` line."""
    lines = template.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        general = _generalised(lines[i], 0)
        run = 1
        while general is not None and i + run < len(lines) and _generalised(lines[i + run], run) == general:
            run += 1
        if general is not None and (run > 1 or _ROW.match(lines[i])):
            out.append(general)
            i += run
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _generalised(line: str, index: int) -> str | None:
    """The line with its ``[index]`` placeholders as ``[*]``, when every placeholder indexes one item ``index``."""
    marks = _PLACEHOLDER.findall(line)
    if not marks or not all(re.search(rf"\[{index}\]", path) for _, path in marks):
        return None
    return _PLACEHOLDER.sub(lambda m: "{{" + m.group(1) + "." + re.sub(rf"\[{index}\]", "[*]", m.group(2), count=1)
                            + "}}", line)


# -- serving ------------------------------------------------------------------------------------


def serve_envelope(step: Step, observation: Any, shape: JSONDict) -> Any:
    """``observation`` (a successful JSON answer in the tool's shape) served in its learned envelope."""
    envelope = (step.tool.definition.get("_meta") or {}).get(ENVELOPE_META)
    if not isinstance(envelope, dict) or not isinstance(observation, dict) or reads_as_failure(observation):
        return observation
    answer = dict(observation)
    for name, listed in (envelope.get("first") or {}).items():
        if isinstance(observation.get(listed), list):
            answer[name] = _next_item(step, observation[listed])
    taken = _from_state(step, answer, shape, envelope.get("constants") or {})
    for name, other in (envelope.get("same") or {}).items():
        if taken and name not in taken and isinstance(answer.get(other), str):
            answer[name] = answer[other]
    fields = [f for f in envelope.get("fields") or () if isinstance(f, str)]
    if fields:  # a success has the fields successes had (the shape also holds those of in-band failures)
        from .common import conform

        props = shape.get("properties") or {}
        answer = conform({k: v for k, v in answer.items() if k in fields},
                         {**shape, "required": [f for f in fields if f in props]}, step.rng)
        answer = {k: answer[k] for k in fields if k in answer}
    answer = _kept(answer, shape)
    answer.update(envelope.get("constants") or {})
    for name, listed in (envelope.get("counts") or {}).items():
        if isinstance(answer.get(listed), list):
            answer[name] = len(answer[listed])
    counts, tables = envelope.get("item_counts"), envelope.get("tables")
    history = None
    if isinstance(counts, dict) and counts or isinstance(tables, list) and tables:
        from .learned_state import episode_history

        history = episode_history(step)
        if isinstance(counts, dict):
            _recounted(answer.get(str(counts.get("field"))), counts.get("counts") or {}, history)
    for name, template in (envelope.get("templates") or {}).items():
        if isinstance(template, str):
            answer[name] = render(template, step.arguments, answer)
    if history is not None and isinstance(tables, list):
        history.add(step.tool.name, step.arguments, {"structuredContent": answer})  # rows show this call's result
        for index, table in enumerate(tables):
            if isinstance(table, dict) and isinstance(answer.get(table.get("field")), str):
                answer[table["field"]] = _tabled(answer[table["field"]], index, table, step.arguments, answer, history)
    order = fields or list(observation)
    return {k: answer[k] for k in [*order, *answer] if k in answer}  # key order: the server's


def _recounted(items: Any, counts: JSONDict, history: History) -> None:
    """Listed items' counts of the entities under them (all, or those a tool acted on), as the episode has them."""
    for item in items if isinstance(items, list) else ():
        key = key_of(item) if isinstance(item, dict) else None
        if key is None:
            continue
        children = history.children(key)
        for name, tool in counts.items():
            if name in item:
                item[name] = sum(1 for c in children if tool is None or tool in history.acted.get(c, ()))


def _tabled(text: str, index: int, table: JSONDict, arguments: JSONDict, answer: JSONDict, history: History) -> str:
    """``text`` with its ``{{table.N}}`` line as one row per entity under the parent the call names."""
    source, _, name = str(table.get("parent") or "").partition(".")
    parent = (arguments if source == "args" else answer).get(name)
    rows: list[str] = []
    for key in history.children(str(parent)) if isinstance(parent, (str, int)) else ():
        entity, acted = history.entities[key], history.acted.get(key, [])
        rows.append(_row(table, entity, acted))
    marker = "{{table." + str(index) + "}}"
    return "\n".join(x for line in text.split("\n") for x in (rows if line == marker else [line]))


def _row(table: JSONDict, entity: JSONDict, acted: list[str]) -> str:
    row = re.sub(r"\{\{cell\.(\d+)\}\}", lambda m: _cell(table, m.group(1), acted), str(table.get("row") or ""))
    return re.sub(r"\{\{row\.([^{}]+)\}\}", lambda m: str(entity.get(m.group(1), "")), row)


def _cell(table: JSONDict, index: str, acted: list[str]) -> str:
    """A cell that is a constant, or one text once a tool acted on the row's entity and another before."""
    how = (table.get("cells") or {}).get(index) or {}
    if "tool" in how:
        return str(how["yes"] if how["tool"] in acted else how["no"])
    return str(how.get("text", ""))


def _from_state(step: Step, answer: JSONDict, shape: JSONDict, constants: JSONDict) -> set[str]:
    """Fields beside a wrapped entity (``requestId``, ``originalRequest`` beside ``task``) taken from the
    entity, else from its parent (the ``requests`` entity its ``requestId`` names), as the ledger holds them."""
    from ...world.roles import collection_name, id_stem

    wrapper = step.role.wrapper
    entity = answer.get(wrapper) if wrapper else None
    if not isinstance(entity, dict):
        return set()
    taken: set[str] = {wrapper} if wrapper else set()
    sources = [entity]
    for name, value in entity.items():
        stem = id_stem(name) if name.endswith(("Id", "_id")) else None
        parent = step.episode.ledger.get(collection_name(stem), str(value)) if stem else None
        if parent is not None:
            sources.append(parent.fields)
    for name in (shape.get("properties") or {}):
        if name == wrapper or name in constants:
            continue
        value = next((src[name] for src in sources if name in src), None)
        if value is not None and not isinstance(value, (dict, list)):
            answer[name] = value
            taken.add(name)
    return taken


def _next_item(step: Step, items: list[Any]) -> Any:
    """The item a "next" tool shows: with what ``learn`` saw (:mod:`.learned_rules`' ``next``), the first entity
    under the parent the call names that the skipping tool has not acted on; else the first item no call has
    changed since it was made, else the first."""
    from .learned_state import episode_history, learned

    how = learned(step).get("next")
    parent = step.arguments.get(str(how.get("parent"))) if isinstance(how, dict) else None
    if isinstance(how, dict) and isinstance(parent, (str, int)):
        history = episode_history(step)
        children = history.children(str(parent))
        if children:
            skip = how.get("skip")
            pending = [c for c in children if not skip or skip not in history.acted.get(c, ())]
            return dict(history.entities[pending[0]]) if pending else None
    role = step.role
    ledger = step.episode.ledger
    for item in items:
        key = item.get(role.key_field) if isinstance(item, dict) else None
        entity = ledger.get(role.collection, str(key)) if key is not None else None
        if entity is not None and entity.updated_turn is None:
            return item
    return items[0] if items else None


def _kept(value: Any, shape: JSONDict) -> Any:
    """``value`` with only the keys the server's answers showed (the shape's properties, at any depth)."""
    if isinstance(value, dict) and shape.get("type") == "object":
        props = shape.get("properties")
        if not isinstance(props, dict) or not props:
            return dict(value)
        return {k: _kept(v, props[k]) for k, v in value.items() if k in props}
    if isinstance(value, list) and isinstance(shape.get("items"), dict):
        return [_kept(v, shape["items"]) for v in value]
    return value


def render(template: str, arguments: JSONDict, answer: JSONDict) -> str:
    """The text of ``template`` for this call: ``[*]`` lines once per item, a line whose value is missing left out."""
    sources = {"args": arguments, "answer": answer}
    lines: list[str] = []
    for line in template.split("\n"):
        marks = _PLACEHOLDER.findall(line)
        if any("[*]" in path for _, path in marks):
            source, path = next((s, p) for s, p in marks if "[*]" in p)
            items = value_at(sources[source], path.split("[*]")[0])
            for i in range(len(items) if isinstance(items, list) else 0):
                filled = _filled(line.replace("[*]", f"[{i}]"), sources)
                if filled is not None:
                    lines.append(filled)
            continue
        filled = _filled(line, sources)
        if filled is not None:
            lines.append(filled)
    return "\n".join(lines)


def _filled(line: str, sources: dict[str, Any]) -> str | None:
    return substituted(_PLACEHOLDER, line, lambda match: value_at(sources[match.group(1)], match.group(2)))


def substituted(pattern: re.Pattern[str], text: str, value_of: Callable[[re.Match[str]], Any]) -> str | None:
    """``text`` with each match of ``pattern`` replaced by ``value_of(match)``; None when one has no
    scalar value (the learned templates' slots: envelopes here, sentences in learned_text)."""
    missing = False

    def value(match: re.Match[str]) -> str:
        nonlocal missing
        found = value_of(match)
        if found is None or isinstance(found, (dict, list)):
            missing = True
            return ""
        return str(found)

    filled = pattern.sub(value, text)
    return None if missing else filled


def value_at(value: Any, path: str) -> Any:
    """The value at ``tasks[1].title`` in ``value``, or None."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return None
    return value


__all__ = ["ENVELOPE_META", "learn_envelope", "render", "serve_envelope", "substituted", "template_text", "value_at"]
