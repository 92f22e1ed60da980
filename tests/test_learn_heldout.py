"""A world learned from one recorded session of a real server answers a different session of it, one it never
saw (issue 22): the held-out sessions under tests/ground_truth/heldout start from the server's initial state with
other entities and values. Each is replayed through a real MCP client over stdio against the learned world and
against the bare catalog, and scored with ``score``'s own comparison."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentworld_mcp.sim2real.learn import learn_world, write_learned
from agentworld_mcp.sim2real.score import PROVENANCE, evaluate

from .conftest import replayed

ROOT = Path(__file__).resolve().parents[1]
#: server: (training recording, its catalog)
TRAINED = {
    "taskmanager": ("tests/realism/ground_truth/taskmanager.jsonl", "tests/realism/catalogs/taskmanager.json"),
    "fastmcp_notes": ("tests/ground_truth/fastmcp_notes.jsonl", "tests/catalogs/fastmcp_notes.json"),
    # the sandbox root a listing showed before anything changed is seeded: listed even while empty
    "filesystem": ("tests/ground_truth/filesystem.jsonl", "tests/catalogs/filesystem.json"),
}


@pytest.mark.parametrize("server", sorted(TRAINED))
async def test_a_world_learned_from_one_session_beats_the_bare_catalog_on_a_session_it_never_saw(
        server: str, tmp_path: Path) -> None:
    recording, catalog = (str(ROOT / p) for p in TRAINED[server])
    heldout = ROOT / "tests" / "ground_truth" / "heldout" / f"{server}.jsonl"
    data, _ = learn_world([recording], catalog=catalog, output=tmp_path / "learned.json")
    learned = write_learned(tmp_path / "learned.json", data)
    scores = {}
    for name, world in (("bare", catalog), ("learned", str(learned))):
        episodes, answers = await replayed(world, [heldout])
        scores[name] = evaluate(name, episodes, answers)["overall"]
    assert scores["learned"]["score"] > scores["bare"]["score"]
    assert scores["learned"]["score"] >= 0.9
    provenance = scores["learned"]["provenance"]
    copied = provenance.get("argument", {"agreed": 0, "checked": 0})  # prose answers (filesystem) have none
    assert set(provenance) <= set(PROVENANCE) and copied["agreed"] == copied["checked"]


async def test_the_task_managers_next_task_after_one_is_done_is_the_first_pending_one_of_the_new_session(
        tmp_path: Path) -> None:
    recording, catalog = (str(ROOT / p) for p in TRAINED["taskmanager"])
    data, _ = learn_world([recording], catalog=catalog)
    learned = write_learned(tmp_path / "learned.json", data)
    episodes, answers = await replayed(str(learned), [ROOT / "tests" / "ground_truth" / "heldout" / "taskmanager.jsonl"])
    (turns,), (ours,) = episodes.values(), answers.values()
    nexts = [answer for turn, answer in zip(turns, ours) if turn.tool == "get_next_task"]
    assert ['"task-1"' in n["content"][0]["text"] for n in nexts] == [True, False]
    assert '"Hire a van"' in nexts[1]["content"][0]["text"]  # the held-out session's own task, not the training one's
