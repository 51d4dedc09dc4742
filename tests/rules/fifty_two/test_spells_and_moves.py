"""fifty-two §5.2 moves, steps and attacks of opportunity; spells cast over rounds,
suspended or abandoned; §8 Reflex saves before a spell lands."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, SYSTEM, Actor
from service.domain.errors import RuleViolation
from service.domain.ruleset import RulesetBase
from service.rules.fifty_two import RULESET
from service.rules.fifty_two.cards import full_deck
from service.rules.fifty_two.state import FiftyTwoState
from service.rules.fifty_two.v1_2 import RULESET_1_2
from tests.rules.harness import Table, refused

MAGE = Actor("p-mage", "player", frozenset({"mage"}))
ORC = Actor("p-orc", "player", frozenset({"orc"}))
FIREBALL = {"name": "fireball", "rounds": 2, "damage": "6d6", "reflex_dc": 15}
BOLT = {"name": "bolt", "rounds": 1, "instantaneous": True, "damage": "2d6"}


def fight(
    mage: dict[str, Any] | None = None,
    orc: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    ruleset: RulesetBase[Any] = RULESET,
) -> Table:
    """A mage (the Allies, first in the order) against an orc, dealt from a fresh deck."""
    table = Table(ruleset, {"dice": "mixed", "decision_seconds": None, **(options or {})})
    mage_stats = {"hp": 30, "attack_bonus": 2, "spells": [FIREBALL, BOLT], **(mage or {})}
    orc_stats = {"hp": 40, "attack_bonus": 1, "reflex_save": 2, "normal_damage": "1d6",
                 "str_mod": 2, **(orc or {})}  # fmt: skip
    table.send({"type": "add-combatant", "combatant_id": "mage", "name": "Mage",
                "side": "allies", "stats": mage_stats})  # fmt: skip
    table.send({"type": "add-combatant", "combatant_id": "orc", "name": "Orc",
                "side": "orcs", "stats": orc_stats})  # fmt: skip
    table.send({"type": "start-encounter"}, dice=[20, 1])
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal", "deck": [c.text for c in full_deck()]})
    assert state(table).turn is not None and state(table).turn.combatant_id == "mage"
    return table


def state(table: Table) -> FiftyTwoState:
    assert isinstance(table.state, FiftyTwoState)
    return table.state


def points(table: Table) -> int:
    turn = state(table).turn
    assert turn is not None
    return turn.points


def end_turns_until(table: Table, who: str) -> None:
    for _ in range(4):
        turn = state(table).turn
        assert turn is not None
        if turn.combatant_id == who:
            return
        table.send({"type": "end-turn"})
    raise AssertionError(f"{who}'s turn never came")


def fireball_waits_for_the_orcs_save(table: Table) -> None:
    """The mage casts its two-round fireball at the orc; at the start of round 3 it waits
    for the orc's Reflex save (§8)."""
    table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "fireball", "target": "orc"}, actor=MAGE
    )
    table.send({"type": "end-turn"})
    end_turns_until(table, "mage")
    table.send({"type": "cast", "combatant_id": "mage", "spell": "fireball"}, actor=MAGE)
    table.send({"type": "end-turn"})
    while state(table).pending_spell is None:
        table.send({"type": "end-turn"})


def test_the_first_five_foot_step_is_free_and_the_next_costs_one_point():
    table = fight()
    before = points(table)
    table.send({"type": "step", "combatant_id": "mage"}, actor=MAGE)
    assert points(table) == before
    table.send({"type": "step", "combatant_id": "mage"}, actor=MAGE)
    assert points(table) == before - 1


def test_a_move_costs_one_point_and_is_allowed_once_a_turn():
    table = fight()
    before = points(table)
    table.send({"type": "move", "combatant_id": "mage", "enters_range_of": ["orc"]}, actor=MAGE)
    assert points(table) == before - 1
    assert state(table).engaged == {"mage": ("orc",), "orc": ("mage",)}
    error = refused(table, {"type": "move", "combatant_id": "mage"}, actor=MAGE)
    assert error.code == "move/once-a-turn"


def test_leaving_melee_range_by_moving_draws_an_attack_of_opportunity():
    table = fight()
    table.send({"type": "set-range", "combatant_id": "mage", "opponents": ["orc"]}, actor=MAGE)
    envelopes = table.send(
        # The orc's damage die is the GM's to supply (dice/not-yours).
        {"type": "move", "combatant_id": "mage", "leaves_range_of": ["orc"]},
        actor=GM,
        dice=[4],
    )
    attack = next(e for e in envelopes if e.type == "opportunity-attacked")
    # An unarmored mage has a rating of 0: every hit registers (§5.3.3).
    assert attack.data["registered"] is True and attack.data["damage"] == 4
    assert state(table).table.combatants["mage"].pools["hp"].current == 26
    assert state(table).hits["mage"] == 0


def test_leaving_melee_range_by_a_five_foot_step_draws_no_attack():
    table = fight()
    envelopes = table.send(
        {"type": "step", "combatant_id": "mage", "leaves_range_of": ["orc"]}, actor=MAGE
    )
    assert "opportunity-attacked" not in table.types(envelopes)


def test_an_instantaneous_spell_of_one_round_lands_at_once_and_counts_one_hit():
    table = fight(orc={"armor": "full-plate"})
    envelopes = table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "bolt", "target": "orc"},
        actor=MAGE,
        dice=[3, 4],
    )
    effect = next(e for e in envelopes if e.type == "spell-took-effect")
    # fifty-two §5.3.3: spells bypass the rating (full plate: 3) and count one attack.
    assert effect.data["damage"] == 7 and effect.data["hits_after"] == 1
    assert state(table).table.combatants["orc"].pools["hp"].current == 33
    assert "mage" not in state(table).castings


def test_a_two_round_spell_lands_before_the_casters_next_action():
    table = fight()
    table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "fireball", "target": "orc"}, actor=MAGE
    )
    error = refused(table, {"type": "cast", "combatant_id": "mage", "spell": "fireball"}, MAGE)
    assert error.code == "spell/one-round-a-round"
    table.send({"type": "end-turn"})
    end_turns_until(table, "mage")  # round 2
    table.send({"type": "cast", "combatant_id": "mage", "spell": "fireball"}, actor=MAGE)
    assert state(table).castings["mage"].complete
    table.send({"type": "end-turn"})
    envelopes: list[Any] = []
    for _ in range(3):
        envelopes = table.send({"type": "end-turn"})
        if "spell-pending" in table.types(envelopes):
            break
    # Round 3: the spell waits for the orc's Reflex save before the mage acts (§8).
    assert "spell-pending" in table.types(envelopes)
    error = refused(table, {"type": "end-turn"})
    assert error.code == "spell/awaiting-save"


def test_a_successful_reflex_save_halves_the_damage_and_costs_two_points_this_round():
    table = fight()
    fireball_waits_for_the_orcs_save(table)
    orc_turns_before = state(table).round
    envelopes = table.send(
        {"type": "reflex-save", "combatant_id": "orc", "attempt": True},
        dice=[14, 6, 6, 6, 6, 6, 6],
    )
    effect = next(e for e in envelopes if e.type == "spell-took-effect")
    # d20 14 + 2 = 16 meets DC 15: half of 36.
    assert effect.data["save"] == "succeeded" and effect.data["damage"] == 18
    # The spell lands at the start of round 3, before the orc has acted: §8.2, this round.
    assert effect.data["save_cost"] == 2 and effect.data["charged_to"] == "this-round"
    assert state(table).debts["orc"] == 2
    end_turns_until(table, "orc")
    started = [e for e in table.envelopes if e.type == "turn-started"][-1]
    assert started.data["owed"] == 2 and state(table).round == orc_turns_before
    assert table.replayed() == table.state


def test_the_reflex_save_offered_names_the_spell_its_dc_and_what_each_answer_costs():
    """§8: what a front end needs to ask the target: the spell, its caster and DC; §8.1 and
    §8.2: 1 point to attempt and 1 more on a success, from this round's points (the orc has
    not acted in round 3); §8.3: a step up to 5 feet, a dive up to 10 (STR +2: 5 + 2, at
    least 10), cover taking 1 point off."""
    table = fight()
    fireball_waits_for_the_orcs_save(table)
    offered = [a for a in RULESET.legal_actions(state(table), ORC) if a.type == "reflex-save"]
    assert [(a.actor, a.label) for a in offered] == [("orc", "Reflex save against fireball")]
    assert offered[0].params == {
        "attempt": [True, False],
        "cover_feet": "optional",
        "caster": "mage",
        "spell": "fireball",
        "dc": 15,
        "attempt_cost": 1,
        "success_cost": 1,
        "cover_discount": 1,
        "charged_to": "this-round",
        "step_feet": 5,
        "dive_limit": 10,
    }
    assert not [a for a in RULESET.legal_actions(state(table), MAGE) if a.type == "reflex-save"]


def test_a_reflex_save_offered_after_the_target_has_acted_is_paid_next_round():
    """§8.1: the mage has ended its turn when the orc's spell comes for it."""
    spit = {"name": "spit", "instantaneous": True, "damage": "1d6", "reflex_dc": 12}
    table = fight(orc={"spells": [spit]})
    table.send({"type": "end-turn"})
    table.send({"type": "cast", "combatant_id": "orc", "spell": "spit", "target": "mage"},
               actor=ORC)  # fmt: skip
    offered = [a for a in RULESET.legal_actions(state(table), MAGE) if a.type == "reflex-save"]
    assert offered[0].params["charged_to"] == "next-round"
    assert (offered[0].params["caster"], offered[0].params["dc"]) == ("orc", 12)


def test_a_dive_to_cover_leaves_the_defender_prone_and_takes_a_point_off():
    table = fight()
    fireball_waits_for_the_orcs_save(table)
    with pytest.raises(RuleViolation) as caught:
        # STR +2: 5 + 2 = 7, at least 10 feet (§8.3).
        table.send({"type": "reflex-save", "combatant_id": "orc", "cover_feet": 15}, dice=[2])
    assert caught.value.code == "reflex/cover-out-of-reach"
    envelopes = table.send(
        {"type": "reflex-save", "combatant_id": "orc", "cover_feet": 10},
        dice=[2, 1, 1, 1, 1, 1, 1],
    )
    effect = next(e for e in envelopes if e.type == "spell-took-effect")
    assert effect.data["save"] == "failed" and effect.data["prone"] is True
    assert effect.data["save_cost"] == 0  # 1 for the attempt, 1 off for the cover
    assert state(table).table.combatants["orc"].has_condition("prone")


def test_removing_a_card_abandons_a_spell_that_is_not_suspended():
    table = fight()
    table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "fireball", "target": "orc"}, actor=MAGE
    )
    bottom = state(table).field
    assert bottom is not None
    card = bottom.columns[0][0].text
    envelopes = table.send(
        {"type": "remove-card", "combatant_id": "mage", "card": card}, actor=MAGE
    )
    assert envelopes[0].data["abandoned"] == "fireball"
    assert "mage" not in state(table).castings


def test_a_suspended_spell_survives_card_removals():
    table = fight()
    table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "fireball", "target": "orc"}, actor=MAGE
    )
    error = refused(table, {"type": "suspend-spell", "combatant_id": "mage"}, MAGE)
    assert error.code == "spell/nothing-to-suspend"  # begun this round
    table.send({"type": "end-turn"})
    end_turns_until(table, "mage")
    table.send({"type": "suspend-spell", "combatant_id": "mage"}, actor=MAGE)
    field = state(table).field
    assert field is not None
    envelopes = table.send(
        {"type": "remove-card", "combatant_id": "mage", "card": field.columns[0][0].text},
        actor=MAGE,
    )
    assert envelopes[0].data["abandoned"] is None
    assert state(table).castings["mage"].suspended


def test_an_unknown_spell_is_refused_naming_the_known_ones():
    table = fight()
    error = refused(table, {"type": "cast", "combatant_id": "mage", "spell": "wish"}, MAGE)
    assert error.code == "spell/unknown" and "fireball, bolt" in error.message


def test_while_the_spell_waits_the_casters_player_is_told_why_nothing_is_offered():
    table = fight()
    fireball_waits_for_the_orcs_save(table)
    view = state(table)
    (waiting,) = RULESET.blocked(view, MAGE)
    assert waiting.actor == "mage" and waiting.blocked_by == ["orc"]
    assert waiting.reason == "fireball waits for Orc's Reflex save (§8)"
    assert [a.type for a in RULESET.legal_actions(view, MAGE)] == ["roll"]
    # The orc's player is offered the save, not blocked; the GM controls both: the mage's
    # wait is the GM's to see too.
    assert RULESET.blocked(view, ORC) == []
    assert [b.actor for b in RULESET.blocked(view, GM)] == ["mage"]
    table.send({"type": "reflex-save", "combatant_id": "orc", "attempt": False},
               dice=[1, 1, 1, 1, 1, 1])  # fmt: skip
    assert RULESET.blocked(state(table), MAGE) == []


def test_the_gm_may_answer_a_reflex_save_for_a_creature():
    table = fight()
    table.send({"type": "cast", "combatant_id": "mage", "spell": "fireball", "target": "orc"},
               actor=MAGE)  # fmt: skip
    table.send({"type": "end-turn"})
    end_turns_until(table, "mage")
    table.send({"type": "cast", "combatant_id": "mage", "spell": "fireball"}, actor=MAGE)
    table.send({"type": "end-turn"})
    while state(table).pending_spell is None:
        table.send({"type": "end-turn"})
    error = refused(table, {"type": "reflex-save", "combatant_id": "orc"}, MAGE)
    assert error.code == "auth/not-your-combatant"
    table.send({"type": "reflex-save", "combatant_id": "orc", "attempt": False}, actor=GM,
               dice=[1, 1, 1, 1, 1, 1])  # fmt: skip
    assert state(table).pending_spell is None
    assert state(table).table.combatants["orc"].pools["hp"].current == 34


# --- §4.5 and §8: the decision clock while a spell waits for a save ---------------------------

ON_THE_CLOCK = {"decision_seconds": 30}
SPARK = {"name": "spark", "rounds": 1, "instantaneous": True, "damage": "1d6", "reflex_dc": 12}


def decision(table: Table) -> Any:
    return state(table).table.clocks["decision"]


def expire(table: Table, generation: int) -> list[Any]:
    command = {"type": "expire-clock", "clock_id": "decision", "generation": generation}
    return table.send(command, actor=SYSTEM)


def test_a_spell_waiting_for_a_save_stops_the_decision_clock_and_the_caster_gets_it_afresh():
    table = fight(options=ON_THE_CLOCK)
    fireball_waits_for_the_orcs_save(table)
    waiting = decision(table)
    turn = state(table).turn
    assert waiting.status == "stopped" and turn is not None and turn.combatant_id == "mage"
    # Its deadline passes while the orc decides: the expiry is stale, the mage's turn goes on.
    table.wait(60)
    assert table.types(expire(table, waiting.generation)) == []
    assert state(table).turn == turn

    answered = table.send({"type": "reflex-save", "combatant_id": "orc", "attempt": False},
                          dice=[1, 1, 1, 1, 1, 1])  # fmt: skip
    started = [e.data for e in answered if e.type == "clock-started"]
    # §4.5: 30 s a decision here, and 10 s more for each Ally below 4: the mage alone, 60 s.
    assert [(s["owner"], s["duration_ms"]) for s in started] == [("mage", 60_000)], started
    assert started[0]["generation"] == waiting.generation + 1
    assert decision(table).status == "running" and state(table).turn == turn
    assert table.replayed() == table.state


def test_an_instant_spell_cast_as_an_action_leaves_the_clock_stopped_until_the_save():
    """A turn action restarts the clock (§4.5), unless it left a spell waiting for a save."""
    table = fight(mage={"spells": [SPARK]}, options=ON_THE_CLOCK)
    cast = table.send({"type": "cast", "combatant_id": "mage", "spell": "spark", "target": "orc"},
                      actor=MAGE)  # fmt: skip
    assert table.types(cast)[-2:] == ["spell-pending", "clock-stopped"]
    assert decision(table).status == "stopped"
    answered = table.send({"type": "reflex-save", "combatant_id": "orc", "attempt": False},
                          dice=[4])  # fmt: skip
    assert "clock-started" in table.types(answered) and decision(table).status == "running"


def test_fifty_two_1_2_0_kept_the_clock_running_while_a_spell_waited():
    """The version before: the caster's clock ran on, and its expiry ended the caster's turn
    while the orc was still deciding (kept for the streams recorded with it)."""
    table = fight(options=ON_THE_CLOCK, ruleset=RULESET_1_2)
    fireball_waits_for_the_orcs_save(table)
    running = decision(table)
    assert running.status == "running"
    table.wait(60)
    ended = [e.data for e in expire(table, running.generation) if e.type == "turn-ended"]
    assert [(e["combatant_id"], e["reason"]) for e in ended] == [("mage", "timeout")], ended
    assert state(table).pending_spell is not None


# --- §8.3 standing up from prone -------------------------------------------------------------


def knock_down(table: Table, who: str) -> None:
    table.send({"type": "apply-condition", "combatant_id": who, "condition": "prone"})


def test_a_prone_combatant_must_stand_up_before_anything_else():
    table = fight()
    knock_down(table, "mage")
    bottom = state(table).field.columns[0][0].text  # type: ignore[union-attr]
    for command in (
        {"type": "step", "combatant_id": "mage"},
        {"type": "remove-card", "combatant_id": "mage", "card": bottom},
        {"type": "cast", "combatant_id": "mage", "spell": "bolt", "target": "orc"},
        {"type": "other-action", "combatant_id": "mage", "description": "draws a dagger"},
    ):
        error = refused(table, command, actor=MAGE)
        assert error.code == "turn/prone" and error.rule == "fifty-two §8.3"
        assert "Mage is prone and must stand up first" in error.message
    offered = [a.type for a in RULESET.legal_actions(state(table), MAGE) if a.type != "roll"]
    assert offered == ["stand-up", "hold-action", "end-turn"]  # holding is no action (§5)


def test_standing_up_costs_one_action_point_and_clears_prone():
    table = fight()
    knock_down(table, "mage")
    before = points(table)
    envelopes = table.send({"type": "stand-up", "combatant_id": "mage"}, actor=MAGE)
    assert table.types(envelopes)[:2] == ["stood-up", "condition-removed"]
    assert envelopes[0].data == {"combatant_id": "mage", "cost": 1}
    assert points(table) == before - 1
    assert not state(table).table.combatants["mage"].has_condition("prone")
    names = {"mage": "Mage", "orc": "Orc"}.get
    assert RULESET.narrate("stood-up", envelopes[0].data, names) == "Mage stands up."
    table.send({"type": "step", "combatant_id": "mage"}, actor=MAGE)  # now anything goes
    assert table.replayed() == table.state


def test_standing_up_when_not_prone_is_refused():
    table = fight()
    error = refused(table, {"type": "stand-up", "combatant_id": "mage"}, actor=MAGE)
    assert error.code == "stand/not-prone" and error.message == "Mage is not prone"


def test_standing_up_is_only_on_the_combatants_own_turn():
    table = fight()
    knock_down(table, "orc")
    error = refused(table, {"type": "stand-up", "combatant_id": "orc"}, actor=ORC)
    assert error.code == "turn/not-your-turn"


def test_a_dived_defender_pays_the_stand_up_point_on_its_next_turn():
    table = fight(orc={"str_mod": 5})
    fireball_waits_for_the_orcs_save(table)
    table.send(
        {"type": "reflex-save", "combatant_id": "orc", "cover_feet": 10},
        dice=[2, 1, 1, 1, 1, 1, 1],
    )
    end_turns_until(table, "orc")
    offered = [a.type for a in RULESET.legal_actions(state(table), ORC) if a.type != "roll"]
    assert offered[0] == "stand-up" and "step" not in offered
    before = points(table)
    table.send({"type": "stand-up", "combatant_id": "orc"}, actor=ORC)
    assert points(table) == before - 1
    offered = [a.type for a in RULESET.legal_actions(state(table), ORC)]
    assert "stand-up" not in offered and "step" in offered


def test_knocked_prone_with_no_point_to_stand_the_turn_ends_though_a_free_attack_was_left():
    # The orc wears no armor: an attack on it costs nothing (§5.3), so a normal opportunity
    # keeps the mage's turn going with no points left, until the mage is knocked down.
    table = fight()
    bottom = state(table).field.columns[0][0].text  # type: ignore[union-attr]
    table.send({"type": "remove-card", "combatant_id": "mage", "card": bottom}, actor=MAGE)
    spend = {"type": "other-action", "combatant_id": "mage", "description": "x", "cost": 0}
    table.send({**spend, "cost": points(table)})
    turn = state(table).turn
    assert turn is not None and turn.combatant_id == "mage" and turn.normal + turn.critical >= 1
    envelopes = table.send(
        {"type": "apply-condition", "combatant_id": "mage", "condition": "prone"}
    )
    ended = next(e for e in envelopes if e.type == "turn-ended")
    assert ended.data["combatant_id"] == "mage" and ended.data["reason"] == "out-of-points"


# --- hide_enemy_health: the damage of attacks on other sides ------------------------------------

# The fresh deck's first column is all spades: removing its bottom card clears it, a critical.
TWO_D6 = {"normal_damage": "2d6", "critical_damage": "2d6"}


def test_with_enemy_health_hidden_a_player_sees_a_hit_on_the_enemy_but_not_its_damage():
    table = fight(mage=TWO_D6, options={"hide_enemy_health": True})
    bottom = state(table).field.columns[0][0].text  # type: ignore[union-attr]
    table.send({"type": "remove-card", "combatant_id": "mage", "card": bottom}, actor=MAGE)
    envelopes = table.send(
        {"type": "execute-attack", "combatant_id": "mage", "target": "orc", "critical": True},
        actor=MAGE,
        dice=[5, 3],
    )
    attack = next(e for e in envelopes if e.type == "attack-executed")
    assert attack.data["damage"] == 8 and attack.data["registered"] is True
    assert [r["purpose"] for r in attack.rolls] == ["damage (critical): Mage on Orc"] * 2
    mage_view = RULESET.redact_event(attack, MAGE, state(table))
    assert mage_view is not None
    assert mage_view["data"]["damage"] is None and mage_view["data"]["registered"] is True
    assert mage_view["rolls"] == []
    names = {"mage": "Mage", "orc": "Orc"}.get
    assert RULESET.narrate("attack-executed", mage_view["data"], names) == (
        "Mage's critical attack on Orc gets through."
    )
    for viewer in (ORC, GM):
        seen = RULESET.redact_event(attack, viewer, state(table))
        assert seen is not None and seen["data"]["damage"] == 8 and len(seen["rolls"]) == 2
    adjusted = next(e for e in envelopes if e.type == "resource-adjusted")
    assert RULESET.redact_event(adjusted, MAGE, state(table)) is None


def test_with_enemy_health_hidden_a_spells_damage_is_hidden_from_the_casters_side():
    table = fight(options={"hide_enemy_health": True})
    envelopes = table.send(
        {"type": "cast", "combatant_id": "mage", "spell": "bolt", "target": "orc"},
        actor=MAGE,
        dice=[4, 2],
    )
    effect = next(e for e in envelopes if e.type == "spell-took-effect")
    assert effect.data["damage"] == 6
    mage_view = RULESET.redact_event(effect, MAGE, state(table))
    assert mage_view is not None and mage_view["data"]["damage"] is None
    assert mage_view["rolls"] == []
    orc_view = RULESET.redact_event(effect, ORC, state(table))
    assert orc_view is not None and orc_view["data"]["damage"] == 6


def test_without_hidden_health_every_player_sees_the_damage():
    table = fight(mage=TWO_D6)
    bottom = state(table).field.columns[0][0].text  # type: ignore[union-attr]
    table.send({"type": "remove-card", "combatant_id": "mage", "card": bottom}, actor=MAGE)
    envelopes = table.send(
        {"type": "execute-attack", "combatant_id": "mage", "target": "orc", "critical": True},
        actor=MAGE,
        dice=[5, 3],
    )
    attack = next(e for e in envelopes if e.type == "attack-executed")
    seen = RULESET.redact_event(attack, MAGE, state(table))
    assert seen is not None and seen["data"]["damage"] == 8 and len(seen["rolls"]) == 2
