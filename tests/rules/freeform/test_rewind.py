"""freeform §11 Undo: a rewind makes the fold skip what came after; nothing is deleted."""

from __future__ import annotations

from service.domain.fold import replay
from service.rules.freeform import RULESET
from tests.rules.freeform.given import BRAMLI, fight, refused, state_of, types


def test_a_rewind_returns_to_the_state_as_of_that_version():
    table = fight("ash", "birch", "cedar")
    version, before = table.version, table.state
    table.send({"type": "end-turn"})
    table.send({"type": "adjust-resource", "combatant_id": "cedar", "delta": -10})

    rewound = table.send({"type": "rewind", "to_version": version})

    assert types(rewound) == ["rewound"]
    assert rewound[0].data == {"to_version": version, "from_version": version + 4}
    assert table.state == before and table.replayed() == before


def test_play_goes_on_from_the_rewound_state_and_the_undone_events_stay_stored():
    table = fight("ash", "birch")
    version = table.version
    table.send({"type": "end-turn"})
    table.send({"type": "rewind", "to_version": version})

    again = table.send({"type": "delay"})

    assert again[-1].data["combatant_id"] == "birch" and state_of(table).delayed == ("ash",)
    assert [e.version for e in table.envelopes] == list(range(1, table.version + 1))
    assert table.replayed() == table.state


def test_a_rewind_into_the_middle_of_a_command_lands_between_its_events():
    table = fight("ash", "birch")
    ended = table.send({"type": "end-turn"})

    table.send({"type": "rewind", "to_version": ended[0].version})

    assert state_of(table).current is None
    assert table.state == replay(RULESET, table.envelopes[: ended[0].version])


def test_a_rewind_may_undo_a_rewind():
    table = fight("ash", "birch")
    start = table.version
    table.send({"type": "end-turn"})
    after_turn, state = table.version, table.state
    table.send({"type": "rewind", "to_version": start})

    table.send({"type": "rewind", "to_version": after_turn})

    assert table.state == state


def test_only_the_past_can_be_rewound_to():
    table = fight("ash")

    violation = refused(table, {"type": "rewind", "to_version": table.version})

    assert violation.code == "rewind/not-in-past"


def test_only_the_gm_rewinds():
    table = fight("bramli")

    violation = refused(table, {"type": "rewind", "to_version": 2}, actor=BRAMLI)

    assert violation.code == "auth/gm-only"


def test_no_rewind_reopens_an_ended_encounter_whose_seed_is_revealed():
    table = fight("ash", "birch")
    version = table.version
    table.send({"type": "end-encounter"})

    violation = refused(table, {"type": "rewind", "to_version": version})

    assert violation.code == "encounter/ended"
