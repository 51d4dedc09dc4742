"""What freeform shows: the actions a viewer may take now, and one sentence per event."""

from __future__ import annotations

import pytest

from service.domain.context import GM, Actor
from service.domain.narration import namer
from service.rules.freeform import RULESET
from service.rules.freeform.events import EVENTS
from tests.rules.freeform.given import BRAMLI, OBSERVER, add, encounter, fight, state_of
from tests.rules.harness import Table


def offered(table: Table, viewer: Actor) -> list[tuple[str, str | None]]:
    return [(a.type, a.actor) for a in RULESET.legal_actions(state_of(table), viewer)]


def test_in_setup_each_viewer_is_offered_initiative_for_its_own_combatants():
    table = encounter()
    add(table, "bramli", side="heroes")
    add(table, "goblin")

    gm = RULESET.legal_actions(state_of(table), GM)
    player = RULESET.legal_actions(state_of(table), BRAMLI)

    assert [a.type for a in gm] == ["add-combatant", "start-encounter", "roll-initiative"]
    assert gm[-1].targets == ["bramli", "goblin"]
    assert [a.type for a in player] == ["roll-initiative"] and player[0].targets == ["bramli"]


def test_end_turn_is_offered_only_to_whoever_controls_the_current_combatant():
    table = fight("bramli", "goblin")
    other = Actor("p2", "player", frozenset({"goblin"}))

    assert ("end-turn", "bramli") in offered(table, BRAMLI)
    assert ("end-turn", "bramli") in offered(table, GM)
    assert not any(kind == "end-turn" for kind, _ in offered(table, other))


def test_the_current_actor_is_offered_its_turn_options_and_a_roll():
    table = fight("bramli", "goblin")

    assert sorted(offered(table, BRAMLI), key=str) == sorted(
        [("end-turn", "bramli"), ("delay", "bramli"), ("ready", "bramli"), ("roll", None)], key=str
    )


def test_a_delayer_is_offered_to_rejoin_and_a_readier_to_fire():
    table = fight("bramli", "goblin", "ash")
    table.send({"type": "delay"}, actor=BRAMLI)
    table.send({"type": "ready", "action": "stab", "trigger": "Bramli moves"})

    assert ("rejoin", "bramli") in offered(table, BRAMLI)
    assert ("trigger-ready", "goblin") in offered(table, GM)
    assert ("call-for-readied", None) in offered(table, GM)
    assert ("call-for-readied", None) not in offered(table, BRAMLI)


def test_a_reaction_window_is_offered_to_those_it_waits_for():
    table = fight("bramli", "goblin")
    table.send({"type": "ready", "action": "shoot", "trigger": "the door opens"}, actor=BRAMLI)
    table.send({"type": "call-for-readied", "trigger": "the door opens"})

    reactions = [
        a for a in RULESET.legal_actions(state_of(table), BRAMLI) if a.type == "answer-reaction"
    ]

    assert [(a.actor, a.params) for a in reactions] == [
        ("bramli", {"window_id": "w1", "options": ["act", "pass"]})
    ]


def test_observers_are_offered_nothing():
    table = fight("bramli", "goblin")

    assert offered(table, OBSERVER) == []


def test_after_the_end_nothing_is_offered():
    table = fight("bramli", "goblin")
    table.send({"type": "end-encounter"})

    assert offered(table, GM) == [] and offered(table, BRAMLI) == []


NAMES = {"combatant_id": "ash"}


NARRATIONS = [
    pytest.param("initiative-rolled", {**NAMES, "roll": 12, "modifier": 2, "total": 14,
                 "tiebreak": 3, "group": None}, "Ash has initiative 14.",
                 id="initiative-rolled"),
    pytest.param("round-started", {"round": 2}, "Round 2 begins.", id="round-started"),
    pytest.param("turn-started", {**NAMES, "round": 2, "resumed": False},
                 "It is Ash's turn.", id="turn-started"),
    pytest.param("turn-started", {**NAMES, "round": 2, "resumed": True},
                 "Ash takes up the delayed turn.", id="turn-started, resumed"),
    pytest.param("turn-ended", {**NAMES, "reason": "done"}, "Ash's turn ended.",
                 id="turn-ended"),
    pytest.param("turn-ended", {**NAMES, "reason": "timeout"},
                 "Ash's turn ended (timeout).", id="turn-ended by the timer"),
    pytest.param("turn-delayed", NAMES, "Ash delays.", id="turn-delayed"),
    pytest.param("delay-ended", {**NAMES, "after": "birch"},
                 "Ash stops delaying and acts next.", id="delay-ended"),
    pytest.param("action-readied", {**NAMES, "action": "shoot", "trigger": "the door opens"},
                 "Ash readies 'shoot' for when the door opens.", id="action-readied"),
    pytest.param("readied-action-triggered", {**NAMES, "action": "shoot", "before": "birch"},
                 "Ash acts: shoot.", id="readied-action-triggered"),
    pytest.param("readied-action-lapsed", NAMES, "Ash's readied action lapsed.",
                 id="readied-action-lapsed"),
    pytest.param("dice-rolled", {"expression": "1d20", "total": 7, "text": "1d20 (7) = 7",
                 "purpose": "roll", "combatant_id": "ash", "by": "p1", "hidden": False},
                 "Ash rolled 1d20 (7) = 7.", id="dice-rolled for a combatant"),
    pytest.param("dice-rolled", {"expression": "1d20", "total": 7, "text": "1d20 (7) = 7",
                 "purpose": "roll", "combatant_id": None, "by": "gm", "hidden": True},
                 "gm rolled 1d20 (7) = 7.", id="dice-rolled by the gm"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "data", "sentence"), NARRATIONS)
def test_every_freeform_event_narrates_as_a_sentence(kind, data, sentence):
    table = fight("ash", "birch")

    assert RULESET.narrate(kind, data, namer(state_of(table).table.combatants)) == sentence


def test_the_narration_table_covers_every_freeform_event_type():
    covered = {case.values[0] for case in NARRATIONS}

    assert {m.model_fields["type"].default for m in EVENTS} <= covered


def test_every_event_of_a_played_encounter_narrates():
    table = fight("ash", "birch", turn_time_limit=30)
    for command in (
        {"type": "ready", "action": "shoot", "trigger": "it moves"},
        {"type": "delay"},
        {"type": "rejoin", "combatant_id": "birch"},
        {"type": "roll", "expression": "1d6", "hidden": True},
        {"type": "adjust-resource", "combatant_id": "birch", "delta": -10},
    ):
        table.send(command, dice=[1] if command["type"] == "roll" else None)
    names = namer(state_of(table).table.combatants)

    for envelope in table.envelopes:
        sentence = RULESET.narrate(envelope.type, envelope.data, names)
        fallback = envelope.type.replace("-", " ").capitalize() + "."
        assert sentence.endswith(".") and sentence != fallback
