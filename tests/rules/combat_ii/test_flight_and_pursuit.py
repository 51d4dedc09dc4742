"""§2 D Movement's two escapes from the closing rule: fleeing unmolested behind an ally who
interposes himself, and foes moving on side by side ("parallel movement coupled with
simultaneous attacks, such as by two mounted figures engaged while riding in the same
direction").

The fighter (pcs, MV 12: 4 squares a phase) stands at (0, 0) beside the ogre at (1, 0); the
ogres lose initiative, so they declare first and the fighter's declaration resolves the
phase."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.combat_ii.cast import FIGHTER, OGRE, duel, of_type, only
from tests.rules.combat_ii.given import declare, refused, stand, state_of
from tests.rules.harness import Table

MISS = 2
"""A 2 misses for both: the fighter needs a 5, the ogre a 10."""


def at(table: Table, cid: str) -> tuple[int, int]:
    cell = state_of(table).table.combatants[cid].position
    assert cell is not None
    return cell.x, cell.y


def flee(table: Table, dice: list[int] | None = None, **more: Any) -> list[Any]:
    return declare(table, "fighter", "move", to=[0, 4], mode="flee", dice=dice, **more)


# --- fleeing behind an interposing ally ---------------------------------------------------------


def test_an_ally_beside_the_foe_lets_the_fleer_go_without_a_free_attack() -> None:
    """§2 D Fleeing: "If another party member can interpose himself, a combatant may flee
    unmolested." The squire stands beside the ogre."""
    table = duel(others=[("squire", "pcs", FIGHTER, (2, 1))])
    stand(table, "ogre", "squire")

    fled = flee(table, behind="squire")

    assert only(fled, "interposed") == {
        "combatant_id": "squire",
        "fleer": "fighter",
        "foes": ["ogre"],
    }
    assert of_type(fled, "attack-rolled") == []
    assert at(table, "fighter") == (0, 4)
    assert table.replayed() == table.state


def test_an_ally_not_beside_the_foe_cannot_interpose() -> None:
    """The squire five squares off is no shield: the ogre gets its free attack."""
    table = duel(others=[("squire", "pcs", FIGHTER, (6, 4))])
    stand(table, "ogre", "squire")

    fled = flee(table, dice=[MISS], behind="squire")

    assert of_type(fled, "interposed") == []
    free = only(fled, "attack-rolled")
    assert (free["attacker"], free["kind"]) == ("ogre", "free")
    assert table.replayed() == table.state


def test_an_ally_shields_only_from_the_foes_it_stands_beside() -> None:
    """Two ogres on the fighter; the squire stands beside the first only, so the second's
    free attack still comes."""
    table = duel(others=[("squire", "pcs", FIGHTER, (2, 1)), ("ogre2", "ogres", OGRE, (0, 1))])
    stand(table, "ogre", "ogre2", "squire")

    fled = declare(table, "fighter", "move", to=[4, 4], mode="flee", behind="squire", dice=[MISS])

    assert only(fled, "interposed")["foes"] == ["ogre"]
    assert [(r["attacker"], r["kind"]) for r in of_type(fled, "attack-rolled")] == [
        ("ogre2", "free")
    ]
    assert table.replayed() == table.state


def test_a_surprised_ally_cannot_interpose() -> None:
    """§2 F: a surprised combatant loses its phase; it can do nothing for the fleer."""
    table = duel(others=[("squire", "pcs", FIGHTER, (2, 1))])
    table.send({"type": "ambush", "combatant_id": "squire"}, dice=[1])  # 1: surprised
    stand(table, "ogre", "squire")

    fled = flee(table, dice=[MISS], behind="squire")

    assert of_type(fled, "interposed") == []
    assert only(fled, "attack-rolled")["kind"] == "free"
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("behind", "mode", "code"),
    [
        pytest.param("squire", "withdraw", "move/behind-not-fleeing", id="not fleeing"),
        pytest.param("ogre", "flee", "move/not-an-ally", id="a foe"),
        pytest.param("fighter", "flee", "move/not-an-ally", id="itself"),
    ],
)
def test_fleeing_behind_needs_a_flight_and_an_ally(behind: str, mode: str, code: str) -> None:
    table = duel(others=[("squire", "pcs", FIGHTER, (2, 1))])
    stand(table, "ogre", "squire")
    command = {
        "type": "move", "combatant_id": "fighter", "to": [0, 4], "mode": mode, "behind": behind,
    }  # fmt: skip

    assert refused(table, command).code == code


# --- parallel movement --------------------------------------------------------------------------


def ride(
    table: Table, cid: str, to: tuple[int, int], dice: list[int] | None = None, **more: Any
) -> list[Any]:
    foe = "ogre" if cid == "fighter" else "fighter"
    return declare(table, cid, "move", to=list(to), alongside=foe, dice=dice, **more)


def test_foes_moving_alongside_each_other_move_on_and_trade_blows_at_the_end() -> None:
    """§2 D Closing Movement: "An exception to this would be parallel movement coupled with
    simultaneous attacks": both go 4 squares south, side by side, then swing together."""
    table = duel()
    ride(table, "ogre", (1, 4), attack="fighter")

    rode = ride(table, "fighter", (0, 4), dice=[MISS, MISS], attack="ogre")

    assert (at(table, "fighter"), at(table, "ogre")) == ((0, 4), (1, 4))
    blows = of_type(rode, "attack-rolled")
    assert sorted((b["attacker"], b["kind"]) for b in blows) == [
        ("fighter", "attack"),
        ("ogre", "attack"),
    ]
    assert blows[0]["half_segment"] == blows[1]["half_segment"]
    types = table.types(rode)
    last_move = len(types) - 1 - types[::-1].index("moved")
    assert last_move < types.index("attack-rolled")  # after all movement
    assert table.replayed() == table.state


def test_moving_alongside_gives_no_free_attack() -> None:
    table = duel()
    ride(table, "ogre", (1, 4))

    rode = ride(table, "fighter", (0, 4))

    assert of_type(rode, "attack-rolled") == []
    assert (at(table, "fighter"), at(table, "ogre")) == ((0, 4), (1, 4))
    assert table.replayed() == table.state


def test_a_move_alongside_a_foe_that_stays_put_is_no_move() -> None:
    """The exception needs both moving: the ogre stands, so the engaged fighter "may not
    continue to move away normally" (§2 D) and stands too, told why."""
    table = duel()
    stand(table, "ogre")

    rode = ride(table, "fighter", (0, 4), attack="ogre")

    restated = [d for d in of_type(rode, "intention-declared") if d["automatic"]]
    assert [(d["combatant_id"], d["intention"]["kind"]) for d in restated] == [("fighter", "stand")]
    assert "did not move alongside" in restated[0]["reason"]
    assert of_type(rode, "moved") == [] and of_type(rode, "attack-rolled") == []
    assert at(table, "fighter") == (0, 0)
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("more", "code"),
    [
        pytest.param({"alongside": "squire"}, "move/not-alongside", id="not a foe"),
        pytest.param({"alongside": "ogre2"}, "move/not-alongside", id="a foe not engaged"),
        pytest.param({"alongside": "ogre", "mode": "flee"}, "move/alongside-mode", id="fleeing"),
        pytest.param(
            {"alongside": "ogre", "attack": "ogre2"},
            "move/attack-not-alongside",
            id="strike another",
        ),
    ],
)
def test_moving_alongside_needs_an_engaged_foe_and_a_normal_move(
    more: dict[str, Any], code: str
) -> None:
    table = duel(others=[("squire", "pcs", FIGHTER, (0, 1)), ("ogre2", "ogres", OGRE, (9, 4))])
    stand(table, "ogre", "ogre2", "squire")

    command = {"type": "move", "combatant_id": "fighter", "to": [0, 4], **more}

    assert refused(table, command).code == code


def test_moving_alongside_one_foe_does_not_free_a_combatant_from_another() -> None:
    """A second ogre beside the fighter still holds it: only the foe alongside is excepted."""
    table = duel(others=[("ogre2", "ogres", OGRE, (1, 1))])
    stand(table, "ogre2")
    ride(table, "ogre", (1, 4))

    command = {"type": "move", "combatant_id": "fighter", "to": [0, 4], "alongside": "ogre"}

    assert refused(table, command).code == "move/engaged"
