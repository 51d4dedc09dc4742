"""combat-ii §2 A Spellcasting (and §3 B, §5 where casting meets them): a caster hurt
before the spell goes off loses it, one spell a round, no casting and attacking in one round
but for touch spells, the touch in a later phase, the CON check after a hit, holding a spell,
material components in hand, and mana drawn when the casting begins."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import duel
from tests.rules.combat_ii.given import (
    ORC,
    add,
    data_of,
    declare,
    encounter,
    hp,
    line_map,
    one,
    refused,
    stand,
    start,
    state_of,
)
from tests.rules.harness import Table

DAGGER = {"name": "dagger", "speed": 2, "damage": "1d4"}
CLUB = {"name": "club", "speed": 4, "damage": "1d6"}
SPELLS = [
    {"name": "magic missile", "level": 1, "ct": 1, "components": "VS", "damage": "1d4"},
    {"name": "web", "level": 2, "ct": 2, "components": "VSM"},
    {"name": "blast", "level": 1, "ct": 3, "components": "VS", "damage": "1d6"},
    {"name": "chill touch", "level": 1, "ct": 1, "components": "VS", "touch": True,
     "damage": "1d8"},
    {"name": "fireball", "level": 3, "ct": 3, "components": "VS", "damage": "1d6"},
    {"name": "blur", "level": 2, "ct": 3, "components": "VS"},
]  # fmt: skip
FINCH = {"hp": 12, "thac0": 20, "ac": 8, "constitution": 12, "weapons": [DAGGER], "spells": SPELLS}


def _finch_and_the_orc(
    finch_wins: bool = True,
    finch: dict[str, Any] | None = None,
    orc: dict[str, Any] | None = None,
    orc_at: tuple[int, int] = (1, 0),
    **options: Any,
) -> Table:
    """Finch the caster at (0, 0) and an orc with a club (SF 4) next to him."""
    table = encounter(**options)
    line_map(table)
    add(table, "finch", "pcs", {**FINCH, **(finch or {})}, at=(0, 0), name="Finchfingle")
    add(table, "orc", "orcs", {**ORC, "hp": 30, "weapons": [CLUB], **(orc or {})}, at=orc_at)
    start(table, initiative=[7, 3] if finch_wins else [3, 7])
    return table


def _both(
    table: Table, finch: dict[str, Any], orc: dict[str, Any], dice: list[int] | None = None
) -> list[Envelope]:
    """Both declare, losers first; the dice go with the declaration that resolves the phase.
    An empty `finch` is a caster whose spell goes on by itself."""
    if not finch:
        return declare(table, "orc", dice=dice, **orc)
    if state_of(table).tracks["orc"] == "loser":
        return declare(table, "orc", **orc) + declare(table, "finch", dice=dice, **finch)
    return declare(table, "finch", **finch) + declare(table, "orc", dice=dice, **orc)


STAND: dict[str, Any] = {"kind": "stand"}
CLUBS_FINCH: dict[str, Any] = {"kind": "attack", "targets": ["finch"]}


def _cast(spell: str, target: str | None = "orc", **more: Any) -> dict[str, Any]:
    return {"kind": "cast", "spell": spell, **({"target": target} if target else {}), **more}


def _to_next_round(table: Table) -> None:
    """Both stand out the round; the next round's initiative goes Finch's way again."""
    round_now = state_of(table).round
    while state_of(table).round == round_now:
        last = state_of(table).phase == 3
        _both(table, STAND, STAND, dice=[7, 3] if last else None)


# --- Caster takes damage --------------------------------------------------------------------


def test_damage_while_casting_ruins_the_spell() -> None:
    """combat-ii §2 A Caster Takes Damage: "If a spell is being cast during the current phase,
    the spell is ruined if the caster takes damage. The caster may then defend and move for
    the remainder of the round but may not begin a new spell". Finch, a loser, would finish
    his CT 3 spell at 6; the orc's club (SF 4, winner) lands at 3."""
    table = _finch_and_the_orc(finch_wins=False)

    phase = _both(table, _cast("blur", target=None), CLUBS_FINCH, dice=[15, 4])

    ruined = one(phase, "spell-ruined")
    assert (ruined["spell"], ruined["half_segment"]) == ("blur", 3)
    assert hp(table, "finch") == 8
    assert state_of(table).fighters["finch"].casting is None
    again = {"type": "cast", "combatant_id": "finch", "spell": "magic missile", "target": "orc"}
    assert not refused(table, again).code.startswith("dice/")
    assert table.replayed() == table.state


def test_a_caster_hit_before_the_spell_completes_loses_it() -> None:
    """combat-ii §2 A: the ruined blast neither completes nor rolls its damage."""
    table = _finch_and_the_orc(finch_wins=False)

    phase = _both(table, _cast("blast"), CLUBS_FINCH, dice=[15, 4])  # no d6 for the blast

    assert one(phase, "spell-ruined")["half_segment"] == 3
    assert "spell-completed" not in table.types(phase)
    assert hp(table, "orc") == 30


def test_a_caster_whose_spell_was_ruined_is_refused_a_new_one_for_that_reason() -> None:
    table = _finch_and_the_orc(finch_wins=False)
    _both(table, _cast("blur", target=None), CLUBS_FINCH, dice=[15, 4])
    again = {"type": "cast", "combatant_id": "finch", "spell": "magic missile", "target": "orc"}
    assert refused(table, again).code == "cast/ruined-this-round"


def test_a_caster_hit_in_the_half_segment_his_spell_completes_keeps_it() -> None:
    """combat-ii §1 E: actions in one half-segment are simultaneous and "cannot preempt the
    completion of actions by other combatants that half-segment". Finch (winner) finishes
    his CT 3 blast at 5; the orc's axe (SF 7, loser) lands at 5 too."""
    table = _finch_and_the_orc(finch={"hp": 4}, orc={"weapons": ORC["weapons"]})

    # The axe's to-hit, its damage, then the blast's d6, then all damage at once.
    phase = _both(table, _cast("blast"), CLUBS_FINCH, dice=[15, 6, 5])

    assert one(phase, "spell-completed")["half_segment"] == 5
    assert one(phase, "attack-rolled")["half_segment"] == 5
    assert "spell-ruined" not in table.types(phase)
    assert hp(table, "orc") == 25
    assert one(phase, "combatant-downed")["combatant_id"] == "finch"
    assert table.replayed() == table.state


def test_a_caster_hit_in_the_second_phase_of_a_long_spell_loses_it() -> None:
    """combat-ii §2 A: a spell "being cast during the current phase" is ruined by damage; a
    CT 6 spell is being cast in both its phases. Finch's cone would go off at 11; the orc's
    club (a loser's SF 4) lands at 10."""
    long_spell = {"name": "cone", "level": 1, "ct": 6, "components": "V"}
    table = _finch_and_the_orc(finch={"spells": [*SPELLS, long_spell]})
    _both(table, _cast("cone"), STAND)

    phase = _both(table, {}, CLUBS_FINCH, dice=[15, 4])

    assert one(phase, "spell-ruined")["half_segment"] == 10
    assert "spell-completed" not in table.types(phase)


# --- One spell a round; casting or attacking ------------------------------------------------


def test_only_one_spell_is_cast_each_round() -> None:
    """combat-ii §2 A: "Only one successful casting per round is possible"."""
    table = _finch_and_the_orc()
    _both(table, _cast("magic missile"), STAND, dice=[3])
    declare(table, "orc", "stand")

    violation = refused(
        table, {"type": "cast", "combatant_id": "finch", "spell": "blast", "target": "orc"}
    )

    assert not violation.code.startswith("dice/")
    declare(table, "finch", "stand")
    _to_next_round(table)
    next_round = _both(table, _cast("magic missile"), STAND, dice=[2])
    assert one(next_round, "spell-completed")["spell"] == "magic missile"
    assert table.replayed() == table.state


def test_a_second_spell_in_a_round_is_refused_as_one_spell_a_round() -> None:
    table = _finch_and_the_orc()
    _both(table, _cast("magic missile"), STAND, dice=[3])
    declare(table, "orc", "stand")
    again = {"type": "cast", "combatant_id": "finch", "spell": "blast", "target": "orc"}
    assert refused(table, again).code == "cast/one-per-round"


def test_a_caster_who_attacked_this_round_cannot_cast_in_it() -> None:
    """combat-ii §2 A: "If a caster physically attacks an opponent, he cannot cast in the
    same round"."""
    table = _finch_and_the_orc()
    _both(table, {"kind": "attack", "targets": ["orc"]}, STAND, dice=[2])
    declare(table, "orc", "stand")

    violation = refused(
        table, {"type": "cast", "combatant_id": "finch", "spell": "blast", "target": "orc"}
    )

    assert violation.code == "cast/attacked-this-round"


def test_a_caster_who_cast_this_round_cannot_attack_in_it() -> None:
    """combat-ii §2 A: "... and vice-versa unless the spell requires a melee attack"."""
    table = _finch_and_the_orc()
    _both(table, _cast("magic missile"), STAND, dice=[3])
    declare(table, "orc", "stand")

    violation = refused(table, {"type": "attack", "combatant_id": "finch", "targets": ["orc"]})

    assert violation.code == "attack/casting-this-round"


def test_a_caster_who_attacked_this_round_may_still_cast_a_touch_spell() -> None:
    """combat-ii §2 A: "unless the spell requires a melee attack (see Touch Spell rule)"."""
    table = _finch_and_the_orc()
    _both(table, {"kind": "attack", "targets": ["orc"]}, STAND, dice=[2])

    phase = _both(table, _cast("chill touch"), STAND)

    assert one(phase, "spell-completed")["touch"] is True
    assert table.replayed() == table.state


def test_under_system_ii_a_caster_waits_two_phases_after_a_physical_attack() -> None:
    """combat-ii §3 C: "casters MUST delay two phases after a physical attack regardless of
    their delay time between spells"."""
    table = _finch_and_the_orc(phase_system="II")
    _both(table, {"kind": "attack", "targets": ["orc"]}, STAND, dice=[2])
    for _ in range(2):
        declare(table, "orc", "stand")
        violation = refused(
            table, {"type": "cast", "combatant_id": "finch", "spell": "blast", "target": "orc"}
        )
        assert violation.code == "cast/delay"
        declare(table, "finch", "stand", dice=[7, 3] if state_of(table).phase == 3 else None)
    phase = _both(table, _cast("magic missile"), STAND, dice=[2])
    assert one(phase, "spell-completed")["spell"] == "magic missile"
    assert table.replayed() == table.state


# --- Touch spells ----------------------------------------------------------------------------


def test_a_touch_spell_is_delivered_in_the_attack_portion_of_a_later_phase() -> None:
    """combat-ii §2 A Touch Spells: "The actual touch may be attempted during the attack
    portion of the next phase or later"."""
    table = _finch_and_the_orc()
    cast = _both(table, _cast("chill touch"), STAND)
    assert one(cast, "spell-completed")["half_segment"] == 1
    assert "attack-rolled" not in table.types(cast)
    assert state_of(table).fighters["finch"].charged == "chill touch"

    touched = _both(table, {"kind": "touch", "target": "orc"}, STAND, dice=[15, 3])

    rolled = one(touched, "attack-rolled")
    assert (rolled["kind"], rolled["half_segment"]) == ("touch", 8)  # dagger SF 2, phase 2
    assert state_of(table).fighters["finch"].charged is None
    assert table.replayed() == table.state


def test_a_delivered_touch_spell_deals_the_spells_damage() -> None:
    table = _finch_and_the_orc()
    _both(table, _cast("chill touch"), STAND)
    touched = _both(table, {"kind": "touch", "target": "orc"}, STAND, dice=[15, 4])
    damage = one(touched, "damage-rolled")
    assert (damage["source"], damage["text"]) == ("chill touch", "1d8 (4) = 4")


def test_there_is_no_touch_without_a_completed_touch_spell() -> None:
    table = _finch_and_the_orc()
    declare(table, "orc", "stand")
    violation = refused(table, {"type": "touch", "combatant_id": "finch", "target": "orc"})
    assert violation.code == "touch/no-spell"


def test_a_touch_in_the_next_round_counts_as_that_rounds_attack() -> None:
    """combat-ii §2 A: "If the touch attack occurs in a subsequent round, however, it counts
    as the attack for the round (i.e. no casting, no further attacks unless normally allowed
    more than one physical attack)"."""
    table = _finch_and_the_orc()
    _both(table, STAND, STAND)
    _both(table, STAND, STAND)
    _both(table, _cast("chill touch"), STAND, dice=[7, 3])  # phase 3, then round 2's d10s

    _both(table, {"kind": "touch", "target": "orc"}, STAND, dice=[2])  # a miss

    declare(table, "orc", "stand")
    attack = {"type": "attack", "combatant_id": "finch", "targets": ["orc"]}
    assert refused(table, attack).code == "attack/none-left"
    cast = {"type": "cast", "combatant_id": "finch", "spell": "blast", "target": "orc"}
    assert refused(table, cast).code == "cast/attacked-this-round"


# --- A hit before the casting phase: the CON check ------------------------------------------


@pytest.mark.parametrize(
    ("con_roll", "delayed"),
    [pytest.param(12, False, id="CON 12 rolled 12: begins"),
     pytest.param(13, True, id="CON 12 rolled 13: a phase later")],
)  # fmt: skip
def test_a_caster_hit_in_the_phase_before_his_casting_makes_a_con_check(
    con_roll: int, delayed: bool
) -> None:
    """combat-ii §2 A: "If the caster is hit PRIOR to the phase in which he will begin a
    spell, the casting phase is not forfeited, but will be delayed one extra phase if the
    caster fails a CON check"."""
    table = _finch_and_the_orc()
    _both(table, STAND, CLUBS_FINCH, dice=[15, 3])  # the orc's club at 4 of phase 1
    assert hp(table, "finch") == 9

    phase = _both(table, _cast("web", "orc"), STAND, dice=[con_roll])

    check = one(phase, "check-rolled")["check"]
    assert (check["ability"], check["score"], check["passed"]) == ("constitution", 12, not delayed)
    assert ("casting-delayed" in table.types(phase)) == delayed
    completed = data_of(phase, "spell-completed")
    if not delayed:
        assert completed[0]["half_segment"] == 9  # CT 2 begun in phase 2, winner
    else:
        assert completed == []
        later = stand(table, "orc", dice=[7, 3])  # phase 3: Finch's web goes on its own
        assert one(later, "spell-completed")["half_segment"] == 15
    assert table.replayed() == table.state


def test_a_caster_whose_casting_was_put_off_is_not_yet_a_stationary_target() -> None:
    """combat-ii §2 C Stationary, Defenseless Target covers "spellcasters when invoking magicks
    requiring somatic components"; Finch, delayed a phase by the CON check, is not casting
    yet."""
    table = _finch_and_the_orc(orc={"attacks": "2"})
    _both(table, STAND, CLUBS_FINCH, dice=[15, 3])

    phase = _both(table, _cast("web", "orc"), CLUBS_FINCH, dice=[13, 5])  # CON fails; a miss

    assert "casting-delayed" in table.types(phase)
    assert one(phase, "attack-rolled")["needed"] == 19 - 8  # the orc's THAC0 - Finch's AC 8


def test_a_caster_hit_two_phases_earlier_makes_no_con_check() -> None:
    table = _finch_and_the_orc()
    _both(table, STAND, CLUBS_FINCH, dice=[15, 3])
    _both(table, STAND, STAND)
    phase = _both(table, _cast("magic missile"), STAND, dice=[2, 7, 3])
    assert "check-rolled" not in table.types(phase)
    assert one(phase, "spell-completed")["half_segment"] == 13


# --- Holding a spell ------------------------------------------------------------------------


def test_holding_a_spell_adds_to_its_casting_time() -> None:
    """combat-ii §2 A Holding a Spell: "A caster may choose to temporarily contain the
    mystical energies of a cast spell, effectively increasing the CT by one or more before
    releasing the magic". CT 1 held 2 goes off as a CT 3: at 5, not 1."""
    table = _finch_and_the_orc()
    phase = _both(table, _cast("magic missile", hold=2), STAND, dice=[3])
    assert one(phase, "spell-completed")["half_segment"] == 5
    assert table.replayed() == table.state


def test_a_spell_held_past_the_round_counts_as_the_next_rounds_casting() -> None:
    """combat-ii §2 A: "The maximum hold time is 6 CT ... which puts the balance into the next
    round ... If the spell is held into the next round, it counts as that round's casting (no
    new spell may be started)". CT 3 begun in phase 2 and held 6 goes off at 5 of round 2."""
    table = _finch_and_the_orc()
    _both(table, STAND, STAND)
    _both(table, _cast("blast", hold=6), STAND)
    _both(table, STAND, STAND, dice=[7, 3])  # phase 3: holding, free to act; round 2's d10s

    released = _both(table, STAND, STAND, dice=[4])

    assert one(released, "spell-completed")["half_segment"] == 5
    declare(table, "orc", "stand")
    again = {"type": "cast", "combatant_id": "finch", "spell": "magic missile", "target": "orc"}
    assert refused(table, again).code == "cast/one-per-round"
    assert table.replayed() == table.state


def test_a_hit_while_holding_a_spell_ruins_it() -> None:
    """combat-ii §2 A: "If the caster takes a hit while holding a spell, the spell is still
    ruined"."""
    table = _finch_and_the_orc()
    _both(table, _cast("magic missile", hold=6), STAND)  # CT 1 + 6: it would go off at 13

    phase = _both(table, STAND, CLUBS_FINCH, dice=[15, 3])  # holding, Finch stands; club at 10

    assert one(phase, "spell-ruined")["spell"] == "magic missile"
    assert table.replayed() == table.state


def test_holding_is_refused_when_the_option_is_off() -> None:
    table = _finch_and_the_orc(hold_spells=False)
    declare(table, "orc", "stand")
    held = {
        "type": "cast", "combatant_id": "finch", "spell": "magic missile", "target": "orc",
        "hold": 2,
    }  # fmt: skip
    assert refused(table, held).code == "cast/no-holding"


def test_a_caster_may_move_freely_while_holding_a_spell() -> None:
    """combat-ii §2 A: "The caster may move freely while holding a spell"."""
    table = _finch_and_the_orc(orc_at=(9, 0))
    _both(table, _cast("magic missile", hold=6), STAND)  # cast by 1, held through phase 2
    declare(table, "orc", "stand")
    moved = declare(table, "finch", "move", to=[0, 3])
    assert one(moved, "moved")["combatant_id"] == "finch"


# --- Material components --------------------------------------------------------------------


def test_material_components_must_be_in_hand_or_a_phase_is_spent_readying_them() -> None:
    """combat-ii §2 A: "Material components must be in-hand at the beginning of a casting
    phase, or else one phase must be spent readying them"; §2 E: "ready material components"."""
    table = _finch_and_the_orc(finch={"components_in_hand": False})
    declare(table, "orc", "stand")
    web = {"type": "cast", "combatant_id": "finch", "spell": "web", "target": "orc"}
    assert refused(table, web).code == "cast/no-components"

    readied = declare(table, "finch", "prepare", what="components")

    assert one(readied, "weapon-readied")["what"] == "components"
    phase = _both(table, _cast("web"), STAND)
    assert one(phase, "spell-completed")["spell"] == "web"
    assert table.replayed() == table.state


def test_a_spell_without_a_material_component_needs_none_in_hand() -> None:
    table = _finch_and_the_orc(finch={"components_in_hand": False})
    phase = _both(table, _cast("magic missile"), STAND, dice=[3])
    assert one(phase, "spell-completed")["spell"] == "magic missile"


def test_casting_uses_up_the_components_in_hand() -> None:
    table = _finch_and_the_orc()
    _both(table, _cast("web"), STAND)
    _to_next_round(table)
    declare(table, "orc", "stand")
    web = {"type": "cast", "combatant_id": "finch", "spell": "web", "target": "orc"}
    assert refused(table, web).code == "cast/no-components"


# --- Mana -------------------------------------------------------------------------------------


def _wizard(finch_wins: bool = True) -> Table:
    """A 3rd-level wizard: 4 mana points (§5 table), spells up to 2nd level."""
    return _finch_and_the_orc(
        finch_wins, finch={"caster": {"kind": "wizard", "level": 3}}, mana="points"
    )


def test_casting_draws_the_spells_level_from_the_mana_pool() -> None:
    """combat-ii §5 Mana System I: "Each spell conversely draws a number of points equal to
    its level from the collective pool"."""
    table = _wizard()
    assert state_of(table).table.combatants["finch"].pools["mana"].current == 4

    phase = _both(table, _cast("web"), STAND)

    drawn = [d for d in data_of(phase, "resource-adjusted") if d["resource"] == "mana"]
    assert [(d["before"], d["after"]) for d in drawn] == [(4, 2)]
    kinds = table.types(phase)
    assert kinds.index("resource-adjusted") < kinds.index("spell-begun")
    assert table.replayed() == table.state


def test_a_spell_the_pool_cannot_pay_for_is_refused() -> None:
    table = _wizard()
    _both(table, _cast("blur", target=None), STAND)
    _to_next_round(table)
    _both(table, _cast("blur", target=None), STAND)  # 2 -> 0
    _to_next_round(table)
    declare(table, "orc", "stand")
    missile = {"type": "cast", "combatant_id": "finch", "spell": "magic missile", "target": "orc"}
    assert refused(table, missile).code == "cast/no-mana"


def test_a_spell_above_the_casters_highest_level_is_refused() -> None:
    """combat-ii §5: "The priest may not cast spells of a higher level than the PH
    progression charts allows" (a 3rd-level wizard: 2nd)."""
    table = _wizard()
    declare(table, "orc", "stand")
    fireball = {"type": "cast", "combatant_id": "finch", "spell": "fireball", "target": "orc"}
    assert refused(table, fireball).code == "cast/no-mana"


def test_a_ruined_spell_has_still_drawn_its_mana() -> None:
    """Interpretation (documented in casting.begin): the pool pays when the casting begins."""
    table = _wizard(finch_wins=False)  # the web would go off at 4; the club lands at 3
    phase = _both(table, _cast("web"), CLUBS_FINCH, dice=[15, 3])
    assert "spell-ruined" in table.types(phase)
    assert state_of(table).table.combatants["finch"].pools["mana"].current == 2


@pytest.mark.parametrize(
    ("system", "rounds", "completes"),
    [
        ("I", 1, "at the end of the round"),
        ("I", 2, "at the end of round 2"),
        ("II", 1, "in 3 phases"),
        ("II", 2, "in 6 phases"),
    ],
)
def test_spell_begun_says_when_a_spell_in_rounds_completes(
    system: str, rounds: int, completes: str
) -> None:
    """§1 G and §3 B: a spell of N rounds ends at the end of the Nth round (System I), or after
    3N phases (System II: "three phases = one round")."""
    ritual = {"name": "ritual", "level": 1, "rounds": rounds, "components": "V"}
    table = duel(fighter={"spells": [ritual]}, phase_system=system)
    stand(table, "ogre")

    stored = table.send({"type": "cast", "combatant_id": "fighter", "spell": "ritual"})

    begun = [e.data for e in stored if e.type == "spell-begun"]
    assert [b["completes"] for b in begun] == [completes]
