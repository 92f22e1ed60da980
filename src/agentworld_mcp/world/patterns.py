"""Schema ``pattern``s matched in bounded time.

A catalog's inputSchema may carry a pattern that backtracks catastrophically
(``^(a+)+$`` doubles its time with every ``a`` of ``"aaa…!"``), and the caller chooses the
value. jsonschema matches patterns with :mod:`re`, which has no time limit, so
:func:`bounded` swaps its ``pattern``, ``patternProperties`` and ``additionalProperties``
keywords for ones that match with the ``regex`` module: Python's regex language (the same
answers as :mod:`re`), far less backtracking on nested quantifiers, and a timeout. Within
:func:`time_budget` all the patterns of one validation share the budget; a pattern that
runs past it is reported as a validation problem of that value, never a hang. Without
``regex`` installed, :mod:`re` is used as before.
"""

from __future__ import annotations

import contextlib
import functools
import re
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import jsonschema

#: Seconds one validation's patterns may take in all (or one pattern outside a :func:`time_budget`).
SECONDS = 1.0
_DEADLINE: ContextVar[float | None] = ContextVar("pattern_deadline", default=None)


class PatternTimeout(Exception):
    """A pattern took longer than its budget on a value."""


@contextlib.contextmanager
def time_budget(seconds: float = SECONDS) -> Iterator[None]:
    """Every pattern matched inside shares ``seconds`` (one call's arguments, however many strings)."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def search(pattern: str, text: str) -> bool:
    """``re.search(pattern, text)`` as a bool, raising :class:`PatternTimeout` past the budget."""
    matcher = _compiled(pattern)
    deadline = _DEADLINE.get()
    left = SECONDS if deadline is None else deadline - time.monotonic()
    if left <= 0:
        raise PatternTimeout(pattern)
    return matcher(text, left)


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Callable[[str, float], bool]:
    try:
        import regex
    except ImportError:  # optional speed-up: without it, patterns run as jsonschema runs them
        plain = re.compile(pattern)
        return lambda text, _left: plain.search(text) is not None
    try:
        compiled = regex.compile(pattern)
    except regex.error:
        plain = re.compile(pattern)  # re's own error for a pattern neither reads, as before
        return lambda text, _left: plain.search(text) is not None

    def match(text: str, left: float) -> bool:
        try:
            return compiled.search(text, timeout=left) is not None
        except TimeoutError as exc:
            raise PatternTimeout(pattern) from exc

    return match


def _too_slow(instance: Any, pattern: str) -> jsonschema.ValidationError:
    return jsonschema.ValidationError(
        f"{instance!r} could not be checked against {pattern!r} in time (the pattern backtracks too much "
        "on this value); send a shorter or simpler value")


# The three keywords as jsonschema writes them (jsonschema/_keywords.py), with re.search -> search.


def _pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        found = search(patrn, instance)
    except PatternTimeout:
        yield _too_slow(instance, patrn)
        return
    if not found:
        yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any,
                        schema: Any) -> Iterator[jsonschema.ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                found = search(pattern, key)
            except PatternTimeout:
                yield _too_slow(key, pattern)
                continue
            if found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: Any) -> Iterator[jsonschema.ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = set()
    for key in instance:
        if key in properties:
            continue
        try:
            if any(search(p, key) for p in patterns):
                continue
        except PatternTimeout:
            yield _too_slow(key, "|".join(patterns))
            continue
        extras.add(key)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            listed = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield jsonschema.ValidationError(f"{joined} {verb} not match any of the regexes: {listed}")
        else:
            unexpected = sorted(extras, key=str)
            verb = "was" if len(unexpected) == 1 else "were"
            yield jsonschema.ValidationError("Additional properties are not allowed "
                                             f"({', '.join(repr(e) for e in unexpected)} {verb} unexpected)")


@functools.cache
def bounded(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with its pattern keywords matched in bounded time."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties}
    return jsonschema.validators.extend(cls, {k: v for k, v in keywords.items() if k in cls.VALIDATORS})


__all__ = ["SECONDS", "PatternTimeout", "bounded", "search", "time_budget"]
