"""``populate --base-url``: a language model writes the fiction, checked and repaired.

The deterministic generator (:class:`agentworld_mcp.fiction.generator.Generator`) plans every entity
first: its key, its name and a complete draft whose references resolve. The model is then
asked, one batch of entities per request, to write those entities for the scenario, given
their keys, the JSON Schema of the entity and the keys each reference may name. What it
answers is checked entity by entity:

* an answer that is not JSON (or holds no entities) is re-asked, with the problem, at most
  ``retries`` times; a model that still answers garbage stops the run with
  :class:`PopulateModelError` naming the collection and the last problem;
* a field that does not fit its schema, a missing required field, a duplicate name, dates out of
  order and a reference to an entity that does not exist are replaced by the draft's value
  (counted in :attr:`ModelWriter.stats`); fields the shape does not have are dropped;
* entities the model left out are the drafts.

An endpoint that is down is a :class:`~agentworld_mcp.errors.ModelEndpointError` within the
request deadline (``--timeout``), never a hang. ``openai`` is imported only by the llm backend's
transport, behind the ``llm`` extra.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonschema

from ..errors import ModelEndpointError
from .generator import Draft, Generator, Seed, date_rank, is_date, populatable
from .references import Shape, dangling, keys_of
from ..world.world import World

if TYPE_CHECKING:
    from ..models.llm import LLMSettings, OpenAITransport

JSONDict = dict[str, Any]

_SYSTEM = ("You write the records of an invented, self-consistent world for a tool simulator. "
           "Answer with JSON only: an object {\"entities\": [...]}, no prose, no code fences.")


class PopulateModelError(ModelEndpointError):
    """The model kept answering something that is not a batch of entities."""

    kind = "populate_model_error"


@dataclass
class ModelWriter:
    """Asks an OpenAI-compatible endpoint for entities, one batch per request."""

    transport: OpenAITransport
    settings: LLMSettings
    batch: int = 5
    retries: int = 2
    stats: Counter[str] = field(default_factory=Counter)

    @classmethod
    def from_settings(cls, world: World, *, batch: int = 5, retries: int = 2, **overrides: Any) -> ModelWriter:
        """The writer for ``world``'s backend settings, the environment and ``overrides`` (as ``enrich`` resolves them)."""
        from ..models.llm import LLMSettings, OpenAITransport

        settings = LLMSettings.resolve(world.backend, **overrides)
        return cls(OpenAITransport(settings), settings, batch=max(1, batch), retries=max(0, retries))

    async def ask(self, messages: list[JSONDict]) -> str:
        request: JSONDict = {
            "model": await self.transport.model_name(), "messages": messages,
            "temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens,
            "response_format": {"type": "json_object"},
        }
        if self.settings.extra_body:
            request["extra_body"] = dict(self.settings.extra_body)
        self.stats["requests"] += 1
        answer = await self.transport.complete(request)
        return str(answer.get("content") or "")

    def summary(self) -> str:
        s = self.stats
        return (f"populate: the model wrote {s['from_model']} entities in {s['requests']} requests "
                f"({s['reasks']} re-asked); repaired {s['fields_repaired']} fields and {s['references_redrawn']} "
                f"references, dropped {s['fields_dropped']} unknown fields, {s['from_generator']} entities "
                "came from the generator")

    async def aclose(self) -> None:
        await self.transport.aclose()


async def populate_with_model(world: World, writer: ModelWriter, *, scenario: str, count: int, seed: int) -> Seed:
    """The seed the model writes for ``world``, every entity checked and repaired against its shape."""
    gen = populatable(world).configured(scenario, count=count, seed=seed)
    every = gen.shapes
    gen.plan()
    drafts = gen.generate()  # the fallback for every field, and the references that resolve
    out: Seed = {}
    try:
        for collection, shape in every.items():
            planned = gen.drafts[collection]
            written: list[JSONDict] = []
            for start in range(0, len(planned), writer.batch):
                batch = planned[start:start + writer.batch]
                answers = await _ask_batch(writer, gen, shape, batch, drafts)
                keys = {str(d.key) for d in batch}
                for i, draft in enumerate(batch):
                    answer = _match(answers, draft, i, keys)
                    written.append(_repair(answer, draft, drafts[collection][draft.index], shape, drafts, every,
                                           writer.stats, written))
            out[collection] = written
    finally:
        await writer.aclose()
    for problem in dangling(out, every):  # a reference the repairs missed (a name the model changed)
        entity = next(e for e in out[problem.collection] if str(e.get(every[problem.collection].key_field)) ==
                      problem.key)
        index = out[problem.collection].index(entity)
        entity[problem.field] = drafts[problem.collection][index].get(problem.field)
        writer.stats["references_redrawn"] += 1
    return out


async def _ask_batch(writer: ModelWriter, gen: Generator, shape: Shape, batch: list[Draft], drafts: Seed
                     ) -> list[JSONDict]:
    messages = [{"role": "system", "content": _SYSTEM},
                {"role": "user", "content": _prompt(gen, shape, batch, drafts)}]
    problem = ""
    for attempt in range(writer.retries + 1):
        if attempt:
            writer.stats["reasks"] += 1
        content = await writer.ask(messages)
        entities, problem = parse_entities(content)
        if entities:
            return entities
        messages += [{"role": "assistant", "content": content[:2000]},
                     {"role": "user", "content": f"That answer cannot be used: {problem}. Answer again with only "
                                                 "the JSON object {\"entities\": [...]}."}]
    raise PopulateModelError(
        f"the model gave no usable {shape.collection} after {writer.retries + 1} requests: {problem}",
        hint="use a stronger model, raise --max-tokens or --retries, or leave out --base-url to use the "
             "deterministic generator")


def _prompt(gen: Generator, shape: Shape, batch: list[Draft], drafts: Seed) -> str:
    refs = {}
    for name, ref in shape.references.items():
        target = gen.shapes[ref.target]
        refs[name] = [{target.key_field: d.get(target.key_field), "name": _name_of(d)}
                      for d in drafts.get(ref.target, [])][:20]
    example = drafts[shape.collection][batch[0].index]
    return "\n".join([
        f"Scenario: {gen.scenario.text}",
        f"Write {len(batch)} {shape.collection} of this world as JSON, one object per entity, in this shape "
        f"(JSON Schema): {json.dumps(shape.json_schema(), ensure_ascii=False)}",
        f"Their {shape.key_field} values, in order: {json.dumps([d.key for d in batch], ensure_ascii=False)}.",
        *([f"Reference fields must name one of these existing entities: {json.dumps(refs, ensure_ascii=False)}"]
          if refs else []),
        f"An example of the shape (invent your own names and text that fit the scenario): "
        f"{json.dumps(example, ensure_ascii=False)}",
        'Answer: {"entities": [ ... ]}',
    ])


def _name_of(entity: JSONDict) -> Any:
    return next((entity[k] for k in ("name", "title", "summary", "display_name", "displayName") if k in entity), None)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_entities(content: str) -> tuple[list[JSONDict], str]:
    """The entity objects in a model's answer, or none and what is wrong with it."""
    text = content.strip()
    if not text:
        return [], "the answer is empty"
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    value: Any = None
    try:
        value = json.loads(text)
    except ValueError:
        start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
        if start >= 0:
            try:
                value, _ = json.JSONDecoder().raw_decode(text[start:])
            except ValueError:
                value = None
    if value is None:
        return [], f"it is not JSON ({text[:80]!r})"
    if isinstance(value, dict):
        listed = value.get("entities")
        if not isinstance(listed, list):
            listed = next((v for v in value.values() if isinstance(v, list) and any(isinstance(i, dict) for i in v)),
                          None)
        value = listed if isinstance(listed, list) else [value]
    if not isinstance(value, list):
        return [], f"it is JSON but not a list of entities ({type(value).__name__})"
    entities = [v for v in value if isinstance(v, dict) and v]
    return (entities, "") if entities else ([], "it holds no entity objects")


def _match(answers: list[JSONDict], draft: Draft, position: int, planned: set[str]) -> JSONDict | None:
    """The answer for ``draft``: the one with its key, else the one at its position in the batch
    (unless that one carries the key of another planned entity)."""
    key_field = draft.shape.key_field
    found = next((a for a in answers if str(a.get(key_field)) == str(draft.key)), None)
    if found is None and position < len(answers) and str(answers[position].get(key_field)) not in planned:
        found = answers[position]
    return found


def _repair(answer: JSONDict | None, draft: Draft, fallback: JSONDict, shape: Shape, drafts: Seed,
            every: dict[str, Shape], stats: Counter[str], written: list[JSONDict]) -> JSONDict:
    if answer is None:
        stats["from_generator"] += 1
        return dict(fallback)
    stats["from_model"] += 1
    schema = shape.json_schema()
    out: JSONDict = {}
    for name in shape.fields:
        if name not in answer:
            if name in fallback and (name in shape.required or name in shape.references or name == shape.key_field):
                out[name] = fallback[name]
                stats["fields_repaired"] += name != shape.key_field
            continue
        value = answer[name]
        if name == shape.key_field or name in shape.entity.scope and name not in shape.references:
            out[name] = fallback.get(name, value)  # keys are planned: the generator's series
        elif name in shape.references:
            ref = shape.references[name]
            known = set().union(*(keys_of(t, every[ref.target].key_field) for t in drafts.get(ref.target, [])))
            named = value if isinstance(value, list) else [value]
            if named and all(isinstance(v, (str, int)) and str(v) in known for v in named) and (ref.many == isinstance(
                    value, list)):
                out[name] = value
            elif name in fallback:
                out[name] = fallback[name]
                stats["references_redrawn"] += 1
        elif _fits(value, schema["properties"].get(name, {})):
            out[name] = value
        elif name in fallback:
            out[name] = fallback[name]
            stats["fields_repaired"] += 1
    stats["fields_dropped"] += sum(1 for k in answer if k not in shape.fields)
    _unique_names(out, fallback, written, stats)
    _ordered_dates(out, fallback, shape, stats)
    return out


def _fits(value: Any, schema: JSONDict) -> bool:
    try:
        return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).is_valid(value)
    except jsonschema.SchemaError:  # the catalog's own schema is broken: the draft's value is safer
        return False


def _unique_names(out: JSONDict, fallback: JSONDict, written: list[JSONDict], stats: Counter[str]) -> None:
    """Names identify entities in the ledger when there is no id: two of one name would be one entity."""
    for name in ("name", "title", "email", "username", "slug"):
        if name in out and any(e.get(name) == out[name] for e in written):
            out[name] = fallback.get(name, out[name])
            stats["fields_repaired"] += 1


def _ordered_dates(out: JSONDict, fallback: JSONDict, shape: Shape, stats: Counter[str]) -> None:
    """Dates whose order contradicts their names (an arrival before the departure) become the draft's."""
    dated = sorted((n for n in out if is_date(n, shape.fields.get(n) or {}) and isinstance(out[n], str)),
                   key=date_rank)
    ranks = [(date_rank(n), out[n][:19]) for n in dated]
    if any(a[0] < b[0] and a[1] > b[1] for i, a in enumerate(ranks) for b in ranks[i + 1:]):
        for name in dated:
            if name in fallback:
                out[name] = fallback[name]
                stats["fields_repaired"] += 1


__all__ = ["ModelWriter", "PopulateModelError", "parse_entities", "populate_with_model"]
