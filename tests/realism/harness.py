"""Run every episode against ``agentworld-mcp serve CATALOG.json`` and score its checks.

Each catalog gets its own server process and a real MCP client over stdio; catalogs run
concurrently. A catalog with recorded ground truth (``ground_truth/NAME.jsonl``) is also
compared, call by call, with what the real server answered (:mod:`.ground_truth`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.shared.exceptions import McpError

from ..conftest import stdio_session
from .checks import Answer, Context, resolve
from .episodes import EPISODES, Episode
from .ground_truth import compare, load

HERE = Path(__file__).resolve().parent
CATALOGS = HERE / "catalogs"
CALL_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Outcome:
    """One check on one answer: whether it holds, and why not."""

    catalog: str
    step: int
    tool: str
    what: str
    reason: str | None  # None: it holds
    doc: str

    @property
    def holds(self) -> bool:
        return self.reason is None


@dataclass
class CatalogReport:
    catalog: str
    outcomes: list[Outcome] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)  # tool names the server listed
    error: str | None = None  # why the catalog could not be served at all

    @property
    def passed(self) -> int:
        return sum(o.holds for o in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.holds]


def catalog_path(name: str) -> Path:
    return CATALOGS / f"{name}.json"


async def run_episode(episode: Episode) -> CatalogReport:
    """Play ``episode`` against the simulator serving its catalog; score every check."""
    try:
        listed, answers = await play(episode)
    except Exception as exc:  # noqa: BLE001 - the catalog does not load or serve: every check fails, with why
        leaf = _leaf(exc)
        why = f"not served: {type(leaf).__name__}: {leaf} (run `agentworld-mcp serve {catalog_path(episode.catalog)}`)"
        return CatalogReport(episode.catalog, [Outcome(episode.catalog, i, st.tool, c.what, why, c.doc)
                                               for i, st in enumerate(episode.steps) for c in st.checks],
                             error=why)
    report = CatalogReport(episode.catalog, score(episode, answers), listed)
    recorded = load(episode.catalog)
    if recorded:
        for index, (st, ours, real) in enumerate(zip(episode.steps, answers, recorded)):
            for what, reason in compare(ours, real):
                report.outcomes.append(Outcome(episode.catalog, index, st.tool, f"as the real server: {what}",
                                               reason, "ground truth"))
    return report


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, as anyio raises them."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def score(episode: Episode, answers: list[Answer]) -> list[Outcome]:
    """Every documented check of ``episode`` on ``answers`` (ours, or a real server's)."""
    outcomes = []
    ctx = Context()
    for index, (st, answer) in enumerate(zip(episode.steps, answers)):
        if st.save:  # before the checks: a check may compare the answer with itself (url from number)
            ctx.saved[st.save] = answer
        for chk in st.checks:
            outcomes.append(Outcome(episode.catalog, index, st.tool, chk.what, chk.predicate(answer, ctx), chk.doc))
    return outcomes


async def play(episode: Episode) -> tuple[list[str], list[Answer]]:
    """The tools listed, and the answer to each step (arguments resolved against earlier answers)."""
    answers: list[Answer] = []
    ctx = Context()
    async with stdio_session(str(catalog_path(episode.catalog))) as session:
        listed = await list_tool_names(session)
        for st in episode.steps:
            arguments = resolve(st.arguments, ctx)
            try:
                result = await asyncio.wait_for(session.call_tool(st.tool, arguments), CALL_TIMEOUT_S)
                answer = Answer.of(result.model_dump(by_alias=True, exclude_none=True, mode="json"))
            except (McpError, TimeoutError, RuntimeError) as exc:  # protocol error, hang, bad structuredContent
                # the checks see an error answer; the sweep counts these
                answer = Answer(True, f"{type(exc).__name__}: {exc}")
            answers.append(answer)
            if st.save:
                ctx.saved[st.save] = answer
    return listed, answers


async def list_tool_names(session: Any) -> list[str]:
    """Every tool name the server lists, through every page."""
    names: list[str] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(cursor)
        names += [tool.name for tool in page.tools]
        cursor = page.nextCursor
        if not cursor:
            return names


async def run_all(names: list[str] | None = None) -> list[CatalogReport]:
    episodes = [EPISODES[n] for n in (names or sorted(EPISODES))]
    return list(await asyncio.gather(*(run_episode(e) for e in episodes)))


def run(names: list[str] | None = None) -> list[CatalogReport]:
    """Every episode (or those named), scored: one report per catalog."""
    return asyncio.run(run_all(names))


def ratio(reports: list[CatalogReport]) -> tuple[int, int]:
    return sum(r.passed for r in reports), sum(r.total for r in reports)
