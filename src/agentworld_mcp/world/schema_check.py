"""Is this a valid JSON Schema? The check of every tool schema when a world loads, with each
distinct subschema checked once.

``Validator.check_schema`` validates a schema against its draft's meta-schema, which walks every
subschema again through ``$dynamicRef: "#meta"`` (2020-12) or ``$ref: "#"`` (draft 7). A world
imported from a large API description repeats the same subschemas (a user, a repository) in
hundreds of tools, and the check cost seconds per megabyte. :class:`SchemaChecker` is the same
check by the same library, with one change: a subschema whose content was already found valid
against the meta-schema is not walked again. Only successes are remembered, so a bad schema
gets exactly the error ``check_schema`` raises (the same first error, message and path).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema
# jsonschema's own source of the meta-schemas (a dependency of it); the package ships no type hints.
from jsonschema_specifications import REGISTRY as _SPECIFICATIONS  # type: ignore[import-untyped]

META_SCHEMAS: referencing.Registry[Any] = _SPECIFICATIONS

#: The keyword through which each meta-schema reaches a subschema, and the one reference value
#: whose target is always the meta-schema's root (so a subschema's validity depends on its content alone).
_RECURSION: dict[type[Any], tuple[str, str]] = {
    jsonschema.Draft202012Validator: ("$dynamicRef", "#meta"),
    jsonschema.Draft7Validator: ("$ref", "#"),
}
#: Keys whose string values are the same to every meta-schema whatever they say: as keywords each
#: must be a string, and anywhere else (a property named "description") a string is valid whatever
#: it says (const, enum, examples) or invalid whatever it says (a schema expected). An API's schemas
#: differ mostly by their descriptions, so naming all such strings alike lets them share one check.
_PROSE_KEYS = frozenset({"description", "title", "$comment"})
_PROSE = -1  # the content id of any such string (real content ids count up from 0)
#: Likewise a list of strings under "examples": an array of anything as the keyword; a schema expected
#: as a property's name; under dependentRequired (draft 7: dependencies) valid if its strings are distinct.
_DISTINCT_STRINGS, _REPEATED_STRINGS = -2, -3
_Keyword = Callable[[Any, Any, Any, Any], Iterator[jsonschema.ValidationError]]


class SchemaChecker:
    """``check_schema`` for the many schemas of one world; keep it only while they are alive
    (subschemas are remembered by identity as well as by content)."""

    def __init__(self) -> None:
        self._ids: dict[Hashable, int] = {}  # content (children as ids) -> content id
        self._by_object: dict[int, tuple[Any, int | None]] = {}  # id(obj) -> (obj, its content id)
        self._valid: dict[type[Any], set[int]] = {}  # by draft: what one draft allows another may not
        self._validators: dict[type[Any], Any] = {}

    def check(self, schema: Any) -> None:
        """Raise :class:`jsonschema.SchemaError` exactly as ``validator_for(schema).check_schema(schema)`` does."""
        cls = jsonschema.validators.validator_for(schema)
        if cls not in _RECURSION:
            cls.check_schema(schema)
            return
        valid = self._valid.setdefault(cls, set())
        key = self._content_id(schema)
        if key is not None and key in valid:  # the same schema as another tool's
            return
        validator = self._validators.get(cls) or self._validators.setdefault(cls, self._validator(cls, valid))
        for error in validator.iter_errors(schema):
            raise jsonschema.SchemaError.create_from(error)
        if key is not None:
            valid.add(key)

    def _validator(self, cls: type[Any], valid: set[int]) -> Any:
        keyword, target = _RECURSION[cls]
        original: _Keyword = cls.VALIDATORS[keyword]

        def remembered(validator: Any, ref: Any, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
            key = self._content_id(instance) if ref == target else None
            if key is not None and key in valid:
                return
            failed = False
            for error in original(validator, ref, instance, schema):
                failed = True
                yield error
            if not failed and key is not None:
                valid.add(key)

        root, registry = _meta_schema(cls)
        checker = jsonschema.validators.extend(cls, {keyword: remembered})
        return checker(root, registry=registry, format_checker=cls.FORMAT_CHECKER)

    def _content_id(self, value: Any) -> int | None:
        """A number naming ``value``'s content (equal content, equal number); None when it cannot be named."""
        try:
            return self._intern(value)
        except (TypeError, RecursionError):  # an unhashable scalar (a YAML set), or too deep: check it in full
            return None

    def _entry(self, key: Any, value: Any) -> int:
        """The content id of ``value`` under ``key``, the same for values no meta-schema tells apart there."""
        if key in _PROSE_KEYS and isinstance(value, str):
            return _PROSE
        if key == "examples" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            return _DISTINCT_STRINGS if len(set(value)) == len(value) else _REPEATED_STRINGS
        return self._intern(value)

    def _intern(self, value: Any) -> int:
        if isinstance(value, (dict, list)):
            known = self._by_object.get(id(value))
            if known is not None:
                if known[1] is None:
                    raise TypeError("not nameable")
                return known[1]
            try:
                if isinstance(value, dict):  # keys typed too: 1 and True are equal in Python, not in JSON
                    key: Hashable = ("{", tuple((type(k), k, self._entry(k, v)) for k, v in value.items()))
                else:
                    key = ("[", tuple(self._intern(v) for v in value))
            except (TypeError, RecursionError):
                self._by_object[id(value)] = (value, None)
                raise
            found = self._ids.setdefault(key, len(self._ids))
            self._by_object[id(value)] = (value, found)
            return found
        return self._ids.setdefault((type(value), value), len(self._ids))  # typed: True, 1 and 1.0 differ


_META: dict[type[Any], tuple[dict[str, Any], referencing.Registry[Any]]] = {}


def _meta_schema(cls: type[Any]) -> tuple[dict[str, Any], referencing.Registry[Any]]:
    """The draft's meta-schema documents without their ``$schema``, so the extended validator stays
    in charge as it descends into them (a ``$schema`` would hand over to the stock validator class)."""
    if cls not in _META:
        _META[cls] = _load_meta_schema(cls)
    return _META[cls]


def _load_meta_schema(cls: type[Any]) -> tuple[dict[str, Any], referencing.Registry[Any]]:
    root_uri = str(cls.META_SCHEMA["$id"]).rstrip("#")
    folder = root_uri.rsplit("/", 1)[0] + "/"
    spec = referencing.jsonschema.specification_with(root_uri)
    registry: referencing.Registry[Any] = referencing.Registry()
    for uri in META_SCHEMAS:
        if uri == root_uri or uri.startswith(folder + "meta/"):  # 2020-12's vocabularies: .../2020-12/meta/core
            contents = {k: v for k, v in META_SCHEMAS.contents(uri).items() if k != "$schema"}
            registry = registry.with_resource(uri, spec.create_resource(contents))
    root = registry.contents(root_uri)
    return root, registry.crawl()
