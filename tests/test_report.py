"""What an agent did, readable by a person: the HTML report, the admin page, the terminal timeline.

Trajectories are recorded the way users record them (``serve --record --state`` driven by a
real MCP client), the report is written by the CLI and read back from the DOM that headless
Chromium builds from it (Debian's ``chromium`` package; ``AGENTWORLD_SKIP_BROWSER=1`` skips).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from .conftest import CLI, WORLDS, http_server, http_session, stdio_session

TRACKER = WORLDS / "issue-tracker.yaml"
HOSTILE = '\x1b[2JRocket <script>document.title="pwned"</script><img src=x onerror=alert(1)> crashes'
# The second call to add_comment in each episode is answered with an injected 429.
PERTURB = json.dumps({"kind": "rate_limit", "tools": "add_comment", "calls": [2]})


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found:
        return found
    if os.environ.get("AGENTWORLD_SKIP_BROWSER") == "1":
        pytest.skip("no chromium; AGENTWORLD_SKIP_BROWSER=1")
    pytest.fail("the report tests render HTML in headless Chromium: install it with "
                "`apt-get update && apt-get install -y chromium` (or set AGENTWORLD_SKIP_BROWSER=1 to skip)")


def browser(*args: str, page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", *args, page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120, check=True)


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag, self.attrs, self.text, self.parent = tag, attrs, "", parent

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class DOM(HTMLParser):
    """Every element of a page with its attributes and its text (what a person sees)."""

    VOID = {"meta", "img", "br", "hr", "input", "link"}

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self._open[-1] if self._open else None)
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data

    def all(self, tag: str, cls: str | None = None) -> list[Element]:
        return [e for e in self.elements if e.tag == tag and (cls is None or cls in e.classes)]


async def record(tmp_path: Path) -> tuple[Path, Path]:
    """Two episodes played over stdio by a real client, recorded to a trajectory and a state file."""
    traj, state = tmp_path / "traj.jsonl", tmp_path / "state.db"
    async with stdio_session(str(TRACKER), "--record", str(traj), "--state", str(state), "--perturb", PERTURB) as s:
        for episode in ("triage", "cleanup"):
            meta = {"agentworld/episode": episode}
            await s.call_tool("list_issues", {"status": "open"}, meta=meta)
            await s.call_tool("create_issue", {"title": HOSTILE, "priority": "high"}, meta=meta)
            await s.call_tool("update_issue", {"issue_id": 2, "status": "closed"}, meta=meta)
            await s.call_tool("get_issue", {"issue_id": 99}, meta=meta)
            await s.call_tool("add_comment", {"issue_id": 4, "body": "seen on v1.2"}, meta=meta)
            await s.call_tool("add_comment", {"issue_id": 4, "body": "again"}, meta=meta)
    return traj, state


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One recording shared by the tests that only read it (each stdio server costs seconds)."""
    return asyncio.run(record(tmp_path_factory.mktemp("recorded")))


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "report", *args], capture_output=True, text=True, timeout=120)


def rows(dom: DOM) -> list[tuple[str, str, str, str]]:
    """The timeline tables: (tool, outcome, changed, injected) per call, every episode."""
    out = []
    for row in dom.all("tr", "row"):
        cells = [c for c in dom.elements if c.tag == "td" and c.parent is row]
        out.append((cells[2].text, cells[4].text.split(":")[0], cells[5].text.strip(), cells[6].text))
    return out


EXPECTED = [
    ("list_issues", "ok", "", ""),
    ("create_issue", "ok", "+issues/4", ""),
    ("update_issue", "ok", "~issues/2", ""),
    ("get_issue", "error", "", ""),
    ("add_comment", "ok", "+comments/1", ""),
    ("add_comment", "error", "", "rate_limit"),
]


def test_report_of_a_recorded_trajectory_reads_as_a_timeline_in_a_browser(tmp_path: Path,
                                                                          recorded: tuple[Path, Path]) -> None:
    traj, _ = recorded
    page = tmp_path / "report.html"
    made = report(str(traj), "-o", str(page), "--world", str(TRACKER))
    assert made.returncode == 0, made.stderr
    assert "2 episode(s), 12 call(s)" in made.stderr

    dom = DOM(browser("--dump-dom", page=page).stdout)
    assert [s.attrs["data-episode"] for s in dom.all("section", "episode")] == ["triage", "cleanup"]
    assert rows(dom) == EXPECTED * 2
    # Errors are marked, injected perturbations shown, each call's changes listed with the fields.
    assert [t.attrs["data-tool"] for t in dom.all("li", "error")] == ["get_issue", "add_comment"] * 2
    assert "Issue not found: 99" in dom.all("li", "error")[0].text
    assert [p.attrs["data-kind"] for p in dom.all("li", "perturbation")] == ["rate_limit"] * 2
    updated = dom.all("li", "updated")[0]
    assert (updated.attrs["data-collection"], updated.attrs["data-key"]) == ("issues", "2")
    assert "status: open \u2192 closed" in updated.text
    # structuredContent folds away; tool output is text on the page, never markup.
    assert dom.all("details", "structured") and "open" not in dom.all("details", "structured")[0].attrs
    assert not dom.all("script") and not dom.all("img")
    # Each row of the table links to that call in full.
    assert [a.attrs["href"] for a in dom.all("a")] == ["#" + t.attrs["id"] for t in dom.all("li", "turn")]

    assert json.loads(dom.all("pre", "arguments")[1].text)["title"] == HOSTILE
    assert "pwned" not in " ".join(t.text for t in dom.all("title"))
    markup = page.read_text(encoding="utf-8")
    assert "http://" not in markup.split("<main>")[0] and "https://" not in markup.split("<main>")[0]  # no CDN


def test_both_trajectory_line_formats_and_the_state_file_give_the_same_report(tmp_path: Path,
                                                                             recorded: tuple[Path, Path]) -> None:
    traj, state = recorded
    lines = [json.loads(line) for line in traj.read_text().splitlines()]
    # the per-turn data, whichever format was written (a per-turn file's world header is no turn)
    turns = [line.get("agentworld", line) for line in lines if "trajectory" not in line]
    (tmp_path / "per-turn.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    (tmp_path / "bench.jsonl").write_text("".join(
        json.dumps({"task": "mcp", "id": f"{t['world']}/{t['episode']}", "agentworld": t}) + "\n" for t in turns))

    seen = {}
    for name, args in (("per-turn", [str(tmp_path / "per-turn.jsonl"), "--world", str(TRACKER)]),
                       ("bench", [str(tmp_path / "bench.jsonl"), "--world", str(TRACKER)]),
                       ("state", ["--state", str(state)])):  # the state file stores its world
        page = tmp_path / f"{name}.html"
        assert report(*args, "-o", str(page)).returncode == 0
        seen[name] = rows(DOM(page.read_text(encoding="utf-8")))
    assert seen["per-turn"] == seen["bench"] == seen["state"] == EXPECTED * 2

    page = tmp_path / "named.html"  # the lines name a bundled world: it is found without --world
    assert report(str(tmp_path / "per-turn.jsonl"), "-o", str(page)).returncode == 0
    assert rows(DOM(page.read_text(encoding="utf-8"))) == EXPECTED * 2

    # a world that cannot be found by its name: the calls are shown, and the page says why no changes
    (tmp_path / "private.jsonl").write_text("".join(json.dumps({**t, "world": "private-tracker"}) + "\n" for t in turns))
    page = tmp_path / "no-world.html"
    assert report(str(tmp_path / "private.jsonl"), "-o", str(page)).returncode == 0
    dom = DOM(page.read_text(encoding="utf-8"))
    assert [r[:2] for r in rows(dom)] == [r[:2] for r in EXPECTED * 2]
    assert any("--world WORLD" in p.text for p in dom.all("p", "none"))


def test_fidelity_scores_carried_by_turns_are_shown_per_tool(tmp_path: Path, recorded: tuple[Path, Path]) -> None:
    traj, _ = recorded
    lines = [json.loads(line) for line in traj.read_text().splitlines()]
    turns = [line.get("agentworld", line) for line in lines if "trajectory" not in line]
    scored = [{**t, "info": {"fidelity": {"score": 0.5 + 0.1 * (i % 2)}}} for i, t in enumerate(turns[:6])]
    (tmp_path / "scored.jsonl").write_text("".join(json.dumps(t) + "\n" for t in scored))
    page = tmp_path / "scored.html"
    assert report(str(tmp_path / "scored.jsonl"), "-o", str(page)).returncode == 0
    dom = DOM(page.read_text(encoding="utf-8"))
    [table] = dom.all("table", "fidelity")
    cells = [[c.text for c in dom.elements if c.tag == "td" and c.parent is row]
             for row in dom.elements if row.tag == "tr" and row.parent is table]
    assert [c for c in cells if c] == [["add_comment", "2", "0.550", "0.500"], ["create_issue", "1", "0.600", "0.600"],
                                       ["get_issue", "1", "0.600", "0.600"], ["list_issues", "1", "0.500", "0.500"],
                                       ["update_issue", "1", "0.500", "0.500"]]


def test_report_usage_errors_are_one_line(tmp_path: Path) -> None:
    nothing = report("-o", str(tmp_path / "x.html"))
    assert nothing.returncode == 2 and "give trajectory files" in nothing.stderr
    missing = report(str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "x.html"))
    assert missing.returncode != 0 and "cannot read trajectory file" in missing.stderr
    assert "Traceback" not in missing.stderr


async def test_admin_report_page_of_a_running_server(tmp_path: Path) -> None:
    with http_server(str(TRACKER), "--admin") as url:
        async with http_session(url, headers={"x-agentworld-episode": "live"}) as session:
            await session.call_tool("create_issue", {"title": HOSTILE})
            await session.call_tool("delete_issue", {"issue_id": 1})
        base = url.rsplit("/mcp", 1)[0]
        async with httpx.AsyncClient(base_url=base) as client:
            page = await client.get("/admin/episodes/live/report")
            missing = await client.get("/admin/episodes/nope/report")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert missing.status_code == 404
    (tmp_path / "live.html").write_text(page.text, encoding="utf-8")
    dom = DOM(browser("--dump-dom", page=tmp_path / "live.html").stdout)
    assert [(c.attrs["class"], c.attrs["data-key"]) for c in dom.all("li", "change")] == [
        ("change created", "4"), ("change deleted", "1")]
    assert not dom.all("script")


def test_episodes_show_turns_prints_a_timeline(recorded: tuple[Path, Path]) -> None:
    _, state = recorded
    shown = subprocess.run([*CLI, "episodes", "show", "--state", str(state), "triage", "--turns"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "episode 'triage' of issue-tracker: 6 call(s), 2 error(s), 1 perturbation(s)"
    assert lines[1].startswith(" 1  list_issues(status=open)  -> ok  [")
    assert "    changed: ~issues/2" in lines
    assert any(line.startswith("!4  get_issue(issue_id=99)  -> error: Issue not found: 99") for line in lines)
    assert lines[-1].startswith("    perturbation: rate_limit (")
    assert "\x1b" not in shown.stdout

    machine = subprocess.run([*CLI, "episodes", "show", "--state", str(state), "triage", "--turns", "--json"],
                             capture_output=True, text=True, timeout=60)
    data = json.loads(machine.stdout)
    assert [t["tool"] for t in data["trajectory"]][:2] == ["list_issues", "create_issue"]
    [change] = data["trajectory"][2]["changes"]
    assert (change["op"], change["collection"], change["key"]) == ("updated", "issues", "2")
    assert change["fields"]["status"] == ["open", "closed"]  # [before, after]
