"""The field of battle: columns of face-up cards, the face-down pool and the discard stack
(fifty-two §4 to §4.4, and the Variations on depth).

A column lists its cards from the bottom row upward. Index 0 is the bottom row, the only
row §5.2's cheap removal takes from; when a card goes, the cards above "drop down", which
is the tuple closing up; the Enemies add cards "to the top", which is appending. Cards in
the same row of neighbouring columns are adjacent horizontally. A cleared column keeps its
place, empty, until it is refilled.

Functions count columns from 0, left to right; messages count them from 1, as the seed does
("columns 1 and 2"). A card is named by itself: every card on the table is distinct, the
padding cards by their deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from service.domain.errors import RuleViolation
from service.rules.fifty_two.cards import Card

DEPTH = 5  # fifty-two §4.2: "Each column is laid out five cards deep"
COLUMNS = "fifty-two §4"
MODIFIER = "fifty-two §4.1"
DEAL = "fifty-two §4.2"
ALLIES_SURPRISE = "fifty-two §4.3"
ENEMIES_SURPRISE = "fifty-two §4.4"
VARIATIONS = "fifty-two Variations"

Column = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Battlefield:
    """The cards of one fight. `pool[0]` is the next card drawn; `discard[-1]` is the top."""

    columns: tuple[Column, ...]
    pool: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()
    depth: int = DEPTH

    def cards(self) -> tuple[Card, ...]:
        """Every card of the fight: the layout, then the pool, then the discard stack."""
        return (*(card for column in self.columns for card in column), *self.pool, *self.discard)

    def find(self, card: Card) -> tuple[int, int] | None:
        """(column, row) of a face-up card, or None."""
        for index, column in enumerate(self.columns):
            if card in column:
                return index, column.index(card)
        return None

    def at(self, column: int, row: int) -> Card | None:
        if 0 <= column < len(self.columns) and 0 <= row < len(self.columns[column]):
            return self.columns[column][row]
        return None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a card action did: the field after it, the cards it removed (in the order they
    went onto the discard stack) or placed, and the attack opportunities it created."""

    field: Battlefield
    cards: tuple[Card, ...]
    normal: int = 0
    critical: int = 0


class ShuffleNeeded(Exception):
    """The pool ran out mid-action (§5.2: "the Discard Stack is shuffled and becomes the new
    Pool"). Shuffle `cards`, the discard stack, and call again with that order."""

    def __init__(self, cards: tuple[Card, ...]) -> None:
        super().__init__(f"the pool is empty: shuffle the {len(cards)} discarded cards")
        self.cards = cards


def column_count(
    allies: int, allies_surprised: bool, enemies_surprised: bool, modifier: int = 0
) -> int:
    """fifty-two §4 and §4.1: how many columns the field is dealt in.

    `modifier` (-1, 0 or +1) is chosen by the side with the highest net initiative.
    """
    if modifier not in (-1, 0, 1):
        raise RuleViolation(
            "cards/column-modifier",
            f"the side with the initiative may add one column or take one away, not {modifier:+d}",
            rule=MODIFIER,
        )
    # fifty-two §4: "2 columns +1 per Ally combatant, -1 if the Allies were surprised, +1 if
    # the Enemy were surprised and the Allies were not".
    count = 2 + allies + modifier
    if allies_surprised:
        count -= 1
    elif enemies_surprised:
        count += 1
    if count < 1:
        raise RuleViolation(
            "cards/no-columns", f"the field would have {count} columns; it needs one", rule=COLUMNS
        )
    return count


def deal(order: Sequence[Card], columns: int, depth: int = DEPTH) -> Battlefield:
    """fifty-two §4.2: lay `order` (the shuffled deck) out `columns` wide, `depth` deep.

    The first row dealt defines the columns; each further row is dealt across, left to
    right, "the next row down", so the first row dealt is the top row and the last the
    bottom row. The cards left over are the Enemies' face-down pool, in their order.
    """
    if columns < 1 or depth < 1:
        raise ValueError(f"cannot deal {columns} columns {depth} deep")
    if len(set(order)) != len(order):
        raise ValueError("the deck to deal holds a card twice")
    laid = columns * depth
    if laid > len(order):
        raise RuleViolation(
            "cards/not-enough-cards",
            f"{columns} columns {depth} deep take {laid} cards; the deck has {len(order)}",
            rule=DEAL,
        )
    layout = tuple(tuple(reversed(order[c:laid:columns])) for c in range(columns))
    return Battlefield(layout, pool=tuple(order[laid:]), depth=depth)


def take_card(field: Battlefield, card: Card) -> Outcome:
    """fifty-two §4.3: an Ally who surprised the Enemies takes one card from any row; the
    cards above drop down. The card goes to the discard stack; no attack comes of it."""
    column, row = locate(field, card, ALLIES_SURPRISE)
    return Outcome(remove_at(field, {column: [row]}), (card,))


def surprise_add(field: Battlefield, column: int, used: Collection[int] = ()) -> Outcome:
    """fifty-two §4.4: an Enemy who surprised the Allies adds the next pool card to the top
    of a column. `used` are the columns already given a card: one per column.

    The seed's own example lays a sixth card on full columns: the depth does not apply. The
    card comes "from the face-down remainder of the deck": the discard stack is never
    shuffled for it.
    """
    check_column(field, column, ENEMIES_SURPRISE)
    if column in used:
        raise RuleViolation(
            "cards/one-per-column",
            f"column {column + 1} already has a card added: the Enemies may add only one card "
            "to each column",
            rule=ENEMIES_SURPRISE,
        )
    if not field.pool:
        raise RuleViolation(
            "cards/pool-empty",
            "the face-down pool is empty: there is no card left to add",
            rule=ENEMIES_SURPRISE,
        )
    drawn, field = draw(field, 1, None, ENEMIES_SURPRISE)
    return Outcome(place(field, column, drawn), drawn)


def add_row(field: Battlefield, reshuffled: Sequence[Card] | None = None) -> Outcome:
    """fifty-two Variations: a field dealt 4 deep gets "a card to the top of each column in
    the second or third combat round"; the maximum depth grows by one."""
    drawn, field = draw(field, len(field.columns), reshuffled, VARIATIONS)
    for column, card in enumerate(drawn):
        field = place(field, column, (card,))
    return Outcome(replace(field, depth=field.depth + 1), drawn)


def to_shuffle(field: Battlefield, count: int) -> tuple[Card, ...]:
    """The cards the caller must shuffle before `count` cards can be drawn: the discard
    stack when the pool holds fewer, else nothing."""
    return field.discard if count > len(field.pool) else ()


def draw(
    field: Battlefield, count: int, reshuffled: Sequence[Card] | None, rule: str
) -> tuple[tuple[Card, ...], Battlefield]:
    """Take `count` cards from the top of the pool.

    fifty-two §5.2: "If there are no cards remaining, the Discard Stack is shuffled and
    becomes the new Pool" — only when a card is wanted from an empty pool, so that the
    discards of the turn so far go into it. `reshuffled` is the discard stack in its new
    order; without it, a draw that needs one raises ShuffleNeeded.
    """
    pool = field.pool
    if count > len(pool) + len(field.discard):
        raise RuleViolation(
            "cards/not-enough-cards",
            f"the pool and the discard stack hold {len(pool) + len(field.discard)} cards, "
            f"not the {count} needed",
            rule=rule,
        )
    needed = to_shuffle(field, count)
    if needed and reshuffled is None:
        raise ShuffleNeeded(needed)
    if reshuffled is not None:
        if not needed:
            raise ValueError("no new pool order is taken while the pool lasts")
        if Counter(reshuffled) != Counter(needed):
            raise ValueError("the new pool order must be the discard stack")
        pool, field = (*pool, *reshuffled), replace(field, discard=())
    return tuple(pool[:count]), replace(field, pool=tuple(pool[count:]))


def locate(field: Battlefield, card: Card, rule: str) -> tuple[int, int]:
    found = field.find(card)
    if found is None:
        raise RuleViolation(
            "cards/no-such-card",
            f"{card.name} ({card}) is not face up in the layout",
            rule=rule,
            details={"card": card.text},
        )
    return found


def check_column(field: Battlefield, column: int, rule: str) -> None:
    if not 0 <= column < len(field.columns):
        raise RuleViolation(
            "cards/no-such-column",
            f"there is no column {column + 1}: the field has {len(field.columns)} columns",
            rule=rule,
            details={"column": column + 1},
        )


def remove_at(field: Battlefield, rows: dict[int, list[int]]) -> Battlefield:
    """Take the cards at `rows[column]` out of each column onto the discard stack (column by
    column, bottom up); the cards above drop down."""
    columns = list(field.columns)
    removed: list[Card] = []
    for column, taken in rows.items():
        removed += [columns[column][row] for row in sorted(taken)]
        columns[column] = tuple(c for r, c in enumerate(columns[column]) if r not in taken)
    return replace(field, columns=tuple(columns), discard=(*field.discard, *removed))


def place(field: Battlefield, column: int, cards: Sequence[Card]) -> Battlefield:
    """Lay `cards` on top of a column, the first lowest."""
    columns = list(field.columns)
    columns[column] = (*columns[column], *cards)
    return replace(field, columns=tuple(columns))
