"""The module graph of ``src/agentworld_mcp`` has no cycles, and the layers point one way.

Every import counts, including those inside functions (a lazy import is still a
dependency); imports under ``if TYPE_CHECKING:`` do not (they never run). The package's
``__init__`` re-exports names lazily and is left out. See docs/architecture.md, "Layering".
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "agentworld_mcp"
PACKAGE = "agentworld_mcp"

#: Modules that must not import the MCP SDK (it lives in transport.py and mirror's use of it).
SDK_FREE = ("engine", "step", "catalog", "roles", "ledger", "episode", "world", "config", "result", "errors")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports (resolved, relative or absolute)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # ``from . import guard`` names a submodule; the package itself runs as a parent anyway.
            names = [f"{base}.{a.name}" for a in node.names]
            targets = names if node.module is None else [base, *names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and target != PACKAGE:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    paths = sorted(SRC.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths if module_name(p) != PACKAGE}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


def test_the_module_graph_has_no_cycles() -> None:
    found = cycles(graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_backends_and_perturbations_never_import_each_other_or_the_layers_above() -> None:
    edges = graph()
    above = {f"{PACKAGE}.{m}" for m in ("engine", "transport", "cli", "langgraph", "pytest_plugin", "admin")}
    for module, targets in edges.items():
        if module.startswith((f"{PACKAGE}.backends", f"{PACKAGE}.perturb")):
            assert not targets & above, f"{module} imports a layer above it: {sorted(targets & above)}"
        if module.startswith(f"{PACKAGE}.backends"):
            assert not any(t.startswith(f"{PACKAGE}.perturb") for t in targets), module
        if module.startswith(f"{PACKAGE}.perturb"):
            assert not any(t.startswith(f"{PACKAGE}.backends") for t in targets), module


def test_the_mcp_sdk_stays_out_of_the_core() -> None:
    for name in SDK_FREE:
        text = (SRC / f"{name}.py").read_text(encoding="utf-8")
        assert "import mcp" not in text and "from mcp" not in text, f"{name}.py imports the MCP SDK"
