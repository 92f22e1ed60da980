"""How a service spells its ids, urls and states, read from the catalog's own text.

Real catalogs say it in passing: "the customer id (e.g. cus_NffrFeUfNV2Hib)", "the issue
identifier, like ENG-42", "html_url: https://github.com/octo/hello/issues/1", a ``state``
enum of ``open, closed, all``. The deterministic world model uses what is found here so a
new customer is ``cus_4`` rather than an id of an invented shape, an issue gets ``ENG-5``
and a url under its repository, and a new issue starts ``open``.
Nothing here is specific to one service: every convention is a pattern in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .roles import singular, words

JSONDict = dict[str, Any]

#: ``cus_NffrFeUfNV2Hib`` (a suffix with a digit or a capital: not ``list_customers``).
_PREFIXED_ID = re.compile(r"\b([a-z]{1,6})_(?=[A-Za-z0-9]*[0-9A-Z])[A-Za-z0-9]{3,}\b")
#: ``ENG-42``: a human identifier made of a team key and a number.
_HUMAN_ID = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-(\d{1,6})\b")
_URL = re.compile(r"https?://[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?:/[^\s\"'<>)\]]*)?")
#: Placeholder hosts in examples are conventions too, but never the docs' own site.
_DOC_HOSTS = ("json-schema.org", "modelcontextprotocol.io", "www.w3.org", "spec.openapis.org", "docs.")
_ALL_VALUES = ("all", "any", "*")
URL_FIELDS = ("html_url", "url", "web_url", "permalink", "link", "href")
TS_ARGS = ("ts", "thread_ts", "message_ts", "timestamp")
#: A url field named as a word (each match is a whole word, so one pass finds every field named).
_URL_FIELD = re.compile(r"\b(" + "|".join(URL_FIELDS) + r")\b")


@dataclass(frozen=True)
class Conventions:
    """What one collection's entities look like at this service."""

    #: ``cus_`` for ids like ``cus_NffrFeUfNV2Hib``.
    id_prefix: str | None = None
    #: (field, team key) for human identifiers: ``("identifier", "ENG")`` gives ``ENG-5``.
    identifier: tuple[str, str] | None = None
    #: (fields, template) for urls: ``(("html_url",), "https://github.com/{owner}/{repo}/issues/{key}")``.
    url: tuple[tuple[str, ...], str] | None = None
    #: The field holding the entity's state and the state a new one starts in.
    status_field: str | None = None
    initial_status: str | None = None
    #: Values of the status field meaning "every state" in a list filter (``all``).
    all_values: tuple[str, ...] = ()
    #: The states the catalog lists for the status field, in its order (``pending``, ``done``).
    states: tuple[str, ...] = ()
    #: Boolean fields that take an item out of the active list when true (``completed``, ``archived``).
    inactive_flags: tuple[str, ...] = ()
    #: Message-style ids: Slack's ``1712345678.000100``.
    ts_key: bool = False
    #: Ids are UUIDs (the catalog says so of this entity's ids).
    uuid_ids: bool = False
    #: Below, what a service's published profile adds where the catalog's text is silent
    #: (:mod:`agentworld_mcp.world.service_profiles`; the entity model fills them in, never this module).
    #: The profiled service (``stripe``), which also shapes the answers' envelope.
    service: str | None = None
    #: An id format of the profile (``upper:C``, ``base32hex``; ``service_profiles.new_id``).
    id_format: str | None = None
    #: Fields a new entity carries, as templates (``"ref": "refs/heads/{branch}"``).
    starting: Mapping[str, Any] = field(default_factory=dict)
    #: (field, format) of its creation time: ``("created", "unix")`` at Stripe.
    created: tuple[str, str] | None = None
    #: What the service's envelope calls a listing of these (Slack's users are ``members``).
    list_key: str | None = None


def plain_id(collection: str, number: int) -> str:
    """The id of an entity whose service shows no convention: ``task-3``, ``note-1``, ``req-2``.

    A counter behind the noun, as hand-written servers key their maps; a short noun stays whole,
    a long one is cut to three letters.
    """
    noun = singular(collection).rsplit("_", 1)[-1] or "id"
    return f"{noun if len(noun) <= 4 else noun[:3]}-{number}"


def catalog_text(tools: Iterable[JSONDict]) -> dict[str, str]:
    """Every string a tool definition carries (descriptions, examples, patterns), by tool name."""
    return {t["name"]: " ".join(_strings(t)) for t in tools}


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 8:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("name", "type", "$schema", "required"):
                yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def infer(collection: str, tools: list[JSONDict], texts: dict[str, str], fields: set[str],
          statuses: dict[str, list[str]], lifecycle: dict[str, str], scope: tuple[str, ...],
          key_field: str, examples: Iterable[str | TextScan] = (),
          scans: dict[str, TextScan] | None = None) -> Conventions:
    """The conventions of ``collection`` from its tools' text (and the world's demonstrations/seed).

    ``scans``: what each text shows, kept across the collections of one catalog, which all read the
    same demonstrations (scanning them again for each collection made a large world's start quadratic);
    an example may be given already scanned (the demonstrations :func:`joined` into one).
    """
    scans = {} if scans is None else scans
    own = [text if isinstance(text, TextScan) else scan_text(text, scans)
           for text in [*(texts.get(t["name"], "") for t in tools), *examples]]
    noun = singular(collection)
    status_field, initial, all_values = _status(statuses, lifecycle, fields)
    return Conventions(
        id_prefix=_id_prefix(noun, own),
        identifier=_identifier(own, fields),
        url=_url(collection, own, fields, scope),
        status_field=status_field,
        initial_status=initial,
        all_values=all_values,
        states=tuple(v for v in statuses.get(status_field or "", []) if isinstance(v, str) and v not in all_values),
        inactive_flags=tuple(f for f in ("completed", "is_completed", "archived", "is_archived", "done", "checked")
                             if f in fields),
        ts_key=key_field in TS_ARGS,
        uuid_ids=any(scan.uuid for scan in own),
    )


@dataclass(frozen=True)
class TextScan:
    """What one text shows of the conventions: the same for every collection that reads it. (No pattern
    below matches whitespace, so scanning texts one by one finds what scanning them joined by spaces finds.)"""

    #: ``cus`` of ``cus_NffrFeUfNV2Hib``: each prefixed id's prefix, first sighting first.
    prefixes: tuple[str, ...]
    #: The team key of the first human identifier (``ENG`` of ``ENG-42``).
    team_key: str | None
    #: The url fields (:data:`URL_FIELDS`) the text names.
    url_fields: frozenset[str]
    #: Urls not on a documentation host, in order, and for each path segment the first url that has it.
    urls: tuple[str, ...]
    first_url_with: Mapping[str, int]
    uuid: bool


def scan_text(text: str, scans: dict[str, TextScan]) -> TextScan:
    """``text``'s :class:`TextScan`, from ``scans`` when it was scanned before."""
    found = scans.get(text)
    if found is not None:
        return found
    urls = tuple(url for url in _URL.findall(text) if not any(h in url for h in _DOC_HOSTS))
    first: dict[str, int] = {}
    for i, url in enumerate(urls):
        for part in url.partition("://")[2].partition("/")[2].split("/"):
            if part:
                first.setdefault(part, i)
    human = _HUMAN_ID.search(text)
    found = scans[text] = TextScan(
        prefixes=tuple(dict.fromkeys(m.group(1) for m in _PREFIXED_ID.finditer(text))),
        team_key=human.group(1) if human else None,
        url_fields=frozenset(_URL_FIELD.findall(text)),
        urls=urls, first_url_with=first, uuid=bool(re.search(r"\buuids?\b", text, re.IGNORECASE)))
    return found


def joined(scans: Iterable[TextScan]) -> TextScan:
    """One scan that shows what ``scans`` show in order: the conventions read the same from it as
    from them one after another (each reader takes the first sighting in order, or any)."""
    scans = list(scans)
    urls: list[str] = []
    first: dict[str, int] = {}
    for scan in scans:
        for part, i in scan.first_url_with.items():
            first.setdefault(part, len(urls) + i)
        urls.extend(scan.urls)
    return TextScan(
        prefixes=tuple(dict.fromkeys(p for scan in scans for p in scan.prefixes)),
        team_key=next((scan.team_key for scan in scans if scan.team_key is not None), None),
        url_fields=frozenset().union(*(scan.url_fields for scan in scans)),
        urls=tuple(urls), first_url_with=first, uuid=any(scan.uuid for scan in scans))


def _id_prefix(noun: str, scans: list[TextScan]) -> str | None:
    """The prefix the collection's ids carry, if the text shows ids of it (``cus_`` for customers)."""
    initials = "".join(w[0] for w in noun.split("_") if w)
    squashed = noun.replace("_", "")
    for scan in scans:
        for prefix in scan.prefixes:
            if squashed.startswith(prefix) or prefix == initials or (
                    len(prefix) >= 2 and _abbreviates(prefix, squashed)):
                return prefix + "_"
    return None


def _abbreviates(prefix: str, word: str) -> bool:
    """``prod`` abbreviates ``product``, ``cus`` customer, ``sub`` subscription: letters in order, first one first."""
    if not word or prefix[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in prefix[1:])


def _identifier(scans: list[TextScan], fields: set[str]) -> tuple[str, str] | None:
    team_key = next((scan.team_key for scan in scans if scan.team_key is not None), None)
    if team_key is None:
        return None
    field_name = next((f for f in ("identifier", "key", "ticket_key", "issue_key") if f in fields), "identifier")
    return field_name, team_key


def _url(collection: str, scans: list[TextScan], fields: set[str], scope: tuple[str, ...]
         ) -> tuple[tuple[str, ...], str] | None:
    """A url template: a url in the text whose path names the collection, with the scope and key put back."""
    field_name = next((f for f in URL_FIELDS if f in fields or any(f in scan.url_fields for scan in scans)), None)
    if field_name is None:
        return None
    noun = singular(collection)
    for scan in scans:
        at_url = [i for i in (scan.first_url_with.get(collection), scan.first_url_with.get(noun)) if i is not None]
        if not at_url:
            continue
        url = scan.urls[min(at_url)]
        head, _, path = url.partition("://")[2].partition("/")
        parts = [p for p in path.split("/") if p]
        at = parts.index(collection if collection in parts else noun)
        tail = "/".join(["{" + s + "}" for s in scope] if len(scope) == at else parts[:at])
        base = f"{url.split('://')[0]}://{head}"
        return (field_name,), "/".join(p for p in (base, tail, parts[at], "{key}") if p)
    return None


def _status(statuses: dict[str, list[str]], lifecycle: dict[str, str], fields: set[str]
            ) -> tuple[str | None, str | None, tuple[str, ...]]:
    """The status field, where a new entity starts, and the 'every state' filter values."""
    name = next((n for n in ("status", "state") if n in statuses), None)
    if name is None and lifecycle:
        name = "state" if "state" in fields else "status"
    if name is None:
        return (next((n for n in ("status", "state") if n in fields), None), None, ())
    enum = [v for v in statuses.get(name, []) if isinstance(v, str)]
    all_values = tuple(v for v in enum if v.casefold() in _ALL_VALUES)
    states = [v for v in enum if v not in all_values]
    initial: str | None
    if "finalize" in lifecycle:
        initial = "draft"
    elif states:  # a GraphQL-style filter enum (``OPEN``) names a state the entity spells ``open``
        first = min(states, key=_start_rank)  # ``Pending`` before ``Open`` where an order is listed as both
        initial = first.lower() if all(v.isupper() for v in states) else first
    else:
        initial = "open" if {"close", "reopen", "merge"} & set(lifecycle) else "active" if lifecycle else None
    return name, initial, all_values


_DESCRIBED_ENUM = re.compile(r"(?:\[enum\]\s*:?|one of\s*:?)\s*\[?([^\]\n.]+)\]?", re.IGNORECASE)


def described_enum(schema: Any) -> list[str]:
    """The values a field lists: its ``enum``, or its description's (``[Enum]: ["locked", "unlocked"]``, ``one of: a, b``)."""
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("enum"), list):
        return [str(v) for v in schema["enum"]]
    found = _DESCRIBED_ENUM.search(str(schema.get("description") or ""))
    if not found:
        return []
    quoted = _QUOTED.findall(found.group(1))  # ``One of "pending" (default), "done", or "all"``: the quoted words
    if len(quoted) >= 2:
        return quoted
    return [v.strip().strip("'\"") for v in found.group(1).split(",") if v.strip().strip("'\"")]


_QUOTED = re.compile(r"[\"'`]([^\"'`\s][^\"'`\n]{0,40}?)[\"'`]")


def argument_enum(tool: JSONDict, name: str) -> list[str]:
    """The values argument ``name`` takes: its schema's list, else the one its entry in the tool's
    description gives (a docstring's ``status: One of "pending" (default), "done", or "all".``)."""
    schema = ((tool.get("inputSchema") or {}).get("properties") or {}).get(name)
    listed = described_enum(schema)
    if listed:
        return listed
    entry = re.search(rf"^\s*{re.escape(name)}\s*(?:\([^)\n]*\))?\s*:\s*(.+)$", str(tool.get("description") or ""),
                      re.MULTILINE)
    return described_enum({"description": entry.group(1)}) if entry else []


#: A docstring entry and its wrapped lines: ``status: Filter by status (backlog, todo,\n    in_progress)``.
_ENTRY_END = re.compile(r"\n\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*(?:\([^)\n]*\))?\s*:|\n)")
#: A bare list in parentheses: ``(backlog, todo, in_progress, done)``.
_PAREN_LIST = re.compile(r"\(([A-Za-z][A-Za-z0-9_ -]*(?:,\s*[A-Za-z][A-Za-z0-9_ -]*){2,})\)")


def listed_argument_values(tool: JSONDict, name: str) -> list[str]:
    """The values argument ``name`` takes as its docstring entry lists them, wrapped lines included:
    ``status: Filter by status (backlog, todo, in_progress, done)`` or ``One of "a", "b"``."""
    listed = argument_enum(tool, name)
    if listed:
        return listed
    text = str(tool.get("description") or "")
    start = re.search(rf"^\s*{re.escape(name)}\s*(?:\([^)\n]*\))?\s*:", text, re.MULTILINE)
    if not start:
        return []
    rest = text[start.end():]
    end = _ENTRY_END.search(rest)
    entry = " ".join((rest[:end.start()] if end else rest).split())
    found = _PAREN_LIST.search(entry)
    return [v.strip() for v in found.group(1).split(",")] if found else []


#: Words for one state that services spell differently: ``complete_task`` leaves a task ``done`` where
#: the catalog lists ``done`` and not ``completed``.
_SAME_STATE = (frozenset({"completed", "complete", "done", "finished"}), frozenset({"open", "pending", "todo"}),
               frozenset({"cancelled", "canceled"}), frozenset({"archived", "inactive"}))


def listed_state(state: str, states: Iterable[str]) -> str:
    """``state`` as the catalog's own list spells it (``completed`` -> ``done``), else ``state``."""
    states = list(states)
    if not states or state in states:
        return state
    same = next((group for group in _SAME_STATE if state.casefold() in group), frozenset())
    return next((s for s in states if s.casefold() in same), state)


#: States a thing is in before anything happened to it, earliest first; others keep their listed order.
_STARTING = ("pending", "new", "draft", "queued", "submitted", "created", "backlog", "todo", "to do", "open",
             "scheduled", "active")


def _start_rank(state: str) -> int:
    folded = state.casefold().replace("_", " ")
    return _STARTING.index(folded) if folded in _STARTING else len(_STARTING)


#: A docstring's argument section (``Args: item_id: The item to link``) names what the call takes, not
#: what the answer has; it runs to the next section or the end.
_ARGS_SECTION = re.compile(
    r"\b(?:Args|Arguments|Parameters|Params)\s*:(?:(?!\b(?:Returns?|Raises|Yields|Examples?|Notes?)\s*:).)*",
    re.DOTALL)


def described_fields(description: str) -> set[str]:
    """Fields a description says the answer has: ``Returns the account with its account_id and balance``."""
    description = _ARGS_SECTION.sub(" ", description)
    found = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", description))
    found |= {w for w in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", description)}
    for clause in re.findall(r"\b(?:with (?:its|their|the)|including|containing)\s+([^.;:()]+)", description):
        for part in re.split(r",|\band\b", clause):
            tokens = words(part)
            if len(tokens) == 1:
                found.add(tokens[0])
    return found
