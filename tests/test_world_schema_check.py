"""The world loader's schema check (world/schema_check.py) gives check_schema's verdict and first error,
whatever valid schemas it has remembered before."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from agentworld_mcp.world.schema_check import SchemaChecker

#: Valid schemas, each beside a bad one that differs only where the checker names content alike
#: (descriptions, string examples) or deep inside a subschema it may have remembered.
PAIRS: list[tuple[Any, Any]] = [
    ({"type": "object", "description": "a user"}, {"type": "object", "description": 5}),
    ({"type": "string", "title": "t"}, {"type": "string", "title": ["t"]}),
    ({"properties": {"description": {"type": "string"}}}, {"properties": {"description": "a text, not a schema"}}),
    ({"properties": {"title": {"type": "string"}}}, {"properties": {"title": "words"}}),
    ({"type": "string", "examples": ["a", "a"]}, {"type": "string", "examples": "a"}),
    ({"dependentRequired": {"examples": ["a", "b"]}}, {"dependentRequired": {"examples": ["a", "a"]}}),
    ({"dependentRequired": {"examples": ["a"]}}, {"dependentRequired": {"examples": [1]}}),
    ({"$defs": {"examples": {"type": "integer"}}}, {"$defs": {"examples": ["a", "b"]}}),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "pattern": "^x"}}}},
     {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "pattern": "("}}}}),
    ({"anyOf": [{"type": "integer"}, {"enum": [1, True]}]}, {"anyOf": [{"type": "integer"}, {"enum": 1}]}),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"d": {"description": "x"}}},
     {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"d": {"description": False}}}),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"examples": ["a", "b"]}},
     {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"examples": ["a", "a"]}}),
    ({"const": {"description": "anything"}}, {"minLength": {"description": "anything"}}),
    ({"type": "object", "required": ["a"]}, {"type": "object", "required": ["a", "a"]}),
]


def _stock_error(schema: Any) -> jsonschema.SchemaError | None:
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc
    return None


def _checker_error(checker: SchemaChecker, schema: Any) -> jsonschema.SchemaError | None:
    try:
        checker.check(schema)
    except jsonschema.SchemaError as exc:
        return exc
    return None


@pytest.mark.parametrize(("good", "bad"), PAIRS)
def test_a_bad_schema_gets_check_schemas_first_error_even_after_its_valid_twin_was_checked(good: Any, bad: Any) -> None:
    assert _stock_error(good) is None and _stock_error(bad) is not None  # the pair is what it claims to be
    checker = SchemaChecker()
    assert _checker_error(checker, good) is None
    assert _checker_error(checker, {"type": "object", "properties": {"nested": good}}) is None
    for schema in (bad, {"type": "object", "properties": {"nested": bad}}):
        expected, found = _stock_error(schema), _checker_error(checker, schema)
        assert expected is not None and found is not None, schema
        assert (found.message, list(found.absolute_path), list(found.schema_path)) == (
            expected.message, list(expected.absolute_path), list(expected.schema_path))


def test_a_schema_the_checker_cannot_name_is_checked_in_full() -> None:
    checker = SchemaChecker()
    unhashable = {"type": "object", "default": {frozenset({1})}}  # a YAML set: not JSON, still a valid default
    assert _checker_error(checker, unhashable) is None and _stock_error(unhashable) is None
    bad = {"type": "object", "default": {frozenset({1})}, "properties": {"a": {"type": "strin"}}}
    found, expected = _checker_error(checker, bad), _stock_error(bad)
    assert found is not None and expected is not None and found.message == expected.message
