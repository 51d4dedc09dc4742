"""§2 E Miscellaneous Preparation: "Some actions may be performed while moving, at the DM's
discretion. Both players and DM's need to apply common sense to when such preparations are
allowed and how long they will take to perform. Can an archer re-string a bow if an enemy has
already closed? Not likely."

The GM lists the preparations allowed on the move in the option `prepare_while_moving`. The
fighter (MV 12: 4 squares a phase) starts at (0, 0) with a long sword in hand and a dagger at
its belt; the ogre, which declares first, stands."""

from __future__ import annotations

from typing import Any

from tests.rules.combat_ii.cast import FIGHTER, duel, fighter_of, of_type, only, swing
from tests.rules.combat_ii.given import LONG_SWORD, refused, stand
from tests.rules.harness import Table

DAGGER = {"name": "dagger", "speed": 2, "damage": "1d4"}
BOW = {"name": "shortbow", "kind": "missile", "speed": 7, "damage": "1d6", "bow": True}
ARMED = {"weapons": [LONG_SWORD, DAGGER]}
"""The first weapon is the one in hand."""


def walk(table: Table, prepare: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "type": "move", "combatant_id": "fighter", "to": [4, 4], "prepare": prepare, **more,
    }  # fmt: skip


def test_an_allowed_preparation_is_made_on_the_move() -> None:
    """The GM allows drawing on the move: the fighter walks its 4 squares and has the dagger
    in hand at the phase's end, as a phase of preparation would."""
    table = duel(fighter=ARMED, ogre_at=(20, 0), prepare_while_moving=["draw"])
    stand(table, "ogre")

    moved = table.send(walk(table, {"what": "draw", "weapon": "dagger"}))

    assert len(only(moved, "moved")["path"]) - 1 == 4
    readied = only(moved, "weapon-readied")
    assert (readied["what"], readied["weapon"]) == ("draw", "dagger")
    assert "dagger" in fighter_of(table, "fighter").in_hand
    assert table.types(moved).index("moved") < table.types(moved).index("weapon-readied")
    assert table.replayed() == table.state


def test_readying_components_on_the_move() -> None:
    table = duel(ogre_at=(20, 0), prepare_while_moving=["draw", "components"])
    stand(table, "ogre")

    moved = table.send(walk(table, {"what": "components"}))

    assert only(moved, "weapon-readied")["what"] == "components"
    assert of_type(moved, "moved")
    assert table.replayed() == table.state


def test_no_preparation_on_the_move_unless_the_gm_allows_it() -> None:
    """By default the GM allows none; allowing one kind does not allow another."""
    table = duel(fighter=ARMED, ogre_at=(20, 0))
    stand(table, "ogre")
    draw = walk(table, {"what": "draw", "weapon": "dagger"})

    violation = refused(table, draw)

    assert violation.code == "move/prepare-not-allowed"
    assert "prepare_while_moving" in violation.message
    picky = duel(fighter=ARMED, ogre_at=(20, 0), prepare_while_moving=["components"])
    stand(picky, "ogre")
    assert refused(picky, draw).code == "move/prepare-not-allowed"


def test_a_preparation_on_the_move_forgoes_the_blow_at_its_end() -> None:
    """§2 E: "By foregoing the attacks and movement"; Fray allows the movement, not a blow."""
    table = duel(fighter=ARMED, ogre_at=(3, 4), prepare_while_moving=["draw"])
    table.send({"type": "ambush", "combatant_id": "ogre"}, dice=[1])  # surprised
    stand(table, "ogre")

    command = walk(table, {"what": "draw", "weapon": "dagger"}, to=[2, 4], attack="ogre")

    assert refused(table, command).code == "move/prepare-and-attack"


def test_no_restringing_on_the_move_with_an_enemy_in_reach() -> None:
    """ "Can an archer re-string a bow if an enemy has already closed? Not likely." The archer
    withdraws from the ogre beside it; the GM allows restringing on the move, but not here."""
    archer = {**FIGHTER, "weapons": [BOW], "attacks": "3"}
    table = duel(fighter=archer, prepare_while_moving=["restring"], criticals="tables")
    swing(table, dice=[1, 50, 51])  # a fumbled shot: the string breaks (50), not the arrow
    assert fighter_of(table, "fighter").string_broken == ("shortbow",)
    stand(table, "ogre")

    command = walk(table, {"what": "restring", "weapon": "shortbow"}, to=[0, 4], mode="withdraw")

    assert refused(table, command).code == "prepare/engaged"


def test_the_preparation_must_name_a_weapon_it_needs() -> None:
    table = duel(ogre_at=(20, 0), prepare_while_moving=["draw"])
    stand(table, "ogre")

    assert refused(table, walk(table, {"what": "draw"})).code == "prepare/weapon"
