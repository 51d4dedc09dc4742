"""freeform §9 GM adjudication and hidden information: who is told what."""

from __future__ import annotations

import pytest

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.freeform import RULESET
from tests.rules.freeform.given import BRAMLI, OBSERVER, add, encounter, refused, state_of
from tests.rules.harness import Table

AUDITOR = Actor("a", "auditor")


def seen_by(table: Table, envelope: Envelope, viewer: Actor) -> bool:
    return RULESET.redact_event(envelope, viewer, state_of(table)) is not None


def party(**options) -> Table:
    table = encounter(**options)
    add(table, "bramli", side="heroes", hp=20)
    add(table, "goblin", side="goblins", hp=7)
    table.send({"type": "set-initiative", "combatant_id": "bramli", "total": 15}, dice=[1])
    table.send({"type": "set-initiative", "combatant_id": "goblin", "total": 12}, dice=[1])
    table.send({"type": "start-encounter"})
    return table


def test_a_hidden_gm_roll_is_recorded_but_only_the_gm_sees_it():
    table = party()

    rolled = table.send(
        {"type": "roll", "expression": "1d20+4", "purpose": "goblin stealth", "hidden": True},
        dice=[13],
    )

    assert rolled[0].data["hidden"] is True and rolled[0].data["total"] == 17
    assert seen_by(table, rolled[0], GM) and seen_by(table, rolled[0], AUDITOR)
    assert not seen_by(table, rolled[0], BRAMLI) and not seen_by(table, rolled[0], OBSERVER)


def test_an_open_roll_is_seen_by_everyone():
    table = party()

    rolled = table.send({"type": "roll", "expression": "1d20"}, actor=BRAMLI, dice=[8])

    assert all(seen_by(table, rolled[0], viewer) for viewer in (GM, BRAMLI, OBSERVER))


def test_only_the_gm_rolls_in_secret():
    table = party()

    violation = refused(
        table, {"type": "roll", "expression": "1d20", "hidden": True}, actor=BRAMLI, dice=[8]
    )

    assert violation.code == "auth/gm-only"


def test_hidden_notes_are_kept_from_players_in_events_and_state():
    table = party()

    note = table.send({"type": "add-note", "text": "the goblin is a doppelganger", "hidden": True})
    table.send({"type": "add-note", "text": "it is raining"})

    assert seen_by(table, note[0], GM) and not seen_by(table, note[0], BRAMLI)
    notes = RULESET.redact_state(state_of(table), BRAMLI)["table"]["notes"]
    assert [n["text"] for n in notes] == ["it is raining"]
    assert len(RULESET.redact_state(state_of(table), GM)["table"]["notes"]) == 2


def test_only_the_gm_writes_hidden_notes():
    table = party()

    violation = refused(table, {"type": "add-note", "text": "psst", "hidden": True}, actor=BRAMLI)

    assert violation.code == "auth/gm-only"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "adjust-resource", "combatant_id": "goblin", "delta": -2},
                     id="hit points"),
        pytest.param({"type": "apply-condition", "combatant_id": "goblin", "condition": "prone"},
                     id="a condition applied"),
    ],
)  # fmt: skip
def test_with_hidden_gm_overrides_players_are_not_told_of_adjustments(command):
    table = party(gm_overrides="hidden")

    adjusted = table.send(command)

    assert seen_by(table, adjusted[0], GM)
    assert not seen_by(table, adjusted[0], BRAMLI)


def test_with_hidden_gm_overrides_a_removed_condition_is_hidden_too():
    table = party(gm_overrides="hidden")
    table.send({"type": "apply-condition", "combatant_id": "goblin", "condition": "prone"})

    removed = table.send(
        {"type": "remove-condition", "combatant_id": "goblin", "condition": "prone"}
    )

    assert not seen_by(table, removed[0], BRAMLI)


def test_with_hidden_gm_overrides_players_still_see_a_foe_go_down():
    table = party(gm_overrides="hidden")

    adjusted = table.send({"type": "adjust-resource", "combatant_id": "goblin", "delta": -7})

    assert [e.type for e in adjusted if seen_by(table, e, BRAMLI)] == ["combatant-downed"]


def test_by_default_players_are_told_of_gm_adjustments():
    table = party()

    adjusted = table.send({"type": "adjust-resource", "combatant_id": "goblin", "delta": -2})

    assert seen_by(table, adjusted[0], BRAMLI)


def test_with_hidden_enemy_health_players_see_a_word_for_their_foes_health():
    table = party(hide_enemy_health=True)

    hit_foe = table.send({"type": "adjust-resource", "combatant_id": "goblin", "delta": -2})
    hit_self = table.send({"type": "adjust-resource", "combatant_id": "bramli", "delta": -2})

    assert not seen_by(table, hit_foe[0], BRAMLI) and seen_by(table, hit_self[0], BRAMLI)
    summary = {c.id: c for c in RULESET.summary(state_of(table), BRAMLI).combatants}
    assert summary["goblin"].health is None and summary["goblin"].health_word == "wounded"
    assert summary["bramli"].health is not None and summary["bramli"].health.current == 18
