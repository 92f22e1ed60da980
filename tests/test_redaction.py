"""Secrets never leave a recording session: not in the recording, the learned world, the report,
the export, or the logs at -vv; by name, by form, and wherever an answer echoes them.

The upstream is a real `agentworld-mcp serve` over streamable HTTP that needs its bearer token
and answers with the arguments it was given (a saved connection, then the list of them); the
client is a real MCP client talking to `agentworld-mcp -vv proxy --record` over stdio.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from agentworld_mcp.trajectories.redaction import (REDACTED, SECRET_PATTERNS, echo_forms, is_secret_name, redact,
                                                   redact_call, redact_text)

from . import thirdparty
from .conftest import CLI, free_port, listening, stdio_session

UPSTREAM_TOKEN = "upstream-bearer-7Qm2xK9pLw4ZtR8v"
#: Secret by name only: no pattern could tell them from ordinary words.
BY_NAME = {"accessKey": "plain-access-value-77", "password": "correct-horse-99",
           "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"}
#: Secret by form, under a name that says nothing.
BY_FORM = {
    "Stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Google": "AIzaSyD4x9Qk2mL7pR3tV8wY1zB6nC0eF5gH2jK",
    "Hugging Face": "hf_kTqWzRfJxLbNcYpHsDgMvAeUiOyPlKjHgFdSa",
    "GitLab": "glpat-x9Kq2LmN4pR7sT1vW3yZ",
    "GitHub": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "AWS key id": "AKIAIOSFODNN7EXAMPLE",
    "AWS secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "database password": "pw-Hunter2x",
}
NOTES = (f"stripe {BY_FORM['Stripe']}, maps {BY_FORM['Google']}, hub {BY_FORM['Hugging Face']}, "
         f"ci {BY_FORM['GitLab']} and {BY_FORM['GitHub']}; aws_access_key_id={BY_FORM['AWS key id']} "
         f"aws_secret_access_key={BY_FORM['AWS secret']}")
URL = f"postgres://ada:{BY_FORM['database password']}@db.internal:5432/app"
EVERY_SECRET = [UPSTREAM_TOKEN, *BY_NAME.values(), *BY_FORM.values(), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"]

WORLD = {
    "name": "connections", "scenario": "A team's saved service connections.",
    "tools": [
        {"name": "create_connection", "description": "Save a connection and return it.",
         "inputSchema": {"type": "object", "required": ["name"], "properties": {
             "name": {"type": "string"}, "url": {"type": "string"}, "accessKey": {"type": "string"},
             "private_key": {"type": "string"}, "password": {"type": "string"}, "notes": {"type": "string"}}}},
        {"name": "list_connections", "description": "List saved connections.",
         "inputSchema": {"type": "object", "properties": {}}},
    ],
}


def connection() -> dict[str, str]:
    return {"name": "issue-42", "url": URL, "notes": NOTES, **BY_NAME}


def leaked(text: str) -> list[str]:
    """The secrets ``text`` shows, in any form an echo may take (JSON-escaped, URL-encoded)."""
    return [secret for secret in EVERY_SECRET if any(form in text for form in echo_forms([secret]))]


def run_ok(*args: str) -> str:
    done = thirdparty.run_cli(*args)
    assert done.returncode == 0, done.stderr
    return done.stderr


async def test_no_secret_reaches_the_recording_the_learned_world_the_report_the_export_or_the_logs(
        tmp_path: Path) -> None:
    world = tmp_path / "connections.json"
    world.write_text(json.dumps(WORLD))
    recording, stderr = tmp_path / "real.jsonl", tmp_path / "proxy.stderr"
    port = free_port()
    upstream = [*CLI, "serve", str(world), "--transport", "http", "--port", str(port), "--auth-token", UPSTREAM_TOKEN]
    with listening(upstream, port) as url:
        params = StdioServerParameters(
            command=CLI[0], args=[*CLI[1:], "-vv", "proxy", "--url", url, "--record", str(recording),
                                  "--header", f"Authorization: Bearer {UPSTREAM_TOKEN}"], env=dict(os.environ))
        with stderr.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    created = await session.call_tool("create_connection", connection())
                    listed = await session.call_tool("list_connections", {})
    answers = "".join(getattr(block, "text", "") for block in [*created.content, *listed.content])
    assert not created.isError and not listed.isError
    assert len(leaked(answers)) == len(EVERY_SECRET) - 1  # the client sees every secret it sent (not the token)

    learned, report, export = tmp_path / "learned.json", tmp_path / "report.html", tmp_path / "samples.jsonl"
    run_ok("learn", str(recording), "-o", str(learned))
    run_ok("report", str(recording), "-o", str(report))
    run_ok("export", str(recording), "-o", str(export))
    outputs = {path.name: path.read_text() for path in (recording, learned, report, export, stderr)}
    assert {name: leaked(text) for name, text in outputs.items()} == {name: [] for name in outputs}

    assert "DEBUG mcp.client" in outputs["proxy.stderr"]  # -vv did log the messages, redacted
    recorded = [json.loads(line) for line in recording.read_text().splitlines()]
    call = next(line for line in recorded if line.get("tool") == "create_connection")
    assert call["arguments"]["name"] == "issue-42" and call["arguments"]["accessKey"] == REDACTED
    assert call["arguments"]["url"] == f"postgres://ada:{REDACTED}@db.internal:5432/app"
    assert "issue-42" in call["result"]["content"][0]["text"] and "issue-42" in outputs["report.html"]


async def test_a_recording_made_without_redaction_is_redacted_as_it_is_read(tmp_path: Path) -> None:
    """`serve --record` keeps what the agent sent; report, export and learn take the secrets out."""
    world = tmp_path / "connections.json"
    world.write_text(json.dumps(WORLD))
    recording = tmp_path / "sim.jsonl"
    async with stdio_session(str(world), "--record", str(recording)) as session:
        await session.call_tool("create_connection", connection())
        await session.call_tool("list_connections", {})
    assert leaked(recording.read_text())  # the raw file has them: the readers are what this tests

    report, export, learned = tmp_path / "report.html", tmp_path / "samples.jsonl", tmp_path / "learned.json"
    run_ok("report", str(recording), "-o", str(report), "--world", str(world))
    run_ok("export", str(recording), "-o", str(export))
    run_ok("learn", str(recording), "--catalog", str(world), "-o", str(learned))
    for path in (report, export, learned):
        assert leaked(path.read_text()) == [], path.name
    assert "issue-42" in report.read_text()


# -- the rules, one by one -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(BY_FORM))
def test_each_kind_of_credential_is_caught_by_its_form(kind: str) -> None:
    text = NOTES if kind != "database password" else URL
    assert BY_FORM[kind] in text and BY_FORM[kind] not in redact_text(text)


@pytest.mark.parametrize("value", [
    "sk-proj-Tq8wZk3LmN5pR7sV9xY2aB4cD6eF8gH0", "sk-ant-api03-abcdEFGH1234ijklMNOP5678",
    "xoxb-123456789012-abcdefABCDEF", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "rk_test_51HxYzAbCdEfGhIjKlMn", "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "Bearer 7Qm2xK9pLw4ZtR8vQm2x", "Authorization: Basic YWRhOmh1bnRlcjI=",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
])
def test_other_well_known_credential_forms_are_caught(value: str) -> None:
    secret = value.split()[-1] if value.startswith(("Bearer", "Authorization")) else value
    assert secret not in redact_text(f"see {value} here")


@pytest.mark.parametrize("text", [
    "issue-42", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "Token expired, sign in again",
    "https://example.com/docs/page?id=7&sort=asc", "sk-learn-tutorial", "ORD-2024-000123", "a basic plan",
])
def test_ordinary_ids_hashes_and_words_are_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize("name", ["token", "api_key", "apiKey", "X-API-Key", "accessKey", "access_key",
                                  "private_key", "privateKey", "client_secret", "clientSecret", "Authorization",
                                  "cookie", "session", "sessionId", "credentials", "passwd", "db-password"])
def test_secret_names_in_any_case_style_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["title", "keyword", "author", "token_count", "max_tokens", "pageToken",
                                  "next_page_token", "primary_key_field", "sessions_total"])
def test_ordinary_names_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_a_secret_argument_is_redacted_wherever_the_result_echoes_it() -> None:
    arguments = {"name": "ada", "credentials": {"user": "ada", "pin": "83920174"}, "apiKey": "quiet-value-123"}
    result = {"content": [{"type": "text", "text": json.dumps({"saved": "quiet-value-123", "pin": "83920174"})}],
              "structuredContent": {"echo": "key=quiet-value-123;", "token_count": 12}}
    kept_arguments, kept_result = redact_call(arguments, result)
    assert kept_arguments == {"name": "ada", "credentials": {"user": REDACTED, "pin": REDACTED}, "apiKey": REDACTED}
    assert "quiet-value-123" not in json.dumps(kept_result) and "83920174" not in json.dumps(kept_result)
    assert kept_result["structuredContent"]["token_count"] == 12


def test_values_under_secret_names_inside_text_are_redacted() -> None:
    text = 'GET /v1?access_token=abcd1234&page=2 {"password": "two words", "user": "ada"} api_key: xyz987'
    assert redact_text(text) == (f'GET /v1?access_token={REDACTED}&page=2 {{"password": "{REDACTED}", '
                                 f'"user": "ada"}} api_key: {REDACTED}')


def test_the_pattern_table_names_every_kind_it_catches() -> None:
    kinds = {what for what, _ in SECRET_PATTERNS}
    assert {"PEM private key block", "URL with a password", "JSON Web Token", "GitHub token"} <= kinds
    assert redact({"list": [1, None, True]}) == {"list": [1, None, True]}
