"""combat-ii §2 B Psionics: "Some psionic abilities enhance physical blows and should allow
subsequent physical attacks in later phases. Others preclude physical engagement in the
fashion of magic use. SPECIAL OPTION: Tangents may be established at one per phase (our
group allows up to 3 per round instead of the normal two to allow the psionicist to take
advantage of contact next round)."

The fighter (pcs, THAC0 10, long sword 1d8) wins every initiative over the ogre (AC 5); the
ogre declares first and the fighter's declaration resolves the phase."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import attack, duel, effects, fighter_of, only, stand
from tests.rules.combat_ii.given import data_of, refused, state_of
from tests.rules.harness import Table

EXPANSION = {"name": "expansion", "psionic": True, "blows": 2, "duration": 1, "components": ""}
CONTACT = {"name": "contact", "psionic": True, "tangent": True, "components": ""}
MIND_THRUST = {"name": "mind thrust", "psionic": True, "damage": "1d4", "components": ""}
POWERS = [EXPANSION, CONTACT, MIND_THRUST]


def _psionicist(**options: Any) -> Table:
    return duel(fighter={"spells": POWERS}, **options)


def _use(
    table: Table, power: str, target: str | None = "ogre", dice: list[int] | None = None
) -> list[Envelope]:
    stand(table, "ogre")
    command = {"type": "cast", "combatant_id": "fighter", "spell": power}
    return table.send({**command, **({"target": target} if target else {})}, dice=dice)


def _to_next_round(table: Table) -> None:
    round_now = state_of(table).round
    while state_of(table).round == round_now:
        last = state_of(table).phase == 3
        stand(table, "ogre")
        stand(table, "fighter", dice=[7, 3] if last else None)


# --- Powers that enhance physical blows ------------------------------------------------------


def test_a_power_that_enhances_blows_lets_its_user_attack_in_later_phases() -> None:
    """Expansion (+2 to hit and damage for a round) in phase 1; in phase 2 the fighter swings:
    THAC0 10 against AC 5 needs 5, 3 with the power; the long sword's 4 deals 6."""
    table = _psionicist()
    _use(table, "expansion", target=None)
    assert effects(table, "fighter") == {"enhanced-blows": 4}

    stand(table, "ogre")
    swing = attack(table, "fighter", "ogre", dice=[3, 4])

    rolled = only(swing, "attack-rolled")
    assert (rolled["needed"], rolled["hit"]) == (3, True)
    assert only(swing, "damage-rolled")["amount"] == 6
    assert table.replayed() == table.state


def test_any_other_power_precludes_physical_attacks_in_its_round() -> None:
    table = _psionicist()
    _use(table, "mind thrust", dice=[2])

    stand(table, "ogre")
    swing = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    assert refused(table, swing).code == "attack/casting-this-round"


def test_an_enhancing_power_is_still_the_rounds_casting() -> None:
    table = _psionicist()
    _use(table, "expansion", target=None)

    stand(table, "ogre")
    thrust = {"type": "cast", "combatant_id": "fighter", "spell": "mind thrust", "target": "ogre"}
    assert refused(table, thrust).code == "cast/one-per-round"


def test_the_enhancement_ends_with_its_duration() -> None:
    table = _psionicist()
    _use(table, "expansion", target=None)
    _to_next_round(table)
    assert effects(table, "fighter") == {"enhanced-blows": 4}

    stand(table, "ogre")
    stand(table, "fighter")

    assert effects(table, "fighter") == {}


def test_under_system_ii_an_enhancing_power_starts_no_attack_delay() -> None:
    """§3 B: after a spell "the caster must wait two phases before ... attacking physically";
    a power that enhances blows lets them follow at once."""
    table = _psionicist(phase_system="II")
    _use(table, "expansion", target=None)

    stand(table, "ogre")
    swing = attack(table, "fighter", "ogre", dice=[3, 4])

    assert only(swing, "attack-rolled")["hit"] is True


def test_under_system_ii_any_other_power_starts_the_attack_delay() -> None:
    table = _psionicist(phase_system="II")
    _use(table, "mind thrust", dice=[2])

    stand(table, "ogre")
    swing = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    assert refused(table, swing).code == "attack/delay"


# --- Tangents ----------------------------------------------------------------------------


def test_a_contact_power_establishes_a_tangent_each_phase_and_three_make_contact() -> None:
    """Two a round by default: phases 1 and 2, then phase 1 of the next round."""
    table = _psionicist()
    first = _use(table, "contact")
    second = _use(table, "contact")
    stand(table, "ogre")
    stand(table, "fighter", dice=[7, 3])  # phase 3: the round's two are made

    third = _use(table, "contact")

    made = [only(p, "tangent-established") for p in (first, second, third)]
    assert [(m["tangents"], m["contact"]) for m in made] == [(1, False), (2, False), (3, True)]
    assert fighter_of(table, "fighter").tangents == {"ogre": 3}
    assert table.replayed() == table.state


@pytest.mark.parametrize(("per_round", "allowed"), [(2, False), (3, True)])
def test_the_third_tangent_in_a_round_needs_the_seeds_group_option(
    per_round: int, allowed: bool
) -> None:
    """ "our group allows up to 3 per round instead of the normal two"."""
    table = _psionicist(tangents_per_round=per_round)
    _use(table, "contact")
    _use(table, "contact")

    stand(table, "ogre")
    third = {"type": "cast", "combatant_id": "fighter", "spell": "contact", "target": "ogre"}
    if not allowed:
        violation = refused(table, third)
        assert violation.code == "cast/tangents"
        assert "2 tangents already this round" in violation.message
        return
    made = table.send(third, dice=[7, 3])  # phase 3: the next round's initiative too
    assert only(made, "tangent-established")["contact"] is True


def test_tangents_are_not_the_rounds_casting_but_preclude_blows() -> None:
    """A tangent in phase 1 leaves the round's casting free (mind thrust in phase 2) but,
    like magic, no physical attack."""
    table = _psionicist()
    _use(table, "contact")

    stand(table, "ogre")
    swing = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    assert refused(table, swing).code == "attack/casting-this-round"
    thrust = table.send(
        {"type": "cast", "combatant_id": "fighter", "spell": "mind thrust", "target": "ogre"},
        dice=[2],
    )
    assert only(thrust, "spell-completed")["spell"] == "mind thrust"


def test_a_contact_power_needs_a_target() -> None:
    table = _psionicist()
    stand(table, "ogre")

    at_no_one = {"type": "cast", "combatant_id": "fighter", "spell": "contact"}

    assert refused(table, at_no_one).code == "cast/no-target"


def test_a_saved_against_contact_power_makes_no_tangent() -> None:
    table = duel(fighter={"spells": [{**CONTACT, "save": {"effect": "negates"}}]})

    made = _use(table, "contact", dice=[20])

    assert data_of(made, "tangent-established") == []
    assert fighter_of(table, "fighter").tangents == {}


@pytest.mark.parametrize(
    ("power", "message"),
    [
        ({"name": "x", "blows": 1, "duration": 1}, "only a psionic power enhances blows"),
        ({"name": "x", "tangent": True}, "only a psionic power enhances blows or makes tangents"),
        ({"name": "x", "psionic": True, "blows": 1}, "enhances blows: give its duration"),
    ],
)
def test_a_power_the_rules_cannot_play_is_refused_in_the_stat_block(
    power: dict[str, Any], message: str
) -> None:
    table = duel()
    add = {
        "type": "add-combatant", "combatant_id": "seer", "name": "Seer", "side": "pcs",
        "stats": {"spells": [power]},
    }  # fmt: skip
    assert message in refused(table, add).message
