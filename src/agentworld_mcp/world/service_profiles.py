"""What well-known services publish about their objects, as data: ids, urls, envelopes, states.

A catalog's text rarely spells out what every client of a famous API relies on: that a
Stripe product id starts ``prod_``, that a Slack Web API answer says ``"ok": true``, that a
Notion object names its type in ``object``, that a Google Calendar event is ``confirmed``
with an ``htmlLink``. Those conventions are public documentation, the same for every MCP
server in front of the service, so they are written here once per service, each citing the
page it comes from, and applied to any catalog that names the service.

A profile is detected from the catalog (:func:`detect`): the tools whose names carry the
service's word (``slack_post_message``, ``linear_createIssue``) or whose descriptions name
it (``Create a product in Stripe``), or a telling argument (Google Calendar's
``calendarId`` with ``'primary'``). A catalog that names no service gets no profile, so
nothing here leaks into an unknown catalog. The catalog's own text still wins: the entity
model (:mod:`agentworld_mcp.world.entities`) takes a profile's convention only where the catalog
shows none (:mod:`agentworld_mcp.world.conventions` reads the text first).

Field templates are strings with ``{name}`` placeholders (``{a|b}``: the first of ``a`` and
``b`` that the entity has), filled from the new entity's fields, its scope, the profile's
``defaults`` and a few derived values (:func:`placeholders`); a template whose placeholder
has no value is left out, so a convention never invents a wrong url.
This module is plain data and pure functions: it imports nothing from the package.
"""

from __future__ import annotations

import base64
import hashlib
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]

#: ``{name}`` or ``{a|b|c}`` in a template.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)*)\}")
#: Fields a url slug is made from, most telling first.
_TITLE_FIELDS = ("title", "name", "summary", "subject", "content", "text")


@dataclass(frozen=True)
class EntityProfile:
    """One kind of object of a service."""

    #: The nouns of the collections it is (``payment_link``: a ``links`` collection whose tools say payment link).
    nouns: tuple[str, ...]
    doc: str
    #: ``prefix:prod_`` (then a number), ``uuid``, ``base32hex`` (Google's event ids), ``upper:C`` (Slack's
    #: ``C`` and ten capitals or digits); ``None``: the catalog's or the default.
    id_format: str | None = None
    #: Fields a new object carries, as templates (``"ref": "refs/heads/{branch}"``); constants as they are.
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: (field, value) of a new object's state: Google Calendar's ``("status", "confirmed")``.
    status: tuple[str, str] | None = None
    #: (field, format) of the creation time: Stripe's ``("created", "unix")``, Notion's ``created_time``.
    created: tuple[str, str] | None = None
    #: What a listing of these objects is called in an envelope (Slack lists users as ``members``).
    list_key: str | None = None
    #: (field, default team key) of a human identifier (Linear's ``ENG-123``), unless the catalog shows one.
    identifier: tuple[str, str] | None = None


@dataclass(frozen=True)
class Envelope:
    """How a service's answers wrap the objects (tools without an outputSchema print these as JSON).

    Values are templates as above, filled from the object answered; ``"$entity"`` is the
    object itself, ``"$items"`` the list, ``"$noun"`` as a key is the object's noun,
    ``"$list_key"`` the listing's name.
    """

    #: A create, read or update of one object (Slack: ``{ok, channel, ts, message}``). None: the bare object.
    entity: Mapping[str, Any] | None = None
    #: A listing or search (Notion: ``{object: list, results, next_cursor, has_more}``). None: the bare list.
    listing: Mapping[str, Any] | None = None
    #: A delete (Slack: ``{ok, channel, ts}``). None: the deleted object.
    deleted: Mapping[str, Any] | None = None
    #: What every other successful answer carries (Slack: ``ok: true``).
    always: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ServiceProfile:
    """One service: how to recognise its catalogs, and its published conventions."""

    name: str
    doc: str
    #: The word its MCP servers put in tool names (``slack`` of ``slack_post_message``), lowercase.
    token: str
    #: Regexes over a tool's description and argument text that name the service.
    signals: tuple[str, ...]
    entities: tuple[EntityProfile, ...] = ()
    envelope: Envelope | None = None
    #: Values of placeholders no object carries (a workspace's url key).
    defaults: Mapping[str, str] = field(default_factory=dict)

    def entity(self, collection_noun: str, tool_words: Iterable[str]) -> EntityProfile | None:
        """The profile of a collection whose singular noun is ``collection_noun`` (``link``), told apart
        by the words of its tools' names (``create_payment_link``: a payment link, not an invoice line)."""
        said = set(tool_words)
        best: tuple[int, EntityProfile] | None = None
        for entity in self.entities:
            for noun in entity.nouns:
                parts = noun.split("_")
                if parts[-1] != collection_noun and noun != collection_noun:
                    continue
                score = sum(1 for p in parts if p in said) if len(parts) > 1 else 1
                if len(parts) > 1 and score < len(parts):
                    continue  # ``item`` of ``invoice_item`` needs ``invoice`` in the tool names
                if best is None or score > best[0]:
                    best = (score, entity)
        return best[1] if best else None


# -- the profiles -------------------------------------------------------------------------------

_STRIPE_API = "https://docs.stripe.com/api"


def _stripe(noun: str, prefix: str, page: str, **extra: Any) -> EntityProfile:
    """A Stripe object: ``object`` names its type, ``livemode`` false in test mode, ``created`` in Unix time
    (https://docs.stripe.com/api/objects: every object's id is a typed prefix and random characters)."""
    fields = {"object": noun.split("|")[0], "livemode": False, **extra.pop("fields", {})}
    id_format = f"prefix:{prefix}" if prefix else "upper:"  # a coupon's id is random capitals unless given
    return EntityProfile(tuple(noun.split("|")), f"{_STRIPE_API}/{page}", id_format, fields,
                         created=("created", "unix"), **extra)


STRIPE = ServiceProfile(
    "stripe", "https://docs.stripe.com/api", "stripe", (r"\bStripe\b", r"api\.stripe\.com", r"\bsk_test_"),
    entities=(
        _stripe("customer", "cus_", "customers/object"),
        _stripe("product", "prod_", "products/object", fields={"active": True}),
        _stripe("price", "price_", "prices/object", fields={"active": True, "type": "one_time"}),
        _stripe("payment_link", "plink_", "payment-link/object",
                fields={"active": True, "url": "https://buy.stripe.com/test_{token}"}),
        _stripe("invoice", "in_", "invoices/object", status=("status", "draft")),
        _stripe("invoiceitem|invoice_item", "ii_", "invoiceitems/object"),
        _stripe("payment_intent", "pi_", "payment_intents/object",
                status=("status", "requires_payment_method"), fields={"client_secret": "{key}_secret_{token}"}),
        _stripe("setup_intent", "seti_", "setup_intents/object", status=("status", "requires_payment_method")),
        _stripe("subscription", "sub_", "subscriptions/object", status=("status", "active")),
        _stripe("subscription_item", "si_", "subscription_items/object"),
        _stripe("charge", "ch_", "charges/object", status=("status", "succeeded"), fields={"paid": True}),
        _stripe("refund", "re_", "refunds/object", status=("status", "succeeded")),
        _stripe("checkout_session|session", "cs_test_", "checkout/sessions/object",
                status=("status", "open"), fields={"url": "https://checkout.stripe.com/c/pay/{key}"}),
        _stripe("payment_method", "pm_", "payment_methods/object"),
        _stripe("coupon", "", "coupons/object", fields={"valid": True}),
        _stripe("promotion_code", "promo_", "promotion_codes/object", fields={"active": True}),
        _stripe("dispute", "dp_", "disputes/object", status=("status", "needs_response")),
        _stripe("balance_transaction", "txn_", "balance_transactions/object"),
        _stripe("payout", "po_", "payouts/object", status=("status", "pending")),
        _stripe("transfer", "tr_", "transfers/object"),
        _stripe("account", "acct_", "accounts/object"),
        _stripe("event", "evt_", "events/object"),
        _stripe("tax_rate", "txr_", "tax_rates/object", fields={"active": True}),
        _stripe("quote", "qt_", "quotes/object", status=("status", "draft")),
        _stripe("credit_note", "cn_", "credit_notes/object", status=("status", "issued")),
        _stripe("file", "file_", "files/object"),
        _stripe("webhook_endpoint|webhook", "we_", "webhook_endpoints/object", status=("status", "enabled")),
    ),
)

_SLACK_TYPES = "https://api.slack.com/types"
SLACK = ServiceProfile(
    "slack", "https://api.slack.com/web", "slack", (r"\bSlack\b", r"slack\.com/api", r"\bxoxb-"),
    entities=(
        # https://api.slack.com/types/conversation: C (public), G (private) and D (direct) ids
        EntityProfile(("channel", "conversation"), f"{_SLACK_TYPES}/conversation", "upper:C",
                      {"is_channel": True, "is_archived": False}, created=("created", "unix")),
        EntityProfile(("user", "member"), f"{_SLACK_TYPES}/user", "upper:U", {"deleted": False, "is_bot": False},
                      list_key="members"),
        EntityProfile(("usergroup", "user_group"), f"{_SLACK_TYPES}/usergroup", "upper:S"),
        EntityProfile(("file",), f"{_SLACK_TYPES}/file", "upper:F", created=("created", "unix")),
        EntityProfile(("bot",), "https://api.slack.com/methods/bots.info", "upper:B"),
        # https://api.slack.com/events/message: a message is ``type: message``, named by its ``ts``
        EntityProfile(("message", "reply", "thread", "post"), "https://api.slack.com/events/message",
                      fields={"type": "message"}, created=("ts", "unix")),  # its ``ts`` is when it was posted
        EntityProfile(("reminder",), "https://api.slack.com/methods/reminders.add", "upper:Rm"),
    ),
    # https://api.slack.com/web#responses: every answer is a JSON object with a boolean ``ok``;
    # https://api.slack.com/methods/chat.postMessage answers ``{ok, channel, ts, message}``
    envelope=Envelope(
        entity={"ok": True, "channel": "{channel|channel_id}", "ts": "{ts}", "$noun": "$entity"},
        listing={"ok": True, "$list_key": "$items", "has_more": False, "response_metadata": {"next_cursor": ""}},
        deleted={"ok": True, "channel": "{channel|channel_id}", "ts": "{ts}"},
        always={"ok": True},
    ),
)

_NOTION = "https://developers.notion.com/reference"
NOTION = ServiceProfile(
    "notion", _NOTION, "notion", (r"\bNotion\b", r"api\.notion\.com", r"notion\.so"),
    entities=(
        # https://developers.notion.com/reference/page: object, UUID id, url notion.so/<title>-<id without dashes>
        EntityProfile(("page", "database_item"), f"{_NOTION}/page", "uuid",
                      {"object": "page", "url": "https://www.notion.so/{slug_title}{key_hex}", "archived": False,
                       "in_trash": False, "public_url": None}, created=("created_time", "iso_ms")),
        EntityProfile(("database",), f"{_NOTION}/database", "uuid",
                      {"object": "database", "url": "https://www.notion.so/{key_hex}", "archived": False,
                       "in_trash": False, "is_inline": False}, created=("created_time", "iso_ms")),
        EntityProfile(("data_source", "source"), f"{_NOTION}/data-source", "uuid", {"object": "data_source"},
                      created=("created_time", "iso_ms")),
        EntityProfile(("block",), f"{_NOTION}/block", "uuid",
                      {"object": "block", "has_children": False, "archived": False, "in_trash": False},
                      created=("created_time", "iso_ms")),
        EntityProfile(("comment",), f"{_NOTION}/comment-object", "uuid",
                      {"object": "comment", "discussion_id": "{token_uuid}"}, created=("created_time", "iso_ms")),
        EntityProfile(("user",), f"{_NOTION}/user", "uuid", {"object": "user", "type": "person"}),
    ),
    # https://developers.notion.com/reference/intro#pagination: listings are list objects
    envelope=Envelope(listing={"object": "list", "results": "$items", "next_cursor": None, "has_more": False}),
)

_LINEAR_API = "https://linear.app/developers/graphql"
LINEAR = ServiceProfile(
    "linear", "https://linear.app/developers", "linear", (r"\bLinear\b(?! (?:regression|algebra|time|scale))",
                                                         r"linear\.app", r"\blin_api_"),
    entities=(
        # https://linear.app/docs/conceptual-model: every object has a UUID; an issue's url ends with its identifier
        EntityProfile(("issue",), "https://linear.app/docs/conceptual-model#issues", "uuid",
                      {"url": "https://linear.app/{workspace}/issue/{identifier}/{slug}", "priority": 0,
                       "archivedAt": None}, created=("createdAt", "iso_ms"), identifier=("identifier", "ENG")),
        EntityProfile(("team",), "https://linear.app/docs/teams", "uuid", {"archivedAt": None},
                      created=("createdAt", "iso_ms")),
        EntityProfile(("project",), "https://linear.app/docs/projects", "uuid",
                      {"url": "https://linear.app/{workspace}/project/{slug}-{key_short}"},
                      created=("createdAt", "iso_ms")),
        EntityProfile(("comment",), _LINEAR_API, "uuid", created=("createdAt", "iso_ms")),
        EntityProfile(("document",), "https://linear.app/docs/project-documents", "uuid",
                      {"url": "https://linear.app/{workspace}/document/{slug}-{key_short}"},
                      created=("createdAt", "iso_ms")),
        EntityProfile(("cycle", "label", "user", "member", "milestone", "project_milestone", "initiative",
                       "attachment", "webhook", "state", "workflow_state", "roadmap", "favorite", "customer",
                       "notification", "template", "view", "custom_view", "relation", "integration"),
                      _LINEAR_API, "uuid", created=("createdAt", "iso_ms")),
    ),
    defaults={"workspace": "workspace"},
)

_GCAL = "https://developers.google.com/calendar/api/v3/reference"
GOOGLE_CALENDAR = ServiceProfile(
    "google_calendar", _GCAL, "gcal",
    (r"\bGoogle Calendar\b", r"googleapis\.com/calendar", r"calendarId\b[^.]{0,80}'primary'",
     r"'primary'[^.]{0,80}\bcalendar"),
    entities=(
        # https://developers.google.com/calendar/api/v3/reference/events: ids in base32hex, ``status`` confirmed,
        # ``htmlLink`` to the web UI (``eid``: the event id and calendar, base64url)
        EntityProfile(("event",), f"{_GCAL}/events", "base32hex",
                      {"kind": "calendar#event", "htmlLink": "https://www.google.com/calendar/event?eid={eid}",
                       "iCalUID": "{key}@google.com", "sequence": 0, "eventType": "default"},
                      status=("status", "confirmed"), created=("created", "iso_ms")),
        EntityProfile(("calendar",), f"{_GCAL}/calendars", None, {"kind": "calendar#calendar"}),
    ),
    # https://github.com/nspady/google-calendar-mcp#available-tools: its MCP servers report a delete's success
    envelope=Envelope(deleted={"success": True, "eventId": "{key}", "message": "Event deleted successfully"}),
)

_GH = "https://docs.github.com/en/rest"
GITHUB = ServiceProfile(
    "github", _GH, "github", (r"\bGitHub\b", r"api\.github\.com"),
    entities=(
        # https://docs.github.com/en/rest/issues/issues#get-an-issue: ``html_url`` is the page; GitHub's
        # own MCP server reports that page as ``url`` too (https://github.com/github/github-mcp-server, issue_write)
        EntityProfile(("issue",), f"{_GH}/issues/issues",
                      fields={"html_url": "https://github.com/{owner}/{repo}/issues/{number}",
                              "url": "https://github.com/{owner}/{repo}/issues/{number}",
                              "comments": 0, "locked": False},
                      status=("state", "open"), created=("created_at", "iso")),
        # https://docs.github.com/en/rest/pulls/pulls#get-a-pull-request: a pull request's page is under /pull/
        EntityProfile(("pull_request", "pull"), f"{_GH}/pulls/pulls",
                      fields={"html_url": "https://github.com/{owner}/{repo}/pull/{number}",
                              "url": "https://github.com/{owner}/{repo}/pull/{number}",
                              "merged": False, "draft": False},
                      status=("state", "open"), created=("created_at", "iso")),
        # https://docs.github.com/en/rest/git/refs#create-a-reference: a branch is a ref under refs/heads
        EntityProfile(("branch", "ref", "reference"), f"{_GH}/git/refs#create-a-reference",
                      fields={"ref": "refs/heads/{branch|branch_name|name}",
                              "url": "https://api.github.com/repos/{owner}/{repo}/git/refs/heads/"
                                     "{branch|branch_name|name}",
                              "object": {"type": "commit", "sha": "{sha}"}}),
        # https://docs.github.com/en/rest/repos/repos#create-a-repository-for-the-authenticated-user
        EntityProfile(("repository", "repo"), f"{_GH}/repos/repos",
                      fields={"full_name": "{owner}/{name}", "html_url": "https://github.com/{owner}/{name}",
                              "default_branch": "main"}, created=("created_at", "iso")),
        # https://docs.github.com/en/rest/releases/releases#create-a-release
        EntityProfile(("release",), f"{_GH}/releases/releases",
                      fields={"html_url": "https://github.com/{owner}/{repo}/releases/tag/{tag_name}",
                              "draft": False, "prerelease": False}, created=("created_at", "iso")),
        # https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
        EntityProfile(("comment", "issue_comment"), f"{_GH}/issues/comments",
                      fields={"html_url": "https://github.com/{owner}/{repo}/issues/{issue_number}"
                                          "#issuecomment-{key}"}, created=("created_at", "iso")),
        # https://docs.github.com/en/rest/gists/gists#create-a-gist
        EntityProfile(("gist",), f"{_GH}/gists/gists", fields={"html_url": "https://gist.github.com/{key}"},
                      created=("created_at", "iso")),
    ),
)

# Todoist API v1: every object's id is an opaque string of letters and digits ("6X7rM8997g3RQmvh").
_TODOIST = "https://developer.todoist.com/api/v1"
TODOIST = ServiceProfile(
    "todoist", _TODOIST, "todoist", (r"\bTodoist\b", r"api\.todoist\.com"),
    entities=(
        EntityProfile(("task", "item"), f"{_TODOIST}/#tag/Tasks", "alnum:16", {"checked": False}),
        EntityProfile(("project",), f"{_TODOIST}/#tag/Projects", "alnum:16"),
        EntityProfile(("section",), f"{_TODOIST}/#tag/Sections", "alnum:16"),
        EntityProfile(("comment", "note"), f"{_TODOIST}/#tag/Comments", "alnum:16"),
        EntityProfile(("label",), f"{_TODOIST}/#tag/Labels", "alnum:16"),
    ),
)

#: Every profiled service.
PROFILES: dict[str, ServiceProfile] = {
    p.name: p for p in (STRIPE, SLACK, NOTION, LINEAR, GOOGLE_CALENDAR, GITHUB, TODOIST)}

#: A service is the catalog's when this share of its tools name it (and at least two do).
_SHARE = 0.2


# -- detection -----------------------------------------------------------------------------------


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    """Descriptions, argument names and examples of a tool (enough to see the service it speaks for)."""
    if depth > 6:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def named_in_name(tool: JSONDict) -> ServiceProfile | None:
    """The service whose word is part of the tool's name (``slack_post_message``, ``linear_createIssue``)."""
    said = _name_words(str(tool.get("name") or ""))
    return next((p for p in PROFILES.values() if p.token in said), None)


def named_by(tool: JSONDict, hint: str = "") -> ServiceProfile | None:
    """The service a tool names in its own name (``slack_post_message``), else in its text."""
    if (found := named_in_name(tool)) is not None:
        return found
    titles = [tool.get("title"), (tool.get("annotations") or {}).get("title")]  # "Todoist: Add Tasks"
    text = " ".join(_strings({"d": tool.get("description"), "i": tool.get("inputSchema"), "t": titles})) + " " + hint
    for profile in PROFILES.values():
        if any(re.search(s, text) for s in profile.signals):
            return profile
    return None


def detect(tools: list[JSONDict], hint: str = "") -> ServiceProfile | None:
    """The service a catalog is for: the one most of its tools name, when enough do (``hint``: the
    world's name, counted as two more tools naming it); ``None`` for a catalog of no known service or
    of several services named as often."""
    votes: dict[str, int] = {}
    for tool in tools:
        found = named_by(tool)
        if found is not None:
            votes[found.name] = votes.get(found.name, 0) + 1
    for profile in PROFILES.values():
        if hint and (profile.token in _name_words(hint) or any(re.search(s, hint) for s in profile.signals)):
            votes[profile.name] = votes.get(profile.name, 0) + 2
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    name, count = ranked[0]
    if len(ranked) > 1 and ranked[1][1] == count:
        return None  # a gateway to several services: each tool's own name decides (entities._profiled)
    return PROFILES[name] if count >= 2 and count >= _SHARE * len(tools) else None


# -- templates -----------------------------------------------------------------------------------


def placeholders(fields: Mapping[str, Any], key: Any, collection: str, defaults: Mapping[str, str]) -> dict[str, str]:
    """The values a template may name: the object's scalar fields, ``key``, and values derived from them."""
    out = {k: str(v) for k, v in defaults.items()}
    out.update({k: str(v) for k, v in fields.items() if isinstance(v, (str, int)) and not isinstance(v, bool)})
    key_text = str(key)
    digest = hashlib.sha256(f"{collection}:{key_text}".encode()).hexdigest()
    found = fields.get("properties")
    properties: Mapping[str, Any] = found if isinstance(found, dict) else {}
    title = next((_plain(fields[f]) for f in _TITLE_FIELDS if _plain(fields.get(f))), "") or next(
        (_plain(properties[f]) for f in ("title", "Title", "Name", "name") if _plain(properties.get(f))), "")
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60]
    words_of_title = re.sub(r"[^A-Za-z0-9]+", "-", title[:100]).strip("-")  # Notion's ``Launch-plan-<id>``
    calendar = str(fields.get("calendarId") or fields.get("calendar_id") or "primary")
    alphabet = string.ascii_letters + string.digits
    out.update({
        "key": key_text,
        "key_hex": key_text.replace("-", ""),
        "key_short": key_text.replace("-", "")[:12],
        "slug": slug or "untitled",
        "slug_title": f"{words_of_title}-" if words_of_title else "",
        "token": "".join(alphabet[int(digest[i:i + 2], 16) % len(alphabet)] for i in range(0, 48, 2)),
        "token_uuid": f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}",
        "sha": hashlib.sha1(f"{collection}:{key_text}".encode()).hexdigest(),
        "eid": base64.urlsafe_b64encode(f"{key_text} {calendar}".encode()).decode().rstrip("="),
    })
    return out


def _plain(value: Any) -> str:
    """The text of a title given as a string or as rich text (Notion's ``[{text: {content}}]``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_plain(v) for v in value)
    if isinstance(value, dict):
        for name in ("plain_text", "content", "text", "title"):
            if name in value:
                return _plain(value[name])
    return ""


class _Missing(Exception):
    """A placeholder with no value: the template is left out."""


def render(template: Any, values: Mapping[str, str]) -> Any:
    """``template`` filled from ``values``; raises ``KeyError`` when a placeholder has none."""
    if isinstance(template, str):
        def one(match: re.Match[str]) -> str:
            for name in match.group(1).split("|"):
                if name in values:
                    return values[name]
            raise _Missing(match.group(1))
        try:
            return _PLACEHOLDER.sub(one, template)
        except _Missing as missing:
            raise KeyError(str(missing)) from None
    if isinstance(template, dict):
        return {k: render(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [render(v, values) for v in template]
    return template


def rendered_fields(templates: Mapping[str, Any], values: Mapping[str, str]) -> JSONDict:
    """Every template that can be filled, by field name (the others are left out)."""
    out: JSONDict = {}
    for name, template in templates.items():
        try:
            out[name] = render(template, values)
        except KeyError:
            continue
    return out


def new_id(id_format: str, number: int, seed: str) -> str | None:
    """An id in a profile's format: ``prefix:cus_`` -> ``cus_4``; ``upper:C`` -> ``C`` and ten capitals
    or digits; ``base32hex`` -> 26 of ``0-9a-v`` (Google); ``alnum:16`` -> 16 letters and digits (Todoist);
    ``uuid`` is the caller's (seeded) UUID."""
    kind, _, arg = id_format.partition(":")
    digest = hashlib.sha256(f"{seed}:{number}".encode()).digest()
    if kind == "prefix":
        return f"{arg}{number}"
    if kind == "upper":
        alphabet = string.ascii_uppercase + string.digits
        return arg + "".join(alphabet[b % len(alphabet)] for b in digest[:10])
    if kind == "alnum":
        alphabet = string.ascii_letters + string.digits
        return "".join(alphabet[b % len(alphabet)] for b in digest[:int(arg or 16)])
    if kind == "base32hex":
        alphabet = "0123456789abcdefghijklmnopqrstuv"
        return "".join(alphabet[b % 32] for b in digest[:26])
    return None


__all__ = ["PROFILES", "EntityProfile", "Envelope", "ServiceProfile", "detect", "named_by", "named_in_name", "new_id",
           "placeholders", "render", "rendered_fields"]
