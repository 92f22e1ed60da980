"""`score --judge` against a real small language model (Gemma 3 270M under llama.cpp, on the CPU).

A model this small is a poor judge; what this checks is the plumbing a user relies on with
any model: every answer is put to the judge, each verdict is either five scores within 1-5
or counted as unparsed, and the normalised overall follows from the means.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import thirdparty
from .test_llm_e2e import MODEL, llama_server  # noqa: F401  (the session's llama.cpp server)
from .test_score_learn import memory_script, record_episode

pytestmark = pytest.mark.slow


async def test_a_real_model_judges_every_replayed_answer(llama_server: str, tmp_path: Path) -> None:  # noqa: F811
    recording = tmp_path / "traffic.jsonl"
    script = memory_script(["Alice", "Bob", "Carol"], "Acme")[:3]
    await record_episode(recording, thirdparty.memory_server(), script, thirdparty.memory_env(tmp_path))
    done = thirdparty.run_cli("score", str(recording), "--judge", "--judge-url", llama_server,
                              "--judge-model", MODEL, "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    verdict = report["overall"]["judge"]
    rated = verdict["rated"] if verdict else 0
    print(f"judge {MODEL}: {verdict}, unparsed {report['judge']['unparsed']}")
    assert rated + report["judge"]["unparsed"] == len(script), report["judge"]
    if verdict:
        means = [verdict[d] for d in ("format", "factuality", "consistency", "realism", "quality")]
        assert all(1 <= m <= 5 for m in means)
        assert verdict["overall"] == pytest.approx((sum(means) / 5 - 1) / 4 * 100, abs=0.1)
