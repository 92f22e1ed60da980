"""Service profiles: what well-known APIs publish about their objects, on catalogs never seen.

The realism set's catalogs are one MCP server per service. Each catalog below is another
server's for the same service, written after a public community server (tool names and
arguments as that server has them, trimmed to a few tools), so the conventions must come
from the service's profile (src/agentworld_mcp/world/service_profiles.py), not from anything the
realism catalogs taught. Every check cites the service's public documentation. A real MCP
client drives the simulator over stdio; a catalog of no known service gets no profile.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentworld_mcp.world import service_profiles
from agentworld_mcp.world.entities import build

from .conftest import stdio_session
from .test_entity_model import S, tool
from .test_realistic_answers import _json, _world

N = {"type": "number"}
B = {"type": "boolean"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
REALISM_CATALOGS = Path(__file__).resolve().parent / "realism" / "catalogs"

# -- Stripe: after topitip/hive's stripe_tool (FastMCP, ``stripe_*`` tools) ----------------------
# https://docs.stripe.com/api/products/object, /prices/object, /payment-link/object,
# /payment_intents/object, /subscriptions/object, /coupons/delete
STRIPE = [
    tool("stripe_create_product", {"name": S, "description": S, "active": B}, ("name",),
         "Create a new Stripe product."),
    tool("stripe_get_product", {"product_id": S}, ("product_id",), "Retrieve a Stripe product by ID."),
    tool("stripe_create_price", {"unit_amount": N, "currency": S, "product_id": S, "nickname": S},
         ("unit_amount", "currency", "product_id"), "Create a price for a Stripe product."),
    tool("stripe_create_payment_link", {"price_id": S, "quantity": N}, ("price_id",),
         "Create a Stripe payment link for a price."),
    tool("stripe_get_payment_link", {"payment_link_id": S}, ("payment_link_id",), "Retrieve a payment link."),
    tool("stripe_create_payment_intent", {"amount": N, "currency": S, "customer_id": S}, ("amount", "currency"),
         "Create a Stripe payment intent."),
    tool("stripe_create_coupon", {"percent_off": N, "duration": S, "name": S}, (), "Create a Stripe coupon."),
    tool("stripe_delete_coupon", {"coupon_id": S}, ("coupon_id",), "Delete a Stripe coupon."),
]


async def test_an_unseen_stripe_server_gets_stripes_ids_objects_and_payment_link_urls(tmp_path):
    async with stdio_session(_world(tmp_path, STRIPE, "payments")) as session:
        call = session.call_tool
        product = _json(await call("stripe_create_product", {"name": "Gold plan"}))
        assert re.match(r"prod_\w+$", product["id"]) and product["object"] == "product"
        assert product["livemode"] is False and isinstance(product["created"], int)  # Unix time, as Stripe's
        assert _json(await call("stripe_get_product", {"product_id": product["id"]}))["name"] == "Gold plan"
        price = _json(await call("stripe_create_price", {"unit_amount": 2000, "currency": "usd",
                                                         "product_id": product["id"]}))
        assert re.match(r"price_\w+$", price["id"]) and price["object"] == "price"
        link = _json(await call("stripe_create_payment_link", {"price_id": price["id"], "quantity": 1}))
        assert re.match(r"plink_\w+$", link["id"]) and link["url"].startswith("https://buy.stripe.com/")
        again = _json(await call("stripe_get_payment_link", {"payment_link_id": link["id"]}))
        assert again["url"] == link["url"]  # the url is the link's, read back as it was made
        intent = _json(await call("stripe_create_payment_intent", {"amount": 500, "currency": "eur"}))
        assert re.match(r"pi_\w+$", intent["id"]) and intent["status"] == "requires_payment_method"
        coupon = _json(await call("stripe_create_coupon", {"percent_off": 25, "duration": "once"}))
        assert coupon["object"] == "coupon" and not coupon["id"].startswith("cou_")  # random, not a noun prefix
        gone = _json(await call("stripe_delete_coupon", {"coupon_id": coupon["id"]}))
        assert (gone["id"], gone["deleted"]) == (coupon["id"], True)  # Stripe's deleted object


# -- Slack: after a Python Slack server (``send_slack_message``...) ----------------------------
# https://api.slack.com/web#responses (``ok``), https://api.slack.com/methods/chat.postMessage,
# https://api.slack.com/methods/conversations.create, https://api.slack.com/methods/conversations.history
SLACK = [
    tool("create_slack_channel", {"name": S, "is_private": B}, ("name",), "Create a new Slack channel."),
    tool("list_slack_channels", {"limit": N}, (), "List the public channels of the Slack workspace."),
    tool("send_slack_message", {"channel": S, "text": S, "thread_ts": S}, ("channel", "text"),
         "Send a message to a Slack channel, or reply in a thread with thread_ts."),
    tool("get_slack_channel_messages", {"channel": S, "limit": N}, ("channel",),
         "Get recent messages of a Slack channel."),
    tool("delete_slack_message", {"channel": S, "ts": S}, ("channel", "ts"), "Delete a Slack message."),
]


async def test_an_unseen_slack_server_answers_in_the_web_apis_envelope(tmp_path):
    async with stdio_session(_world(tmp_path, SLACK, "chat")) as session:
        call = session.call_tool
        made = _json(await call("create_slack_channel", {"name": "launch"}))
        assert made["ok"] is True and re.match(r"C[A-Z0-9]{8,}$", made["channel"]["id"])
        posted = _json(await call("send_slack_message", {"channel": made["channel"]["id"], "text": "Go for launch"}))
        assert posted["ok"] is True and posted["channel"] == made["channel"]["id"]
        assert re.match(r"\d{10}\.\d{6}$", posted["ts"]) and posted["message"]["type"] == "message"
        history = _json(await call("get_slack_channel_messages", {"channel": made["channel"]["id"]}))
        assert history["ok"] is True and history["has_more"] is False
        assert [m["text"] for m in history["messages"]] == ["Go for launch"]
        deleted = _json(await call("delete_slack_message", {"channel": made["channel"]["id"], "ts": posted["ts"]}))
        assert deleted == {"ok": True, "channel": made["channel"]["id"], "ts": posted["ts"]}  # chat.delete


# -- Notion: after suekou/mcp-notion-server (``notion_*`` tools) -------------------------------
# https://developers.notion.com/reference/page, /post-search, /create-a-comment
NOTION = [
    tool("notion_create_database_item", {"database_id": S, "properties": {"type": "object"}},
         ("database_id", "properties"), "Create a new item (page) in a Notion database."),
    tool("notion_retrieve_block_children", {"block_id": S}, ("block_id",), "Retrieve the children of a Notion block."),
    tool("notion_search", {"query": S}, (), "Search pages or databases by title in Notion."),
    tool("notion_create_comment", {"parent": {"type": "object"}, "rich_text": {"type": "array"}},
         ("rich_text",), "Create a comment in Notion."),
]


async def test_an_unseen_notion_server_gets_notion_objects_urls_and_list_objects(tmp_path):
    async with stdio_session(_world(tmp_path, NOTION, "notes")) as session:
        call = session.call_tool
        title = {"Name": {"title": [{"text": {"content": "Launch plan"}}]}}
        page = _json(await call("notion_create_database_item", {"database_id": "d9824bdc-8445-4327-be8b-5b47500af6ce",
                                                                "properties": title}))
        assert page["object"] == "page" and UUID.match(page["id"])
        # https://www.notion.so/<title>-<id without dashes>
        assert page["url"] == f"https://www.notion.so/Launch-plan-{page['id'].replace('-', '')}"
        found = _json(await call("notion_search", {"query": "Launch"}))
        assert (found["object"], found["has_more"], found["next_cursor"]) == ("list", False, None)
        assert [r["id"] for r in found["results"]] == [page["id"]]
        comment = _json(await call("notion_create_comment", {"parent": {"page_id": page["id"]},
                                                             "rich_text": [{"text": {"content": "Looks good"}}]}))
        assert comment["object"] == "comment" and UUID.match(comment["id"]) and comment["created_time"]


# -- Linear: after jerhadf/linear-mcp-server (``linear_create_issue``...) ----------------------
# https://linear.app/docs/conceptual-model#issues, https://linear.app/developers/graphql
LINEAR = [
    tool("linear_create_issue", {"title": S, "teamId": S, "description": S, "priority": N}, ("title", "teamId"),
         "Creates a new Linear issue with specified details."),
    tool("linear_update_issue", {"id": S, "title": S, "priority": N}, ("id",), "Updates an existing Linear issue."),
    tool("linear_search_issues", {"query": S, "teamId": S}, (), "Searches Linear issues using flexible criteria."),
    tool("linear_add_comment", {"issueId": S, "body": S}, ("issueId", "body"), "Adds a comment to a Linear issue."),
]


async def test_an_unseen_linear_server_gets_uuids_identifiers_and_issue_urls(tmp_path):
    async with stdio_session(_world(tmp_path, LINEAR, "tracker")) as session:
        call = session.call_tool
        team = "0f1d2c3b-4a59-4687-9c0d-1e2f3a4b5c6d"
        issue = _json(await call("linear_create_issue", {"title": "Engine stalls", "teamId": team}))
        assert UUID.match(issue["id"]) and re.match(r"[A-Z]+-\d+$", issue["identifier"])
        assert re.match(rf"https://linear\.app/[\w-]+/issue/{issue['identifier']}/engine-stalls$", issue["url"])
        second = _json(await call("linear_create_issue", {"title": "Telemetry drops", "teamId": team}))
        assert second["id"] != issue["id"] and second["identifier"] != issue["identifier"]
        comment = _json(await call("linear_add_comment", {"issueId": issue["id"], "body": "Seen twice"}))
        assert UUID.match(comment["id"]) and comment["createdAt"].endswith("Z")


# -- Google Calendar: after a camelCase Google Calendar server (``createEvent``...) -------------
# https://developers.google.com/calendar/api/v3/reference/events (status, htmlLink, kind, id alphabet)
CALENDAR = [
    tool("createEvent", {"calendarId": S, "summary": S, "start": S, "end": S},
         ("summary", "start", "end"), "Create an event in Google Calendar (calendarId 'primary' by default)."),
    tool("getEvent", {"calendarId": S, "eventId": S}, ("eventId",), "Get a Google Calendar event."),
    tool("deleteEvent", {"calendarId": S, "eventId": S}, ("eventId",), "Delete a Google Calendar event."),
]


async def test_an_unseen_google_calendar_server_gets_confirmed_events_with_links(tmp_path):
    async with stdio_session(_world(tmp_path, CALENDAR, "agenda")) as session:
        call = session.call_tool
        event = _json(await call("createEvent", {"calendarId": "primary", "summary": "Launch review",
                                                 "start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"}))
        assert re.match(r"[a-v0-9]{5,1024}$", event["id"])  # base32hex, as the API's ids
        assert (event["status"], event["kind"]) == ("confirmed", "calendar#event")
        assert event["htmlLink"].startswith("https://www.google.com/calendar/event?eid=")
        read = _json(await call("getEvent", {"calendarId": "primary", "eventId": event["id"]}))
        assert read["htmlLink"] == event["htmlLink"]
        deleted = _json(await call("deleteEvent", {"calendarId": "primary", "eventId": event["id"]}))
        assert deleted["success"] is True and deleted["eventId"] == event["id"]


# -- GitHub: a branch and a pull request from another server's tools ---------------------------
# https://docs.github.com/en/rest/git/refs#create-a-reference, /pulls/pulls#create-a-pull-request
GITHUB = [
    tool("github_create_branch", {"owner": S, "repo": S, "branch_name": S, "from_branch": S},
         ("owner", "repo", "branch_name"), "Create a branch in a GitHub repository."),
    tool("github_create_pull_request", {"owner": S, "repo": S, "title": S, "head": S, "base": S},
         ("owner", "repo", "title", "head", "base"), "Open a pull request in a GitHub repository."),
    tool("github_get_pull_request", {"owner": S, "repo": S, "pull_number": N}, ("owner", "repo", "pull_number"),
         "Get a pull request of a GitHub repository."),
]


async def test_an_unseen_github_server_gets_refs_and_pull_request_urls(tmp_path):
    async with stdio_session(_world(tmp_path, GITHUB, "code")) as session:
        call = session.call_tool
        scope = {"owner": "acme", "repo": "rocket"}
        branch = _json(await call("github_create_branch", {**scope, "branch_name": "docs"}))
        assert branch["ref"] == "refs/heads/docs" and re.match(r"[0-9a-f]{40}$", branch["object"]["sha"])
        assert branch["url"] == "https://api.github.com/repos/acme/rocket/git/refs/heads/docs"
        pull = _json(await call("github_create_pull_request", {**scope, "title": "Docs", "head": "docs",
                                                               "base": "main"}))
        assert pull["html_url"] == f"https://github.com/acme/rocket/pull/{pull['number']}" and pull["state"] == "open"


# -- a "next" tool (general, no profile) ---------------------------------------------------------
CHORES = [
    tool("add_chore", {"title": S}, ("title",), "Add a chore."),
    tool("mark_chore_done", {"choreId": S}, ("choreId",), "Mark a chore as done."),
    tool("get_next_chore", {}, (), "Return the next pending chore (not done yet)."),
    tool("list_chores", {}, (), "List every chore."),
]


# -- Todoist: after abhiz123/todoist-mcp-server (``todoist_*`` tools) ----------------------------
# https://developer.todoist.com/api/v1/#tag/Tasks: ids are opaque strings of letters and digits
TODOIST = [
    tool("todoist_create_task", {"content": S, "description": S, "due_string": S, "priority": N}, ("content",),
         "Create a new task in Todoist with optional description, due date, and priority."),
    tool("todoist_get_tasks", {"project_id": S, "filter": S, "limit": N}, (),
         "Get a list of tasks from Todoist with various filters."),
    tool("todoist_complete_task", {"task_id": S}, ("task_id",), "Mark a Todoist task as complete."),
]


async def test_an_unseen_todoist_server_gets_todoists_opaque_ids(tmp_path):
    async with stdio_session(_world(tmp_path, TODOIST, "tasks")) as session:
        first = _json(await session.call_tool("todoist_create_task", {"content": "Buy milk", "priority": 2}))
        second = _json(await session.call_tool("todoist_create_task", {"content": "Call the bank"}))
        listed = _json(await session.call_tool("todoist_get_tasks", {}))
    assert all(re.fullmatch(r"[A-Za-z0-9]{16}", t["id"]) for t in (first, second)) and first["id"] != second["id"]
    assert first["checked"] is False  # a new task is not done yet
    assert {t["id"] for t in listed} == {first["id"], second["id"]}


async def test_a_next_tool_reads_the_first_pending_item_and_says_when_none_is_left(tmp_path):
    async with stdio_session(_world(tmp_path, CHORES, "chores")) as session:
        call = session.call_tool
        dishes = _json(await call("add_chore", {"title": "Dishes"}))
        _json(await call("add_chore", {"title": "Laundry"}))
        assert _json(await call("get_next_chore", {}))["title"] == "Dishes"  # one item, not a list
        done = _json(await call("mark_chore_done", {"choreId": dishes["id"]}))
        assert done["status"] == "done"  # ``mark_X_done`` leaves it done
        laundry = _json(await call("get_next_chore", {}))
        assert laundry["title"] == "Laundry"
        await call("mark_chore_done", {"choreId": laundry["id"]})
        nothing = await call("get_next_chore", {})
        assert not nothing.isError and "No pending chore" in nothing.content[0].text


_BOARD = {"type": "object", "properties": {"id": S, "key": S, "name": S}}


async def test_a_key_given_to_a_create_is_a_field_when_the_service_names_the_entity_by_id(tmp_path):
    # Linear's ``createTeam(name, key: ROC)`` answers ``{id, key}``: ``ROC`` is the team's key, not its id
    boards = [tool("create_board", {"name": S, "key": S}, ("name",), "Create a board.", output=_BOARD),
              tool("get_board", {"id": S}, ("id",), "Get a board.", output=_BOARD)]
    assert build(boards).roles["create_board"].key_args == ()
    async with stdio_session(_world(tmp_path, boards, "boards")) as session:
        made = (await session.call_tool("create_board", {"name": "Rocket", "key": "ROC"})).structuredContent
        assert made["key"] == "ROC" and made["id"] != "ROC"
        read = (await session.call_tool("get_board", {"id": made["id"]})).structuredContent
        assert (read["id"], read["key"]) == (made["id"], "ROC")


# -- detection -------------------------------------------------------------------------------

#: An inventory service that happens to sell products with prices and send invoices: not Stripe.
SHOP = [
    tool("create_product", {"name": S, "sku": S}, ("name",), "Add a product to the inventory."),
    tool("get_product", {"product_id": S}, ("product_id",), "Get a product."),
    tool("create_price", {"product_id": S, "amount": N}, ("product_id", "amount"), "Set a product's price."),
    tool("create_invoice", {"customer": S}, ("customer",), "Bill a customer."),
    tool("post_message", {"channel": S, "text": S}, ("channel", "text"), "Post a message to a team channel."),
]


async def test_a_catalog_of_no_known_service_gets_no_profile_and_no_borrowed_conventions(tmp_path):
    assert build(SHOP).service is None
    async with stdio_session(_world(tmp_path, SHOP, "inventory")) as session:
        call = session.call_tool
        product = _json(await call("create_product", {"name": "Widget"}))
        assert not product["id"].startswith("prod_") and "object" not in product and "livemode" not in product
        price = _json(await call("create_price", {"product_id": product["id"], "amount": 3}))
        assert not price["id"].startswith("price_")
        message = _json(await call("post_message", {"channel": "general", "text": "hi"}))
        assert "ok" not in message  # no Slack envelope for a channel that is not Slack's


def test_a_service_without_a_profile_still_gets_urls_from_the_brand_its_descriptions_name():
    gitlab = [tool(name, {"owner": S, "repo": S, **extra}, ("owner", "repo", *extra), f"{verb} in a GitLab project.")
              for name, extra, verb in (("create_issue", {"title": S}, "Create an issue"),
                                        ("get_issue", {"issue_number": N}, "Get an issue"),
                                        ("update_issue", {"issue_number": N, "title": S}, "Update an issue"))]
    issues = build(gitlab).entity("issues")
    assert issues is not None and issues.conventions.service is None
    assert issues.conventions.url == (("html_url", "url"), "https://gitlab.com/{owner}/{repo}/issues/{key}")


async def test_a_catalog_of_several_services_gives_each_tool_its_own_services_conventions(tmp_path):
    # a gateway catalog (one server in front of many apps): each tool's name says which service it is
    mixed = [SLACK[2], SLACK[3], STRIPE[0], STRIPE[1],
             tool("todo_add_item", {"title": S}, ("title",), "Add an item to the to-do list.")]
    assert build(mixed).service is None  # no service is the whole catalog's
    async with stdio_session(_world(tmp_path, mixed, "gateway")) as session:
        call = session.call_tool
        posted = _json(await call("send_slack_message", {"channel": "C0123456789", "text": "hi"}))
        assert posted["ok"] is True and posted["channel"] == "C0123456789"
        product = _json(await call("stripe_create_product", {"name": "Gold"}))
        assert product["id"].startswith("prod_") and "ok" not in product
        item = _json(await call("todo_add_item", {"title": "milk"}))
        assert "ok" not in item and "object" not in item and not item["id"].startswith(("prod_", "C"))


def test_a_service_named_by_a_few_tools_of_a_large_catalog_is_not_the_catalogs():
    # two tools of twenty mention Stripe in passing (a CRM linking payments): not a Stripe catalog (a fifth must)
    tools = [tool(f"crm_tool_{i}", {"id": S}, (), "Manage CRM records.") for i in range(18)]
    tools += [tool("link_payment", {"id": S}, (), "Link a Stripe payment."),
              tool("sync_invoice", {"id": S}, (), "Sync an invoice from Stripe.")]
    assert service_profiles.detect(tools) is None
    assert service_profiles.detect(tools, hint="stripe-billing") is service_profiles.PROFILES["stripe"]  # the world's name


@pytest.mark.parametrize("catalog, service", [
    ("stripe", "stripe"), ("slack", "slack"), ("notion", "notion"), ("linear", "linear"),
    ("calendar", "google_calendar"), ("github", "github"), ("github-official", "github"),
    ("jira", None), ("todoist", "todoist"), ("taskmanager", None), ("memory", None), ("redis", None),
])
def test_each_realism_catalog_is_recognised_as_its_service_or_as_none(catalog, service):
    tools = json.loads((REALISM_CATALOGS / f"{catalog}.json").read_text())["tools"]
    found = service_profiles.detect(tools)
    assert (found.name if found else None) == service


def test_every_convention_cites_the_public_page_it_comes_from():
    for profile in service_profiles.PROFILES.values():
        assert profile.doc.startswith("https://")
        for entity in profile.entities:
            assert entity.doc.startswith("https://"), (profile.name, entity.nouns)


def test_a_template_whose_placeholder_has_no_value_is_left_out_rather_than_guessed():
    values = {"owner": "acme", "branch_name": "docs"}
    out = service_profiles.rendered_fields({"ref": "refs/heads/{branch|branch_name}", "repo": "{owner}/{repo}",
                                            "object": {"type": "commit"}}, values)
    assert out == {"ref": "refs/heads/docs", "object": {"type": "commit"}}  # no ``repo``: it would be invented
    # a caller's value is put in as it is, never read as a template itself
    assert service_profiles.render("{title}", {"title": "{owner}"}) == "{owner}"
