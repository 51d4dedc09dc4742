"""Before combat (d20-action-points Marching Order, Setting Up An Encounter, Evading Monsters,
Ambush, Negotiation): the marching order and who may fight from where, the surprise check,
the Monster Reaction Chart, and the party's Ambush, Evade or Negotiate."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, Actor
from tests.rules.d20_action_points.given import (
    CROSSBOW,
    PLAYER,
    SWORD,
    act,
    encounter,
    initiative,
    monster,
    only,
    pc,
    refused,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table

PIKE = {"name": "pike", "damage": "1d10", "reach": True}
STRANGER = Actor("p2", "player", frozenset({"someone-else"}))


def gathered() -> Table:
    """The encounter has started, nothing is checked yet. The party's best Notice is the
    ally's 14 (the hero's is 10 + WIS 2); its lowest WIS is the ally's -1. The goblin sneaks
    at +4, the ogre (no stealth) at its WIS -1; the monsters' best WIS is the goblin's +2."""
    table = encounter()
    pc(table, "hero", wisdom=2, speed=30)
    pc(table, "ally", notice=14, wisdom=-1, speed=40)
    monster(table, "goblin", stealth=4, wisdom=2)
    monster(table, "ogre", wisdom=-1)
    table.send({"type": "start-encounter"})
    return table


def surprise(table: Table, d20: int, monster_id: str | None = None) -> dict[str, Any]:
    checked = table.send({"type": "surprise-check", "monster": monster_id}, dice=[d20])
    return only(checked, "surprise-checked")[0]


# --- Marching Order -------------------------------------------------------------------------


def test_the_marching_order_keeps_each_sides_ranks_from_the_front() -> None:
    table = encounter()
    pc(table, "hero")
    pc(table, "wizard")
    pc(table, "archer")

    sent = table.send(
        {"type": "set-marching-order", "side": "party", "width": 2,
         "ranks": [["hero", "wizard"], ["archer"]]}
    )  # fmt: skip

    assert only(sent, "marching-order-set") == [
        {"side": "party", "width": 2, "ranks": [["hero", "wizard"], ["archer"]]}
    ]
    marching = state_of(table).marching["party"]
    assert marching.ranks == (("hero", "wizard"), ("archer",)) and marching.width == 2


@pytest.mark.parametrize(
    ("ranks", "code"),
    [
        pytest.param([["hero", "wizard", "archer"]], "marching/too-wide", id="3 abreast in 2"),
        pytest.param([["hero"], ["goblin"]], "marching/wrong-side", id="a goblin in the party"),
        pytest.param([["hero"], ["wizard", "hero"]], "marching/twice", id="the hero twice"),
        pytest.param([["hero"], ["nobody"]], "combatant/unknown", id="an unknown combatant"),
    ],
)
def test_a_marching_order_that_does_not_fit_is_refused(ranks: list[list[str]], code: str) -> None:
    table = encounter()
    pc(table, "hero")
    pc(table, "wizard")
    pc(table, "archer")
    monster(table, "goblin")

    error = refused(
        table, {"type": "set-marching-order", "side": "party", "width": 2, "ranks": ranks}
    )

    assert error.code == code


def single_file(second: dict[str, Any], third: dict[str, Any], first_to_act: str) -> Table:
    """A passage one wide: the hero (longsword) in front, the wizard second and the archer third
    with the weapons given; `first_to_act` has the first turn of round 1."""
    table = encounter()
    pc(table, "hero", weapons=[SWORD])
    pc(table, "wizard", weapons=[second])
    pc(table, "archer", weapons=[third])
    monster(table, "foe", ac=12, weapons=[SWORD])
    table.send(
        {"type": "set-marching-order", "side": "party", "width": 1,
         "ranks": [["hero"], ["wizard"], ["archer"]]}
    )  # fmt: skip
    start(table)
    order = ["hero", "wizard", "archer", "foe"]
    initiative(table, *(20 if cid == first_to_act else 2 + i for i, cid in enumerate(order)))
    return table


@pytest.mark.parametrize(
    ("attacker", "second", "third", "feet"),
    [
        pytest.param("wizard", PIKE, CROSSBOW, None, id="a reach weapon from the second rank"),
        pytest.param("archer", SWORD, CROSSBOW, 30, id="a crossbow from the third rank"),
    ],
)
def test_reach_weapons_strike_from_the_second_rank_and_ranged_ones_from_anywhere(
    attacker: str, second: dict[str, Any], third: dict[str, Any], feet: int | None
) -> None:
    table = single_file(second, third, first_to_act=attacker)

    sent = act(
        table, {"type": "attack", "combatant_id": attacker, "target": "foe", "feet": feet}, [2]
    )

    assert only(sent, "attack-rolled")[0]["attacker"] == attacker


@pytest.mark.parametrize(
    ("attacker", "second", "third"),
    [
        pytest.param("wizard", SWORD, CROSSBOW, id="a sword from the second rank"),
        pytest.param("archer", SWORD, PIKE, id="a reach weapon from the third rank"),
    ],
)
def test_only_the_front_rank_fights_in_melee(
    attacker: str, second: dict[str, Any], third: dict[str, Any]
) -> None:
    table = single_file(second, third, first_to_act=attacker)

    error = refused(
        table, {"type": "attack", "combatant_id": attacker, "target": "foe"}, dice=[15, 4]
    )

    assert error.code == "marching/not-in-front"


def test_a_player_in_the_middle_of_the_party_has_plus_2_ac() -> None:
    table = single_file(SWORD, CROSSBOW, first_to_act="foe")

    at_front = act(table, {"type": "attack", "combatant_id": "foe", "target": "hero"}, [2])
    table.send({"type": "end-turn", "combatant_id": "foe"})
    table.send({"type": "end-turn", "combatant_id": "archer"})
    table.send({"type": "end-turn", "combatant_id": "wizard"})
    table.send({"type": "end-turn", "combatant_id": "hero"})
    table.send({"type": "roll-initiative"}, dice=[2, 3, 4, 20])
    in_middle = act(table, {"type": "attack", "combatant_id": "foe", "target": "wizard"}, [2])

    assert only(at_front, "attack-rolled")[0]["ac"] == 12
    assert only(in_middle, "attack-rolled")[0]["ac"] == 14


def test_a_monster_in_the_middle_of_a_single_file_of_monsters_has_plus_2_ac() -> None:
    table = encounter()
    pc(table, "archer", weapons=[CROSSBOW])
    monster(table, "goblin", ac=12)
    monster(table, "orc", ac=12)
    table.send(
        {"type": "set-marching-order", "side": "monsters", "width": 1,
         "ranks": [["goblin"], ["orc"]]}
    )  # fmt: skip
    start(table)
    initiative(table, 20, 5, 4)

    shot = act(
        table, {"type": "attack", "combatant_id": "archer", "target": "orc", "feet": 30}, [2]
    )

    assert only(shot, "attack-rolled")[0]["ac"] == 14


def test_when_the_front_rank_is_downed_the_next_rank_steps_up() -> None:
    table = single_file(SWORD, CROSSBOW, first_to_act="wizard")
    swing = {"type": "attack", "combatant_id": "wizard", "target": "foe"}
    assert refused(table, swing, dice=[2]).code == "marching/not-in-front"

    downed = table.send({"type": "adjust-resource", "combatant_id": "hero", "set": 0})
    stepped_up = act(table, swing, [2])

    assert "combatant-downed" in types(downed)
    assert only(stepped_up, "attack-rolled")[0]["attacker"] == "wizard"


# --- the surprise check ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d20", "total", "result"),
    [
        pytest.param(16, 15, "monsters", id="15 above Notice 14: the monsters"),
        pytest.param(15, 14, "neither", id="14 ties Notice 14: neither"),
        pytest.param(14, 13, "party", id="13 under Notice 14: the party"),
    ],
)
def test_the_surprise_check_is_d20_plus_the_lowest_monster_bonus_against_the_best_notice(
    d20: int, total: int, result: str
) -> None:
    table = gathered()

    checked = surprise(table, d20)

    assert checked == {
        "notice": 14, "noticer": "ally", "roll": d20, "bonus": -1, "total": total,
        "sneaker": "ogre", "result": result,
    }  # fmt: skip
    assert state_of(table).surprise == result


def test_the_gm_may_name_the_monster_whose_stealth_counts() -> None:
    table = gathered()

    checked = surprise(table, 11, "goblin")

    assert (checked["sneaker"], checked["bonus"], checked["total"]) == ("goblin", 4, 15)
    assert checked["result"] == "monsters"


def test_the_surprise_check_is_made_once() -> None:
    table = gathered()
    surprise(table, 10)

    error = refused(table, {"type": "surprise-check"}, dice=[10])

    assert error.code == "surprise/already-checked"


def test_the_surprise_check_needs_both_sides() -> None:
    table = encounter()
    pc(table, "hero")
    table.send({"type": "start-encounter"})

    error = refused(table, {"type": "surprise-check"}, dice=[10])

    assert error.code == "surprise/needs-both"


def test_the_surprise_check_names_a_monster_not_a_player_character() -> None:
    table = gathered()

    error = refused(table, {"type": "surprise-check", "monster": "hero"}, dice=[10])

    assert error.code == "surprise/not-a-monster"


def test_the_surprise_check_comes_before_combat() -> None:
    table = gathered()
    table.send({"type": "begin-combat"})

    error = refused(table, {"type": "surprise-check"}, dice=[10])

    assert error.code == "encounter/combat-begun"


# --- the monsters noticed the party first: the Monster Reaction Chart -----------------------


def monsters_ahead() -> Table:
    table = gathered()
    surprise(table, 20)
    return table


def react(table: Table, outcome: str, result: str = "hostile") -> list[Any]:
    return table.send({"type": "record-monster-reaction", "result": result, "outcome": outcome})


def test_monsters_that_choose_to_fight_begin_round_1() -> None:
    table = monsters_ahead()

    sent = react(table, "fight")

    assert types(sent) == ["monster-reaction-recorded", "combat-began", "round-started"]
    assert (state_of(table).phase, state_of(table).round) == ("declaring", 1)


def test_monsters_that_parley_open_a_negotiation() -> None:
    table = monsters_ahead()

    sent = react(table, "parley", "uncertain, will talk")

    assert types(sent) == ["monster-reaction-recorded", "approach-chosen"]
    assert only(sent, "approach-chosen") == [{"approach": "negotiate"}]
    assert state_of(table).phase == "negotiating"


def test_monsters_that_leave_end_the_encounter() -> None:
    table = monsters_ahead()

    sent = react(table, "leave", "they want no trouble")

    ended = only(sent, "encounter-ended")[0]
    assert ended["reason"] == "the monsters leave: they want no trouble"
    assert state_of(table).phase == "ended"


@pytest.mark.parametrize("d20", [pytest.param(15, id="neither"), pytest.param(2, id="party")])
def test_the_monster_reaction_chart_is_only_for_monsters_that_noticed_first(d20: int) -> None:
    table = gathered()
    surprise(table, d20)

    error = refused(
        table, {"type": "record-monster-reaction", "result": "hostile", "outcome": "fight"}
    )

    assert error.code == "surprise/not-monsters"


# --- the party noticed the monsters first: Ambush, Evade, Negotiate -------------------------


def party_ahead() -> Table:
    table = gathered()
    surprise(table, 2)
    return table


def approach(table: Table, how: str, dice: list[int] | None = None) -> list[Any]:
    # An ambush rolls the GM's die too: only the GM may send the table's dice for it.
    actor = PLAYER if dice is None else GM
    return table.send({"type": "choose-approach", "approach": how}, actor=actor, dice=dice)


def test_an_ambush_beats_the_gm_below_the_partys_hide_dc_and_the_monsters_sit_out_round_1() -> None:
    table = party_ahead()

    # The party's d20 12 + its lowest WIS -1 = DC 11; the GM's 8 + the goblin's WIS 2 = 10.
    sent = approach(table, "ambush", [12, 8])

    assert only(sent, "ambush-rolled") == [
        {"roll": 12, "wisdom": -1, "dc": 11, "gm_roll": 8, "gm_bonus": 2, "gm_total": 10,
         "success": True}
    ]  # fmt: skip
    assert only(sent, "combat-began") == [{"ambush": True}]
    goblin_declares = {"type": "declare", "combatant_id": "goblin", "action": "attack"}
    assert refused(table, goblin_declares).code == "round/cannot-act"
    rolled = initiative(table, 9, 14)  # one d20 for each PC, none for the monsters
    assert only(rolled, "initiative-rolled")[0]["order"] == ["ally", "hero"]
    assert only(rolled, "initiative-rolled")[0]["ambush"] is True

    table.send({"type": "end-turn", "combatant_id": "ally"}, actor=PLAYER)
    next_round = table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)

    assert only(next_round, "round-started") == [{"round": 2}]
    assert state_of(table).ambush is False
    assert types(table.send(goblin_declares)) == ["action-declared"]
    order = only(initiative(table, 9, 14, 20, 1), "initiative-rolled")[0]["order"]
    assert order == ["goblin", "ally", "hero", "ogre"]


def test_an_ambush_fails_when_the_gm_rolls_equal_to_the_partys_dc() -> None:
    table = party_ahead()

    sent = approach(table, "ambush", [12, 9])

    rolled = only(sent, "ambush-rolled")[0]
    assert (rolled["dc"], rolled["gm_total"], rolled["success"]) == (11, 11, False)
    assert only(sent, "combat-began") == [{"ambush": False}]
    assert types(table.send({"type": "declare", "combatant_id": "goblin"})) == ["action-declared"]


def test_evading_moves_the_party_at_a_tenth_of_its_speed_until_the_gm_rules() -> None:
    table = party_ahead()

    sent = approach(table, "evade")

    assert only(sent, "evading") == [{"speeds": {"hero": 3, "ally": 4}}]
    assert state_of(table).phase == "evading"


def test_a_party_that_evades_the_monsters_ends_the_encounter() -> None:
    table = party_ahead()
    approach(table, "evade")

    sent = table.send({"type": "resolve-evasion", "outcome": "evaded"})

    assert types(sent) == ["evasion-resolved", "encounter-ended"]
    assert state_of(table).phase == "ended"


def test_a_party_noticed_while_evading_is_in_a_fight() -> None:
    table = party_ahead()
    approach(table, "evade")

    sent = table.send({"type": "resolve-evasion", "outcome": "noticed"})

    assert types(sent) == ["evasion-resolved", "combat-began", "round-started"]
    assert (state_of(table).phase, state_of(table).round) == ("declaring", 1)


def test_a_negotiation_that_ends_in_an_agreement_ends_the_encounter() -> None:
    table = party_ahead()
    approach(table, "negotiate")
    assert state_of(table).phase == "negotiating"

    sent = table.send({"type": "rule-negotiation", "outcome": "agreement", "terms": "ten gold"})

    assert only(sent, "encounter-ended")[0]["reason"] == "an agreement: ten gold"
    assert state_of(table).phase == "ended"


def test_a_paused_negotiation_can_still_turn_into_a_fight() -> None:
    table = party_ahead()
    approach(table, "negotiate")

    paused = table.send({"type": "rule-negotiation", "outcome": "pause"})
    assert types(paused) == ["negotiation-ruled"] and state_of(table).phase == "paused"
    fight = table.send({"type": "rule-negotiation", "outcome": "fight"})

    assert types(fight) == ["negotiation-ruled", "combat-began", "round-started"]
    assert state_of(table).phase == "declaring"


def test_a_party_that_noticed_first_may_also_just_fight() -> None:
    table = party_ahead()

    sent = approach(table, "fight")

    assert types(sent) == ["approach-chosen", "combat-began", "round-started"]


@pytest.mark.parametrize(
    "d20",
    [
        pytest.param(None, id="no surprise check yet"),
        pytest.param(20, id="the monsters noticed first"),
        pytest.param(15, id="neither noticed first"),
    ],
)
def test_ambush_evade_or_negotiate_only_for_a_party_that_noticed_first(d20: int | None) -> None:
    table = gathered()
    if d20 is not None:
        surprise(table, d20)

    error = refused(table, {"type": "choose-approach", "approach": "evade"}, actor=PLAYER)

    assert error.code == "surprise/not-party"


def test_only_the_party_or_the_gm_chooses_the_approach() -> None:
    table = party_ahead()

    error = refused(table, {"type": "choose-approach", "approach": "evade"}, actor=STRANGER)

    assert error.code == "auth/not-your-combatant"


def test_ruling_on_an_evasion_or_a_negotiation_needs_one_under_way() -> None:
    table = party_ahead()

    evasion = refused(table, {"type": "resolve-evasion", "outcome": "evaded"})
    talks = refused(table, {"type": "rule-negotiation", "outcome": "agreement"})

    assert (evasion.code, talks.code) == ("evade/not-evading", "negotiation/not-negotiating")


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(
            {"type": "set-marching-order", "side": "party", "ranks": [["hero"]]},
            id="set-marching-order",
        ),
        pytest.param({"type": "set-environment", "circumstances": ["fog"]}, id="set-environment"),
        pytest.param({"type": "surprise-check"}, id="surprise-check"),
        pytest.param(
            {"type": "record-monster-reaction", "result": "hostile", "outcome": "fight"},
            id="record-monster-reaction",
        ),
        pytest.param({"type": "resolve-evasion", "outcome": "evaded"}, id="resolve-evasion"),
        pytest.param({"type": "rule-negotiation", "outcome": "agreement"}, id="rule-negotiation"),
        pytest.param({"type": "begin-combat"}, id="begin-combat"),
    ],
)
def test_the_gms_commands_before_combat_are_refused_to_a_player(command: dict[str, Any]) -> None:
    table = gathered()

    error = refused(table, command, actor=PLAYER, dice=[2])

    assert error.code == "auth/gm-only"
