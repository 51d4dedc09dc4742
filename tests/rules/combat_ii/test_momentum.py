"""combat-ii §2 D: the Strength check to speed up to a running pace (PH p. 120), and Table 3's
per-half-segment minimum to keep a speed under the incremental movement option.

The fighter (base MV 12, STR 10 unless given) starts at (0, 0) on an 80-square lane with the
ogre far off; the fighter's side wins, so the ogre stands first and the fighter's move
resolves the phase and carries its dice."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import duel, fighter_of, stand
from tests.rules.combat_ii.given import data_of, declare, one, state_of
from tests.rules.harness import Table

PASS, FAIL = 10, 11
"""d20s for a STR 10 check: at or under the score passes."""


def lane(fighter: dict[str, Any] | None = None, **options: Any) -> Table:
    return duel(fighter=fighter, ogre_at=(79, 4), width=80, **options)


def run_to(table: Table, x: int, dice: list[int] | None = None, **more: Any) -> list[Envelope]:
    """The ogre stands; the fighter moves along the lane to (x, 0)."""
    stand(table, "ogre")
    return declare(table, "fighter", "move", dice=dice, to=[x, 0], **more)


def squares(envelopes: list[Envelope]) -> int:
    return sum(len(m["path"]) - 1 for m in data_of(envelopes, "moved"))


def x_of(table: Table) -> int:
    position = state_of(table).table.combatants["fighter"].position
    assert position is not None
    return position.x


# --- §2 D Acceleration: the STR check (PH p. 120) ------------------------------------------------


def test_speeding_up_to_3x_takes_a_passed_strength_check() -> None:
    """§2 D: "Apply the new rate immediately, after using PH rules for chances for success
    based on Strength (p. 120)": 10 against STR 10 passes, and the fighter runs at 3x."""
    table = lane()

    ran = run_to(table, 79, dice=[PASS], speed=3)

    check = one(ran, "check-rolled")["check"]
    assert (check["ability"], check["score"], check["roll"], check["passed"]) == (
        "strength",
        10,
        10,
        True,
    )
    assert check["purpose"] == "accelerate to 3x MV"
    assert table.types(ran).index("check-rolled") < table.types(ran).index("speed-changed")
    assert one(ran, "speed-changed")["factor"] == 3
    assert squares(ran) == 12
    assert fighter_of(table, "fighter").factor == 3
    assert table.replayed() == table.state


def test_a_failed_strength_check_holds_the_mover_to_jogging() -> None:
    """Fray's reading of the PH chance: a failure leaves the fastest speed that needs no
    check, 2x (8 squares at MV 12), restated as the mover's intention."""
    table = lane()

    ran = run_to(table, 79, dice=[FAIL], speed=3)

    assert one(ran, "check-rolled")["check"]["passed"] is False
    declared, restated = data_of(ran, "intention-declared")
    assert (declared["automatic"], declared["intention"]["speed"]) == (False, 3)
    assert (restated["automatic"], restated["intention"]["speed"]) == (True, 2)
    assert one(ran, "speed-changed")["factor"] == 2
    assert squares(ran) == 8
    assert fighter_of(table, "fighter").factor == 2
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("strength", "roll", "passed"),
    [
        pytest.param(15, 15, True, id="STR 15: 15 passes"),
        pytest.param(15, 16, False, id="STR 15: 16 fails"),
        pytest.param(3, 4, False, id="STR 3: 4 fails"),
        pytest.param(18, 18, True, id="STR 18: 18 passes"),
    ],
)
def test_the_strength_score_is_the_chance(strength: int, roll: int, passed: bool) -> None:
    table = lane({"strength": strength})

    ran = run_to(table, 79, dice=[roll], speed=3)

    assert one(ran, "check-rolled")["check"]["passed"] is passed
    assert fighter_of(table, "fighter").factor == (3 if passed else 2)


@pytest.mark.parametrize(
    ("speed", "moved"),
    [
        pytest.param(1, 4, id="walking: automatic"),
        pytest.param(2, 8, id="jogging: no check"),
    ],
)
def test_walking_and_jogging_need_no_strength_check(speed: int, moved: int) -> None:
    """§2 D: "Movement from standstill to walking speed (base MV) is automatic"; Fray checks
    only a running speed (3x or more). No die is given: a check would be refused for want
    of one."""
    table = lane()

    ran = run_to(table, 79, speed=speed)

    assert data_of(ran, "check-rolled") == []
    assert squares(ran) == moved
    assert table.replayed() == table.state


def test_keeping_a_running_speed_needs_no_new_check() -> None:
    table = lane()
    run_to(table, 79, dice=[PASS], speed=3)

    kept = run_to(table, 79)  # still 3x: no die

    assert data_of(kept, "check-rolled") == []
    assert squares(kept) == 12
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("roll", "factor", "moved"),
    [
        pytest.param(PASS, 5, 20, id="passed: 5x, 20 squares"),
        pytest.param(FAIL, 3, 12, id="failed: keeps 3x, 12 squares"),
    ],
)
def test_speeding_up_from_3x_to_5x_checks_again(roll: int, factor: int, moved: int) -> None:
    """§2 D: "reaching maximum movement of 5x MV in two phases"; each speed-up into a running
    pace is checked. A failure costs the speed-up, not the 3x already reached."""
    table = lane()
    run_to(table, 79, dice=[PASS], speed=3)

    ran = run_to(table, 79, dice=[roll], speed=5)

    assert one(ran, "check-rolled")["check"]["purpose"] == "accelerate to 5x MV"
    assert squares(ran) == moved
    assert fighter_of(table, "fighter").factor == factor
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("roll", "factor", "overrun_to"),
    [
        pytest.param(PASS, 3, 12, id="passed: 3x, 12 squares"),
        pytest.param(FAIL, 2, 8, id="failed: 2x, 8 squares"),
    ],
)
def test_a_charger_failing_the_strength_check_charges_at_jogging_speed(
    roll: int, factor: int, overrun_to: int
) -> None:
    """§2 D Charging needs "a minimum of jogging speed": a failed check to reach 3x leaves
    the charge at 2x, so the overrun past the ogre at (6, 0) ends at 8 squares, not 12. The
    blow (2) and the ogre's counter (2) both miss."""
    table = duel(ogre_at=(6, 0))
    stand(table, "ogre")

    charged = declare(table, "fighter", "charge", dice=[roll, 2, 2], target="ogre", speed=3)

    assert one(charged, "check-rolled")["check"]["passed"] is (roll == PASS)
    assert [r["kind"] for r in data_of(charged, "attack-rolled")] == ["charge", "counter"]
    assert x_of(table) == overrun_to
    assert fighter_of(table, "fighter").factor == factor
    assert table.replayed() == table.state


def test_the_strength_check_comes_before_the_half_segments_with_incremental_movement() -> None:
    """The speed change takes effect as the phase resolves (§2 D "effective immediately"),
    so its check precedes the first half-segment's share of the move."""
    table = lane(incremental_movement=True)

    ran = run_to(table, 79, dice=[PASS], speed=3)

    kinds = table.types(ran)
    assert kinds.index("check-rolled") < kinds.index("moved")
    assert [m["half_segment"] for m in data_of(ran, "moved")] == [1, 2, 3, 4, 5, 6]
    assert squares(ran) == 12


# --- §2 D Table 3: the per-half-segment minimum (incremental movement) --------------------------


def five_x(**options: Any) -> Table:
    """Phase 1 at 3x (12 squares), phase 2 speeding up to 5x (MV 60): the fighter at (12, 0)
    declares its phase-2 move next."""
    table = lane(**options)
    run_to(table, 79, dice=[PASS], speed=3)
    assert x_of(table) == 12
    return table


@pytest.mark.parametrize(
    ("moved", "factor"),
    [
        pytest.param(20, 5, id="20 squares: keeps 5x"),
        pytest.param(18, 5, id="18 (3 a half-segment at MV 60): keeps 5x"),
        pytest.param(17, 4, id="17: 4x (MV 48 needs 2 a half-segment, 12)"),
        pytest.param(12, 4, id="12: 4x"),
        pytest.param(11, 2, id="11: 2x (MV 36 also needs 2 a half-segment; MV 24 needs 6)"),
        pytest.param(6, 2, id="6: 2x"),
        pytest.param(5, 1, id="5: walking (2x needs 6)"),
        pytest.param(1, 1, id="1: walking"),
    ],
)
def test_a_runner_short_of_table_3s_minimum_drops_to_the_speed_it_kept(
    moved: int, factor: int
) -> None:
    """§2 D Table 3: "max sq./half-seg: combatant may not exceed this amount in a single
    half-seg, and must move at least the previously listed minimum in order to maintain
    speed", over the phase's six half-segments."""
    table = five_x(incremental_movement=True)

    ran = run_to(table, 12 + moved, dice=[PASS], speed=5)

    assert squares(ran) == moved
    assert fighter_of(table, "fighter").factor == factor
    changes = [s["factor"] for s in data_of(ran, "speed-changed")]
    assert changes == ([5] if factor == 5 else [5, factor])
    if factor != 5:
        kinds = table.types(ran)
        last_move = len(kinds) - 1 - kinds[::-1].index("moved")
        assert last_move < len(kinds) - 1 - kinds[::-1].index("speed-changed")
    assert table.replayed() == table.state


def test_a_runner_that_does_not_move_at_all_stops() -> None:
    """ "0 if it did not": a move to the square it stands on keeps no speed."""
    table = five_x(incremental_movement=True)

    ran = run_to(table, 12, dice=[PASS], speed=5)

    assert data_of(ran, "moved") == []
    assert [s["factor"] for s in data_of(ran, "speed-changed")] == [5, 0]
    assert fighter_of(table, "fighter").factor == 0
    assert table.replayed() == table.state


def test_a_walker_that_moves_keeps_walking() -> None:
    """MV 12 walking is in the max-1 band, whose minimum is 0: any move keeps it."""
    table = lane(incremental_movement=True)

    ran = run_to(table, 1)

    assert squares(ran) == 1
    assert fighter_of(table, "fighter").factor == 1
    assert table.replayed() == table.state


def test_without_incremental_movement_a_short_run_keeps_its_speed() -> None:
    """The minimum belongs to the option (Table 3's half-segments): without it, 5 squares at
    5x leave the runner at 5x, as before."""
    table = five_x()

    ran = run_to(table, 17, dice=[PASS], speed=5)

    assert squares(ran) == 5
    assert fighter_of(table, "fighter").factor == 5
    assert table.replayed() == table.state
