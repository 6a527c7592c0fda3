"""No two modules of sari_core import each other, directly or round a longer circle.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import``,
at a module's top or inside a function (an import moved into a function still runs in a
circle). Imports under ``if TYPE_CHECKING:`` are left out: they never run, and a
type-only name may look up a layer. ``from package import name`` is an edge to
``package.name`` when that is a module, else to the package itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sari_core

PACKAGE = Path(sari_core.__file__).resolve().parent


def _modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]
              ) -> set[str]:
    """The modules of the package that one import statement names."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: counted from the importing module's package
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[:len(anchor) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                 for alias in node.names]
    out = set()
    for name in names:
        while name and name not in modules:  # ``import a.b.c`` of a name inside a.b.c
            name = name.rpartition(".")[0]
        if name:
            out.add(name)
    return out


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (TYPE_CHECKING left out)."""
    modules = _modules(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"), str(path))]
        while pending:
            node = pending.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _is_type_checking(child):
                    pending.extend(child.orelse)
                    continue
                edges |= _imported(child, module, is_package, modules)
                pending.append(child)
        edges.discard(module)
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle of imports, ``[a, b, ..., a]``, per group of modules that import each
    other (Tarjan's strongly connected components, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)
            elif step not in index:
                index[step] = low[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph[step]))))
            elif step in on_stack:
                low[node] = min(low[node], index[step])
    return [_circle_in(group, graph) for group in groups]


def _circle_in(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    first = min(group)
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for step in sorted(graph[node] & group):
                if step == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(came_from[path[-1]])
                    return [first, *reversed(path[:-1]), first]
                if step not in came_from:
                    came_from[step] = node
                    following.append(step)
        frontier = following
    raise AssertionError(f"no circle in {sorted(group)}")


def test_no_module_of_sari_core_imports_round_a_circle() -> None:
    found = circles(import_graph(PACKAGE, "sari_core"))
    assert not found, "import circles in sari_core:\n" + "\n".join(
        " -> ".join(circle) for circle in found)


def test_a_circle_is_named_even_through_an_import_inside_a_function(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "inner").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "inner" / "__init__.py").write_text("", encoding="utf-8")
    (root / "a.py").write_text("from pkg.inner import b\n", encoding="utf-8")
    (root / "inner" / "b.py").write_text("from . import c\n", encoding="utf-8")
    (root / "inner" / "c.py").write_text(
        "def late():\n    from pkg import a\n    return a\n", encoding="utf-8")
    # a type-only import back is no circle: it never runs
    (root / "d.py").write_text("from pkg.inner import e\n", encoding="utf-8")
    (root / "inner" / "e.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import d\n",
        encoding="utf-8")
    graph = import_graph(root, "pkg")
    assert circles(graph) == [["pkg.a", "pkg.inner.b", "pkg.inner.c", "pkg.a"]]
    assert "pkg.d" not in graph["pkg.inner.e"]
