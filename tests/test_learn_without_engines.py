"""``learn`` works where the ``engines`` extra is not installed: workbook, document and presentation catalogs
fall back to the record model with a warning naming the extra, as serving does, instead of a traceback.

The extra's libraries are hidden from a fresh interpreter (``sys.modules[name] = None`` makes their import
fail as if they were not installed), which then runs what ``agentworld-mcp learn`` runs on a recorded
spreadsheet server's session.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ("openpyxl", "formulas", "docx", "pptx")
SCRIPT = f"""
import sys
for name in {HIDDEN!r}:
    sys.modules[name] = None
from agentworld_mcp.sim2real.learn import learn_world
world, _ = learn_world([{str(ROOT / "tests/ground_truth/sheet3_dev_server.jsonl")!r}],
                       catalog={str(ROOT / "tests/catalogs/sheet3_dev_server.json")!r}, name="sheet")
print("tools", len(world["tools"]))
"""


def test_a_spreadsheet_session_is_learned_without_the_engines_extra() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tools 56" in done.stdout
    assert "pip install -e '.[engines]'" in done.stderr  # the warning says what to install
