"""hex-tactical 1.1.0 (issue 27): a move without a `path` takes, of its equally cheap paths,
the one nearest the straight line, and the move overlay of the legal actions judges what a
move provokes along that same path; 1.0.0, kept for the streams recorded with it, took the
first in reading order, which ran up a column and then across."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM
from service.domain.ruleset import RulesetBase
from service.rules.hex_tactical import RULESET
from service.rules.hex_tactical.v1_0 import RULESET_1_0
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import PLAYER, add, hex_map, start, state_of

# From the hex-tactical demo: Gorm's walk from (6,9) to (8,4), five cells either way.
STRAIGHT = [(6, 9), (6, 8), (7, 7), (7, 6), (8, 5), (8, 4)]
READING_ORDER = [(6, 9), (6, 8), (6, 7), (6, 6), (7, 5), (8, 4)]

VERSIONS = [
    pytest.param(RULESET, STRAIGHT, id="1.1.0: along the line"),
    pytest.param(RULESET_1_0, READING_ORDER, id="1.0.0: up the column, then across"),
]


def runner_past_an_orc(ruleset: RulesetBase[Any]) -> Table:
    """The runner at (6,9); an orc with a sword at (5,6) threatens (6,6) and (6,5), which
    the column path crosses and the straight one keeps clear of."""
    table = Table(ruleset, {"dice": "table", "reaction_window": 30.0})
    hex_map(table)
    add(table, "runner", (6, 9), side="pcs")
    add(table, "orc", (5, 6))
    start(table, 1, 2)
    return table


def xy(cell: dict[str, int]) -> tuple[int, int]:
    return (cell["x"], cell["y"])


@pytest.mark.parametrize(("ruleset", "path"), VERSIONS)
def test_a_move_takes_its_versions_path(
    ruleset: RulesetBase[Any], path: list[tuple[int, int]]
) -> None:
    table = runner_past_an_orc(ruleset)

    sent = table.send({"type": "move", "combatant_id": "runner", "to": [8, 4]}, actor=PLAYER)

    moved = next(e for e in sent if e.type == "moved")
    provoked = any(e.type == "opportunity-raised" for e in sent)
    if ruleset is RULESET:
        assert [xy(c) for c in moved.data["path"]] == path
        assert not provoked
    else:
        # Leaving (6,6) provokes the orc: the move pauses there for its attack.
        assert [xy(c) for c in moved.data["path"]] == path[:4]
        assert provoked


@pytest.mark.parametrize(("ruleset", "path"), VERSIONS)
def test_the_move_overlay_judges_the_path_the_move_takes(
    ruleset: RulesetBase[Any], path: list[tuple[int, int]]
) -> None:
    table = runner_past_an_orc(ruleset)
    (move,) = [a for a in ruleset.legal_actions(state_of(table), PLAYER) if a.type == "move"]

    (there,) = [c for c in move.params["reachable"] if xy(c["cell"]) == (8, 4)]

    assert there["cost"] == 5
    assert there["provokes"] == ([] if path == STRAIGHT else ["orc"])


@pytest.mark.parametrize(("ruleset", "path"), VERSIONS)
def test_the_gms_move_token_takes_its_versions_path_too(
    ruleset: RulesetBase[Any], path: list[tuple[int, int]]
) -> None:
    table = runner_past_an_orc(ruleset)

    sent = table.send({"type": "move-token", "combatant_id": "runner", "to": [8, 4]}, GM)

    assert [xy(c) for c in sent[0].data["path"]] == path
