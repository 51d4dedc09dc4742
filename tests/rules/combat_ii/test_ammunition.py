"""combat-ii optional ammunition: a missile weapon that gives `ammunition` spends one missile a
shot, refuses a shot with none left (`attack/no-ammunition`), and counts the missile §4
Critical Hit and Miss Tables I breaks: "MW MISSILE WEAPON: ... Bows or Crossbows: 50% chance
of string breakage. 50% chance of missile breakage due to misfire."

The fighter (THAC0 10) shoots its longbow at the ogre (AC 5: a 5 hits) four squares away; it
wins every initiative (ogres 7, pcs 3), so the ogre stands first and the fighter's shot
resolves the phase. A shot that hits rolls a d20, then the bow's d6."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.combat_ii import views
from tests.rules.combat_ii.cast import attack, duel, fighter_of, of_type, only, stand, swing
from tests.rules.combat_ii.given import (
    ORC,
    add,
    encounter,
    line_map,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

QUIVER = 3
LONGBOW = {
    "name": "longbow", "kind": "missile", "speed": 8, "damage": "1d6", "bow": True,
    "attacks": "3", "ammunition": QUIVER,
}  # fmt: skip
"""One shot a phase in phases 1-3 (3 a round), three arrows in the quiver."""
HIT = [12, 3]
SHOT = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}


def archer(bow: dict[str, Any] | None = None, **stats: Any) -> Table:
    return duel(
        fighter={"weapons": [{**LONGBOW, **(bow or {})}], **stats},
        ogre_at=(4, 0),
        criticals="tables",
    )


def ammunition(table: Table) -> dict[str, Any]:
    return dict(views.sheet(state_of(table), "fighter")["ammunition"])


def test_each_shot_spends_one_missile() -> None:
    table = archer()

    swing(table, dice=HIT)
    swing(table, dice=HIT)

    assert fighter_of(table, "fighter").missiles_spent == {"longbow": 2}
    assert ammunition(table) == {"longbow": {"left": QUIVER - 2, "spent": 2, "broken": 0}}
    assert table.replayed() == table.state


def test_a_weapon_without_ammunition_counts_nothing() -> None:
    table = archer({"ammunition": None})

    swing(table, dice=HIT)

    assert fighter_of(table, "fighter").missiles_spent == {}
    assert ammunition(table) == {}


def test_a_shot_with_no_ammunition_left_is_refused() -> None:
    table = archer({"ammunition": 1})
    swing(table, dice=HIT)
    stand(table, "ogre")

    violation = refused(table, SHOT, dice=HIT)

    assert violation.code == "attack/no-ammunition"
    assert violation.message.startswith("Fighter has no longbow ammunition left")


@pytest.mark.parametrize(
    ("missile", "broken"),
    [
        pytest.param(50, 1, id="missile 50: broken"),
        pytest.param(51, 0, id="missile 51: spent, unbroken"),
    ],
)
def test_a_misfire_counts_its_missile_spent_and_broken_on_50_or_less(
    missile: int, broken: int
) -> None:
    """§4 Critical Miss MW: "50% chance of missile breakage due to misfire"; the string (51)
    holds."""
    table = archer()

    missed = swing(table, dice=[1, 51, missile])

    assert only(missed, "critical-rolled")["missile_broken"] == ("longbow" if broken else None)
    assert ammunition(table) == {"longbow": {"left": QUIVER - 1, "spent": 1, "broken": broken}}
    assert table.replayed() == table.state


def test_a_double_attack_spends_one_missile_a_shot() -> None:
    """§2 C Multiple Attacks: more than 3 attacks a round allow two in a phase; rapid fire
    spends a missile for each."""
    table = archer({"attacks": None}, attacks="4")
    stand(table, "ogre")

    shots = attack(table, "fighter", "ogre", dice=[*HIT, *HIT], twice=True)

    assert len([e for e in shots if e.type == "attack-rolled"]) == 2
    assert fighter_of(table, "fighter").missiles_spent == {"longbow": 2}
    assert table.replayed() == table.state


def test_a_double_attack_with_one_missile_left_is_one_shot() -> None:
    table = archer({"attacks": None, "ammunition": 1}, attacks="4")
    stand(table, "ogre")

    shots = attack(table, "fighter", "ogre", dice=HIT, twice=True)

    assert only(shots, "intention-declared")["intention"]["twice"] is False
    assert len([e for e in shots if e.type == "attack-rolled"]) == 1
    assert ammunition(table) == {"longbow": {"left": 0, "spent": 1, "broken": 0}}


def test_legal_actions_offer_no_shot_or_cover_with_an_empty_bow() -> None:
    table = archer({"ammunition": 1})
    stand(table, "ogre")
    loaded = {o.type for o in views.intentions(state_of(table), "fighter")}
    attack(table, "fighter", "ogre", dice=HIT)
    stand(table, "ogre")

    empty = {o.type for o in views.intentions(state_of(table), "fighter")}

    assert {"attack", "cover-area"} <= loaded
    assert not {"attack", "cover-area"} & empty


def test_only_a_missile_weapon_counts_ammunition() -> None:
    table = duel()
    sword = {"name": "sword", "damage": "1d8", "ammunition": 3}
    squire = {
        "type": "add-combatant", "combatant_id": "squire", "name": "Squire", "side": "pcs",
        "stats": {"weapons": [sword]},
    }  # fmt: skip

    violation = refused(table, squire)

    assert violation.code == "combatant/bad-stats"
    assert "only a missile weapon counts ammunition" in violation.message


def test_a_criticals_extra_attack_needs_a_missile_left() -> None:
    """§4 Critical Hit 9: "Attacker allowed 1 additional attack immediately"; with its last
    arrow loosed, the archer has nothing to shoot it with. Double maximum total damage (12)
    rolls no die."""
    table = archer({"ammunition": 1})

    hit = swing(table, dice=[20, 9])

    assert [r["kind"] for r in of_type(hit, "attack-rolled")] == ["attack"]
    assert fighter_of(table, "fighter").missiles_spent == {"longbow": 1}
    assert table.replayed() == table.state


def test_a_blow_at_the_end_of_a_move_needs_a_missile_left() -> None:
    """§2 F's blow at a surprised foe after a move is an attack like any other: with the
    quiver empty it is refused when declared, not dropped when the move ends."""
    table = encounter()
    line_map(table)
    darts = {"name": "darts", "kind": "missile", "speed": 2, "damage": "1d3", "ammunition": 0}
    add(table, "fighter", "pcs", {"hp": 20, "thac0": 15, "ac": 4, "weapons": [darts]}, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(3, 0))
    table.send({"type": "surprise", "surprised": ["orc"]})
    start(table, initiative=[7, 3])

    violation = refused(
        table, {"type": "move", "combatant_id": "fighter", "to": [2, 0], "attack": "orc"}
    )

    assert violation.code == "attack/no-ammunition"
    assert violation.message.startswith("Fighter has no darts ammunition left")
