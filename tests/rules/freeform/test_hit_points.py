"""freeform §7 Hit points and out of the fight: the GM adjusts, zero downs, the downed wait."""

from __future__ import annotations

import pytest

from tests.rules.freeform.given import (
    BRAMLI,
    add,
    encounter,
    end_turns,
    fight,
    only,
    refused,
    state_of,
    types,
)


def hp(table, combatant_id: str) -> int:
    return state_of(table).table.combatants[combatant_id].pools["hp"].current


def test_the_hp_stat_becomes_a_hit_point_pool():
    table = encounter()

    add(table, "ogre", hp=30)
    add(table, "ghost")

    assert state_of(table).table.combatants["ogre"].pools["hp"].model_dump() == {
        "current": 30, "max": 30,
    }  # fmt: skip
    assert state_of(table).table.combatants["ghost"].pools == {}


@pytest.mark.parametrize(
    ("change", "after"),
    [
        pytest.param({"delta": -4}, 6, id="damage"),
        pytest.param({"delta": 3}, 13, id="healing past the maximum is the GM's call"),
        pytest.param({"set": 2}, 2, id="set outright"),
    ],
)
def test_the_gm_adjusts_hit_points(change, after):
    table = fight("ash", "birch")

    adjusted = table.send(
        {"type": "adjust-resource", "combatant_id": "birch", "reason": "a sword", **change}
    )

    assert adjusted[0].data == {
        "combatant_id": "birch", "resource": "hp", "before": 10, "after": after, "max": None,
        "reason": "a sword", "gm_override": True,
    }  # fmt: skip
    assert hp(table, "birch") == after


def test_falling_to_zero_downs_a_combatant():
    table = fight("ash", "birch")

    downed = table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -12})

    assert types(downed) == ["resource-adjusted", "combatant-downed"]
    assert state_of(table).table.combatants["birch"].out_of_fight


def test_more_damage_to_the_downed_does_not_down_them_again():
    table = fight("ash", "birch")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    again = table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -3})

    assert types(again) == ["resource-adjusted"] and hp(table, "birch") == -3


def test_healing_above_zero_brings_a_combatant_back():
    table = fight("ash", "birch")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    revived = table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": 5})

    assert types(revived) == ["resource-adjusted", "combatant-revived"]
    assert not state_of(table).table.combatants["birch"].out_of_fight


def test_downed_combatants_are_passed_over():
    table = fight("ash", "birch", "cedar")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    passed = table.send({"type": "end-turn"})

    assert passed[-1].data["combatant_id"] == "cedar"


def test_without_skip_downed_the_downed_still_take_their_turns():
    table = fight("ash", "birch", skip_downed=False)
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    passed = table.send({"type": "end-turn"})

    assert passed[-1].data["combatant_id"] == "birch"


def test_going_down_on_ones_own_turn_ends_it():
    table = fight("ash", "birch", "cedar")

    downed = table.send({"type": "adjust-resource", "combatant_id": "ash", "delta": -10})

    assert types(downed) == ["resource-adjusted", "combatant-downed", "turn-ended", "turn-started"]
    assert downed[2].data == {"combatant_id": "ash", "reason": "downed"}
    assert state_of(table).current == "birch"


def test_without_skip_downed_going_down_does_not_end_the_turn():
    table = fight("ash", "birch", skip_downed=False)

    downed = table.send({"type": "adjust-resource", "combatant_id": "ash", "delta": -10})

    assert types(downed) == ["resource-adjusted", "combatant-downed"]
    assert state_of(table).current == "ash"


def test_when_everyone_is_down_nobody_acts_until_someone_is_revived():
    table = fight("ash", "birch")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})
    last = table.send({"type": "adjust-resource", "combatant_id": "ash", "delta": -10})
    assert types(last)[-1] == "turn-ended" and state_of(table).current is None

    revived = table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": 4})

    assert types(revived) == ["resource-adjusted", "combatant-revived", "turn-started"]
    assert revived[-1].data == {"combatant_id": "birch", "round": 1, "resumed": False}


def test_a_revived_combatant_waits_for_its_turn_when_someone_is_acting():
    table = fight("ash", "birch")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    revived = table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": 4})

    assert types(revived) == ["resource-adjusted", "combatant-revived"]
    end_turns(table, 1)
    assert state_of(table).current == "birch"


def test_the_gm_may_create_a_pool_by_setting_it():
    table = fight("ash")

    created = table.send({"type": "adjust-resource", "combatant_id": "ash", "resource": "ki",
                          "set": 3, "max": 5})  # fmt: skip

    assert only(created, "resource-adjusted")[0]["before"] == 0
    assert state_of(table).table.combatants["ash"].pools["ki"].model_dump() == {
        "current": 3, "max": 5,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("command", "actor", "code"),
    [
        pytest.param({"combatant_id": "bramli", "delta": 5}, BRAMLI, "auth/gm-only",
                     id="a player heals its own combatant"),
        pytest.param({"combatant_id": "ash", "delta": -5}, BRAMLI, "auth/gm-only",
                     id="a player damages a foe"),
        pytest.param({"combatant_id": "ash", "delta": -5, "set": 1}, None,
                     "resource/delta-or-set", id="both a delta and a value"),
        pytest.param({"combatant_id": "ash"}, None, "resource/delta-or-set",
                     id="neither a delta nor a value"),
        pytest.param({"combatant_id": "ash", "resource": "mana", "delta": -1}, None,
                     "resource/unknown", id="a pool it does not have"),
        pytest.param({"combatant_id": "nobody", "delta": -1}, None, "combatant/unknown",
                     id="an unknown combatant"),
    ],
)  # fmt: skip
def test_only_the_gm_adjusts_and_only_pools_that_exist(command, actor, code):
    table = fight("ash", "bramli")
    command = {"type": "adjust-resource", **command}

    violation = refused(table, command, actor=actor) if actor else refused(table, command)

    assert violation.code == code
