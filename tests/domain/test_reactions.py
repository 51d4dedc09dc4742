"""Reaction windows: open, answer, pass, close; policies answer at once; resolve in order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain import reactions
from service.domain.context import GM, DecideContext
from service.domain.draws import Roller
from service.domain.errors import RuleViolation
from service.domain.reactions import ReactionPolicy, ReactionWindow, Requirement

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
CTX = DecideContext(GM, NOW, Roller(seed=bytes(32), version=1))
TRIGGER = {"kind": "attack", "attacker": "orc", "target": "bramli"}
RESOURCES = {"bramli": {"REF": 3}, "ayla": {"REF": 1}, "cob": {"REF": 0}}


def opened(policies=None, seconds=30.0):
    return reactions.open_window(
        "w1", TRIGGER,
        {"bramli": ["dodge"], "ayla": ["dodge", "opportunity-attack"], "cob": ["dodge"]},
        ["ayla", "bramli", "cob"], CTX, seconds, policies or {}, lambda c: RESOURCES[c],
    )  # fmt: skip


def window_after(events) -> ReactionWindow:
    window = reactions.window_from(events[0])
    for event in events[1:]:
        window = reactions.evolve_window(window, event)
    return window


def test_a_window_lists_reactors_options_pass_and_deadline():
    [event] = opened()
    assert event.eligible["ayla"] == ("dodge", "opportunity-attack", "pass")
    assert event.deadline == "2026-01-01T12:00:30.000Z"
    assert event.order == ("ayla", "bramli", "cob")


def test_a_policy_answers_instantly_while_its_requirement_holds():
    dodge = ReactionPolicy(option="dodge", **{"while": (Requirement(resource="REF", at_least=2),)})
    events = opened({"bramli": (dodge,), "ayla": (dodge,)})
    answered = [e for e in events if e.type == "reaction-answered"]
    assert [(e.combatant_id, e.by_policy) for e in answered] == [("bramli", True)]


def test_policies_answering_everyone_close_the_window_at_once():
    always = (ReactionPolicy(option="pass"),)
    events = opened({"bramli": always, "ayla": always, "cob": always})
    assert events[-1].type == "reaction-window-closed" and events[-1].reason == "all-answered"


def test_a_zero_second_window_is_answered_only_by_policies():
    events = opened({"bramli": (ReactionPolicy(option="dodge"),)}, seconds=0)
    assert events[0].deadline is None
    assert events[-1].type == "reaction-window-closed" and events[-1].reactions == (
        ("bramli", "dodge"),
    )


def test_the_last_answer_closes_and_resolves_in_the_rulesets_order():
    events = opened()
    for combatant, option in [("cob", "pass"), ("bramli", "dodge"), ("ayla", "opportunity-attack")]:
        events += reactions.answer(window_after(events), combatant, option, CTX)
    closed = events[-1]
    assert closed.type == "reaction-window-closed"
    assert closed.reactions == (("ayla", "opportunity-attack"), ("bramli", "dodge"))


@pytest.mark.parametrize(
    ("combatant", "option", "code"),
    [
        pytest.param("orc", "dodge", "reactions/not-eligible", id="not eligible"),
        pytest.param("bramli", "fireball", "reactions/unknown-option", id="unknown option"),
    ],
)
def test_bad_answers_are_refused(combatant, option, code):
    with pytest.raises(RuleViolation) as caught:
        reactions.answer(window_after(opened()), combatant, option, CTX)
    assert caught.value.code == code


def test_answering_twice_is_refused():
    events = opened()
    events += reactions.answer(window_after(events), "bramli", "dodge", CTX)
    with pytest.raises(RuleViolation) as caught:
        reactions.answer(window_after(events), "bramli", "pass", CTX)
    assert caught.value.code == "reactions/already-answered"


def test_closing_at_the_deadline_resolves_what_was_answered_and_closing_again_is_a_no_op():
    events = opened()
    events += reactions.answer(window_after(events), "bramli", "dodge", CTX)
    closing = reactions.close(window_after(events), "deadline", CTX)
    assert closing[0].reactions == (("bramli", "dodge"),)
    assert reactions.close(window_after([*events, *closing]), "deadline", CTX) == []
    with pytest.raises(RuleViolation):
        reactions.answer(window_after([*events, *closing]), "ayla", "dodge", CTX)
