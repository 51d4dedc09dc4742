"""Rules code has no I/O, no clock and no randomness: time and dice come through the context."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE = [ROOT / "service" / "rules", ROOT / "service" / "domain"]
FORBIDDEN_MODULES = {
    "random", "secrets", "time", "os", "socket", "uuid", "asyncio", "threading", "subprocess",
    "redis", "rq", "starlette", "strawberry", "uvicorn", "httpx", "requests", "urllib",
    "service.store", "service.engine", "service.app", "service.cli", "workers",
}  # fmt: skip
FORBIDDEN_CALLS = {"now", "utcnow", "today", "time", "monotonic", "perf_counter", "urandom"}


def pure_files() -> list[Path]:
    return sorted(p for folder in PURE for p in folder.rglob("*.py"))


def imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN_MODULES)


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_and_domain_import_no_io_clock_or_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = [m for m in imported_modules(tree) if forbidden(m)]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_and_domain_read_no_clock(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    calls = [
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in FORBIDDEN_CALLS
    ]
    assert not calls, f"{path.name} calls {calls}"


def test_the_purity_check_catches_an_offender(tmp_path: Path) -> None:
    offender = "import random\nfrom datetime import datetime\nx = datetime.now()\n"
    tree = ast.parse(offender)
    assert [m for m in imported_modules(tree) if forbidden(m)] == ["random"]
    assert any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "now"
        for n in ast.walk(tree)
    )


def test_every_ruleset_is_checked() -> None:
    checked = {p.parent.name for p in pure_files() if p.parent.parent.name == "rules"}
    on_disk = {
        p.name
        for p in (ROOT / "service" / "rules").iterdir()
        if p.is_dir() and p.name != "__pycache__"
    }
    assert on_disk <= checked
