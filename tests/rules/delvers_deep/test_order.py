"""delvers-deep 4.1 Combat Order and Ambush: reflex rolls, REF spending, ties, alternating
slots, a side that runs out, groups sharing a slot, rounds."""

from __future__ import annotations

import pytest

from service.domain.context import GM
from service.rules.delvers_deep.state import DelversState
from tests.rules.delvers_deep.given import (
    PLAYER,
    creature,
    encounter,
    only,
    pc,
    pools,
    refused,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table


def slots(table: Table, rounds: int = 1) -> list[str]:
    """Play turns without acting: end each turn, the GM picking its creatures in id order."""
    seen: list[str] = []
    target = state_of(table).round + rounds
    while state_of(table).round < target:
        state: DelversState = state_of(table)
        if not state.current:
            waiting = sorted(
                c
                for c, x in state.table.combatants.items()
                if x.stats["kind"] == "creature" and c not in state.acted and not x.out_of_fight
            )
            table.send({"type": "pick", "combatant_ids": waiting[:1]})
        cid = state_of(table).current[0]
        seen.append(cid)
        table.send({"type": "end-turn", "combatant_id": cid})
    return seen


def test_starting_rolls_one_d6_per_pc_and_waits_for_the_order():
    table = encounter()
    pc(table, "ani")
    creature(table, "orc")
    pc(table, "bramli")

    started = table.send({"type": "start-encounter"}, dice=[2, 5])

    assert types(started) == ["encounter-started", "reflex-rolled", "reflex-rolled"]
    assert [e.data for e in started[1:]] == [
        {"combatant_id": "ani", "roll": 2},
        {"combatant_id": "bramli", "roll": 5},
    ]
    assert state_of(table).phase == "reflex" and state_of(table).current == ()


@pytest.mark.parametrize(
    ("rolls", "max_ref", "order"),
    [
        pytest.param((5, 3), (2, 2), ("ani", "bramli"), id="highest result first"),
        pytest.param((3, 3), (2, 4), ("bramli", "ani"), id="tie to the higher maximum REF"),
        pytest.param((3, 3), (4, 4), ("ani", "bramli"), id="full tie by id"),
    ],
)
def test_pcs_act_from_the_highest_reflex_result(rolls, max_ref, order):
    table = encounter()
    pc(table, "ani", ref=max_ref[0])
    pc(table, "bramli", ref=max_ref[1])
    table.send({"type": "start-encounter"}, dice=list(rolls))

    fixed = table.send({"type": "fix-order"})

    assert only(fixed, "order-fixed") == [{"order": list(order)}]
    assert state_of(table).current == (order[0],)


def test_spending_ref_raises_the_reflex_result_one_per_point():
    table = encounter()
    pc(table, "ani", ref=4)
    pc(table, "bramli", ref=4)
    table.send({"type": "start-encounter"}, dice=[2, 4])

    boosted = table.send({"type": "boost-reflex", "combatant_id": "ani", "points": 2}, actor=PLAYER)
    table.send({"type": "boost-reflex", "combatant_id": "ani", "points": 1}, actor=PLAYER)

    assert only(boosted, "reflex-boosted") == [{"combatant_id": "ani", "points": 2, "total": 4}]
    assert pools(table, "ani")["ref"] == 1
    fixed = table.send({"type": "fix-order"})
    assert only(fixed, "order-fixed") == [{"order": ["ani", "bramli"]}]


def test_reflex_cannot_be_boosted_beyond_the_ref_there_is():
    table = encounter()
    pc(table, "ani", ref=1)
    table.send({"type": "start-encounter"}, dice=[2])

    violation = refused(
        table, {"type": "boost-reflex", "combatant_id": "ani", "points": 2}, actor=PLAYER
    )

    assert violation.code == "points/not-enough"
    assert violation.details == {"pool": "ref", "needed": 2, "had": 1}


def test_reflex_can_be_boosted_only_before_the_order_is_fixed():
    table = encounter()
    pc(table, "ani")
    start(table, 2)

    violation = refused(table, {"type": "boost-reflex", "combatant_id": "ani"}, actor=PLAYER)

    assert violation.code == "order/not-rolling"


def test_players_and_the_gm_alternate_until_one_side_runs_out():
    table = encounter()
    for cid in ("ani", "bramli"):
        pc(table, cid)
    for cid in ("orc1", "orc2", "orc3"):
        creature(table, cid)
    start(table, 6, 1)

    assert slots(table) == ["ani", "orc1", "bramli", "orc2", "orc3"]
    assert slots(table) == ["ani", "orc1", "bramli", "orc2", "orc3"]


def test_the_players_take_their_remaining_turns_uninterrupted():
    table = encounter()
    for cid in ("ani", "bramli", "cira"):
        pc(table, cid)
    creature(table, "troll")
    start(table, 6, 5, 4)

    assert slots(table) == ["ani", "troll", "bramli", "cira"]


def test_the_gm_may_go_first():
    table = encounter(first_side="gm")
    pc(table, "ani")
    creature(table, "orc")
    start(table, 3)

    assert state_of(table).current == () and table.ruleset.acting(table.state) == []
    assert slots(table) == ["orc", "ani"]


@pytest.mark.parametrize(
    ("side", "round_one"),
    [
        pytest.param("gm", ["orc1", "orc2", "ani", "bramli"], id="the creatures ambush"),
        pytest.param("pcs", ["ani", "bramli", "orc1", "orc2"], id="the PCs ambush"),
    ],
)
def test_an_ambush_round_lets_one_side_act_entirely_first(side, round_one):
    table = encounter(ambush=side)
    pc(table, "ani")
    pc(table, "bramli")
    creature(table, "orc1")
    creature(table, "orc2")
    start(table, 6, 1)

    assert slots(table) == round_one
    assert slots(table) == ["ani", "orc1", "bramli", "orc2"]  # normal order from round 2


def test_a_group_of_similar_creatures_shares_one_slot():
    table = encounter()
    pc(table, "ani")
    creature(table, "gob1", group="goblins")
    creature(table, "gob2", group="goblins")
    creature(table, "ogre")
    start(table, 3)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)

    picked = table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})

    assert only(picked, "turn-started")[0]["combatant_ids"] == ["gob1", "gob2"]
    table.send({"type": "end-turn", "combatant_id": "gob1"})
    assert state_of(table).current == ("gob2",)
    ended = table.send({"type": "end-turn", "combatant_id": "gob2"})
    # Ani has acted: the GM's side takes its remaining turn uninterrupted.
    assert types(ended)[-1] == "turn-ended" and state_of(table).current == ()
    assert table.ruleset.legal_actions(table.state, GM)[-1].targets == ["ogre"]


@pytest.mark.parametrize(
    ("pick", "code"),
    [
        pytest.param(["gob1", "ogre"], "turn/not-a-group", id="not one group"),
        pytest.param(["ani"], "turn/cannot-act", id="a PC in the GM's slot"),
    ],
)
def test_the_gm_picks_only_creatures_that_may_share_the_slot(pick, code):
    table = encounter(first_side="gm")
    pc(table, "ani")
    creature(table, "gob1", group="goblins")
    creature(table, "ogre")
    start(table, 3)

    assert refused(table, {"type": "pick", "combatant_ids": pick}).code == code


def test_a_new_round_begins_when_everyone_has_acted():
    table = encounter()
    pc(table, "ani")
    creature(table, "orc")
    start(table, 3)
    table.send({"type": "end-turn", "combatant_id": "ani"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["orc"]})

    wrapped = table.send({"type": "end-turn", "combatant_id": "orc"})

    assert types(wrapped) == ["turn-ended", "round-started", "turn-started"]
    assert state_of(table).round == 2 and state_of(table).current == ("ani",)


def test_a_downed_creature_is_skipped():
    table = encounter()
    pc(table, "ani")
    creature(table, "orc1")
    creature(table, "orc2")
    start(table, 3)
    table.send({"type": "adjust-resource", "combatant_id": "orc1", "delta": -10})

    assert slots(table) == ["ani", "orc2"]


def test_without_pcs_the_gm_slot_begins_at_once():
    table = encounter()
    creature(table, "orc")

    started = table.send({"type": "start-encounter"})

    assert types(started) == ["encounter-started", "order-fixed", "round-started"]
    assert table.ruleset.phase_label(table.state) == "round 1: GM's slot — choosing who acts"


def test_nothing_follows_a_rewind_even_from_between_the_events_of_a_command():
    table = encounter()
    pc(table, "hero")
    creature(table, "foe")
    table.send({"type": "start-encounter"}, dice=[3])
    fixed = table.send({"type": "fix-order"})  # order-fixed, round-started, turn-started
    table.send({"type": "rewind", "to_version": fixed[0].version})

    rewound = table.send({"type": "rewind", "to_version": 1})

    assert types(rewound) == ["rewound"]
    assert table.state == table.replayed()
    assert state_of(table).current == ()
