"""``agentworld-mcp enrich``: a language world model asked once, its answers written into the world.

A bank's MCP server declares no outputSchemas, so on its own the deterministic model cannot
know what ``open_account`` returns. A scripted OpenAI-compatible server plays the language
world model (it answers each call the way a service would, with Qwen-style thinking first);
``agentworld-mcp enrich`` runs as a user runs it, and ``agentworld-mcp serve`` on the
enriched world then answers in the shapes the model showed, through a real MCP client.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from agentworld_mcp import load_world
from agentworld_mcp.world.catalog import Catalog

from .conftest import CLI, free_port, stdio_session
from .fake_openai import FakeOpenAI, Reply
from .test_llm_e2e import MODEL, SAMPLING, llama_server  # noqa: F401  (the session's llama.cpp server)

SHAPE = "agentworld/output_shape"
ROLE = "agentworld/role"

BANK = """\
# A bank's account service, as its real MCP server lists it: no outputSchemas.
name: bank
scenario: A retail bank's account service.
tools:
  - name: open_account
    description: Open an account. Returns the account with its account_id and balance.
    inputSchema:
      type: object
      properties: {owner_name: {type: string}, currency: {type: string, enum: [EUR, USD]}}
      required: [owner_name, currency]
  - name: get_account
    description: Get an account by its id.
    inputSchema: {type: object, properties: {account_id: {type: string}}, required: [account_id]}
  - name: list_accounts
    description: List the bank's accounts, optionally in one currency.
    inputSchema: {type: object, properties: {currency: {type: string, enum: [EUR, USD]}}}
  - name: recent_activity
    description: The latest transactions on any account.
    inputSchema: {type: object, properties: {}}
  - name: get_rates
    description: Current exchange rates.
    inputSchema: {type: object, properties: {}}
  - name: ping
    description: Check that the service is up.
    inputSchema: {type: object, properties: {}}
backend: {type: schema, seed: 3}
"""


def action(body: dict) -> tuple[str, dict]:
    """The call a completion request asks about: the json block of its last user turn."""
    text = body["messages"][-1]["content"]
    call = json.loads(re.search(r"```json\n(.*?)\n```", text, re.DOTALL).group(1))
    return call["name"], call["arguments"]


def observed(value: object) -> Reply:
    """An answer in Qwen-AgentWorld's format: thinking, then the observation."""
    return Reply(content=f"<think>What would the bank answer?</think>\n**Environment Observation:**\n{json.dumps(value)}")


def bank_model(body: dict) -> Reply:
    """A world model that knows the bank: new accounts get an id and start at balance 0."""
    name, args = action(body)
    turn = len([m for m in body["messages"] if m["role"] == "user"])
    if name == "open_account":
        return observed({"account_id": f"acc_{turn}", **args, "balance": 0, "status": "open"})
    if name == "get_account":
        return observed({"account_id": args["account_id"], "owner_name": "Ada Lovelace", "currency": "EUR",
                         "balance": 120.5, "status": "open"})
    if name == "list_accounts":
        return observed({"accounts": [{"account_id": "acc_1", "currency": "EUR", "balance": 1}], "total": 1})
    if name == "recent_activity":
        return observed({"transactions": [{"transaction_id": "tx_1", "account_id": "acc_1", "amount": 5.0}],
                         "total": 1})
    if name == "get_rates":
        return Reply(content="Sure! Here are today's rates: EUR is strong.")  # chatter, not an answer
    return Reply(content="<think>The service is up, so I should answer", finish_reason="length")  # cut off


def enrich(world: Path, out: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "enrich", str(world), "-o", str(out), *args], check=False, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "AGENTWORLD_BASE_URL": "", "AGENTWORLD_MODEL": ""})


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    path = tmp_path / "bank.yaml"
    path.write_text(BANK)
    return path


@pytest.fixture(scope="module")
def enriched(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str], FakeOpenAI]:
    """One enrichment run of the bank; the tests below read what it wrote and printed."""
    folder = tmp_path_factory.mktemp("bank")
    bank, out = folder / "bank.yaml", folder / "bank.enriched.yaml"
    bank.write_text(BANK)
    with FakeOpenAI(default=bank_model) as server:
        done = enrich(bank, out, "--base-url", server.url, "--model", "qwen-agentworld")
    assert done.returncode == 0, done.stderr
    return out, done, server


def tools_of(path: Path) -> dict[str, dict]:
    return {t["name"]: t for t in yaml.safe_load(path.read_text())["tools"]}


def test_each_tool_is_asked_in_the_world_models_trained_format(enriched):
    _, _, server = enriched
    asked = [action(body) for body in server.requests]
    assert {name for name, _ in asked} == {"open_account", "get_account", "list_accounts", "recent_activity",
                                           "get_rates", "ping"}
    first = server.requests[0]
    assert first["model"] == "qwen-agentworld"
    assert first["messages"][0]["role"] == "system" and "Tool World Model" in first["messages"][0]["content"]
    assert first["messages"][-1]["content"].startswith("### Turn ")
    # the second example call of a tool is the next turn of the same session, after the first answer
    second = next(b for b in server.requests if action(b)[0] == "open_account" and len(b["messages"]) > 2)
    assert second["messages"][2]["content"].startswith("**Environment Observation:**")


def test_output_shapes_are_inferred_from_the_answers_and_stored_in_meta_not_as_output_schema(enriched):
    out, _, _ = enriched
    tools = tools_of(out)
    for name in ("open_account", "get_account", "list_accounts"):
        assert "outputSchema" not in tools[name]  # the real server declares none
    shape = tools["open_account"]["_meta"][SHAPE]
    assert set(shape["required"]) == {"account_id", "owner_name", "currency", "balance", "status"}
    assert shape["properties"]["balance"] == {"type": "integer", "default": 0}  # the state new accounts start in
    assert shape["properties"]["status"]["default"] == "open"
    listed = tools["list_accounts"]["_meta"][SHAPE]
    assert listed["properties"]["accounts"]["items"]["properties"]["account_id"] == {"type": "string"}


def test_roles_get_only_the_fields_the_answers_make_certain(enriched):
    out, _, _ = enriched
    before = Catalog(load_world(out.parent / "bank.yaml"))
    after = Catalog(load_world(out))
    written = {name: tool["_meta"][ROLE] for name, tool in tools_of(out).items() if ROLE in tool.get("_meta", {})}
    for name, fields in written.items():  # nothing the catalog already knew
        assert all(getattr(before[name].role, f) != (tuple(v) if isinstance(v, list) else v) for f, v in fields.items())
    # an opaque tool that answered a list of transactions is a list of them
    assert written["recent_activity"] == {"kind": "list", "items_field": "transactions", "count_fields": ["total"]}
    assert after["recent_activity"].role.kind == "list"
    assert (after["open_account"].role.kind, after["open_account"].role.key_field) == ("create", "account_id")
    listed = after["list_accounts"].role
    assert (listed.items_field, listed.count_fields) == ("accounts", ("total",))


def test_answers_become_demonstrations_and_the_rest_of_the_file_is_kept_in_order(enriched):
    out, done, _ = enriched
    bank = out.parent / "bank.yaml"
    data = yaml.safe_load(out.read_text())
    assert list(data) == ["name", "scenario", "tools", "backend", "demonstrations"]
    assert [t["name"] for t in data["tools"]] == [t["name"] for t in yaml.safe_load(BANK)["tools"]]
    demos = data["demonstrations"]
    assert {d["tool"] for d in demos} == {"open_account", "get_account", "list_accounts", "recent_activity"}
    opened = [d for d in demos if d["tool"] == "open_account"]
    assert len(opened) == 2 and all(d["response"]["owner_name"] == d["arguments"]["owner_name"] for d in opened)
    assert bank.read_text() == BANK  # the input is never touched
    assert load_world(out).demonstrations  # a valid world file
    assert re.search(r"enriched 4 of 6 tools \(4 output shapes, \d roles?\), skipped 2, demonstrations added: 7",
                     done.stdout)
    assert "YAML comments of bank.yaml are not carried over" in done.stdout


def test_garbage_answers_are_skipped_with_a_warning_naming_the_tool(enriched):
    out, done, _ = enriched
    tools = tools_of(out)
    assert "_meta" not in tools["get_rates"] and "_meta" not in tools["ping"]
    assert re.search(r"warning: get_rates: skipped: answer 1: not JSON: \"Sure! Here are", done.stderr)
    assert re.search(r"warning: ping: skipped: .*cut off by max_tokens", done.stderr)
    assert "Traceback" not in done.stderr


async def test_the_deterministic_model_then_answers_in_the_inferred_shapes(enriched):
    out, _, _ = enriched
    tools = tools_of(out)
    async with stdio_session(str(out)) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert listed["open_account"].outputSchema is None  # tools/list stays what the real server lists

        opened = await session.call_tool("open_account", {"owner_name": "Grace Hopper", "currency": "USD"})
        assert not opened.isError and opened.structuredContent is None  # text, as the real server
        account = json.loads(opened.content[0].text)
        jsonschema.validate(account, tools["open_account"]["_meta"][SHAPE])
        assert account["owner_name"] == "Grace Hopper" and account["balance"] == 0 and account["status"] == "open"

        read = await session.call_tool("get_account", {"account_id": account["account_id"]})
        assert json.loads(read.content[0].text) == account

        page = json.loads((await session.call_tool("list_accounts", {})).content[0].text)
        jsonschema.validate(page, tools["list_accounts"]["_meta"][SHAPE])
        assert page["accounts"] == [account] and page["total"] == 1


def test_json_worlds_stay_json_and_only_the_chosen_tools_are_asked(bank, tmp_path):
    source = tmp_path / "bank.json"
    source.write_text(json.dumps(yaml.safe_load(BANK), indent=2))
    with FakeOpenAI(default=bank_model) as server:
        done = enrich(source, source, "--base-url", server.url, "--tools", "get_*", "--calls", "1")
    assert done.returncode == 0, done.stderr
    assert {action(b)[0] for b in server.requests} == {"get_account", "get_rates"}
    data = json.loads(source.read_text())  # -o naming the input overwrites it, as asked
    assert SHAPE in data["tools"][1]["_meta"] and "_meta" not in data["tools"][0]
    assert len(data["demonstrations"]) == 1


def test_a_dead_endpoint_is_one_clear_error_and_nothing_is_written(bank, tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "never.yaml"
    done = enrich(bank, out, "--base-url", url, "--model", "qwen-agentworld", "--timeout", "5")
    assert done.returncode == 1
    assert f"cannot get answers from the world model at {url}" in done.stderr
    assert "Check that the model server is running and reachable" in done.stderr
    assert "Nothing was written" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


def test_no_endpoint_at_all_says_how_to_give_one(bank, tmp_path):
    done = enrich(bank, tmp_path / "never.yaml")
    assert done.returncode == 1
    assert "pass --base-url http://HOST:PORT/v1" in done.stderr


@pytest.mark.slow
def test_a_real_small_model_enriches_the_bank_into_a_valid_world(llama_server, tmp_path):
    """Gemma 3 270M is far too weak to judge the answers by; the command must still finish and
    write a world that loads, whatever the model says."""
    data = yaml.safe_load(BANK)
    data["backend"] = {**data["backend"], "extra_body": SAMPLING}
    source, out = tmp_path / "bank.yaml", tmp_path / "bank.enriched.yaml"
    source.write_text(yaml.safe_dump(data, sort_keys=False))
    done = enrich(source, out, "--base-url", llama_server, "--model", MODEL, "--max-tokens", "120", "--timeout", "600",
                  "--tools", "open_account,list_accounts", "--calls", "1", "--concurrency", "1", timeout=900)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    world = load_world(out)
    for tool in world.tools:
        shape = (tool.get("_meta") or {}).get(SHAPE)
        if shape is not None:
            jsonschema.Draft202012Validator.check_schema(shape)
    assert re.search(r"enriched \d of 2 tools", done.stdout)
