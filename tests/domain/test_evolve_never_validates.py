"""`evolve` never validates (STYLE.md, the Decider pattern): a stored event is validated once,
when it is parsed (`RulesetBase.event_from`, through its upcasters), and evolve only folds.
So tightening a model never breaks the fold of what was already read."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from service.domain.common import stat_block_events
from service.domain.ruleset import RulesetBase
from service.rules.registry import RULESETS
from tests.rules.harness import Table

SERVICE = Path(__file__).resolve().parents[2] / "service"
EVOLVE_MODULES = sorted([*SERVICE.glob("rules/**/evolve*.py"), *SERVICE.glob("domain/*evolve*.py")])
FUNCTION_SCOPES = sorted([*SERVICE.glob("domain/*.py"), *SERVICE.glob("rules/**/*.py")])
VALIDATING = ("model_validate", "validate", "parse", "TypeAdapter")


def _called(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def validating_calls(tree: ast.AST) -> list[tuple[int, str]]:
    """Calls that validate or parse: model_validate*, TypeAdapter, validate_*, parse*."""
    return [
        (node.lineno, name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (name := _called(node)) is not None
        and name.startswith(VALIDATING)
    ]


def _evolve_functions(tree: ast.AST) -> list[ast.AST]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.lstrip("_").startswith("evolve")
    ]


def test_the_scan_finds_every_rulesets_evolve() -> None:
    assert {p.parent.name for p in EVOLVE_MODULES} >= {*(r.replace("-", "_") for r in RULESETS)}
    assert SERVICE / "domain" / "table_evolve.py" in EVOLVE_MODULES


def test_the_scan_sees_a_validating_call() -> None:
    source = "def evolve_own(s, e):\n    return Stats.model_validate(e.stats), TypeAdapter(int)\n"
    assert validating_calls(ast.parse(source)) == [(2, "model_validate"), (2, "TypeAdapter")]


@pytest.mark.parametrize("path", EVOLVE_MODULES, ids=lambda p: str(p.relative_to(SERVICE)))
def test_no_evolve_module_validates_or_parses(path: Path) -> None:
    assert validating_calls(ast.parse(path.read_text())) == []


@pytest.mark.parametrize("path", FUNCTION_SCOPES, ids=lambda p: str(p.relative_to(SERVICE)))
def test_no_evolve_function_validates_or_parses(path: Path) -> None:
    tree = ast.parse(path.read_text())
    found = [call for f in _evolve_functions(tree) for call in validating_calls(f)]
    assert found == []


# Each stat block's health, at a value its model refuses (hit points below the minimum), as
# if the model had been tightened after the block was stored.
REFUSED: dict[str, tuple[str, int]] = {
    "freeform": ("hp", -1),
    "delvers-deep": ("health", 0),
    "fifty-two": ("hp", 0),
    "d20-action-points": ("hp", 0),
    "hex-tactical": ("hp", 0),
    "combat-ii": ("hp", 0),
}


def _refused_block(ruleset: RulesetBase[Any]) -> BaseModel:
    field, value = REFUSED[ruleset.name]
    valid = ruleset.stats_model()
    block = ruleset.stats_model.model_construct(**{**dict(valid), field: value})
    with pytest.raises(ValidationError):
        ruleset.stats_model.model_validate(block.model_dump())
    return block


def test_every_ruleset_has_a_refused_block() -> None:
    assert set(REFUSED) == set(RULESETS)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_stored_block_the_model_now_refuses_still_folds(name: str) -> None:
    ruleset = RULESETS[name]
    added_model, updated_model = stat_block_events(ruleset.stats_model)
    block = _refused_block(ruleset)
    added = added_model(combatant_id="vale", name="Vale", side="heroes", stats=block)
    updated = updated_model(combatant_id="vale", side="villains", stats=block)
    state = ruleset.apply(Table(ruleset).state, [added, updated])
    vale = state.table.combatants["vale"]
    field, value = REFUSED[name]
    assert vale.side == "villains" and vale.stats[field] == value
