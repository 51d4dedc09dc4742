"""combat-ii §2 C and §3 C in Phase System II: fighters' rapid attacks against creatures
below 1 HD follow Table 6's row for the warrior's level a round (PH: one attack per level),
in place of the row for its rate, when every target of a melee attack is such a creature.

The fighter (THAC0 10, a long sword at SF 5) wins every initiative (kobolds 7, pcs 3), so its
foes stand first and its declaration resolves the phase; a 2 misses every foe here, so each
attack is one d20 and nobody falls."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.combat_ii.cast import FIGHTER, fighter_of, stand
from tests.rules.combat_ii.given import (
    LONG_SWORD,
    add,
    data_of,
    encounter,
    line_map,
    refused,
    start,
    state_of,
)
from tests.rules.combat_ii.test_rapid_attacks import KOBOLD, SPEAR
from tests.rules.harness import Table

OGRE = {"hp": 80, "ac": 5, "mv": 12, "hit_dice": 4, "weapons": [SPEAR]}
INITIATIVE = [7, 3]
"""The d10s of each new A phase: kobolds 7, pcs 3."""


def melee(fighter: dict[str, Any], *foes: tuple[str, dict[str, Any]]) -> Table:
    """The fighter at (0, 0) and its foes (a kobold unless named) around it, in System II."""
    table = encounter(phase_system="II")
    line_map(table)
    add(table, "fighter", "pcs", {**FIGHTER, "warrior": True, **fighter}, at=(0, 0))
    cells = ((1, 0), (0, 1), (1, 1))
    for (cid, stats), cell in zip(foes or (("kobold", KOBOLD),), cells, strict=False):
        add(table, cid, "kobolds", stats, at=cell)
    start(table, initiative=INITIATIVE)
    return table


def phase(table: Table, attacks: int, *targets: str, **more: Any) -> list[dict[str, Any]]:
    """One phase: the foes stand; the fighter attacks `targets` (the kobold) if its row allows
    it (`attacks` > 0: that many misses), else the attack is refused as a delay and it stands.
    Returns the fighter's attack rolls."""
    for cid in sorted(state_of(table).table.combatants):
        if cid != "fighter":
            stand(table, cid)
    new_cycle = INITIATIVE if state_of(table).phase == 3 else []
    command = {"type": "attack", "combatant_id": "fighter",
               "targets": list(targets or ("kobold",)), **more}  # fmt: skip
    if attacks == 0:
        assert refused(table, command).code == "attack/delay"
        stand(table, "fighter", dice=new_cycle or None)
        return []
    return data_of(table.send(command, dice=[2] * attacks + new_cycle), "attack-rolled")


def rows(table: Table, expected: list[int], *targets: str) -> list[int]:
    """Play a phase for each entry of `expected`; the fighter's attacks in each."""
    return [len(phase(table, entry, *targets)) for entry in expected]


@pytest.mark.parametrize(
    ("fighter", "expected"),
    [
        pytest.param({"level": 2}, [1, 1, 0, 1, 1], id="level 2: the 2 row, attack, attack, delay"),
        pytest.param({"level": 3}, [1, 1, 1, 1], id="level 3: attack each phase"),
        pytest.param({"level": 4}, [1, 2, 1, 1, 2], id="level 4: attack, 2 attacks, attack"),
        pytest.param({"level": 5}, [2, 2, 1, 2], id="level 5: 2, 2, 1"),
        pytest.param({"level": 9, "attacks": "3/2"}, [2, 2, 2], id="level 9: the 6 row"),
        pytest.param({"level": 1}, [1, 0, 0, 1], id="level 1: no more than its rate"),
    ],
)
def test_a_warrior_attacks_kobolds_on_the_row_for_its_level(
    fighter: dict[str, Any], expected: list[int]
) -> None:
    """§2 C: "Fighters gain such a rapid attacking capability when fighting creatures below 1
    HD"; PH: one attack per level a round; §3 C Table 6 gives each rate its row (above 6: 2
    attacks each phase). A row with 2 is a double attack, without `twice`."""
    table = melee(fighter)

    assert rows(table, expected) == expected
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("fighter", "kobold"),
    [
        pytest.param({"warrior": False}, {}, id="not a warrior"),
        pytest.param({}, {"hit_dice": 1}, id="a full Hit Die is not below 1"),
        pytest.param({}, {"hit_dice": None}, id="no hit dice: a character"),
    ],
)
def test_who_keeps_the_row_for_its_rate(fighter: dict[str, Any], kobold: dict[str, Any]) -> None:
    """Only a warrior, and only against creatures below 1 HD: else one attack a round is
    "attack, delay, delay" (§3 C Table 6)."""
    table = melee({"level": 5, **fighter}, ("kobold", {**KOBOLD, **kobold}))

    assert rows(table, [1, 0, 0, 1]) == [1, 0, 0, 1]


@pytest.mark.parametrize(
    ("targets", "expected"),
    [
        pytest.param(("kobold", "kobold-2"), [2, 2], id="both swords at kobolds: the 3 row"),
        pytest.param(("kobold", "ogre"), [2, 0], id="one at the ogre: the rate's row"),
    ],
)
def test_every_target_of_the_routine_must_be_below_1_hd(
    targets: tuple[str, ...], expected: list[int]
) -> None:
    """A 3rd-level warrior's two swords (one attack each a round): both parts strike each
    phase only when both targets are below 1 HD."""
    two_swords = {"level": 3, "weapons": [LONG_SWORD, {**LONG_SWORD, "name": "sword-2"}],
                  "wielding": ["long sword", "sword-2"]}  # fmt: skip
    table = melee(two_swords, ("kobold", KOBOLD), ("ogre", OGRE), ("kobold-2", KOBOLD))

    assert rows(table, expected, *targets) == expected


def test_a_warriors_bow_keeps_its_rate_of_fire_against_kobolds() -> None:
    """PH: the attacks per level are melee attacks. A 5th-level warrior's longbow (2 a
    round) shoots on the 2 row, attack, attack, delay, not the 5 row."""
    longbow = {"name": "longbow", "kind": "missile", "speed": 8, "attacks": "2"}
    table = melee({"level": 5, "weapons": [longbow]})

    assert rows(table, [1, 1, 0]) == [1, 1, 0]


def test_from_kobold_to_kobold_the_row_carries_on() -> None:
    """A 4th-level warrior on "attack, 2 attacks, attack" keeps its place when it turns to
    another kobold: the second phase's double attack falls on the new one."""
    table = melee({"level": 4}, ("kobold", KOBOLD), ("kobold-2", KOBOLD))
    phase(table, 1, "kobold")

    second = phase(table, 2, "kobold-2")

    assert [r["target"] for r in second] == ["kobold-2", "kobold-2"]
    assert fighter_of(table, "fighter").sequence == 2


def test_turning_from_kobolds_to_the_ogre_starts_the_ogres_row_over() -> None:
    """Fray: a change of row starts the new one at its first entry. The 5th-level warrior's
    place after two doubles on kobolds (the row's third entry) would be a delay of the ogre's
    "attack, delay, delay"; it attacks the ogre once, then delays twice."""
    table = melee({"level": 5}, ("kobold", KOBOLD), ("ogre", OGRE))
    rows(table, [2, 2], "kobold")

    assert rows(table, [1, 0, 0, 1], "ogre") == [1, 0, 0, 1]
    assert table.replayed() == table.state


def test_a_delay_earned_on_the_ogre_holds_against_kobolds() -> None:
    """Fray: the delay after a blow at the ogre is served whatever the next target (§3 C:
    "attack, delay, delay"); the kobolds' row starts when it ends."""
    table = melee({"level": 5}, ("kobold", KOBOLD), ("ogre", OGRE))
    phase(table, 1, "ogre")

    assert rows(table, [0, 0, 2, 2, 1], "kobold") == [0, 0, 2, 2, 1]


def test_two_weapons_of_different_rates_do_not_alternate_against_kobolds() -> None:
    """§3 C: the favoured weapon's schedule alternates both weapons and the favoured one
    alone (the seed's swords: 2 and 3/2 a round, "attack, attack, delay"); against kobolds
    both swords have the level's rate, no discrepancy: a 5th-level warrior strikes with both
    on its 2, 2, 1 row, in the second phase too."""
    two_swords = {
        "level": 5,
        "weapons": [{**LONG_SWORD, "attacks": "2"},
                    {"name": "short sword", "speed": 3, "damage": "1d6", "attacks": "3/2"}],
        "wielding": ["long sword", "short sword"],
    }  # fmt: skip
    table = melee(two_swords)

    played = [phase(table, 4, weapons=["long sword", "short sword"]) for _ in range(2)]

    assert [[r["weapon"] for r in p] for p in played] == [
        ["long sword", "short sword", "long sword", "short sword"]
    ] * 2
