"""§2 D Charging beyond the paladin's example: the rapid slowdown after the blow, and a
charger's run passing other defenders' set weapons and covered areas on the way.

The paladin (MV 18 at 3x: 18 squares a phase, DEX 10) charges the troll 13 squares off and
wins initiative, so the troll declares first and the paladin's charge resolves the phase."""

from __future__ import annotations

from typing import Any

from tests.rules.combat_ii.given import (
    add,
    data_of,
    declare,
    encounter,
    hp,
    line_map,
    one,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

LANCE = {"name": "lance", "speed": 8, "damage": "1d8"}
PALADIN = {"hp": 40, "thac0": 14, "ac": 2, "mv": 18, "max_speed": 3, "weapons": [LANCE]}
CLAWS = {"name": "claws", "kind": "natural", "damage": "1d4+4"}
TROLL = {"hp": 30, "thac0": 13, "ac": 4, "mv": 12, "size": "large", "weapons": [CLAWS]}
SPEAR = {"name": "spear", "speed": 6, "damage": "1d6"}
BOW = {"name": "shortbow", "kind": "missile", "speed": 7, "damage": "1d6"}
GUARD = {"hp": 12, "thac0": 16, "ac": 7, "mv": 12, "weapons": [SPEAR]}
ARCHER = {"hp": 12, "thac0": 16, "ac": 7, "mv": 12, "weapons": [BOW]}
RUN = 10
"""The paladin's STR check to spur to 3x MV (§2 D, PH p. 120): 10 passes STR 10."""


def field(guard: dict[str, Any] | None = None, at: tuple[int, int] = (6, 1)) -> Table:
    """The paladin at (0, 0), the troll at (13, 0), and a guard of the troll's side beside
    the paladin's lane when given; the paladin's side wins (pcs 3, trolls 7)."""
    table = encounter()
    line_map(table)
    add(table, "paladin", "pcs", PALADIN, at=(0, 0))
    add(table, "troll", "trolls", TROLL, at=(13, 0))
    if guard is not None:
        add(table, "guard", "trolls", guard, at=at)
    start(table, initiative=[3, 7])
    return table


def cells(path: list[dict[str, int]]) -> list[tuple[int, int]]:
    return [(c["x"], c["y"]) for c in path]


def where(table: Table, cid: str) -> tuple[int, int]:
    cell = state_of(table).table.combatants[cid].position
    assert cell is not None
    return cell.x, cell.y


# --- refusals ----------------------------------------------------------------------------------


def test_a_charge_with_speed_1_is_refused_as_too_slow() -> None:
    """issue 27: below jogging speed (2x MV) a charge is the documented `charge/too-slow`, a
    rule violation (422), not a malformed command (400 `command/invalid`)."""
    table = field()
    declare(table, "troll", "stand")

    for speed in (0, 1):
        too_slow = refused(
            table, {"type": "charge", "combatant_id": "paladin", "target": "troll", "speed": speed}
        )
        assert too_slow.code == "charge/too-slow" and too_slow.rule == "combat-ii §2 D Movement"


# --- the rapid slowdown -------------------------------------------------------------------------


def test_a_charger_slowing_down_rolls_after_the_blow_and_overruns_less() -> None:
    """§2 D Charging: "The charger may also attempt a rapid slowdown with the chances
    described above under 'Deceleration'". The lance strikes first (15 hits, 6 damage; the
    troll's counter, 2, misses); then the DEX check at -3 (7 passes against 10 - 3) and the
    overrun is 2 squares instead of 5."""
    table = field()
    declare(table, "troll", "stand")

    charged = declare(
        table, "paladin", "charge", target="troll", speed=3, stop_short=3, dice=[RUN, 15, 6, 2, 7]
    )

    rolled = [e.type for e in charged if e.type in ("attack-rolled", "check-rolled")]
    assert rolled == ["check-rolled", "attack-rolled", "attack-rolled", "check-rolled"]
    check = data_of(charged, "check-rolled")[-1]["check"]
    assert (check["ability"], check["purpose"], check["passed"]) == (
        "dexterity",
        "stop short",
        True,
    )
    closing, overrun = data_of(charged, "moved")
    assert cells(closing["path"])[-1] == (12, 0)
    assert cells(overrun["path"])[-1] == (15, 0)  # 2 past the troll, not 5
    assert hp(table, "troll") == 24
    assert table.replayed() == table.state


def test_a_charger_failing_the_slowdown_still_strikes_then_falls_where_it_struck() -> None:
    """§2 D Deceleration: "or fall prone for 1d4 phases". The blow is made (the slowdown is
    tried after it); the failed check (9 against 10 - 3) leaves the paladin fallen at
    (12, 0), with no overrun."""
    table = field()
    declare(table, "troll", "stand")

    dice = [RUN, 15, 6, 2, 9, 2]
    charged = declare(table, "paladin", "charge", target="troll", speed=3, stop_short=3, dice=dice)

    assert [r["attacker"] for r in data_of(charged, "attack-rolled")] == ["paladin", "troll"]
    assert [c["check"]["passed"] for c in data_of(charged, "check-rolled")] == [True, False]
    assert [m["mode"] for m in data_of(charged, "moved")] == ["charge"]
    assert where(table, "paladin") == (12, 0)
    assert "fallen" in [e.name for e in state_of(table).fighters["paladin"].effects]
    assert table.replayed() == table.state


# --- set weapons and covered areas on the way ---------------------------------------------------


def test_a_guard_set_beside_the_lane_strikes_the_charger_as_it_passes() -> None:
    """§2 D Setting Weapons: "the opponent is subject to attack as soon as he moves into a
    defended area if he is accelerated". The guard at (6, 1) has set its spear; the paladin
    at 3x enters its reach at (5, 0), takes the thrust (hit, 4), and rides on to the troll."""
    table = field(guard=GUARD)
    declare(table, "troll", "stand")
    declare(table, "guard", "set-weapon")
    declare(table, "paladin", "stand")  # phase 1: the guard's spear is set at its end
    declare(table, "troll", "stand")
    declare(table, "guard", "stand")

    dice = [RUN, 18, 4, 15, 6, 2]
    charged = declare(table, "paladin", "charge", target="troll", speed=3, dice=dice)

    rolled = data_of(charged, "attack-rolled")
    assert [(r["attacker"], r["kind"]) for r in rolled] == [
        ("guard", "set"),
        ("paladin", "charge"),
        ("troll", "counter"),
    ]
    first, closing, overrun = data_of(charged, "moved")
    assert cells(first["path"])[-1] == (5, 0) and first["mode"] == "charge"
    assert cells(closing["path"])[-1] == (12, 0) and overrun["mode"] == "overrun"
    assert hp(table, "paladin") == 36 and hp(table, "troll") == 24
    assert state_of(table).fighters["guard"].ready is None  # the set weapon is spent
    assert table.replayed() == table.state


def test_a_charger_downed_by_a_set_weapon_on_the_way_never_reaches_its_target() -> None:
    table = field(guard=GUARD)
    table.send({"type": "adjust-resource", "combatant_id": "paladin", "delta": -37})
    declare(table, "troll", "stand")
    declare(table, "guard", "set-weapon")
    declare(table, "paladin", "stand")
    declare(table, "troll", "stand")
    declare(table, "guard", "stand")

    charged = declare(table, "paladin", "charge", target="troll", speed=3, dice=[RUN, 18, 4])

    assert [r["attacker"] for r in data_of(charged, "attack-rolled")] == ["guard"]
    assert one(charged, "combatant-downed")["combatant_id"] == "paladin"
    assert where(table, "paladin") == (5, 0)
    assert table.replayed() == table.state


def test_a_covered_square_on_the_lane_draws_the_shot_and_a_surprise_check() -> None:
    """§2 D Setting Weapons: covering "a small area such as a path ... with a missile
    weapon"; the opponent "may only complete movement if he passes a surprise check". The
    archer covers (4, 0); the shot misses (3) and the paladin fails its check (2 on the d10),
    so it stops there: no blow at the troll."""
    table = field(guard=ARCHER, at=(4, 4))
    declare(table, "troll", "stand")
    table.send({"type": "cover-area", "combatant_id": "guard", "cells": [[4, 0]]})
    declare(table, "paladin", "stand")
    declare(table, "troll", "stand")
    declare(table, "guard", "stand")

    charged = declare(table, "paladin", "charge", target="troll", speed=3, dice=[RUN, 3, 2])

    assert [(r["attacker"], r["kind"]) for r in data_of(charged, "attack-rolled")] == [
        ("guard", "cover")
    ]
    assert [c["check"]["passed"] for c in data_of(charged, "check-rolled")] == [True, False]
    assert where(table, "paladin") == (4, 0)
    assert hp(table, "troll") == 30
    assert table.replayed() == table.state


def test_the_targets_own_set_weapon_answers_the_blow_not_the_approach() -> None:
    """The troll set for the charge swings with the lance (§2 D: "a simultaneous return
    swing"), once, when the paladin closes, not as it enters reach earlier in the run."""
    table = field()
    declare(table, "troll", "set-weapon")

    charged = declare(table, "paladin", "charge", target="troll", speed=3, dice=[RUN, 16, 15, 2, 6])

    rolled = data_of(charged, "attack-rolled")
    assert [(r["attacker"], r["kind"]) for r in rolled] == [("troll", "set"), ("paladin", "charge")]
    closing = data_of(charged, "moved")[0]
    assert cells(closing["path"])[-1] == (12, 0)
    assert table.replayed() == table.state


# --- the charging backstab ----------------------------------------------------------------------

THIEF = {"hp": 20, "thac0": 19, "ac": 6, "mv": 12, "thief": True, "move_silently": 60,
         "backstab": 2, "weapons": [{"name": "dagger", "speed": 2, "damage": "1d4"}]}  # fmt: skip
"""Needs 15 to hit the troll's AC 4; 11 with a backstab's +4."""


def thief_charge(d100: int, d20: int, damage: list[int]) -> tuple[Table, list[Any]]:
    table = encounter()
    line_map(table)
    add(table, "thief", "pcs", THIEF, at=(5, 0))
    add(table, "troll", "trolls", {**TROLL, "hp": 40}, at=(13, 0))
    start(table, initiative=[3, 7])
    declare(table, "troll", "stand")
    dice = [d100, d20, *damage, 1]  # the troll's counter misses with a 1
    stored = declare(table, "thief", "charge", target="troll", speed=2, backstab=True, dice=dice)
    return table, stored


def test_a_charging_backstab_gains_4_to_hit_and_multiplies_the_damage_dice() -> None:
    """§2 D: "A thief may make a charging backstab if previously unnoticed and if he makes a
    successful 'move silently' check"; PH: +4 to hit and the damage multiplied (x2 here: the
    d4's 3 twice).
    The 30 passes the 60% check; the 12 hits only with the +4."""
    table, stored = thief_charge(30, 12, [3])

    check = one(stored, "check-rolled")["check"]
    assert (check["ability"], check["passed"]) == ("move silently", True)
    blow = data_of(stored, "attack-rolled")[0]
    assert (blow["attacker"], blow["needed"], blow["hit"]) == ("thief", 11, True)
    assert one(stored, "damage-rolled")["amount"] == 2 * 3
    assert hp(table, "troll") == 40 - 6
    assert table.replayed() == table.state


def test_a_failed_move_silently_check_is_a_plain_charge() -> None:
    table, stored = thief_charge(75, 12, [])

    assert one(stored, "check-rolled")["check"]["passed"] is False
    blow = data_of(stored, "attack-rolled")[0]
    assert (blow["needed"], blow["hit"]) == (15, False)
    assert hp(table, "troll") == 40
    assert table.replayed() == table.state


def test_a_thief_the_target_has_traded_blows_with_cannot_backstab_it() -> None:
    """§2 D: "A thief may make a charging backstab if previously unnoticed": the troll shot
    at the thief in phase 1, so in phase 2 it has noticed him. A plain charge is still his."""
    table = encounter()
    line_map(table)
    add(table, "thief", "pcs", THIEF, at=(5, 0))
    add(table, "troll", "trolls", {**TROLL, "hp": 40, "weapons": [BOW, CLAWS]}, at=(13, 0))
    start(table, initiative=[3, 7])
    declare(table, "troll", "attack", targets=["thief"], weapons=["shortbow"])
    declare(table, "thief", "stand", dice=[2])  # the arrow misses
    declare(table, "troll", "stand")

    backstab = {"type": "charge", "combatant_id": "thief", "target": "troll", "speed": 2}
    violation = refused(table, {**backstab, "backstab": True})

    assert violation.code == "charge/noticed"
    assert "previously unnoticed" in violation.message
    assert state_of(table).fighters["thief"].noticed_by == ("troll",)
    plain = declare(table, "thief", "charge", target="troll", speed=2, dice=[2])  # no counter left
    assert one(plain, "attack-rolled")["attacker"] == "thief"


def test_a_thief_hidden_in_shadows_is_unnoticed_again() -> None:
    """PH: a thief hidden in shadows is lost to sight. The troll shot at the thief; the GM
    then calls for hide in shadows (40%): a 30 hides him, and he may backstab after all."""
    table = encounter()
    line_map(table)
    add(table, "thief", "pcs", {**THIEF, "thief_skills": {"hide-in-shadows": 40}}, at=(5, 0))
    add(table, "troll", "trolls", {**TROLL, "hp": 40, "weapons": [BOW, CLAWS]}, at=(13, 0))
    start(table, initiative=[3, 7])
    declare(table, "troll", "attack", targets=["thief"], weapons=["shortbow"])
    declare(table, "thief", "stand", dice=[2])
    table.send(
        {"type": "skill-check", "combatant_id": "thief", "skill": "hide-in-shadows"}, dice=[41]
    )
    assert state_of(table).fighters["thief"].noticed_by == ("troll",)  # 41: seen

    table.send(
        {"type": "skill-check", "combatant_id": "thief", "skill": "hide-in-shadows"}, dice=[30]
    )

    assert state_of(table).fighters["thief"].noticed_by == ()
    declare(table, "troll", "stand")
    stored = declare(table, "thief", "charge", target="troll", speed=2, backstab=True, dice=[30, 2])
    assert one(stored, "check-rolled")["check"]["ability"] == "move silently"
    assert table.replayed() == table.state
