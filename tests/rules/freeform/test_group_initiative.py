"""freeform §2 Group initiative: combatants sharing the stat `group` roll once."""

from __future__ import annotations

from tests.rules.freeform.given import add, encounter, fight, set_initiative, state_of


def test_a_group_rolls_one_die_and_one_tie_break_for_all_its_members():
    table = encounter()
    add(table, "goblin-1", initiative_modifier=2, group="goblins")
    add(table, "goblin-2", initiative_modifier=2, group="goblins")
    add(table, "boss", initiative_modifier=1, group="goblins")

    rolled = table.send({"type": "roll-initiative"}, dice=[11, 6])

    assert [(e.data["combatant_id"], e.data["roll"], e.data["total"]) for e in rolled] == [
        ("goblin-1", 11, 13),
        ("goblin-2", 11, 13),
        ("boss", 11, 12),
    ]
    assert {e.data["tiebreak"] for e in rolled} == {6}
    assert {e.data["group"] for e in rolled} == {"goblins"}
    assert [r["purpose"] for r in rolled[0].rolls] == [
        "initiative: group goblins",
        "initiative tie-break: group goblins",
    ]
    assert rolled[1].rolls == [] and rolled[2].rolls == []


def test_members_of_a_group_act_one_after_another():
    table = encounter()
    add(table, "goblin-1", group="goblins")
    add(table, "bramli")
    add(table, "goblin-2", group="goblins")

    table.send({"type": "roll-initiative"}, dice=[15, 3, 10, 1])

    assert state_of(table).order == ("goblin-1", "goblin-2", "bramli")


def test_each_group_and_each_loner_roll_separately():
    table = encounter()
    add(table, "goblin-1", group="goblins")
    add(table, "wolf-1", group="wolves")
    add(table, "goblin-2", group="goblins")
    add(table, "bramli")

    rolled = table.send({"type": "roll-initiative"}, dice=[5, 1, 17, 2, 9, 3])

    assert {e.data["combatant_id"]: e.data["total"] for e in rolled} == {
        "goblin-1": 5, "goblin-2": 5, "wolf-1": 17, "bramli": 9,
    }  # fmt: skip
    assert [(e.data["combatant_id"], len(e.rolls)) for e in rolled] == [
        ("goblin-1", 2), ("goblin-2", 0), ("wolf-1", 2), ("bramli", 2),
    ]  # fmt: skip


def test_a_late_member_of_a_group_joins_the_groups_roll_without_dice():
    table = fight("bramli", start=False)
    add(table, "goblin-1", initiative_modifier=1, group="goblins")
    table.send({"type": "roll-initiative"}, dice=[8, 4])
    table.send({"type": "start-encounter"})
    add(table, "goblin-2", initiative_modifier=3, group="goblins")

    joined = table.send({"type": "roll-initiative", "combatant_ids": ["goblin-2"]})

    assert joined[0].data == {
        "combatant_id": "goblin-2", "roll": 8, "modifier": 3, "total": 11, "tiebreak": 4,
        "group": "goblins",
    }  # fmt: skip
    assert joined[0].rolls == []
    assert state_of(table).order == ("bramli", "goblin-2", "goblin-1")


def test_a_reroll_of_one_member_rolls_afresh_for_it_alone():
    table = encounter()
    add(table, "goblin-1", group="goblins")
    add(table, "goblin-2", group="goblins")
    table.send({"type": "roll-initiative"}, dice=[8, 4])

    table.send(
        {"type": "roll-initiative", "combatant_ids": ["goblin-2"], "reroll": True}, dice=[19, 2]
    )

    assert state_of(table).initiative["goblin-1"].total == 8
    assert state_of(table).initiative["goblin-2"].total == 19


def test_set_initiative_sets_one_member_of_a_group():
    table = encounter()
    add(table, "goblin-1", group="goblins")
    add(table, "goblin-2", group="goblins")
    table.send({"type": "roll-initiative"}, dice=[8, 4])

    set_initiative(table, "goblin-1", 3)

    assert state_of(table).initiative["goblin-1"].total == 3
    assert state_of(table).initiative["goblin-2"].total == 8
