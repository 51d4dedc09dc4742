"""combat-ii §4 Agility "THIEF ADJUSTMENTS: Skills are modified by either DEX or AGI. Use Table
28 of PH. Read 'Dexterity' as the applicable ability. AGI: Move Silently, Hide in Shadows,
Climb Walls (AGI 9 = -10%, 10 = -5%, 17 = +5%, 18 = +10%, 19 = +15%) DEX: Pick Pockets, Open
Locks, Find/Remove Traps".

Without the `agility` option a stat block's percentages are the sheet's figures, DEX already
counted (as its AC is); with it they are the figures before the ability's adjustment. The
fighter of `cast.duel` is a thief here; the GM calls for a skill while phase 1 awaits the
ogre's declaration. The only die is the d100; each case rolls the adjusted chance exactly (a
pass) and one more (a failure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service.domain.context import Actor
from tests.rules.combat_ii.cast import duel, only
from tests.rules.combat_ii.given import ORC, PLAYER, add, encounter, refused, state_of
from tests.rules.harness import Table

SKILLS = {
    "move-silently": 50, "hide-in-shadows": 40, "climb-walls": 60, "pick-pockets": 45,
    "open-locks": 35, "find-traps": 30, "remove-traps": 25,
}  # fmt: skip
THIEF = {"thief": True, "thief_skills": SKILLS}


def thief(**stats: Any) -> Table:
    return duel(fighter={**THIEF, **stats.pop("fighter", {})}, **stats)


def call(table: Table, skill: str, d100: int) -> dict[str, Any]:
    """The GM calls for `skill`; returns the check rolled."""
    stored = table.send(
        {"type": "skill-check", "combatant_id": "fighter", "skill": skill}, dice=[d100]
    )
    check: dict[str, Any] = only(stored, "check-rolled")["check"]
    return check


def passes_exactly(table_of: Callable[[], Table], skill: str, modifier: int) -> None:
    """The chance plus `modifier` passes and one more fails, with that modifier recorded."""
    chance = SKILLS[skill] + modifier
    made, missed = call(table_of(), skill, chance), call(table_of(), skill, chance + 1)
    assert (made["score"], made["modifier"]) == (SKILLS[skill], modifier)
    assert (made["passed"], missed["passed"]) == (True, False)


def test_a_called_skill_is_a_check_rolled_on_d100_against_the_adjusted_percentage() -> None:
    """With the option, DEX 17: PH Table 28 gives pick pockets +5, so 50 passes."""
    table = thief(fighter={"dexterity": 17}, agility=True)

    check = call(table, "pick-pockets", 50)

    assert check == {
        "ability": "pick pockets", "score": 45, "modifier": 5, "roll": 50, "passed": True,
        "purpose": "called for by the GM",
    }  # fmt: skip
    assert state_of(table).stage == "intentions"
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("skill", "dexterity", "modifier"),
    [
        pytest.param("pick-pockets", 9, -15, id="PP DEX 9: -15%"),
        pytest.param("pick-pockets", 5, -15, id="PP DEX 5: as 9"),
        pytest.param("open-locks", 10, -5, id="OL DEX 10: -5%"),
        pytest.param("find-traps", 11, -5, id="F/RT DEX 11: -5%"),
        pytest.param("move-silently", 12, -5, id="MS DEX 12: -5%"),
        pytest.param("hide-in-shadows", 14, 0, id="HS DEX 14: none"),
        pytest.param("open-locks", 16, 5, id="OL DEX 16: +5%"),
        pytest.param("remove-traps", 18, 5, id="F/RT DEX 18: +5%"),
        pytest.param("hide-in-shadows", 19, 15, id="HS DEX 19: +15%"),
        pytest.param("open-locks", 23, 20, id="OL DEX 23: as 19"),
        pytest.param("climb-walls", 19, 0, id="CW: no DEX column"),
        pytest.param("climb-walls", 3, 0, id="CW low DEX: no DEX column"),
    ],
)  # fmt: skip
def test_with_the_option_and_no_agi_score_every_skill_takes_ph_table_28_by_dex(
    skill: str, dexterity: int, modifier: int
) -> None:
    passes_exactly(lambda: thief(fighter={"dexterity": dexterity}, agility=True), skill, modifier)


@pytest.mark.parametrize("skill", sorted(SKILLS))
def test_without_the_option_the_percentage_is_the_sheets_figure(skill: str) -> None:
    """The sheet's percentages already count DEX (PH Table 28); DEX 19 and AGI 19 add nothing."""
    passes_exactly(lambda: thief(fighter={"dexterity": 19, "agility": 19}), skill, 0)


@pytest.mark.parametrize(
    ("skill", "agility", "modifier"),
    [
        pytest.param("move-silently", 17, 5, id="MS AGI 17: +5%"),
        pytest.param("hide-in-shadows", 9, -10, id="HS AGI 9: -10%"),
        pytest.param("hide-in-shadows", 10, -5, id="HS AGI 10: -5%"),
        pytest.param("climb-walls", 19, 15, id="CW AGI 19: +15%"),
        pytest.param("climb-walls", 4, -10, id="CW AGI 4: as 9"),
    ],
)  # fmt: skip
def test_with_the_agility_option_agi_adjusts_move_silently_hide_and_climb(
    skill: str, agility: int, modifier: int
) -> None:
    """DEX 9 would give MS -20 and HS -10: AGI's list replaces it for these three."""
    passes_exactly(
        lambda: thief(fighter={"dexterity": 9, "agility": agility}, agility=True), skill, modifier
    )


@pytest.mark.parametrize(
    ("skill", "modifier"),
    [
        pytest.param("pick-pockets", -15, id="PP"),
        pytest.param("open-locks", -10, id="OL"),
        pytest.param("remove-traps", -10, id="F/RT"),
    ],
)  # fmt: skip
def test_with_the_agility_option_dex_still_adjusts_the_hand_skills(
    skill: str, modifier: int
) -> None:
    """DEX 9 with AGI 19: pick pockets, open locks and traps are DEX's (PH Table 28)."""
    passes_exactly(
        lambda: thief(fighter={"dexterity": 9, "agility": 19}, agility=True), skill, modifier
    )


def test_with_the_option_but_no_agility_score_hide_in_shadows_takes_dex() -> None:
    """No AGI score: the skill reads DEX by PH Table 28 (DEX 17: +5%), as without the option."""
    passes_exactly(lambda: thief(fighter={"dexterity": 17}, agility=True), "hide-in-shadows", 5)


def test_move_silently_on_the_stat_block_is_the_chance_when_thief_skills_lacks_it() -> None:
    skills = {k: v for k, v in SKILLS.items() if k != "move-silently"}
    table = duel(fighter={"thief": True, "move_silently": 70, "thief_skills": skills})

    check = call(table, "move-silently", 70)

    assert (check["score"], check["modifier"], check["passed"]) == (70, 0, True)


def test_a_stat_block_giving_two_move_silently_chances_is_refused() -> None:
    table = encounter()
    stats = {"thief": True, "move_silently": 70, "thief_skills": {"move-silently": 60}}
    command = {
        "type": "add-combatant", "combatant_id": "thief", "name": "Thief", "side": "pcs",
        "stats": stats,
    }  # fmt: skip

    assert refused(table, command).code == "combatant/bad-stats"


def test_not_a_thief_is_refused_and_nothing_is_rolled() -> None:
    table = duel()
    violation = refused(
        table, {"type": "skill-check", "combatant_id": "fighter", "skill": "climb-walls"}
    )

    assert violation.code == "skill-check/not-thief"
    assert "Fighter is not a thief" in violation.message


def test_a_skill_without_a_percentage_is_refused_naming_the_field() -> None:
    table = duel(fighter={"thief": True, "thief_skills": {"pick-pockets": 30}})
    command = {"type": "skill-check", "combatant_id": "fighter", "skill": "open-locks"}

    violation = refused(table, command)

    assert violation.code == "skill-check/no-chance"
    assert "open locks" in violation.message
    assert 'thief_skills["open-locks"]' in violation.message


def _ended() -> Table:
    table = thief()
    table.send({"type": "end-encounter"})
    return table


def _unstarted() -> Table:
    table = encounter()
    add(table, "fighter", "pcs", {**ORC, **THIEF})
    return table


@pytest.mark.parametrize(
    ("given", "cid", "actor", "code"),
    [
        pytest.param(thief, "nobody", None, "combatant/unknown", id="unknown combatant"),
        pytest.param(thief, "fighter", PLAYER, "auth/gm-only", id="a player calls it"),
        pytest.param(_unstarted, "fighter", None, "encounter/not-running", id="before the fight"),
        pytest.param(_ended, "fighter", None, "encounter/ended", id="after the fight"),
    ],
)  # fmt: skip
def test_the_gm_calls_skill_checks_on_known_combatants_during_the_fight(
    given: Callable[[], Table], cid: str, actor: Actor | None, code: str
) -> None:
    table = given()
    command = {"type": "skill-check", "combatant_id": cid, "skill": "hide-in-shadows"}

    violation = refused(table, command) if actor is None else refused(table, command, actor)

    assert violation.code == code


# --- the charging backstab's move silently (§2 D) ------------------------------------------------


def _backstab(d100: int, option: bool = False, **stats: Any) -> dict[str, Any]:
    """The thief charges the ogre three squares off with a backstab; both then miss with 1s."""
    table = duel(fighter={"thief": True, "backstab": 2, **stats}, ogre_at=(4, 0), agility=option)
    table.send({"type": "stand", "combatant_id": "ogre"})
    stored = table.send(
        {"type": "charge", "combatant_id": "fighter", "target": "ogre", "speed": 2,
         "backstab": True},
        dice=[d100, 1, 1],
    )  # fmt: skip
    check: dict[str, Any] = only(stored, "check-rolled")["check"]
    return check


def test_with_the_option_and_no_agi_score_the_backstab_move_silently_takes_dex() -> None:
    """PH Table 28: DEX 17 adds 5% to move silently."""
    made = _backstab(65, option=True, dexterity=17, move_silently=60)
    missed = _backstab(66, option=True, dexterity=17, move_silently=60)

    assert (made["ability"], made["modifier"]) == ("move silently", 5)
    assert (made["passed"], missed["passed"]) == (True, False)


def test_the_backstab_reads_thief_skills_move_silently() -> None:
    check = _backstab(45, dexterity=14, thief_skills={"move-silently": 45})

    assert (check["score"], check["modifier"], check["passed"]) == (45, 0, True)
