"""benchmarks/fidelity.py, run as users run it, on a couple of BFCL entries.

Skips, saying how to install it, where bfcl-eval is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "fidelity.py"
INSTALL = "pip install --no-deps bfcl-eval mpmath"

pytest.importorskip("bfcl_eval", reason=f"bfcl-eval is not installed; install it with: {INSTALL}")
pytest.importorskip("mpmath", reason=f"mpmath is not installed; install it with: {INSTALL}")


def fidelity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def report(*args: str) -> dict[str, Any]:
    done = fidelity("--half", "dev", "--limit", "2", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def is_ratio(value: Any) -> bool:
    return isinstance(value, float | int) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def test_the_deterministic_model_gets_a_ratio_overall_per_class_and_per_tool() -> None:
    result = report("--variant", "typed")["results"]["dev"]["typed"]
    assert result["entries"] == 2 and result["calls"] > 0
    assert is_ratio(result["overall"]["score"])
    assert result["classes"] and all(is_ratio(s["score"]) for s in result["classes"].values())
    assert sum(s["calls"] for s in result["classes"].values()) == result["calls"]
    worst = [w["score"] for w in result["worst_tools"]]
    assert 0 < len(worst) <= 10 and worst == sorted(worst) and all(map(is_ratio, worst))


def test_a_world_model_that_answers_every_call_with_an_empty_object_scores_lower() -> None:
    real = report("--variant", "both")["results"]["dev"]
    floor = report("--variant", "both", "--backend", "empty")["results"]["dev"]
    for variant in ("typed", "bare"):
        assert floor[variant]["calls"] == real[variant]["calls"]
        assert floor[variant]["overall"]["score"] < real[variant]["overall"]["score"], variant


def test_the_text_report_names_each_half_variant_class_and_the_worst_tools() -> None:
    done = fidelity("--half", "eval", "--variant", "bare", "--limit", "1")
    assert done.returncode == 0, done.stderr
    assert "== eval / bare: 1 entries" in done.stdout
    assert "per class:" in done.stdout and "worst tools:" in done.stdout


def test_without_bfcl_eval_the_command_says_how_to_install_it() -> None:
    # bfcl_eval made unimportable inside the command's own interpreter.
    code = ("import runpy, sys; sys.modules['bfcl_eval'] = None; sys.argv = ['fidelity.py', '--limit', '1']; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert INSTALL in done.stderr and "Traceback" not in done.stderr


def test_a_limit_below_one_is_refused_with_a_usage_error() -> None:
    done = fidelity("--limit", "0")
    assert done.returncode == 2 and "--limit must be at least 1" in done.stderr
