"""A string that matches a schema ``pattern``, drawn from the pattern's own parse tree.

Specs publish ids as patterns with groups and alternatives (``^(A[A-Z0-9]{1,})?$``,
``^(gid://[a-z]+/)?Product/\\d+$``); values that ignore them make answers a strict client
rejects. The pattern is parsed with Python's own regex parser and walked: literals as
written, classes and categories by a choice of their members, repeats a few times within
their bounds, one branch of an alternative. Constructs with no generative reading
(lookarounds, backreferences) give None, and the caller falls back.
"""

from __future__ import annotations

import importlib
import random
import string
from typing import Any

# Python's own regex parser: private modules the stubs may or may not describe, so typed as Any here.
c: Any = importlib.import_module("re._constants")
parser: Any = importlib.import_module("re._parser")

_CATEGORIES = {
    c.CATEGORY_DIGIT: string.digits,
    c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    c.CATEGORY_SPACE: " ",
    c.CATEGORY_NOT_DIGIT: string.ascii_letters,
    c.CATEGORY_NOT_WORD: "-. ",
    c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
}
_ANY = string.ascii_lowercase + string.digits
_MAX_EXTRA = 3  # an unbounded repeat draws at most this many beyond its minimum


class _Unsupported(Exception):
    """A regex construct with no generative reading here."""


def sample(pattern: str, rng: random.Random) -> str | None:
    """A string ``pattern`` matches, or None when its constructs cannot be sampled."""
    try:
        tree = list(parser.parse(pattern))
        return _walk(tree, rng, 0)
    except Exception:  # re's parser raises its own error types; any construct we cannot read gives None
        return None


def _walk(items: list[tuple[Any, Any]], rng: random.Random, depth: int) -> str:
    if depth > 20:
        raise _Unsupported("too deep")
    return "".join(_one(op, av, rng, depth) for op, av in items)


def _one(op: Any, av: Any, rng: random.Random, depth: int) -> str:
    if op is c.LITERAL:
        return chr(av)
    if op is c.NOT_LITERAL:
        return rng.choice([ch for ch in _ANY if ord(ch) != av])
    if op is c.ANY:
        return rng.choice(_ANY)
    if op is c.AT:
        return ""
    if op is c.IN:
        return rng.choice(_members(av))
    if op is c.CATEGORY:
        return rng.choice(_CATEGORIES.get(av, _ANY))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        low, high, body = av
        high = low + _MAX_EXTRA if high is c.MAXREPEAT else min(high, low + _MAX_EXTRA)
        # an optional part is drawn at least once: left out it is valid but says nothing (``^(A[0-9]+)?$``)
        return "".join(_walk(list(body), rng, depth + 1) for _ in range(rng.randint(min(max(low, 1), high), high)))
    if op is c.SUBPATTERN:
        return _walk(list(av[-1]), rng, depth + 1)
    if op is c.BRANCH:
        return _walk(list(rng.choice(av[1])), rng, depth + 1)
    raise _Unsupported(str(op))


def _members(items: list[tuple[Any, Any]]) -> str:
    if items and items[0][0] is c.NEGATE:
        excluded = set(_members(items[1:]))
        return "".join(ch for ch in string.ascii_letters + string.digits + "-_" if ch not in excluded) or "x"
    out: list[str] = []
    for op, av in items:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.RANGE:
            low, high = av
            out.extend(chr(x) for x in range(low, min(high, low + 95) + 1))
        elif op is c.CATEGORY:
            out.append(_CATEGORIES.get(av, _ANY))
        else:
            raise _Unsupported(str(op))
    return "".join(out) or "x"
