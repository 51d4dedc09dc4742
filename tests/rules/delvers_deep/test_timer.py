"""The turn timer (`turn_time_limit`): each slot starts clock "turn" anew, a GM slot waiting
for its pick is untimed, and an expiry acts per `on_turn_timeout`."""

from __future__ import annotations

import pytest

from service.domain.context import SYSTEM
from service.domain.envelope import Envelope
from service.domain.narration import namer
from service.rules.delvers_deep import RULESET
from tests.rules.delvers_deep.given import (
    PLAYER,
    creature,
    encounter,
    only,
    pc,
    pools,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table


def expire(table: Table, generation: int) -> list[Envelope]:
    return table.send(
        {"type": "expire-clock", "clock_id": "turn", "generation": generation}, actor=SYSTEM
    )


def clock(table: Table) -> tuple[str, int]:
    turn = state_of(table).table.clocks["turn"]
    return turn.status, turn.generation


def party(**options) -> Table:
    """Two PCs and nobody else: Ani's turn, then Bramli's, with no GM slot between."""
    table = encounter(**options)
    pc(table, "ani")
    pc(table, "bramli")
    start(table, 6, 1)
    return table


def goblins(**options) -> Table:
    """Ani has ended her turn and the GM's slot waits: two goblins of one group, an ogre."""
    table = encounter(**options)
    pc(table, "ani")
    creature(table, "gob1", name="Gob 1", group="goblins")
    creature(table, "gob2", name="Gob 2", group="goblins")
    creature(table, "ogre")
    start(table, 3)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)
    return table


def test_the_first_turn_starts_the_turn_clock_with_the_limit():
    table = encounter(turn_time_limit=60)
    pc(table, "ani")
    creature(table, "orc")

    started = start(table, 4)

    assert only(started, "clock-started") == [
        {"clock_id": "turn", "label": "Ani's turn", "owner": "ani", "duration_ms": 60_000,
         "generation": 1, "deadline": "2026-01-01T12:01:00.000Z"}
    ]  # fmt: skip
    assert types(started)[-2:] == ["turn-started", "clock-started"]


def test_the_next_turn_restarts_the_clock_with_the_next_generation():
    table = party(turn_time_limit=60)
    table.wait(10)

    passed = table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)

    assert types(passed) == ["turn-ended", "turn-started", "clock-started"]
    assert only(passed, "clock-started")[0] | {"label": ""} == {
        "clock_id": "turn", "label": "", "owner": "bramli", "duration_ms": 60_000,
        "generation": 2, "deadline": "2026-01-01T12:01:10.000Z",
    }  # fmt: skip


def test_a_gm_slot_waiting_for_its_pick_is_untimed():
    table = encounter(turn_time_limit=60)
    pc(table, "ani")
    creature(table, "orc")
    start(table, 4)

    ended = table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)
    table.wait(300)
    picked = table.send({"type": "pick", "combatant_ids": ["orc"]})

    assert types(ended) == ["turn-ended", "clock-stopped"]
    assert only(ended, "clock-stopped") == [{"clock_id": "turn", "generation": 1}]
    assert types(picked) == ["turn-started", "clock-started"]
    assert only(picked, "clock-started")[0]["owner"] == "orc"
    assert only(picked, "clock-started")[0]["generation"] == 2
    assert only(picked, "clock-started")[0]["deadline"] == "2026-01-01T12:06:00.000Z"


def test_a_slot_that_wraps_the_round_restarts_the_clock():
    table = encounter(turn_time_limit=60)
    pc(table, "ani")
    creature(table, "orc")
    start(table, 4)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["orc"]})

    wrapped = table.send({"type": "end-turn", "combatant_id": "orc"})

    assert types(wrapped) == ["turn-ended", "round-started", "turn-started", "clock-started"]
    assert clock(table) == ("running", 3)


def test_without_a_time_limit_there_is_no_turn_clock():
    table = encounter()
    pc(table, "ani")
    creature(table, "orc")
    start(table, 4)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["orc"]})
    table.send({"type": "end-turn", "combatant_id": "orc"})

    assert state_of(table).table.clocks == {}
    assert expire(table, 1) == []


def test_when_time_runs_out_the_turn_ends_by_default():
    table = party(turn_time_limit=60)
    table.wait(60)

    expired = expire(table, 1)

    assert types(expired) == ["clock-expired", "turn-ended", "turn-started", "clock-started"]
    assert expired[0].data == {"clock_id": "turn", "generation": 1, "owner": "ani"}
    assert only(expired, "turn-ended") == [{"combatant_id": "ani", "reason": "timeout"}]
    assert state_of(table).current == ("bramli",) and clock(table) == ("running", 2)


@pytest.mark.parametrize(
    ("on_timeout", "kinds", "current", "status"),
    [
        pytest.param("end-turn",
                     ["clock-expired", "turn-ended", "turn-started", "clock-started"],
                     ("bramli",), ("running", 2), id="end-turn: the turn ends"),
        pytest.param("delay",
                     ["clock-expired", "turn-ended", "turn-started", "clock-started"],
                     ("bramli",), ("running", 2), id="delay: no delay in the seed, it ends"),
        pytest.param("record", ["clock-expired"], ("ani",), ("expired", 1),
                     id="record: only noted, the turn goes on"),
    ],
)  # fmt: skip
def test_what_a_timeout_does_is_an_option(on_timeout, kinds, current, status):
    table = party(turn_time_limit=30, on_turn_timeout=on_timeout)

    expired = expire(table, 1)

    assert types(expired) == kinds
    assert state_of(table).current == current and clock(table) == status


def test_a_recorded_timeout_leaves_the_turn_to_its_player_and_times_the_next():
    table = party(turn_time_limit=30, on_turn_timeout="record")
    expire(table, 1)

    braced = table.send({"type": "brace", "combatant_id": "ani"}, actor=PLAYER)
    passed = table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)

    assert types(braced)[0] == "braced"
    assert types(passed) == ["turn-ended", "turn-started", "clock-started"]
    assert clock(table) == ("running", 2)


def test_a_timed_out_turn_still_recovers_as_an_ended_one_does():
    table = encounter(turn_time_limit=30)
    pc(table, "ani", recovery=2)
    creature(table, "orc")
    start(table, 4)
    table.send({"type": "adjust-resource", "combatant_id": "ani", "resource": "fort", "set": 0})

    expired = expire(table, 1)

    assert types(expired)[:2] == ["clock-expired", "recovered"]
    assert only(expired, "recovered")[0]["auto"] is True
    assert pools(table, "ani")["fort"] == 2


def test_a_stale_expiry_changes_nothing():
    table = party(turn_time_limit=60)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)  # generation 2: Bramli

    assert expire(table, 1) == []
    assert state_of(table).current == ("bramli",) and clock(table) == ("running", 2)


def test_an_expiry_of_a_generation_not_yet_started_changes_nothing():
    table = party(turn_time_limit=60)

    assert expire(table, 7) == []
    assert state_of(table).current == ("ani",)


def test_an_expired_clock_does_not_expire_twice():
    table = party(turn_time_limit=60, on_turn_timeout="record")
    expire(table, 1)

    assert expire(table, 1) == []


def test_an_expiry_after_the_slot_is_over_and_the_gm_is_choosing_changes_nothing():
    table = goblins(turn_time_limit=60)

    assert expire(table, 1) == []
    assert clock(table) == ("stopped", 1) and state_of(table).current == ()


def test_a_group_sharing_a_slot_shares_one_clock_that_belongs_to_none_of_them():
    table = goblins(turn_time_limit=45)

    picked = table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})
    one_done = table.send({"type": "end-turn", "combatant_id": "gob1"})

    assert only(picked, "clock-started")[0] | {"deadline": ""} == {
        "clock_id": "turn", "label": "Gob 1 and Gob 2's turn", "owner": None,
        "duration_ms": 45_000, "generation": 2, "deadline": "",
    }  # fmt: skip
    assert types(one_done) == ["turn-ended"]
    assert clock(table) == ("running", 2)


def test_a_timeout_ends_every_turn_left_in_a_shared_slot():
    table = goblins(turn_time_limit=45)
    table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})

    expired = expire(table, 2)

    assert only(expired, "clock-expired") == [{"clock_id": "turn", "generation": 2, "owner": None}]
    assert only(expired, "turn-ended") == [
        {"combatant_id": "gob1", "reason": "timeout"},
        {"combatant_id": "gob2", "reason": "timeout"},
    ]
    # Ani has acted: the GM's slot comes again and waits, untimed, for the ogre's pick.
    assert state_of(table).current == () and clock(table) == ("expired", 2)
    assert only(table.send({"type": "pick", "combatant_ids": ["ogre"]}), "clock-started")


def test_a_timeout_in_a_shared_slot_ends_only_the_turns_still_running():
    table = goblins(turn_time_limit=45)
    table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})
    table.send({"type": "end-turn", "combatant_id": "gob1"})

    expired = expire(table, 2)

    assert only(expired, "turn-ended") == [{"combatant_id": "gob2", "reason": "timeout"}]


def test_removing_the_combatant_whose_turn_it_is_restarts_the_clock_for_the_next():
    table = party(turn_time_limit=60)

    removed = table.send({"type": "remove-combatant", "combatant_id": "ani"})

    assert types(removed) == ["combatant-removed", "turn-started", "clock-started"]
    assert only(removed, "clock-started")[0]["owner"] == "bramli"
    assert expire(table, 1) == []


def test_removing_one_of_a_shared_slot_leaves_the_clock_running():
    table = goblins(turn_time_limit=45)
    table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})

    removed = table.send({"type": "remove-combatant", "combatant_id": "gob1"})

    assert types(removed) == ["combatant-removed"]
    assert clock(table) == ("running", 2)


def test_a_combatant_downed_on_its_turn_hands_the_clock_on():
    table = party(turn_time_limit=60)

    downed = table.send({"type": "adjust-resource", "combatant_id": "ani", "delta": -10})

    assert types(downed) == [
        "resource-adjusted", "combatant-downed", "turn-ended", "turn-started", "clock-started"
    ]  # fmt: skip
    assert only(downed, "clock-started")[0]["owner"] == "bramli"


def test_a_last_combatant_downed_on_its_turn_stops_the_clock():
    table = encounter(turn_time_limit=60)
    pc(table, "ani")
    start(table, 4)

    downed = table.send({"type": "adjust-resource", "combatant_id": "ani", "delta": -10})

    assert types(downed)[-2:] == ["turn-ended", "clock-stopped"]
    assert clock(table) == ("stopped", 1)


def test_a_timeout_while_a_reaction_is_open_ends_the_turn_and_the_next_waits_for_it():
    table = encounter(turn_time_limit=60, ambush="pcs")
    pc(table, "ani")
    pc(table, "bramli")
    creature(table, "orc")
    start(table, 6, 1)
    hit = table.send(
        {"type": "attack", "combatant_id": "ani", "weapon": "sword", "target": "orc"},
        actor=PLAYER,
        dice=[6, 3],
    )
    window = only(hit, "reaction-window-opened")[0]["window_id"]

    expired = expire(table, 1)
    waiting = state_of(table).current
    closed = table.send({"type": "close-reaction-window", "window_id": window}, SYSTEM)

    assert types(expired) == ["clock-expired", "turn-ended"] and waiting == ()
    assert types(closed)[-2:] == ["turn-started", "clock-started"]
    assert state_of(table).current == ("bramli",) and clock(table) == ("running", 2)


def test_a_turn_whose_combatant_went_down_while_reactions_wait_ends_as_downed():
    table = encounter(turn_time_limit=60, ambush="pcs")
    pc(table, "ani")
    pc(table, "bramli")
    creature(table, "orc")
    start(table, 6, 1)
    table.send(
        {"type": "attack", "combatant_id": "ani", "weapon": "sword", "target": "orc"},
        actor=PLAYER,
        dice=[6, 3],
    )
    table.send({"type": "adjust-resource", "combatant_id": "ani", "delta": -10})

    expired = expire(table, 1)

    assert types(expired) == ["clock-expired", "turn-ended"]
    assert only(expired, "turn-ended") == [{"combatant_id": "ani", "reason": "downed"}]


def test_ending_the_encounter_stops_the_turn_clock():
    table = party(turn_time_limit=60)

    ended = table.send({"type": "end-encounter"})

    assert types(ended) == ["clock-stopped", "encounter-ended"]
    assert clock(table) == ("stopped", 1)


def test_a_timeout_is_narrated():
    names = namer(state_of(party()).table.combatants)

    sentence = RULESET.narrate("turn-ended", {"combatant_id": "ani", "reason": "timeout"}, names)

    assert sentence == "Ani's turn ends: time is up."
