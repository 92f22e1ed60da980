"""The catalog-level entity model: what the whole catalog says about each tool's entity.

Catalogs here are small and written inline, shaped like the real servers they stand for
(a key-value store, a LangChain banking toolkit, a calendar, a GitHub-like tracker, a
payments API, a task manager, a consolidated ``method:`` tool). Nothing in the model knows
these names: every answer comes from the shapes and words of the catalog.
"""

from __future__ import annotations

import random

import jsonschema
import pytest

from agentworld_mcp import Simulator
from agentworld_mcp.world.catalog import Catalog
from agentworld_mcp.world.entities import build
from agentworld_mcp.state.ledger import Ledger, compound_key
from agentworld_mcp.world.world import World

S = {"type": "string"}
N = {"type": "number"}


def tool(name: str, props: dict, required: tuple = (), description: str = "", output: dict | None = None) -> dict:
    out = {"name": name, "description": description,
           "inputSchema": {"type": "object", "properties": props, "required": list(required)}}
    if output is not None:
        out["outputSchema"] = output
    return out


def roles(tools: list[dict]) -> dict:
    return build(tools).roles


KV = [
    tool("save", {"key": S, "value": S}, ("key", "value"), "Save a value under a key."),
    tool("get", {"key": S}, ("key",), "Get the value stored under a key."),
    tool("batch_delete", {"keys": {"type": "array", "items": S}}, ("keys",), "Delete several keys."),
]
BANK = [
    tool("open_account", {"owner_name": S, "currency": S}, ("owner_name", "currency"),
         "Open a bank account. Returns the account with its account_id and balance."),
    tool("get_account", {"account_id": S}, ("account_id",), "Get an account."),
    tool("close_account", {"account_id": S}, ("account_id",), "Close an account."),
]
CALENDAR = [
    tool("create-event", {"summary": S, "start": S, "path": S}, ("summary",), "Create a calendar event."),
    tool("get-event", {"eventId": S}, ("eventId",), "Get an event."),
    tool("list-events", {"calendarId": S}, (), "List events."),
]
TRACKER = [
    tool("create_issue", {"owner": S, "repo": S, "title": S}, ("owner", "repo", "title"),
         "Create a new issue in a GitHub repository"),
    tool("get_issue", {"owner": S, "repo": S, "issue_number": N}, ("owner", "repo", "issue_number"),
         "Get details of a specific issue in a GitHub repository."),
    tool("update_issue", {"owner": S, "repo": S, "issue_number": N, "title": S, "state": S},
         ("owner", "repo", "issue_number"), "Update an existing issue in a GitHub repository"),
    tool("list_issues", {"owner": S, "repo": S, "state": {"type": "string", "enum": ["open", "closed", "all"]}},
         ("owner", "repo"), "List issues in a GitHub repository with filtering options"),
]
PAYMENTS = [
    tool("create_customer", {"name": S, "email": S}, ("email",), "Create a customer (ids look like cus_NffrFeUfNV2Hib)."),
    tool("retrieve_customer", {"customer": S}, ("customer",), "Retrieve a customer."),
    tool("create_invoice", {"customer": S}, ("customer",), "Create an invoice (in_1MtHbELkdIwHu7ixl4OzzPMv)."),
    tool("finalize_invoice", {"invoice": S}, ("invoice",), "Finalize a draft invoice."),
]
CONSOLIDATED = [
    tool("manage_issue", {"method": {"type": "string", "enum": ["create", "get", "update", "delete", "list"]},
                          "issue_id": S, "title": S}, ("method",), "Manage issues, identified like ENG-42."),
]


def test_tools_of_one_store_named_after_verbs_share_one_collection():
    found = roles(KV)
    assert {r.collection for r in found.values()} == {"items"}
    assert (found["save"].kind, found["save"].key_args) == ("create", ("key",))  # the caller names the key
    assert (found["get"].kind, found["get"].key_args) == ("read", ("key",))
    assert (found["batch_delete"].kind, found["batch_delete"].batch_arg) == ("delete", "keys")


def test_a_sibling_read_names_the_key_a_create_described_as_returning_it_creates():
    found = roles(BANK)
    assert (found["open_account"].kind, found["open_account"].collection) == ("create", "accounts")
    assert {r.key_field for r in found.values()} == {"account_id"}
    assert found["close_account"].sets == {"status": "closed"}
    entity = build(BANK).entity("accounts")
    assert {"account_id", "balance", "owner_name", "currency"} <= entity.fields


def test_a_path_argument_does_not_make_a_calendar_event_a_file():
    found = roles(CALENDAR)
    assert {r.style for r in found.values()} == {"record"}
    assert found["create-event"].collection == "events" and found["create-event"].key_args == ()


def test_entities_keyed_within_their_parent_repository():
    model = build(TRACKER)
    issues = model.entity("issues")
    assert (issues.key_field, issues.scope, issues.key_type) == ("number", ("owner", "repo"), "integer")
    get = model.roles["get_issue"]
    assert get.key_of({"owner": "acme", "repo": "rocket", "issue_number": 3}) == compound_key("acme", "rocket", "3")
    assert get.key_of({"owner": "acme", "repo": "webapp", "issue_number": 3}) != get.key_of(
        {"owner": "acme", "repo": "rocket", "issue_number": 3})
    # a GitHub catalog: the issue's page comes from GitHub's published profile (world/service_profiles.py)
    assert issues.conventions.service == "github"
    assert issues.conventions.starting["html_url"] == "https://github.com/{owner}/{repo}/issues/{number}"
    assert (issues.conventions.status_field, issues.conventions.initial_status) == ("state", "open")


def test_numbers_run_per_scope_in_the_ledger():
    ledger = Ledger()
    from agentworld_mcp.state.ledger import Effect

    ledger.apply([Effect("create", "issues", compound_key("acme", "rocket", "1"), {"number": 1}),
                  Effect("create", "issues", compound_key("acme", "rocket", "2"), {"number": 2})], turn=1)
    assert ledger.next_number("issues", ("acme", "rocket")) == 3
    assert ledger.next_number("issues", ("acme", "webapp")) == 1


def test_id_prefixes_and_lifecycles_come_from_the_catalog_text():
    model = build(PAYMENTS)
    assert model.entity("customers").conventions.id_prefix == "cus_"
    assert model.entity("invoices").conventions.id_prefix == "in_"
    assert (model.roles["retrieve_customer"].kind, model.roles["retrieve_customer"].key_args) == ("read", ("customer",))
    finalize = model.roles["finalize_invoice"]
    assert (finalize.kind, finalize.sets) == ("update", {"status": "open"})
    assert model.entity("invoices").conventions.initial_status == "draft"  # finalize moves a draft to open


def test_an_action_argument_selects_the_role_of_each_call():
    catalog = Catalog(World.from_tools(CONSOLIDATED))
    spec = catalog["manage_issue"]
    kinds = {v: spec.role_for({"method": v}).kind for v in ("create", "get", "update", "delete", "list")}
    assert kinds == {"create": "create", "get": "read", "update": "update", "delete": "delete", "list": "list"}
    assert {spec.role_for({"method": v}).collection for v in kinds} == {"issues"}
    assert spec.role_for({"method": "get"}).key_args == ("issue_id",)
    assert spec.role_for({}) == spec.role  # no action argument: the default role
    assert catalog.model.entity("issues").conventions.identifier == ("identifier", "ENG")


def test_meta_override_still_has_the_last_word():
    steered = [*KV[:2], {**KV[2], "_meta": {"agentworld/role": {"collection": "trash"}}}]
    assert roles(steered)["batch_delete"].collection == "trash"


# -- the entity-rendering bug -----------------------------------------------------------------------------


NOTE_OUTPUT = {"type": "object", "properties": {
    "id": S, "title": S, "tags": {"type": "array", "items": S},
    "comments": {"type": "array", "items": {"type": "object", "properties": {"body": S}}}},
    "required": ["id", "title", "tags"]}


@pytest.mark.parametrize("name", ["create_note", "get_note", "update_note", "delete_note"])
async def test_an_entity_with_an_array_field_is_rendered_as_the_entity(name):
    """An output with an array property (``tags: [string]``) is not a list of entities: creating a
    note used to render the array's item schema as the note (``dictionary update sequence element``)."""
    tools = [tool(n, {"id": S, "title": S} if n != "create_note" else {"title": S}, (), "", NOTE_OUTPUT)
             for n in ("create_note", "get_note", "update_note", "delete_note")]
    sim = Simulator(World.from_tools(tools), seed=1)
    created = await sim.call("create_note", {"title": "Groceries"})
    assert not created.is_error, created.text
    jsonschema.validate(created.structured, NOTE_OUTPUT)
    assert created.structured["title"] == "Groceries" and isinstance(created.structured["tags"], list)
    if name != "create_note":
        args = {"id": created.structured["id"], **({"title": "Shopping"} if name == "update_note" else {})}
        result = await sim.call(name, args)
        assert not result.is_error and not result.is_simulator_error, result.text
        jsonschema.validate(result.structured, NOTE_OUTPUT)
        assert result.structured["id"] == created.structured["id"]


async def test_every_tool_of_catalogs_with_array_outputs_answers_without_simulator_errors():
    """A sweep of generated calls over tools whose outputs carry arrays of scalars and of objects."""
    from agentworld_mcp.world import values

    tools = [tool(f"{verb}_note", {"id": S, "title": S, "tags": {"type": "array", "items": S}}, (), "", NOTE_OUTPUT)
             for verb in ("create", "get", "update", "delete", "list", "search")]
    sim = Simulator(World.from_tools(tools), seed=2)
    for spec in sim.catalog:
        for i in range(10):
            args = values.generate(spec.input_schema, random.Random(f"{spec.name}{i}"))
            result = await sim.call(spec.name, args)
            assert not result.is_simulator_error, (spec.name, result.text)
            if not result.is_error:
                jsonschema.validate(result.structured, NOTE_OUTPUT)


def test_a_url_shown_in_the_catalog_is_rebuilt_with_the_scope_and_key():
    tools = [
        tool("create_ticket", {"project": S, "title": S}, ("project", "title"),
             "Create a ticket. Returns its url, e.g. https://tracker.example.com/rocket/tickets/12"),
        tool("get_ticket", {"project": S, "ticket_id": S}, ("project", "ticket_id"), "Get a ticket."),
    ]
    tickets = build(tools).entity("tickets")
    assert tickets.scope == ("project",)
    assert tickets.conventions.url == (("url",), "https://tracker.example.com/{project}/tickets/{key}")


def test_a_type_argument_naming_entities_selects_the_collection():
    tools = [
        tool("create_task", {"content": S}, ("content",), "Create a task."),
        tool("create_project", {"name": S}, ("name",), "Create a project."),
        tool("fetch_object", {"type": {"type": "string", "enum": ["task", "project"]}, "id": S}, ("type", "id"),
             "Fetch an object by its ID."),
    ]
    spec = Catalog(World.from_tools(tools))["fetch_object"]
    assert spec.role_for({"type": "task", "id": "x"}).collection == "tasks"
    assert spec.role_for({"type": "project", "id": "x"}).collection == "projects"
    assert spec.role_for({"type": "project", "id": "x"}).kind == "read"


def test_a_set_of_a_store_nothing_creates_in_writes_new_keys():
    tools = [tool("set", {"key": S, "value": S}, ("key", "value"), "Set a value."),
             tool("get", {"key": S}, ("key",), "Get a value.")]
    found = roles(tools)
    assert (found["set"].kind, found["set"].collection, found["set"].extra.get("upsert")) == ("update", "items", True)


NAMESPACED = [
    tool("notebook_store_write_note", {"name": S, "text": S, "tags": {"type": "array", "items": S}}, ("name", "text"),
         "Write a note."),
    tool("notebook_store_read_note", {"name": S}, ("name",), "The note of that name."),
    tool("notebook_store_search_by_tags", {"tags": {"type": "array", "items": S}}, ("tags",),
         "Notes carrying every tag given."),
]


def test_words_every_tool_name_starts_with_are_a_namespace_not_the_verb() -> None:
    # the server's name before each tool (two words here) is not what the tool does
    found = roles(NAMESPACED)
    assert found["notebook_store_search_by_tags"].kind == "search"
    assert found["notebook_store_read_note"].kind == "read"
    # a shared leading verb is still a verb
    assert roles([tool("get_a", {"id": S}), tool("get_b", {"id": S}), tool("get_c", {"id": S})])["get_a"].kind == "read"
