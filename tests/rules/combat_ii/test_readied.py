"""combat-ii §2 D Setting Weapons / Readying Defense, beyond the accelerated mover: "the
opponent is subject to attack as soon as he moves into a defended area if he is
accelerated, caught unaware, or unable to respond"; a covered area's target "may only
respond AT ALL if he has a missile ready also"; and the ambush preparation: "The opponent
will ideally enter the area unaware, therefore he must pass a surprise check in order to
counterattack."

The ogre (the initiative loser, club 1d6, needs 10 against AC 5) readies first; the fighter
(THAC0 10, needs 5) then walks from (0, 0) to (4, 0), into the reach of the ogre at (5, 0)."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import duel, fighter_of, of_type, stand
from tests.rules.combat_ii.given import LONG_SWORD, state_of
from tests.rules.harness import Table

SHORTBOW = {"name": "shortbow", "kind": "missile", "speed": 7, "damage": "1d6", "bow": True}


def _walk(table: Table, dice: list[int] | None = None) -> list[Envelope]:
    return table.send({"type": "move", "combatant_id": "fighter", "to": [4, 0]}, dice=dice)


def _strikes(stored: list[Envelope]) -> list[tuple[str, str, bool]]:
    return [(a["attacker"], a["kind"], a["hit"]) for a in of_type(stored, "attack-rolled")]


def _at(table: Table) -> tuple[int, int]:
    position = state_of(table).table.combatants["fighter"].position
    assert position is not None
    return (position.x, position.y)


def test_a_set_weapon_strikes_a_walker_with_no_attack_left_to_respond() -> None:
    """The fighter spends its one attack of the round shooting at a goblin in phase 1; in
    phase 2 it walks into the ogre's set club: "unable to respond", it is struck."""
    fighter: dict[str, Any] = {"weapons": [SHORTBOW], "wielding": ["shortbow"]}
    goblin = ("goblin", "ogres", {"hp": 9, "ac": 6, "weapons": [LONG_SWORD]}, (0, 4))
    table = duel(fighter=fighter, ogre_at=(5, 0), others=[goblin])
    table.send({"type": "set-weapon", "combatant_id": "ogre"})
    stand(table, "goblin")
    table.send(
        {"type": "attack", "combatant_id": "fighter", "targets": ["goblin"],
         "weapons": ["shortbow"]},
        dice=[2],
    )  # fmt: skip
    assert fighter_of(table, "ogre").ready == "club"
    stand(table, "ogre")
    stand(table, "goblin")

    walked = _walk(table, dice=[12, 3])

    assert _strikes(walked) == [("ogre", "set", True)]
    assert state_of(table).table.combatants["fighter"].pools["hp"].current == 27


@pytest.mark.parametrize(("surprise", "answered"), [(7, True), (3, False)])
def test_an_ambush_strikes_any_walker_who_answers_only_after_a_surprise_check(
    surprise: int, answered: bool
) -> None:
    table = duel(ogre_at=(5, 0))
    table.send({"type": "set-weapon", "combatant_id": "ogre", "ambush": True})
    assert state_of(table).intentions["ogre"].what == "ambush"

    walked = _walk(table, dice=[12, 3, surprise, *([15, 4] if answered else [])])

    expected = [("ogre", "set", True)] + ([("fighter", "counter", True)] if answered else [])
    assert _strikes(walked) == expected
    check = of_type(walked, "check-rolled")[0]["check"]
    assert (check["ability"], check["purpose"]) == ("surprise", "counterattack an ambush")
    assert _at(table) == (4, 0)  # the ambush does not stop the walker
    assert fighter_of(table, "ogre").ambush is False  # the ready state ends with its attack
    assert table.replayed() == table.state


def test_a_covered_areas_target_with_a_missile_ready_shoots_back_after_the_shot() -> None:
    """The ogre covers (2, 0) and (3, 0) with a shortbow from (10, 4); the fighter, bow in
    hand, is shot entering (2, 0), shoots back, then makes its surprise check and walks on."""
    fighter = {"weapons": [SHORTBOW], "wielding": ["shortbow"]}
    table = duel(fighter=fighter, ogre={"weapons": [SHORTBOW]}, ogre_at=(10, 4))
    table.send({"type": "cover-area", "combatant_id": "ogre", "cells": [[2, 0], [3, 0]]})

    walked = _walk(table, dice=[12, 3, 15, 4, 4])

    assert _strikes(walked) == [("ogre", "cover", True), ("fighter", "counter", True)]
    kinds = [e.type for e in walked if e.type in ("attack-rolled", "check-rolled")]
    assert kinds == ["attack-rolled", "attack-rolled", "check-rolled"]
    assert _at(table) == (4, 0)


def test_without_a_missile_ready_a_covered_areas_target_cannot_answer() -> None:
    table = duel(ogre={"weapons": [SHORTBOW]}, ogre_at=(10, 4))
    table.send({"type": "cover-area", "combatant_id": "ogre", "cells": [[2, 0], [3, 0]]})

    walked = _walk(table, dice=[12, 3, 4])

    assert _strikes(walked) == [("ogre", "cover", True)]
