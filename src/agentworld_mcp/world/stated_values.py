"""The values an argument takes, as a catalog states them in words: a vocabulary or a range.

Descriptions state an argument's valid values in prose far more often than as ``enum`` or
``minimum``/``maximum``::

    relationship_type: ...                   Types: 'blocks', 'depends_on', 'relates_to', 'duplicates'
    format: Output format - 'json', 'yaml', or 'markdown'
    status: one of pending, in_progress, done
    threshold: Minimum similarity score 0.0-1.0
    Complexity 1-5

A vocabulary is read where a line about the argument (its own description, or a line of the tool's
naming it, or its last word: ``Types:`` for ``relationship_type``) lists two quoted words at least, or
unquoted words that ``one of`` / ``must be`` / ``valid values:`` introduce; an argument that takes
several values (``comma-separated``) has none. A range is read for a number where such a line states
one (``1-5``, ``between 1 and 5``, ``at most 10``, ``0.0-1.0``); for a tool of one numeric argument, also
where a sentence of its description names the argument with a range in brackets or words ("Set the
target temperature in Celsius (10-30)"). Nothing is read from a line that
says a value outside it means something (``0 means 'don't update'``). Pure functions; the parsing
is shared with the learner of refusals (``sim2real``), which reads the same words in a refusal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .paging_names import OFFSET_ARGS, PAGE_ARGS, SIZE_ARGS
from .roles import is_id_name

JSONDict = dict[str, Any]
NUMBER = r"-?\d+(?:\.\d+)?"
_ITEM = r"""(?:'[^'\n,]{1,30}'|"[^"\n,]{1,30}"|`[^`\n,]{1,30}`|[A-Za-z0-9_][\w.-]{0,29})"""
SEP = r"(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s*\|\s*|\s*/\s*)"
#: A list of two words at least (``low, med, or high``; ``('pending', 'done', 'all')``; ``json|yaml``).
LIST = re.compile(rf"{_ITEM}(?:{SEP}{_ITEM})+")
#: Enum-like words: short identifiers (``high``, ``in_progress``), not prose or paths.
WORD = re.compile(r"[A-Za-z][\w-]{0,23}")
BETWEEN = re.compile(rf"between\s+({NUMBER})\s+and\s+({NUMBER})|from\s+({NUMBER})\s+to\s+({NUMBER})"
                     rf"|(?<![\w.-])({NUMBER})\s*(?:-|–|\.\.|to)\s*({NUMBER})(?![\w.-])", re.IGNORECASE)
AT_MOST = re.compile(rf"(?:<=|≤|at most|no more than|less than or equal to|not exceed|cannot exceed|up to|"
                     rf"maximum(?: is| of)?|max(?:imum)?:?)\s*({NUMBER})", re.IGNORECASE)
BELOW = re.compile(rf"(?:(?<![<>])<(?!=)|less than(?! or)|fewer than|below)\s*({NUMBER})", re.IGNORECASE)
AT_LEAST = re.compile(rf"(?:>=|≥|at least|no less than|greater than or equal to|minimum(?: is| of)?|min:?)"
                      rf"\s*({NUMBER})", re.IGNORECASE)
ABOVE = re.compile(rf"(?:(?<![<>])>(?!=)|greater than(?! or)|more than|above)\s*({NUMBER})", re.IGNORECASE)
#: Words that introduce a closed list of unquoted values.
_INTRODUCED = re.compile(r"(?:\bone of|\bmust be|\bvalid (?:values|options|types)?\s*(?:are|:)|\ballowed(?: values)?\s*:|"
                         r"\boptions\s*:|\bvalues\s*:|\btypes?\s*:)\s*[\[(]?\s*$", re.IGNORECASE)
#: An argument that takes several values, or a line that gives values outside a range a meaning.
_MANY = re.compile(r"comma[- ]separated|\blist of\b|\bmultiple\b", re.IGNORECASE)
_SPECIAL = re.compile(r"\bmeans?\b|\bfor (?:no|unlimited|all)\b|\bdisables?\b|\bunlimited\b", re.IGNORECASE)
#: A sentence about leaving the argument out (``Omit for no priority.``): no value of it has a special meaning.
_OMITTING = re.compile(r"\b(?:omit|leave (?:it )?(?:out|empty|blank))\b[^.;]*[.;]?", re.IGNORECASE)
#: Words of a quantity that is a length or a size, not the value (``max 200 chars``).
_EXAMPLE = re.compile(r"e\.g\.|for example|such as|\blike\b|\bexamples?\b|\bi\.e\.", re.IGNORECASE)
_MUST = re.compile(r"\bmust\b|\brequired\b|\bonly\b", re.IGNORECASE)
_PAGING = frozenset(a.replace("_", "").lower() for a in SIZE_ARGS + PAGE_ARGS + OFFSET_ARGS)
_FREE = frozenset(("query", "q", "search", "filter", "text", "content", "body", "message", "prompt", "description",
                   "title", "name", "comment", "note", "sql", "expression", "pattern"))
_SIZE = re.compile(rf"{NUMBER}\s*(?:chars?|characters|bytes|items|entries|words|lines|results|[kmg]b)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Stated:
    """What a catalog states of one argument's values."""

    #: The words it may be (``blocks``, ``depends_on``), when stated.
    allowed: tuple[str, ...] = ()
    #: ``(lo, hi)`` for a number (either may be None), when stated.
    bounds: tuple[float | None, float | None] | None = None


def items(run: str) -> list[str]:
    """The values of a listed run (``'json', 'yaml', or 'markdown'`` -> ``json, yaml, markdown``)."""
    parts = re.split(SEP, run)
    return [p.strip().strip("'\"`").rstrip(".;:") for p in parts if p.strip()]


def stated_values(description: str, arg: str, prop: JSONDict, args: Iterable[str] = ()) -> Stated | None:
    """What ``description`` (the tool's) and ``prop`` (the argument's schema) state ``arg``'s values are;
    ``args``: the tool's argument names (a list of them names arguments, not values)."""
    plain = arg.replace("_", "").replace("-", "").lower()
    if plain in _PAGING or plain in _FREE or plain.startswith("max") or is_id_name(arg):
        return None  # a page's size is clamped, not refused; free text and ids take any value
    lines = _lines(description, arg, prop)
    kind = prop.get("type")
    if not lines and kind in ("integer", "number") and list(args) == [arg]:
        lines = _sentences_naming(description, arg)  # a one-argument tool: "Set the level (1-10)."
    if not lines or any(_MANY.search(line) for line in lines):
        return None
    if kind in ("integer", "number"):
        bounds = next((b for line in lines if (b := stated_range(line, kind == "integer", worded=True)) is not None),
                      None)
        return Stated(bounds=bounds) if bounds is not None else None
    if kind not in (None, "string"):
        return None
    names = {a.lower() for a in args}
    for line in lines:
        allowed = listed(line)
        if allowed and not names & {a.lower() for a in allowed}:
            return Stated(allowed=tuple(allowed))
    return None


def _lines(description: str, arg: str, prop: JSONDict) -> list[str]:
    """The lines that speak of ``arg`` alone: its own description, then the tool's lines that begin with it
    (``arg: ...``, ``- arg (str): ...``) or with its last word as a heading (``Types:`` for
    ``relationship_type``), or that name it with a capital (``Complexity 1-5``), each with the more
    indented lines that continue it."""
    own = str(prop.get("description") or "")
    name = re.escape(arg).replace("_", "[ _]")
    last = re.escape(arg.split("_")[-1]) if "_" in arg else None
    heads = [rf"\s*(?:[-*]\s*)?`?{name}`?\s*(?:\([^)]*\))?\s*[:=-]", rf"\s*{name.capitalize()}\b"]
    if last:
        heads.append(rf"\s*{last}s?\s*:")
    out = [own] if own else []
    rows = (description or "").splitlines()
    for at, line in enumerate(rows):
        if not any(re.match(h, line, re.IGNORECASE if i != 1 else 0) for i, h in enumerate(heads)):
            continue
        indent = len(line) - len(line.lstrip())
        more = []
        for after in rows[at + 1:]:
            if not after.strip() or len(after) - len(after.lstrip()) <= indent:
                break
            more.append(after.strip())
        out.append(" ".join([line.strip(), *more]))
    return [line for line in out if not _SPECIAL.search(_OMITTING.sub(" ", line))]


def _sentences_naming(description: str, arg: str) -> list[str]:
    """The sentences of a one-argument tool's description that name the argument and put a range beside
    it in brackets or words (``the target temperature in Celsius (10-30)``, ``between 1 and 5``)."""
    name = r"[ _-]?".join(re.escape(w) for w in re.split(r"[_\s-]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", arg)) if w)
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n", description or ""):
        if re.search(rf"\b{name}\b", sentence, re.IGNORECASE) and (
                re.search(rf"\(\s*{NUMBER}\s*(?:-|–|to)\s*{NUMBER}\s*\)", sentence) or re.search(r"\bbetween\b", sentence)):
            out.append(sentence)
    return out


def listed(line: str) -> list[str]:
    """The closed list a line states: quoted words (two at least), or words ``one of`` introduces; each
    value may come with an aside (``'blocks' (source blocks target), 'depends_on' (...)``)."""
    if "{" in line:  # a JSON example's keys and values, not a vocabulary
        return []
    return max(_listed(re.sub(r"\s*\([^()]*\)", "", line)), _listed(line), key=len)


def _listed(line: str) -> list[str]:
    for match in LIST.finditer(line):
        if _EXAMPLE.search(line[max(0, match.start() - 24):match.start()]):
            continue  # examples of a value, not every value
        run = match.group(0)
        found = items(run)
        if len(found) < 2 or not all(WORD.fullmatch(i) for i in found):
            continue
        quoted = re.findall(r"""['"`]([^'"`\n]{1,30})['"`]""", run)
        if len(quoted) >= 2 and len(quoted) == len(found):
            return found
        if not quoted and _INTRODUCED.search(line[:match.start()]):
            return found
    return []


def stated_range(text: str, integral: bool, worded: bool = False) -> tuple[float | None, float | None] | None:
    """The range ``text`` states for a number (the first it states); None where it states none. ``worded``:
    a bound on one side only where the words say it must hold (``must be at least 1``), not a default's aside."""
    cleaned = _SIZE.sub(" ", text)
    for between in BETWEEN.finditer(cleaned):
        lo, hi = (float(g) for g in [g for g in between.groups() if g is not None][:2])
        if lo < hi:
            return _plain(lo), _plain(hi)
    for pattern, exclusive, upper in ((AT_MOST, False, True), (BELOW, True, True),
                                      (AT_LEAST, False, False), (ABOVE, True, False)):
        m = pattern.search(cleaned)
        if m is None or worded and not _MUST.search(cleaned[:m.start()]):
            continue
        bound = float(m.group(1))
        if exclusive and integral:
            bound = bound - 1 if upper else bound + 1
        return (None, _plain(bound)) if upper else (_plain(bound), None)
    return None


def inside(value: float, bounds: tuple[float | None, float | None]) -> bool:
    lo, hi = bounds
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _plain(bound: float) -> float:
    return int(bound) if bound.is_integer() else bound


__all__ = ["ABOVE", "AT_LEAST", "AT_MOST", "BELOW", "BETWEEN", "LIST", "NUMBER", "SEP", "Stated", "WORD", "inside",
           "items", "listed", "stated_range", "stated_values"]
