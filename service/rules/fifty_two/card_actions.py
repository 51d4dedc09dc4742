"""The card actions of fifty-two §5.2 and the attack opportunities they create.

Each action takes the field and returns an `Outcome`: the new field, the cards removed or
placed, and how many normal and critical opportunities it created. The caller checks who
may act (removals are the Allies', adding is the Enemies', pairs are anyone's) and charges
the action points; these functions only compute. An illegal action raises RuleViolation.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.errors import RuleViolation
from service.rules.fifty_two.cards import Card
from service.rules.fifty_two.layout import (
    Battlefield,
    Outcome,
    check_column,
    draw,
    locate,
    place,
    remove_at,
)

ACTIONS = "fifty-two §5.2"
# fifty-two §5.2: "Placing 4 or more cards in a column ... creates the opportunity for a
# critical hit"; so does "Removing four or more cards" from a row.
CRITICAL_RUN = 4


def remove_from_bottom(field: Battlefield, card: Card) -> Outcome:
    """Remove a bottom-row card and every card of its suit directly above it.

    fifty-two §5.2: "removing the 4 also removes the 7 and Jack" of hearts below the ace of
    clubs. Clearing the column creates a critical opportunity, else a normal one.
    """
    column, row = locate(field, card, ACTIONS)
    if row != 0:
        raise RuleViolation(
            "cards/not-bottom-row",
            f"{card.name} is not in the bottom row of column {column + 1}; removing a card "
            "from elsewhere costs two action points",
            rule=ACTIONS,
            details={"card": card.text},
        )
    cards = field.columns[column]
    run = 1
    while run < len(cards) and cards[run].suit == card.suit:
        run += 1
    after = remove_at(field, {column: list(range(run))})
    cleared = not after.columns[column]
    return Outcome(after, removed(field, after), normal=int(not cleared), critical=int(cleared))


def remove_elsewhere(field: Battlefield, card: Card) -> Outcome:
    """Remove a card above the bottom row with its same-suit neighbours along the row.

    fifty-two §5.2: "Any cards of matching suit that are adjacent to the first horizontally
    are also removed" — read as the unbroken run of that suit along the row, since with the
    two neighbours alone the seed's "four or more cards" could never happen. A column too
    short to reach the row breaks the run. "Every second card so removed" (the first card
    counts) is a normal opportunity; with four or more, one of them is critical instead.
    """
    column, row = locate(field, card, ACTIONS)
    if row == 0:
        raise RuleViolation(
            "cards/in-bottom-row",
            f"{card.name} is in the bottom row: remove it from the bottom row instead",
            rule=ACTIONS,
            details={"card": card.text},
        )
    run = [*reversed(row_run(field, column, row, -1)), column, *row_run(field, column, row, +1)]
    after = remove_at(field, {c: [row] for c in run})
    critical = int(len(run) >= CRITICAL_RUN)
    return Outcome(after, removed(field, after), len(run) // 2 - critical, critical)


def row_run(field: Battlefield, column: int, row: int, step: int) -> list[int]:
    """The columns beside `column`, going `step` at a time, whose card in `row` shares the
    suit of the card at (column, row), up to the first that does not or has no such row."""
    suit = field.columns[column][row].suit
    found: list[int] = []
    beside = column + step
    while (card := field.at(beside, row)) is not None and card.suit == suit:
        found.append(beside)
        beside += step
    return found


def add_cards(
    field: Battlefield,
    column: int,
    count: int,
    *,
    placed_before: int = 0,
    reshuffled: Sequence[Card] | None = None,
) -> Outcome:
    """Place `count` cards from the pool on top of a column, one action each.

    fifty-two §5.2: "Each card placed after the first creates the opportunity for a normal
    attack. Placing 4 or more cards in a column, or completely refilling a column to the
    maximum depth ..., creates the opportunity for a critical hit." `placed_before` counts
    the cards this combatant has already placed in this column this turn, so that placing
    one card at a time earns what placing them together does. The critical is earned once.

    When the pool runs out, `reshuffled` is the discard stack in a new order from outside;
    `layout.to_shuffle` tells whether one is needed, and without it ShuffleNeeded is raised.
    """
    check_column(field, column, ACTIONS)
    if count < 1:
        raise RuleViolation("cards/nothing-to-add", "choose at least one card to add", rule=ACTIONS)
    if placed_before < 0:
        raise ValueError(f"placed_before cannot be negative ({placed_before})")
    room = field.depth - len(field.columns[column])
    if count > room:
        raise RuleViolation(
            "cards/column-full",
            f"column {column + 1} is full, {field.depth} cards deep"
            if room <= 0
            else f"column {column + 1} has room for {room} more cards, not {count}",
            rule=ACTIONS,
            details={"column": column + 1, "room": max(room, 0)},
        )
    drawn, field = draw(field, count, reshuffled, ACTIONS)
    after = place(field, column, drawn)
    normal = count - 1 if placed_before == 0 else count
    earned = placed_before >= CRITICAL_RUN
    refilled = len(after.columns[column]) >= after.depth
    critical = int(not earned and (placed_before + count >= CRITICAL_RUN or refilled))
    return Outcome(after, drawn, normal=normal, critical=critical)


def remove_pair(field: Battlefield, first: Card, second: Card) -> Outcome:
    """Remove two cards of the same rank adjacent horizontally or vertically.

    fifty-two §5.2: "Even if there is a third matching card, only two cards are removed."
    Cards above drop down. An immediate critical opportunity, whoever removes it.
    """
    here = locate(field, first, ACTIONS)
    there = locate(field, second, ACTIONS)
    if first == second or first.rank != second.rank:
        raise RuleViolation(
            "cards/not-a-pair",
            f"{first.name} and {second.name} are not a pair: a pair is two cards of one rank",
            rule=ACTIONS,
            details={"cards": [first.text, second.text]},
        )
    if not adjacent(here, there):
        raise RuleViolation(
            "cards/not-adjacent",
            f"{first.name} and {second.name} are not next to each other: a pair must be "
            "side by side in one row or one above the other in one column",
            rule=ACTIONS,
            details={"cards": [first.text, second.text]},
        )
    rows: dict[int, list[int]] = {}
    for column, row in (here, there):
        rows.setdefault(column, []).append(row)
    after = remove_at(field, rows)
    return Outcome(after, removed(field, after), critical=1)


def removed(before: Battlefield, after: Battlefield) -> tuple[Card, ...]:
    """The cards an action put on the discard stack, in the order they went."""
    return after.discard[len(before.discard) :]


def adjacent(here: tuple[int, int], there: tuple[int, int]) -> bool:
    """Next to each other in one row, or one directly above the other in one column."""
    (c1, r1), (c2, r2) = here, there
    return abs(c1 - c2) + abs(r1 - r2) == 1


def pairs(field: Battlefield) -> list[tuple[Card, Card]]:
    """Every pair §5.2 lets a combatant remove: (lower or left card, the other)."""
    found: list[tuple[Card, Card]] = []
    for column, cards in enumerate(field.columns):
        for row, card in enumerate(cards):
            for other in (field.at(column + 1, row), field.at(column, row + 1)):
                if other is not None and other.rank == card.rank:
                    found.append((card, other))
    return found
