"""``agentworld-mcp learn``: a world file from recorded real traffic.

What a recording (``proxy --record FILE.jsonl``) shows goes where ``enrich`` puts what a
language model shows, so both world models use it the same way:

* the catalog: the tools/list recorded beside the recording (``FILE.tools.json``), each
  tool byte-identical except for what is added under its ``_meta``;
* the *output shape* of each tool without an outputSchema, a JSON Schema that genson builds
  from the tool's successful JSON answers (``_meta.agentworld/output_shape``), and the role
  fields those answers make certain (``_meta.agentworld/role``), exactly as ``enrich``;
* ``demonstrations``: per tool a bounded, diverse selection of real calls and answers
  (errors first, then answers of a shape or argument set not shown yet). The deterministic
  model takes from them the server's error wording and whether failures are ``isError``
  or text; the language model sees them in its prompt;
* ``seed``: the entities the server already held, as its read, list and search answers
  showed them before the episode's first other call (after it, an answer may show what the
  episode itself changed). A list of objects under a field named after a collection of the
  catalog (``entities``, ``relations``), or a list tool's bare list, is that collection. After the
  first change, an entity still counts until a change names it: a read's answer (inside its envelope,
  ``{"ok": true, "data": {...}}``) under the read's key argument, a file a search's matches name by path.

Every turn is redacted as it is read (``trajectories/redaction.py``): no secret of a recording
reaches the world file.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..models.deterministic.learned_envelope import ENVELOPE_META, learn_envelope
from ..models.deterministic.failures import reads_as_failure  # an in-band failure is no envelope of success
from ..models.deterministic.learned_state import answer_data, failed, key_of, unwrapped
from ..models.deterministic.id_formats import ID_FORMATS_META, ids_in, infer_format
from ..trajectories.redaction import redact_call, secrets_in
from ..world.catalog import Catalog, ToolSpec
from .learn_frames import add_frame_meta
from .learn_text import add_sentences
from .learn_values import add_value_meta
from .learn_instants import add_instant_meta
from .learn_environment import add_environment_meta
from .learn_files import FILES, learned_files, merge_files
from .learn_provenance import in_context, looks_up, with_recorded_flags
from .free_maps import free_form_arguments, with_free_form_maps
from .learn_lifecycle import add_lifecycle_meta
from .learn_views import add_view_meta
from .learn_row_counts import add_row_count_meta
from .learn_search_places import add_search_place_meta
from .learn_shape import add_shape_meta
from .learn_entity_shapes import add_entity_shape_meta
from .learn_due_filter import add_due_filter_meta
from .learn_shape_argument import add_shape_argument_meta
from .learn_answer_keys import add_answer_keys_meta
from .learn_error_envelope import add_error_envelope_meta
from .learn_undo import add_undo_meta
from .learn_workbook_start import add_workbook_start_meta
from .learn_backups import add_backup_meta
from .learn_inband_refusal import add_inband_refusal_meta
from .learn_repository import learn_repository, merged_seed
from .learn_created import add_created_meta
from .learn_scoped import add_scope_meta, named_entities, seed_key, with_scope
from .learn_rules import LEARNED_META, learn_behaviour, learn_item_counts, learn_tables
from .learn_key_collection import add_key_collection_meta
from .learn_untouched_seed import untouched_listed
from .enrich import Sample, ToolEnrichment, apply, infer_role_fields, infer_shape, with_initial_values
from ..errors import ConfigError
from ..world.roles import collection_name, id_stem, normalise_path, singular
from .score import RecordedTurn, json_of, key_paths, listed_items, read_episodes, recorded_catalog, text_of
from ..world.values import leaves
from ..world.world import World, load_world, load_world_data

JSONDict = dict[str, Any]
#: Demonstrations per tool unless asked otherwise (each one goes into the language model's prompt).
MAX_DEMONSTRATIONS = 4
#: A demonstration's text longer than this is not shown (a file's whole content is not a wording).
MAX_RESPONSE_CHARS = 2000
#: A field that is a record's own id (``id``, ``entry_id``, ``taskId``), not a path or a name a hit also shows.
_OWN_ID = re.compile(r"id|uuid|.+_id|.+Id")
#: At most this many seeded entities per collection (a world file stays readable).
MAX_SEED = 200
#: Tools whose answers show state without changing it.
_OBSERVING = ("list", "search", "read")


def sample_of(turn: RecordedTurn) -> Sample:
    """A recorded call as enrich's sample: the JSON answer when it is JSON, else its text."""
    is_error = bool(turn.result.get("isError"))
    answer = None if is_error else json_of(turn.result)
    structured = turn.result.get("structuredContent")
    if (items := listed_items(turn.result)) is not None:  # one block per item: the list the tool returned
        return Sample(dict(turn.arguments), items, is_error)
    if isinstance(structured, dict) and list(structured) == ["result"] and text_of(turn.result):
        # FastMCP's wrapper of a plain return value: the answer is what the server printed
        printed = json_of({"content": turn.result.get("content")})
        return Sample(dict(turn.arguments), printed if printed is not None else text_of(turn.result), is_error)
    return Sample(dict(turn.arguments), answer if answer is not None else text_of(turn.result), is_error)


def select_demonstrations(samples: list[Sample], limit: int) -> list[Sample]:
    """At most ``limit`` samples, each showing something the others do not: an error wording, an answer
    shape (its key paths), a set of arguments. Errors come first: they are what a catalog never says."""
    chosen: list[Sample] = []
    seen: set[tuple[bool, str, str]] = set()

    def failed(sample: Sample) -> bool:  # ``isError``, or in band: ``Note 9 not found`` as an ordinary answer
        response = sample.response  # a list tool's caught failure: ``[{"error": "..."}]``
        one = response[0] if isinstance(response, list) and len(response) == 1 else response
        return sample.is_error or reads_as_failure(one)

    for sample in sorted(samples, key=lambda s: not failed(s)):
        if len(chosen) >= limit:
            break
        response = sample.response
        if isinstance(response, str) and len(response) > MAX_RESPONSE_CHARS:
            continue
        shape = (json.dumps(response, sort_keys=True)[:40] if failed(sample) and not isinstance(response, str) else
                 response[:40] if failed(sample) else ",".join(sorted(key_paths(response))))
        signature = (failed(sample), shape, ",".join(sorted(sample.arguments)))
        if signature in seen:
            continue
        seen.add(signature)
        chosen.append(sample)
    return chosen


def observed_seed(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, list[JSONDict]]:
    """What the server held before each episode changed anything (see the module doc): every list of
    entities the answers showed before the episode's first change, and after it each entity an answer
    showed (inside its envelopes: ``data``, ``result``, JSON in text) before a change named it."""
    collections = {spec.role.collection for spec in catalog if spec.role.collection}
    seed: dict[str, list[JSONDict]] = {}
    keyed: dict[tuple[str, str], JSONDict] = {}
    seen: set[str] = set()
    relative = absolute = False
    for turns in episodes.values():
        touched: set[str] = set()  # keys a change named (its arguments) or showed (its answer)
        changed = False
        # values most calls pass (the vault, the workspace) scope the calls, they name no entity
        scoped = Counter(k for t in turns if t.arguments for k in _keys_of(leaves(t.arguments)))
        every = {k for k, n in scoped.items() if 2 * n > sum(1 for t in turns if t.arguments)}
        for turn in turns:
            spec = catalog.get(turn.tool)
            if spec is None:
                continue
            if spec.role.kind not in _OBSERVING:
                changed = True
                if not failed(turn.result):
                    touched.update(_keys_of(leaves(turn.arguments)) | _keys_of(leaves(answer_data(turn.result))))
                continue
            if failed(turn.result):
                continue
            found = _entity_lists(answer_data(turn.result), spec, collections) + _listed_directory(
                turn, spec) + named_entities(unwrapped(answer_data(turn.result)), spec, catalog)  # learn_scoped.py
            if changed:  # after a change only what answers to a key no change named: learn_untouched_seed.py
                found = untouched_listed(found, catalog, touched)
            # what a read shows of a thing the session changed (a presentation opened from a file it saved) is no seed
            named = _keys_of(leaves(turn.arguments)) - every
            shown = [] if named & touched else _shown(turn, spec, catalog)
            if named & touched:
                touched.update(named)  # and what it names is of the session's making too (the id it opened as)
            paths = [str(i.get("path", "/")) for _, items in shown for i in items]
            relative, absolute = relative or any(not p.startswith("/") for p in paths), absolute or any(
                p.startswith("/") for p in paths) or bool(_listed_directory(turn, spec))
            for collection, items in [*found, *shown]:
                for item in with_scope(turn.arguments, spec, catalog, collection, items):  # ``calendar: Work``
                    key = _seed_key(item) or seed_key(catalog, collection, item)
                    if key is not None and _keys_of([key]) & touched:
                        continue
                    if key is not None and (known := keyed.get((collection, key))) is not None:
                        known.update({k: v for k, v in item.items() if k not in known})  # a read adds what a search left out
                        continue
                    text = json.dumps([collection, item], sort_keys=True)
                    if text not in seen and len(seed.get(collection, ())) < MAX_SEED:
                        seen.add(text)
                        stored = dict(item)
                        seed.setdefault(collection, []).append(stored)
                        if key is not None:
                            keyed[(collection, key)] = stored
    # a relative path is read from the root when every path was relative (a vault's own paths), and left out
    # beside absolute ones (which directory it is relative to is the server's choice)
    files = _file_collection(catalog)
    if shown_files := learned_files(episodes, catalog):  # line by line, listed, under a cd: learn_files.py
        files = files or FILES
        merge_files(seed.setdefault(files, []), shown_files, MAX_SEED)
        relative = relative or any(not e["path"].startswith("/") for e in shown_files)
        absolute = absolute or any(e["path"].startswith("/") for e in shown_files)
    if files in seed and relative:
        kept = [i for i in seed[files] if not absolute or not isinstance(i.get("path"), str) or i["path"].startswith("/")]
        for item in kept:
            if isinstance(item.get("path"), str):
                item["path"] = normalise_path("/" + item["path"].lstrip("/"))
        seed[files] = kept if absolute else [{"path": "/", "type": "directory"}, *kept]
    return {c: items for c, items in seed.items() if items}


def _keys_of(values: Any) -> set[str]:
    """The keys values may name: as written and as a path from the root (``a.md`` is ``/a.md``)."""
    out: set[str] = set()
    for value in values:
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            text = str(value)
            out.update((text, normalise_path("/" + text.lstrip("/")) if text else text))
    return out


def _seed_key(item: JSONDict) -> str | None:
    path = item.get("path")
    return path if isinstance(path, str) and item.get("type") in ("file", "directory") else key_of(item)


def _file_collection(catalog: Catalog) -> str | None:
    return next((s.role.collection for s in catalog if s.role.style == "file" and s.role.collection), None)


#: Fields of a read's answer that hold the entity's text.
_TEXT_FIELDS = ("content", "text", "body", "contents", "markdown")


def _shown(turn: RecordedTurn, spec: ToolSpec, catalog: Catalog) -> list[tuple[str, list[JSONDict]]]:
    """The entities one answer shows, keyed as the tools address them: a read's entity under the read's key
    argument (its text, unless the answer is one page of it), and for a catalog that keeps files, each
    object of a listed or searched answer that names a file by its path (``matches: [{path, line, ...}]``)."""
    role, data = spec.role, unwrapped(answer_data(turn.result))
    files = _file_collection(catalog)
    found: list[tuple[str, list[JSONDict]]] = []
    key = next((v for a in role.key_args if isinstance(v := turn.arguments.get(a), (str, int))
                and not isinstance(v, bool)), None)
    if role.kind == "read" and key is not None and isinstance(data, dict) and role.collection:
        if role.style == "file" and role.op in (None, "read"):  # a file's text, not its info
            entity: JSONDict = {"path": str(key), "type": "file"}
            paged = data.get("has_more") is True or data.get("offset") not in (None, 0)
            text = next((data[f] for f in _TEXT_FIELDS if isinstance(data.get(f), str)), None)
            if text is not None and not paged:
                entity["content"] = text
            found.append((role.collection, [entity]))
        elif role.style == "record":
            inner = data.get(role.wrapper) if role.wrapper else data
            field = role.key_field or "id"
            shown_key = key_of(inner) if isinstance(inner, dict) else None
            shown_key = shown_key if shown_key is not None or not isinstance(inner, dict) else inner.get(field)
            # only an entity that answers to the key it was read by (not a view of it under another key)
            if isinstance(inner, dict) and any(not isinstance(v, (dict, list)) for v in inner.values()) \
                    and (shown_key is None or str(shown_key) == str(key)):
                found.append((role.collection, [{field: key, **inner} if shown_key is None else dict(inner)]))
    if files is not None:
        field = next((s.role.key_field for s in catalog if s.role.collection == files and s.role.key_field), "path")
        lists = [data] if isinstance(data, list) else [v for v in data.values() if isinstance(v, list)] \
            if isinstance(data, dict) else []
        named = [{"path": item[field], "type": "directory" if item.get("type") in ("directory", "dir") else "file"}
                 for items in lists for item in items if isinstance(item, dict) and isinstance(item.get(field), str)
                 and item[field]]
        if named and not (role.style == "file" and role.kind == "read"):
            found.append((files, named))
    return found


def _listed_directory(turn: RecordedTurn, spec: ToolSpec) -> list[tuple[str, list[JSONDict]]]:
    """A file tool that listed a directory before anything changed shows that the directory existed (the
    sandbox root, ``/workspace``): it is seeded, so the simulation lists it, even empty, and knows its root."""
    role = spec.role
    path = next((turn.arguments.get(a) for a in role.key_args or ("path",) if isinstance(turn.arguments.get(a), str)),
                None)
    if role.style != "file" or role.kind != "list" or not path or not path.startswith("/") or failed(turn.result):
        return []
    return [(role.collection or "files", [{"path": normalise_path(path), "type": "directory"}])]


def _entity_lists(answer: Any, spec: ToolSpec, collections: set[str]) -> list[tuple[str, list[JSONDict]]]:
    def objects(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)

    if objects(answer) and spec.role.collection and spec.role.kind in ("list", "search"):
        return [(spec.role.collection, answer)]
    if isinstance(answer, dict):
        found = [(collection_name(k), v) for k, v in answer.items() if objects(v) and collection_name(k) in collections]
        if not found:  # an envelope (``{"ok": true, "parsed_content": {"orders": [...]}}``): look inside
            inner = [v for v in answer.values() if isinstance(v, dict) or objects(v) and len(answer) > 1]
            found = [pair for v in inner if isinstance(v, dict) for pair in _entity_lists(v, spec, collections)]
        listed = [v for v in answer.values() if objects(v) and v]
        if not found and len(listed) == 1 and spec.role.collection and spec.role.kind in ("list", "search") \
                and all(any(_OWN_ID.fullmatch(k) for k in item) for item in listed[0]):
            # a search's ``matches`` of records with ids of their own: the one list it answers is its collection's
            # (hits of a line or a path, without an id, are no records)
            found = [(spec.role.collection, listed[0])]
        return found
    return []


def learn_world(recordings: list[str], *, catalog: str | None = None, name: str | None = None,
                max_demonstrations: int = MAX_DEMONSTRATIONS, output: str | os.PathLike[str] | None = None,
                seed: bool = True) -> tuple[JSONDict, str]:
    """The learned world's data (key order kept, ready to write) and a one-line summary; ``seed=False``
    (``learn --no-seed``): behaviour only, no seed state read from the answers."""
    base: World = load_world(catalog) if catalog else recorded_catalog(list(recordings))
    recorded = read_episodes(list(recordings))
    known = tuple(dict.fromkeys(s for turns in recorded.values() for turn in turns for s in secrets_in(turn.arguments)))
    episodes = {key: [redacted(turn, known) for turn in turns] for key, turns in recorded.items()}
    by_tool: dict[str, list[Sample]] = {}
    for turns in episodes.values():
        for turn in turns:
            by_tool.setdefault(turn.tool, []).append(sample_of(turn))
    compiled = Catalog(base)
    found: list[ToolEnrichment] = []
    contexts = in_context(episodes)
    maps = free_form_arguments(compiled)
    for tool_name, samples in by_tool.items():
        spec = compiled.get(tool_name)
        if spec is None:  # a call to a tool the catalog lacks (the server's own unknown-tool answer)
            continue
        item = ToolEnrichment(tool_name, select_demonstrations(samples, max_demonstrations))
        successes = succeeded(samples)
        answers = [s.response for s in samples if s.is_json]  # an in-band failure's fields fit the shape too
        if spec.output_schema is None and answers:
            shape = infer_shape(answers)
            item.shape = with_initial_values(shape, successes) if shape is not None else None
            if item.shape is not None:  # a flag one answer showed (learn_provenance.py)
                item.shape = with_recorded_flags(item.shape, [s.response for s in successes])
                item.shape = with_free_form_maps(item.shape, maps)  # ``metadata`` keys are data (free_maps.py)
        item.role = infer_role_fields(spec, successes, item.shape)
        if item.role.get("kind") == "create" and looks_up(contexts.get(tool_name, [])):
            del item.role["kind"]  # it shows what an earlier call made: no create (learn_provenance.py)
        if spec.output_schema is None and (key_field := answered_key_field(spec, successes)) is not None:
            item.role["key_field"] = key_field
        if spec.output_schema is None and (wrapper := answered_wrapper(spec, successes)) is not None:
            item.role["wrapper"] = wrapper
        found.append(item)
    data: JSONDict = {"name": name or (Path(output).stem if output else base.name), "scenario": base.scenario,
                      "tools": [dict(t) for t in base.tools]}
    data, added = apply(data, base, found)
    behaviour, walk = learn_behaviour(episodes, compiled)
    tables = {tool: learn_tables(walk, tool) for tool in by_tool}
    usual = {tool: [Sample(dict(t.arguments), tables[tool][1][id(t)], False) if id(t) in tables[tool][1] else sample_of(t)
                    for t in turns if walk.is_main(t)]  # a refusal or ``already_done`` is a rule
             for tool, turns in _by_tool(episodes).items()}
    add_answer_meta(data, compiled, episodes, {t: usual[t] or by_tool[t] for t in by_tool})
    add_value_meta(data, compiled, episodes)  # constants, cases, vocabularies, ranges per answer path
    add_instant_meta(data, compiled, episodes)  # an argument's instant in the server's zone: learn_instants.py
    add_scope_meta(data, compiled, episodes)  # scopes listed wholly; others' entities presumed: learn_scoped.py
    add_created_meta(data, compiled, episodes)  # a new entity's starting fields: learn_created.py
    add_environment_meta(data, compiled, episodes)  # answer keys per argument value: sim2real/learn_environment.py
    add_lifecycle_meta(data, compiled, episodes)  # state transitions: sim2real/learn_lifecycle.py
    add_view_meta(data, compiled, episodes)  # the server's clock, digests of texts: learn_views.py
    add_row_count_meta(data, compiled, episodes)  # rows a delete/update changed: sim2real/learn_row_counts.py
    add_search_place_meta(data, compiled, episodes)  # a search that finds by title: learn_search_places.py
    add_shape_meta(data, compiled, episodes)  # the keys an engine's values go under: sim2real/learn_shape.py
    add_entity_shape_meta(data, compiled, episodes)  # one type per entity field across tools: learn_entity_shapes.py
    add_error_envelope_meta(data, compiled, episodes)  # how the server wraps every refusal: learn_error_envelope.py
    add_undo_meta(data, compiled, episodes)  # an undo's answer names the entity it reversed: learn_undo.py
    add_backup_meta(data, compiled, episodes)  # how an editor names its backups: learn_backups.py
    add_workbook_start_meta(data, compiled, episodes)  # the file a workbook session opens: learn_workbook_start.py
    add_inband_refusal_meta(data, episodes)  # refusals answered unflagged, ``{error: ...}``: learn_inband_refusal.py
    add_due_filter_meta(data, compiled, episodes)  # listings of what is past its date: learn_due_filter.py
    add_shape_argument_meta(data, compiled, episodes)  # values of a shape-choosing argument: learn_shape_argument.py
    add_answer_keys_meta(data, compiled, episodes)  # keys a tool's objects always had: learn_answer_keys.py
    for tool in data["tools"]:
        envelope = (tool.get("_meta") or {}).get(ENVELOPE_META)
        spec = compiled.get(tool["name"])
        if not isinstance(envelope, dict) or spec is None:
            continue
        _demoted(envelope, {*((behaviour.get(tool["name"]) or {}).get("slots") or {}), *walk.session.get(tool["name"], ())})
        if tables.get(tool["name"], ([], {}))[0]:
            envelope["tables"] = tables[tool["name"]][0]
        if spec.role.kind in ("list", "search") and (counts := learn_item_counts(walk, spec.name,
                                                                                spec.role.items_field or "items")):
            envelope["item_counts"] = counts
    for tool in data["tools"]:
        if tool["name"] in behaviour:
            tool["_meta"] = {**(tool.get("_meta") or {}), LEARNED_META: behaviour[tool["name"]]}
    add_key_collection_meta(data, compiled, episodes)  # a todo kept as an entry: learn_key_collection.py
    add_frame_meta(data, compiled, episodes)  # a header stating a file's page over its lines: learn_frames.py
    observed = observed_seed(episodes, compiled) if seed else {}
    if seed:  # the repository a version-control session started from: sim2real/learn_repository.py
        observed = merged_seed(observed, learn_repository(episodes, compiled))
    if observed:
        data["seed"] = {**observed, **(data.get("seed") or {})}  # a catalog's own seed wins
    sentences = add_sentences(data, compiled, episodes)  # last: the check replays the world learned so far
    shaped = sum(1 for f in found if f.shape is not None)
    calls = sum(len(s) for s in by_tool.values())
    summary = (f"{len(base.tools)} tools, {calls} recorded calls in {len(episodes)} episode(s), "
               f"{shaped} output shapes, {added} demonstrations, {sentences} sentence templates, "
               f"{sum(len(v) for v in observed.values())} seed entities")
    return data, summary


def _demoted(envelope: JSONDict, slots: set[str]) -> None:
    """A field the recording shows filled from the call or the session (``slots``, or a field that showed an
    earlier call's argument) is no constant of the tool and no text of the envelope's: the training session's
    value would stand where the new call or the state decides it."""
    for part in ("constants", "templates"):
        kept = {k: v for k, v in (envelope.get(part) or {}).items() if k not in slots}
        if kept:
            envelope[part] = kept
        else:
            envelope.pop(part, None)


def _by_tool(episodes: dict[str, list[RecordedTurn]]) -> dict[str, list[RecordedTurn]]:
    out: dict[str, list[RecordedTurn]] = {}
    for turns in episodes.values():
        for turn in turns:
            out.setdefault(turn.tool, []).append(turn)
    return out


def redacted(turn: RecordedTurn, known: tuple[str, ...] = ()) -> RecordedTurn:
    """The turn with its secrets out, and the ``known`` secret arguments of the recordings wherever it echoes
    them (again: a recording made before redaction is read too): nothing secret becomes a demonstration,
    a seed entity or an initial value."""
    arguments, result = redact_call(turn.arguments, turn.result, known)
    return replace(turn, arguments=arguments, result=result)


def succeeded(samples: list[Sample]) -> list[Sample]:
    """The JSON answers that are no failure: neither ``isError`` nor an in-band one (``{"status":
    "task_not_found"}``), whose shape is the failure's, not the tool's (all of them, when every one reads so)."""
    answers = [s for s in samples if s.is_json and not s.is_error]
    clean = [s for s in answers if not reads_as_failure(s.response)]
    return clean or answers


def answered_key_field(spec: ToolSpec, samples: list[Sample]) -> str | None:
    """A create whose answers name the new entity by ``<noun>Id`` (``requestId``), not by the catalog's key
    field: that field is the key (the entity's later calls pass it; its children link to it)."""
    role = spec.role
    answers = [s.response for s in samples if s.is_json and isinstance(s.response, dict)]
    if role.kind != "create" or role.style != "record" or not role.collection or not answers:
        return None
    if role.wrapper:
        answers = [inner for a in answers if isinstance(inner := a.get(role.wrapper), dict)]
    if not answers or any(role.key_field in a for a in answers):
        return None
    named = [k for k in answers[0] if k.endswith(("Id", "_id")) and (stem := id_stem(k)) is not None
             and collection_name(stem) == role.collection and all(isinstance(a.get(k), str) for a in answers)]
    return named[0] if len(named) == 1 else None


def answered_wrapper(spec: ToolSpec, samples: list[Sample]) -> str | None:
    """A read or change whose answers hold the entity under its singular (``{"status": ..., "task": {...}}``)."""
    role = spec.role
    answers = [s.response for s in samples if s.is_json and isinstance(s.response, dict)]
    if role.kind not in ("read", "update", "create") or role.style != "record" or role.wrapper or not answers:
        return None
    noun = singular(role.collection)
    return noun if all(isinstance(a.get(noun), dict) for a in answers) else None


def add_answer_meta(data: JSONDict, compiled: Catalog, episodes: dict[str, list[RecordedTurn]],
                    by_tool: dict[str, list[Sample]]) -> None:
    """Under each tool's ``_meta``: the id formats its answers showed (by collection) and, for a tool
    without an outputSchema, its answer envelope (``models/deterministic/learned_envelope.py``)."""
    shown: dict[str, dict[str, list[str]]] = {}
    for turns in episodes.values():
        for turn in turns:
            spec = compiled.get(turn.tool)
            if spec is None or turn.result.get("isError"):
                continue
            for collection, value in ids_in(json_of(turn.result), spec.role.collection or None,
                                            set(map(str, leaves(turn.arguments)))):
                shown.setdefault(turn.tool, {}).setdefault(collection, []).append(value)
    for tool in data["tools"]:
        spec = compiled.get(tool["name"])
        meta = dict(tool.get("_meta") or {})
        formats = {c: f for c, values in shown.get(tool["name"], {}).items() if (f := infer_format(values))}
        if formats:
            meta[ID_FORMATS_META] = formats
        samples = [(s.arguments, s.response) for s in by_tool.get(tool["name"], [])
                   if s.is_json and not s.is_error and not reads_as_failure(s.response)]
        role = spec.role if spec is not None else None
        listed = ((singular(role.collection), role.items_field or "items")
                  if role is not None and role.kind in ("list", "search") and role.collection else None)
        if spec is not None and spec.output_schema is None and (envelope := learn_envelope(samples, listed)):
            meta[ENVELOPE_META] = envelope
        if meta:
            tool["_meta"] = meta




def write_learned(path: str | os.PathLike[str], data: JSONDict) -> Path:
    """Write the world (JSON or YAML by suffix) after checking it loads."""
    out = Path(path)
    try:
        load_world_data(data, source=str(out))
    except Exception as exc:
        raise ConfigError(f"the learned world does not load: {exc}") from None
    from ..world.writer import write_world_file

    return write_world_file(out, data)


__all__ = ["MAX_DEMONSTRATIONS", "learn_world", "observed_seed", "sample_of", "select_demonstrations", "write_learned"]
