"""The deterministic writer of a fiction: seeded, self-consistent entities for a catalog's shapes.

Plans every entity first (its key as the service spells it, a unique name drawn from the
scenario, the moment it came into being), then links references to entities that exist, orders
each entity's dates by what their names say (created <= started <= updated <= ended, a
departure before its arrival, an entity after those it refers to), and fills the rest by field
name and JSON Schema. The same catalog, scenario, count and seed give the same entities.
Used by ``populate`` (:mod:`agentworld_mcp.fiction.populate`) and as the fallback of every field a
language model gets wrong (:mod:`agentworld_mcp.fiction.populate_llm`).
"""

from __future__ import annotations

import datetime as dt
import random
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from ..world import values
from ..world.catalog import Catalog
from ..world.conventions import URL_FIELDS, plain_id
from ..errors import AgentWorldError, ConfigError
from .references import PERSON_FIELDS, Shape, shapes
from ..world.roles import singular, words
from ..world.world import World

JSONDict = dict[str, Any]
Seed = dict[str, list[JSONDict]]

#: People fields of a work (a book's author) where the catalog keeps no people: a full name.
_CREATOR_FIELDS = frozenset({"author", "writer", "composer", "artist", "director", "illustrator", "editor"})

#: Entities per collection unless ``--count`` says.
DEFAULT_COUNT = 5
_STOPWORDS = frozenset("""a an the and or of in on at to for from by with into onto over under about after before
their there these those this that which who whom whose what when where while have has had having been being
were was are is be it its they them then than also each every some many more most such only other very
can could would should will shall may might must not no nor yes but if so as per via within without
world colony here everything nothing something anything fact facts exist exists outside inside year years day
days time times named called invented fictional real live lives work works file files make made keep kept use
used using include includes including arrive arrives arrived like just well much even still into upon onto
around across between among during since until ever never always often about against along amid being both
either neither whether where whose while whom your yours ours mine they'll it's there's good great small large
new old first last next same different own""".split())
#: Fields holding a place: filled with the scenario's proper nouns (``origin: Earth``).
_PLACE_FIELDS = ("location", "origin", "destination", "site", "place", "region", "base", "sector", "zone",
                 "address", "source", "port", "station")
#: Fields holding a short code name (``call_sign: KASEI-4``).
_CODE_NAME_FIELDS = ("call_sign", "callsign", "callSign", "code_name", "codename", "nickname", "alias", "handle")
_FIRST = ("Amara", "Bodhi", "Calla", "Dmitri", "Esme", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kaia", "Luca",
          "Mei", "Nikolai", "Oona", "Priya", "Quentin", "Rosa", "Soren", "Tamsin", "Umar", "Vera", "Wendell",
          "Xiomara", "Yusuf", "Zora")
_LAST = ("Abara", "Bergstrom", "Castellanos", "Delacroix", "Eriksen", "Fontaine", "Grimaldi", "Haddad", "Ishikawa",
         "Jovanovic", "Kowalczyk", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rasmussen",
         "Sato", "Tanaka", "Underwood", "Valdez", "Whitlock", "Xu", "Yamamoto", "Zielinski")
#: Invented place-like names, used after the scenario's own proper nouns run out.
_NAMES = ("Borealis", "Caldera", "Elysium", "Halcyon", "Meridian", "Obsidian", "Perihelion", "Solace", "Tharsis",
          "Umbra", "Vesper", "Zenith", "Aurora", "Cinder", "Drift", "Ember", "Frontier", "Glacier", "Horizon",
          "Lantern")
_NAME_FIELDS = ("name", "full_name", "fullName", "display_name", "displayName", "title", "summary", "subject",
                "headline", "label")
_TEXT_FIELDS = ("description", "body", "content", "text", "details", "notes", "note", "comment", "message",
                "summary_text", "goal", "reason", "remarks")
#: Date fields by the moment they name, earliest first (a departure before its arrival).
_DATE_RANKS = (
    ("created", "reported", "opened", "registered", "joined", "born", "submitted", "filed", "requested", "hired",
     "enrolled", "posted", "logged"),
    ("start", "depart", "launch", "begin", "began", "scheduled", "sent", "shipped", "dispatched", "occurred",
     "since", "from"),
    ("updated", "modified", "edited", "changed", "last", "seen", "active", "read", "snoozed"),
    ("end", "arriv", "due", "target", "complet", "resolv", "closed", "finish", "deliver", "expir", "until",
     "archived", "cancel", "release", "deadline", "eta", "to"),
)
_AMOUNT = ("amount", "price", "cost", "total", "balance", "budget", "revenue", "fee", "salary", "value")
_QUANTITY = ("quantity", "qty", "count", "capacity", "population", "size", "occupancy", "stock", "units",
             "crew", "headcount", "seats", "beds")


class PopulateError(AgentWorldError):
    """The world cannot be populated as asked (nothing to populate, a bad count)."""


# -- the scenario --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """What names are drawn from: the scenario's content words, proper nouns, year and domain."""

    text: str
    words: tuple[str, ...]
    proper: tuple[str, ...]
    year: int
    domain: str
    #: Two content words the scenario puts side by side (``dust storms``, ``spare parts``).
    phrases: tuple[str, ...] = ()
    #: Proper nouns the scenario lists together (``named Tharsis, Kasei, Olympus and Hellas``): names to give.
    listed: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> Scenario:
        tokens = re.findall(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|\d{4}", text)
        starts = {m.end() for m in re.finditer(r"(^|[.!?]\s+)", text)}
        content: list[str] = []
        proper: list[str] = []
        for match in re.finditer(r"[A-Za-z][A-Za-z'-]*[A-Za-z]", text):
            token = match.group(0)
            low = token.lower()
            if low in _STOPWORDS or len(low) < 4 or "'" in low:
                continue
            # a sentence's first word is a name only when a name follows it (``Ares Station``)
            named = match.start() not in starts or bool(re.match(r"\s+[A-Z][a-z]", text[match.end():]))
            if token[0].isupper() and named and token.lower() not in content:
                if token not in proper:
                    proper.append(token)
            elif low not in content:
                content.append(low)
        years = [int(t) for t in tokens if t.isdigit() and 1900 <= int(t) <= 2200]
        head = (proper or content or ["fiction"])[0].lower()
        phrases: list[str] = []
        for clause in re.split(r"[^A-Za-z' -]+", text):
            run = clause.split()
            for a, b in zip(run, run[1:]):
                if a.lower() in content and b.lower() in content and a[0].islower():
                    phrase = f"{a.lower()} {b.lower()}"
                    if phrase not in phrases:
                        phrases.append(phrase)
        listed: list[str] = []
        for run in re.finditer(r"[A-Z][a-z]+(?:,\s+[A-Z][a-z]+){2,}(?:,?\s+and\s+[A-Z][a-z]+)?", text):
            listed += [n for n in re.findall(r"[A-Z][a-z]+", run.group(0)) if n in proper and n not in listed]
        return cls(text, tuple(content), tuple(proper), years[0] if years else 2026, f"{head}.example",
                   tuple(phrases), tuple(listed))

    def epoch(self) -> dt.datetime:
        return dt.datetime(self.year, 1, 6, 8, 0, tzinfo=dt.UTC)


# -- the generator -------------------------------------------------------------------------------

#: ``crew_count``, ``issueCount``, ``num_members``, ``number_of_incidents``: a count of other entities.
_COUNTED = re.compile(r"^(?:(?:num_|number_of_)(?P<after>[a-z][a-zA-Z_]*)|(?P<what>[a-z][a-zA-Z_]*?)(?:_count|Count))$")
_CAPACITY = ("capacity", "max_occupancy", "maxoccupancy", "berths", "beds", "seats")


def _collection_of(what: str, every: Mapping[str, Shape]) -> str | None:
    """The collection a count names: ``crew`` -> crew_members, ``issue`` -> issues (None for a plain word)."""
    noun = singular("_".join(words(what)))
    return next((c for c in every if singular(c) == noun or c.startswith(noun + "_")), None)


@dataclass
class Draft:
    """One entity being written: its index, planned key and the moment it came into being."""

    shape: Shape
    index: int
    key: Any
    fields: JSONDict = field(default_factory=dict)
    born: dt.datetime = field(default_factory=lambda: dt.datetime(2026, 1, 1, tzinfo=dt.UTC))


class Generator:
    """Seeded, self-consistent entities for a catalog's shapes (the deterministic populate)."""

    def __init__(self, every: Mapping[str, Shape], scenario: Scenario, *, count: int, seed: int,
                 catalog: Catalog | None = None) -> None:
        self.shapes = dict(every)
        self.catalog = catalog
        self.tools = {t["name"]: t for t in catalog.world.tools} if catalog is not None else {}
        self.roles = dict(catalog.model.roles) if catalog is not None else {}
        self.scenario = scenario
        self.count = count
        self.seed = seed
        self.drafts: dict[str, list[Draft]] = {}
        self.titles: dict[tuple[str, str], set[str]] = {}
        self.keys: dict[str, set[str]] = {}
        #: Fields that name a parent somewhere in the catalog (``owner``, ``repo``): one value each, everywhere.
        self.scope_names = {s for shape in self.shapes.values() for s in shape.entity.scope}
        #: The catalog's own collection words: never an entity's name or a title's topic (no "Habitats Habitat").
        self.nouns = {w for s in self.shapes.values() for w in (s.collection, singular(s.collection))}

    def configured(self, scenario: str, *, count: int, seed: int) -> Generator:
        """This generator's catalog with a scenario, a count and a seed (nothing planned yet)."""
        return Generator(self.shapes, Scenario.of(scenario), count=count, seed=seed, catalog=self.catalog)

    def rng(self, *parts: Any) -> random.Random:
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

    # planning: keys, names and birth moments first, so every reference has something to name
    def plan(self) -> dict[str, list[Draft]]:
        for collection, shape in self.shapes.items():
            rng = self.rng(collection, "plan")
            used: set[str] = set()
            drafts = []
            for i in range(self.count):
                draft = Draft(shape, i, self.key(shape, i + 1))
                draft.born = self.scenario.epoch() + dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 120))
                draft.fields[shape.key_field] = draft.key
                self.name_entity(draft, rng, used)
                drafts.append(draft)
            self.drafts[collection] = drafts
        return self.drafts

    def key(self, shape: Shape, number: int) -> Any:
        """The key a service with these conventions gives its ``number``-th entity (as ``new_key`` does)."""
        schema = shape.fields.get(shape.key_field) or {}
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        conv = shape.entity.conventions
        rng = random.Random(f"{self.seed}:{shape.collection}:{number}")
        named = shape.key_field in ("name", "username", "login", "handle", "slug", "email", "board_name", "title")
        if "integer" in kinds or "number" in kinds or (shape.entity.key_type == "integer" and not kind and not named):
            return number
        if schema.get("format") == "uuid" or shape.key_field == "uuid" or (conv.uuid_ids and shape.key_field == "id"):
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        pattern = schema.get("pattern") or self.key_pattern(shape)
        if conv.identifier and conv.identifier[0] == shape.key_field:  # Jira's ``PROJ-4``
            key = f"{conv.identifier[1]}-{number}"
            if not pattern or re.search(pattern, key):
                return key
        if pattern or schema.get("enum"):
            return self.unique(shape, {**schema, "pattern": pattern} if pattern else schema, rng)
        if conv.ts_key:
            return f"{int(self.scenario.epoch().timestamp()) + number * 97}.{number:06d}"
        if conv.id_prefix:
            return f"{conv.id_prefix}{number}"
        if named:
            return None  # named below, from the entity's name
        return plain_id(shape.collection, number)  # the simulator's own default: ``crew-3``

    def key_pattern(self, shape: Shape) -> str | None:
        """A pattern the catalog gives this collection's keys: its reads' key argument
        (``get_issue(issue_key: ^[A-Z]+-\\d+$)``), or a field naming it elsewhere (``project_key``)."""
        for tool in shape.entity.tools:
            definition = self.tools.get(tool) or {}
            role = self.roles.get(tool)
            props = (definition.get("inputSchema") or {}).get("properties") or {}
            if role is not None and role.kind == "read" and role.key_args:
                arg = props.get(role.key_args[0])
                if isinstance(arg, dict) and isinstance(arg.get("pattern"), str):
                    return str(arg["pattern"])
        for other in self.shapes.values():
            for name, ref in other.references.items():
                schema = other.fields.get(name) or {}
                if ref.target == shape.collection and not ref.many and isinstance(schema.get("pattern"), str):
                    return str(schema["pattern"])
        return None

    def unique(self, shape: Shape, schema: JSONDict, rng: random.Random) -> Any:
        taken = self.keys.setdefault(shape.collection, set())
        value = values.generate(schema, rng, shape.key_field)
        for _ in range(50):
            if str(value) not in taken:
                break
            value = values.generate(schema, rng, shape.key_field)
        taken.add(str(value))
        return value

    def name_entity(self, draft: Draft, rng: random.Random, used: set[str]) -> None:
        """A unique name that fits the scenario: a person's name, or a scenario word and the noun."""
        shape = draft.shape
        noun = shape.noun.title()
        for attempt in range(50):
            if shape.is_people:
                name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
            else:
                pool = tuple(n for n in dict.fromkeys(self.scenario.listed + self.scenario.proper + tuple(
                    w.capitalize() for w in self.scenario.words)) if n.lower() not in self.nouns) + _NAMES
                # in the scenario's order (its listed names first), each collection from its own start
                own = len(self.scenario.listed) or len(self.scenario.proper) or len(self.scenario.words) or len(pool)
                start = sum(map(ord, shape.collection)) % own
                base = pool[(start + draft.index + attempt) % len(pool)]
                name = f"{base} {noun}" if attempt < len(pool) else f"{base} {noun} {attempt}"
            if name not in used:
                break
        used.add(name)
        draft.fields["__name"] = name
        if draft.key is None:
            slug = re.sub(r"[^a-z0-9]+", "-" if shape.key_field in ("slug", "board_name") else ".", name.lower()).strip(".-")
            draft.key = f"{slug}@{self.scenario.domain}" if shape.key_field == "email" else \
                name if shape.key_field == "name" else slug
            draft.fields[shape.key_field] = draft.key

    # writing: references, dates, the rest by field name and schema
    def generate(self) -> Seed:
        if not self.drafts:
            self.plan()
        for drafts in self.drafts.values():
            for draft in drafts:
                self.link(draft)
        self.settle_births()
        out: Seed = {}
        for collection, drafts in self.drafts.items():
            out[collection] = [self.finish(d) for d in drafts]
        return out

    def link(self, draft: Draft) -> None:
        rng = self.rng(draft.shape.collection, draft.index, "refs")
        for name, ref in draft.shape.references.items():
            targets = [d for d in self.drafts.get(ref.target, []) if d is not draft]
            if ref.target == draft.shape.collection:  # a parent comes first: no cycles
                targets = [d for d in targets if d.index < draft.index]
            if not targets and name in draft.shape.required:
                targets = self.drafts.get(ref.target, [])  # a lone entity may be its own parent
            if not targets:
                draft.fields[name] = None  # nothing to name: left out rather than invented
                continue
            if ref.target == draft.shape.collection and name not in draft.shape.required and rng.random() < 0.5:
                continue
            if ref.many:
                chosen = rng.sample(targets, k=min(len(targets), rng.randint(1, 3)))
                draft.fields[name] = [self.reference_value(d, draft.shape.fields[name].get("items")) for d in chosen]
            else:
                draft.fields[name] = self.reference_value(rng.choice(targets), draft.shape.fields[name], embed=ref.embed)

    def reference_value(self, target: Draft, schema: Any, *, embed: bool = False) -> Any:
        if embed and isinstance(schema, dict):
            props = schema.get("properties") or {}
            brief = {target.shape.key_field: target.key} if not props or target.shape.key_field in props else {
                "id": target.key}
            for name in props:
                if name in _NAME_FIELDS or name == "email":
                    brief[name] = self.display(target, name)
            return brief
        kind = schema.get("type") if isinstance(schema, dict) else None
        if kind == "integer" and not isinstance(target.key, int):
            return target.index + 1
        if kind == "string" and isinstance(target.key, int):
            return str(target.key)
        return target.key

    def settle_births(self) -> None:
        """An entity comes into being after the entities it refers to (a few sweeps reach a fixed point)."""
        for _ in range(4):
            moved = False
            for drafts in self.drafts.values():
                for draft in drafts:
                    for target in self.targets(draft):
                        if target is not draft and target.born >= draft.born:
                            rng = self.rng(draft.shape.collection, draft.index, "after", target.shape.collection)
                            draft.born = target.born + dt.timedelta(hours=rng.randint(2, 72))
                            moved = True
            if not moved:
                return

    def targets(self, draft: Draft) -> list[Draft]:
        out = []
        for name, ref in draft.shape.references.items():
            value = draft.fields.get(name)
            keys = value if isinstance(value, list) else [value]
            for key in keys:
                if isinstance(key, dict):
                    key = key.get(ref.target and self.shapes[ref.target].key_field) or key.get("id")
                found = next((d for d in self.drafts.get(ref.target, []) if str(d.key) == str(key)), None)
                if found is not None:
                    out.append(found)
        return out

    def finish(self, draft: Draft) -> JSONDict:
        shape = draft.shape
        rng = self.rng(shape.collection, draft.index, "fields")
        moments = self.moments(draft, rng)
        out: JSONDict = {}
        for name, schema in shape.fields.items():
            if name in draft.fields and not name.startswith("__"):
                if draft.fields[name] is not None:
                    out[name] = draft.fields[name]
            elif name in shape.references:
                continue  # a reference names an entity that exists, or is left out: never invented
            elif name in moments:
                out[name] = moments[name]
            elif name in shape.required or _plain(schema):
                value = self.value(draft, name, schema, rng)
                if value is not None:
                    out[name] = value
        self.agree(draft, out)
        return self.repair(draft, out)

    def referrers(self, draft: Draft, collection: str) -> int:
        """How many entities of ``collection`` refer to ``draft`` (the crew of a habitat)."""
        shape = self.shapes[collection]
        names = [n for n, ref in shape.references.items() if ref.target == draft.shape.collection and not ref.many]
        return sum(1 for d in self.drafts.get(collection, []) if any(
            str(d.fields.get(n)) == str(draft.key) for n in names))

    def agree(self, draft: Draft, out: JSONDict) -> None:
        """Numbers that count entities say how many there are (``crew_count``, ``issueCount``), and a
        capacity holds at least the people it houses."""
        for name, schema in draft.shape.fields.items():
            if _kind(schema) not in ("integer", "number") or name not in out:
                continue
            match = _COUNTED.match(name)
            counted = _collection_of(match.group("what") or match.group("after"), self.shapes) if match else None
            if counted is not None and counted != draft.shape.collection:
                out[name] = self.referrers(draft, counted)
            elif any(w in name.lower() for w in _CAPACITY):
                housed = max((self.referrers(draft, c) for c, s in self.shapes.items() if s.is_people), default=0)
                maximum = schema.get("maximum")
                if isinstance(out[name], (int, float)) and out[name] < housed and (maximum is None or housed <= maximum):
                    out[name] = housed + (out[name] % 3)
                    if maximum is not None:
                        out[name] = min(out[name], maximum)

    def repair(self, draft: Draft, entity: JSONDict) -> JSONDict:
        """Each field that does not fit its schema is written again by the generator (never dropped silently)."""
        shape = draft.shape
        validator = jsonschema.Draft202012Validator(shape.json_schema())
        for _ in range(3):
            bad = {str(e.absolute_path[0]) if e.absolute_path else "" for e in validator.iter_errors(entity)}
            if not bad:
                break
            rng = self.rng(shape.collection, draft.index, "repair", *sorted(bad))
            for name in sorted(bad):  # in a fixed order: each draw comes from the same generator state
                if name in shape.fields:
                    entity[name] = values.generate(shape.fields[name], rng, name)
                else:
                    missing = [r for r in shape.required if r not in entity]
                    for req in missing:
                        entity[req] = values.generate(shape.fields[req], rng, req)
        return entity

    def moments(self, draft: Draft, rng: random.Random) -> JSONDict:
        """Every date field of the entity, in the order their names imply."""
        dated = [(n, s) for n, s in draft.shape.fields.items() if is_date(n, s)]
        if not dated:
            return {}
        ranked = sorted(dated, key=lambda item: date_rank(item[0]))
        moment = draft.born
        out: JSONDict = {}
        last_rank = 0
        for name, schema in ranked:
            rank = date_rank(name)
            if rank > last_rank:
                moment = moment + dt.timedelta(hours=rng.randint(6, 24 * 20))
                last_rank = rank
            if rank == 2 and name.lower().startswith("archived"):
                continue
            if rank == 3 and name not in draft.shape.required and any(
                    w in name.lower() for w in ("archived", "cancel", "snoozed", "hidden", "trashed")):
                continue  # a live entity has not been archived or cancelled
            out[name] = _format_moment(moment, schema)
        return out

    def display(self, draft: Draft, name: str) -> str:
        if name == "email":
            return self.email(draft)
        return str(draft.fields.get("__name"))

    def email(self, draft: Draft) -> str:
        person = str(draft.fields.get("__name", "someone")).lower()
        return re.sub(r"[^a-z0-9]+", ".", person).strip(".") + "@" + self.scenario.domain

    def value(self, draft: Draft, name: str, schema: JSONDict, rng: random.Random) -> Any:
        shape = draft.shape
        low = name.lower()
        conv = shape.entity.conventions
        kind = _kind(schema)
        if schema.get("const") is not None or schema.get("enum"):
            return values.generate(schema, rng, name)
        if name in self.scope_names and kind == "string":
            return self.scope_value(name)
        if kind == "string":
            if conv.identifier and conv.identifier[0] == name:
                return f"{conv.identifier[1]}-{draft.index + 1}"
            if name in _NAME_FIELDS or low in ("name", "title"):
                return self.title(draft, name, rng)
            if "email" in low:
                return self.email(draft)
            if name in URL_FIELDS or low.endswith("url"):
                return self.url(draft, name)
            if name == conv.status_field or low in ("status", "state"):
                return conv.initial_status or rng.choice(("active", "pending", "resolved"))
            if low in _TEXT_FIELDS or any(low.endswith(t) for t in ("description", "notes", "body")):
                return self.sentence(draft, rng)
            if low in _CREATOR_FIELDS:  # who wrote or made a work is named, not a login
                return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
            if low in PERSON_FIELDS:  # an assignee where the catalog keeps no people: a person's handle
                return f"{rng.choice(_FIRST).lower()}.{rng.choice(_LAST).lower()}"
            if low in ("username", "login", "handle"):
                return re.sub(r"[^a-z0-9]+", ".", str(draft.fields["__name"]).lower()).strip(".")
            if low in ("slug", "slugid"):
                return re.sub(r"[^a-z0-9]+", "-", str(draft.fields["__name"]).lower()).strip("-")
            if schema.get("format") or schema.get("pattern"):
                return values.generate(schema, rng, name)
            if low in ("color", "colour", "currency", "country", "city", "phone", "sha") or low.endswith(
                    ("code", "sku", "serial", "hash", "sha", "token", "secret")):
                return values.generate(schema, rng, name)
            if low in _PLACE_FIELDS or low.endswith(("_location", "_origin", "_destination", "_site")):
                return self.place(draft, rng)
            if name in _CODE_NAME_FIELDS:
                return f"{self.place(draft, rng).split()[0].upper()}-{draft.index + 1}"
            return self.phrase(rng).capitalize()
        if kind in ("integer", "number"):
            return _number(name, schema, rng, integer=kind == "integer")
        if kind == "boolean":
            return rng.random() < (0.2 if low.startswith(("is_deleted", "trashed", "archived", "private")) else 0.6)
        if kind == "array":
            items: JSONDict = schema["items"] if isinstance(schema.get("items"), dict) else {}
            if _kind(items) == "string" and not items.get("enum") and not items.get("format"):
                return sorted({rng.choice(self.scenario.words or ("fiction",)) for _ in range(rng.randint(1, 3))})
            return values.generate(schema, rng, name)
        return values.generate(schema, rng, name)

    def title(self, draft: Draft, name: str, rng: random.Random) -> str:
        base = str(draft.fields["__name"])
        if draft.shape.is_people or name in ("name", "full_name", "fullName", "display_name", "displayName", "label"):
            return base
        related = [t for t in self.targets(draft) if not t.shape.is_people]
        where = f" at {related[0].fields['__name']}" if related else ""
        seen = self.titles.setdefault((draft.shape.collection, name), set())
        for _ in range(20):
            title = f"{self.phrase(rng, avoid=draft.shape.noun).capitalize()} {draft.shape.noun}{where}"
            if title not in seen:
                break
        seen.add(title)
        return title

    def scope_value(self, name: str) -> str:
        """The one parent every scoped entity lives in (``owner: ares``, ``repo: dust-storms``, ``branch: main``):
        one per world, so an entity is found under the same scope by every tool."""
        if name in ("branch", "ref"):
            return "main"
        if name in ("owner", "org", "organization", "account", "tenant", "workspace", "team", "site", "namespace"):
            return (self.scenario.proper or ("acme",))[0].lower()
        head = self.scenario.phrases[0] if self.scenario.phrases else " ".join(self.scenario.words[:2]) or "fiction"
        return re.sub(r"[^a-z0-9]+", "-", head.lower()).strip("-")

    def place(self, draft: Draft, rng: random.Random) -> str:
        """A place of the scenario (its proper nouns), else of the world (an entity it refers to)."""
        places = [p for p in self.scenario.proper if p.lower() not in draft.shape.noun]
        if places:
            return rng.choice(places)
        related = [t.fields["__name"] for t in self.targets(draft) if not t.shape.is_people]
        return str(related[0]) if related else rng.choice(_NAMES)

    def phrase(self, rng: random.Random, avoid: str = "") -> str:
        """Two words that go together: a phrase of the scenario (``dust storms``), else two of its words."""
        phrases = [p for p in self.scenario.phrases if not avoid or avoid not in p]
        if len(phrases) >= 4 or (phrases and rng.random() < 0.8):
            return rng.choice(phrases)
        return " ".join(self.pick(rng, 2))

    def pick(self, rng: random.Random, k: int) -> list[str]:
        """``k`` different words of the scenario (repeated only when it has fewer)."""
        words_ = [w for w in self.scenario.words if w not in self.nouns] or ["routine", "check", "record"]
        return rng.sample(words_, k) if len(words_) >= k else [rng.choice(words_) for _ in range(k)]

    def sentence(self, draft: Draft, rng: random.Random) -> str:
        first, second = self.phrase(rng), self.phrase(rng)
        targets = self.targets(draft)
        who = next((t.fields["__name"] for t in targets if t.shape.is_people), None)
        place = next((t.fields["__name"] for t in targets if not t.shape.is_people), None)
        subject = draft.fields["__name"] if draft.shape.is_people or "name" in draft.shape.fields else \
            f"This {draft.shape.noun}"
        at = f" at {place}" if place else ""
        by = f" Raised by {who}." if who else ""
        also = f"; {second} were also noted" if second != first else ""
        return f"{subject} concerns {first}{at}{also}.{by}"

    def url(self, draft: Draft, name: str) -> str:
        conv = draft.shape.entity.conventions
        if conv.url and name in conv.url[0]:
            filled = conv.url[1].replace("{key}", str(draft.key))
            for scope in draft.shape.entity.scope:
                filled = filled.replace("{" + scope + "}", str(draft.fields.get(scope, "")))
            return filled
        return f"https://{self.scenario.domain}/{draft.shape.collection}/{draft.key}"


def _plain(schema: JSONDict) -> bool:
    """Scalars and lists of scalars: an entity's own fields (deep optional objects are left out)."""
    kind = _kind(schema)
    if kind == "array":
        items = schema.get("items")
        return not isinstance(items, dict) or _kind(items) != "object"
    return kind != "object"


def _kind(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "string"
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind:
        return str(kind)
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def is_date(name: str, schema: JSONDict) -> bool:
    if schema.get("format") in ("date", "date-time"):
        return True
    if _kind(schema) not in ("string", "integer"):
        return False
    low = name.lower()
    return (low.endswith(("_at", "date", "_on", "time", "timestamp")) or bool(re.search(r"[a-z]At$", name))) and (
        low not in ("format", "stat", "chat", "timezone", "time_spent", "runtime", "uptime"))


def date_rank(name: str) -> int:
    tokens = words(name)
    for rank in (0, 3, 1, 2):
        if any(t.startswith(stem) for t in tokens for stem in _DATE_RANKS[rank]):
            return rank
    return 1


def _format_moment(moment: dt.datetime, schema: JSONDict) -> Any:
    if _kind(schema) == "integer":
        return int(moment.timestamp())
    if schema.get("format") == "date":
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _number(name: str, schema: JSONDict, rng: random.Random, *, integer: bool) -> int | float:
    low = name.lower()
    bounds = {k: schema[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
              if k in schema}
    if bounds:
        number: int | float = values.generate(schema, rng, name)
        return number
    if low.endswith(("number", "_id", "id", "count")):  # ``pull_number`` is a whole number whatever its type
        return rng.randint(1, 40)
    if any(w in low for w in ("percent", "progress", "ratio", "rate")):
        value: float = rng.randint(0, 100) if integer or "percent" in low else round(rng.random(), 2)
        return int(value) if integer else value
    if any(w in low for w in _AMOUNT):
        return rng.randrange(100, 500_000) if integer else round(rng.uniform(10, 25_000), 2)
    if any(w in low for w in _QUANTITY):
        return rng.randint(1, 240) if integer else float(rng.randint(1, 240))
    if any(w in low for w in ("priority", "severity", "level", "rank", "position", "order", "estimate")):
        return rng.randint(1, 4) if integer else float(rng.randint(1, 4))
    if "lat" == low or "latitude" in low:
        return round(rng.uniform(-60, 60), 4)
    if low in ("lon", "lng") or "longitude" in low:
        return round(rng.uniform(-179, 179), 4)
    return rng.randint(1, 500) if integer else round(rng.uniform(1, 500), 2)


# -- the world -----------------------------------------------------------------------------------


def populatable(world: World) -> Generator:
    """A generator for the collections populate fills (no scenario yet); a clear error when there are none."""
    catalog = Catalog(world)
    found = shapes(catalog)
    if not found:
        raise PopulateError(
            f"{world.source or world.name}: no record collection to populate: populate fills entities that the "
            "catalog's tools get, list or search (e.g. get_issue(issue_id), list_issues); files, graphs and SQL "
            "tables are not populated")
    return Generator(found, Scenario.of(world.scenario or world.name), count=DEFAULT_COUNT, seed=0, catalog=catalog)


def generate_seed(world: World, *, scenario: str = "", count: int = DEFAULT_COUNT, seed: int = 0) -> Seed:
    """The seed state the deterministic generator writes for ``world`` (no model)."""
    check_count(count)
    return populatable(world).configured(scenario or world.scenario or world.name, count=count, seed=seed).generate()


def check_count(count: int) -> None:
    if not 1 <= count <= 1000:
        raise ConfigError(f"--count {count}: give between 1 and 1000 entities per collection")


__all__ = ["DEFAULT_COUNT", "Draft", "Generator", "PopulateError", "Scenario", "Seed", "check_count", "date_rank",
           "generate_seed", "is_date", "populatable"]
