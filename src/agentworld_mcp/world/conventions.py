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
          key_field: str, examples: Iterable[str] = ()) -> Conventions:
    """The conventions of ``collection`` from its tools' text (and the world's demonstrations/seed)."""
    own = " ".join(texts.get(t["name"], "") for t in tools) + " " + " ".join(examples)
    noun = singular(collection)
    status_field, initial, all_values = _status(statuses, lifecycle, fields)
    return Conventions(
        id_prefix=_id_prefix(noun, own),
        identifier=_identifier(own, fields),
        url=_url(collection, own, fields, scope),
        status_field=status_field,
        initial_status=initial,
        all_values=all_values,
        inactive_flags=tuple(f for f in ("completed", "is_completed", "archived", "is_archived", "done", "checked")
                             if f in fields),
        ts_key=key_field in TS_ARGS,
        uuid_ids=bool(re.search(r"\buuids?\b", own, re.IGNORECASE)),
    )


def _id_prefix(noun: str, text: str) -> str | None:
    """The prefix the collection's ids carry, if the text shows ids of it (``cus_`` for customers)."""
    initials = "".join(w[0] for w in noun.split("_") if w)
    squashed = noun.replace("_", "")
    for match in _PREFIXED_ID.finditer(text):
        prefix = match.group(1)
        if squashed.startswith(prefix) or prefix == initials or (len(prefix) >= 2 and _abbreviates(prefix, squashed)):
            return prefix + "_"
    return None


def _abbreviates(prefix: str, word: str) -> bool:
    """``prod`` abbreviates ``product``, ``cus`` customer, ``sub`` subscription: letters in order, first one first."""
    if not word or prefix[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in prefix[1:])


def _identifier(text: str, fields: set[str]) -> tuple[str, str] | None:
    match = _HUMAN_ID.search(text)
    if match is None:
        return None
    field_name = next((f for f in ("identifier", "key", "ticket_key", "issue_key") if f in fields), "identifier")
    return field_name, match.group(1)


def _url(collection: str, text: str, fields: set[str], scope: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    """A url template: a url in the text whose path names the collection, with the scope and key put back."""
    field_name = next((f for f in URL_FIELDS if f in fields or re.search(rf"\b{f}\b", text)), None)
    if field_name is None:
        return None
    for url in _URL.findall(text):
        if any(h in url for h in _DOC_HOSTS):
            continue
        head, _, path = url.partition("://")[2].partition("/")
        parts = [p for p in path.split("/") if p]
        if collection in parts or singular(collection) in parts:
            at = parts.index(collection if collection in parts else singular(collection))
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
        initial = states[0].lower() if all(v.isupper() for v in states) else states[0]
    else:
        initial = "open" if {"close", "reopen", "merge"} & set(lifecycle) else "active" if lifecycle else None
    return name, initial, all_values


def described_fields(description: str) -> set[str]:
    """Fields a description says the answer has: ``Returns the account with its account_id and balance``."""
    found = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", description))
    found |= {w for w in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", description)}
    for clause in re.findall(r"\b(?:with (?:its|their|the)|including|containing)\s+([^.;:()]+)", description):
        for part in re.split(r",|\band\b", clause):
            tokens = words(part)
            if len(tokens) == 1:
                found.add(tokens[0])
    return found
