"""The perturbation stage of the step pipeline (see docs/architecture.md).

``before`` runs after argument validation and before the world model and returns a
:class:`~agentworld_mcp.state.step.Gate`: it may delay the call, add plain-language events for
the world model, serve a later page from a snapshot, answer with an injected error (the
world model is never asked, so the ledger is untouched: a failed create creates nothing),
or hand back a fault (JSON-RPC error, hang) for the engine to deliver. ``after`` cuts a
list result into its first page when the gate asked for it.

Reproducibility: whether a rule fires depends on the episode's seed, the episode id, the
rule and the call sequence only (``episode.rng(...)``, per-rule call counters in episode
state), never on timing. The one exception is by nature time-based: a rate limit's
"retry after" window, which really expires after the hinted number of (wall-clock)
seconds; a client that waits the hint sees the same run every time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ..world.catalog import ToolSpec
from ..errors import InjectedFault, InjectedHang, InjectedProtocolError
from ..state.result import ToolResult
from ..state.step import OPEN, Gate, Step
from ..world.world import World
from . import pagination as pg
from . import wording
from .policy import ERROR_KINDS, Policy, Rule, parse_cached, parse_policy

log = logging.getLogger("agentworld_mcp.perturb")
JSONDict = dict[str, Any]

#: Key of this stage's data in ``episode.state``.
STATE_KEY = "perturb"
#: ``_meta`` key on results produced by an injected perturbation.
META_KEY = "agentworld/perturbation"


class _Compiled:
    """A policy's rules with the per-tool selection worked out once."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.rules = policy.all_rules()
        self._by_tool: dict[str, tuple[Rule, ...]] = {}
        self._styles: dict[str, Any] = {}

    def style_of(self, spec: ToolSpec) -> Any:
        found = self._styles.get(spec.name)
        if found is None:
            found = self._styles[spec.name] = wording.style_of(spec, self.policy.style)
        return found

    def rules_for(self, spec: ToolSpec) -> tuple[Rule, ...]:
        found = self._by_tool.get(spec.name)
        if found is None:
            found = self._by_tool[spec.name] = tuple(r for r in self.rules if r.selects(spec.name, spec.role))
        return found


class PolicyPerturber:
    """Applies a perturbation policy: the world file's, overridden per run, episode and call.

    Precedence, lowest first: world file, run (``policy=``, ``--perturb``), episode
    (an override sent with ``scope: episode``), call. Each level replaces the one below
    unless it sets ``inherit: true``.
    """

    def __init__(self, world: World, policy: Any = None) -> None:
        base = parse_policy(world.perturbations, source=f"{world.source or world.name}: perturbations")
        if policy is not None:
            base = parse_policy(policy, source="run perturbation policy").over(base)
        self.base = _Compiled(base)
        self._compiled: dict[int, _Compiled] = {id(base): self.base}
        self._conventions: dict[str, pg.Conventions] = {}

    # -- the protocol -----------------------------------------------------------------

    async def before(self, step: Step, overrides: Any = None) -> Gate:
        ep_state = step.episode.state
        mine: JSONDict | None = ep_state.get(STATE_KEY)
        if overrides is None and mine is None and not self.base.rules:
            return OPEN  # the fast path: nothing configured anywhere
        compiled = self._resolve(step, overrides)
        rules = compiled.rules_for(step.tool)
        if mine is None:
            if not rules:
                return OPEN
            mine = ep_state.setdefault(STATE_KEY, {})
        self._replay_events(step, mine)
        if not rules:
            return OPEN
        gate = Gate()
        fired = gate.fired
        style = compiled.style_of(step.tool)
        counts, fires_so_far = mine.setdefault("calls", {}), mine.get("fires") or {}
        delay = 0.0
        error: ToolResult | None = None
        for rule in rules:  # every rule counts the call, whatever fires before it
            fires = self._fires(rule, step, counts, fires_so_far)
            if rule.kind == "rate_limit":
                refusal = self._rate_limit(rule, fires, step, mine, style)
                if refusal is not None and error is None:
                    error, entry = refusal
                    self._fired(rule, mine, fired, entry)
                    delay += self._delay(rule, step)
                continue
            if not fires:
                continue
            if rule.kind == "latency":
                seconds = self._delay(rule, step)
                delay += seconds
                self._fired(rule, mine, fired, {"delay_ms": round(seconds * 1000, 3)})
            elif rule.kind == "instruct":
                self._instruct(rule, step, mine, fired)
            elif rule.kind == "paginate":
                gate.paginate = {"rule": rule.key, "page_size": rule.page_size}  # after() cuts the first page
            elif error is None and rule.kind in ERROR_KINDS:
                text = wording.error_text(rule.kind, step.tool, step.arguments, rule, style, self._rng(step, rule, "text"))
                entry = {"message": text}
                error = _error(text, rule)
                self._fired(rule, mine, fired, entry)
                delay += self._delay(rule, step)
            elif error is None and rule.kind in ("protocol_error", "hang"):
                await _sleep(delay + self._delay(rule, step))
                gate.fault = self._fault(rule, step, mine, fired, style)
                gate.result, gate.paginate = gate.fault.result, None  # type: ignore[assignment]
                return gate
        await _sleep(delay)
        if error is not None:
            gate.result, gate.paginate = error, None
            return gate
        page = self._continuation(step, rules, mine, fired, style)
        if page is not None:
            gate.result, gate.paginate = page, None
        return gate

    def after(self, step: Step, result: ToolResult, gate: Gate) -> ToolResult:
        pending = gate.paginate
        if pending is None or result.is_error:
            return result
        mine = step.episode.state.setdefault(STATE_KEY, {})
        fired = gate.fired
        spec = step.tool
        conv = self._conv(spec)
        listing = pg.listing_of(spec, result)
        if conv.mode is None or listing is None:
            return result
        size = pg.page_size(conv, step.arguments, pending["page_size"])
        rng = step.episode.rng("perturb", pending["rule"], "snapshot", step.turn)
        snapshot_id = f"s{rng.getrandbits(40):010x}"
        snap = pg.store_snapshot(mine, snapshot_id, pg.snapshot_key(spec, step.arguments, conv), listing, size)
        start = pg.start_of(conv, step.arguments, size) or 0
        page = pg.render_page(spec, conv, snap, snapshot_id, start, size)
        problems = spec.output_problems(page.structured) if page.structured is not None else []
        if problems:
            log.warning("not paginating %s: a page would not match its outputSchema (%s)", spec.name, problems[0])
            return result
        _record("paginate", pending["rule"], mine, fired, _page_record(conv, snapshot_id, start, size, snap))
        return page

    # -- policy resolution --------------------------------------------------------------

    def _resolve(self, step: Step, overrides: Any) -> _Compiled:
        compiled = self.base
        mine = step.episode.state.get(STATE_KEY)
        episode_policy = mine.get("policy") if mine else None
        if episode_policy is not None:
            compiled = self._compile(parse_cached(episode_policy).over(compiled.policy))
        if overrides is not None:
            override = parse_cached(overrides)
            if override.scope == "episode":
                raw = overrides if not isinstance(overrides, Policy) else override.model_dump(mode="json")
                step.episode.state.setdefault(STATE_KEY, {})["policy"] = raw
                compiled = self._compile(override.over(self.base.policy))
            else:
                compiled = self._compile(override.over(compiled.policy))
        return compiled

    def _compile(self, policy: Policy) -> _Compiled:
        found = self._compiled.get(id(policy))
        if found is None or found.policy is not policy:
            if len(self._compiled) > 512:
                self._compiled = {id(self.base.policy): self.base}
            found = self._compiled[id(policy)] = _Compiled(policy)
        return found

    def _conv(self, spec: ToolSpec) -> pg.Conventions:
        found = self._conventions.get(spec.name)
        if found is None:
            found = self._conventions[spec.name] = pg.conventions(spec)
        return found

    # -- decisions ------------------------------------------------------------------------

    @staticmethod
    def _rng(step: Step, rule: Rule, purpose: str) -> Any:
        return step.episode.rng("perturb", rule.key, purpose, step.turn)

    def _fires(self, rule: Rule, step: Step, counts: JSONDict, fires_so_far: JSONDict) -> bool:
        key = rule.key
        n = counts[key] = counts.get(key, 0) + 1
        if rule.max_fires is not None and fires_so_far.get(key, 0) >= rule.max_fires:
            return False
        if rule.calls is not None and n not in rule.calls:
            return False
        if rule.every is not None and n % rule.every:
            return False
        if rule.turns is not None and step.turn not in rule.turns:
            return False
        if rule.probability is not None and not self._rng(step, rule, "fire").random() < rule.probability:
            return False
        return True

    def _delay(self, rule: Rule, step: Step) -> float:
        if rule.delay is None:
            return 0.0
        if isinstance(rule.delay, (int, float)):
            return float(rule.delay)
        low, high = rule.delay
        return self._rng(step, rule, "delay").uniform(low, high)

    @staticmethod
    def _fired(rule: Rule, mine: JSONDict, fired: list[JSONDict], extra: JSONDict) -> None:
        _record(rule.kind, rule.key, mine, fired, extra)

    def _rate_limit(self, rule: Rule, fires: bool, step: Step, mine: JSONDict, style: str) -> tuple[ToolResult, JSONDict] | None:
        """429 while the rule's window is open; a firing (or an exhausted quota) opens one."""
        windows: JSONDict = mine.setdefault("rate_limits", {})
        window = windows.get(rule.key) or {}
        if not fires and rule.limit is None and not window:
            return None  # the common case: not firing, no window open
        now = float(step.turn) if rule.clock == "turns" else time.time()
        until = window.get("until", 0.0)
        blocked = now < until
        if rule.limit is not None and rule.window is not None and not blocked:
            start = window.get("start", 0.0)
            if now - start >= rule.window:
                start, window["count"] = now, 0
            window["start"] = start
            window["count"] = window.get("count", 0) + 1
            if window["count"] > rule.limit:
                until, blocked = start + rule.window, True
                window["until"] = until
            windows[rule.key] = window
            first = blocked
        else:
            first = fires and not blocked
            if first:
                until, blocked = now + rule.retry_after, True
                windows[rule.key] = {**window, "until": until}
        if not blocked:
            return None
        remaining = until - now
        text = wording.error_text("rate_limit", step.tool, step.arguments, rule, style,  # type: ignore[arg-type]
                                  self._rng(step, rule, "text"), retry_after=remaining)
        retry = wording.retry_seconds(remaining)
        entry = {"message": text, "retry_after": retry, "blocked": not first}
        return _error(text, rule, retry_after=retry), entry

    def _instruct(self, rule: Rule, step: Step, mine: JSONDict, fired: list[JSONDict]) -> None:
        assert rule.text is not None
        events: list[JSONDict] = mine.setdefault("events", [])
        if any(e["rule"] == rule.key for e in events):
            return  # a persistent event happened already; _replay_events repeats it
        step.instructions.append(rule.text)
        if rule.persist:
            events.append({"rule": rule.key, "turn": step.turn, "text": rule.text})
        self._fired(rule, mine, fired, {"text": rule.text, "turn": step.turn})

    @staticmethod
    def _replay_events(step: Step, mine: JSONDict) -> None:
        for event in mine.get("events", ()):
            step.instructions.append(f"(since turn {event['turn']}) {event['text']}")

    def _fault(self, rule: Rule, step: Step, mine: JSONDict, fired: list[JSONDict], style: str) -> InjectedFault:
        if rule.kind == "protocol_error":
            message = rule.message or f"Internal error while calling {step.tool.name}"
            self._fired(rule, mine, fired, {"code": rule.rpc_code, "message": message})
            recorded = ToolResult.from_text(f"JSON-RPC error {rule.rpc_code}: {message}", is_error=True,
                                            meta={"agentworld/protocol_error": rule.rpc_code})
            return InjectedProtocolError(rule.rpc_code, message, recorded)
        text = wording.error_text("timeout", step.tool, step.arguments, rule, style,  # type: ignore[arg-type]
                                  self._rng(step, rule, "text"))
        self._fired(rule, mine, fired, {"seconds": rule.seconds, "message": text})
        return InjectedHang(rule.seconds, _error(text, rule))

    # -- pagination: later pages -----------------------------------------------------------

    def _continuation(self, step: Step, rules: tuple[Rule, ...], mine: JSONDict, fired: list[JSONDict], style: str) -> ToolResult | None:
        for rule in rules:
            if rule.kind == "paginate":
                break
        else:
            return None
        spec, args = step.tool, step.arguments
        conv = self._conv(spec)
        if conv.mode is None or not pg.is_continuation(conv, args):
            return None
        snapshots: JSONDict = mine.get("snapshots", {})
        if conv.mode == "cursor":
            decoded = pg.decode_cursor(args.get(conv.cursor_arg or ""))
            snap = snapshots.get(decoded[0]) if decoded else None
            if decoded is None or snap is None or snap["key"] != pg.snapshot_key(spec, args, conv):
                cursor = args.get(conv.cursor_arg or "")
                self._fired(rule, mine, fired, {"error": "invalid_cursor", "cursor": cursor})
                return _error(wording.bad_cursor_text(spec, cursor, style), rule)  # type: ignore[arg-type]
            snapshot_id, start = decoded
            size = pg.page_size(conv, args, snap["size"])
        else:
            key = pg.snapshot_key(spec, args, conv)
            snapshot_id = mine.get("latest", {}).get(key)
            snap = snapshots.get(snapshot_id) if snapshot_id else None
            if snap is None:
                return None  # no listing yet: let the world model answer, after() snapshots it
            size = pg.page_size(conv, args, snap["size"])
            start = pg.start_of(conv, args, size) or 0
        self._fired(rule, mine, fired, _page_record(conv, snapshot_id, start, size, snap))
        return pg.render_page(spec, conv, snap, snapshot_id, start, size)


def _record(kind: str, key: str, mine: JSONDict, fired: list[JSONDict], extra: JSONDict) -> None:
    """Count a firing (for ``max_fires``) and note it in the turn's record."""
    fires = mine.setdefault("fires", {})
    fires[key] = fires.get(key, 0) + 1
    fired.append({"kind": kind, "rule": key, **extra})


def _page_record(conv: pg.Conventions, snapshot_id: str, start: int, size: int, snap: JSONDict) -> JSONDict:
    return {"mode": conv.mode, "snapshot": snapshot_id, "offset": start, "page_size": size,
            "items": len(snap["items"][start : start + size]), "total": len(snap["items"])}


def _error(text: str, rule: Rule, **extra: Any) -> ToolResult:
    return ToolResult.from_text(text, is_error=True, meta={META_KEY: {"kind": rule.kind, "rule": rule.key, **extra}})


async def _sleep(seconds: float) -> None:
    if seconds > 0:
        await asyncio.sleep(seconds)


def perturber_for(world: World, policy: Any = None) -> PolicyPerturber:
    """The perturbation stage for ``world``, with an optional run-level ``policy`` on top."""
    return PolicyPerturber(world, policy)
