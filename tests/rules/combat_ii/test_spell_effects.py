"""What a spell does when it goes off (combat-ii §2 A, §3 B, §4 Agility, and the PH the seed
defers to): its range, its area catching friend and foe, one damage roll for all with a
saving throw each, AGI's Defensive Adjustment on saves against what can be dodged, and the
condition it leaves for its duration.

Finchfingle (pcs, winning initiative) stands at (0, 0) with his squire at (4, 0); three orcs
stand at (5, 0), (6, 1) and (7, 0). The orcs lose, so they declare first and Finch's
declaration resolves the phase."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from service.rules.combat_ii import initiative
from tests.rules.combat_ii.cast import effects, fighter_of
from tests.rules.combat_ii.given import (
    LONG_SWORD,
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

FIREBALL = {
    "name": "fireball", "level": 3, "ct": 1, "components": "VS", "damage": "2d6",
    "range": 10, "area": 1, "save": {"effect": "half"},
}  # fmt: skip
HOLD = {
    "name": "hold person", "level": 2, "ct": 1, "components": "VS", "range": 12,
    "save": {"effect": "negates"}, "duration": 2, "condition": "held",
}  # fmt: skip
SLEEP = {
    "name": "sleep", "level": 1, "ct": 1, "components": "VS", "range": 6, "area": 1,
    "duration": 5, "condition": "asleep",
}  # fmt: skip
BLAST = {"name": "blast", "level": 1, "ct": 4, "components": "VS", "damage": "1d6", "range": 6}
GHOUL_TOUCH = {
    "name": "ghoul touch", "level": 2, "ct": 1, "components": "VS", "touch": True,
    "save": {"against": "paralyzation", "effect": "negates"}, "duration": 1,
    "condition": "held",
}  # fmt: skip
BLUR = {
    "name": "blur",
    "level": 2,
    "ct": 1,
    "components": "V",
    "duration": 1,
    "condition": "blurred",
}
FINCH = {
    "hp": 12, "thac0": 20, "ac": 8, "weapons": [{"name": "dagger", "speed": 2, "damage": "1d4"}],
    "spells": [FIREBALL, HOLD, SLEEP, BLAST, GHOUL_TOUCH, BLUR],
}  # fmt: skip
SQUIRE = {"hp": 20, "thac0": 18, "ac": 5, "weapons": [LONG_SWORD], "saves": {"spell": 12}}
ORC_ = {**ORC, "hp": 20, "saves": {"spell": 14, "paralyzation": 13}}
ORCS = ("grub", "snag", "wort")


def _scene(squire: dict[str, Any] | None = None, **options: Any) -> Table:
    table = encounter(**options)
    line_map(table)
    add(table, "finch", "pcs", FINCH, at=(0, 0), name="Finchfingle")
    add(table, "squire", "pcs", {**SQUIRE, **(squire or {})}, at=(4, 0))
    for cid, cell in zip(ORCS, [(5, 0), (6, 1), (7, 0)], strict=True):
        add(table, cid, "orcs", ORC_, at=cell)
    start(table, initiative=[7, 3])
    return table


def _cast(table: Table, dice: list[int] | None = None, **cast: Any) -> list[Envelope]:
    """Everyone else stands; Finch casts (his declaration resolves the phase)."""
    stand(table, *ORCS, "squire")
    return declare(table, "finch", "cast", dice=dice, **cast)


def _save_of(stored: list[Envelope], cid: str) -> dict[str, Any]:
    return next(s for s in data_of(stored, "save-rolled") if s["combatant_id"] == cid)


def _stand_through(table: Table, tick: int) -> list[Envelope]:
    """Everyone who must declare stands until phase tick `tick` has ended; each new round's
    initiative goes the pcs' way again."""
    stored: list[Envelope] = []
    while state_of(table).tick <= tick:
        state = state_of(table)
        left = [c.id for c in initiative.fighting(state) if c.id not in state.intentions]
        dice = [7, 3] if len(left) == 1 and state.phase == 3 else None
        stored += declare(table, sorted(left, key=lambda c: c not in ORCS)[0], "stand", dice=dice)
    return stored


# --- Areas, one damage roll, a save each ----------------------------------------------------


def test_an_area_spell_catches_everyone_in_it_friend_or_foe() -> None:
    """§2 A Holding a Spell: a caster waits "allowing allies to clear the area": an area
    does not tell friend from foe. The fireball at (5, 0), radius 1, catches Grub there,
    Snag at (6, 1) and the squire at (4, 0); Wort at (7, 0) is two squares off."""
    table = _scene()

    phase = _cast(table, [3, 4, 1, 1, 1], spell="fireball", at=[5, 0])

    done = one(phase, "spell-completed")
    assert (done["at"], done["affected"]) == ({"x": 5, "y": 0}, ["grub", "snag", "squire"])
    assert [hp(table, c) for c in ("grub", "snag", "wort", "squire", "finch")] == [
        13, 13, 20, 13, 12,
    ]  # fmt: skip
    assert table.replayed() == table.state


def test_the_damage_is_rolled_once_and_each_save_halves_its_own_share() -> None:
    """PH: one roll for everyone caught; Grub saves (14 against 14) and takes half of 7,
    rounded down; Snag (13) and the squire (11 against 12) take all of it."""
    table = _scene()

    phase = _cast(table, [3, 4, 14, 13, 11], spell="fireball", at=[5, 0])

    saves = [
        (s["combatant_id"], s["roll"], s["needed"], s["saved"])
        for s in data_of(phase, "save-rolled")
    ]
    assert saves == [("grub", 14, 14, True), ("snag", 13, 14, False), ("squire", 11, 12, False)]
    damage = {d["target"]: (d["amount"], d["how"]) for d in data_of(phase, "damage-rolled")}
    assert damage == {
        "grub": (3, "spell, saved for half"), "snag": (7, "spell"), "squire": (7, "spell"),
    }  # fmt: skip
    assert [hp(table, c) for c in ("grub", "snag", "squire")] == [17, 13, 13]


def test_a_stat_block_without_saves_uses_the_zero_level_characters() -> None:
    """DMG Table 60's 0-level row stands in for saves a stat block leaves out: 19 against
    spells."""
    table = _scene(squire={"saves": {}})

    phase = _cast(table, [3, 4, 1, 1, 18], spell="fireball", at=[5, 0])

    squire = _save_of(phase, "squire")
    assert (squire["needed"], squire["saved"]) == (19, False)


@pytest.mark.parametrize(
    ("options", "squire", "roll", "bonus", "saved"),
    [
        ({"agility": True}, {"agility": 17, "dexterity": 10}, 9, 3, True),
        ({}, {"agility": 17, "dexterity": 10}, 9, 0, False),
        ({}, {"dexterity": 16}, 10, 2, True),
        ({"agility": True}, {"agility": 10, "dexterity": 18}, 10, 0, False),
    ],
    ids=["agility-17-saves", "agility-off-dex-10", "dex-16-without-agility", "agility-10-dex-18"],
)
def test_the_defensive_adjustment_adds_to_saves_against_what_can_be_dodged(
    options: dict[str, Any], squire: dict[str, Any], roll: int, bonus: int, saved: bool
) -> None:
    """§4 Agility: "AGI determines 'Defensive Adjustment' for both AC and saves" (PH
    Table 2: against attacks that can be dodged); without the option it is DEX's. A -3 to
    AC is +3 to the save."""
    table = _scene(squire=squire, **options)

    phase = _cast(table, [3, 4, 1, 1, roll], spell="fireball", at=[5, 0])

    mine = _save_of(phase, "squire")
    assert (mine["bonus"], mine["saved"]) == (bonus, saved)


def test_no_defensive_adjustment_against_a_spell_that_cannot_be_dodged() -> None:
    """Hold person has no area: a DEX 18 squire's -4 does not help the save."""
    table = _scene(squire={"dexterity": 18})

    phase = _cast(table, [11], spell="hold person", target="squire")

    save = one(phase, "save-rolled")
    assert (save["bonus"], save["saved"]) == (0, False)


# --- Conditions and durations --------------------------------------------------------------


def test_a_failed_save_leaves_the_condition_for_its_duration() -> None:
    """Hold person, 2 rounds, cast in phase tick 1: Grub is held through phase tick 7 (two
    rounds of three phases, §3 B Spell Duration)."""
    table = _scene()

    phase = _cast(table, [2], spell="hold person", target="grub")

    assert one(phase, "effect-applied")["effect"]["source"] == "hold person"
    assert effects(table, "grub") == {"held": 7}


def test_a_save_negates_the_condition() -> None:
    table = _scene()

    phase = _cast(table, [14], spell="hold person", target="grub")

    assert one(phase, "save-rolled")["saved"] is True
    assert "effect-applied" not in table.types(phase)
    assert effects(table, "grub") == {}


def test_a_held_creature_does_nothing_and_is_a_defenceless_target() -> None:
    """Held, Grub can neither attack nor move (its phase is declared for it), and the
    squire's blow needs 4 less: AC 6 is AC 10 against a target that cannot dodge (§2 C
    Stationary, Defenseless Target)."""
    table = _scene()
    _cast(table, [2], spell="hold person", target="grub")

    assert state_of(table).intentions["grub"].kind == "helpless"
    stand(table, "snag", "wort", "finch")
    blow = declare(table, "squire", "attack", targets=["grub"], dice=[8, 3])

    rolled = one(blow, "attack-rolled")
    assert (rolled["needed"], rolled["hit"]) == (18 - 10, True)


def test_the_condition_ends_with_the_phase_its_duration_runs_out_in() -> None:
    """§3 B: "Spells remain in effect until the end of the appropriate phase": held
    through tick 7, Grub is free to declare in tick 8."""
    table = _scene()
    _cast(table, [2], spell="hold person", target="grub")

    stored = _stand_through(table, 6)
    assert effects(table, "grub") == {"held": 7}
    stored = _stand_through(table, 7)

    assert {"combatant_id": "grub", "name": "held"} in data_of(stored, "effect-ended")
    assert state_of(table).tick == 8
    assert "grub" not in state_of(table).intentions


def test_under_system_ii_a_condition_expires_at_the_end_of_the_same_phase_next_round() -> None:
    """§3 B: "if a spell cast in phase B lasts one round, it expires at the end of the next
    phase B after all movement and combat has been resolved". Hold person for 2 rounds,
    cast in phase B (tick 2), lasts through the B of two rounds on (tick 8)."""
    table = _scene(phase_system="II")
    _stand_through(table, 1)
    assert state_of(table).phase == 2
    _cast(table, [2], spell="hold person", target="grub")

    stored = _stand_through(table, 8)

    ended = [e for e in stored if e.type in ("effect-ended", "phase-ended")]
    at = next(i for i, e in enumerate(ended) if e.type == "effect-ended")
    assert ended[at].data == {"combatant_id": "grub", "name": "held"}
    assert (ended[at + 1].data["round"], ended[at + 1].data["phase"]) == (3, 2)


def test_sleep_is_broken_by_a_wound() -> None:
    """PH: sleeping creatures wake when wounded. Sleep (no save) at (6, 0) catches the three
    orcs for 5 rounds; the squire strikes Grub, who wakes as the blow lands."""
    table = _scene()
    _cast(table, [], spell="sleep", at=[6, 0])
    assert {c: effects(table, c) for c in ORCS} == {c: {"asleep": 16} for c in ORCS}
    assert all(state_of(table).intentions[c].kind == "helpless" for c in ORCS)

    declare(table, "finch", "stand")
    blow = declare(table, "squire", "attack", targets=["grub"], dice=[10, 3])

    assert {"combatant_id": "grub", "name": "asleep"} in data_of(blow, "effect-ended")
    assert effects(table, "grub") == {}
    assert effects(table, "snag") == {"asleep": 16}


def test_a_condition_the_rules_do_not_play_is_kept_and_shown() -> None:
    """Blur, cast at no one, leaves "blurred" on Finch himself for a round: tracked and
    shown on his sheet, its effect the GM's."""
    table = _scene()

    _cast(table, [], spell="blur")

    assert effects(table, "finch") == {"blurred": 4}
    assert fighter_of(table, "finch").effect("blurred").source == "blur"  # type: ignore[union-attr]


def test_a_touch_spell_s_condition_lands_with_the_touch_unless_saved() -> None:
    """§2 A Touch Spells: the touch delivers the spell: ghoul touch's paralysis, save vs
    paralyzation (13) negates: 12 fails."""
    table = _scene()
    table.send({"type": "place-token", "combatant_id": "grub", "cell": [1, 0]})
    _cast(table, [], spell="ghoul touch")

    stand(table, *ORCS, "squire")
    touched = declare(table, "finch", "touch", target="grub", dice=[15, 12])

    assert one(touched, "save-rolled")["against"] == "paralyzation"
    assert effects(table, "grub") == {"held": 5}


# --- Range and aim ---------------------------------------------------------------------------


def test_a_target_beyond_the_spells_range_is_refused() -> None:
    table = _scene()
    table.send({"type": "place-token", "combatant_id": "wort", "cell": [11, 0]})
    stand(table, *ORCS, "squire")

    violation = refused(
        table, {"type": "cast", "combatant_id": "finch", "spell": "fireball", "target": "wort"}
    )

    assert violation.code == "cast/out-of-range"
    assert "reaches 10 squares; Wort is 11 away" in violation.message


def test_a_target_who_moves_out_of_range_before_the_spell_goes_off_escapes_it() -> None:
    """Range is measured when the spell goes off ("Spell or Missile Range is ... often
    requiring precision", §2 D): the CT 4 blast (range 6) begun in phase 1 goes off in
    phase 2; Snag, 6 squares off, walks 3 squares away in phase 1's movement."""
    table = _scene()
    for cid in ("grub", "wort"):
        declare(table, cid, "stand")
    declare(table, "snag", "move", to=[9, 1], path=[[6, 1], [7, 1], [8, 1], [9, 1]])
    declare(table, "squire", "stand")
    declare(table, "finch", "cast", spell="blast", target="snag")
    assert state_of(table).table.combatants["snag"].position.x == 9  # type: ignore[union-attr]

    phase = _stand_through(table, 2)

    done = one(phase, "spell-completed")
    assert (done["out_of_range"], done["affected"]) == (True, [])
    assert "damage-rolled" not in table.types(phase)
    assert hp(table, "snag") == 20


@pytest.mark.parametrize(
    ("cast", "code"),
    [
        ({"spell": "hold person", "at": [5, 0]}, "cast/no-area"),
        ({"spell": "fireball", "at": [5, 0], "target": "grub"}, "cast/two-aims"),
        ({"spell": "fireball", "at": [50, 0]}, "map/off-map"),
        ({"spell": "fireball", "at": [11, 0]}, "cast/out-of-range"),
    ],
    ids=["no-area", "two-aims", "off-map", "square-out-of-range"],
)
def test_an_aim_the_spell_does_not_allow_is_refused(cast: dict[str, Any], code: str) -> None:
    table = _scene()
    stand(table, *ORCS, "squire")

    violation = refused(table, {"type": "cast", "combatant_id": "finch", **cast})

    assert violation.code == code
    assert state_of(table).intentions.get("finch") is None


def test_a_condition_without_a_duration_is_refused_in_the_stat_block() -> None:
    table = encounter()
    spell = {"name": "curse", "condition": "cursed"}

    violation = refused(
        table,
        {
            "type": "add-combatant", "combatant_id": "hag", "name": "Hag", "side": "hags",
            "stats": {"spells": [spell]},
        },
    )  # fmt: skip

    assert "give its duration" in violation.message
