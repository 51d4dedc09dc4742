"""freeform §1 Initiative: die + modifier, ties by modifier, then a tie-break die, then id."""

from __future__ import annotations

import pytest

from service.domain.context import GM, Actor
from service.domain.errors import InvalidCommand
from service.rules.freeform import RULESET
from tests.rules.freeform.given import (
    BRAMLI,
    add,
    encounter,
    fight,
    refused,
    set_initiative,
    state_of,
    types,
)
from tests.rules.harness import Table


def test_initiative_is_the_die_plus_the_modifier_with_both_dice_recorded():
    table = encounter()
    add(table, "bramli", initiative_modifier=3)

    rolled = table.send({"type": "roll-initiative"}, dice=[12, 7])

    assert types(rolled) == ["initiative-rolled"]
    assert rolled[0].data == {
        "combatant_id": "bramli", "roll": 12, "modifier": 3, "total": 15, "tiebreak": 7,
        "group": None,
    }  # fmt: skip
    assert rolled[0].rolls == [
        {"k": 20, "value": 12, "purpose": "initiative: Bramli", "kind": "die", "source": "table"},
        {"k": 20, "value": 7, "purpose": "initiative tie-break: Bramli", "kind": "die",
         "source": "table"},
    ]  # fmt: skip


def test_the_order_runs_from_the_highest_total_down():
    table = encounter()
    add(table, "ash", initiative_modifier=0)
    add(table, "birch", initiative_modifier=4)
    add(table, "cedar", initiative_modifier=-1)

    table.send({"type": "roll-initiative"}, dice=[10, 1, 9, 1, 18, 1])

    assert state_of(table).order == ("cedar", "birch", "ash")


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        pytest.param((15, 0, 1), (14, 5, 20), ("x", "y"), id="higher total goes first"),
        pytest.param((15, 1, 20), (15, 2, 1), ("y", "x"), id="tied totals: higher modifier"),
        pytest.param((15, 2, 5), (15, 2, 12), ("y", "x"), id="tied modifiers: tie-break die"),
        pytest.param((15, 2, 9), (15, 2, 9), ("x", "y"), id="all tied: combatant id"),
    ],
)
def test_ties_are_broken_by_modifier_then_the_tie_break_die_then_id(first, second, expected):
    table = encounter()
    for combatant_id, (total, modifier, tiebreak) in zip(("x", "y"), (first, second), strict=True):
        add(table, combatant_id, initiative_modifier=modifier)
        set_initiative(table, combatant_id, total, tiebreak=tiebreak)

    assert state_of(table).order == expected


def test_the_initiative_die_and_the_tie_break_die_are_options():
    table = encounter(initiative_die="2d6", tiebreak_die=100)
    add(table, "bramli", initiative_modifier=1)

    rolled = table.send({"type": "roll-initiative"}, dice=[4, 5, 77])

    assert rolled[0].data["total"] == 10 and rolled[0].data["tiebreak"] == 77
    assert [(r["k"], r["value"]) for r in rolled[0].rolls] == [(6, 4), (6, 5), (100, 77)]


def test_an_initiative_die_that_is_not_a_dice_expression_is_refused_with_the_options():
    with pytest.raises(InvalidCommand) as caught:
        Table(RULESET, {"initiative_die": "d20 +"})

    assert caught.value.code == "encounter/bad-options"


def test_server_dice_roll_initiative_from_the_seed():
    table = Table(RULESET, {})
    add(table, "bramli", initiative_modifier=2)

    rolled = table.send({"type": "roll-initiative"})

    data, rolls = rolled[0].data, rolled[0].rolls
    assert 3 <= data["total"] <= 22 and data["total"] == data["roll"] + 2
    assert [(r["k"], r["n"], r["kind"]) for r in rolls] == [(20, 0, "die"), (20, 1, "die")]
    assert "source" not in rolls[0]


def test_set_initiative_takes_the_total_rolled_at_the_table_and_rolls_only_the_tie_break():
    table = encounter()
    add(table, "bramli", initiative_modifier=3)

    rolled = table.send(
        {"type": "set-initiative", "combatant_id": "bramli", "total": 17}, dice=[11]
    )

    assert rolled[0].data == {
        "combatant_id": "bramli", "roll": None, "modifier": 3, "total": 17, "tiebreak": 11,
        "group": None,
    }  # fmt: skip
    assert [r["purpose"] for r in rolled[0].rolls] == ["initiative tie-break: Bramli"]


def test_roll_initiative_without_names_rolls_only_for_those_without_initiative():
    table = encounter()
    add(table, "ash")
    add(table, "birch")
    set_initiative(table, "ash", 12)

    rolled = table.send({"type": "roll-initiative"}, dice=[9, 2])

    assert [e.data["combatant_id"] for e in rolled] == ["birch"]


def test_rolling_again_needs_reroll():
    table = encounter()
    add(table, "ash")
    set_initiative(table, "ash", 12)

    violation = refused(table, {"type": "roll-initiative", "combatant_ids": ["ash"]}, dice=[5, 5])

    assert violation.code == "initiative/already-rolled" and violation.rule == "freeform §1"


def test_a_reroll_replaces_the_initiative_and_reorders_before_the_start():
    table = encounter()
    add(table, "ash")
    add(table, "birch")
    table.send({"type": "roll-initiative"}, dice=[15, 1, 10, 1])

    table.send({"type": "roll-initiative", "combatant_ids": ["ash"], "reroll": True}, dice=[2, 1])

    assert state_of(table).initiative["ash"].total == 2
    assert state_of(table).order == ("birch", "ash")


def test_a_reroll_after_the_start_records_the_total_but_keeps_the_order():
    table = fight("ash", "birch")

    table.send(
        {"type": "roll-initiative", "combatant_ids": ["birch"], "reroll": True}, dice=[20, 1]
    )

    assert state_of(table).initiative["birch"].total == 20
    assert state_of(table).order == ("ash", "birch")


def test_a_newcomer_joins_a_running_order_by_its_initiative():
    table = fight("ash", "birch", "cedar")  # initiative 20, 19, 18
    add(table, "dogwood")

    set_initiative(table, "dogwood", 19, tiebreak=20)

    assert state_of(table).order == ("ash", "dogwood", "birch", "cedar")


def test_a_combatant_added_mid_fight_has_no_turn_until_it_has_initiative():
    table = fight("ash", "birch")
    add(table, "cedar")

    table.send({"type": "end-turn"})
    table.send({"type": "end-turn"})

    assert state_of(table).current == "ash" and "cedar" not in state_of(table).order


def test_the_encounter_does_not_start_until_everyone_has_initiative():
    table = encounter()
    add(table, "ash")
    add(table, "birch")
    add(table, "cedar")
    set_initiative(table, "birch", 10)

    violation = refused(table, {"type": "start-encounter"})

    assert violation.code == "initiative/missing" and violation.rule == "freeform §1"
    assert violation.message == "roll initiative first for: Ash, Cedar"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        pytest.param({"type": "roll-initiative", "combatant_ids": ["goblin"]},
                     "auth/not-your-combatant", id="roll for someone else's combatant"),
        pytest.param({"type": "set-initiative", "combatant_id": "goblin", "total": 12},
                     "auth/not-your-combatant", id="set someone else's initiative"),
        pytest.param({"type": "start-encounter"}, "auth/gm-only", id="start the encounter"),
    ],
)  # fmt: skip
def test_a_player_rolls_only_for_its_own_combatants(command, code):
    table = encounter()
    add(table, "bramli", side="heroes")
    add(table, "goblin")

    assert refused(table, command, actor=BRAMLI, dice=[5, 5]).code == code


def test_a_player_rolling_without_names_rolls_for_its_own_combatants_only():
    table = encounter()
    add(table, "bramli", side="heroes")
    add(table, "goblin")

    rolled = table.send({"type": "roll-initiative"}, actor=BRAMLI, dice=[14, 3])

    assert [e.data["combatant_id"] for e in rolled] == ["bramli"]
    assert rolled[0].actor == BRAMLI.to_dict()


@pytest.mark.parametrize(
    ("command", "code"),
    [
        pytest.param({"type": "roll-initiative", "combatant_ids": ["nobody"]},
                     "combatant/unknown", id="roll for an unknown combatant"),
        pytest.param({"type": "set-initiative", "combatant_id": "nobody", "total": 3},
                     "combatant/unknown", id="set an unknown combatant's initiative"),
    ],
)  # fmt: skip
def test_initiative_for_an_unknown_combatant_is_refused(command, code):
    table = encounter()
    add(table, "ash")

    assert refused(table, command, dice=[5, 5]).code == code


@pytest.mark.parametrize(
    ("dice", "code"),
    [
        pytest.param([12], "dice/table-dice-missing", id="the tie-break die is missing"),
        pytest.param([12, 4, 6], "dice/unused-table-dice", id="one die too many"),
        pytest.param([21, 4], "dice/table-die-out-of-range", id="a d20 cannot show 21"),
    ],
)
def test_table_dice_must_match_the_dice_initiative_needs(dice, code):
    table = encounter()
    add(table, "ash")

    assert refused(table, {"type": "roll-initiative"}, dice=dice).code == code


def test_the_gm_may_roll_for_everyone_at_once():
    table = encounter()
    add(table, "bramli", side="heroes")
    add(table, "goblin")

    rolled = table.send({"type": "roll-initiative"}, actor=GM, dice=[8, 1, 9, 2])

    assert [e.data["combatant_id"] for e in rolled] == ["bramli", "goblin"]


def test_a_player_without_combatants_rolling_without_names_rolls_nothing():
    table = encounter()
    add(table, "goblin")

    assert table.send({"type": "roll-initiative"}, actor=Actor("p2", "player")) == []


def test_a_newcomer_with_initiative_takes_the_turn_when_nobody_else_can_act():
    table = fight("ash")
    table.send({"type": "adjust-resource", "combatant_id": "ash", "delta": -10})
    add(table, "birch")

    joined = table.send({"type": "set-initiative", "combatant_id": "birch", "total": 4}, dice=[1])

    assert types(joined) == ["initiative-rolled", "turn-started"]
    assert state_of(table).current == "birch"
