"""combat-ii §1 E Simultaneous Actions: "Declared targets may not be changed once the moment
of impact has arrived, though the action may be canceled; however, a checked swing or a
voluntarily interruption of a spell still constitutes an attack or the casting for the
round."

The fighter (pcs) wins the initiative; the ogre (one club attack a round) declares first."""

from __future__ import annotations

from service.domain.context import GM
from service.rules.combat_ii import RULESET
from tests.rules.combat_ii.cast import attack, duel, fighter_of, only, stand
from tests.rules.combat_ii.given import refused, state_of
from tests.rules.harness import Table

CANCEL_OGRE = {"type": "cancel", "combatant_id": "ogre"}
CANCEL_FIGHTER = {"type": "cancel", "combatant_id": "fighter"}
LONG_SPELL = {"name": "cone of cold", "level": 5, "ct": 5, "components": "VS", "damage": "2d4"}
BOLT = {"name": "bolt", "level": 1, "ct": 1, "components": "VS", "damage": "1d4"}


def _casting_fighter() -> Table:
    """The fighter begins a CT 5 spell in phase 1: in phase 2 it continues by itself."""
    table = duel(fighter={"spells": [LONG_SPELL, BOLT]})
    stand(table, "ogre")
    table.send(
        {"type": "cast", "combatant_id": "fighter", "spell": "cone of cold", "target": "ogre"}
    )
    assert state_of(table).intentions["fighter"].kind == "continue"
    return table


def test_a_cancelled_attack_is_not_made_but_still_counts_as_the_attack() -> None:
    """The ogre's club is called off before the phase resolves: no to-hit roll, it stands,
    and its one attack of the round is spent ("a checked swing ... still constitutes an
    attack")."""
    table = duel()
    attack(table, "ogre", "fighter")

    cancelled = table.send(CANCEL_OGRE)

    assert only(cancelled, "intention-cancelled") == {
        "combatant_id": "ogre", "what": "attack", "spell": None, "weapons": ["club"],
    }  # fmt: skip
    assert state_of(table).intentions["ogre"].kind == "stand"
    phase = stand(table, "fighter")
    assert "attack-rolled" not in table.types(phase)
    assert fighter_of(table, "ogre").used == {"club": 1}
    assert (
        refused(table, {"type": "attack", "combatant_id": "ogre", "targets": ["fighter"]}).code
        == "attack/none-left"
    )
    assert table.replayed() == table.state


def test_a_cancelled_cast_is_the_casting_for_the_round() -> None:
    table = duel(ogre={"spells": [BOLT]})
    table.send({"type": "cast", "combatant_id": "ogre", "spell": "bolt", "target": "fighter"})

    table.send(CANCEL_OGRE)
    phase = stand(table, "fighter")

    assert "spell-begun" not in table.types(phase)
    again = {"type": "cast", "combatant_id": "ogre", "spell": "bolt", "target": "fighter"}
    assert refused(table, again).code == "cast/one-per-round"


def test_an_interrupted_spell_is_lost_and_the_caster_declares_again() -> None:
    """The fighter interrupts its spell in progress: the casting ends, and it may move or
    stand this phase but neither attack nor cast again this round."""
    table = _casting_fighter()

    cancelled = table.send(CANCEL_FIGHTER)

    assert only(cancelled, "intention-cancelled")["what"] == "spell"
    assert fighter_of(table, "fighter").casting is None
    assert "fighter" not in state_of(table).intentions
    stand(table, "ogre")
    assert refused(
        table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    ).code == ("attack/casting-this-round")
    bolt = {"type": "cast", "combatant_id": "fighter", "spell": "bolt", "target": "ogre"}
    assert refused(table, bolt).code == "cast/one-per-round"
    phase = stand(table, "fighter")
    assert "spell-completed" not in table.types(phase)
    assert table.replayed() == table.state


def test_under_system_ii_an_interrupted_spell_starts_the_casting_delay() -> None:
    """§3 B: the delay after a spell; the interruption is "the casting"."""
    table = duel(fighter={"spells": [LONG_SPELL, BOLT]}, phase_system="II")
    stand(table, "ogre")
    table.send(
        {"type": "cast", "combatant_id": "fighter", "spell": "cone of cold", "target": "ogre"}
    )

    table.send(CANCEL_FIGHTER)
    stand(table, "ogre")
    stand(table, "fighter")

    bolt = {"type": "cast", "combatant_id": "fighter", "spell": "bolt", "target": "ogre"}
    stand(table, "ogre")
    assert refused(table, bolt).code == "cast/delay"


def test_nothing_to_cancel_is_refused_and_says_why() -> None:
    table = duel()
    nothing = refused(table, CANCEL_OGRE)
    table.send({"type": "move", "combatant_id": "ogre", "to": [5, 0], "mode": "withdraw"})
    moving = refused(table, CANCEL_OGRE)

    assert (nothing.code, moving.code) == ("cancel/nothing", "cancel/nothing")
    assert "has declared nothing this phase" in nothing.message
    assert "it declared move" in moving.message
    assert state_of(table).intentions["ogre"].kind == "move"


def test_a_cancel_is_offered_for_a_declared_attack_and_a_spell_in_progress() -> None:
    casting = _casting_fighter()
    attacking = duel()
    attack(attacking, "ogre", "fighter")

    def offered(table: Table) -> set[tuple[str, str | None]]:
        return {(a.type, a.actor) for a in RULESET.legal_actions(state_of(table), GM)}

    assert ("cancel", "fighter") in offered(casting)
    assert ("cancel", "ogre") in offered(attacking)
    assert ("cancel", "fighter") not in offered(attacking)
