"""The product stays general: the fidelity benchmark's classes and tools are named only under benchmarks/.

A world model that knew BFCL's tools by name would score well on the benchmark without being
any better on catalogs it has never seen, so src/ must not mention them. Names are read from
the installed bfcl-eval's function docs (the test skips, saying how to install it, without it).
Single-word tool names (``cat``, ``ls``, ``sort``, ``mkdir``) are ordinary command and verb
vocabulary that a general simulator rightly knows; every multi-word tool name
(``get_stock_info``, ``post_tweet``), every class name and the benchmark's own names count.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "agentworld_mcp"
INSTALL = "pip install --no-deps bfcl-eval mpmath"


def benchmark_names() -> set[str]:
    bfcl_eval = pytest.importorskip("bfcl_eval", reason=f"bfcl-eval is not installed; install it with: {INSTALL}")
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    docs = Path(bfcl_eval.__file__).parent / "data" / "multi_turn_func_doc"
    tools = {json.loads(line)["name"] for path in docs.glob("*.json")
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    distinctive = {name for name in tools if "_" in name or name != name.lower()}
    return distinctive | set(MULTI_TURN_FUNC_DOC_FILE_MAPPING) | {"bfcl", "gorilla"}


def test_no_benchmark_class_or_tool_name_appears_in_the_package_source() -> None:
    names = benchmark_names()
    assert len(names) > 50, "the function docs should name many tools"
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True))
                         + r")(?![A-Za-z0-9_])", re.IGNORECASE)
    found = [f"{path.relative_to(SRC.parent)}:{number}: {match.group(1)}"
             for path in sorted(SRC.rglob("*")) if path.is_file() and path.suffix in (".py", ".json", ".yaml", ".md")
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in pattern.finditer(line)]
    assert not found, "benchmark names in src/ (keep them under benchmarks/):\n" + "\n".join(found)
