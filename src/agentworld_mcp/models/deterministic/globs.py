"""Glob patterns (``*.md``, ``**/*.py``, ``src/?.txt``) matched in time linear in the path.

A glob turned into a backtracking regex is a denial of service: ``*a*a*a…*b`` becomes
``[^/]*a[^/]*a…`` and a path that almost matches takes time exponential in the stars.
:class:`Glob` runs the same language as a set of states stepped once per character (a
Thompson simulation), so a match costs at most len(path) × len(pattern) steps. It reads
globs as minimatch does: ``*`` and ``?`` stay within one path segment, ``**/`` is any number
of whole directories, ``**`` elsewhere anything but a newline.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

_LITERAL, _ONE, _STAR, _ANY, _DIRS = range(5)


class _Token(NamedTuple):
    kind: int
    char: str = ""


class Glob:
    """A compiled glob; :meth:`fullmatch` says whether a whole relative path matches it."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokens(pattern)

    def fullmatch(self, path: str) -> bool:
        # A state is (token index, inside a directory name of ``**/``); the pattern ends at len(tokens).
        states = self._closure({(0, False)})
        for char in path:
            states = self._closure({nxt for state in states for nxt in self._step(state, char)})
            if not states:
                return False
        return (len(self._tokens), False) in states

    def _step(self, state: tuple[int, bool], char: str) -> list[tuple[int, bool]]:
        index, inside = state
        if inside:  # within one directory name of ``**/``: more of it, or its slash
            return [(index, False)] if char == "/" else [(index, True)]
        if index == len(self._tokens):
            return []
        token = self._tokens[index]
        if token.kind == _LITERAL:
            return [(index + 1, False)] if char == token.char else []
        if token.kind == _ANY:
            return [(index, False)] if char != "\n" else []
        if char == "/":
            return []
        if token.kind == _ONE:
            return [(index + 1, False)]
        return [(index, token.kind == _DIRS)]  # _STAR stays; _DIRS enters a directory name

    def _closure(self, states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
        """``states`` and every state reached by skipping the stars that can match nothing."""
        out = set(states)
        for index, inside in states:
            while not inside and index < len(self._tokens) and self._tokens[index].kind in (_STAR, _ANY, _DIRS):
                index += 1
                out.add((index, False))
        return out


def _tokens(pattern: str) -> tuple[_Token, ...]:
    out: list[_Token] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(_Token(_DIRS))
            i += 3
        elif pattern.startswith("**", i):
            out.append(_Token(_ANY))
            i += 2
        elif pattern[i] == "*":
            out.append(_Token(_STAR))
            i += 1
        elif pattern[i] == "?":
            out.append(_Token(_ONE))
            i += 1
        else:
            out.append(_Token(_LITERAL, pattern[i]))
            i += 1
    return tuple(out)


@lru_cache(maxsize=256)
def glob(pattern: str) -> Glob:
    """The compiled glob (cached: a listing matches every path against the same few patterns)."""
    return Glob(pattern)


__all__ = ["Glob", "glob"]
