"""Playing cards, their text form, the deck and its padding (fifty-two §3, §3.1).

A card's text is its rank (A, 2-10, J, Q, K) then its suit (S, H, D, C): "AS", "10S", "QH".
A padding card (§3.1: "additional cards from a second deck") carries one prime per deck
after the first, so the two ten of spades on the table read "10S" and "10S'", and a third
deck's would read "10S''". Parsing ignores case; the text form is always upper case.

Fray never shuffles here: every order comes in from outside, drawn from the encounter's
dice (`Roller.shuffle`) or entered by the table. To build the deck for a field of n
columns, the caller shuffles `padding_source(n)` (nothing to shuffle below 10 columns),
passes that order to `deck_for(n, padding)`, then shuffles the result and deals it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

Suit = Literal["S", "H", "D", "C"]
SUITS: tuple[Suit, ...] = get_args(Suit)
RANKS = range(1, 14)
DECK_SIZE = 52
PRIME = "'"

_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_NAME = {1: "ace", 11: "jack", 12: "queen", 13: "king"}
_SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_TEXT_RANK = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(r): r for r in range(2, 11)}
_TEXT_SUIT: dict[str, Suit] = {suit: suit for suit in SUITS}
_PATTERN = re.compile(r"(A|[2-9]|10|J|Q|K)([SHDC])('*)", re.IGNORECASE)
# The text form for JSON Schema (ECMA-262 regexes have no case-insensitive flag): as read, and
# as written.
_READ = r"^\s*([Aa]|[2-9]|10|[JjQqKk])[SsHhDdCc]'*\s*$"
_WRITTEN = r"^(A|[2-9]|10|J|Q|K)[SHDC]'*$"
_FORMS = "a rank A, 2-10, J, Q or K, a suit S, H, D or C, and a ' per extra deck (10S, QH, AS')"
# fifty-two §3.1: "10 columns: +5 random cards ... 13 columns: +20 random cards ... and so on".
_PADDED_FROM = 10
_PADDING_PER_COLUMN = 5


class CardError(ValueError):
    """Text that is not a card, or a card that cannot exist. `text` is the offending card."""

    def __init__(self, message: str, *, text: str = "") -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True, slots=True)
class Card:
    """One card. `deck` is 0 for the deck of 52, 1, 2 ... for padding decks (§3.1).

    In pydantic models a card validates from and serializes to its text form.
    """

    rank: int
    suit: Suit
    deck: int = 0

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS or self.deck < 0:
            raise CardError(
                f"no such card: rank {self.rank}, suit {self.suit!r}, deck {self.deck}",
                text=f"{self.rank}{self.suit}",
            )

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        rank = _RANK_TEXT.get(self.rank, str(self.rank))
        return f"{rank}{self.suit}{PRIME * self.deck}"

    @property
    def name(self) -> str:
        """As a player says it: "the jack of hearts", "the 10 of spades from deck 2"."""
        rank = _RANK_NAME.get(self.rank, str(self.rank))
        padding = f" from deck {self.deck + 1}" if self.deck else ""
        return f"the {rank} of {_SUIT_NAME[self.suit]}{padding}"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_text = core_schema.chain_schema(
            [core_schema.str_schema(), core_schema.no_info_plain_validator_function(parse_card)]
        )
        return core_schema.json_or_python_schema(
            json_schema=from_text,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_text]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        read = handler.mode == "validation"
        return {
            "type": "string",
            "pattern": _READ if read else _WRITTEN,
            "description": f"A card: {_FORMS}.",
        }


def parse_card(text: str) -> Card:
    found = _PATTERN.fullmatch(text.strip())
    if found is None:
        raise CardError(f"'{text}' is not a card: a card is {_FORMS}", text=text)
    rank, suit, primes = found.groups()
    return Card(_TEXT_RANK[rank.upper()], _TEXT_SUIT[suit.upper()], len(primes))


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards separated by spaces or commas, e.g. "4H 7H JH AC"."""
    return tuple(parse_card(part) for part in re.split(r"[\s,]+", text.strip()) if part)


def full_deck(deck: int = 0) -> tuple[Card, ...]:
    """The 52 cards of one deck, spades, hearts, diamonds then clubs, each ace to king."""
    return tuple(Card(rank, suit, deck) for suit in SUITS for rank in RANKS)


def padding_count(columns: int) -> int:
    """fifty-two §3.1: how many cards of a second deck pad a field of `columns` columns."""
    if columns < _PADDED_FROM:
        return 0
    return _PADDING_PER_COLUMN * (columns - _PADDED_FROM + 1)


def padding_source(columns: int) -> tuple[Card, ...]:
    """The cards the padding is drawn from: the second deck, and a third when 52 run short."""
    decks = -(-padding_count(columns) // DECK_SIZE)
    return tuple(card for deck in range(1, decks + 1) for card in full_deck(deck))


def deck_for(columns: int, padding: Sequence[Card] = ()) -> tuple[Card, ...]:
    """The cards to shuffle for `columns` columns: the deck of 52 and its padding.

    fifty-two §3.1: the padding is "random cards" from a second deck. `padding` is
    `padding_source(columns)` in an order supplied from outside; its first cards pad.
    """
    if Counter(padding) != Counter(padding_source(columns)):
        need = padding_count(columns)
        raise ValueError(
            f"{columns} columns take {need} padding cards drawn from a shuffled "
            f"padding_source({columns}) ({len(padding_source(columns))} cards), "
            f"not {len(padding)} cards"
        )
    return full_deck() + tuple(padding[: padding_count(columns)])
