"""§2 F Surprise: "In the event of an ambush occurring during a combat, the bushwhacked
combatant must pass a surprise roll in order to return the attack."

The fighter (pcs, winner; THAC0 10 with a long sword: a 5 hits AC 5) stands beside the ogre;
a bandit (ogre stats, club: a 10 hits AC 5, SF 4 as a loser: half-segment 4) springs from
(0, 1). The GM's `ambush {combatant_id, by}` rolls the fighter's d10: 1-3 is surprised."""

from __future__ import annotations

from typing import Any

from tests.rules.combat_ii.cast import OGRE, attack, duel, of_type, only
from tests.rules.combat_ii.given import declare, hp, refused, stand
from tests.rules.harness import Table

PASSED = 5
FAILED = 2


def ambushed(roll: int, **more: Any) -> Table:
    table = duel(others=[("bandit", "ogres", OGRE, (0, 1))])
    table.send({"type": "ambush", "combatant_id": "fighter", "by": ["bandit"], **more}, dice=[roll])
    return table


def blows(envelopes: list[Any]) -> list[tuple[str, str]]:
    return [(r["attacker"], r["kind"]) for r in of_type(envelopes, "attack-rolled")]


def test_a_passed_roll_returns_the_ambushers_attack_at_once() -> None:
    table = ambushed(PASSED)
    stand(table, "ogre")
    attack(table, "bandit", "fighter")

    # the bandit's club misses (2); the fighter's answer hits (5) for 3
    stored = declare(table, "fighter", "stand", dice=[2, 5, 3])

    assert blows(stored) == [("bandit", "attack"), ("fighter", "counter")]
    blow, answer = of_type(stored, "attack-rolled")
    assert (answer["target"], answer["weapon"]) == ("bandit", "long sword")
    # an answer at once, in the blow's half-segment: no speed factor placed it
    assert (blow["sf"], answer["sf"]) == (4, None)
    assert answer["half_segment"] == blow["half_segment"] == 4
    assert hp(table, "bandit") == 80 - 3
    assert table.replayed() == table.state


def test_the_passed_roll_is_told() -> None:
    table = duel(others=[("bandit", "ogres", OGRE, (0, 1))])

    sprung = table.send(
        {"type": "ambush", "combatant_id": "fighter", "by": ["bandit"]}, dice=[PASSED]
    )

    assert only(sprung, "check-rolled")["check"]["passed"] is True
    assert only(sprung, "return-ready") == {
        "combatant_id": "fighter", "against": ["bandit"], "until": 2,
    }  # fmt: skip


def test_a_failed_roll_returns_nothing() -> None:
    """Surprised, the fighter loses this phase and the next (§2 F)."""
    table = ambushed(FAILED)
    stand(table, "ogre")
    attack(table, "bandit", "fighter")

    stored = declare(table, "fighter", "stand", dice=[2])

    assert blows(stored) == [("bandit", "attack")]
    assert of_type(table.envelopes, "return-ready") == []


def test_without_naming_the_ambushers_there_is_no_return() -> None:
    table = duel(others=[("bandit", "ogres", OGRE, (0, 1))])
    table.send({"type": "ambush", "combatant_id": "fighter"}, dice=[PASSED])
    stand(table, "ogre")
    attack(table, "bandit", "fighter")

    stored = declare(table, "fighter", "stand", dice=[2])

    assert blows(stored) == [("bandit", "attack")]


def test_one_that_already_struck_this_phase_does_not_return_the_attack() -> None:
    """§2 D's rule for a defender's response: not if it "has already attacked within the
    phase". The fighter's sword (half-segment 3) swings before the bandit's club (4)."""
    table = ambushed(PASSED)
    stand(table, "ogre")
    attack(table, "bandit", "fighter")

    stored = attack(table, "fighter", "ogre", dice=[2, 2])

    assert blows(stored) == [("fighter", "attack"), ("bandit", "attack")]


def test_the_return_holds_through_the_next_phase_only() -> None:
    """Bandit and fighter both have three attacks a round, so only the return's end stops
    the fighter's answer in phase 3."""
    table = duel(
        fighter={"attacks": "3"}, others=[("bandit", "ogres", {**OGRE, "attacks": "3"}, (0, 1))]
    )
    table.send({"type": "ambush", "combatant_id": "fighter", "by": ["bandit"]}, dice=[PASSED])
    stand(table, "ogre", "bandit")
    stand(table, "fighter")
    stand(table, "ogre")
    attack(table, "bandit", "fighter")

    second = declare(table, "fighter", "stand", dice=[2, 2])  # phase 2: both miss

    assert blows(second) == [("bandit", "attack"), ("fighter", "counter")]
    stand(table, "ogre")
    attack(table, "bandit", "fighter")
    third = declare(table, "fighter", "stand", dice=[2, 7, 3])  # phase 3 (+ next initiative)
    assert blows(third) == [("bandit", "attack")]


def test_the_ambushers_must_be_foes() -> None:
    table = duel(others=[("squire", "pcs", OGRE, (0, 1))])

    violation = refused(table, {"type": "ambush", "combatant_id": "fighter", "by": ["squire"]})

    assert violation.code == "ambush/not-a-foe"
