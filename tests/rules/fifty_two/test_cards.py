"""fifty-two §3 and §3.1: the cards, their text form, the deck and its padding."""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import BaseModel

from service.rules.fifty_two.cards import (
    Card,
    CardError,
    deck_for,
    full_deck,
    padding_count,
    padding_source,
    parse_card,
    parse_cards,
)


def texts(cards: tuple[Card, ...]) -> str:
    return " ".join(card.text for card in cards)


# --- cards and their text ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "text"),
    [
        pytest.param(Card(1, "S"), "AS", id="ace"),
        pytest.param(Card(10, "S"), "10S", id="ten"),
        pytest.param(Card(11, "D"), "JD", id="jack"),
        pytest.param(Card(12, "H"), "QH", id="queen"),
        pytest.param(Card(13, "C"), "KC", id="king"),
        pytest.param(Card(2, "H"), "2H", id="two"),
    ],
)
def test_a_card_reads_rank_then_suit(card: Card, text: str) -> None:
    assert card.text == text
    assert str(card) == text


def test_a_padding_card_carries_a_prime_per_extra_deck() -> None:
    assert Card(10, "S", deck=1).text == "10S'"
    assert Card(10, "S", deck=2).text == "10S''"


def test_a_padding_card_is_not_the_card_of_the_first_deck() -> None:
    assert Card(10, "S", deck=1) != Card(10, "S")
    assert len({Card(10, "S"), Card(10, "S", deck=1)}) == 2


def test_every_card_of_three_decks_reads_back_as_itself() -> None:
    cards = full_deck() + full_deck(1) + full_deck(2)

    assert [parse_card(card.text) for card in cards] == list(cards)


def test_card_text_is_read_in_any_case() -> None:
    assert parse_card("qh") == Card(12, "H")
    assert parse_card(" 10s' ") == Card(10, "S", deck=1)


def test_a_list_of_cards_is_read_in_order() -> None:
    assert parse_cards("4H 7H, JH  AC") == (Card(4, "H"), Card(7, "H"), Card(11, "H"), Card(1, "C"))
    assert parse_cards("  ") == ()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("1S", id="ace written as 1"),
        pytest.param("11H", id="jack written as 11"),
        pytest.param("TS", id="ten written as T"),
        pytest.param("QX", id="unknown suit"),
        pytest.param("Q", id="no suit"),
        pytest.param("S10", id="suit first"),
        pytest.param("10S#1", id="padding written with #"),
        pytest.param("", id="nothing"),
    ],
)
def test_text_that_is_not_a_card_is_refused_naming_it(text: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_card(text)

    assert caught.value.text == text
    assert f"'{text}' is not a card" in str(caught.value)


def test_a_bad_card_in_a_list_is_named() -> None:
    with pytest.raises(CardError) as caught:
        parse_cards("4H 7H ZH AC")

    assert caught.value.text == "ZH"


@pytest.mark.parametrize(
    ("rank", "suit", "deck"),
    [
        pytest.param(0, "S", 0, id="rank 0"),
        pytest.param(14, "S", 0, id="rank 14"),
        pytest.param(5, "X", 0, id="suit X"),
        pytest.param(5, "S", -1, id="deck -1"),
    ],
)
def test_a_card_that_cannot_exist_is_refused(rank: int, suit: str, deck: int) -> None:
    with pytest.raises(CardError):
        Card(rank, suit, deck)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        pytest.param("JH", "the jack of hearts", id="court card"),
        pytest.param("AC", "the ace of clubs", id="ace"),
        pytest.param("7D", "the 7 of diamonds", id="pip card"),
        pytest.param("KS'", "the king of spades from deck 2", id="padding card"),
    ],
)
def test_a_card_is_named_as_a_player_says_it(text: str, name: str) -> None:
    assert parse_card(text).name == name


class Holding(BaseModel):
    card: Card
    cards: tuple[Card, ...] = ()


def test_cards_travel_as_their_text_in_models() -> None:
    held = Holding.model_validate_json('{"card": "QH", "cards": ["10S\'", "AS"]}')

    assert held.card == Card(12, "H")
    assert held.cards == (Card(10, "S", deck=1), Card(1, "S"))
    assert held.model_dump_json() == '{"card":"QH","cards":["10S\'","AS"]}'
    assert Holding(card=Card(2, "C")).model_dump() == {"card": "2C", "cards": ()}


def test_a_model_refuses_text_that_is_not_a_card() -> None:
    with pytest.raises(ValueError, match="'ZZ' is not a card"):
        Holding.model_validate({"card": "ZZ"})


# --- the deck and its padding --------------------------------------------------------------


def test_a_full_deck_is_fifty_two_distinct_cards_suit_by_suit_ace_to_king() -> None:
    deck = full_deck()

    assert len(set(deck)) == 52
    assert texts(deck[:14]) == "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH"
    assert texts(deck[-2:]) == "QC KC"
    assert {card.deck for card in deck} == {0}


@pytest.mark.parametrize(
    ("columns", "extra"),
    [
        pytest.param(2, 0, id="2 columns"),
        pytest.param(9, 0, id="9 columns"),
        pytest.param(10, 5, id="10 columns: +5"),
        pytest.param(11, 10, id="11 columns: +10"),
        pytest.param(12, 15, id="12 columns: +15"),
        pytest.param(13, 20, id="13 columns: +20"),
        pytest.param(14, 25, id="and so on: 14 columns +25"),
    ],
)
def test_the_padding_table_of_the_seed(columns: int, extra: int) -> None:
    assert padding_count(columns) == extra


def test_below_ten_columns_the_deck_is_one_full_deck() -> None:
    assert padding_source(9) == ()
    assert deck_for(9) == full_deck()


def test_padding_is_the_first_cards_of_the_second_deck_in_the_order_supplied() -> None:
    second = full_deck(1)
    order = second[::-1]

    deck = deck_for(11, order)

    assert padding_source(11) == second
    assert deck[:52] == full_deck()
    assert texts(deck[52:]) == "KC' QC' JC' 10C' 9C' 8C' 7C' 6C' 5C' 4C'"


def test_padding_beyond_a_second_deck_comes_from_a_third() -> None:
    source = padding_source(20)

    assert padding_count(20) == 55
    assert Counter(card.deck for card in source) == {1: 52, 2: 52}
    assert len(set(deck_for(20, source))) == 52 + 55


@pytest.mark.parametrize(
    ("columns", "padding"),
    [
        pytest.param(10, full_deck(1)[:5], id="only the cards used"),
        pytest.param(10, full_deck(), id="the first deck again"),
        pytest.param(9, full_deck(1), id="padding where none is due"),
        pytest.param(10, (), id="no padding where it is due"),
    ],
)
def test_the_padding_order_must_be_the_whole_padding_source(
    columns: int, padding: tuple[Card, ...]
) -> None:
    with pytest.raises(ValueError, match="padding"):
        deck_for(columns, padding)
