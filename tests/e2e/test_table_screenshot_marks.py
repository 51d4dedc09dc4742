"""`make table-screenshots` runs the tests marked `table_screenshots` (pyproject.toml), so a
table test that calls `screenshots(` and is not marked would never refresh its pictures in
docs/table/. This reads the table tests' sources and fails on such a test, naming it."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).parent


def marked(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Attribute) and d.attr == "table_screenshots"
        for d in function.decorator_list
    )


def takes_screenshots(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "screenshots"
        for node in ast.walk(function)
    )


def test_every_table_test_that_takes_screenshots_is_marked_for_make_table_screenshots() -> None:
    takers, unmarked = [], []
    for path in sorted(HERE.glob("test_table*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and takes_screenshots(node):
                takers.append(node.name)
                if not marked(node):
                    unmarked.append(f"{path.name}::{node.name}")
    assert unmarked == [], f"mark these @pytest.mark.table_screenshots: {unmarked}"
    assert len(takers) >= 3, takers  # hex-tactical, fifty-two, delvers-deep
