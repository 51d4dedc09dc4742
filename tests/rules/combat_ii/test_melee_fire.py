"""DMG Firing Into a Melee (the seed: "all rules not discussed herein are still viable"),
under the `firing_into_melee: "random"` option: "the DM counts the number of figures in the
immediate area of the intended target": medium figures count 1, small 1/2, large 2 (Fray
counts sixths: 6, 3, 12), and a die of the total picks the one the shot goes at.

The archer (pcs, at (0, 0)) shoots at the orc at (6, 0), in melee with the pcs' brute at
(5, 0) and beside the troll at (6, 1): shares brute 6, orc 6, troll 12 (a d24, counted in
that order). A kobold stands alone at (9, 0). The pcs win initiative; the archer declares
last, and a 2 on the d20 misses, so no damage die follows."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import only
from tests.rules.combat_ii.given import (
    ARCHER,
    LONG_SWORD,
    LONGBOW,
    ORC,
    add,
    declare,
    encounter,
    line_map,
    stand,
    start,
)
from tests.rules.harness import Table

MISS = 2
BRUTE = {"hp": 20, "thac0": 15, "ac": 5, "weapons": [LONG_SWORD]}
TROLL = {**ORC, "hp": 40, "size": "large"}
KOBOLD = {**ORC, "size": "small"}


def _scene(**options: Any) -> Table:
    table = encounter(**options)
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "brute", "pcs", BRUTE, at=(5, 0))
    add(table, "orc", "orcs", ORC, at=(6, 0))
    add(table, "troll", "orcs", TROLL, at=(6, 1))
    add(table, "kobold", "orcs", KOBOLD, at=(9, 0))
    start(table, initiative=[7, 3])
    stand(table, "kobold", "orc", "troll", "brute")
    return table


def _shoot(table: Table, target: str, dice: list[int]) -> list[Envelope]:
    return declare(table, "archer", "attack", targets=[target], dice=dice)


@pytest.mark.parametrize(
    ("roll", "hit"),
    [(1, "brute"), (6, "brute"), (7, "orc"), (12, "orc"), (13, "troll"), (24, "troll")],
)
def test_the_shot_goes_at_a_figure_by_its_size(roll: int, hit: str) -> None:
    table = _scene(firing_into_melee="random")

    phase = _shoot(table, "orc", [roll, MISS])

    shot = only(phase, "shot-into-melee")
    assert shot == {
        "attacker": "archer", "intended": "orc", "target": hit, "roll": roll,
        "shares": {"brute": 6, "orc": 6, "troll": 12},
    }  # fmt: skip
    assert only(phase, "attack-rolled")["target"] == hit
    assert table.replayed() == table.state


def test_a_target_in_no_melee_is_shot_at_as_aimed() -> None:
    """The kobold has no foe beside it: no die, the shot goes at it."""
    table = _scene(firing_into_melee="random")

    phase = _shoot(table, "kobold", [MISS])

    assert "shot-into-melee" not in table.types(phase)
    assert only(phase, "attack-rolled")["target"] == "kobold"


def test_by_default_the_shot_goes_at_the_target_named() -> None:
    table = _scene()

    phase = _shoot(table, "orc", [MISS])

    assert "shot-into-melee" not in table.types(phase)
    assert only(phase, "attack-rolled")["target"] == "orc"


def test_a_blow_in_melee_is_not_a_shot_into_it() -> None:
    table = encounter(firing_into_melee="random")
    line_map(table)
    add(table, "brute", "pcs", {**BRUTE, "weapons": [LONG_SWORD, LONGBOW]}, at=(5, 0))
    add(table, "orc", "orcs", ORC, at=(6, 0))
    add(table, "troll", "orcs", TROLL, at=(6, 1))
    start(table, initiative=[7, 3])
    stand(table, "orc", "troll")

    phase = declare(table, "brute", "attack", targets=["orc"], dice=[MISS])

    assert "shot-into-melee" not in table.types(phase)
