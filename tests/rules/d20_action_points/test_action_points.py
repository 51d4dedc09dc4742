"""d20-action-points Action Points (the optional 5-point economy), Gifting Action Points, and
the Combat Round's one action without them."""

from __future__ import annotations

import contextlib
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.d20_action_points.action_points import (
    ACTIONS,
    POINTS_PER_ROUND,
    ActionName,
    Budget,
    Category,
    feet,
    gift,
    spend,
    take_action,
)

ALICE = Budget("alice", "Alice", points=2, acted=True)
BORIN = Budget("borin", "Borin")


def test_each_character_has_five_action_points_a_round() -> None:
    assert POINTS_PER_ROUND == 5
    assert BORIN.points == 5


def test_every_action_the_seed_names_has_a_cost() -> None:
    assert set(ACTIONS) == set(get_args(ActionName))


@pytest.mark.parametrize(
    ("action", "category", "cost"),
    [
        pytest.param("delay", "full-round", 5, id="delay action: 5"),
        pytest.param("full-attack", "full-round", 5, id="full attack: 5"),
        pytest.param("run", "full-round", 5, id="run: 5"),
        pytest.param("cast-spell", "standard", 3, id="cast spell: 3"),
        pytest.param("melee-attack", "standard", 3, id="melee attack: 3"),
        pytest.param("ranged-attack", "standard", 3, id="ranged attack: 3"),
        pytest.param("ready", "standard", 3, id="ready action: 3"),
        pytest.param("equip-item", "standard", 3, id="equip item: 3"),
        pytest.param("crawl", "move", 2, id="crawl: 2"),
        pytest.param("move", "move", 2, id="move: 2"),
        pytest.param("stand-up", "move", 2, id="stand up: 2"),
        pytest.param("drop-item", "free", 0, id="drop an item: free"),
        pytest.param("drop-prone", "free", 0, id="drop prone: free"),
        pytest.param("talk", "free", 0, id="talk: free"),
        pytest.param("charge", "full-round", 5, id="charge!: 5"),
        pytest.param("disarm", "standard", 3, id="disarm: 3"),
        pytest.param("grapple", "standard", 3, id="grapple: 3"),
        pytest.param("break-free", "standard", 3, id="breaking a grapple: 3"),
        pytest.param("release", "free", 0, id="letting a grapple go: free"),
    ],
)
def test_the_action_point_table(action: ActionName, category: Category, cost: int) -> None:
    assert ACTIONS[action].category == category
    assert ACTIONS[action].cost == cost


def test_the_special_combat_moves_cite_their_own_section() -> None:
    assert ACTIONS["grapple"].rule == "d20-action-points Special Combat Moves and Actions"
    assert ACTIONS["move"].rule == "d20-action-points Action Points"


# --- spending ---------------------------------------------------------------------------------


def test_a_move_and_a_melee_attack_use_the_whole_round() -> None:
    assert spend(spend(5, "move"), "melee-attack") == 0


def test_two_moves_leave_one_point_over() -> None:
    assert spend(spend(5, "move"), "move") == 1


def test_free_actions_cost_nothing_even_with_no_points_left() -> None:
    assert spend(0, "talk") == 0
    assert spend(0, "drop-prone") == 0


def test_an_action_that_costs_more_than_is_left_is_refused_naming_action_cost_and_points() -> None:
    with pytest.raises(RuleViolation) as caught:
        spend(2, "melee-attack")

    assert caught.value.code == "points/not-enough"
    assert caught.value.message == "a melee attack costs 3 action points; 2 are left"
    assert caught.value.rule == "d20-action-points Action Points"
    assert caught.value.details == {"action": "melee-attack", "cost": 3, "points": 2}


@pytest.mark.parametrize(
    ("points", "left"),
    [
        pytest.param(1, "1 is left", id="one left"),
        pytest.param(0, "none is left", id="none left"),
    ],
)
def test_the_message_counts_what_is_left(points: int, left: str) -> None:
    with pytest.raises(RuleViolation) as caught:
        spend(points, "run")

    assert caught.value.message == f"running costs 5 action points; {left}"


def test_a_full_round_action_needs_the_whole_round() -> None:
    after_talking = spend(5, "talk")
    after_moving = spend(5, "move")

    assert spend(after_talking, "full-attack") == 0
    with pytest.raises(RuleViolation) as caught:
        spend(after_moving, "full-attack")

    assert caught.value.details == {"action": "full-attack", "cost": 5, "points": 3}


@given(st.lists(st.sampled_from(get_args(ActionName)), max_size=12))
def test_spending_never_goes_below_zero_and_subtracts_the_costs(
    actions: list[ActionName],
) -> None:
    points, spent = POINTS_PER_ROUND, 0
    for action in actions:
        try:
            points = spend(points, action)
        except RuleViolation as refused:
            assert refused.details["cost"] > points
            continue
        spent += ACTIONS[action].cost
        assert points >= 0

    assert points == POINTS_PER_ROUND - spent


# --- movement ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        pytest.param("move", 30, id="move: the movement rate"),
        pytest.param("run", 60, id="run: double the movement rate"),
        pytest.param("charge", 60, id="charge: up to double"),
        pytest.param("crawl", 5, id="crawl: five feet"),
        pytest.param("melee-attack", 0, id="an attack moves nobody"),
    ],
)
def test_how_far_each_action_goes(action: ActionName, expected: int) -> None:
    assert feet(action, 30) == expected


# --- gifting ----------------------------------------------------------------------------------


def test_a_leftover_point_gifted_to_someone_who_has_not_acted_raises_their_total_by_one() -> None:
    giver, receiver = gift(ALICE, BORIN)

    assert giver.points == 1
    assert receiver.points == 6


@pytest.mark.parametrize(
    ("giver", "receiver", "points", "gifted", "code"),
    [
        pytest.param(ALICE, BORIN, 2, False, "gift/one-point", id="two points"),
        pytest.param(ALICE, BORIN, 0, False, "gift/one-point", id="no point"),
        pytest.param(ALICE, ALICE, 1, False, "gift/to-self", id="to oneself"),
        pytest.param(
            ALICE, BORIN._replace(acted=True), 1, False, "gift/receiver-acted", id="acted"
        ),
        pytest.param(ALICE, BORIN, 1, True, "gift/already-gifted", id="a second gift"),
        pytest.param(
            ALICE._replace(points=0), BORIN, 1, False, "points/not-enough", id="nothing left"
        ),
    ],
)
def test_a_gift_is_one_leftover_point_to_someone_else_who_has_not_acted(
    giver: Budget, receiver: Budget, points: int, gifted: bool, code: str
) -> None:
    with pytest.raises(RuleViolation) as caught:
        gift(giver, receiver, points, gifted=gifted)

    assert caught.value.code == code
    assert caught.value.rule == "d20-action-points Gifting Action Points"


def test_a_gift_to_someone_who_has_acted_names_them() -> None:
    with pytest.raises(RuleViolation) as caught:
        gift(ALICE, BORIN._replace(acted=True))

    assert caught.value.message.startswith("Borin has already taken their turn this round")


def test_a_receiver_may_take_gifts_from_two_givers() -> None:
    carla = Budget("carla", "Carla", points=1, acted=True)
    _, once = gift(ALICE, BORIN)
    _, twice = gift(carla, once)

    assert twice.points == 7


@given(st.integers(1, 5), st.integers(0, 10))
def test_a_gift_moves_one_point_and_keeps_the_sum(giver_points: int, receiver_points: int) -> None:
    giver, receiver = gift(
        ALICE._replace(points=giver_points), BORIN._replace(points=receiver_points)
    )

    assert giver.points + receiver.points == giver_points + receiver_points
    assert receiver.points == receiver_points + 1


# --- without action points: one action a round ------------------------------------------------


def test_without_action_points_a_combatant_takes_one_action() -> None:
    assert take_action(0, "melee-attack") == 1


def test_a_second_action_is_refused_without_a_heroic_point() -> None:
    with pytest.raises(RuleViolation) as caught:
        take_action(1, "move")

    assert caught.value.code == "round/action-taken"
    assert caught.value.rule == "d20-action-points Combat Round"
    assert "a Heroic Point buys one more" in caught.value.message


def test_a_heroic_point_buys_one_more_action_and_no_third() -> None:
    assert take_action(1, "move", heroic_point=True) == 2
    with pytest.raises(RuleViolation) as caught:
        take_action(2, "move", heroic_point=True)

    assert caught.value.details == {"action": "move", "taken": 2, "allowed": 2}
    assert "a Heroic Point" not in caught.value.message


@pytest.mark.parametrize("action", ["talk", "drop-item", "drop-prone"])
def test_free_actions_do_not_use_up_the_action(action: ActionName) -> None:
    assert take_action(1, action) == 1


@given(st.lists(st.sampled_from(get_args(ActionName)), max_size=10), st.booleans())
def test_no_round_holds_more_than_its_actions(actions: list[ActionName], heroic: bool) -> None:
    taken = 0
    for action in actions:
        with contextlib.suppress(RuleViolation):
            taken = take_action(taken, action, heroic)

    assert taken <= (2 if heroic else 1)
