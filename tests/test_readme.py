"""README promises two commands for a fresh machine; CI must run the second one verbatim."""

from __future__ import annotations

import re

from .conftest import ROOT


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text)


def test_readme_opens_with_a_serve_command_and_a_test_command():
    first, second = _readme_commands()[:2]
    assert "agentworld-mcp serve examples/worlds/" in first
    assert first.startswith("python3 -m venv") and "pip install -e ." in first
    assert "pytest" in second and ".[test]" in second


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci


def test_ci_also_runs_the_long_tier_the_readme_command_leaves_out():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "python -m pytest -m slow" in ci

