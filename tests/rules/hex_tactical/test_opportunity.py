"""hex-tactical Attacks of Opportunity: what raises one (leaving a threatened cell for an
unthreatened one, a provoking use of a skill, a non-weapon item used in a threatened cell),
what does not (a skill that does not provoke, combat maneuvers, ranged attacks, a step that
stays in the same enemy's threat, an enemy busy in its own melee), the threatener's Initiative
check, one normal weapon attack (a maneuver only with a trait), no limit per turn, and the
pause of everything else until the opportunity is resolved.

Every roll is a table die, in order: the threatener's Initiative d100, its attack d100, the
target's answer, the damage; then whatever the resumed action rolls.
"""

from __future__ import annotations

from typing import Any

from service.domain.envelope import Envelope
from service.rules.hex_tactical.state import MANEUVER_OPPORTUNIST
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    PLAYER,
    SPEAR,
    add,
    answer,
    encounter,
    first,
    hex_map,
    position,
    refused,
    start,
    state_of,
    types,
    window_for,
)


def move(
    table: Table,
    cid: str,
    to: tuple[int, int],
    path: list[tuple[int, int]] | None = None,
    dice: list[int] | None = None,
) -> list[Envelope]:
    command: dict[str, Any] = {"type": "move", "combatant_id": cid, "to": list(to)}
    if path is not None:
        command["path"] = [list(cell) for cell in path]
    return table.send(command, dice=dice)


def end_turn(table: Table, cid: str) -> list[Envelope]:
    return table.send({"type": "end-turn", "combatant_id": cid})


def options(table: Table, cid: str) -> tuple[str, ...]:
    return state_of(table).table.windows[window_for(table, cid)].eligible[cid]


def hp(table: Table, cid: str) -> int:
    return state_of(table).table.combatants[cid].pools["hp"].current


def alice_and_bob(in_melee: bool = True, **bob: Any) -> Table:
    """Alice (4, 5) and Bob (5, 5), both with swords; Alice swung at Bob and missed (so the
    two are in melee) and it is now Bob's turn."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs", skills={"melee": 60})
    add(table, "bob", (5, 5), **bob)
    start(table, 1, 50)
    if in_melee:
        table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])
    end_turn(table, "alice")
    assert state_of(table).current == "bob"
    return table


# --- leaving a threatened cell --------------------------------------------------------------


def test_bob_breaking_away_from_alice_gives_her_an_attack_of_opportunity():
    table = alice_and_bob()

    envelopes = move(table, "bob", (7, 5))

    assert types(envelopes) == ["action-begun", "opportunity-raised", "reaction-window-opened"]
    raised = first(envelopes, "opportunity-raised")
    assert (raised["threateners"], raised["reason"]) == (["alice"], "leaves")
    assert raised["cell"] == {"x": 5, "y": 5}
    assert options(table, "alice") == ("attack", "pass")
    # Everything pauses: Bob has not left his cell yet.
    assert position(table, "bob") == (5, 5)


def test_alices_attack_of_opportunity_is_an_initiative_check_then_a_normal_attack():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    envelopes = answer(table, "alice", "attack", dice=[30, 40])

    checked = first(envelopes, "opportunity-checked")
    assert (checked["combatant_id"], checked["target"]) == ("alice", "bob")
    assert checked["check"]["skill"] == "initiative" and checked["check"]["success"]
    rolled = first(envelopes, "attack-rolled")
    assert rolled["opportunity"] and rolled["weapon"] == "sword" and rolled["hit"]
    assert rolled["maneuver"] is None
    # The hit waits for Bob's answer like any other; Bob is still where he stood.
    assert options(table, "bob") == ("dodge", "parry", "pass")
    assert position(table, "bob") == (5, 5)


def test_the_move_resumes_once_the_attack_and_the_defence_are_resolved():
    table = alice_and_bob()
    move(table, "bob", (7, 5))
    answer(table, "alice", "attack", dice=[30, 40])

    envelopes = answer(table, "bob", "pass", dice=[4])

    kinds = types(envelopes)
    assert kinds.index("damage-dealt") < kinds.index("action-resumed") < kinds.index("moved")
    assert first(envelopes, "melee-ended")["reason"] == "moved-apart"
    assert position(table, "bob") == (7, 5)
    assert hp(table, "bob") == 6
    assert state_of(table).melee == ()


def test_a_failed_initiative_check_lets_the_opportunity_pass_and_the_move_go_on():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    envelopes = answer(table, "alice", "attack", dice=[51])

    assert not first(envelopes, "opportunity-checked")["check"]["success"]
    assert "attack-rolled" not in types(envelopes)
    assert "action-resumed" in types(envelopes)
    assert position(table, "bob") == (7, 5)
    assert hp(table, "bob") == 10


def test_a_threatener_that_passes_rolls_nothing_and_the_move_goes_on():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    envelopes = answer(table, "alice", "pass")

    assert "opportunity-checked" not in types(envelopes)
    assert position(table, "bob") == (7, 5)


def test_a_mover_downed_by_the_attack_of_opportunity_does_not_go_on():
    table = alice_and_bob(hp=3)
    move(table, "bob", (7, 5))
    answer(table, "alice", "attack", dice=[30, 40])

    envelopes = answer(table, "bob", "pass", dice=[5])

    assert "combatant-downed" in types(envelopes)
    cut = first(envelopes, "action-cut")
    assert (cut["combatant_id"], cut["action"]) == ("bob", "move")
    assert "moved" not in types(envelopes)
    assert position(table, "bob") == (5, 5)
    assert first(envelopes, "turn-ended")["reason"] == "out-of-fight"


def test_leaving_a_pikes_reach_provokes_two_cells_away():
    """A reach weapon threatens "as though those cells were adjacent"."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (3, 5), side="pcs", weapons=[SPEAR])
    add(table, "bob", (5, 5))
    start(table, 1, 50)
    end_turn(table, "alice")

    envelopes = move(table, "bob", (6, 5))

    assert first(envelopes, "opportunity-raised")["threateners"] == ["alice"]


def test_an_unarmed_or_ranged_threatener_threatens_nothing():
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs", weapons=[BOW])
    add(table, "dave", (5, 4), side="pcs", weapons=[])
    add(table, "bob", (5, 5))
    start(table, 1, 2, 50)
    end_turn(table, "alice")
    end_turn(table, "dave")

    envelopes = move(table, "bob", (7, 5))

    assert "opportunity-raised" not in types(envelopes)
    assert position(table, "bob") == (7, 5)


# --- steps that do not provoke ------------------------------------------------------------------


def test_a_step_from_one_cell_to_another_threatened_by_the_same_enemy_provokes_nothing():
    table = alice_and_bob(in_melee=False)

    # (4, 6) is next to Alice, as (5, 5) was.
    envelopes = move(table, "bob", (4, 6))

    assert types(envelopes) == ["action-begun", "moved"]
    assert position(table, "bob") == (4, 6)


def test_a_step_that_stays_in_melee_reach_of_the_partner_provokes_nothing():
    """Alice always threatens Bob while the two are in melee: stepping round her keeps him
    in her threat."""
    table = alice_and_bob()

    envelopes = move(table, "bob", (4, 6))

    assert types(envelopes) == ["action-begun", "moved"]
    assert state_of(table).melee == (("alice", "bob"),)


def charlie_slips_past(alice_and_bob_fight: bool) -> list[Envelope]:
    """Charlie, a thief on nobody's side, walks along row 4 past Alice (4, 5) and Bob (5, 5):
    into Alice's cells, past both, out of Bob's."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs", skills={"melee": 60})
    add(table, "bob", (5, 5))
    add(table, "charlie", (2, 4), side="thieves")
    start(table, 1, 2, 3)
    if alice_and_bob_fight:
        table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])
    end_turn(table, "alice")
    end_turn(table, "bob")
    path = [(3, 4), (4, 4), (5, 4), (6, 4), (7, 4)]
    envelopes = move(table, "charlie", (7, 4), path=path)
    while state_of(table).table.open_windows():
        window = state_of(table).table.open_windows()[0]
        envelopes += answer(table, window.waiting_for()[0], "pass")
    assert position(table, "charlie") == (7, 4)
    return envelopes


def test_charlie_slipping_past_alice_and_bob_in_melee_gives_neither_an_opportunity():
    """ "They are too busy trying to kill each other." """
    envelopes = charlie_slips_past(alice_and_bob_fight=True)

    assert "opportunity-raised" not in types(envelopes)


def test_charlie_slipping_past_alice_and_bob_not_in_melee_gives_each_an_opportunity():
    """Two opportunities in one move, from two enemies: leaving Alice's cells at (5, 4), and
    Bob's at (6, 4)."""
    envelopes = charlie_slips_past(alice_and_bob_fight=False)

    raised = [e.data for e in envelopes if e.type == "opportunity-raised"]
    assert [(r["threateners"], r["cell"]) for r in raised] == [
        (["alice"], {"x": 5, "y": 4}),
        (["bob"], {"x": 6, "y": 4}),
    ]


def test_the_same_enemy_gets_an_opportunity_on_each_occasion():
    """Bob leaves Alice's cells, comes back next to her and leaves again in one move; with
    no limit per turn, each occasion raises its own opportunity."""
    table = alice_and_bob(in_melee=False)
    # Alice (4, 5): (5, 5) is next to her, (6, 4) is not, (5, 4) is, (6, 3) is not.
    path = [(6, 4), (5, 4), (6, 3)]

    first_leaving = move(table, "bob", (6, 3), path=path)
    assert first(first_leaving, "opportunity-raised")["cell"] == {"x": 5, "y": 5}
    second_leaving = answer(table, "alice", "attack", dice=[60])
    assert not first(second_leaving, "opportunity-checked")["check"]["success"]
    assert first(second_leaving, "opportunity-raised")["cell"] == {"x": 5, "y": 4}
    answer(table, "alice", "pass")

    assert position(table, "bob") == (6, 3)


def test_two_threateners_of_one_cell_each_roll_their_own_initiative_and_attack():
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs", skills={"melee": 60})
    add(table, "dave", (5, 4), side="pcs", skills={"melee": 60})
    add(table, "bob", (5, 5))
    start(table, 1, 2, 50)
    end_turn(table, "alice")
    end_turn(table, "dave")

    raised = move(table, "bob", (7, 5))
    assert first(raised, "opportunity-raised")["threateners"] == ["alice", "dave"]
    answer(table, "alice", "attack")
    # Alice succeeds and misses; Dave succeeds and hits.
    envelopes = answer(table, "dave", "attack", dice=[10, 90, 20, 30])

    checked = [e.data["combatant_id"] for e in envelopes if e.type == "opportunity-checked"]
    attacks = [(e.data["attacker"], e.data["hit"]) for e in envelopes if e.type == "attack-rolled"]
    assert checked == ["alice", "dave"]
    assert attacks == [("alice", False), ("dave", True)]
    assert options(table, "bob") == ("dodge", "parry", "pass")


# --- skills and items ---------------------------------------------------------------------------


def use_skill(table: Table, cid: str, dice: list[int] | None = None, **extra: Any) -> list:
    command = {
        "type": "use-skill",
        "combatant_id": cid,
        "skill": "arcana",
        "description": "casts a spell",
        **extra,
    }
    return table.send(command, dice=dice)


def test_casting_a_spell_in_a_threatened_cell_provokes():
    table = alice_and_bob()

    envelopes = use_skill(table, "bob")

    assert types(envelopes) == ["action-begun", "opportunity-raised", "reaction-window-opened"]
    assert first(envelopes, "opportunity-raised")["reason"] == "skill"
    assert first(envelopes, "opportunity-raised")["paused"]["action"] == "skill"


def test_the_skill_is_used_once_its_opportunity_resolves():
    table = alice_and_bob()
    use_skill(table, "bob")
    answer(table, "alice", "attack", dice=[30, 40])

    envelopes = answer(table, "bob", "pass", dice=[4, 15])

    kinds = types(envelopes)
    assert kinds.index("damage-dealt") < kinds.index("action-resumed") < kinds.index("skill-used")
    used = first(envelopes, "skill-used")
    assert used["skill"] == "arcana" and used["check"]["roll"] == 15
    assert used["check"]["target"] == 20  # arcana is not listed: the untrained score


def test_a_caster_downed_by_the_opportunity_never_casts():
    table = alice_and_bob(hp=2)
    use_skill(table, "bob")
    answer(table, "alice", "attack", dice=[30, 40])

    envelopes = answer(table, "bob", "pass", dice=[4])

    assert first(envelopes, "action-cut")["action"] == "skill"
    assert "skill-used" not in types(envelopes)


def test_a_skill_that_does_not_provoke_is_used_at_once():
    table = alice_and_bob()

    envelopes = use_skill(table, "bob", dice=[15], provokes=False)

    assert types(envelopes) == ["action-begun", "skill-used"]


def test_only_the_gm_rules_that_a_skill_does_not_provoke():
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs")
    add(table, "bob", (5, 5))
    start(table, 1, 50)
    command = {
        "type": "use-skill",
        "combatant_id": "alice",
        "skill": "arcana",
        "description": "casts a spell",
        "provokes": False,
    }

    error = refused(table, command, actor=PLAYER, dice=[15])

    assert error.code == "skill/provokes-ruling"
    assert types(table.send(command, dice=[15])) == ["action-begun", "skill-used"]


def test_a_skill_used_outside_any_threatened_cell_provokes_nothing():
    table = alice_and_bob(in_melee=False)
    move(table, "bob", (8, 5))
    envelopes = answer(table, "alice", "pass")
    assert position(table, "bob") == (8, 5)

    envelopes = use_skill(table, "bob", dice=[15])

    assert types(envelopes)[:2] == ["action-begun", "skill-used"]


def test_using_an_item_that_is_not_a_weapon_in_a_threatened_cell_provokes():
    table = alice_and_bob()

    envelopes = table.send({"type": "use-item", "combatant_id": "bob", "item": "healing potion"})

    assert first(envelopes, "opportunity-raised")["reason"] == "item"
    resolved = answer(table, "alice", "pass")
    assert types(resolved)[-2:] == ["action-resumed", "item-used"]
    assert first(resolved, "item-used")["item"] == "healing potion"


def test_a_weapon_is_not_an_item_to_use():
    table = alice_and_bob()

    error = refused(table, {"type": "use-item", "combatant_id": "bob", "item": "sword"})

    assert error.code == "item/is-a-weapon"


# --- what does not provoke ----------------------------------------------------------------------


def test_a_combat_maneuver_in_a_threatened_cell_provokes_nothing():
    table = alice_and_bob()

    envelopes = table.send(
        {"type": "maneuver", "combatant_id": "bob", "target": "alice", "maneuver": "trip"},
        dice=[90],
    )

    assert "opportunity-raised" not in types(envelopes)
    assert first(envelopes, "attack-rolled")["maneuver"] == "trip"


def test_a_ranged_attack_from_a_threatened_cell_provokes_nothing():
    """Alice, next to Charlie's sword, shoots Bob across the field."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", weapons=[BOW])
    add(table, "charlie", (3, 5))
    add(table, "bob", (8, 5))
    start(table, 1, 50, 60)

    envelopes = table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])

    assert "opportunity-raised" not in types(envelopes)
    assert first(envelopes, "attack-rolled")["ranged"]


# --- maneuvers as attacks of opportunity ----------------------------------------------------------


def test_without_the_trait_the_opportunity_is_a_weapon_attack_only():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    error = refused(
        table,
        {"type": "answer-reaction", "window_id": window_for(table, "alice"),
         "combatant_id": "alice", "option": "trip"},
    )  # fmt: skip

    assert error.code == "reactions/unknown-option"


def test_with_the_maneuver_opportunist_trait_alice_may_trip_bob_as_he_breaks_away():
    table = encounter()
    hex_map(table)
    add(
        table, "alice", (4, 5), side="pcs", traits=[MANEUVER_OPPORTUNIST],
        skills={"melee": 60, "athletics": 60},
    )  # fmt: skip
    add(table, "bob", (5, 5))
    start(table, 1, 50)
    table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])
    end_turn(table, "alice")
    move(table, "bob", (7, 5))
    assert options(table, "alice") == ("attack", "grapple", "trip", "disarm", "pass")

    tripped = answer(table, "alice", "trip", dice=[30, 40])
    rolled = first(tripped, "attack-rolled")
    assert (rolled["maneuver"], rolled["opportunity"]) == ("trip", True)
    assert rolled["check"]["skill"] == "athletics"
    envelopes = answer(table, "bob", "pass")

    assert "maneuver-landed" in types(envelopes)
    cut = first(envelopes, "action-cut")
    assert cut["reason"] == "is prone"
    assert position(table, "bob") == (5, 5)


def test_an_opportunist_is_offered_no_disarm_against_empty_hands():
    table = encounter()
    hex_map(table)
    add(table, "alice", (4, 5), side="pcs", weapons=[])
    add(table, "bob", (5, 5), traits=[MANEUVER_OPPORTUNIST])
    start(table, 1, 50)

    move(table, "alice", (2, 5))

    assert options(table, "bob") == ("attack", "grapple", "trip", "pass")


# --- everything pauses --------------------------------------------------------------------------


def test_while_the_opportunity_is_open_the_movers_own_commands_wait():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    for command in (
        {"type": "end-turn", "combatant_id": "bob"},
        {"type": "move", "combatant_id": "bob", "to": [5, 7]},
        {"type": "use-skill", "combatant_id": "bob", "skill": "arcana", "description": "a spell"},
    ):
        assert refused(table, command).code == "turn/wait-for-reactions"


def test_while_the_defence_is_open_the_movers_own_commands_still_wait():
    table = alice_and_bob()
    move(table, "bob", (7, 5))
    answer(table, "alice", "attack", dice=[30, 40])

    error = refused(table, {"type": "end-turn", "combatant_id": "bob"})

    assert error.code == "turn/wait-for-reactions"


def test_no_one_else_acts_while_everything_pauses():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    error = refused(
        table, {"type": "attack", "combatant_id": "alice", "target": "bob"}, actor=PLAYER
    )

    assert error.code == "turn/not-your-turn"


def test_the_gm_closing_the_window_lets_the_opportunity_pass():
    table = alice_and_bob()
    move(table, "bob", (7, 5))

    envelopes = table.send(
        {"type": "close-reaction-window", "window_id": window_for(table, "alice")}
    )

    assert "opportunity-checked" not in types(envelopes)
    assert position(table, "bob") == (7, 5)
