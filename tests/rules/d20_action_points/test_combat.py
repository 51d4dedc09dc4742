"""d20-action-points through the real decide: Melee Attack, Ranged Attacks and thrown objects,
Resolving Damage, Special Combat Moves and Actions (Charge!, Grapple, Disarm, Backstab), the
full attack, Special Attack Conditions, Killing Monsters and Character Death, Check Morale,
Casting Spells (the interrupted spell), Environment Modifiers (optional) and hidden enemy
health."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM
from service.domain.envelope import Envelope
from service.domain.grid import Cell
from service.rules.d20_action_points import RULESET
from service.rules.d20_action_points.state import GroundItem, Weapon
from tests.rules.d20_action_points.given import (
    CROSSBOW,
    DAGGER,
    PLAYER,
    SPEAR,
    SWORD,
    act,
    duel,
    encounter,
    initiative,
    monster,
    only,
    pc,
    pools,
    refused,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table

JAVELIN = {"name": "javelin", "kind": "thrown", "damage": "1d6", "range": 30}
GREATSWORD = {"name": "greatsword", "damage": "2d6", "two_handed": True}
DRAIN = {"name": "chill touch", "damage": "1d4", "special": "energy-drain"}
FANGS = {"name": "fangs", "damage": "1d4", "special": "poison", "save_dc": 12}
BOLT = {"name": "bolt", "level": 2, "damage": "1d6"}


def attack(table: Table, cid: str, target: str, dice: list[int], **extra: Any) -> list[Envelope]:
    return act(table, {"type": "attack", "combatant_id": cid, "target": target, **extra}, dice)


def end_turn(table: Table, cid: str) -> list[Envelope]:
    return act(table, {"type": "end-turn", "combatant_id": cid})


def rolled(envelopes: list[Envelope]) -> dict[str, Any]:
    """The one attack roll among these envelopes."""
    [attack_rolled] = only(envelopes, "attack-rolled")
    return attack_rolled


def one_on_one(
    hero: dict[str, Any], foe: dict[str, Any], *, foe_first: bool = False, **options: Any
) -> Table:
    """`hero` (a PC) against `foe` (a monster), with these stat blocks; round 1 has begun with
    the turn of whoever goes first."""
    table = encounter(**options)
    pc(table, "hero", **hero)
    monster(table, "foe", **foe)
    start(table)
    initiative(table, *((5, 15) if foe_first else (15, 5)))
    return table


def conditions(table: Table, cid: str) -> set[str]:
    return {c.name for c in state_of(table).table.combatants[cid].conditions}


def shows(event: dict[str, Any], **expected: Any) -> None:
    """The event has these fields with these values (and others not looked at)."""
    assert {name: event.get(name) for name in expected} == expected


def points_left(table: Table) -> int:
    turn = state_of(table).turn
    assert turn is not None
    return turn.points


# --- the attack roll ----------------------------------------------------------------------


def test_a_melee_attack_is_d20_plus_strength_and_a_tie_with_the_armor_class_hits():
    table = duel()

    blow = attack(table, "hero", "foe", dice=[10, 3])

    shows(rolled(blow), how="melee", natural=10, modifier=2, total=12, ac=12, hit=True, damage=5)
    assert pools(table, "foe")["hp"] == 5


def test_one_short_of_the_armor_class_misses_and_rolls_no_damage():
    table = duel()

    blow = attack(table, "hero", "foe", dice=[9])

    assert (rolled(blow)["total"], rolled(blow)["hit"], rolled(blow)["damage"]) == (11, False, 0)
    assert "resource-adjusted" not in types(blow)
    assert pools(table, "foe")["hp"] == 10


def test_the_weapon_adds_its_bonus_to_hit_and_to_damage():
    magic = {"name": "magic sword", "damage": "1d8", "to_hit": 1, "damage_bonus": 1}
    table = one_on_one({"strength": 2, "weapons": [magic]}, {"hp": 20})

    blow = attack(table, "hero", "foe", dice=[9, 3])

    assert (rolled(blow)["modifier"], rolled(blow)["total"], rolled(blow)["hit"]) == (3, 12, True)
    assert rolled(blow)["damage"] == 3 + 2 + 1
    assert pools(table, "foe")["hp"] == 14


def test_a_natural_20_always_hits_and_doubles_the_dice_plus_the_bonuses():
    table = one_on_one({"strength": 2, "weapons": [SWORD]}, {"hp": 30, "ac": 30})

    blow = attack(table, "hero", "foe", dice=[20, 5])

    assert rolled(blow)["total"] == 22 and rolled(blow)["ac"] == 30
    assert (rolled(blow)["hit"], rolled(blow)["critical_hit"]) == (True, True)
    assert rolled(blow)["damage"] == (5 + 2) * 2
    assert pools(table, "foe")["hp"] == 16


def test_a_natural_1_always_misses_whatever_the_bonus():
    keen = {"name": "keen sword", "damage": "1d8", "to_hit": 20}
    table = one_on_one({"strength": 2, "weapons": [keen]}, {})

    blow = attack(table, "hero", "foe", dice=[1])

    assert rolled(blow)["total"] == 23 and rolled(blow)["ac"] == 12
    assert (rolled(blow)["hit"], rolled(blow)["critical_fail"]) == (False, True)
    assert pools(table, "foe")["hp"] == 10


def test_a_ranged_attack_adds_dexterity_to_hit_and_no_strength_to_damage():
    table = one_on_one({"strength": 3, "dexterity": 1, "weapons": [CROSSBOW]}, {"hp": 20})

    shot = attack(table, "hero", "foe", dice=[11, 5], feet=30)

    shows(rolled(shot), how="ranged", modifier=1, total=12, hit=True, damage=5, feet=30)
    assert only(shot, "action-taken")[0]["action"] == "ranged-attack"


def test_beyond_a_ranged_weapons_second_number_there_is_no_attack():
    table = one_on_one({"dexterity": 1, "weapons": [CROSSBOW]}, {})

    violation = refused(
        table, {"type": "attack", "combatant_id": "hero", "target": "foe", "feet": 321}, dice=[10]
    )

    assert violation.code == "attack/out-of-range"


def test_a_thrown_weapon_lands_at_the_targets_feet_and_leaves_the_throwers_hands():
    table = one_on_one({"strength": 2, "dexterity": 1, "weapons": [JAVELIN, DAGGER]}, {})

    throw = attack(table, "hero", "foe", dice=[15, 4], feet=20)

    assert (rolled(throw)["how"], rolled(throw)["modifier"], rolled(throw)["damage"]) == (
        "thrown",
        1,
        4,
    )
    arms = state_of(table).arms["hero"]
    assert arms.wielding is None and [w.name for w in arms.carried] == ["dagger"]
    assert state_of(table).ground == (
        GroundItem(weapon=Weapon.model_validate(JAVELIN), near="foe", cell=None),
    )


def test_a_thrown_object_does_a_point_of_damage_a_pound_with_dexterity_to_hit():
    table = one_on_one({"strength": 2, "dexterity": 1}, {})

    throw = act(
        table,
        {"type": "throw", "combatant_id": "hero", "target": "foe", "pounds": 5, "what": "a rock",
         "feet": 17},
        dice=[11],
    )  # fmt: skip

    shows(rolled(throw), how="object", weapon="a rock", modifier=1, total=12, hit=True, damage=5)
    assert only(throw, "action-taken")[0]["points"] == 3
    assert pools(table, "foe")["hp"] == 5


def test_an_object_goes_20_feet_plus_strength_less_a_foot_a_pound():
    table = one_on_one({"strength": 2, "dexterity": 1}, {})
    too_far = {"type": "throw", "combatant_id": "hero", "target": "foe", "pounds": 5, "feet": 18}

    violation = refused(table, too_far, dice=[11])

    assert violation.code == "attack/out-of-range"
    assert violation.details["range"] == 20 + 2 - 5


def test_a_weapon_carried_but_not_in_hand_must_be_drawn_first():
    table = one_on_one({"strength": 2, "weapons": [SWORD, DAGGER]}, {})

    violation = refused(
        table,
        {"type": "attack", "combatant_id": "hero", "target": "foe", "weapon": "dagger"},
        dice=[10, 3],
    )

    assert violation.code == "attack/not-in-hand"


def test_drawing_a_weapon_is_an_equip_item_action_of_3_points():
    table = one_on_one({"strength": 2, "weapons": [SWORD, DAGGER]}, {})

    drawn = act(table, {"type": "equip-item", "combatant_id": "hero", "weapon": "dagger"})

    shows(only(drawn, "action-taken")[0], action="equip-item", points=3)
    assert only(drawn, "item-equipped")[0]["picked_up"] is False
    assert state_of(table).arms["hero"].wielding == "dagger"
    assert points_left(table) == 2


def test_a_dropped_weapon_lies_on_the_ground_until_picked_up_again():
    table = duel()

    dropped = act(table, {"type": "drop-item", "combatant_id": "hero"})

    assert only(dropped, "action-taken")[0]["points"] == 0
    assert state_of(table).arms["hero"].carried == ()
    assert [(g.weapon.name, g.near) for g in state_of(table).ground] == [("longsword", "hero")]

    picked = act(table, {"type": "equip-item", "combatant_id": "hero", "weapon": "longsword"})

    assert only(picked, "item-equipped")[0]["picked_up"] is True
    assert state_of(table).ground == ()
    assert state_of(table).arms["hero"].wielding == "longsword"
    assert points_left(table) == 2


# --- Charge! ------------------------------------------------------------------------------


def test_a_charge_moves_up_to_double_speed_and_attacks_at_plus_2_for_5_points():
    table = duel()

    charge = act(table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 60},
                 dice=[8, 3])  # fmt: skip

    assert types(charge)[:4] == ["action-taken", "moved", "charged", "attack-rolled"]
    assert only(charge, "action-taken")[0]["points"] == 5
    shows(only(charge, "moved")[0], how="charge", feet=60, allowed=60)
    shows(rolled(charge), natural=8, modifier=2 + 2, total=12, hit=True, damage=5)
    assert points_left(table) == 0


def test_a_charge_goes_no_farther_than_double_speed():
    table = duel()

    violation = refused(
        table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 65}, dice=[8, 3]
    )

    assert violation.code == "move/too-far" and violation.details["allowed"] == 60


def _next_round(table: Table) -> None:
    """The foe's turn ends the round; the next one starts with the hero's turn."""
    end_turn(table, "foe")
    initiative(table, 15, 5)
    end_turn(table, "hero")


def test_the_charger_has_2_less_armor_class_until_the_end_of_the_next_round():
    table = duel()
    act(table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 30}, dice=[2])
    end_turn(table, "hero")

    same_round = attack(table, "foe", "hero", dice=[2])
    _next_round(table)
    next_round = attack(table, "foe", "hero", dice=[2])
    _next_round(table)
    round_after = attack(table, "foe", "hero", dice=[2])

    assert [rolled(a)["ac"] for a in (same_round, next_round, round_after)] == [12, 12, 14]


def test_no_charge_once_toe_to_toe_after_an_exchange_of_blows():
    table = duel()
    attack(table, "hero", "foe", dice=[2])
    end_turn(table, "hero")
    attack(table, "foe", "hero", dice=[2])
    end_turn(table, "foe")
    initiative(table, 15, 5)

    violation = refused(
        table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 10}, dice=[8, 3]
    )

    assert violation.code == "charge/engaged"


def test_once_the_foe_toe_to_toe_is_defeated_another_may_be_charged():
    table = encounter()
    pc(table, "hero", strength=2)
    monster(table, "foe", hp=5)
    monster(table, "other")
    start(table)
    initiative(table, 15, 5, 4)
    attack(table, "hero", "foe", dice=[10, 3])
    end_turn(table, "hero")
    end_turn(table, "other")
    initiative(table, 15, 4)

    charge = act(
        table, {"type": "charge", "combatant_id": "hero", "target": "other", "feet": 30}, dice=[2]
    )

    assert "charged" in types(charge)


def test_no_charge_from_a_cell_next_to_a_foe_on_a_map():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", strength=2, position=(0, 1))
    monster(table, "foe", position=(1, 1))
    monster(table, "far", position=(8, 1))
    start(table)
    initiative(table, 15, 5, 4)

    violation = refused(
        table, {"type": "charge", "combatant_id": "hero", "target": "far", "to": [7, 1]}, dice=[8]
    )

    assert violation.code == "charge/engaged"


def test_a_charge_on_a_map_walks_its_path():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", strength=2, position=(0, 1))
    monster(table, "foe", position=(8, 1))
    start(table)
    initiative(table, 15, 5)

    charge = act(table, {"type": "charge", "combatant_id": "hero", "target": "foe", "to": [7, 1]},
                 dice=[2])  # fmt: skip

    assert only(charge, "moved")[0]["feet"] == 35 and only(charge, "moved")[0]["how"] == "charge"
    assert state_of(table).table.combatants["hero"].position == Cell(x=7, y=1)


def test_a_charge_ends_in_a_melee_attack_not_a_shot():
    table = one_on_one({"dexterity": 1, "weapons": [CROSSBOW]}, {})

    violation = refused(
        table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 30}, dice=[10]
    )

    assert violation.code == "charge/melee-only"


def test_a_prone_combatant_must_stand_up_before_charging():
    table = duel()
    act(table, {"type": "drop-prone", "combatant_id": "hero"})

    violation = refused(
        table, {"type": "charge", "combatant_id": "hero", "target": "foe", "feet": 30}, dice=[10]
    )

    assert violation.code == "prone/stand-up-first"


# --- Grapple ------------------------------------------------------------------------------


def grappling(dice: list[int] | None = None) -> Table:
    """The hero has dropped the sword and grappled the foe (12 against 11)."""
    table = duel()
    act(table, {"type": "drop-item", "combatant_id": "hero"})
    act(table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=dice or [10, 11])
    return table


def test_a_grapple_needs_two_free_hands():
    table = duel()

    violation = refused(
        table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=[10, 11]
    )

    assert violation.code == "grapple/hands-full"


def test_dropping_the_weapon_is_free_and_a_grapple_beating_the_defender_grapples_it():
    table = duel()
    act(table, {"type": "drop-item", "combatant_id": "hero"})

    grab = act(table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=[10, 11])

    assert only(grab, "action-taken")[0]["points"] == 3
    assert only(grab, "grapple-rolled") == [
        {
            "combatant_id": "hero",
            "target": "foe",
            "roll": 10,
            "bonus": 2,
            "total": 12,
            "target_roll": 11,
            "target_bonus": 0,
            "target_total": 11,
            "outcome": "grappled",
        }
    ]
    assert conditions(table, "foe") == {"grappled"}
    assert state_of(table).grappled == {"foe": "hero"}


@pytest.mark.parametrize(
    ("dice", "outcome", "held"),
    [
        pytest.param([9, 11], "failed", set(), id="a tie: the attacker must beat the defender"),
        pytest.param([12, 10], "grappled", {"grappled"}, id="by 4: grappled"),
        pytest.param([13, 10], "pinned", {"grappled", "pinned"}, id="by 5: pinned"),
        pytest.param([18, 2], "pinned", {"grappled", "pinned"}, id="by 18: pinned"),
    ],
)
def test_the_opposed_strength_roll_decides_the_grapple(
    dice: list[int], outcome: str, held: set[str]
):
    table = duel()
    act(table, {"type": "drop-item", "combatant_id": "hero"})

    grab = act(table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=dice)

    assert only(grab, "grapple-rolled")[0]["outcome"] == outcome
    assert conditions(table, "foe") == held


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "attack", "target": "hero"}, id="an attack"),
        pytest.param({"type": "move", "feet": 10}, id="a move"),
        pytest.param({"type": "charge", "target": "hero", "feet": 10}, id="a charge"),
    ],
)
def test_a_grappled_combatant_may_only_try_to_break_free(command: dict[str, Any]):
    table = grappling()
    end_turn(table, "hero")

    violation = refused(table, {**command, "combatant_id": "foe"}, dice=[10, 3])

    assert violation.code == "grapple/must-break-free"


def test_a_grappled_combatant_cannot_delay_its_turn_instead_of_breaking_free():
    table = encounter()
    pc(table, "hero", strength=2)
    monster(table, "foe")
    pc(table, "ally")
    start(table)
    initiative(table, 15, 10, 5)
    act(table, {"type": "drop-item", "combatant_id": "hero"})
    act(table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=[10, 11])
    end_turn(table, "hero")

    # Delay is one of the seed's Full Round Actions, and breaking free is the only action left.
    violation = refused(table, {"type": "delay", "combatant_id": "foe"})

    assert violation.code == "grapple/must-break-free"


def test_a_grappled_combatant_may_still_talk_and_drop_what_it_holds():
    table = grappling()
    end_turn(table, "hero")

    talked = act(table, {"type": "talk", "combatant_id": "foe", "text": "Let go!"})
    dropped = act(table, {"type": "drop-item", "combatant_id": "foe"})

    assert "talked" in types(talked) and "item-dropped" in types(dropped)
    assert points_left(table) == 5


def test_breaking_free_is_an_opposed_roll_the_grappled_one_must_win():
    table = grappling()
    end_turn(table, "hero")

    held = act(table, {"type": "break-free", "combatant_id": "foe"}, dice=[12, 10])

    assert only(held, "break-free-rolled") == [
        {
            "combatant_id": "foe",
            "target": "hero",
            "roll": 12,
            "bonus": 0,
            "total": 12,
            "target_roll": 10,
            "target_bonus": 2,
            "target_total": 12,
            "success": False,
        }
    ]
    assert conditions(table, "foe") == {"grappled"}


def test_breaking_free_removes_grappled_and_pinned():
    table = grappling(dice=[15, 5])
    assert conditions(table, "foe") == {"grappled", "pinned"}
    end_turn(table, "hero")

    free = act(table, {"type": "break-free", "combatant_id": "foe"}, dice=[15, 5])

    assert only(free, "break-free-rolled")[0]["success"] is True
    assert conditions(table, "foe") == set()
    assert state_of(table).grappled == {} and state_of(table).pinned == ()
    assert "moved" in types(act(table, {"type": "move", "combatant_id": "foe", "feet": 10}))


def test_the_grappler_lets_go_for_free():
    table = grappling()

    released = act(table, {"type": "release", "combatant_id": "hero"})

    assert types(released) == ["action-taken", "released"]
    assert only(released, "action-taken")[0]["points"] == 0
    assert conditions(table, "foe") == set() and state_of(table).grappled == {}


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "move", "feet": 10}, id="moving away"),
        pytest.param({"type": "equip-item", "weapon": "longsword"}, id="taking up a weapon"),
    ],
)
def test_a_grappler_who_moves_away_or_takes_a_weapon_in_hand_lets_go(command: dict[str, Any]):
    table = grappling()
    end_turn(table, "hero")
    end_turn(table, "foe")
    initiative(table, 15, 5)
    assert conditions(table, "foe") == {"grappled"}

    act(table, {**command, "combatant_id": "hero"})

    assert conditions(table, "foe") == set() and state_of(table).grappled == {}


def test_a_grappled_combatant_cannot_be_grappled_again():
    table = grappling()

    violation = refused(
        table, {"type": "grapple", "combatant_id": "hero", "target": "foe"}, dice=[10, 11]
    )

    assert violation.code == "grapple/already"


# --- Disarm -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hero_weapon", "foe_weapon", "bonus", "target_bonus"),
    [
        pytest.param(SWORD, SPEAR, 2, 0, id="one-handed weapons: STR only"),
        pytest.param(GREATSWORD, SPEAR, 2 + 4, 0, id="the disarmer wields a two-handed weapon"),
        pytest.param(SWORD, GREATSWORD, 2, 4, id="the defender wields a two-handed weapon"),
    ],
)
def test_a_disarm_is_opposed_strength_with_4_more_for_a_two_handed_weapon(
    hero_weapon: dict[str, Any], foe_weapon: dict[str, Any], bonus: int, target_bonus: int
):
    table = one_on_one({"strength": 2, "weapons": [hero_weapon]}, {"weapons": [foe_weapon]})

    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[18, 3])

    assert only(disarm, "action-taken")[0]["points"] == 3
    rolls = only(disarm, "disarm-rolled")[0]
    assert (rolls["bonus"], rolls["target_bonus"]) == (bonus, target_bonus)
    assert (rolls["total"], rolls["target_total"]) == (18 + bonus, 3 + target_bonus)


def test_an_unarmed_disarmer_takes_the_weapon():
    table = duel()
    act(table, {"type": "drop-item", "combatant_id": "hero"})

    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[10, 5])

    assert only(disarm, "disarm-rolled")[0]["success"] is True
    assert only(disarm, "disarm-rolled")[0]["taken"] is True
    assert state_of(table).arms["hero"].wielding == "spear"
    assert (
        state_of(table).arms["foe"].carried == () and state_of(table).arms["foe"].wielding is None
    )
    assert [g.weapon.name for g in state_of(table).ground] == ["longsword"]


def test_an_armed_disarmer_knocks_the_weapon_to_the_ground_at_the_defenders_feet():
    table = duel()

    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[10, 5])

    assert only(disarm, "disarm-rolled")[0]["taken"] is False
    assert state_of(table).arms["hero"].wielding == "longsword"
    assert state_of(table).arms["foe"].wielding is None
    assert state_of(table).ground == (
        GroundItem(weapon=Weapon.model_validate(SPEAR), near="foe", cell=None),
    )


def test_a_failed_disarm_lets_the_defender_attack_at_once_with_advantage():
    table = duel()

    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[3, 15])

    assert only(disarm, "disarm-rolled")[0]["success"] is False
    window = only(disarm, "reaction-window-opened")[0]
    assert window["trigger"]["kind"] == "disarm-counter"
    assert window["eligible"] == {"foe": ["attack", "pass"]}
    assert state_of(table).arms["foe"].wielding == "spear"

    counter = act(
        table,
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": "foe",
         "option": "attack"},
        dice=[4, 17, 3],
    )  # fmt: skip

    shows(rolled(counter), attacker="foe", target="hero", reaction="counter", dice=[4, 17],
          edge="advantage", natural=17, total=17, ac=14, hit=True, damage=3)  # fmt: skip
    assert pools(table, "hero")["hp"] == 9
    assert state_of(table).current == "hero"


def test_a_defender_with_nothing_in_hand_cannot_be_disarmed():
    table = one_on_one({"strength": 2, "weapons": [SWORD]}, {"weapons": []})

    violation = refused(
        table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[10, 5]
    )

    assert violation.code == "disarm/nothing-in-hand"


# --- Backstab -----------------------------------------------------------------------------


THIEF = {"strength": 1, "backstab": 2, "weapons": [DAGGER]}


def hidden_thief(thief: dict[str, Any] = THIEF) -> Table:
    """A thief (STR +1, backstab x2, a dagger) the GM says is hidden behind a 20-hp foe."""
    table = one_on_one(thief, {"hp": 20})
    act(table, {"type": "apply-condition", "combatant_id": "hero", "condition": "hidden"})
    return table


def test_a_backstab_rolls_with_advantage_and_multiplies_the_weapon_dice_before_strength():
    table = hidden_thief()

    stab = attack(table, "hero", "foe", dice=[5, 14, 3], backstab=True)

    shows(rolled(stab), dice=[5, 14], edge="advantage", natural=14, total=15, hit=True,
          backstab=2, damage=3 * 2 + 1)  # fmt: skip
    assert pools(table, "foe")["hp"] == 13


def test_a_backstab_adds_strength_and_magic_after_multiplying():
    magic = {**DAGGER, "name": "magic dagger", "damage_bonus": 1}
    table = hidden_thief({**THIEF, "weapons": [magic]})

    stab = attack(table, "hero", "foe", dice=[5, 14, 3], backstab=True)

    assert rolled(stab)["damage"] == 3 * 2 + 1 + 1


def test_hidden_persists_so_condition_applied_reports_no_end_of_turn():
    table = one_on_one(THIEF, {"hp": 20})

    (applied,) = act(
        table, {"type": "apply-condition", "combatant_id": "hero", "condition": "hidden"}
    )

    assert applied.schema == 2
    assert applied.data["rounds"] is None and applied.data["ends"] is None
    assert state_of(table).table.combatants["hero"].conditions[0].ends is None


def test_the_hidden_condition_is_lost_after_the_blow():
    table = hidden_thief()

    attack(table, "hero", "foe", dice=[5, 14, 3], backstab=True)

    assert "hidden" not in conditions(table, "hero")


@pytest.mark.parametrize(
    ("thief", "foe", "hide", "code"),
    [
        pytest.param({**THIEF, "backstab": None}, {}, True, "backstab/no-multiplier",
                     id="no backstab multiplier"),
        pytest.param(THIEF, {}, False, "backstab/not-hidden", id="not hidden"),
        pytest.param(THIEF, {"humanoid": False}, True, "backstab/no-back", id="not humanoid"),
        pytest.param(THIEF, {"has_back": False}, True, "backstab/no-back", id="an ooze: no back"),
    ],
)  # fmt: skip
def test_a_backstab_needs_a_thief_hidden_behind_a_humanoid_with_a_back(
    thief: dict[str, Any], foe: dict[str, Any], hide: bool, code: str
):
    table = one_on_one(thief, {"hp": 20, **foe})
    if hide:
        act(table, {"type": "apply-condition", "combatant_id": "hero", "condition": "hidden"})
    stab = {"type": "attack", "combatant_id": "hero", "target": "foe", "backstab": True}

    violation = refused(table, stab, dice=[5, 14, 3])

    assert violation.code == code


def test_in_a_full_attack_only_the_first_blow_is_a_backstab():
    table = hidden_thief({**THIEF, "attacks": 2})

    blows = act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["foe"], "backstab": True},
        dice=[5, 14, 3, 12, 2],
    )

    first, second = only(blows, "attack-rolled")
    assert (first["edge"], first["backstab"], first["damage"]) == ("advantage", 2, 7)
    assert (second["edge"], second["backstab"], second["damage"]) == ("normal", None, 3)
    assert pools(table, "foe")["hp"] == 10


# --- the full attack ----------------------------------------------------------------------


def test_a_full_attack_makes_every_attack_of_the_stat_block_for_5_points():
    table = encounter()
    pc(table, "hero", strength=2, attacks=2)
    monster(table, "gob1")
    monster(table, "gob2")
    start(table)
    initiative(table, 15, 5, 4)

    blows = act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["gob1", "gob2"]},
        dice=[12, 2, 12, 3],
    )

    assert only(blows, "action-taken")[0]["points"] == 5
    assert [(a["target"], a["damage"]) for a in only(blows, "attack-rolled")] == [
        ("gob1", 4),
        ("gob2", 5),
    ]
    assert (pools(table, "gob1")["hp"], pools(table, "gob2")["hp"]) == (6, 5)


def test_a_full_attack_with_fewer_targets_keeps_striking_the_last():
    table = one_on_one({"strength": 2, "attacks": 2}, {"hp": 20})

    blows = act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["foe"]},
        dice=[12, 2, 12, 3],
    )

    assert [a["target"] for a in only(blows, "attack-rolled")] == ["foe", "foe"]
    assert pools(table, "foe")["hp"] == 20 - 4 - 5


def test_a_thrown_weapon_is_thrown_only_once_in_a_full_attack():
    table = one_on_one({"strength": 2, "attacks": 2, "weapons": [JAVELIN]}, {"hp": 30})

    blows = act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["foe"], "feet": 10},
        dice=[15, 2],
    )

    # Once thrown, the only javelin lies at the foe's feet: no longer in hand, it cannot be
    # thrown again (an attack needs its weapon in hand), so the dice of one throw suffice.
    assert [a["weapon"] for a in only(blows, "attack-rolled")] == ["javelin"]
    assert [g.weapon.name for g in state_of(table).ground] == ["javelin"]


# --- Special Attack Conditions ------------------------------------------------------------


def test_energy_drain_takes_a_level_and_its_hit_points():
    table = one_on_one({"hp": 12, "ac": 14, "level": 3}, {"weapons": [DRAIN]}, foe_first=True)

    touch = attack(table, "foe", "hero", dice=[15, 2])

    [drain] = only(touch, "level-drained")
    shows(drain, combatant_id="hero", attacker="foe", level=2, max_hp=8)
    hero = state_of(table).table.combatants["hero"]
    assert hero.stats["level"] == 2
    assert (hero.pools["hp"].current, hero.pools["hp"].max) == (8, 8)


def test_each_drain_takes_as_many_hit_points_as_the_first():
    wight = {"attacks": 2, "weapons": [DRAIN]}
    table = one_on_one({"hp": 12, "ac": 14, "level": 3}, wight, foe_first=True)

    touches = act(
        table,
        {"type": "full-attack", "combatant_id": "foe", "targets": ["hero"]},
        dice=[15, 1, 15, 1],
    )

    assert [(d["level"], d["max_hp"]) for d in only(touches, "level-drained")] == [(2, 8), (1, 4)]
    hero = state_of(table).table.combatants["hero"]
    assert (hero.pools["hp"].current, hero.pools["hp"].max) == (4, 4)


def test_energy_drain_uses_the_hit_points_a_level_of_the_stat_block():
    table = one_on_one(
        {"hp": 12, "ac": 14, "level": 2, "hp_per_level": 5}, {"weapons": [DRAIN]}, foe_first=True
    )

    touch = attack(table, "foe", "hero", dice=[15, 2])

    assert only(touch, "level-drained")[0]["max_hp"] == 7
    assert pools(table, "hero")["hp"] == 7


def test_a_lightly_hurt_victim_keeps_its_hit_points_below_the_new_maximum():
    table = one_on_one({"hp": 12, "ac": 14, "level": 3}, {"weapons": [DRAIN]}, foe_first=True)
    table.send({"type": "adjust-resource", "combatant_id": "hero", "set": 7})

    attack(table, "foe", "hero", dice=[15, 1])

    hero = state_of(table).table.combatants["hero"]
    assert (hero.pools["hp"].current, hero.pools["hp"].max) == (6, 8)


def test_energy_drain_kills_a_first_level_victim():
    table = one_on_one({"hp": 12, "ac": 14, "level": 1}, {"weapons": [DRAIN]}, foe_first=True)

    touch = attack(table, "foe", "hero", dice=[15, 2])

    assert only(touch, "killed") == [{"combatant_id": "hero", "cause": "energy drain"}]
    assert state_of(table).table.combatants["hero"].out_of_fight
    assert "dead" in conditions(table, "hero")


def test_a_constitution_save_meeting_the_dc_resists_poison():
    table = one_on_one({"hp": 12, "ac": 14, "constitution": 1}, {"weapons": [FANGS]},
                       foe_first=True)  # fmt: skip

    bite = attack(table, "foe", "hero", dice=[15, 2, 11])

    assert only(bite, "poison-saved") == [
        {"combatant_id": "hero", "attacker": "foe", "roll": 11, "bonus": 1, "total": 12,
         "dc": 12, "saved": True}
    ]  # fmt: skip
    assert "killed" not in types(bite)
    assert pools(table, "hero")["hp"] == 10


def test_a_failed_save_against_a_deadly_poison_kills():
    table = one_on_one({"hp": 12, "ac": 14, "constitution": 1}, {"weapons": [FANGS]},
                       foe_first=True)  # fmt: skip

    bite = attack(table, "foe", "hero", dice=[15, 2, 10])

    assert only(bite, "poison-saved")[0]["saved"] is False
    assert only(bite, "killed") == [{"combatant_id": "hero", "cause": "poison"}]
    assert state_of(table).table.combatants["hero"].out_of_fight


def test_a_failed_save_against_a_poison_with_dice_deals_its_damage():
    fangs = {**FANGS, "poison": "2d4"}
    table = one_on_one({"hp": 12, "ac": 14, "constitution": 1}, {"weapons": [fangs]},
                       foe_first=True)  # fmt: skip

    bite = attack(table, "foe", "hero", dice=[15, 2, 5, 3, 1])

    assert "killed" not in types(bite)
    assert [e["reason"] for e in only(bite, "resource-adjusted")] == ["fangs", "poison"]
    assert pools(table, "hero")["hp"] == 12 - 2 - 4


# --- Killing Monsters and Character Death ---------------------------------------------------


def test_a_monster_at_zero_hit_points_is_defeated_and_loses_its_turn():
    table = duel()

    blow = attack(table, "hero", "foe", dice=[10, 8])

    assert types(blow)[-3:] == ["resource-adjusted", "combatant-downed", "defeated"]
    assert "morale-checked" not in types(blow)
    assert state_of(table).table.combatants["foe"].out_of_fight

    ended = end_turn(table, "hero")

    assert only(ended, "turn-skipped") == [{"combatant_id": "foe", "reason": "out of the fight"}]
    assert types(ended)[-1] == "round-started"


@pytest.mark.parametrize(
    ("death_check", "dice", "outcome"),
    [
        pytest.param("save", [15, 4, 9], "unconscious", id="save: 9 + CON 1 makes DC 10"),
        pytest.param("save", [15, 4, 8], "dead", id="save: 8 + CON 1 misses DC 10"),
        pytest.param("dead", [15, 4], "dead", id="dead: no check"),
        pytest.param("gm", [15, 4], "dying", id="gm: the GM decides"),
    ],
)
def test_a_character_at_zero_hit_points_makes_the_death_check(
    death_check: str, dice: list[int], outcome: str
):
    table = one_on_one({"hp": 4, "ac": 14, "constitution": 1}, {}, foe_first=True,
                       death_check=death_check)  # fmt: skip

    blow = attack(table, "foe", "hero", dice=dice)

    [checked] = only(blow, "death-checked")
    assert checked["outcome"] == outcome
    if death_check == "save":
        assert (checked["roll"], checked["bonus"], checked["dc"]) == (dice[-1], 1, 10)
    assert outcome in conditions(table, "hero")
    assert state_of(table).table.combatants["hero"].out_of_fight


def test_falling_to_zero_hit_points_during_ones_own_turn_ends_it():
    table = one_on_one({"strength": 2, "hp": 2, "ac": 14, "weapons": [SWORD]}, {},
                       death_check="dead")  # fmt: skip
    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[3, 15])
    window = only(disarm, "reaction-window-opened")[0]["window_id"]

    counter = act(
        table,
        {"type": "answer-reaction", "window_id": window, "combatant_id": "foe",
         "option": "attack"},
        dice=[4, 17, 3],
    )  # fmt: skip

    assert [(e["combatant_id"], e["reason"]) for e in only(counter, "turn-ended")] == [
        ("hero", "out-of-fight")
    ]
    assert only(counter, "turn-started")[0]["combatant_id"] == "foe"
    assert state_of(table).current == "foe"


# --- Check Morale ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage_die", "dice", "checks"),
    [
        pytest.param(4, [20], True, id="10 to 4: below half"),
        pytest.param(3, [], False, id="10 to 5: exactly half does not"),
        pytest.param(8, [], False, id="10 to 0: down, no morale"),
    ],
)
def test_dropping_below_half_hit_points_calls_for_a_morale_check(
    damage_die: int, dice: list[int], checks: bool
):
    table = duel()

    blow = attack(table, "hero", "foe", dice=[10, damage_die, *dice])

    assert ("morale-checked" in types(blow)) is checks


def test_the_morale_check_is_d20_plus_morale_against_20():
    table = one_on_one({"strength": 2, "weapons": [SWORD]}, {"morale": 3})

    blow = attack(table, "hero", "foe", dice=[10, 4, 17])

    assert only(blow, "morale-checked") == [
        {"combatant_id": "foe", "dice": [17], "natural": 17, "bonus": 3, "total": 20, "dc": 20,
         "disadvantage": False, "broken": False}
    ]  # fmt: skip


def test_once_below_half_a_further_blow_calls_no_morale_check():
    table = one_on_one({"strength": 2, "attacks": 2}, {})

    blows = act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["foe"]},
        dice=[10, 4, 20, 10, 1],
    )

    assert len(only(blows, "morale-checked")) == 1
    assert pools(table, "foe")["hp"] == 1


def test_a_natural_20_blow_makes_the_morale_check_with_disadvantage():
    table = duel()

    blow = attack(table, "hero", "foe", dice=[20, 1, 20, 18])

    [check] = only(blow, "morale-checked")
    assert (check["dice"], check["natural"], check["disadvantage"]) == ([20, 18], 18, True)
    assert check["broken"] is True
    assert "broken" in conditions(table, "foe")


def test_a_broken_combatant_who_does_not_choose_flees():
    table = duel()
    blow = attack(table, "hero", "foe", dice=[10, 4, 2])
    window = only(blow, "reaction-window-opened")[0]
    assert window["trigger"]["kind"] == "morale-broken"
    assert window["eligible"] == {"foe": ["flee", "surrender", "pass"]}

    closed = act(table, {"type": "close-reaction-window", "window_id": window["window_id"]})

    assert only(closed, "fled") == [{"combatant_id": "foe", "feet": 60}]
    assert state_of(table).table.combatants["foe"].out_of_fight
    assert conditions(table, "foe") == {"fled"}


def test_a_broken_combatant_may_surrender_and_throw_down_its_arms():
    table = duel()
    blow = attack(table, "hero", "foe", dice=[10, 4, 2])
    window = only(blow, "reaction-window-opened")[0]["window_id"]

    answered = act(
        table,
        {"type": "answer-reaction", "window_id": window, "combatant_id": "foe",
         "option": "surrender"},
    )  # fmt: skip

    assert only(answered, "surrendered") == [{"combatant_id": "foe"}]
    assert [(g.weapon.name, g.near) for g in state_of(table).ground] == [("spear", "foe")]
    assert state_of(table).table.combatants["foe"].out_of_fight


def test_a_combatant_broken_and_then_defeated_by_the_same_full_attack_does_not_flee():
    table = one_on_one({"strength": 2, "attacks": 2}, {})

    act(
        table,
        {"type": "full-attack", "combatant_id": "hero", "targets": ["foe"]},
        dice=[10, 4, 2, 10, 8],
    )
    for window in state_of(table).table.open_windows():
        act(table, {"type": "close-reaction-window", "window_id": window.id})

    assert "defeated" in conditions(table, "foe")
    assert "fled" not in conditions(table, "foe")
    assert "fled" not in types(table.envelopes)


@pytest.mark.parametrize(
    ("weapon", "dice"),
    [
        pytest.param(DRAIN, [15, 4, 2], id="energy drain kills a level-1 foe"),
        pytest.param(FANGS, [15, 4, 2, 3], id="a deadly poison"),
    ],
)
def test_a_combatant_broken_and_then_killed_by_a_special_attack_does_not_flee(
    weapon: dict[str, Any], dice: list[int]
):
    table = one_on_one({"weapons": [weapon]}, {"hp": 7})

    attack(table, "hero", "foe", dice=dice)
    for window in state_of(table).table.open_windows():
        act(table, {"type": "close-reaction-window", "window_id": window.id})

    assert "dead" in conditions(table, "foe")
    assert "fled" not in conditions(table, "foe")
    assert "fled" not in types(table.envelopes)


def test_a_foe_with_a_ranged_weapon_in_hand_may_shoot_once_at_one_who_flees():
    table = one_on_one({"dexterity": 1, "weapons": [CROSSBOW]}, {})
    shot = attack(table, "hero", "foe", dice=[11, 6, 2], feet=30)
    closed = act(
        table,
        {"type": "close-reaction-window",
         "window_id": only(shot, "reaction-window-opened")[0]["window_id"]},
    )  # fmt: skip
    window = only(closed, "reaction-window-opened")[0]
    assert window["trigger"]["kind"] == "parting-shot"
    assert window["eligible"] == {"hero": ["shoot", "pass"]}

    parting = act(
        table,
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": "hero",
         "option": "shoot"},
        dice=[15, 3],
    )  # fmt: skip

    shows(rolled(parting), attacker="hero", target="foe", reaction="parting-shot", hit=True)
    assert pools(table, "foe")["hp"] == 1


# --- Casting Spells: the interrupted spell ----------------------------------------------------


def wizard_fight(wizard_first: bool) -> Table:
    """A wizard (INT +3, 5 mana, bolt: level 2, DC 12) has declared bolt in round 1."""
    table = encounter()
    pc(table, "wizard", intelligence=3, mana=5, spells=[BOLT])
    monster(table, "foe")
    start(table)
    act(table, {"type": "declare", "combatant_id": "wizard", "action": "cast", "spell": "bolt"})
    initiative(table, *((15, 5) if wizard_first else (5, 15)))
    return table


def test_a_caster_hurt_before_its_turn_loses_the_declared_spell_and_its_mana():
    table = wizard_fight(wizard_first=False)

    blow = attack(table, "foe", "wizard", dice=[15, 2])

    assert only(blow, "spell-interrupted") == [
        {"combatant_id": "wizard", "spell": "bolt", "mana": 2}
    ]
    assert pools(table, "wizard") == {"hp": 8, "mana": 3}
    end_turn(table, "foe")
    cast = {"type": "cast-spell", "combatant_id": "wizard", "spell": "bolt", "target": "foe"}
    assert refused(table, cast, dice=[15, 3]).code == "spell/not-declared"


def test_a_caster_hurt_after_its_turn_began_still_casts():
    table = wizard_fight(wizard_first=False)
    act(table, {"type": "ready", "combatant_id": "foe", "trigger": "moves"})
    end_turn(table, "foe")
    moved = act(table, {"type": "move", "combatant_id": "wizard", "feet": 10})
    window = only(moved, "reaction-window-opened")[0]
    assert window["eligible"] == {"foe": ["fire", "pass"]}

    fired = act(
        table,
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": "foe",
         "option": "fire"},
        dice=[15, 2],
    )  # fmt: skip
    cast = act(
        table,
        {"type": "cast-spell", "combatant_id": "wizard", "spell": "bolt", "target": "foe"},
        dice=[9, 4],
    )

    assert rolled(fired)["reaction"] == "readied" and pools(table, "wizard")["hp"] == 8
    assert "spell-interrupted" not in types(fired)
    shows(only(cast, "spell-cast")[0], outcome="cast", total=12, dc=12, mana=2, damage=4)
    assert pools(table, "wizard")["mana"] == 3 and pools(table, "foe")["hp"] == 6


def test_a_spell_not_declared_cannot_be_cast():
    table = encounter()
    pc(table, "wizard", intelligence=3, mana=5, spells=[BOLT])
    monster(table, "foe")
    start(table)
    initiative(table, 15, 5)
    cast = {"type": "cast-spell", "combatant_id": "wizard", "spell": "bolt", "target": "foe"}

    violation = refused(table, cast, dice=[15, 3])

    assert violation.code == "spell/not-declared"


def test_a_failed_casting_roll_still_spends_the_mana():
    table = wizard_fight(wizard_first=True)

    cast = act(
        table,
        {"type": "cast-spell", "combatant_id": "wizard", "spell": "bolt", "target": "foe"},
        dice=[8],
    )

    shows(only(cast, "spell-cast")[0], outcome="failed", total=8 + 3, dc=12, mana=2, damage=None)
    assert pools(table, "wizard")["mana"] == 3 and pools(table, "foe")["hp"] == 10


# --- Environment Modifiers (optional) -------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "ac"),
    [
        pytest.param(CROSSBOW, 12 + 4, id="a ranged attack: +4"),
        pytest.param(SWORD, 12, id="a melee attack: no change"),
    ],
)
def test_a_prone_target_has_4_more_armor_class_against_ranged_attacks_only(
    weapon: dict[str, Any], ac: int
):
    table = one_on_one({"weapons": [weapon]}, {})
    act(table, {"type": "apply-condition", "combatant_id": "foe", "condition": "prone"})

    blow = attack(table, "hero", "foe", dice=[2], feet=10)

    assert rolled(blow)["ac"] == ac


@pytest.mark.parametrize(
    ("circumstances", "ac"),
    [
        pytest.param([], 12, id="no cover"),
        pytest.param(["half-cover"], 12 + 2, id="half cover: +2"),
        pytest.param(["mostly-covered"], 12 + 4, id="mostly covered: +4"),
        pytest.param(["half-cover", "mostly-covered"], 12 + 4, id="covers do not stack"),
    ],
)
def test_cover_raises_the_armor_class_and_only_the_best_cover_counts(
    circumstances: list[str], ac: int
):
    table = duel()
    act(table, {"type": "set-environment", "combatant_id": "foe", "circumstances": circumstances})

    blow = attack(table, "hero", "foe", dice=[2])

    assert rolled(blow)["ac"] == ac


@pytest.mark.parametrize(
    ("circumstances", "ac"),
    [
        pytest.param([], 12 + 2, id="behind the front rank: +2"),
        pytest.param(["half-cover"], 12 + 2, id="and half cover: still +2"),
        pytest.param(["mostly-covered"], 12 + 4, id="and mostly covered: +4"),
    ],
)
def test_the_marching_order_covers_those_behind_the_front_rank_without_stacking(
    circumstances: list[str], ac: int
):
    table = encounter()
    pc(table, "hero", strength=2)
    monster(table, "front")
    monster(table, "foe")
    start(table)
    act(table, {"type": "set-marching-order", "side": "monsters", "width": 1,
                "ranks": [["front"], ["foe"]]})  # fmt: skip
    act(table, {"type": "set-environment", "combatant_id": "foe", "circumstances": circumstances})
    initiative(table, 15, 5, 4)

    blow = attack(table, "hero", "foe", dice=[2])

    assert rolled(blow)["ac"] == ac


def test_darkness_is_minus_2_to_attack():
    table = duel()
    act(table, {"type": "set-environment", "circumstances": ["darkness"]})

    blow = attack(table, "hero", "foe", dice=[10])

    assert (rolled(blow)["modifier"], rolled(blow)["edge"], rolled(blow)["hit"]) == (
        0,
        "normal",
        False,
    )


def test_an_attacker_with_darkvision_has_advantage_in_darkness():
    table = one_on_one({"strength": 2, "darkvision": True, "weapons": [SWORD]}, {})
    act(table, {"type": "set-environment", "circumstances": ["darkness"]})

    blow = attack(table, "hero", "foe", dice=[5, 10, 3])

    shows(rolled(blow), dice=[5, 10], edge="advantage", natural=10, modifier=2, hit=True)


@pytest.mark.parametrize(
    ("weapon", "feet"),
    [pytest.param(CROSSBOW, 10, id="a ranged attack"), pytest.param(SWORD, None, id="melee")],
)
def test_without_environment_modifiers_prone_cover_and_darkness_change_nothing(
    weapon: dict[str, Any], feet: int | None
):
    table = one_on_one({"strength": 2, "weapons": [weapon]}, {}, environment=False)
    act(table, {"type": "apply-condition", "combatant_id": "foe", "condition": "prone"})
    act(table, {"type": "set-environment", "combatant_id": "foe",
                "circumstances": ["mostly-covered", "darkness"]})  # fmt: skip
    act(table, {"type": "set-environment", "circumstances": ["darkness", "fog"]})

    blow = attack(table, "hero", "foe", dice=[2], feet=feet)

    ability = 2 if weapon is SWORD else 0
    assert (rolled(blow)["ac"], rolled(blow)["modifier"], rolled(blow)["edge"]) == (
        12,
        ability,
        "normal",
    )


# --- hide_enemy_health --------------------------------------------------------------------


def test_with_enemy_health_hidden_a_player_sees_that_a_monster_was_hit_not_for_how_much():
    table = duel(hide_enemy_health=True)

    blow = attack(table, "hero", "foe", dice=[10, 3])

    [envelope] = [e for e in blow if e.type == "attack-rolled"]
    shown = RULESET.redact_event(envelope, PLAYER, state_of(table))
    assert shown is not None
    assert shown["data"]["hit"] is True and shown["data"]["damage"] is None
    assert not [r for r in shown["rolls"] if r["purpose"].startswith("damage: ")]
    as_gm = RULESET.redact_event(envelope, GM, state_of(table))
    assert as_gm is not None and as_gm["data"]["damage"] == 5


def test_with_enemy_health_hidden_a_player_still_sees_the_damage_its_own_side_takes():
    table = one_on_one({"hp": 12, "ac": 14}, {}, foe_first=True, hide_enemy_health=True)

    blow = attack(table, "foe", "hero", dice=[15, 2])

    [envelope] = [e for e in blow if e.type == "attack-rolled"]
    shown = RULESET.redact_event(envelope, PLAYER, state_of(table))
    assert shown is not None and shown["data"]["damage"] == 2


def test_with_enemy_health_hidden_a_player_does_not_see_a_spells_damage_to_a_monster():
    table = encounter(hide_enemy_health=True)
    pc(table, "wizard", intelligence=3, mana=5, spells=[BOLT])
    monster(table, "foe")
    start(table)
    act(table, {"type": "declare", "combatant_id": "wizard", "action": "cast", "spell": "bolt"})
    initiative(table, 15, 5)

    cast = act(
        table,
        {"type": "cast-spell", "combatant_id": "wizard", "spell": "bolt", "target": "foe"},
        dice=[15, 4],
    )

    [envelope] = [e for e in cast if e.type == "spell-cast"]
    shown = RULESET.redact_event(envelope, PLAYER, state_of(table))
    assert shown is not None and shown["data"]["damage"] is None
    as_gm = RULESET.redact_event(envelope, GM, state_of(table))
    assert as_gm is not None and as_gm["data"]["damage"] == 4


def test_with_enemy_health_hidden_a_player_does_not_learn_a_drained_monsters_hit_points():
    table = one_on_one({"weapons": [DRAIN]}, {"hp": 30, "level": 3}, hide_enemy_health=True)

    touch = attack(table, "hero", "foe", dice=[15, 1])

    [envelope] = [e for e in touch if e.type == "level-drained"]
    shown = RULESET.redact_event(envelope, PLAYER, state_of(table))
    assert shown is None or shown["data"].get("max_hp") is None
    as_gm = RULESET.redact_event(envelope, GM, state_of(table))
    assert as_gm is not None and as_gm["data"]["max_hp"] == 20


def test_a_disarm_is_toe_to_toe_even_with_a_bow_in_hand():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", position=(0, 1), weapons=[CROSSBOW])
    monster(table, "foe", position=(3, 1))
    start(table)
    initiative(table, 15, 5)

    violation = refused(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"})

    assert violation.code == "attack/out-of-reach"
    act(table, {"type": "move", "combatant_id": "hero", "to": [2, 1]})
    disarm = act(table, {"type": "disarm", "combatant_id": "hero", "target": "foe"}, dice=[10, 5])
    assert only(disarm, "disarm-rolled")[0]["success"] is True


def test_a_full_attack_by_an_unknown_combatant_is_refused():
    table = hidden_thief({**THIEF, "attacks": 2})

    violation = refused(table, {"type": "full-attack", "combatant_id": "", "targets": ["foe"]})

    assert violation.code == "combatant/unknown"


def test_crawl_accepts_the_feet_field_that_move_accepts():
    table = duel()
    act(table, {"type": "drop-prone", "combatant_id": "hero"})

    too_far = refused(table, {"type": "crawl", "combatant_id": "hero", "feet": 10})
    crawled = act(table, {"type": "crawl", "combatant_id": "hero", "feet": 5})

    assert too_far.code == "move/too-far" and too_far.details == {"allowed": 5}
    assert only(crawled, "moved") == [
        {"combatant_id": "hero", "how": "crawl", "feet": 5, "allowed": 5, "path": None}
    ]


def test_a_crawl_without_feet_still_covers_five_feet():
    table = duel()
    act(table, {"type": "drop-prone", "combatant_id": "hero"})

    crawled = act(table, {"type": "crawl", "combatant_id": "hero"})

    assert only(crawled, "moved")[0]["feet"] == 5
