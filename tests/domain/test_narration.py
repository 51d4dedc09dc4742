"""Every shared event has a sentence of its own."""

from __future__ import annotations

from service.domain.common import COMMON_EVENTS
from service.domain.narration import COMMON, narrate_with


def test_every_shared_event_type_has_a_template():
    assert set(COMMON) == {m.model_fields["type"].default for m in COMMON_EVENTS}


def test_a_roll_narrates_who_rolled_what():
    data = {"text": "1d20 (17) + 4 = 21", "combatant_id": "bramli", "by": "p1"}
    sentence = narrate_with({}, "dice-rolled", data, lambda c: "Bramli" if c == "bramli" else "?")
    assert sentence == "Bramli rolled 1d20 (17) + 4 = 21."


def test_an_unknown_event_type_still_gets_a_sentence():
    assert narrate_with({}, "moon-rose", {}, lambda c: "?") == "Moon rose."
