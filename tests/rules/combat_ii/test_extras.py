"""Surprise's attack at the end of a move, the running CON check and §4 Perception."""

from __future__ import annotations

from service.rules.combat_ii import views
from tests.rules.combat_ii.given import (
    AXE,
    ORC,
    add,
    encounter,
    hp,
    line_map,
    refused,
    start,
    state_of,
)

FIGHTER = {"hp": 20, "thac0": 15, "ac": 4, "mv": 12, "weapons": [AXE]}


def test_a_mover_strikes_a_surprised_foe_at_the_end_of_its_move() -> None:
    """§2 F: "combatants moving up to a surprised individual may attack at the completion of
    their movement, rather than leading off the phase with an attack as normal"."""
    table = encounter()
    line_map(table)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(3, 0))
    table.send({"type": "surprise", "surprised": ["orc"]})
    start(table, initiative=[7, 3])
    assert state_of(table).intentions["orc"].kind == "surprised"

    moved = table.send(
        {"type": "move", "combatant_id": "fighter", "to": [2, 0], "attack": "orc"},
        dice=[15, 5],
    )

    kinds = table.types(moved)
    assert kinds.index("moved") < kinds.index("attack-rolled")
    assert hp(table, "orc") == 1
    assert table.replayed() == table.state


def test_only_a_surprised_foe_may_be_attacked_after_a_move() -> None:
    table = encounter()
    line_map(table)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(3, 0))
    start(table, initiative=[3, 7])  # orcs win: the fighter declares first
    violation = refused(
        table, {"type": "move", "combatant_id": "fighter", "to": [2, 0], "attack": "orc"}
    )
    assert violation.code == "move/attack-not-surprised"


def test_a_runner_makes_a_constitution_check_at_the_round_end() -> None:
    """§2 D Acceleration: "Constitution checks are made each round, based on top speed
    attained during the round"; Fray: CON at -1 per multiple above 2x, failure walks."""
    table = encounter()
    line_map(table, width=60)
    runner = {**FIGHTER, "constitution": 12}
    add(table, "fighter", "pcs", runner, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(0, 4))
    start(table, initiative=[3, 7])
    # Phase 1 rolls the STR check to reach 3x (§2 D, PH p. 120: 10 passes STR 10).
    for x, strength in ((12, [10]), (24, None)):
        table.send({"type": "move", "combatant_id": "fighter", "to": [x, 0], "speed": 3})
        table.send({"type": "stand", "combatant_id": "orc"}, dice=strength)
    table.send({"type": "move", "combatant_id": "fighter", "to": [36, 0], "speed": 3})
    ended = table.send({"type": "stand", "combatant_id": "orc"}, dice=[13, 4, 9])

    check = next(e for e in ended if e.type == "check-rolled")
    assert check.data["check"]["ability"] == "constitution"
    assert (check.data["check"]["modifier"], check.data["check"]["passed"]) == (-1, False)
    assert state_of(table).fighters["fighter"].factor == 1  # winded: back to walking
    assert state_of(table).round == 2
    assert table.replayed() == table.state


def test_perception_is_the_average_of_int_and_wis_plus_the_level() -> None:
    """§4 Perception: "Combining the average of INT and WIS with a bonus of one point per
    level"; the option gives thieves +2 per level."""
    table = encounter(perception_thieves=True)
    add(table, "thief", "pcs", {"intelligence": 13, "wisdom": 10, "level": 4, "thief": True})
    add(table, "sage", "pcs", {"intelligence": 17, "wisdom": 16, "level": 4})
    state = state_of(table)
    assert views.sheet(state, "thief")["perception"] == 11 + 8
    assert views.sheet(state, "sage")["perception"] == 16 + 4
