"""combat-ii's tables as printed in the seed: Table 1 (the Phase System I round: speed
factors and casting times on the winner and loser tracks), Table 3 (movement conversions),
Table 5 (caster delay), Table 6 (phase delays by attacks a round) and Table 7 (attack forms).
Each row is a case; the casting-time columns are played through the real decide."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from service.rules.combat_ii import delays, schedule
from service.rules.combat_ii.schedule import Track
from tests.rules.combat_ii.given import (
    AXE,
    ORC,
    add,
    data_of,
    declare,
    encounter,
    line_map,
    one,
    refused,
    stand,
    start,
    state_of,
)
from tests.rules.harness import Table

# --- Table 1: speed factors -----------------------------------------------------------------

# combat-ii §1 Table 1, "Melee/Move Winner" and "Melee/Move Loser", half-segments 1-18 as
# printed (None: the "####" cells). Phase 2 prints "SF 7-8" where phases 1 and 3 print "SF 7-9".
TABLE_1_MELEE: list[tuple[int, str | None, str | None]] = [
    (1, "SF < 2", None),
    (2, "SF 2-3", "SF < 2"),
    (3, "SF 4-6", "SF 2-3"),
    (4, "SF 7-9", "SF 4-6"),
    (5, "SF 10+", "SF 7-9"),
    (6, None, "SF 10+"),
    (7, "SF < 2", None),
    (8, "SF 2-3", "SF < 2"),
    (9, "SF 4-6", "SF 2-3"),
    (10, "SF 7-8", "SF 4-6"),
    (11, "SF 10+", "SF 7-8"),
    (12, None, "SF 10+"),
    (13, "SF < 2", None),
    (14, "SF 2-3", "SF < 2"),
    (15, "SF 4-6", "SF 2-3"),
    (16, "SF 7-9", "SF 4-6"),
    (17, "SF 10+", "SF 7-9"),
    (18, None, "SF 10+"),
]
BAND_SFS: dict[str, tuple[int, ...]] = {
    "SF < 2": (0, 1),
    "SF 2-3": (2, 3),
    "SF 4-6": (4, 5, 6),
    "SF 7-9": (7, 8, 9),
    "SF 7-8": (7, 8),
    "SF 10+": (10, 11, 20),
}


def _melee_cases() -> list[Any]:
    cases = []
    for number, winner, loser in TABLE_1_MELEE:
        phase = (number - 1) // 6 + 1
        for track, band in (("winner", winner), ("loser", loser)):
            if band is None:
                continue
            for sf in BAND_SFS[band]:
                cases.append(
                    pytest.param(phase, track, sf, number, id=f"phase {phase} {track} SF {sf}")
                )
    return cases


@pytest.mark.parametrize(("phase", "track", "sf", "printed"), _melee_cases())
def test_table_1_an_attack_lands_in_the_half_segment_its_sf_band_names(
    phase: int, track: Track, sf: int, printed: int
) -> None:
    assert schedule.half_segment(phase, schedule.strike_offset(sf, track)) == printed


@pytest.mark.parametrize(
    ("track", "printed"),
    [pytest.param("winner", 10, id="winner at 10"), pytest.param("loser", 11, id="loser at 11")],
)
def test_table_1_phase_2s_sf_7_8_band_is_read_as_7_9(track: Track, printed: int) -> None:
    """Phase 2 prints "SF 7-8"; SF 9 has no other row there, so it shares 7-8's."""
    assert schedule.half_segment(2, schedule.strike_offset(9, track)) == printed


@pytest.mark.parametrize("sf", range(0, 21))
def test_table_1_the_loser_strikes_one_half_segment_after_the_winner(sf: int) -> None:
    assert schedule.strike_offset(sf, "loser") == schedule.strike_offset(sf, "winner") + 1


@pytest.mark.parametrize("phase", [1, 2, 3])
def test_table_4_system_ii_numbers_each_phases_half_segments_1_to_6(phase: int) -> None:
    numbers = [schedule.half_segment(phase, offset, "II") for offset in range(1, 7)]
    assert numbers == [1, 2, 3, 4, 5, 6]


# --- Table 1: casting times -----------------------------------------------------------------

# combat-ii §1 Table 1, "CT Winner": the half-segment in which each CT completes, one column
# per phase the spell was begun in ("4 1" at half-segment 7: CT 4 begun in phase 1, CT 1 in
# phase 2). "CT Loser" is the same a half-segment later.
TABLE_1_CT_WINNER: dict[int, tuple[int, ...]] = {
    1: (1,),
    3: (2,),
    5: (3,),
    7: (4, 1),
    9: (5, 2),
    11: (6, 3),
    13: (7, 4, 1),
    15: (8, 5, 2),
    17: (9, 6, 3),
}


def _ct_cases() -> list[Any]:
    cases = []
    for track, shift in (("winner", 0), ("loser", 1)):
        for number, cts in TABLE_1_CT_WINNER.items():
            for column, ct in enumerate(cts):
                phase = column + 1
                label = f"{track} CT {ct} begun in phase {phase}"
                cases.append(pytest.param(track, phase, ct, number + shift, id=label))
    return cases


def _caster_fight(track: Track, spells: list[dict[str, Any]]) -> Table:
    """Finch the caster against an orc nine squares off; Finch's side wins or loses."""
    table = encounter()
    line_map(table)
    add(table, "finch", "pcs", {"hp": 20, "spells": spells}, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(9, 0))
    start(table, initiative=[7, 3] if track == "winner" else [3, 7])
    assert state_of(table).tracks["finch"] == track
    return table


def _round_ends(table: Table) -> list[int] | None:
    """The next round's initiative d10s when this declaration resolves phase 3."""
    return [7, 3] if state_of(table).phase == 3 else None


def _finch_and_the_orc(table: Table, **finch: Any) -> list[Envelope]:
    """Finch declares and the orc stands, losers first; the last one resolves the phase."""
    dice = _round_ends(table)
    if state_of(table).tracks["orc"] == "loser":
        return stand(table, "orc") + declare(table, "finch", dice=dice, **finch)
    return declare(table, "finch", **finch) + stand(table, "orc", dice=dice)


@pytest.mark.parametrize(("track", "begun", "ct", "printed"), _ct_cases())
def test_table_1_a_spell_completes_in_the_half_segment_its_ct_column_names(
    track: Track, begun: int, ct: int, printed: int
) -> None:
    table = _caster_fight(track, [{"name": "spell", "ct": ct, "components": "V"}])
    for _ in range(begun - 1):
        _finch_and_the_orc(table, kind="stand")
    stored = _finch_and_the_orc(table, kind="cast", spell="spell")
    while not data_of(stored, "spell-completed"):
        assert state_of(table).phase <= 3, "the spell never completed in its round"
        stored += stand(table, "orc", dice=_round_ends(table))
    assert one(stored, "spell-completed")["half_segment"] == printed
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("phase", "longest"),
    [pytest.param(1, 9, id="phase 1: CT 9"), pytest.param(2, 6, id="phase 2: CT 6"),
     pytest.param(3, 3, id="phase 3: CT 3")],
)  # fmt: skip
def test_table_1_the_longest_spell_a_phase_may_begin(phase: int, longest: int) -> None:
    """combat-ii §1 G: "If the spell is begun during the second phase, its maximum CT cannot
    exceed 6, or 3 for the third phase"."""
    assert schedule.max_ct(phase) == longest


@pytest.mark.parametrize(
    ("phase", "ct"),
    [pytest.param(2, 7, id="CT 7 in phase 2"), pytest.param(3, 4, id="CT 4 in phase 3"),
     pytest.param(3, 9, id="CT 9 in phase 3")],
)  # fmt: skip
def test_table_1_a_spell_too_long_for_the_rest_of_the_round_is_refused(phase: int, ct: int) -> None:
    table = _caster_fight("winner", [{"name": "spell", "ct": ct, "components": "V"}])
    for _ in range(phase - 1):
        _finch_and_the_orc(table, kind="stand")
    stand(table, "orc")
    violation = refused(table, {"type": "cast", "combatant_id": "finch", "spell": "spell"})
    assert violation.code == "cast/too-late"


def test_table_1_a_one_round_spell_begins_in_phase_1_only() -> None:
    table = _caster_fight("winner", [{"name": "cloud", "rounds": 1, "components": "V"}])
    _finch_and_the_orc(table, kind="stand")
    stand(table, "orc")
    violation = refused(table, {"type": "cast", "combatant_id": "finch", "spell": "cloud"})
    assert violation.code == "cast/too-late"


@pytest.mark.parametrize(
    ("track", "printed"),
    [pytest.param("winner", 19, id="winner at 19"), pytest.param("loser", 20, id="loser at 20")],
)
def test_table_1_one_round_spells_complete_in_the_endphase(track: Track, printed: int) -> None:
    assert schedule.half_segment(4, schedule.endphase_offset(track)) == printed


@pytest.mark.parametrize(
    ("track", "offsets"),
    [pytest.param("winner", (1, 3, 5), id="winner"), pytest.param("loser", (2, 4, 6), id="loser")],
)
def test_table_1_ct_units_pass_on_alternate_half_segments(
    track: Track, offsets: tuple[int, ...]
) -> None:
    assert schedule.casting_offsets(track) == offsets


# --- Table 3: movement conversions ----------------------------------------------------------

# combat-ii §2 D Table 3 as printed: MV, squares a phase, most a half-segment, and the
# "(min N)" printed on some rows (None where the row prints none).
TABLE_3: list[tuple[int, int, int, int | None]] = [
    (3, 1, 1, 0),
    (6, 2, 1, None),
    (9, 3, 1, None),
    (12, 4, 1, None),
    (15, 5, 1, None),
    (18, 6, 1, 1),
    (21, 7, 2, None),
    (24, 8, 2, None),
    (27, 9, 2, None),
    (30, 10, 2, None),
    (33, 11, 2, None),
    (36, 12, 2, 2),
    (39, 13, 3, None),
    (42, 14, 3, None),
    (45, 15, 3, None),
    (48, 16, 3, None),
    (51, 17, 3, None),
    (54, 18, 3, 3),
    (57, 19, 4, None),
    (60, 20, 4, None),
    (63, 21, 4, None),
    (66, 22, 4, None),
    (69, 23, 4, None),
    (72, 24, 4, 4),
]


def _least(mv: int) -> int:
    """A row without "(min N)" keeps "the previously listed minimum" (Table 3's note)."""
    listed = [least for row_mv, _, _, least in TABLE_3 if least is not None and row_mv <= mv]
    return listed[-1]


TABLE_3_CASES = [pytest.param(*row, id=f"MV {row[0]}") for row in TABLE_3]


@pytest.mark.parametrize(("mv", "squares", "most", "least"), TABLE_3_CASES)
def test_table_3_movement_conversions(mv: int, squares: int, most: int, least: int | None) -> None:
    assert schedule.movement_squares(mv) == squares
    assert schedule.most_per_half_segment(mv) == most
    assert schedule.least_per_half_segment(mv) == (least if least is not None else _least(mv))


@pytest.mark.parametrize(("mv", "squares", "most", "least"), TABLE_3_CASES)
def test_table_3_a_phases_squares_spread_over_its_six_half_segments(
    mv: int, squares: int, most: int, least: int | None
) -> None:
    spread = schedule.squares_by_half_segment(schedule.movement_squares(mv))
    assert len(spread) == 6
    assert sum(spread) == squares
    assert max(spread) <= most
    assert min(spread) >= _least(mv)


# --- Tables 5, 6 and 7: System II delays ----------------------------------------------------


@pytest.mark.parametrize(
    ("level", "spells_in_row", "expected"),
    [
        pytest.param(1, 1, (2, 0), id="level 1: delay 2"),
        pytest.param(6, 1, (2, 0), id="level 6: delay 2"),
        pytest.param(7, 1, (1, 0), id="level 7: delay 1"),
        pytest.param(10, 1, (1, 0), id="level 10: delay 1"),
        pytest.param(12, 1, (1, 0), id="level 12: delay 1"),
        pytest.param(13, 1, (0, 1), id="level 13: first spell, no delay"),
        pytest.param(13, 2, (1, 0), id="level 13: second spell, delay 1"),
        pytest.param(20, 1, (0, 1), id="level 20: first spell, no delay"),
        pytest.param(20, 2, (1, 0), id="level 20: second spell, delay 1"),
    ],
)
def test_table_5_caster_delay_schedule_by_level(
    level: int, spells_in_row: int, expected: tuple[int, int]
) -> None:
    """combat-ii §3 B Table 5: "1-6 cast spell, delay 2 phases; 7-12 cast spell, delay 1
    phase; 13+ cast spell, cast spell, delay 1 phase" (option `caster_delay: by-level`)."""
    state = state_of(encounter(phase_system="II", caster_delay="by-level"))
    assert delays.caster_delay(state, level, spells_in_row) == expected


@pytest.mark.parametrize("level", [1, 7, 13, 20])
def test_table_5_without_the_option_every_caster_delays_two_phases(level: int) -> None:
    """combat-ii §3 B: "Upon completion of a spell, the caster must wait two phases"."""
    state = state_of(encounter(phase_system="II"))
    assert delays.caster_delay(state, level, 1) == (2, 0)


@pytest.mark.parametrize(
    ("rate", "sequence"),
    [
        pytest.param("1", (1, 0, 0), id="1: attack, delay, delay"),
        pytest.param("3/2", (1, 0), id="3/2: attack, delay"),
        pytest.param("2", (1, 1, 0), id="2: attack, attack, delay"),
        pytest.param("5/2", (1, 1, 1, 0, 1, 1), id="5/2: attack x3, delay, attack x2"),
        pytest.param("3", (1,), id="3: attack each phase"),
        pytest.param("4", (1, 2, 1), id="4: attack, 2 attacks, attack"),
        pytest.param("5", (2, 2, 1), id="5: 2 attacks, 2 attacks, attack"),
        pytest.param("6", (2,), id="6: 2 attacks each phase"),
    ],
)
def test_table_6_phase_delays_by_attacks_a_round(rate: str, sequence: tuple[int, ...]) -> None:
    assert delays.sequence_for(rate) == sequence
    assert delays.ATTACK_SEQUENCES[_fraction(rate)] == sequence


def _fraction(rate: str) -> tuple[int, int]:
    num, _, den = rate.partition("/")
    return int(num), int(den or 1)


@pytest.mark.parametrize(
    ("rate", "fire_rate", "sequence"),
    [
        pytest.param("1", "1", (1, 0, 0), id="1 x 1 = 1"),
        pytest.param("1", "2", (1, 1, 0), id="1 x 2 = 2"),
        pytest.param("3/2", "2", (1,), id="3/2 x 2 = 3"),
        pytest.param("2", "2", (1, 2, 1), id="2 x 2 = 4"),
        pytest.param("3", "2", (2,), id="3 x 2 = 6"),
    ],
)
def test_table_6_missile_fire_multiplies_the_rate_by_attacks_a_round(
    rate: str, fire_rate: str, sequence: tuple[int, ...]
) -> None:
    """combat-ii §3 C Missile Fire: "Multiply the fire rate by number of attacks per round to
    determine the number of missiles fired per 'round'. Use this number to determine the
    delay schedule"."""
    assert delays.sequence_for(rate, fire_rate) == sequence


@pytest.mark.parametrize(
    ("forms", "sequence"),
    [
        pytest.param(1, (1, 0, 0), id="1: form, delay, delay"),
        pytest.param(2, (1, 1, 0), id="2: form, form, delay"),
        pytest.param(3, (1,), id="3: a form each phase"),
        pytest.param(4, (1, 2, 1), id="4: form, 2 forms, form"),
        pytest.param(5, (2, 2, 1), id="5: 2 forms, 2 forms, form"),
        pytest.param(6, (2,), id="6: 2 forms each phase"),
    ],
)
def test_table_7_attack_forms_and_delays(forms: int, sequence: tuple[int, ...]) -> None:
    assert delays.FORM_SEQUENCES[forms] == sequence


def test_table_6_a_one_attack_fighter_attacks_then_delays_two_phases_under_system_ii() -> None:
    """combat-ii §3 C Table 6: "1 - attack, delay, delay"."""
    table = encounter(phase_system="II")
    line_map(table)
    add(table, "fighter", "pcs", {"hp": 30, "thac0": 10, "weapons": [AXE]}, at=(0, 0))
    add(table, "ogre", "ogres", {"hp": 80, "thac0": 15, "ac": 5}, at=(1, 0))
    start(table, initiative=[7, 3])

    stand(table, "ogre")
    struck = declare(table, "fighter", "attack", dice=[4], targets=["ogre"])  # a miss
    assert one(struck, "attack-rolled")["hit"] is False
    for _ in range(2):  # phases B and C: delay, delay
        stand(table, "ogre")
        violation = refused(
            table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
        )
        assert violation.code == "attack/delay"
        stand(table, "fighter", dice=[7, 3] if state_of(table).phase == 3 else None)
    stand(table, "ogre")
    again = declare(table, "fighter", "attack", dice=[4], targets=["ogre"])
    assert one(again, "attack-rolled")["half_segment"] == 4  # SF 7, winner
    assert table.replayed() == table.state


def test_table_5_a_13th_level_caster_casts_twice_then_delays_a_phase() -> None:
    """combat-ii §3 B Table 5: "13+ cast spell, cast spell, delay 1 phase"."""
    table = encounter(phase_system="II", caster_delay="by-level")
    line_map(table)
    dart = {"name": "dart", "ct": 1, "components": "V"}
    add(table, "finch", "pcs", {"hp": 20, "caster": {"kind": "wizard", "level": 13},
                                "spells": [dart]}, at=(0, 0))  # fmt: skip
    add(table, "orc", "orcs", ORC, at=(10, 0))
    start(table, initiative=[7, 3])
    cast = {"type": "cast", "combatant_id": "finch", "spell": "dart"}

    for _ in ("A", "B"):
        stand(table, "orc")
        assert one(declare(table, "finch", "cast", spell="dart"), "spell-completed")
    stand(table, "orc")
    assert refused(table, cast).code == "cast/delay"  # C
    stand(table, "finch", dice=[7, 3])
    stand(table, "orc")
    assert one(declare(table, "finch", "cast", spell="dart"), "spell-completed")  # A again
    assert table.replayed() == table.state
