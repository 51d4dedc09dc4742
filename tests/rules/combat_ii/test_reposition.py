"""§2 A and §2 C Repositioning: "a step or two (max. 10')" before casting costs +1 CT and
before attacking +2 SF; the step is taken (a `moved` of mode `step`) as the phase's counting
begins, so the blow is struck from the new square. And §2 A Movement and Spellcasting: the
10 ft shift of a caster whose spell has no somatic component."""

from __future__ import annotations

from typing import Any

from service.rules.combat_ii import views
from tests.rules.combat_ii.cast import attack, duel, of_type, only, stand
from tests.rules.combat_ii.given import refused, state_of
from tests.rules.harness import Table

BOLT = {"name": "bolt", "level": 1, "ct": 2, "components": "V", "damage": "1d4"}


def position(table: Table, cid: str) -> tuple[int, int] | None:
    cell = state_of(table).table.combatants[cid].position
    return None if cell is None else (cell.x, cell.y)


def attack_on_ogre(**more: Any) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"], **more}


def test_a_step_before_an_attack_moves_the_attacker_and_strikes_at_plus_2_sf() -> None:
    """§2 C: "Repositioning Movement ... a step or two (max. 10') ... +2 to SF". The long
    sword's SF 5 becomes 7: a winner's blow at half-segment 4 instead of 3, struck from the
    square stepped into, next to the ogre two squares off."""
    table = duel(ogre_at=(2, 0))
    stand(table, "ogre")

    stored = attack(table, "fighter", "ogre", dice=[15, 6], step=[1, 0])

    moved = only(stored, "moved")
    assert moved["mode"] == "step" and moved["half_segment"] == 1
    assert [(cell["x"], cell["y"]) for cell in moved["path"]] == [(0, 0), (1, 0)]
    blow = only(stored, "attack-rolled")
    assert (blow["half_segment"], blow["sf"], blow["hit"]) == (4, 7, True)
    assert only(stored, "damage-rolled")["amount"] == 6
    assert position(table, "fighter") == (1, 0)
    assert table.replayed() == table.state


def test_without_a_step_the_same_blow_lands_at_half_segment_3() -> None:
    """The baseline of the test above: SF 5, winner, half-segment 3, no movement."""
    table = duel()
    stand(table, "ogre")

    stored = attack(table, "fighter", "ogre", dice=[15, 6])

    assert of_type(stored, "moved") == []
    blow = only(stored, "attack-rolled")
    assert (blow["half_segment"], blow["sf"]) == (3, 5)


def test_a_step_before_a_spell_adds_a_casting_time_unit() -> None:
    """§2 A: "may take a step or two (max. 10') prior to casting at a cost of +1 CT": the CT 2
    bolt completes a half-segment later, after the step is taken."""
    plain, stepped = (duel(fighter={"spells": [BOLT]}, ogre_at=(4, 0)) for _ in range(2))
    for table in (plain, stepped):
        stand(table, "ogre")
    cast: dict[str, Any] = {
        "type": "cast",
        "combatant_id": "fighter",
        "spell": "bolt",
        "target": "ogre",
    }

    at_once = plain.send(cast, dice=[3])
    later = stepped.send({**cast, "step": [0, 1]}, dice=[3])

    assert only(later, "moved")["mode"] == "step"
    assert position(stepped, "fighter") == (0, 1)
    done, done_later = only(at_once, "spell-completed"), only(later, "spell-completed")
    assert done_later["half_segment"] > done["half_segment"]
    assert stepped.replayed() == stepped.state


def test_a_target_two_squares_off_is_out_of_reach_without_a_step() -> None:
    table = duel(ogre_at=(2, 0))
    stand(table, "ogre")
    assert refused(table, attack_on_ogre()).code == "attack/out-of-reach"


def test_the_reach_counts_from_the_square_stepped_into() -> None:
    """A step away from the ogre leaves it two squares off: refused, nothing stored."""
    table = duel(ogre_at=(2, 0))
    stand(table, "ogre")
    assert refused(table, attack_on_ogre(step=[0, 1])).code == "attack/out-of-reach"


def test_a_step_is_one_square_at_most() -> None:
    """§2 A, §2 C: "max. 10'"."""
    table = duel(ogre_at=(3, 0))
    stand(table, "ogre")
    assert refused(table, attack_on_ogre(step=[2, 0])).code == "move/step-too-far"


def test_a_step_into_a_taken_square_is_refused() -> None:
    table = duel(others=[("squire", "pcs", {"hp": 5}, (0, 1))])
    stand(table, "ogre")
    assert refused(table, attack_on_ogre(step=[0, 1])).code == "move/step-blocked"


def test_a_step_off_the_map_is_refused() -> None:
    table = duel()
    stand(table, "ogre")
    assert refused(table, attack_on_ogre(step=[-1, 0])).code == "map/off-map"


def test_two_steps_into_one_square_go_to_the_initiative_winner() -> None:
    """§1 F: winners win a race for the same goal. The ogre (loser) and the fighter (winner)
    both step into the square between them; the fighter takes it, the ogre stays, and its
    club still reaches the fighter there."""
    table = duel(ogre_at=(2, 0))
    attack(table, "ogre", "fighter", step=[1, 0])

    stored = attack(table, "fighter", "ogre", step=[1, 0], dice=[15, 15, 6, 3])

    assert [m["combatant_id"] for m in of_type(stored, "moved")] == ["fighter"]
    assert position(table, "fighter") == (1, 0) and position(table, "ogre") == (2, 0)
    assert sorted(a["attacker"] for a in of_type(stored, "attack-rolled")) == ["fighter", "ogre"]
    assert table.replayed() == table.state


# --- §2 A Movement and Spellcasting ------------------------------------------------------------

CHANT = {"name": "chant", "level": 2, "ct": 5, "components": "V", "damage": "1d4"}
"""No somatic component: its caster may shift while casting. CT 5 runs into the next phase."""
WAVE = {**CHANT, "name": "wave", "components": "VS"}
NIMBLE = {"dexterity": 16, "ac": 5, "spells": [CHANT, WAVE]}
"""DEX 16: -2 AC from the PH table, counted in the sheet's AC 5 (7 without it)."""


def begin(table: Table, spell: str, **more: Any) -> list[Any]:
    stand(table, "ogre")
    command = {"type": "cast", "combatant_id": "fighter", "spell": spell, "target": "ogre"}
    return table.send({**command, **more})


def ac(table: Table) -> int:
    return int(views.sheet(state_of(table), "fighter")["ac"])


def test_a_caster_of_a_spell_without_somatic_component_shifts_a_square_while_casting() -> None:
    """§2 A: "A caster MAY shift position slightly (up to 10') while casting if the spell has
    no somatic component, but receives no dexterity bonus towards AC during casting (he is
    NOT considered a stationary target, though)". The shift is made in the phase's movement;
    the chant goes on into phase 2, and the caster's AC is 7 (no DEX bonus), not 9 (no
    stationary-target penalty)."""
    table = duel(fighter=NIMBLE, ogre_at=(4, 0))

    stored = begin(table, "chant", shift=[0, 1])

    moved = only(stored, "moved")
    assert (moved["mode"], moved["half_segment"]) == ("shift", 6)  # the movement portion
    assert position(table, "fighter") == (0, 1)
    assert state_of(table).fighters["fighter"].casting is not None
    assert ac(table) == 7
    assert table.replayed() == table.state


def test_a_caster_who_does_not_shift_keeps_its_dexterity_bonus() -> None:
    table = duel(fighter=NIMBLE, ogre_at=(4, 0))

    stored = begin(table, "chant")

    assert of_type(stored, "moved") == []
    assert ac(table) == 5


def test_a_somatic_spell_allows_no_shift() -> None:
    """§2 A: "the caster may not move at all that phase if the spell has a somatic
    component"; the somatic caster is a stationary, defenceless target instead (§2 C)."""
    table = duel(fighter=NIMBLE, ogre_at=(4, 0))
    stand(table, "ogre")
    wave = {"type": "cast", "combatant_id": "fighter", "spell": "wave", "target": "ogre",
            "shift": [0, 1]}  # fmt: skip
    assert refused(table, wave).code == "cast/somatic-shift"


def test_a_shift_is_10_ft_at_most() -> None:
    table = duel(fighter=NIMBLE, ogre_at=(4, 0))
    stand(table, "ogre")
    far = {"type": "cast", "combatant_id": "fighter", "spell": "chant", "target": "ogre",
           "shift": [0, 2]}  # fmt: skip
    assert refused(table, far).code == "move/step-too-far"
