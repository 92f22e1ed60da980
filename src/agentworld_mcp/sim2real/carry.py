"""Carrying server-made values from answers into later calls, as an agent would, when recorded traffic is replayed.

A recorded real session passes back values the real server made: the booking id a create answered,
a token, a uuid. The simulator never made those values, so replaying the recorded arguments as
they are asks it about ids it cannot know, and every later check fails although an agent talking
to the simulator would have passed the simulator's own id. :class:`Carry` does what that agent does:

* a **carried value** is a scalar of a real answer (a JSON leaf, or a token of prose) that is
  *id-like* and *new*. Id-like: a string of 3 to 200 characters without whitespace that has a
  digit (``3426812``, a uuid, ``tok_9f...``, a timestamp), or an integer of 4 digits or more, or a
  non-zero integer under an id-like key (``id``, ``booking_id``, ``ticketId``). Never booleans,
  null, fractional numbers (prices, sums and rates are computed: the simulator must get them
  right itself) or words. New: not determined before this answer, i.e. not in the world's seed,
  not in this call's or an earlier call's arguments, not in an earlier real answer
  (:class:`.fidelity.Known`, the same notion ``score`` checks values with).
* its **counterpart** is the simulated answer's value at the same place: the same key path (the
  i-th leaf there pairs with the i-th), or, where either answer is prose (or a string with spaces),
  the token at the same position once the two texts are aligned token by token (a replaced run
  of equal length pairs token for token). The counterpart must be id-like too and differ; each real
  value links to one simulated value and each simulated value to one real value (a simulator that
  answers every create with the same id carries only the first).
* **replaying**, :meth:`Carry.arguments` replaces a linked real value in a later call's arguments
  (a whole value, or a whole token inside a string) by its counterpart; **scoring**,
  :meth:`Carry.back` maps counterparts in later simulated answers back to the real values (keeping
  the simulator's JSON type), so a simulation that answers its own id consistently agrees, and one
  that answers the wrong record, an error or another id still disagrees. A value with no
  counterpart is sent as recorded, and fails as it would.

Everything is a pure function of the recorded turns and the simulated answers, in order: the
replay and the scoring rebuild the same links. At most :data:`MAX_LINKS` links per episode and
:data:`TEXT_LIMIT` characters of each text are aligned.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .fidelity import Known, answer_of, canonical, leaves

JSONDict = dict[str, Any]
MAX_LINKS = 256
TEXT_LIMIT = 4000
_ID_KEY = re.compile(r"(?:^|[._\[\]])(?:id|[A-Za-z0-9]+_id|[a-z][A-Za-z0-9]*Id|[A-Za-z0-9]+_ID|ID)$")
_TOKEN = re.compile(r"\w[\w.\-]*\w|\w")


class Turn(Protocol):
    """One recorded call (``score.RecordedTurn`` is one)."""

    tool: str
    arguments: JSONDict
    result: JSONDict


def id_like(value: Any, path: str = "") -> bool:
    """Whether ``value`` (at key path ``path``) looks like something a server makes up: see the module doc."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return abs(value) >= 1000 or value != 0 and _ID_KEY.search(path) is not None
    if isinstance(value, str):
        return 3 <= len(value) <= 200 and any(c.isdigit() for c in value) and not any(c.isspace() for c in value)
    return False


def _prose(value: Any) -> bool:
    return isinstance(value, str) and any(c.isspace() for c in value)


@dataclass(frozen=True)
class Link:
    real: Any
    sim: Any
    path: str

    @property
    def small(self) -> bool:
        """A short integer id: carried only under id-like keys, never inside text."""
        return isinstance(self.real, int) and abs(self.real) < 1000


def _cast(value: Any, like: Any) -> Any:
    """``value`` in the JSON type of ``like`` (a string where ``like`` is one, an integer where it is
    and ``value`` reads as one); None where it cannot keep that type."""
    form = canonical(value)
    if form is None:
        return None
    if isinstance(like, str):
        return form
    if isinstance(like, int) and re.fullmatch(r"-?\d+", form):
        return int(form)
    return None


class Carry:
    """The links of one episode (see the module doc): feed every turn to :meth:`observe`, in order."""

    def __init__(self, seed: Any = None) -> None:
        self.known = Known()
        self.known.add_data(seed or {})
        self.forward: dict[str, Link] = {}  # real form -> link
        self.backward: dict[str, Link] = {}  # simulated form -> link
        self._patterns: dict[bool, tuple[int, re.Pattern[str] | None]] = {}

    # -- learning links ---------------------------------------------------------------------

    def observe(self, arguments: JSONDict, real: JSONDict, simulated: JSONDict) -> None:
        """Learn the links one turn makes: the real call's ``arguments``, its ``real`` answer and the
        ``simulated`` answer to the call as it was sent."""
        self.known.add_data(arguments)
        for path, real_value, sim_value in self._pairs(real, simulated):
            self._link(path, real_value, sim_value)
        self.known.add_answer(real)

    def _pairs(self, real: JSONDict, simulated: JSONDict) -> Iterable[tuple[str, Any, Any]]:
        r, s = answer_of(real), answer_of(simulated)
        if r.is_json and s.is_json:
            found: dict[str, list[Any]] = defaultdict(list)
            for path, value in leaves(s.data):
                found[path].append(value)
            seen: dict[str, int] = defaultdict(int)
            for path, value in leaves(r.data):
                there = found.get(path, [])
                index = seen[path]
                seen[path] += 1
                if index < len(there):
                    if _prose(value) and _prose(there[index]):
                        yield from ((path, a, b) for a, b in _aligned(value, there[index]))
                    else:
                        yield path, value, there[index]
        else:
            yield from (("", a, b) for a, b in _aligned(r.text, s.text))

    def _link(self, path: str, real: Any, sim: Any) -> None:
        if len(self.forward) >= MAX_LINKS or not id_like(real, path) or not id_like(sim, path):
            return
        real_form, sim_form = canonical(real), canonical(sim)
        if real_form is None or sim_form is None or real_form == sim_form:
            return
        if real_form in self.forward or sim_form in self.backward or self.known.determines(real):
            return
        link = Link(real, sim, path)
        self.forward[real_form] = self.backward[sim_form] = link
        self._patterns.clear()

    # -- using them -------------------------------------------------------------------------

    def linked(self, value: Any) -> bool:
        form = canonical(value)
        return form is not None and form in self.forward

    def arguments(self, arguments: JSONDict) -> JSONDict:
        """The call's arguments as an agent playing against the simulator would send them."""
        if not self.forward:
            return arguments
        out = self._swap(arguments, "", self.forward, lambda link: link.sim)
        return out if isinstance(out, dict) else arguments

    def back(self, simulated: JSONDict) -> JSONDict:
        """The simulated answer with the simulator's own carried values read as the real ones."""
        if not self.backward:
            return simulated
        out = copy.deepcopy(simulated)
        if isinstance(out.get("structuredContent"), (dict, list)):
            out["structuredContent"] = self._swap(out["structuredContent"], "", self.backward, lambda link: link.real)
        for block in out.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                block["text"] = self._swap_text_block(block["text"])
        return out

    def _swap_text_block(self, text: str) -> str:
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                data = json.loads(stripped)
            except ValueError:
                pass
            else:
                return json.dumps(self._swap(data, "", self.backward, lambda link: link.real), ensure_ascii=False)
        return self._swap_tokens(text, backward=True)

    def _swap(self, value: Any, path: str, links: dict[str, Link], target: Callable[[Link], Any]) -> Any:
        if isinstance(value, dict):
            return {k: self._swap(v, f"{path}.{k}" if path else str(k), links, target) for k, v in value.items()}
        if isinstance(value, list):
            return [self._swap(v, path + "[]", links, target) for v in value]
        form = canonical(value)
        link = links.get(form) if form is not None else None
        if link is not None and (not link.small or _ID_KEY.search(path)):
            swapped = _cast(target(link), value)
            if swapped is not None:
                return swapped
            if isinstance(value, int) and not isinstance(value, bool) and links is self.forward:
                return target(link)  # an agent passes the simulator's string id where the real one was a number
        if isinstance(value, str):
            return self._swap_tokens(value, backward=links is self.backward)
        return value

    def _swap_tokens(self, text: str, *, backward: bool) -> str:
        links = self.backward if backward else self.forward
        count, pattern = self._patterns.get(backward, (-1, None))
        if count != len(links):
            forms = sorted((f for f, link in links.items() if not link.small), key=len, reverse=True)
            pattern = (re.compile(r"(?<![\w.-])(?:" + "|".join(map(re.escape, forms)) + r")(?![\w-])")
                       if forms else None)
            self._patterns[backward] = (len(links), pattern)
        if pattern is None:
            return text

        def swap(match: re.Match[str]) -> str:
            link = links[match.group(0)]
            return str(canonical(link.real if backward else link.sim))

        return pattern.sub(swap, text)


def _aligned(real: str, sim: str) -> list[tuple[str, str]]:
    """Token pairs at the same position of two texts (see the module doc)."""
    a, b = _TOKEN.findall(real[:TEXT_LIMIT]), _TOKEN.findall(sim[:TEXT_LIMIT])
    pairs: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            pairs += zip(a[i1:i2], b[j1:j2])
    return pairs


Call = Callable[[str, JSONDict], Awaitable[JSONDict]]


async def replay_turns(turns: Iterable[Turn], call: Call, *, seed: Any = None) -> list[JSONDict]:
    """The answers ``call(tool, arguments)`` gives to one recorded episode's calls, in order, each call's
    carried values replaced by the simulator's own (see the module doc); ``seed``: the world's seed."""
    carry = Carry(seed)
    answers: list[JSONDict] = []
    for turn in turns:
        answer = await call(turn.tool, carry.arguments(turn.arguments))
        carry.observe(turn.arguments, turn.result, answer)
        answers.append(answer)
    return answers


def mapped_back(turns: Iterable[Turn], answers: Iterable[JSONDict], *, seed: Any = None
                ) -> list[tuple[JSONDict, set[str]]]:
    """Per turn, the simulated answer with carried values read as the real ones, and the real values
    linked before that turn (their canonical forms), rebuilt as :func:`replay_turns` made them."""
    carry = Carry(seed)
    out: list[tuple[JSONDict, set[str]]] = []
    for turn, answer in zip(turns, answers):
        out.append((carry.back(answer), set(carry.forward)))
        carry.observe(turn.arguments, turn.result, answer)
    return out


__all__ = ["MAX_LINKS", "Carry", "Link", "id_like", "mapped_back", "replay_turns"]
