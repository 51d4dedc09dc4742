"""fifty-two §4 to §5.2: the columns, the deal, surprise, the card actions and the
opportunities they create, against hand-built fields.

A field is written column by column, left to right, each column from the bottom row up:
`field("4H 7H JH AC", "10S")` has the 4 of hearts and the 10 of spades in its bottom row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.fifty_two.card_actions import (
    add_cards,
    pairs,
    remove_elsewhere,
    remove_from_bottom,
    remove_pair,
)
from service.rules.fifty_two.cards import (
    Card,
    deck_for,
    full_deck,
    padding_source,
    parse_card,
    parse_cards,
)
from service.rules.fifty_two.layout import (
    Battlefield,
    Outcome,
    ShuffleNeeded,
    add_row,
    column_count,
    deal,
    surprise_add,
    take_card,
    to_shuffle,
)

ACTIONS = "fifty-two §5.2"


def field(*columns: str, pool: str = "", discard: str = "", depth: int = 5) -> Battlefield:
    return Battlefield(
        tuple(parse_cards(column) for column in columns),
        pool=parse_cards(pool),
        discard=parse_cards(discard),
        depth=depth,
    )


def card(text: str) -> Card:
    return parse_card(text)


def layout(battlefield: Battlefield) -> list[str]:
    return [" ".join(c.text for c in column) for column in battlefield.columns]


def texts(cards: tuple[Card, ...]) -> str:
    return " ".join(c.text for c in cards)


def opportunities(outcome: Outcome) -> tuple[int, int]:
    return outcome.normal, outcome.critical


def refused(action: Callable[..., Any], *args: Any, **kwargs: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        action(*args, **kwargs)
    return caught.value


# --- §4 and §4.1: how many columns ---------------------------------------------------------


def test_the_seed_opening_has_seven_columns() -> None:
    # Five Allies (Artichoke counts), surprised by the Enemies; Alan adds a column.
    assert column_count(5, allies_surprised=True, enemies_surprised=False, modifier=+1) == 7


@pytest.mark.parametrize(
    ("allies_surprised", "enemies_surprised", "modifier", "columns"),
    [
        pytest.param(False, False, 0, 5, id="no surprise: 2 + 3 Allies"),
        pytest.param(True, False, 0, 4, id="Allies surprised: -1"),
        pytest.param(False, True, 0, 6, id="Enemies surprised: +1"),
        pytest.param(True, True, 0, 4, id="both surprised: only the -1"),
        pytest.param(False, False, -1, 4, id="the side with initiative takes one away"),
        pytest.param(False, False, +1, 6, id="the side with initiative adds one"),
    ],
)
def test_three_allies_field_two_columns_and_one_each(
    allies_surprised: bool, enemies_surprised: bool, modifier: int, columns: int
) -> None:
    assert column_count(3, allies_surprised, enemies_surprised, modifier) == columns


@pytest.mark.parametrize("modifier", [-2, 2])
def test_the_column_modifier_is_one_column_at_most(modifier: int) -> None:
    violation = refused(column_count, 3, False, False, modifier)

    assert violation.code == "cards/column-modifier"
    assert violation.rule == "fifty-two §4.1"


def test_a_field_needs_at_least_one_column() -> None:
    violation = refused(column_count, 0, True, False, -1)

    assert violation.code == "cards/no-columns"


# --- §4.2: the deal ------------------------------------------------------------------------


def test_the_first_row_dealt_is_the_top_row_and_each_row_goes_across() -> None:
    order = parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS")

    dealt = deal(order, columns=3, depth=3)

    # Dealt: top row AS 2S 3S, then 4S 5S 6S, then the bottom row 7S 8S 9S.
    assert layout(dealt) == ["7S 4S AS", "8S 5S 2S", "9S 6S 3S"]
    assert dealt.depth == 3


def test_the_cards_left_over_are_the_enemies_pool_in_their_order() -> None:
    order = parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS")

    dealt = deal(order, columns=3, depth=3)

    assert texts(dealt.pool) == "10S JS QS"
    assert dealt.discard == ()


def test_a_deck_deals_seven_columns_five_deep_and_seventeen_to_the_pool() -> None:
    dealt = deal(full_deck(), columns=7)

    assert [len(column) for column in dealt.columns] == [5] * 7
    assert len(dealt.pool) == 17
    assert dealt.depth == 5


def test_the_variation_deals_four_deep() -> None:
    dealt = deal(full_deck(), columns=7, depth=4)

    assert [len(column) for column in dealt.columns] == [4] * 7
    assert len(dealt.pool) == 24


def test_a_padded_deck_deals_ten_columns_with_seven_to_the_pool() -> None:
    dealt = deal(deck_for(10, padding_source(10)), columns=10)

    assert len(dealt.columns) == 10
    assert texts(dealt.pool) == "QC KC AS' 2S' 3S' 4S' 5S'"


def test_a_deal_needs_enough_cards() -> None:
    violation = refused(deal, full_deck(), columns=9, depth=6)

    assert violation.code == "cards/not-enough-cards"
    assert violation.rule == "fifty-two §4.2"


def test_a_deck_holding_a_card_twice_is_not_dealt() -> None:
    with pytest.raises(ValueError, match="twice"):
        deal(full_deck() + parse_cards("AS"), columns=7)


# --- §4.3: the Allies surprised the Enemies ------------------------------------------------


def test_an_ally_takes_a_card_from_any_row_and_the_cards_above_drop() -> None:
    before = field("2C 3D 4H 5S", "6C")

    taken = take_card(before, card("3D"))

    assert layout(taken.field) == ["2C 4H 5S", "6C"]
    assert texts(taken.field.discard) == "3D"
    assert opportunities(taken) == (0, 0)


def test_allies_may_take_several_cards_from_one_column() -> None:
    before = field("2C 3D 4H 5S", "6C")

    after = take_card(take_card(before, card("5S")).field, card("2C")).field

    assert layout(after) == ["3D 4H", "6C"]


def test_an_ally_cannot_take_a_card_that_is_not_face_up() -> None:
    violation = refused(take_card, field("2C", pool="9H"), card("9H"))

    assert violation.code == "cards/no-such-card"
    assert violation.rule == "fifty-two §4.3"


# --- §4.4: the Enemies surprised the Allies ------------------------------------------------


def test_the_seeds_surprise_cards_go_on_top_of_full_columns() -> None:
    before = field(
        "2C 3C 4C 5C 9H",
        "2S 3S 4S 5S 8S",
        "6D 7D 8D 9D 2D",
        "6H 7H 8H 9S 5H",
        pool="QS 10H KS JS AD",
    )

    after = before
    for column in (0, 1, 2, 3):  # Evans, Eckhart, Esther, Emberry
        after = surprise_add(after, column).field

    assert [texts(column[-2:]) for column in after.columns] == [
        "9H QS",
        "8S 10H",
        "2D KS",
        "5H JS",
    ]
    assert texts(after.pool) == "AD"


def test_the_enemies_add_one_surprise_card_to_a_column_at_most() -> None:
    violation = refused(surprise_add, field("2C", "3C", pool="QS KS"), 1, used={1})

    assert violation.code == "cards/one-per-column"
    assert violation.rule == "fifty-two §4.4"


def test_surprise_cards_come_from_the_pool() -> None:
    violation = refused(surprise_add, field("2C", "3C", discard="QS"), 0)

    assert violation.code == "cards/pool-empty"
    assert violation.rule == "fifty-two §4.4"


def test_a_surprise_card_needs_a_column() -> None:
    violation = refused(surprise_add, field("2C", "3C", pool="QS"), 2)

    assert violation.code == "cards/no-such-column"
    assert "there is no column 3" in violation.message


# --- §5.2: remove a card from the bottom row -----------------------------------------------


def test_the_seed_example_removing_the_4_of_hearts_takes_the_7_and_jack_too() -> None:
    before = field("4H 7H JH AC KD", "10S")

    removed = remove_from_bottom(before, card("4H"))

    assert texts(removed.cards) == "4H 7H JH"
    assert layout(removed.field) == ["AC KD", "10S"]
    assert texts(removed.field.discard) == "4H 7H JH"
    assert opportunities(removed) == (1, 0)


def test_a_bottom_card_under_another_suit_goes_alone() -> None:
    removed = remove_from_bottom(field("4H 7S 8H"), card("4H"))

    assert texts(removed.cards) == "4H"
    assert layout(removed.field) == ["7S 8H"]


def test_cards_of_the_suit_beyond_an_intervening_card_stay() -> None:
    removed = remove_from_bottom(field("4H 7H AC JH"), card("4H"))

    assert layout(removed.field) == ["AC JH"]


def test_clearing_a_column_from_the_bottom_is_a_critical_opportunity() -> None:
    removed = remove_from_bottom(field("4H 7H", "5C"), card("4H"))

    assert layout(removed.field) == ["", "5C"]
    assert opportunities(removed) == (0, 1)


def test_removed_cards_go_on_top_of_the_discard_stack() -> None:
    removed = remove_from_bottom(field("4H 7S", discard="2C 3C"), card("4H"))

    assert texts(removed.field.discard) == "2C 3C 4H"


def test_only_a_bottom_row_card_is_removed_from_the_bottom() -> None:
    violation = refused(remove_from_bottom, field("4H 7H"), card("7H"))

    assert violation.code == "cards/not-bottom-row"
    assert violation.rule == ACTIONS
    assert "the 7 of hearts is not in the bottom row of column 1" in violation.message


@pytest.mark.parametrize(
    "action",
    [
        pytest.param(remove_from_bottom, id="from the bottom"),
        pytest.param(remove_elsewhere, id="from elsewhere"),
    ],
)
def test_a_card_that_is_not_face_up_cannot_be_removed(action: Callable[..., Outcome]) -> None:
    violation = refused(action, field("4H 7H", pool="9C", discard="8C"), card("9C"))

    assert violation.code == "cards/no-such-card"
    assert violation.details == {"card": "9C"}


# --- §5.2: remove a card from somewhere else -----------------------------------------------


def test_a_card_elsewhere_without_same_suit_neighbours_goes_alone() -> None:
    removed = remove_elsewhere(field("2C 3S", "4C 5D", "6C 7S"), card("5D"))

    assert layout(removed.field) == ["2C 3S", "4C", "6C 7S"]
    assert opportunities(removed) == (0, 0)


def test_same_suit_neighbours_in_the_row_go_with_it() -> None:
    removed = remove_elsewhere(field("2C 3S", "4C 5S", "6C 7D"), card("5S"))

    assert texts(removed.cards) == "3S 5S"
    assert layout(removed.field) == ["2C", "4C", "6C 7D"]
    assert opportunities(removed) == (1, 0)


def test_the_run_along_the_row_reaches_beyond_the_first_neighbours() -> None:
    before = field("AC 2H", "AD 5H", "AS 9H", "AH KH", "2C 3S", "2D 4H")

    removed = remove_elsewhere(before, card("9H"))

    assert texts(removed.cards) == "2H 5H 9H KH"
    assert layout(removed.field) == ["AC", "AD", "AS", "AH", "2C 3S", "2D 4H"]
    assert opportunities(removed) == (1, 1)


@pytest.mark.parametrize(
    ("run", "normal", "critical"),
    [
        pytest.param(1, 0, 0, id="1 card: nothing"),
        pytest.param(2, 1, 0, id="2 cards: a normal"),
        pytest.param(3, 1, 0, id="3 cards: a normal"),
        pytest.param(4, 1, 1, id="4 cards: one of two is critical"),
        pytest.param(5, 1, 1, id="5 cards: one of two is critical"),
        pytest.param(6, 2, 1, id="6 cards: one of three is critical"),
    ],
)
def test_every_second_card_removed_is_an_opportunity_and_four_make_one_critical(
    run: int, normal: int, critical: int
) -> None:
    before = field(*[f"AC {rank}H" for rank in range(2, 2 + run)], "AD 2S")

    removed = remove_elsewhere(before, card("2H"))

    assert len(removed.cards) == run
    assert opportunities(removed) == (normal, critical)


def test_another_suit_in_the_row_ends_the_run() -> None:
    removed = remove_elsewhere(field("AC 2H", "AD 5S", "AS 9H", "AH KH"), card("KH"))

    assert texts(removed.cards) == "9H KH"


def test_a_column_too_short_to_reach_the_row_ends_the_run() -> None:
    removed = remove_elsewhere(field("AC 2H", "AD", "AS 9H", "AH KH"), card("9H"))

    assert texts(removed.cards) == "9H KH"
    assert layout(removed.field) == ["AC 2H", "AD", "AS", "AH"]


def test_the_run_stops_at_the_edge_of_the_field() -> None:
    removed = remove_elsewhere(field("AC 2H", "AD 3S", "AS 4H"), card("2H"))

    assert texts(removed.cards) == "2H"


def test_cards_of_the_suit_above_and_below_stay() -> None:
    removed = remove_elsewhere(field("2H 3H 4H"), card("3H"))

    assert layout(removed.field) == ["2H 4H"]


def test_the_cards_above_each_removed_card_drop_down() -> None:
    removed = remove_elsewhere(field("AC 2H 3C 4C", "AD 5H 6D"), card("2H"))

    assert layout(removed.field) == ["AC 3C 4C", "AD 6D"]


def test_a_bottom_row_card_is_not_removed_as_one_from_elsewhere() -> None:
    violation = refused(remove_elsewhere, field("4H 7H", "5H"), card("4H"))

    assert violation.code == "cards/in-bottom-row"
    assert violation.rule == ACTIONS


# --- §5.2: add cards from the pool ---------------------------------------------------------


def test_one_card_added_creates_no_opportunity() -> None:
    added = add_cards(field("AS", pool="2S 3S"), 0, 1)

    assert layout(added.field) == ["AS 2S"]
    assert texts(added.field.pool) == "3S"
    assert opportunities(added) == (0, 0)


def test_each_card_placed_after_the_first_is_a_normal_opportunity() -> None:
    added = add_cards(field("", pool="2S 3S 4S 5S"), 0, 3)

    assert layout(added.field) == ["2S 3S 4S"]
    assert opportunities(added) == (2, 0)


def test_four_cards_placed_in_a_column_are_a_critical_opportunity() -> None:
    added = add_cards(field("", pool="2S 3S 4S 5S 6S"), 0, 4)

    assert opportunities(added) == (3, 1)


def test_evans_refills_column_2_from_the_bottom_up_for_a_critical() -> None:
    before = field("9C", "7H 8H", "5D", pool="QC 4C 3D 5S 4D")

    added = add_cards(before, 1, 3)

    assert layout(added.field)[1] == "7H 8H QC 4C 3D"
    assert texts(added.field.pool) == "5S 4D"
    assert opportunities(added) == (2, 1)


def test_one_card_that_refills_a_column_is_a_critical() -> None:
    added = add_cards(field("2C 3C 4C 5C", pool="6C"), 0, 1)

    assert opportunities(added) == (0, 1)


def test_a_four_deep_field_is_refilled_at_four() -> None:
    added = add_cards(field("2C 3C", pool="6C 7C", depth=4), 0, 2)

    assert opportunities(added) == (1, 1)


def test_a_full_column_takes_no_card() -> None:
    violation = refused(add_cards, field("2C 3C 4C 5C 6C", pool="7C"), 0, 1)

    assert violation.code == "cards/column-full"
    assert violation.rule == ACTIONS
    assert violation.message == "column 1 is full, 5 cards deep"


def test_a_column_topped_by_a_surprise_card_takes_no_card() -> None:
    violation = refused(add_cards, field("2C 3C 4C 5C 6C QS", pool="7C"), 0, 1)

    assert violation.code == "cards/column-full"


def test_no_more_cards_are_added_than_the_column_has_room_for() -> None:
    violation = refused(add_cards, field("2C 3C 4C", pool="7C 8C 9C"), 0, 3)

    assert violation.code == "cards/column-full"
    assert violation.details == {"column": 1, "room": 2}  # counted from 1, as players do


def test_at_least_one_card_is_added() -> None:
    violation = refused(add_cards, field("", pool="7C"), 0, 0)

    assert violation.code == "cards/nothing-to-add"


def test_cards_are_added_to_a_column_that_exists() -> None:
    violation = refused(add_cards, field("", pool="7C"), 1, 1)

    assert violation.code == "cards/no-such-column"


def test_a_later_card_of_the_same_run_is_a_normal_opportunity() -> None:
    added = add_cards(field("2C", pool="7C"), 0, 1, placed_before=1)

    assert opportunities(added) == (1, 0)


def test_the_fourth_card_placed_one_at_a_time_is_the_critical() -> None:
    added = add_cards(field("", pool="2S 3S 4S 5S"), 0, 1, placed_before=3)

    assert opportunities(added) == (1, 1)


def test_the_critical_of_a_run_is_earned_once() -> None:
    added = add_cards(field("2S 3S 4S 5S", pool="6S"), 0, 1, placed_before=4)

    assert opportunities(added) == (1, 0)


@given(data=st.data())
def test_placing_cards_one_at_a_time_earns_what_placing_them_together_does(
    data: st.DataObject,
) -> None:
    depth = data.draw(st.sampled_from((4, 5)))
    below = data.draw(st.integers(0, depth - 1))
    count = data.draw(st.integers(1, depth - below))
    start = Battlefield((full_deck()[:below],), pool=full_deck()[below:], depth=depth)

    together = add_cards(start, 0, count)
    step, normal, critical = start, 0, 0
    for placed in range(count):
        one = add_cards(step, 0, 1, placed_before=placed)
        step, normal, critical = one.field, normal + one.normal, critical + one.critical

    assert step == together.field
    assert (normal, critical) == opportunities(together)


def test_an_empty_pool_calls_for_the_discard_stack_to_be_shuffled() -> None:
    before = field("", pool="2S", discard="9C 8C")

    with pytest.raises(ShuffleNeeded) as caught:
        add_cards(before, 0, 2)

    assert texts(caught.value.cards) == "9C 8C"
    assert texts(to_shuffle(before, 2)) == "9C 8C"
    assert to_shuffle(before, 1) == ()


def test_the_shuffled_discard_stack_becomes_the_pool_once_the_pool_runs_out() -> None:
    before = field("", pool="2S", discard="9C 8C 7C")

    added = add_cards(before, 0, 3, reshuffled=parse_cards("8C 7C 9C"))

    assert layout(added.field) == ["2S 8C 7C"]
    assert texts(added.field.pool) == "9C"
    assert added.field.discard == ()


def test_the_new_pool_order_must_be_the_discard_stack() -> None:
    before = field("", pool="2S", discard="9C 8C")

    with pytest.raises(ValueError, match="discard stack"):
        add_cards(before, 0, 2, reshuffled=parse_cards("9C 7C"))


@pytest.mark.parametrize(
    "order",
    [pytest.param("9C", id="the discard stack"), pytest.param("", id="no cards")],
)
def test_no_new_pool_order_is_taken_while_the_pool_lasts(order: str) -> None:
    before = field("", pool="2S 3S", discard="9C")

    with pytest.raises(ValueError, match="while the pool lasts"):
        add_cards(before, 0, 1, reshuffled=parse_cards(order))


def test_no_card_is_added_when_the_pool_and_discard_stack_are_spent() -> None:
    violation = refused(add_cards, field("", pool="2S", discard="9C"), 0, 3)

    assert violation.code == "cards/not-enough-cards"
    assert violation.rule == ACTIONS


# --- §5.2: remove a matching pair ----------------------------------------------------------


def test_alphonse_removes_the_10_of_spades_beside_the_10_of_diamonds() -> None:
    before = field("4C 10S 6H", "2D 10D KH 8C", "JS")

    removed = remove_pair(before, card("10S"), card("10D"))

    assert layout(removed.field) == ["4C 6H", "2D KH 8C", "JS"]
    assert texts(removed.field.discard) == "10S 10D"
    assert opportunities(removed) == (0, 1)


def test_a_vertical_pair_is_removed_and_the_cards_above_drop_two_rows() -> None:
    removed = remove_pair(field("2D KH KS 8C"), card("KS"), card("KH"))

    assert layout(removed.field) == ["2D 8C"]
    assert texts(removed.cards) == "KH KS"
    assert opportunities(removed) == (0, 1)


def test_only_two_cards_go_even_if_a_third_matches() -> None:
    removed = remove_pair(field("9C 9D", "9H"), card("9C"), card("9H"))

    assert layout(removed.field) == ["9D", ""]


def test_a_pair_from_the_padding_deck_counts() -> None:
    removed = remove_pair(field("10S", "10S'"), card("10S"), card("10S'"))

    assert opportunities(removed) == (0, 1)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("9C", "10C", id="different ranks"),
        pytest.param("9C", "9C", id="one card twice"),
    ],
)
def test_a_pair_is_two_cards_of_one_rank(first: str, second: str) -> None:
    violation = refused(remove_pair, field("9C 10C"), card(first), card(second))

    assert violation.code == "cards/not-a-pair"
    assert violation.rule == ACTIONS


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("9C", "9D", id="diagonal"),
        pytest.param("9C", "9S", id="two columns apart"),
        pytest.param("9C", "9H", id="two rows apart"),
    ],
)
def test_a_pair_must_be_side_by_side_or_one_above_the_other(first: str, second: str) -> None:
    before = field("9C 2C 9H", "3C 9D", "9S")

    violation = refused(remove_pair, before, card(first), card(second))

    assert violation.code == "cards/not-adjacent"
    assert violation.rule == ACTIONS


def test_cards_across_an_empty_column_are_not_adjacent() -> None:
    violation = refused(remove_pair, field("9C", "", "9D"), card("9C"), card("9D"))

    assert violation.code == "cards/not-adjacent"


def test_a_pair_must_be_face_up() -> None:
    violation = refused(remove_pair, field("9C", pool="9D"), card("9C"), card("9D"))

    assert violation.code == "cards/no-such-card"


def test_pairs_lists_every_pair_that_may_be_removed() -> None:
    before = field("9C 9D KS", "9H 2D", "3S KD", "3C")

    assert [(a.text, b.text) for a, b in pairs(before)] == [
        ("9C", "9H"),
        ("9C", "9D"),
        ("3S", "3C"),
    ]


# --- Variations: a row added to a four-deep field ------------------------------------------


def test_the_hybrid_variation_adds_a_card_to_the_top_of_each_column() -> None:
    before = field("2C 3C 4C 5C", "6D", "", pool="7H 8H 9H 10H", depth=4)

    added = add_row(before)

    assert layout(added.field) == ["2C 3C 4C 5C 7H", "6D 8H", "9H"]
    assert added.field.depth == 5
    assert texts(added.field.pool) == "10H"
    assert opportunities(added) == (0, 0)


# --- every card stays in play --------------------------------------------------------------


@st.composite
def dealt(draw: st.DrawFn) -> Battlefield:
    columns = draw(st.integers(1, 12))
    padding = draw(st.permutations(padding_source(columns)))
    order = draw(st.permutations(deck_for(columns, padding)))
    return deal(order, columns, depth=draw(st.sampled_from((4, 5))))


def play_one(data: st.DataObject, before: Battlefield) -> Outcome:
    face_up = [c for column in before.columns for c in column]
    bottom = [column[0] for column in before.columns if column]
    above = [c for column in before.columns for c in column[1:]]
    open_columns = [i for i, column in enumerate(before.columns) if len(column) < before.depth]
    in_hand = len(before.pool) + len(before.discard)
    moves = [
        *(["bottom"] if bottom else []),
        *(["elsewhere"] if above else []),
        *(["pair"] if pairs(before) else []),
        *(["add"] if open_columns and in_hand else []),
        *(["take"] if face_up else []),
        *(["surprise"] if before.pool else []),
        *(["row"] if in_hand >= len(before.columns) else []),
    ]
    match data.draw(st.sampled_from(moves)):
        case "bottom":
            return remove_from_bottom(before, data.draw(st.sampled_from(bottom)))
        case "elsewhere":
            return remove_elsewhere(before, data.draw(st.sampled_from(above)))
        case "pair":
            return remove_pair(before, *data.draw(st.sampled_from(pairs(before))))
        case "add":
            column = data.draw(st.sampled_from(open_columns))
            room = before.depth - len(before.columns[column])
            count = data.draw(st.integers(1, min(room, in_hand)))
            return add_cards(before, column, count, reshuffled=reshuffle(data, before, count))
        case "take":
            return take_card(before, data.draw(st.sampled_from(face_up)))
        case "surprise":
            return surprise_add(before, data.draw(st.integers(0, len(before.columns) - 1)))
        case _:
            return add_row(before, reshuffled=reshuffle(data, before, len(before.columns)))


def reshuffle(data: st.DataObject, before: Battlefield, count: int) -> list[Card] | None:
    needed = to_shuffle(before, count)
    return data.draw(st.permutations(needed)) if needed else None


@given(start=dealt(), data=st.data())
def test_random_legal_play_keeps_every_dealt_card_in_play_once(
    start: Battlefield, data: st.DataObject
) -> None:
    deck = Counter(start.cards())
    battlefield = start
    for _ in range(data.draw(st.integers(1, 40))):
        outcome = play_one(data, battlefield)
        battlefield = outcome.field

        assert Counter(battlefield.cards()) == deck
        assert outcome.normal >= 0 and outcome.critical >= 0
        assert all(card in battlefield.cards() for card in outcome.cards)
