"""The dependency direction holds: domain <- rules <- app <- api / workers / cli.

Each layer may import only the layers below it. The domain and the rules are also pure
(tests/test_purity.py); here, which of Fray's own packages each may reach.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Package (by path) -> Fray modules it must not import (a prefix forbids its submodules).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "service/domain": ("service.rules", "service.app", "service.api", "service.engine",
                       "service.store", "service.cli", "workers"),
    "service/rules": ("service.app", "service.api", "service.engine", "service.store",
                      "service.cli", "workers"),
    "service/store": ("service.rules", "service.app", "service.api", "service.engine",
                      "service.cli", "workers"),
    "service/app": ("service.api", "service.cli", "workers"),
    "service/api": ("service.cli", "workers"),
    "service/engine.py": ("service.app", "service.api", "service.cli", "workers"),
    "service/deciding.py": ("service.app", "service.api", "service.engine", "service.cli",
                            "workers"),
    "service/audit": ("service.app", "service.api", "service.engine", "service.store",
                      "service.cli", "workers"),
    "workers": ("service.api", "service.cli"),
}  # fmt: skip


def files(where: str) -> list[Path]:
    path = ROOT / where
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


def imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


CASES = [
    pytest.param(path, forbidden, id=str(path.relative_to(ROOT)))
    for where, forbidden in FORBIDDEN.items()
    for path in files(where)
]


@pytest.mark.parametrize(("path", "forbidden"), CASES)
def test_each_module_imports_only_the_layers_below_it(
    path: Path, forbidden: tuple[str, ...]
) -> None:
    bad = [
        name
        for name in imports(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    ]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}, a layer above it"


# Packages at the top, beside the CLI: they may use every layer and nothing imports them.
TOP = {"demos"}


def test_every_package_has_a_place_in_the_layers() -> None:
    packages = {p.name for p in (ROOT / "service").iterdir() if (p / "__init__.py").is_file()}
    placed = {key.removeprefix("service/") for key in FORBIDDEN} | TOP
    assert packages <= placed, f"no layer for {sorted(packages - placed)}"
