"""freeform §10 Dice rolls: any expression, rolled for a purpose, every die recorded."""

from __future__ import annotations

import pytest

from tests.rules.freeform.given import BRAMLI, encounter, fight, refused, types


def test_a_roll_records_the_expression_the_breakdown_and_every_die():
    table = fight("ash", "bramli")

    rolled = table.send(
        {"type": "roll", "expression": "2d6+3", "purpose": "sword", "combatant_id": "bramli"},
        actor=BRAMLI,
        dice=[4, 6],
    )

    assert types(rolled) == ["dice-rolled"]
    assert rolled[0].data == {
        "expression": "2d6 + 3", "total": 13, "text": "2d6 (4, 6) + 3 = 13", "purpose": "sword",
        "combatant_id": "bramli", "by": "p1", "hidden": False,
    }  # fmt: skip
    assert rolled[0].rolls == [
        {"k": 6, "value": 4, "purpose": "sword", "kind": "die", "source": "table"},
        {"k": 6, "value": 6, "purpose": "sword", "kind": "die", "source": "table"},
    ]


def test_anyone_at_the_table_may_roll_at_any_time_even_out_of_turn_and_before_the_start():
    table = fight("ash", "bramli", start=False)

    rolled = table.send({"type": "roll", "expression": "1d4"}, actor=BRAMLI, dice=[2])

    assert rolled[0].data["by"] == "p1" and rolled[0].data["combatant_id"] is None


def test_with_mixed_dice_the_server_rolls_what_the_table_did_not():
    table = fight("ash", dice="mixed")

    from_seed = table.send({"type": "roll", "expression": "1d8"})
    from_table = table.send({"type": "roll", "expression": "1d8"}, dice=[3])

    assert from_seed[0].rolls[0]["n"] == 0 and "source" not in from_seed[0].rolls[0]
    assert 1 <= from_seed[0].data["total"] <= 8
    assert from_table[0].rolls[0]["source"] == "table" and from_table[0].data["total"] == 3


@pytest.mark.parametrize(
    ("command", "dice", "code"),
    [
        pytest.param({"expression": "2d6+"}, [1, 1], "dice/bad-expression",
                     id="an expression that does not parse"),
        pytest.param({"expression": "1d20", "combatant_id": "ash"}, [5],
                     "auth/not-your-combatant", id="rolling for someone else's combatant"),
        pytest.param({"expression": "1d20", "combatant_id": "nobody"}, [5],
                     "combatant/unknown", id="rolling for an unknown combatant"),
        pytest.param({"expression": "2d6"}, [5], "dice/table-dice-missing",
                     id="one die short"),
        pytest.param({"expression": "1d6"}, [7], "dice/table-die-out-of-range",
                     id="a face the die does not have"),
    ],
)  # fmt: skip
def test_rolls_that_cannot_be_made(command, dice, code):
    table = fight("ash", "bramli")

    violation = refused(table, {"type": "roll", **command}, actor=BRAMLI, dice=dice)

    assert violation.code == code


def test_an_encounter_with_server_dice_refuses_table_dice():
    table = encounter(dice="server")

    violation = refused(table, {"type": "roll", "expression": "1d6"}, dice=[3])

    assert violation.code == "dice/table-dice-not-allowed"


def test_an_encounter_with_table_dice_needs_every_die_from_the_table():
    table = encounter()

    violation = refused(table, {"type": "roll", "expression": "1d6"})

    assert violation.code == "dice/table-dice-missing"
