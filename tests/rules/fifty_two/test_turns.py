"""fifty-two §4.5, §5, §5.1, §5.2 and §6 through commands: whose turn it is, its action
points, holding and raising initiative, how a turn ends, the decision clock, and the
one-time re-sequencing at round 2."""

from __future__ import annotations

from service.domain.context import SYSTEM
from service.domain.envelope import Envelope
from tests.rules.fifty_two.given import (
    ALAN,
    ALPHONSE,
    PLAYER,
    SEED_CHART,
    add,
    duel,
    encounter,
    end_turn,
    only,
    play,
    refused,
    seed_opening,
    state_of,
    types,
)
from tests.rules.harness import Table

SMALL_FIELD = ("AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H", "AD 2D 3D 4D 5D")
PAIRED_FIELD = ("AS AH 3S 4S 5S", "2H 2S 3H 4H 5H", "AD 2D 3D 4D 5D")


def turns_of(envelopes: list[Envelope]) -> list[str]:
    return [d["combatant_id"] for d in only(envelopes, "turn-started")]


def expire(table: Table, generation: int) -> list[Envelope]:
    command = {"type": "expire-clock", "clock_id": "decision", "generation": generation}
    return table.send(command, actor=SYSTEM)


def generation(table: Table) -> int:
    return state_of(table).table.clocks["decision"].generation


def rest_of_round(table: Table) -> list[Envelope]:
    """End every turn until the next round starts."""
    sent: list[Envelope] = []
    start = state_of(table).round
    while state_of(table).round == start:
        sent += end_turn(table)
    return sent


# --- §5: the order --------------------------------------------------------------------------


def test_turns_follow_the_initiative_chart():
    table = seed_opening()

    played = rest_of_round(table)

    assert ["alphonse", *turns_of(played)][:9] == [cid for cid, _ in SEED_CHART]
    assert only(played, "turn-ended")[0] == {
        "combatant_id": "alphonse", "reason": "done", "forfeited": 9
    }  # fmt: skip


def test_a_downed_combatant_is_skipped():
    table = seed_opening()
    table.send(
        {"type": "adjust-resource", "combatant_id": "evans", "resource": "hp", "delta": -133}
    )

    ended = end_turn(table)

    assert turns_of(ended) == ["eckhart"]


# --- §5.1: action points --------------------------------------------------------------------


def test_alphonses_points_with_eckhart_in_range():
    table = seed_opening()

    started = state_of(table).turn
    (first,) = [d for d in only(table.envelopes, "turn-started") if d["combatant_id"] == "alphonse"]

    # §5.1 prints "3+2+5+1-3 = 7" and §5.4 "Alphonse has 7 AP and a free action". The terms
    # the seed names (STR 3, magical attack 2, level 5, class 1, Eckhart's magic defense 3)
    # add up to 8; points.py adds the terms, so he has 8 + the free action = 9.
    assert first["terms"] == [
        ["STR bonus", 3], ["magical attack", 2], ["attack bonus", 5], ["class bonus", 1],
        ["opponents' magic defense", -3],
    ]  # fmt: skip
    assert (first["bonus"], first["points"]) == (8, 9)
    assert started is not None and started.points == 9


def test_evans_has_14_points_plus_a_free_action_against_alan():
    table = seed_opening()

    started = end_turn(table)

    # §5.5: "Evans has 5+2+7+3-3 = 14 attack points, plus a free action."
    (evans,) = only(started, "turn-started")
    assert evans["terms"] == [
        ["STR bonus", 5], ["magical attack", 2], ["attack bonus", 7], ["class bonus", 3],
        ["opponents' magic defense", -3],
    ]  # fmt: skip
    assert (evans["bonus"], evans["points"]) == (14, 15)


def test_without_opponents_in_range_the_combat_bonus_is_not_reduced():
    table = seed_opening()
    table.send({"type": "set-range", "combatant_id": "eckhart", "opponents": []})

    started = end_turn(table) + end_turn(table)

    # Eckhart: STR 3 + magical 2 + level 6 + class 2, nobody in range.
    assert only(started, "turn-started")[1]["points"] == 13 + 1


def test_a_downed_opponent_no_longer_reduces_the_combat_bonus():
    table = seed_opening()
    table.send(
        {"type": "adjust-resource", "combatant_id": "eckhart", "resource": "hp", "delta": -102}
    )

    round_two = rest_of_round(table)

    # §5.1: "the sum of all Magic Defense Bonuses of opposition currently placed within
    # attack range": Eckhart is down, out of the fight; Alphonse is back to 11 + 1.
    (alphonse,) = [d for d in only(round_two, "turn-started") if d["combatant_id"] == "alphonse"]
    assert (alphonse["bonus"], alphonse["points"]) == (11, 12)


def test_a_negative_combat_bonus_still_leaves_the_free_action():
    table = duel(*SMALL_FIELD, hero={"str_mod": -3})

    assert state_of(table).turn is not None and state_of(table).turn.points == 1


def test_range_is_only_set_against_opponents():
    table = seed_opening()

    violation = refused(
        table, {"type": "set-range", "combatant_id": "alphonse", "opponents": ["alan"]}
    )

    assert violation.code == "range/not-an-opponent"


# --- §5: holding ----------------------------------------------------------------------------


def test_the_seeds_hold_drops_alphonse_from_15_to_6():
    table = seed_opening()

    held = play(table, "alphonse", "hold-action")

    # §5: "his initiative will drop from 15 to 13 (but that slot is occupied) and then all
    # the way down to 6 and last."
    assert only(held, "action-held") == [{"combatant_id": "alphonse", "before": 15, "after": 6}]
    assert turns_of(held) == ["evans"]
    assert state_of(table).chart[-1] == ("alphonse", 6)


def test_a_held_combatant_acts_later_in_the_round():
    table = seed_opening()
    play(table, "alphonse", "hold-action")

    played = [end_turn(table) for _ in range(8)]

    assert turns_of(played[-1]) == ["alphonse"]
    assert state_of(table).round == 1
    assert types(end_turn(table))[:2] == ["turn-ended", "round-started"]


def test_a_combatant_cannot_hold_after_acting():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3})
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    violation = refused(table, {"type": "hold-action", "combatant_id": "hero"})

    assert violation.code == "turn/already-acted"


def test_the_last_in_the_order_has_nobody_to_hold_for():
    table = duel(*SMALL_FIELD)
    end_turn(table)

    violation = refused(table, {"type": "hold-action", "combatant_id": "brute"})

    assert violation.code == "turn/last-in-order"


def test_holding_drops_below_the_next_combatant_to_act_not_a_downed_one():
    table = encounter()
    add(table, "hero", "allies")
    add(table, "brute", "enemies")
    add(table, "goblin", "enemies")
    table.send({"type": "start-encounter"}, dice=[20, 15, 10])
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal"})
    table.send({"type": "adjust-resource", "combatant_id": "brute", "resource": "hp", "delta": -50})

    held = play(table, "hero", "hold-action")

    # The next combatant to act is the goblin at 10 (the brute at 15 is down): 9 is free.
    assert only(held, "action-held") == [{"combatant_id": "hero", "before": 20, "after": 9}]
    assert turns_of(held) == ["goblin"]


# --- §5.2: +1 initiative --------------------------------------------------------------------


def test_raising_initiative_climbs_to_the_next_empty_slot():
    table = seed_opening()
    for _ in range(3):
        end_turn(table)

    raised = play(table, "alan", "raise-initiative", actor=ALAN)

    # Alan on 12: 13 (Eckhart), 14 (Evans) and 15 (Alphonse) are taken, so 16, for 1 AP.
    assert only(raised, "initiative-raised") == [
        {"combatant_id": "alan", "before": 12, "after": 16, "cost": 1}
    ]
    assert state_of(table).chart[0] == ("alan", 16)
    assert state_of(table).turn is not None and state_of(table).turn.points == 20 - 1


# --- how a turn ends ------------------------------------------------------------------------


def test_a_spent_turn_ends_by_itself():
    table = duel(*SMALL_FIELD)

    spent = play(table, "hero", "raise-initiative")

    assert types(spent) == ["initiative-raised", "turn-ended", "turn-started"]
    assert only(spent, "turn-ended") == [
        {"combatant_id": "hero", "reason": "out-of-points", "forfeited": 0}
    ]
    assert turns_of(spent) == ["brute"]


def test_a_spent_turn_hands_the_clock_to_the_next_combatant():
    table = duel(*SMALL_FIELD, decision_seconds=20)

    spent = play(table, "hero", "raise-initiative")

    assert types(spent) == ["initiative-raised", "turn-ended", "turn-started", "clock-started"]
    assert only(spent, "clock-started")[0]["owner"] == "brute"
    assert only(spent, "clock-started")[0]["generation"] == 2


def test_ending_the_turn_forfeits_the_points_left():
    table = seed_opening()
    play(table, "alphonse", "raise-initiative", actor=ALPHONSE)

    ended = play(table, "alphonse", "end-turn", actor=ALPHONSE)

    assert only(ended, "turn-ended") == [
        {"combatant_id": "alphonse", "reason": "done", "forfeited": 8}
    ]
    assert turns_of(ended) == ["evans"]


def test_a_player_cannot_act_on_anothers_turn():
    table = seed_opening()

    violation = refused(table, {"type": "end-turn", "combatant_id": "alan"}, actor=PLAYER)

    assert violation.code == "turn/not-your-turn"
    assert violation.message == "it is Alphonse's turn, not Alan's"


def test_a_player_cannot_act_for_anothers_combatant():
    table = seed_opening()

    violation = refused(table, {"type": "raise-initiative", "combatant_id": "alphonse"}, actor=ALAN)
    bare = refused(table, {"type": "end-turn"}, actor=ALAN)

    assert violation.code == bare.code == "auth/not-your-combatant"


def test_the_gm_sets_the_cost_of_other_actions():
    table = seed_opening()

    violation = refused(
        table,
        {"type": "other-action", "combatant_id": "alphonse", "description": "stand", "cost": 2},
        actor=ALPHONSE,
    )
    taken = play(table, "alphonse", "other-action", description="draw a dagger", cost=2)

    assert violation.code == "action/gm-sets-cost"
    assert only(taken, "other-action-taken")[0]["cost"] == 2
    assert state_of(table).turn is not None and state_of(table).turn.points == 7


def test_nothing_is_played_after_the_encounter_ends():
    table = seed_opening()
    table.send({"type": "end-encounter", "reason": "Eckhart surrenders"})

    violation = refused(table, {"type": "end-turn", "combatant_id": "alphonse"})

    assert violation.code == "encounter/ended"


# --- §4.5: the decision clock ---------------------------------------------------------------


def test_each_turn_starts_the_decision_clock():
    table = seed_opening(decision_seconds=20)

    (clock,) = only(table.envelopes, "clock-started")

    assert clock == {
        "clock_id": "decision", "label": "Alphonse's decision", "owner": "alphonse",
        "duration_ms": 20_000, "generation": 1, "deadline": "2026-01-01T12:00:20.000Z",
    }  # fmt: skip


def test_each_action_restarts_the_clock():
    table = seed_opening(decision_seconds=20)
    table.wait(12)

    acted = play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["10S", "10D"])

    assert types(acted) == ["pair-removed", "clock-started"]
    assert only(acted, "clock-started")[0]["generation"] == 2
    assert only(acted, "clock-started")[0]["deadline"] == "2026-01-01T12:00:32.000Z"


def test_running_out_of_time_ends_the_turn_and_forfeits_the_points():
    table = seed_opening(decision_seconds=20)
    play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["10S", "10D"])
    table.wait(20)

    timed_out = expire(table, generation(table))

    assert types(timed_out) == ["clock-expired", "turn-ended", "turn-started", "clock-started"]
    assert only(timed_out, "turn-ended") == [
        {"combatant_id": "alphonse", "reason": "timeout", "forfeited": 8}
    ]
    assert turns_of(timed_out) == ["evans"]
    assert only(timed_out, "clock-started")[0]["generation"] == 3


def test_a_stale_expiry_changes_nothing():
    table = seed_opening(decision_seconds=20)
    play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["10S", "10D"])

    stale = expire(table, 1)

    assert stale == []
    assert state_of(table).turn is not None and state_of(table).turn.combatant_id == "alphonse"


def test_four_enemies_give_the_gm_40_seconds_and_five_allies_20():
    table = seed_opening(decision_seconds=20)

    evans = end_turn(table)
    eckhart_to_alan = end_turn(table) + end_turn(table)

    # §4.5: "if there are 4 enemies, the GM gets 40 seconds"; 5 Allies get no extra time.
    assert only(evans, "clock-started")[0]["duration_ms"] == 40_000
    assert [c["duration_ms"] for c in only(eckhart_to_alan, "clock-started")] == [40_000, 20_000]


def test_two_allies_get_40_seconds_each():
    table = duel(*SMALL_FIELD, others=(("squire", "allies", {}),), decision_seconds=20)

    # §4.5: "if there are only two Allies, they would get 40 seconds each"; one Enemy, 20.
    (hero,) = only(table.envelopes, "clock-started")
    brute = end_turn(table)
    assert hero["duration_ms"] == 40_000
    assert only(brute, "clock-started")[0]["duration_ms"] == 20_000


def test_without_decision_seconds_there_is_no_clock():
    table = seed_opening()

    assert only(table.envelopes, "clock-started") == []
    assert types(play(table, "alphonse", "remove-pair", cards=["10S", "10D"])) == ["pair-removed"]


# --- §6: re-sequencing ----------------------------------------------------------------------


def test_round_two_re_sequences_the_initiative_once():
    table = seed_opening()

    round_two = rest_of_round(table)
    round_three = rest_of_round(table)

    # Able's last attacker is Esther (the surprise round): he moves up to one below her, and
    # those above make room. Alphonse and Alan were attacked by Enemies already below them.
    assert only(round_two, "initiative-set") == [
        {"chart": [
            ["alphonse", 16], ["evans", 15], ["eckhart", 14], ["alan", 13], ["esther", 12],
            ["able", 11], ["emberry", 10], ["artichoke", 9], ["alice", 8],
        ], "reason": "resequenced"}
    ]  # fmt: skip
    assert only(round_three, "initiative-set") == []
    assert only(round_three, "round-started") == [{"round": 3}]


def test_a_victim_above_its_attacker_stays_where_it_is():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3}, brute={"hp": 50}, first="brute")
    end_turn(table)  # the brute, on 20
    play(table, "hero", "remove-pair", cards=["2H", "2S"])
    play(table, "hero", "execute-attack", target="brute", critical=True)

    round_two = rest_of_round(table)

    # Hero (10) attacked the brute (20), who is above: nothing moves.
    assert only(round_two, "initiative-set")[0]["chart"] == [["brute", 20], ["hero", 10]]


def test_a_victim_below_its_attacker_moves_up_under_it():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3}, others=(("squire", "allies", {}),))
    play(table, "hero", "remove-pair", cards=["2H", "2S"])
    play(table, "hero", "execute-attack", target="brute", critical=True)

    round_two = rest_of_round(table)

    # Hero 20, brute 9, squire 8: the brute moves up to 19, right under the hero.
    assert only(round_two, "initiative-set")[0]["chart"] == [
        ["hero", 20],
        ["brute", 19],
        ["squire", 8],
    ]
    assert turns_of(round_two) == ["brute", "squire", "hero"]
