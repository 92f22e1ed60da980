"""The replacements an edit call asks for, read from its arguments by their names' roles.

Editors name them in many ways: a list of changes (``edits: [{oldText, newText}]``, ``changes: [{search,
replace}]``) or one pair at the top of the call (``old_string``/``new_string``, ``old_str``/``new_str``,
``search``/``replace``), with how many matches the call expects (``expected_replacements: 2``) or that it means
all of them (``replace_all: true``). :func:`apply_pairs` applies them to a text as such servers do: the first
match unless a count or "all" is given, a refusal naming the text that is not there or the count that differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .text_roles import tokens

JSONDict = dict[str, Any]
_OLD = {"old", "search", "find", "original", "target"}
_NEW = {"new", "replace", "replacement", "updated"}
#: Words a text argument's name may add to its role (``old_string``, ``oldText``, ``new_str``).
_TEXT = {"string", "str", "text", "content", "lines", "block", "value", "snippet"}
_LISTS = {"edits", "changes", "replacements", "patches", "operations", "edit", "change"}


@dataclass(frozen=True)
class Pair:
    """One replacement: ``old`` by ``new``; ``expected`` matches (None: the first; -1: all of them)."""

    old: str
    new: str
    expected: int | None = None


class EditRefused(ValueError):
    """An edit the file does not allow (its text is not there, or not as often as the call expected)."""


def _role(name: str) -> str | None:
    words = tokens(name)
    if not words or words - _TEXT - _OLD - _NEW:
        return None
    if words & _OLD and not words & _NEW:
        return "old"
    if words & _NEW and not words & _OLD:
        return "new"
    return None


def _expected(args: JSONDict) -> int | None:
    for name, value in args.items():
        words = tokens(name)
        if value is True and "all" in words:
            return -1
        if isinstance(value, int) and not isinstance(value, bool) and words & {"expected", "occurrences", "count"}:
            return value
    return None


def _pair(args: JSONDict) -> Pair | None:
    found: dict[str, str] = {}
    for name, value in args.items():
        role = _role(name)
        if role is not None and isinstance(value, str):
            found.setdefault(role, value)
    if "old" not in found or "new" not in found:
        return None
    return Pair(found["old"], found["new"], _expected(args))


def edit_pairs(args: JSONDict) -> list[Pair]:
    """The replacements ``args`` ask for, in order (none: no pair of texts is named)."""
    for name, value in args.items():
        if name in _LISTS and isinstance(value, list):
            pairs = [_pair(item) for item in value if isinstance(item, dict)]
            return [p for p in pairs if p is not None]
    top = _pair(args)
    return [top] if top is not None else []


def apply_pairs(text: str, pairs: list[Pair], path: str) -> str:
    """``text`` with ``pairs`` applied in order; :class:`EditRefused` where one cannot be."""
    for pair in pairs:
        old, new = pair.old.replace("\r\n", "\n"), pair.new.replace("\r\n", "\n")
        found = text.count(old) if old else 0
        if not found:
            raise EditRefused(f"Could not find exact match for edit:\n{pair.old}")
        if pair.expected is not None and pair.expected >= 0 and found != pair.expected:
            raise EditRefused(f"Expected {pair.expected} occurrences but found {found} in {path}")
        text = text.replace(old, new, -1 if pair.expected is not None else 1)
    return text


__all__ = ["EditRefused", "Pair", "apply_pairs", "edit_pairs"]
