"""No import cycles among Fray's modules (service/ and workers/).

The graph is read from the source: every import counts, at any level, inside a function
or under `TYPE_CHECKING` too, since hiding an import there leaves the two modules as tangled
as before. `from a.b import c` is an edge to the module `a.b.c` when there is one, else to
`a.b`. A cycle is broken by moving the vocabulary both modules need into one of them, or
into a small module of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("service", "workers")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {
        module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    }


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The Fray modules `path` (the module `name`) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield from _known(full if full in known else base, known)


def _known(name: str, known: dict[str, Path]) -> Iterator[str]:
    """`name`, or the nearest package above it that is Fray's (nothing for a library)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    if name:
        yield name


def graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {other for other in imported(name, path, known) if other != name}
        for name, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module
    (Tarjan's algorithm), each as the modules in import order, first one repeated last."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [_cycle_in(component, edges) for component in components]


def _cycle_in(component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the component's first module (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for other in sorted(edges[node] & component):
            if other == start:
                return [*paths[node], start]
            if other not in paths:
                paths[other] = [*paths[node], other]
                queue.append(other)
    raise AssertionError(f"no cycle through {start}")


def test_no_module_of_service_or_workers_imports_itself_through_others() -> None:
    found = cycles(graph())
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_an_import_under_type_checking_or_in_a_function_is_an_edge(tmp_path: Path) -> None:
    source = tmp_path / "service" / "a.py"
    source.parent.mkdir()
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from service.b import B\n"
        "def f():\n    from service import c\n"
    )
    known = {"service.a": source, "service.b": source, "service.c": source}

    assert set(imported("service.a", source, known)) == {"service.b", "service.c"}


def test_a_cycle_is_found_and_named() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

    assert cycles(edges) == [["a", "b", "c", "a"]]
