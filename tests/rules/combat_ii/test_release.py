"""§2 A Holding a Spell and Movement and Spellcasting: a held spell let go early, in the
movement portion of the phase. "Initiative winners may elect to release a spell before,
after, or at midpoint of the loser's movement. Losers automatically cast their spells at the
end of all movement. Winners casting spells at other winners do so at midpoint of winner's
movement."

The fighter (initiative winner) casts a CT 1 bolt with 3 CT of hold in phase 1: after that
phase only the hold is left. In phase 2 the ogre (loser) walks 4 squares away from (3, 0)
and the fighter lets the bolt go; its d4 is the only die."""

from __future__ import annotations

from typing import Any

from service.domain.context import GM
from service.domain.envelope import Envelope
from service.rules.combat_ii import RULESET
from tests.rules.combat_ii.cast import duel, only, stand
from tests.rules.combat_ii.given import refused, state_of
from tests.rules.harness import Table

BOLT = {"name": "bolt", "level": 1, "ct": 1, "components": "V", "damage": "1d4"}


def holding(ogre_at: tuple[int, int] = (3, 0)) -> Table:
    table = duel(fighter={"spells": [BOLT]}, ogre_at=ogre_at)
    stand(table, "ogre")
    table.send({"type": "cast", "combatant_id": "fighter", "spell": "bolt", "target": "ogre",
                "hold": 3})  # fmt: skip
    casting = state_of(table).fighters["fighter"].casting
    assert casting is not None and 0 < casting.left <= casting.hold  # only the hold is left
    return table


def let_go(table: Table, **release: Any) -> list[Envelope]:
    table.send({"type": "move", "combatant_id": "ogre", "to": [9, 0]})
    return table.send({"type": "release", "combatant_id": "fighter", **release}, dice=[3])


def sequence(stored: list[Envelope]) -> list[str]:
    """The movement portion as it happened: each `moved` of the ogre and the bolt."""
    out = []
    for e in stored:
        if e.type == "moved":
            out.append(f"ogre to {e.data['path'][-1]['x']}")
        elif e.type == "spell-completed":
            out.append("bolt")
    return out


def test_a_winner_releases_before_the_losers_movement() -> None:
    table = holding()
    stored = let_go(table, timing="before")
    assert sequence(stored) == ["bolt", "ogre to 7"]
    assert only(stored, "damage-rolled")["amount"] == 3
    assert state_of(table).fighters["fighter"].casting is None
    assert table.replayed() == table.state


def test_a_winner_releases_at_the_midpoint_of_the_losers_movement() -> None:
    table = holding()
    stored = let_go(table, timing="midpoint")
    assert sequence(stored) == ["ogre to 5", "bolt", "ogre to 7"]
    assert table.replayed() == table.state


def test_a_winner_releases_after_the_losers_movement() -> None:
    table = holding()
    stored = let_go(table, timing="after")
    assert sequence(stored) == ["ogre to 7", "bolt"]
    assert table.replayed() == table.state


def test_a_released_spell_does_not_also_go_off_at_its_half_segment() -> None:
    """Without the release the hold runs out in phase 2's first CT unit, before movement."""
    kept, released = holding(), holding()
    kept.send({"type": "move", "combatant_id": "ogre", "to": [9, 0]})
    on_time = kept.send({"type": "stand", "combatant_id": "fighter"}, dice=[3])
    late = let_go(released, timing="after")

    assert sequence(on_time) == ["bolt", "ogre to 7"]
    assert sequence(late) == ["ogre to 7", "bolt"]  # once, after the movement
    assert only(on_time, "spell-completed")["half_segment"] < 12


def test_losers_release_only_after_all_movement() -> None:
    """The ogre (loser) holds a bolt; its release must be 'after'."""
    table = duel(ogre={"spells": [BOLT]}, ogre_at=(3, 0))
    table.send({"type": "cast", "combatant_id": "ogre", "spell": "bolt", "target": "fighter",
                "hold": 3})  # fmt: skip
    stand(table, "fighter")
    early = {"type": "release", "combatant_id": "ogre", "timing": "before"}
    assert refused(table, early).code == "release/losers-after-movement"
    table.send({"type": "release", "combatant_id": "ogre"})
    stored = table.send({"type": "move", "combatant_id": "fighter", "to": [0, 3]}, dice=[2])
    kinds = [e.type for e in stored]
    assert kinds.index("moved") < kinds.index("spell-completed")
    assert table.replayed() == table.state


def test_nothing_held_nothing_to_release() -> None:
    table = duel(fighter={"spells": [BOLT]})
    stand(table, "ogre")
    release = {"type": "release", "combatant_id": "fighter"}
    assert refused(table, release).code == "release/nothing-held"


def test_the_holder_is_offered_the_release_with_its_timings() -> None:
    table = holding()
    table.send({"type": "move", "combatant_id": "ogre", "to": [9, 0]})
    offered = {
        a.type: a for a in RULESET.legal_actions(state_of(table), GM) if a.actor == "fighter"
    }
    assert offered["release"].params == {"timing": ["before", "midpoint", "after"]}
