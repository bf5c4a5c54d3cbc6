"""No import cycles among the modules of the three packages: every ``import`` counts, at
module level, inside functions (a lazy import is still a dependency) and under
``TYPE_CHECKING`` alike. Read from the source with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agenttools_runtime", "agenttools", "agenttools_hook")


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of :data:`PACKAGES`."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules of *modules* that module *name* imports anywhere in its source.
    ``from package import name`` depends on the submodule when there is one by that name,
    else on the package (whose ``__init__`` then defines or re-exports it)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_files(root)
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(graph: Mapping[str, set[str]], component: list[str]) -> Iterator[str]:
    members = set(component)
    for name in component:
        for succ in sorted(graph[name] & members):
            yield f"{name} -> {succ}"


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    # a cycle made of a lazy import, a relative one and one under TYPE_CHECKING is found
    package = tmp_path / "agenttools_runtime"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from agenttools_runtime import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n"
    )
    (package / "c.py").write_text("from .a import f\n")
    (package / "d.py").write_text("from agenttools_runtime import a\n")
    graph = import_graph(tmp_path)
    assert cycles(graph) == [
        ["agenttools_runtime.a", "agenttools_runtime.b", "agenttools_runtime.c"]
    ]
    assert graph["agenttools_runtime.d"] == {"agenttools_runtime.a"}


def test_no_import_cycles() -> None:
    graph = import_graph(ROOT)
    assert len(graph) > 100  # the packages were found
    found = cycles(graph)
    assert found == [], "\n".join(line for c in found for line in describe(graph, c))
