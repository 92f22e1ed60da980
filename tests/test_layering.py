"""The tree is the architecture: one package per layer, imports pointing one way.

``LAYERS`` is the order of the packages, written once here and drawn in
docs/architecture.md: a module may import its own package and the packages after its own,
never one before it, and never a package in the same row as its own. Every import counts,
including those inside functions (a lazy import is still a dependency); imports under
``if TYPE_CHECKING:`` do not (they never run). The package's ``__init__`` re-exports names
lazily and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "agentworld_mcp"
PACKAGE = "agentworld_mcp"

#: The layers, top first. Packages in one row are siblings that never import each other.
LAYERS: list[tuple[str, ...]] = [
    ("__main__",),
    ("langgraph", "pytest_plugin"),  # old import paths, aliases of the integrations' modules
    ("cli",),
    ("integrations",),
    ("fiction",),
    ("sim2real",),
    ("serve",),
    ("trajectories",),
    ("pipeline",),
    ("models", "perturb"),
    ("state",),
    ("world",),
    ("errors",),
]

#: At most this many modules at the top of the package; the rest live in their layer.
TOP_LEVEL = {"__init__", "__main__", "errors", "langgraph", "pytest_plugin"}

#: The only package that may import the MCP SDK (and only in serve/transport.py).
SDK_MODULE = f"{PACKAGE}.serve.transport"


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


def layer_of(module: str) -> int:
    top = module.split(".")[1]
    for rank, row in enumerate(LAYERS):
        if top in row:
            return rank
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS (and docs/architecture.md)")


def test_the_module_graph_has_no_cycles() -> None:
    found = cycles(graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def wrong_imports(edges: dict[str, set[str]]) -> list[str]:
    """``"A imports B"`` for each import against the order in ``LAYERS``."""
    wrong = []
    for module, targets in sorted(edges.items()):
        for target in sorted(targets):
            here, there = layer_of(module), layer_of(target)
            same_package = module.split(".")[1] == target.split(".")[1]
            if there < here or (there == here and not same_package):
                wrong.append(f"{module} imports {target}")
    return wrong


def test_every_import_points_down_the_layers() -> None:
    wrong = wrong_imports(graph())
    assert wrong == [], "imports against the order in LAYERS:\n" + "\n".join(wrong)


def test_an_upward_or_sideways_import_is_reported_with_both_module_names() -> None:
    edges = {
        f"{PACKAGE}.state.ledger": {f"{PACKAGE}.pipeline.engine", f"{PACKAGE}.world.roles"},
        f"{PACKAGE}.models.llm": {f"{PACKAGE}.perturb.policy"},
    }
    assert wrong_imports(edges) == [
        f"{PACKAGE}.models.llm imports {PACKAGE}.perturb.policy",
        f"{PACKAGE}.state.ledger imports {PACKAGE}.pipeline.engine",
    ]


def test_the_top_level_holds_only_what_belongs_to_no_layer() -> None:
    top = {p.stem for p in SRC.glob("*.py")}
    assert top <= TOP_LEVEL, f"modules outside a layer package: {sorted(top - TOP_LEVEL)}"
    for package in (p for p in SRC.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        init = package / "__init__.py"
        assert init.is_file(), f"{package.name}/ is not a package"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{package.name}/__init__.py says what the layer is for and what it may import"


def test_the_mcp_sdk_is_imported_only_by_the_serving_layer() -> None:
    for path in sorted(SRC.rglob("*.py")):
        name = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        if any(m == "mcp" or m.startswith("mcp.") for m in imported):
            assert name == SDK_MODULE, f"{name} imports the MCP SDK; only {SDK_MODULE} may"
