"""PH missile ranges ("all rules not discussed herein are still viable"): a missile weapon's
`range` is its short, medium and long range in squares. No shot beyond long range
(`attack/out-of-range`, and a target that has walked beyond it by the shot's half-segment is
not shot at); to hit, the PH range modifiers: short 0, medium -2, long -5, which raise the
d20 roll needed by 2 and 5.

The archer (THAC0 20, DEX 10) wins initiative (orcs 7, pcs 3) and shoots the orc (AC 6) with
a longbow of range 3/6/12 squares: at short range it needs 14. A roll of 2 misses at every
range, so each shot rolls one d20 and no damage."""

from __future__ import annotations

from typing import Any

from service.rules.combat_ii.state import CombatIIState
from tests.rules.combat_ii.given import (
    ARCHER,
    LONGBOW,
    ORC,
    add,
    declare,
    encounter,
    line_map,
    one,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

BOW = {**LONGBOW, "range": [3, 6, 12]}
MISS = 2


def shooting(
    orc_at: tuple[int, int] | None,
    bow: dict[str, Any] = BOW,
    archer_at: tuple[int, int] = (0, 0),
    **options: Any,
) -> Table:
    """The archer (at (0, 0) unless placed) with the bow in hand, the orc at `orc_at` (off
    the map if None) on a 30 x 5 map; phase 1 awaits the orcs' declaration."""
    table = encounter(**options)
    line_map(table)
    add(table, "archer", "pcs", {**ARCHER, "weapons": [bow]}, at=archer_at)
    add(table, "orc", "orcs", ORC, at=orc_at)
    start(table, initiative=[7, 3])
    return table


def shot_needs(orc_at: tuple[int, int]) -> int:
    """The orc stands; the archer shoots it: the roll the shot needed."""
    table = shooting(orc_at)
    declare(table, "orc", "stand")
    stored = declare(table, "archer", "attack", dice=[MISS], targets=["orc"])
    shot = one(stored, "attack-rolled")
    assert shot["hit"] is False
    assert table.replayed() == table.state
    return int(shot["needed"])


def shoot_orc() -> dict[str, Any]:
    return {"type": "attack", "combatant_id": "archer", "targets": ["orc"]}


def fighter_used(state: CombatIIState, cid: str) -> dict[str, int]:
    return dict(state.fighters[cid].used)


def add_command(cid: str, stats: dict[str, Any]) -> dict[str, Any]:
    return {"type": "add-combatant", "combatant_id": cid, "name": cid, "side": "x", "stats": stats}


def test_short_range_has_no_modifier() -> None:
    """Up to 3 squares: THAC0 20 - AC 6 = 14, as without a range."""
    assert shot_needs((1, 0)) == shot_needs((3, 0)) == 14


def test_medium_range_is_minus_2_to_hit() -> None:
    """PH: medium range -2: 4 to 6 squares need 2 more than the same shot at short range."""
    short = shot_needs((3, 0))
    assert shot_needs((4, 0)) == shot_needs((6, 0)) == short + 2


def test_long_range_is_minus_5_to_hit() -> None:
    """PH: long range -5: 7 to 12 squares need 5 more than the same shot at short range."""
    short = shot_needs((3, 0))
    assert shot_needs((7, 0)) == shot_needs((12, 0)) == short + 5


def test_diagonal_distance_is_the_grid_distance() -> None:
    """The map counts diagonals as one square (chebyshev): (5, 4) is 5 squares off, medium."""
    assert shot_needs((5, 4)) == shot_needs((3, 0)) + 2


def test_a_target_beyond_long_range_is_refused() -> None:
    """13 squares is beyond the long range of 12: refused, nothing stored."""
    table = shooting((13, 0))
    declare(table, "orc", "stand")

    violation = refused(table, shoot_orc())

    assert violation.code == "attack/out-of-range"
    assert violation.rule == "combat-ii §2 C Physical Attacks"
    assert "Orc" in violation.message and "13 squares" in violation.message
    assert "12 squares" in violation.message


def test_the_range_counts_from_the_square_stepped_into() -> None:
    """A repositioning step toward the orc brings it from 13 squares to 12: the shot is
    declared, and rolled at long range from the new square."""
    table = shooting((13, 0))
    declare(table, "orc", "stand")

    stored = declare(table, "archer", "attack", dice=[MISS], targets=["orc"], step=[1, 0])

    assert one(stored, "attack-rolled")["needed"] == 14 + 5
    assert table.replayed() == table.state


def test_a_step_away_can_put_the_target_out_of_range() -> None:
    """The archer at (1, 0), 12 squares from the orc, steps back to (0, 0): 13 squares."""
    table = shooting((13, 0), archer_at=(1, 0))
    declare(table, "orc", "stand")
    assert refused(table, {**shoot_orc(), "step": [0, 0]}).code == "attack/out-of-range"


def test_without_a_range_the_gm_judges_any_distance() -> None:
    """A missile weapon with no `range` is today's: no check, no modifier at 29 squares."""
    table = shooting((29, 0), bow=LONGBOW)
    declare(table, "orc", "stand")

    stored = declare(table, "archer", "attack", dice=[MISS], targets=["orc"])

    assert one(stored, "attack-rolled")["needed"] == 14
    assert table.replayed() == table.state


def test_without_positions_there_is_no_range_check() -> None:
    """The orc is not on the map: the GM judges the distance, no modifier."""
    table = shooting(None)
    declare(table, "orc", "stand")

    stored = declare(table, "archer", "attack", dice=[MISS], targets=["orc"])

    assert one(stored, "attack-rolled")["needed"] == 14


def test_a_target_that_walks_beyond_long_range_is_not_shot_at() -> None:
    """Incremental movement: the orc, 12 squares off, walks a square in half-segment 2; the
    longbow (SF 8) would shoot in half-segment 4, by then at 13 squares: the shot is not made
    and not counted."""
    table = shooting((12, 0), incremental_movement=True)
    declare(table, "orc", "move", to=[15, 0])

    stored = declare(table, "archer", "attack", targets=["orc"])

    assert [e for e in stored if e.type == "attack-rolled"] == []
    assert fighter_used(state_of(table), "archer") == {}
    assert table.replayed() == table.state


def test_the_distance_is_measured_when_the_shot_is_rolled() -> None:
    """Incremental movement: the orc, 6 squares off (medium), walks a square in half-segment
    2; the shot in half-segment 4 is at 7 squares, long range: 14 + 5."""
    table = shooting((6, 0), incremental_movement=True)
    declare(table, "orc", "move", to=[9, 0])

    stored = declare(table, "archer", "attack", dice=[MISS], targets=["orc"])

    shot = one(stored, "attack-rolled")
    assert (shot["half_segment"], shot["needed"]) == (4, 14 + 5)
    assert table.replayed() == table.state


def test_a_melee_weapon_with_a_range_is_refused() -> None:
    table = encounter()
    stats = {**ORC, "weapons": [{"name": "axe", "speed": 7, "range": [1, 2, 3]}]}

    violation = refused(table, add_command("orc", stats))

    assert violation.code == "combatant/bad-stats"
    assert "only a missile weapon has a range" in violation.message


def test_ranges_are_1_to_100_squares_short_to_long() -> None:
    table = encounter()
    for bad in ([0, 2, 3], [1, 2, 101], [5, 4, 6], [1, 2]):
        stats = {**ARCHER, "weapons": [{**LONGBOW, "range": bad}]}
        assert refused(table, add_command("archer", stats)).code == "combatant/bad-stats"
