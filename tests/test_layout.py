"""The package layout: no import cycles between modules or packages, small folders, fix
builders in fixes/."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "jitlint"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every jitlint module's imports of jitlint modules: at module level, inside functions and
    under `if TYPE_CHECKING:` alike (each can close a cycle at run time or for a type checker)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name in paths}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")
                    base = base[: len(base) - node.level + (1 if is_package else 0)]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in paths:  # `from jitlint import selection` imports a module
                        edges.add(sub)
                    elif target in paths:
                        edges.add(target)
        graph[name] = edges - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the walk really saw the package
    assert cycles(graph) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def package_of(module: str) -> str:
    """The unit a package loop is counted between: `jitlint.X` (a top-level module such as
    `jitlint.config` is its own unit), and `jitlint.model.X` below the model, whose
    subpackages (jax, tf, project, ...) are floors of their own."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1:2] == ["model"] else parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph collapsed to packages (`package_of`); edges inside one package go."""
    packages: dict[str, set[str]] = {}
    for module, edges in graph.items():
        source = package_of(module)
        targets = packages.setdefault(source, set())
        targets |= {package_of(e) for e in edges} - {source}
    return packages


def test_no_package_cycles() -> None:
    packages = package_graph(import_graph())
    assert {"jitlint.engine", "jitlint.rules", "jitlint.model.jax"} <= packages.keys()
    assert cycles(packages) == []


def test_package_graph_collapses_modules() -> None:
    graph = {
        "jitlint.engine.runner": {"jitlint.rules.base", "jitlint.engine.linter"},
        "jitlint.rules.base": {"jitlint.engine.linter"},
        "jitlint.engine.linter": set(),
        "jitlint.model.tf.model": {"jitlint.model.project.lines"},
        "jitlint.model.project.outbound": {"jitlint.model.tf.function.graph"},
    }
    packages = package_graph(graph)
    # No loop between modules, but two between packages.
    assert cycles(graph) == []
    assert cycles(packages) == [
        ["jitlint.engine", "jitlint.rules"],
        ["jitlint.model.project", "jitlint.model.tf"],
    ]
    assert package_of("jitlint.config") == "jitlint.config"
    assert package_of("jitlint.model.context") == "jitlint.model.context"


def test_rules_and_fix_builders_import_downwards() -> None:
    graph = import_graph()
    for name, edges in graph.items():
        if name.startswith(("jitlint.model", "jitlint.fixes")):
            assert not {e for e in edges if e.startswith("jitlint.rules")}, name
        if name.startswith("jitlint.model"):
            assert not {e for e in edges if e.startswith("jitlint.fixes")}, name
        # The floors (python -> model -> fixes -> rules -> engine): the engine runs the rules,
        # never the other way, and python/ knows no other jitlint package.
        if name.startswith(("jitlint.python", "jitlint.model", "jitlint.fixes", "jitlint.rules")):
            assert not {e for e in edges if e.startswith("jitlint.engine")}, name
        if name.startswith("jitlint.python"):
            assert not {e for e in edges if not e.startswith("jitlint.python")}, name


def test_folders_stay_small() -> None:
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        if folder.name == "__pycache__":
            continue
        modules = list(folder.glob("*.py"))
        assert len(modules) <= 12, f"{folder}: {len(modules)} modules"


def test_fix_builders_live_in_fixes() -> None:
    misplaced = [p for p in PACKAGE.rglob("*_fix.py") if "fixes" not in p.parent.parts]
    assert misplaced == []
    assert not (PACKAGE.parent / "src").exists()
