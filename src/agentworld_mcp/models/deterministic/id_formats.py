"""Identifier formats learned from a real server's answers (``learn``), and new ids made in them.

A server's ids have a format its catalog never states: ``req-1`` then ``req-2`` (a counter
behind a prefix), ``INV-0007`` (a zero-padded counter), ``cus_Nf3kQ2xZ9aLm`` (a prefix and a
random suffix of a fixed length and alphabet). ``learn`` reads the ids each collection's
answers showed and writes one format per collection under a tool's ``_meta``::

    _meta: {"agentworld/id_formats": {"requests": {"prefix": "req-", "counter": 0},
                                      "customers": {"prefix": "cus_", "random": 14, "alphabet": "..."}}}

``counter`` is the zero-padding width (0: none). The deterministic model makes a new key
in its collection's format, numbered by the ledger's sequence for that collection (so each
format counts on its own: ``req-1``, ``task-1``, ``task-2``), the random suffix drawn from
the episode's seed. Pure functions: nothing here changes an episode.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Step

JSONDict = dict[str, Any]
#: ``_meta`` key of a tool definition holding learned id formats, by collection.
ID_FORMATS_META = "agentworld/id_formats"
_COUNTED = re.compile(r"([A-Za-z][A-Za-z_.:/-]*?[_.:/-]?)(\d+)")
_PREFIXED = re.compile(r"([A-Za-z]{1,12}[_-])([A-Za-z0-9]{6,64})")
#: The separators of a templated id (its runs of letters and digits lie between them).
_RUNS = re.compile(r"([^A-Za-z0-9]+)")
#: Fields that hold their own object's id (``uid`` of a calendar event).
_OWN_KEYS = ("id", "uid", "uuid")
_SLOT = re.compile(r"\{(\d+)\}")


def infer_format(values: Iterable[str]) -> JSONDict | None:
    """The one format all ``values`` share, or None when they share none (or show too little)."""
    seen = sorted(set(values))
    if not seen:
        return None
    counted = [_COUNTED.fullmatch(v) for v in seen]
    if all(counted):
        prefixes = {m.group(1) for m in counted if m}
        digits = [m.group(2) for m in counted if m]
        if len(prefixes) == 1:
            widths = {len(d) for d in digits}
            padded = any(d.startswith("0") for d in digits) and len(widths) == 1
            return {"prefix": prefixes.pop(), "counter": widths.pop() if padded else 0}
    prefixed = [_PREFIXED.fullmatch(v) for v in seen]
    if all(prefixed):
        prefixes = {m.group(1) for m in prefixed if m}
        suffixes = [m.group(2) for m in prefixed if m]
        lengths = {len(s) for s in suffixes}
        if len(prefixes) == 1 and len(lengths) == 1 and not all(s.isdigit() for s in suffixes):
            return {"prefix": prefixes.pop(), "random": lengths.pop(), "alphabet": _alphabet(suffixes)}
    return _templated(seen)


def _templated(seen: list[str]) -> JSONDict | None:
    """A format of random runs between fixed parts (``8-4-4-4-12`` hex groups, ``...@cal-host``): every value
    split alike at its separators, each run either one text in all values or random of one length. Two
    values at least, and eight random characters or more, or it is no id format."""
    if len(seen) < 2:
        return None
    parts = [_RUNS.split(v) for v in seen]
    if len({len(p) for p in parts}) != 1:
        return None
    template, runs = [], []
    for position, pieces in enumerate(zip(*parts)):
        if position % 2 or len(set(pieces)) == 1:  # a separator, or a run every value shares
            if position % 2 == 0 and "{" in pieces[0]:
                return None
            template.append(pieces[0])
            continue
        if len({len(p) for p in pieces}) != 1 or len(pieces[0]) < 3:
            return None
        runs.append("".join(pieces))
        template.append("{" + str(len(pieces[0])) + "}")
    if sum(len(r) for r in runs) < 8 * len(seen):  # too little randomness for an id (``a1``, ``b2``)
        return None
    return {"template": "".join(template), "alphabet": _alphabet(runs)}


def _alphabet(samples: list[str]) -> str:
    """The characters random parts like ``samples`` are drawn from: digits, hex or all lower-case letters, upper
    case, each class only where the samples used it."""
    used = set("".join(samples))
    lower = string.ascii_lowercase if used & set(string.ascii_lowercase[6:]) else "abcdef"  # hex, or letters
    return "".join(a for a in (string.digits, lower, string.ascii_uppercase) if used & set(a))


def render(fmt: JSONDict, number: int, seed: str) -> str | None:
    """The ``number``-th id of ``fmt`` (its random suffix drawn from ``seed``); None for a format it cannot read."""
    prefix = fmt.get("prefix")
    if not isinstance(prefix, str):
        prefix = ""
        if not isinstance(fmt.get("template"), str):
            return None
    counter = fmt.get("counter")
    if isinstance(counter, int) and not isinstance(counter, bool):
        return f"{prefix}{number:0{counter}d}" if counter else f"{prefix}{number}"
    length, alphabet = fmt.get("random"), fmt.get("alphabet")
    template = fmt.get("template")
    if isinstance(template, str) and isinstance(alphabet, str) and alphabet:
        rng = random.Random(f"{seed}:{template}:{number}")
        return _SLOT.sub(lambda m: "".join(rng.choice(alphabet) for _ in range(int(m.group(1)))), template)
    if isinstance(length, int) and isinstance(alphabet, str) and alphabet:
        rng = random.Random(f"{seed}:{prefix}:{number}")
        return prefix + "".join(rng.choice(alphabet) for _ in range(length))
    return None


def learned_formats(tools: Iterable[JSONDict]) -> dict[str, JSONDict]:
    """Every collection's learned format, from the catalog's tools (the first tool naming one wins)."""
    found: dict[str, JSONDict] = {}
    for tool in tools:
        formats = (tool.get("_meta") or {}).get(ID_FORMATS_META)
        if isinstance(formats, dict):
            for collection, fmt in formats.items():
                if isinstance(fmt, dict):
                    found.setdefault(str(collection), fmt)
    return found


def new_id(step: Step, collection: str, number: int) -> str | None:
    """A new key of ``collection`` in its learned format, or None when none was learned."""
    formats = step.derived("learned_id_formats", lambda: learned_formats(step.world.tools))
    fmt = formats.get(collection)
    if fmt is None:
        return None
    if "counter" not in fmt:  # the ledger counts keys that end in a number; a random one is counted here
        number += len(step.episode.ledger.items(collection))
    return render(fmt, number, f"{step.episode.seed}:{collection}")





def ids_in(answer: Any, collection: str | None, given: set[str]) -> list[tuple[str, str]]:
    """``(collection, id)`` for each string id ``answer`` shows that is not in ``given`` (the call's own
    values): ``id`` fields belong to the collection their object sits in (``tasks[].id``, ``task.id``, the
    tool's own collection at the top), ``requestId`` fields to ``requests``."""
    from ...world.roles import collection_name, id_stem

    found: list[tuple[str, str]] = []

    def walk(value: Any, within: str | None) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item, within)
            return
        if not isinstance(value, dict):
            return
        for key, sub in value.items():
            if isinstance(sub, str) and sub not in given:
                stem = id_stem(key) if key.endswith(("Id", "_id")) else None
                owner = within if key.lower() in _OWN_KEYS else collection_name(stem) if stem else None
                if owner:
                    found.append((owner, sub))
            elif isinstance(sub, (dict, list)):
                walk(sub, collection_name(key) if key.isidentifier() else within)

    walk(answer, collection)
    return found


__all__ = ["ID_FORMATS_META", "ids_in", "infer_format", "learned_formats", "new_id", "render"]
