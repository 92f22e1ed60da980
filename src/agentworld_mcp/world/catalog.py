"""A world's tools, compiled once: validators, inferred roles, quick lookup.

The MCP SDK rebuilds a jsonschema validator on every call (about three quarters of a
small tool's stdio round trip); compiling them once per world is what keeps the server's
overhead close to a bare SDK server.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, TypeVar

import jsonschema
from jsonschema.protocols import Validator

from .entities import EntityModel, Selector, build
from .patterns import bounded, time_budget
from .roles import ToolRole, infer_role
from .world import World

JSONDict = dict[str, Any]
T = TypeVar("T")

_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def compile_schema(schema: JSONDict) -> Validator:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return _nullable(bounded(cls))(schema, format_checker=_FORMATS)  # patterns in bounded time (see .patterns)


@cache
def _nullable(cls: Any) -> Any:
    """``cls`` honouring OpenAPI 3.0's ``nullable: true``: servers generated from such specs list it, and accept null."""
    plain = cls.VALIDATORS["type"]

    def type_or_null(validator: Any, types: Any, instance: Any, schema: JSONDict) -> Any:
        if instance is None and schema.get("nullable") is True:
            return
        yield from plain(validator, types, instance, schema)

    return jsonschema.validators.extend(cls, {"type": type_or_null})


@dataclass
class ToolSpec:
    """One tool of the catalog and everything derived from its definition."""

    definition: JSONDict
    #: The role inferred with the whole catalog in view (None: infer from this tool alone).
    catalog_role: ToolRole | None = field(default=None, repr=False)
    #: For a consolidated tool: the argument naming the operation and the role of each value.
    selector: Selector | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.definition["name"]

    @property
    def description(self) -> str:
        return self.definition.get("description") or ""

    @property
    def input_schema(self) -> JSONDict:
        return self.definition.get("inputSchema") or {"type": "object"}

    @property
    def output_schema(self) -> JSONDict | None:
        return self.definition.get("outputSchema")

    @property
    def annotations(self) -> JSONDict:
        return self.definition.get("annotations") or {}

    @cached_property
    def input_validator(self) -> Validator:
        return compile_schema(self.input_schema)

    @cached_property
    def output_validator(self) -> Validator | None:
        schema = self.output_schema
        return compile_schema(schema) if schema is not None else None

    @cached_property
    def role(self) -> ToolRole:
        """The tool's default role (a consolidated tool's role when its action argument is absent)."""
        return self.catalog_role if self.catalog_role is not None else infer_role(self.definition)

    def role_for(self, arguments: Any) -> ToolRole:
        """The role of one call: the operation an action argument (``method: create``) selects, else the default."""
        if self.selector is None or not isinstance(arguments, dict):
            return self.role
        return self.selector.role_for(arguments, self.role)

    def argument_problems(self, arguments: Any) -> list[str]:
        """Validation problems of ``arguments``, each naming the field, worded like MCP servers do."""
        if not isinstance(arguments, dict):
            return [f"arguments must be an object, got {type(arguments).__name__}"]
        try:
            with time_budget():  # the caller picks the values: all their patterns share one bound
                return [_problem(e) for e in sorted(self.input_validator.iter_errors(arguments), key=_order)]
        except RecursionError:
            return ["(arguments): nested too deeply to validate"]

    def output_problems(self, value: Any) -> list[str]:
        if self.output_validator is None:
            return []
        return [_problem(e) for e in sorted(self.output_validator.iter_errors(value), key=_order)]


def _order(error: jsonschema.ValidationError) -> list[str]:
    return [str(p) for p in error.absolute_path]


def _problem(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        missing = [r for r in required if r not in error.instance]
        name = ".".join([path, missing[0]] if path else [missing[0]]) if missing else path
        return f"{name}: Field required ({error.message})"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}) if isinstance(error.schema, dict) else {})
        extra = sorted(k for k in error.instance if k not in allowed)
        name = ".".join([path, extra[0]] if path else [extra[0]]) if extra else path
        return f"{name}: Extra inputs are not permitted ({error.message})"
    return f"{path or '(arguments)'}: {error.message}"


class Catalog:
    """The compiled tool catalog of a world."""

    def __init__(self, world: World) -> None:
        self.world = world
        #: Roles, entities and selectors, read from the whole catalog once (see :mod:`.entities`).
        self.model: EntityModel = build(world.tools, seed=world.seed, examples=_demonstrated(world),
                                        hint=world.name)  # a world named "stripe-sandbox" names its service
        self.specs: dict[str, ToolSpec] = {
            t["name"]: ToolSpec(t, self.model.roles.get(t["name"]), self.model.selectors.get(t["name"]))
            for t in world.tools
        }
        self._derived: dict[Hashable, Any] = {}

    def __getitem__(self, name: str) -> ToolSpec:
        return self.specs[name]

    def get(self, name: str) -> ToolSpec | None:
        return self.specs.get(name)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self.specs.values())

    def __len__(self) -> int:
        return len(self.specs)

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """A value derived from the world once and kept with its catalog (a system prompt, a wording).

        Derived data lives here, in the compiled catalog, not on the world: a world is plain data.
        """
        try:
            return self._derived[key]  # type: ignore[no-any-return,unused-ignore]  # one cache, many types
        except KeyError:
            value = self._derived[key] = build()
            return value

    def warm(self) -> Catalog:
        """Compile every validator now, so the first calls are as fast as the rest."""
        for spec in self:
            spec.input_validator, spec.output_validator, spec.role  # noqa: B018
        return self


def _demonstrated(world: World) -> list[str]:
    """Demonstration responses as text: the ids and urls they show are conventions too."""
    import json

    out = []
    for demo in world.demonstrations:
        response = demo.response
        out.append(response if isinstance(response, str) else json.dumps(response, default=str))
    return out
