"""Whom a die is rolled for (`roller`), in each ruleset, for the dice that concern someone
other than the command's combatant: a victim's morale, a defender's save or dodge, each
side's or combatant's initiative, the GM's own dice. Read off the refusal a command gets
with its dice missing: `needed` names each die's roller (docs/api.md, "Table dice")."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM
from service.domain.draws import MissingTableDice
from tests.rules.combat_ii import given as c2
from tests.rules.d20_action_points import given as d20
from tests.rules.delvers_deep import given as dd
from tests.rules.fifty_two.test_spells_and_moves import fight, fireball_waits_for_the_orcs_save
from tests.rules.harness import Table
from tests.rules.hex_tactical import given as hex_given
from tests.rules.hex_tactical.test_terrain import OIL, end_turn, move, send, track


def needed(table: Table, command: dict[str, Any], dice: list[int] | None = None) -> list[Any]:
    """(sides, purpose, roller) of each die the command still needs, sent by the GM."""
    with pytest.raises(MissingTableDice) as caught:
        table.send(command, dice=dice, actor=GM)
    return [(d.sides, d.purpose, d.roller) for d in caught.value.needed]


# --- d20-action-points ------------------------------------------------------------------------


def test_d20_the_victims_morale_die_is_the_victims() -> None:
    """Check Morale: "The DM rolls d20 (5) plus the Goblin Morale": the goblin's die, on the
    hero's attack."""
    table = d20.duel()
    attack = {"type": "attack", "combatant_id": "hero", "target": "foe"}

    assert needed(table, attack) == [(20, "Hero attacks Foe (longsword)", "hero")]
    assert needed(table, attack, [15]) == [(8, "damage: longsword on Foe", "hero")]
    assert needed(table, attack, [15, 6]) == [(20, "morale: Foe", "foe")]


def test_d20_players_roll_their_own_initiative_and_the_gm_each_groups() -> None:
    """Rolling Initiative: "Player's roll individually, whereas the DM rolls for each combat
    group"."""
    table = d20.encounter()
    d20.pc(table, "hero")
    d20.monster(table, "goblin", group="goblins")
    d20.monster(table, "goblin2", group="goblins")
    d20.start(table)

    # Every die is rolled before any is looked at: all are listed at once.
    assert needed(table, {"type": "roll-initiative"}) == [
        (20, "initiative: Hero", "hero"),
        (20, "initiative: goblins", "gm"),
    ]


# --- delvers-deep -----------------------------------------------------------------------------


def test_delvers_each_pc_rolls_its_own_reflex_die_on_the_gms_start() -> None:
    table = dd.encounter()
    dd.pc(table, "ani")
    dd.pc(table, "daerion")
    dd.creature(table, "troll")

    # Each face is stored in its own event before the next die is asked for: a read, so the
    # dice are listed one at a time.
    start = {"type": "start-encounter"}
    assert needed(table, start) == [(6, "reflex: Ani", "ani")]
    assert needed(table, start, [3]) == [(6, "reflex: Daerion", "daerion")]


def test_delvers_the_dodge_is_the_victims_and_the_blow_it_dodges_the_attackers() -> None:
    table = dd.encounter()
    dd.pc(table, "daerion", dodge_dc=4, ref=4)
    dd.creature(table, "troll", name="the troll", weapons=[{"name": "club", "damage": "6"}])
    dd.start(table, 5)
    table.send({"type": "end-turn", "combatant_id": "daerion"})
    table.send({"type": "pick", "combatant_ids": ["troll"]})
    attack = {"type": "attack", "combatant_id": "troll", "weapon": "club", "target": "daerion"}

    assert needed(table, attack) == [(6, "the troll's club", "troll")]
    window = dd.only(table.send(attack, dice=[5]), "reaction-window-opened")[0]["window_id"]
    dodge = {"type": "answer-reaction", "window_id": window, "combatant_id": "daerion"}
    assert needed(table, {**dodge, "option": "dodge"}) == [(6, "Daerion's dodge", "daerion")]


# --- fifty-two ----------------------------------------------------------------------------------


def test_fifty_two_the_reflex_save_is_the_defenders_and_the_fireball_the_casters() -> None:
    """fifty-two §8: the targeted combatant takes the Reflex Save; the caster's spell deals
    the damage, all six d6 of it listed at once."""
    table = fight(options={"dice": "table"})
    fireball_waits_for_the_orcs_save(table)
    save = {"type": "reflex-save", "combatant_id": "orc", "attempt": True}

    assert needed(table, save) == [(20, "Reflex save: Orc against fireball", "orc")]
    damage = needed(table, save, [14])
    assert {(sides, roller) for sides, _, roller in damage} == {(6, "mage")}
    assert len(damage) == 6


def test_fifty_two_everyone_rolls_their_own_initiative() -> None:
    table = fight(options={"dice": "table"})
    table.send({"type": "end-encounter"})
    fresh = Table(table.ruleset, {"dice": "table"})
    for cid, side in (("mage", "allies"), ("orc", "orcs")):
        fresh.send(
            {"type": "add-combatant", "combatant_id": cid, "name": cid.title(), "side": side}
        )

    start = {"type": "start-encounter"}
    assert needed(fresh, start) == [(20, "initiative: Mage", "mage")]
    assert needed(fresh, start, [20]) == [(20, "initiative: Orc", "orc")]


# --- hex-tactical -------------------------------------------------------------------------------


def test_hex_each_combatant_makes_its_own_initiative_check() -> None:
    table = hex_given.encounter()
    hex_given.hex_map(table, width=4, height=1)
    hex_given.add(table, "runner", (0, 0), side="pcs")
    hex_given.add(table, "orc", (3, 0))

    start = {"type": "start-encounter"}
    assert [(s, r) for s, _, r in needed(table, start)] == [(100, "runner")]
    assert [(s, r) for s, _, r in needed(table, start, [40])] == [(100, "orc")]


def test_hex_the_dodge_is_the_defenders_and_the_damage_after_it_the_attackers() -> None:
    table = track({2: OIL}, width=4)
    send(table, move("runner", (2, 0)), dice=[90])
    send(table, end_turn("runner"))
    send(table, {"type": "attack", "combatant_id": "orc", "target": "runner"}, [70, 2], actor=GM)
    window = hex_given.window_for(table, "runner")
    dodge = {
        "type": "answer-reaction",
        "window_id": window,
        "combatant_id": "runner",
        "option": "dodge",
    }

    assert needed(table, dodge) == [
        (100, "Runner dodges", "runner"),
        (10, "Runner dodges (bane)", "runner"),
    ]
    damage = needed(table, dodge, [25, 6])
    assert [(s, r) for s, _, r in damage] == [(8, "orc")]


# --- combat-ii ----------------------------------------------------------------------------------


def test_combat_ii_each_groups_initiative_die_is_its_first_members() -> None:
    table = c2.encounter()
    c2.add(table, "archer", "party", c2.ARCHER)
    c2.add(table, "orc", "monsters", c2.ORC)
    c2.add(table, "orc2", "monsters", c2.ORC)

    assert needed(table, {"type": "start-encounter"}) == [
        (10, "initiative: monsters", "orc"),
        (10, "initiative: party", "archer"),
    ]
